"""Spread chunks of work over processes, and get the results in chunk order.

Processes are spawned, never forked: forking a process that runs threads is
deprecated on Python 3.12 and can deadlock. Each worker builds its own state
once (``worker_init(*worker_args)``), then takes the next chunk from a shared
counter until none is left, so a slow start or a slow chunk does not hold the
others back. This process works on chunks too, once ``local_init()`` has
built its state (score.py reads the question files there, while the workers
start), and hands each result on as soon as the chunks before it are in, so
that the results are dealt with while the workers still work, and need not
all be held at once. It takes a chunk of its own only when no worker's
result is waiting: a worker whose results wait stops, and this process is
the only one that can hand them on.

A worker that fails or dies costs time, not results: whatever chunk it did
not deliver is done again here, where an error shows itself normally. The
results never depend on how the chunks were shared out, so the output of one
process and of many is the same, byte for byte (tests/test_score.py).
"""

import pickle
import queue


def map_chunks(work, chunks, jobs, worker_init, worker_args, local_init, consume,
               state_of=None):
    """``consume(index, work(state, chunks[index]))`` for every chunk, in
    chunk order, each as soon as it and every chunk before it are done; return
    what ``local_init()`` returned (called before the first ``consume``).

    ``state_of`` picks this process's state out of what ``local_init``
    returns (default: all of it)."""
    state_of = state_of or (lambda made: made)
    if jobs <= 1 or len(chunks) <= 1:
        made = local_init()
        state = state_of(made)
        for index, chunk in enumerate(chunks):
            consume(index, work(state, chunk))
        return made
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    counter = ctx.Value("l", 0)
    results = ctx.Queue(8)
    workers = [ctx.Process(target=_worker, daemon=True,
                           args=(worker_init, worker_args, work, chunks, counter, results))
               for _ in range(min(jobs, len(chunks)) - 1)]
    for process in workers:
        process.start()
    done = {}
    order = _InOrder(done, consume)
    running = len(workers)
    try:
        made = local_init()
        state = state_of(made)
        own = received = 0
        while True:
            # Results come first: only this process can hand them on, and a
            # worker whose results wait in the queue stops. Each worker that
            # has not finished holds at most one chunk it is still working on;
            # more chunks taken than that, and at least one result is on its way.
            if running and counter.value - own - received > running:
                item = _get(results, workers)
                if item is _LOST:
                    running = 0  # its chunks are done below
                    continue
                received += item is not None
                running -= _keep(item, done)
                order.flush()
                continue
            index = _next(counter, len(chunks))
            if index is None:
                break
            own += 1
            done[index] = work(state, chunks[index])
            order.flush()
        while running:
            item = _get(results, workers)
            if item is _LOST:
                break  # a worker died without saying so: its chunks are done below
            running -= _keep(item, done)
            order.flush()
        for index in range(order.next, len(chunks)):
            if index not in done:
                done[index] = work(state, chunks[index])
            order.flush()
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
            process.join()
        results.close()
        results.join_thread()
    return made


class _InOrder:
    """Hands the results on in chunk order, and lets go of them."""

    def __init__(self, done, consume):
        self.done = done
        self.consume = consume
        self.next = 0

    def flush(self):
        while self.next in self.done:
            self.consume(self.next, self.done.pop(self.next))
            self.next += 1


_LOST = object()


def _get(results, workers):
    """The next item from the workers, or _LOST when none is alive to send it."""
    while True:
        try:
            return results.get(timeout=0.5)
        except queue.Empty:
            if not any(process.is_alive() for process in workers) and results.empty():
                return _LOST


def _keep(item, done):
    """Keep a worker's ``(index, result)``; 1 when the item says it finished."""
    if item is None:
        return 1
    done[item[0]] = pickle.loads(item[1])
    return 0


def _next(counter, count):
    with counter.get_lock():
        index = counter.value
        if index >= count:
            return None
        counter.value = index + 1
    return index


def _worker(worker_init, worker_args, work, chunks, counter, results):
    try:
        state = worker_init(*worker_args)
        while True:
            index = _next(counter, len(chunks))
            if index is None:
                break
            # Pickled here, not by the queue's feeder thread: pickling there
            # while this thread works on the next chunk, the two took turns
            # at the GIL, and a chunk took 49 us a line instead of 38.
            results.put((index, pickle.dumps(work(state, chunks[index]),
                                             pickle.HIGHEST_PROTOCOL)))
    except BaseException:  # the parent does the chunk again and reports what it finds
        pass
    results.put(None)

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
result is waiting, as it is the only one that can hand them on (a worker
stops once eight of its results wait).

A worker that fails or dies costs time, not results: whatever chunk it did
not deliver is done again here, where an error shows itself normally. The
results never depend on how the chunks were shared out, so the output of one
process and of many is the same, byte for byte (tests/test_score.py).
"""

import pickle


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
    # One pipe from the workers, a result pickled by the worker's main
    # thread: a multiprocessing.Queue pickles in its feeder thread, which
    # took turns at the GIL with the worker's work (a chunk took 49 us a line
    # in a worker against 34 here).
    reader, writer = ctx.Pipe(duplex=False)
    _widen(writer)
    lock = ctx.Lock()
    workers = [ctx.Process(target=_worker, daemon=True,
                           args=(worker_init, worker_args, work, chunks, counter, writer, lock))
               for _ in range(min(jobs, len(chunks)) - 1)]
    try:
        for process in workers:
            process.start()
    finally:
        writer.close()  # the workers hold it now: once they are gone, the pipe ends
    done = {}
    order = _InOrder(done, consume)
    running = len(workers)
    try:
        made = local_init()
        state = state_of(made)
        own = received = 0
        while True:
            # Results come first: only this process can hand them on. One is
            # waiting when the pipe holds something, or when more chunks are
            # taken than the workers that have not finished can be working
            # on (one each).
            if running and (reader.poll() or counter.value - own - received > running):
                item = _get(reader, workers)
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
            item = _get(reader, workers)
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
        reader.close()
    return made


# Room for two of score.py's results (a quarter of answers.CHUNK_BYTES
# each): the worker's thread writes one at once and the worker goes on while
# it waits to be read. Linux only; elsewhere the pipe keeps its size.
PIPE_BYTES = 1 << 20


def _widen(connection):
    try:
        import fcntl
        fcntl.fcntl(connection.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # not Linux, or a system whose pipes may not grow this large


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


def _get(reader, workers):
    """The next item from the workers, or _LOST when none is alive to send it."""
    while True:
        if reader.poll(0.5):
            try:
                return pickle.loads(reader.recv_bytes())
            except EOFError:  # every worker has ended
                return _LOST
        if not any(process.is_alive() for process in workers) and not reader.poll():
            return _LOST


def _keep(item, done):
    """Keep a worker's ``(index, result)``; 1 when the item says it finished."""
    if item is None:
        return 1
    done[item[0]] = item[1]
    return 0


def _next(counter, count):
    with counter.get_lock():
        index = counter.value
        if index >= count:
            return None
        counter.value = index + 1
    return index


def _worker(worker_init, worker_args, work, chunks, counter, writer, lock):
    import queue
    import threading
    # Results are pickled here and written by a thread of their own, so
    # this thread goes on with the next chunk while one waits to be read.
    outbox = queue.Queue(8)
    sender = threading.Thread(target=_sender, args=(outbox, writer, lock), daemon=True)
    sender.start()
    try:
        state = worker_init(*worker_args)
        while True:
            index = _next(counter, len(chunks))
            if index is None:
                break
            outbox.put(pickle.dumps((index, work(state, chunks[index])), pickle.HIGHEST_PROTOCOL))
    except BaseException:  # the parent does the chunk again and reports what it finds
        pass
    outbox.put(None)
    sender.join()


def _sender(outbox, writer, lock):
    while True:
        data = outbox.get()
        with lock:  # a message longer than the pipe's atomic write must not interleave
            writer.send_bytes(pickle.dumps(None) if data is None else data)
        if data is None:
            return

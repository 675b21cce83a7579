"""Spread chunks of work over processes, and get the results in chunk order.

On Linux, in a process that runs no other thread, the workers are forked,
before this process has read much: a forked worker starts at once, with
nothing to import again and no resource-tracker process beside it (0.1-0.3 s
of CPU less on the bench's 100,000 answers). Elsewhere, or with other
threads running, they are spawned: forking a process that runs threads is
deprecated on Python 3.12 and can deadlock, and macOS does not allow it
safely. (multiprocessing flushes the standard streams before it forks, so a
worker never writes again what this process had buffered.)

Each worker builds its own state once (``worker_init(*worker_args)``), then
takes the next chunk from a shared counter until none is left, so a slow
start or a slow chunk does not hold the others back. This process works on chunks too, once ``local_init()`` has
built its state (score.py reads the question files there, while the workers
start), and hands each result on as soon as the chunks before it are in, so
that the results are dealt with while the workers still work, and need not
all be held at once. It takes a chunk of its own only when no worker's
result is waiting, as it is the only one that can hand them on.

A worker hands a result over in a file of a private temporary folder,
removed when the work is done, and says which through a pipe; at most
WAITING results wait to be read. Where no such folder can be made, this
process does every chunk itself.

A worker that fails or dies costs time, not results: whatever chunk it did
not deliver is done again here, where an error shows itself normally. The
results never depend on how the chunks were shared out, so the output of one
process and of many is the same, byte for byte (tests/test_score.py).
"""

import os
import pickle
import struct
import sys


def map_chunks(work, chunks, jobs, worker_init, worker_args, local_init, consume,
               state_of=None):
    """``consume(index, work(state, chunks[index]))`` for every chunk, in
    chunk order, each as soon as it and every chunk before it are done; return
    what ``local_init()`` returned (called before the first ``consume``).

    ``state_of`` picks this process's state out of what ``local_init``
    returns (default: all of it)."""
    state_of = state_of or (lambda made: made)
    if jobs <= 1 or len(chunks) <= 1:
        return _alone(work, chunks, local_init, state_of, consume)
    import multiprocessing
    import shutil
    import tempfile
    # A worker writes each result to a file of its own and says so through
    # the pipe in a message of eight bytes, which no other worker's can cut
    # into and which never fills the pipe: the worker goes on at once, while
    # this process reads the question files and does not read results. A
    # multiprocessing.Queue pickles and writes in a feeder thread, which took
    # turns at the GIL with the worker's work: a chunk took 49 us a line in a
    # worker against 34 here, and 40 us with a writing thread of our own.
    try:
        folder = tempfile.mkdtemp(prefix="evalkit-")
    except OSError:  # no temporary folder to hand results over in
        return _alone(work, chunks, local_init, state_of, consume)
    try:
        return _shared(work, chunks, jobs, worker_init, worker_args, local_init, consume,
                       state_of, multiprocessing.get_context(_start_method()), folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _alone(work, chunks, local_init, state_of, consume):
    made = local_init()
    state = state_of(made)
    for index, chunk in enumerate(chunks):
        consume(index, work(state, chunk))
    return made


def _shared(work, chunks, jobs, worker_init, worker_args, local_init, consume, state_of,
            ctx, folder):
    counter = ctx.Value("l", 0)
    room = ctx.BoundedSemaphore(WAITING)
    reader, writer = ctx.Pipe(duplex=False)
    workers = [ctx.Process(target=_worker, daemon=True,
                           args=(worker_init, worker_args, work, chunks, counter, writer,
                                 folder, room))
               for _ in range(min(jobs, len(chunks)) - 1)]
    done = {}
    order = _InOrder(done, consume)
    running = len(workers)
    try:
        try:
            for process in workers:
                process.start()
        finally:
            writer.close()  # the workers hold it now: once they are gone, the pipe ends
        made = local_init()
        state = state_of(made)
        own = received = 0
        while True:
            # Results come first: only this process can hand them on. One is
            # waiting when the pipe holds something, or when more chunks are
            # taken than the workers that have not finished can be working
            # on (one each).
            if running and (reader.poll() or counter.value - own - received > running):
                index = _get(reader, workers)
                if index is None:
                    running = 0  # its chunks are done below
                    continue
                received += index != _FINISHED
                running -= _keep(index, done, folder, room)
                order.flush()
                continue
            index = _next(counter, len(chunks))
            if index is None:
                break
            own += 1
            done[index] = work(state, chunks[index])
            order.flush()
        while running:
            index = _get(reader, workers)
            if index is None:
                break  # a worker died without saying so: its chunks are done below
            running -= _keep(index, done, folder, room)
            order.flush()
        for index in range(order.next, len(chunks)):
            if index not in done:
                done[index] = work(state, chunks[index])
            order.flush()
    finally:
        for process in workers:
            if process.pid is None:
                continue  # never started
            if process.is_alive():
                process.terminate()
            process.join()
        reader.close()
    return made


def _start_method():
    import threading
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


# Results written and not yet read, at most: a worker this far ahead waits.
WAITING = 32
_FINISHED = -1  # what a worker says when it takes no more chunks
_MESSAGE = struct.Struct("<q")  # eight bytes: written whole, read whole


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


def _get(reader, workers):
    """The next chunk index (or _FINISHED) from the workers, or None when
    none is alive to send it."""
    while True:
        if reader.poll(0.5):
            message = os.read(reader.fileno(), _MESSAGE.size)
            if len(message) < _MESSAGE.size:  # the pipe has ended: every worker has
                return None
            return _MESSAGE.unpack(message)[0]
        if not any(process.is_alive() for process in workers) and not reader.poll():
            return None


def _keep(index, done, folder, room):
    """Read the result a worker wrote for ``index``; 1 when it finished instead.

    A result that cannot be read back (its file gone or cut short) is left
    out: the chunk is done again here once the workers are through."""
    if index == _FINISHED:
        return 1
    path = _result_path(folder, index)
    try:
        with open(path, "rb") as fh:
            done[index] = pickle.load(fh)
        os.remove(path)
    except (OSError, EOFError, pickle.UnpicklingError):
        pass
    finally:
        room.release()
    return 0


def _result_path(folder, index):
    return os.path.join(folder, str(index))


def _next(counter, count):
    with counter.get_lock():
        index = counter.value
        if index >= count:
            return None
        counter.value = index + 1
    return index


def _worker(worker_init, worker_args, work, chunks, counter, writer, folder, room):
    try:
        state = worker_init(*worker_args)
        while True:
            index = _next(counter, len(chunks))
            if index is None:
                break
            data = pickle.dumps(work(state, chunks[index]), pickle.HIGHEST_PROTOCOL)
            room.acquire()
            with open(_result_path(folder, index), "wb") as fh:
                fh.write(data)
            os.write(writer.fileno(), _MESSAGE.pack(index))
    except BaseException:  # the parent does the chunk again and reports what it finds
        pass
    os.write(writer.fileno(), _MESSAGE.pack(_FINISHED))

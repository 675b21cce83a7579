"""Run jobs one at a time or on worker threads, writing one JSON line per job.

Shared by run.py, atomize.py and ai_eval.py: each job's record is written
and flushed under a lock as soon as it is done, so the output stays whole
lines in whatever order jobs finish, and a killed run loses at most the jobs
in flight. ``do_job(job)`` returns the record to write, or None for nothing.

Jobs run on worker threads, one of them at ``concurrency`` 1, so that the
caller's thread is free to take Ctrl-C at any moment. The first exception,
or Ctrl-C, stops new jobs from starting; the jobs in flight finish and are
written, then it is raised. Ctrl-C also cuts every request in flight
(http.interrupt): a job whose request was cut ends at once with an attempt
that says so, and records it or not as its script decides, so one Ctrl-C
stops a run within moments whatever the timeout. Plain threads rather than
concurrent.futures: its executor would run every queued job before letting
an interrupt through, and importing it (logging, traceback) cost a run more
start-up than the pool itself. The caller waits on a condition the workers
signal, not on Thread.join: up to Python 3.12, a join that Ctrl-C interrupts
marks the thread as stopped while it still runs, so a second join would not
wait for the job in flight.
"""

import threading

from . import http

_NO_MORE = object()


def run_jobs(jobs, do_job, writer, concurrency=1, on_record=None):
    """Run every job; ``on_record(record)`` is called under the write lock."""
    lock = threading.Lock()

    def one(job):
        record = do_job(job)
        if record is None:
            return
        with lock:
            writer.write(record)
            if on_record:
                on_record(record)

    _on_threads(list(jobs), one, concurrency)


def _on_threads(jobs, one, concurrency):
    todo = iter(jobs)
    state = threading.Condition()
    stop = []      # the exceptions that stopped the run; empty while it goes on
    running = 0    # workers between their start and their end
    ended = 0

    def worker():
        nonlocal running, ended
        with state:
            running += 1
        try:
            while True:
                with state:
                    job = _NO_MORE if stop else next(todo, _NO_MORE)
                if job is _NO_MORE:
                    return
                try:
                    one(job)
                except BaseException as exc:  # raised in the caller's thread below
                    with state:
                        stop.append(exc)
                    return
        finally:
            with state:
                running -= 1
                ended += 1
                state.notify_all()

    threads = [threading.Thread(target=worker, name=f"job-{n + 1}", daemon=True)
               for n in range(min(concurrency, len(jobs)))]
    try:
        for thread in threads:
            thread.start()
        with state:
            while ended < len(threads):
                state.wait()
    except BaseException as exc:  # Ctrl-C: let the jobs in flight be written
        http.interrupt()
        with state:
            stop.insert(0, exc)
            # A worker not yet counted in ``running`` sees ``stop`` and takes no job.
            while running:
                state.wait()
        http.allow()  # every request of the run has ended; the caller may send again
    if stop:
        raise stop[0]

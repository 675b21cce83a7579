"""Run jobs one at a time or in a thread pool, writing one JSON line per job.

Shared by run.py, atomize.py and ai_eval.py: each job's record is written
and flushed under a lock as soon as it is done, so the output stays whole
lines in whatever order jobs finish, and a killed run loses at most the jobs
in flight. ``do_job(job)`` returns the record to write, or None for nothing.
"""

import threading
from concurrent.futures import ThreadPoolExecutor


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

    if concurrency == 1:
        for job in jobs:
            one(job)
        return
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for future in [pool.submit(one, job) for job in jobs]:
            future.result()

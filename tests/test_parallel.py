"""evalkit/parallel.py: results handed on in chunk order whatever process did
them, and a worker that fails or dies costs time, never a result."""

import os
import tempfile
import time
import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from evalkit import parallel


def square(state, chunk):
    time.sleep(0.01)  # long enough that the workers, once started, take chunks too
    return (state, chunk * chunk, os.getpid())


def worker_state(name):
    return name


def failing_state(_name):
    raise RuntimeError("this worker cannot start")


def dying_work(state, chunk):
    if state != "main":  # a worker: it leaves a mark and dies in the middle of a chunk
        with open(state, "w") as fh:
            fh.write(str(chunk))
        os._exit(3)
    return square(state, chunk)


def main_after(seconds):
    def local_init():
        time.sleep(seconds)  # the workers start and take chunks meanwhile
        return "main"
    return local_init


def run(work, chunks, jobs, init, args, local_init):
    """map_chunks, with the results it hands on gathered; checks their order."""
    results = []

    def consume(index, result):
        assert index == len(results), (index, len(results))
        results.append(result)
    made = parallel.map_chunks(work, chunks, jobs, init, args, local_init, consume)
    return made, results


class MapChunks(unittest.TestCase):
    def test_results_in_chunk_order_from_several_processes(self):
        made, results = run(square, list(range(60)), 3, worker_state, ("worker",),
                                            main_after(0.3))
        self.assertEqual(made, "main")
        self.assertEqual([r[1] for r in results], [n * n for n in range(60)])
        self.assertEqual(len({r[2] for r in results}), 3)  # each process did some
        self.assertEqual({r[0] for r in results}, {"main", "worker"})

    def test_one_process_is_the_same_loop(self):
        made, results = run(square, [3, 4], 1, worker_state, ("worker",), lambda: "main")
        self.assertEqual(results, [("main", 9, os.getpid()), ("main", 16, os.getpid())])

    def test_a_worker_that_cannot_start_costs_no_result(self):
        _, results = run(square, list(range(10)), 2, failing_state, ("worker",),
                                         main_after(0.3))
        self.assertEqual([r[1] for r in results], [n * n for n in range(10)])
        self.assertTrue(all(r[0] == "main" for r in results))

    def test_a_worker_that_dies_costs_no_result(self):
        with tempfile.TemporaryDirectory() as tmp:
            mark = os.path.join(tmp, "died")
            _, results = run(dying_work, list(range(10)), 2, worker_state, (mark,),
                                             main_after(1.0))
            self.assertTrue(os.path.exists(mark), "the worker never took a chunk")
        self.assertEqual([r[1] for r in results], [n * n for n in range(10)])
        self.assertEqual({r[0] for r in results}, {"main"})

    def test_workers_that_all_die_cost_no_result(self):
        with tempfile.TemporaryDirectory() as tmp:
            mark = os.path.join(tmp, "died")
            _, results = run(dying_work, list(range(10)), 3, worker_state, (mark,),
                             main_after(1.0))
        self.assertEqual([r[1] for r in results], [n * n for n in range(10)])

    def test_a_worker_waits_when_too_many_results_wait(self):
        # While this process reads its question files it reads no result:
        # the workers write WAITING results and wait, then go on.
        with tempfile.TemporaryDirectory() as tmp:
            seen = {}

            def local_init():
                time.sleep(1.0)
                (folder,) = os.listdir(tmp)
                seen["waiting"] = len(os.listdir(os.path.join(tmp, folder)))
                return "main"
            saved, parallel.WAITING = parallel.WAITING, 2
            tempfile.tempdir, saved_tmp = tmp, tempfile.tempdir
            try:
                _, results = run(square, list(range(40)), 3, worker_state, ("worker",),
                                 local_init)
            finally:
                parallel.WAITING, tempfile.tempdir = saved, saved_tmp
            self.assertEqual(seen["waiting"], 2)
            self.assertEqual([r[1] for r in results], [n * n for n in range(40)])
            self.assertEqual(os.listdir(tmp), [])  # the results' folder is gone

    def test_an_error_here_stops_the_workers(self):
        def bad_local():
            raise ValueError("bad question file")
        with self.assertRaises(ValueError):
            run(square, list(range(10)), 2, worker_state, ("worker",), bad_local)

    def test_an_error_where_results_are_handed_on_stops_the_workers(self):
        def consume(index, _result):
            if index == 3:
                raise ValueError("a second answer")
        import multiprocessing
        started = time.monotonic()
        with self.assertRaises(ValueError):
            parallel.map_chunks(square, list(range(1000)), 2, worker_state, ("worker",),
                                lambda: "main", consume)
        # A worker left to finish would take about 10 s for the chunks left.
        self.assertLess(time.monotonic() - started, 5.0)
        self.assertEqual(multiprocessing.active_children(), [])


if __name__ == "__main__":
    unittest.main()

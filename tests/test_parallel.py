"""evalkit/parallel.py: results handed on in chunk order whatever process did
them, and a worker that fails or dies costs time, never a result."""

import os
import subprocess
import sys
import tempfile
import threading
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


class MapChunks:
    """Run once with workers spawned and once forked (the classes below):
    map_chunks picks fork on Linux when no other thread runs, else spawn."""
    method = None

    def setUp(self):
        saved = parallel._start_method
        parallel._start_method = lambda: self.method
        self.addCleanup(setattr, parallel, "_start_method", saved)

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
                time.sleep(1.0)  # long enough for a worker spawned on a busy machine
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

    def test_results_that_cannot_be_read_back_are_done_here(self):
        with tempfile.TemporaryDirectory() as tmp:
            def local_init():
                time.sleep(0.5)  # the workers write results meanwhile; they are lost
                (folder,) = os.listdir(tmp)
                for name in os.listdir(os.path.join(tmp, folder)):
                    os.remove(os.path.join(tmp, folder, name))
                return "main"
            tempfile.tempdir, saved_tmp = tmp, tempfile.tempdir
            try:
                _, results = run(square, list(range(40)), 3, worker_state, ("worker",),
                                 local_init)
            finally:
                tempfile.tempdir = saved_tmp
        self.assertEqual([r[1] for r in results], [n * n for n in range(40)])
        self.assertIn("main", {r[0] for r in results[:5]})  # the lost ones, done here

    def test_without_a_temporary_folder_one_process_does_all(self):
        tempfile.tempdir, saved_tmp = "/nonexistent/folder", tempfile.tempdir
        try:
            _, results = run(square, list(range(10)), 3, worker_state, ("worker",),
                             lambda: "main")
        finally:
            tempfile.tempdir = saved_tmp
        self.assertEqual([r[1] for r in results], [n * n for n in range(10)])
        self.assertEqual({r[2] for r in results}, {os.getpid()})

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


class SpawnedWorkers(MapChunks, unittest.TestCase):
    method = "spawn"


@unittest.skipUnless(sys.platform.startswith("linux"), "workers are forked on Linux only")
class ForkedWorkers(MapChunks, unittest.TestCase):
    method = "fork"


class StartMethod(unittest.TestCase):
    def test_spawned_while_another_thread_runs(self):
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            self.assertEqual(parallel._start_method(), "spawn")
        finally:
            stop.set()
            other.join()

    @unittest.skipUnless(sys.platform.startswith("linux"), "workers are forked on Linux only")
    def test_a_forked_worker_writes_nothing_this_process_had_not_written(self):
        # stdout to a pipe is buffered: without a flush before the fork, the
        # worker would write "before" a second time when it ends.
        code = ("import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])\n"
                "from evalkit import parallel\n"
                "from tests.test_parallel import square, worker_state\n"
                "sys.stdout.write('before ')\n"
                "assert parallel._start_method() == 'fork'\n"
                "parallel.map_chunks(square, list(range(20)), 2, worker_state, ('w',),\n"
                "                    lambda: 'main', lambda i, r: None)\n"
                "sys.stdout.write('after')\n")
        out = subprocess.run([sys.executable, "-c", code, support.TOOLS, support.ROOT],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout, out.stderr), (0, "before after", ""))


if __name__ == "__main__":
    unittest.main()

"""What a quarter folder may hold, and what reproduce.py does when it cannot
check one.

A quarter folder holds regular files only. Git carries symbolic links, so a
pull request adding a quarter could link results.md to /proc/self/environ and
have ``make reproduce`` print the CI's keys in its diff, or link an input or
MANIFEST.json to a file outside and have it reported verified. reproduce.py
and compare.py refuse a link, a FIFO, a socket or a subfolder in the folder,
and a folder that is itself a link, with exit 2 and one line naming it,
before reading anything; a fake secret in the file a link points to never
appears in what they print. A FIFO would block the base tools for ever, so
those cases run in a subprocess with a timeout.

reproduce.py's exit 1 is a verdict on the quarter; a scratch folder that
cannot be written (a full disk) is a failure to check: exit 2, one line.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import unittest

from tests import support
from tests.support import ROOT, call_main

import compare  # noqa: E402
import reproduce  # noqa: E402

# An example input: its absence skips these tests (support.example_quarter).
DEMO, NEEDS_DEMO = support.example_quarter("demo-2026-12")
SECRET = "sk-fake-9f2c41d7e0b84a6c"
# A FIFO blocks a reader until a writer comes: the base tools hang on it.
HANG = 30


@NEEDS_DEMO
class QuarterFiles(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.folder = os.path.join(self.tmp, "quarter")
        shutil.copytree(DEMO, self.folder)
        self.outside = os.path.join(self.tmp, "outside")
        os.makedirs(self.outside)
        # An environment file as a CI runner's /proc/self/environ would show it.
        self.secret_file = os.path.join(self.outside, "environ")
        with open(self.secret_file, "w", encoding="utf-8") as fh:
            fh.write(f"HOME=/root\nOPENAI_API_KEY={SECRET}\nPATH=/usr/bin\n")

    def link(self, name, target):
        path = os.path.join(self.folder, name)
        os.unlink(path)
        os.symlink(target, path)
        return path

    def copy_outside(self, name):
        """A copy of the quarter's file ``name`` outside the folder."""
        copy = os.path.join(self.outside, name)
        shutil.copyfile(os.path.join(self.folder, name), copy)
        return copy

    def check_refusal(self, code, out, err, prog, *expected):
        self.assertNotIn(SECRET, out + err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(code, 2, out + err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith(prog + ": "), err)
        for text in expected:
            self.assertIn(text, lines[0])
        self.assertEqual(out, "")

    def refused(self, module, argv, *expected):
        code, out, err = call_main(module, argv)
        self.check_refusal(code, out, err, module.PROG, *expected)

    def refused_in_subprocess(self, name, argv, *expected):
        try:
            proc = support.run_script(name, *argv, timeout=HANG)
        except subprocess.TimeoutExpired:
            self.fail(f"{name} {' '.join(argv)}: still waiting after {HANG} s (read a FIFO)")
        self.check_refusal(proc.returncode, proc.stdout, proc.stderr, name, *expected)


class ReproduceRefuses(QuarterFiles):
    def test_a_result_linked_to_a_secret_outside(self):
        path = self.link("results.md", self.secret_file)
        self.refused(reproduce, [self.folder], f"{path}: is a symbolic link")

    def test_an_input_linked_to_an_identical_copy_outside(self):
        for name in ("raw-med.jsonl", "questions-biz.json", "reviews-demo-2026-12.json"):
            with self.subTest(name=name):
                path = self.link(name, self.copy_outside(name))
                self.refused(reproduce, [self.folder], f"{path}: is a symbolic link")
                self.refused(compare, [self.folder, self.folder], f"{path}: is a symbolic link")
                os.unlink(path)
                shutil.copyfile(os.path.join(DEMO, name), path)

    def test_a_linked_manifest(self):
        path = self.link("MANIFEST.json", self.copy_outside("MANIFEST.json"))
        self.refused(reproduce, [self.folder], f"{path}: is a symbolic link")
        self.refused(compare, [self.folder, self.folder], f"{path}: is a symbolic link")

    def test_a_link_of_a_name_the_manifest_lacks(self):
        os.symlink(self.secret_file, os.path.join(self.folder, "notes.txt"))
        self.refused(reproduce, [self.folder], "notes.txt: is a symbolic link")

    def test_a_hidden_link(self):
        os.symlink(self.secret_file, os.path.join(self.folder, ".env"))
        self.refused(reproduce, [self.folder], ".env: is a symbolic link")

    def test_a_link_that_points_nowhere(self):
        path = self.link("index.html", os.path.join(self.outside, "nothing"))
        self.refused(reproduce, [self.folder], f"{path}: is a symbolic link")

    def test_a_subfolder(self):
        os.makedirs(os.path.join(self.folder, "extra"))
        self.refused(reproduce, [self.folder], "extra: is a folder; a quarter folder holds "
                                               "regular files only")

    def test_the_quarter_folder_is_a_link(self):
        linked = os.path.join(self.tmp, "linked")
        os.symlink(self.folder, linked)
        for given in (linked, linked + os.sep):
            with self.subTest(given=given):
                self.refused(reproduce, [given], f"{given}: is a symbolic link, not a quarter "
                                                 "folder")
                self.refused(compare, [given, self.folder], f"{given}: is a symbolic link")

    @unittest.skipUnless(hasattr(socket, "AF_UNIX"), "no Unix sockets here")
    def test_a_socket(self):
        path = os.path.join(self.folder, "results.md")
        os.unlink(path)
        sock = socket.socket(socket.AF_UNIX)
        self.addCleanup(sock.close)
        sock.bind(path)
        self.refused(reproduce, [self.folder], f"{path}: is a socket")

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo(self):
        for name in ("raw-med.jsonl", "results.md", "MANIFEST.json", "extra.txt"):
            with self.subTest(name=name):
                path = os.path.join(self.folder, name)
                if os.path.exists(path):
                    os.unlink(path)
                os.mkfifo(path)
                self.refused_in_subprocess("reproduce.py", [self.folder],
                                           f"{path}: is a FIFO")
                os.unlink(path)
                if name != "extra.txt":
                    shutil.copyfile(os.path.join(DEMO, name), path)

    @unittest.skipUnless(os.path.exists("/proc/self/environ"), "no /proc/self/environ here")
    def test_the_environment_of_the_process_itself(self):
        # The attack as a pull request would make it: the key is in the
        # environment of the reproduce.py that CI runs.
        path = os.path.join(self.folder, "results.md")
        os.unlink(path)
        os.symlink("/proc/self/environ", path)
        proc = support.run_script("reproduce.py", self.folder, env={"FAKE_CI_KEY": SECRET},
                                  timeout=HANG)
        self.check_refusal(proc.returncode, proc.stdout, proc.stderr, "reproduce.py",
                           f"{path}: is a symbolic link")


class ReproduceNamesWhatToGive(QuarterFiles):
    """A reader who gives the folder above the published ones, or a result
    file that is not there, is told what to give, not about a subfolder."""

    def test_the_folder_above_published_quarters(self):
        os.makedirs(os.path.join(self.tmp, "empty-notes"))  # a folder of no quarter
        self.refused(reproduce, [self.tmp], f"{self.tmp}: no MANIFEST.json, so not a "
                                            "published folder; the published folders in it: "
                                            "quarter")

    def test_a_result_file_that_is_not_there(self):
        missing = os.path.join(self.tmp, "nope.json")
        self.refused(reproduce, [missing], f"{missing}: no such result file")


class TheDiffShowsOnlyTheFileChecked(QuarterFiles):
    """Past the folder check, a link or a FIFO put in a file's place before
    it is read is still not read: the diff shows the regular file checked or
    nothing."""

    def test_a_link_in_place_of_an_output(self):
        with open(os.path.join(self.folder, "MANIFEST.json"), encoding="utf-8") as fh:
            entry = json.load(fh)["files"]["results.md"]
        self.link("results.md", self.secret_file)
        lines, same = reproduce.compare_output(self.folder, "results.md", entry, b"re-scored\n")
        self.assertFalse(same)
        self.assertEqual(lines, ["differs    results.md (a symbolic link)"])

    def test_terminal_escapes_in_a_published_file_are_shown_escaped(self):
        path = os.path.join(self.folder, "results.md")
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("\x1b]0;owned\x07\x1b[2J a line the scorer does not write\n")
        code, out, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1, err)
        self.assertNotIn("\x1b", out + err)
        self.assertIn("-\\x1b]0;owned\\x07\\x1b[2J a line", out)  # the published line

    def test_line_endings_alone_are_named(self):
        path = os.path.join(self.folder, "results.md")
        with open(path, "rb") as fh:
            published = fh.read()
        with open(path, "wb") as fh:  # as a checkout with core.autocrlf leaves it
            fh.write(published.replace(b"\n", b"\r\n"))
        with open(os.path.join(self.folder, "MANIFEST.json"), encoding="utf-8") as fh:
            entry = json.load(fh)["files"]["results.md"]
        lines, same = reproduce.compare_output(self.folder, "results.md", entry, published)
        self.assertFalse(same)
        self.assertEqual(lines[0], "differs    results.md")
        self.assertIn("the line endings or the last newline differ", lines[1])

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo_in_place_of_an_input(self):
        path = os.path.join(self.folder, "raw-med.jsonl")
        os.unlink(path)
        os.mkfifo(path)
        self.assertEqual(reproduce.digest_of(path), (None, None, "a FIFO (named pipe)"))


class CompareRefuses(QuarterFiles):
    def setUp(self):
        super().setUp()
        self.bench = os.path.join(self.tmp, "bench")
        os.makedirs(self.bench)
        shutil.copy(os.path.join(DEMO, "questions-med.json"), self.bench)
        self.raw = os.path.join(self.bench, "raw-med.jsonl")
        shutil.copy(os.path.join(DEMO, "raw-med.jsonl"), self.raw)

    def test_a_raw_file_linked_outside(self):
        linked = os.path.join(self.bench, "raw-linked.jsonl")
        os.symlink(self.copy_outside("raw-med.jsonl"), linked)
        self.refused(compare, [linked, self.raw, "--bench", self.bench],
                     f"{linked}: is a symbolic link")
        self.refused(compare, [self.raw, linked, "--bench", self.bench],
                     f"{linked}: is a symbolic link")

    def test_a_raw_file_linked_to_a_secret(self):
        linked = os.path.join(self.bench, "raw-secret.jsonl")
        os.symlink(self.secret_file, linked)
        self.refused(compare, [linked, self.raw, "--bench", self.bench],
                     f"{linked}: is a symbolic link")

    def test_a_question_file_linked_outside(self):
        path = os.path.join(self.bench, "questions-med.json")
        copy = os.path.join(self.outside, "questions-med.json")
        os.rename(path, copy)
        os.symlink(copy, path)
        self.refused(compare, [self.raw, self.raw, "--bench", self.bench],
                     f"{path}: is a symbolic link")
        self.refused(compare, [self.raw, self.raw, "--questions", path],
                     f"{path}: is a symbolic link")

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo_as_a_raw_file(self):
        fifo = os.path.join(self.bench, "raw-fifo.jsonl")
        os.mkfifo(fifo)
        self.refused_in_subprocess("compare.py", [fifo, self.raw, "--bench", self.bench],
                                   f"{fifo}: is a FIFO")


@unittest.skipUnless(sys.platform.startswith("linux"), "RLIMIT_FSIZE and SIGXFSZ as on Linux")
@NEEDS_DEMO
class ScratchDiskFull(unittest.TestCase):
    """A scratch folder that cannot be written is a failure to check the
    quarter (exit 2), not a verdict on it (exit 1)."""

    def test_a_file_size_limit_on_the_scratch_outputs(self):
        import resource

        def limit():
            # Writes past 512 bytes fail with EFBIG rather than kill the
            # process (SIGXFSZ ignored), as a full disk fails with ENOSPC;
            # root is held to it too.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))

        with tempfile.TemporaryDirectory() as scratch:
            env = dict(os.environ, TMPDIR=scratch, PYTHONDONTWRITEBYTECODE="1")
            proc = subprocess.run([sys.executable, support.script("reproduce.py"), DEMO],
                                  capture_output=True, text=True, encoding="utf-8", env=env,
                                  cwd=ROOT, timeout=120, preexec_fn=limit)
            self.assertEqual(os.listdir(scratch), [])
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith(f"reproduce.py: cannot check {DEMO}: writing the "
                                            "re-scored outputs to a temporary folder failed: "),
                        lines[0])
        self.assertIn("File too large", lines[0])
        self.assertEqual(proc.stdout, "")

    def test_a_scratch_folder_that_is_a_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            not_a_folder = os.path.join(tmp, "a-file")
            with open(not_a_folder, "w", encoding="utf-8") as fh:
                fh.write("x")
            saved = tempfile.tempdir
            tempfile.tempdir = not_a_folder
            try:
                code, out, err = call_main(reproduce, [DEMO])
            finally:
                tempfile.tempdir = saved
        self.assertEqual(code, 2, out + err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertIn(f"cannot check {DEMO}: writing the re-scored outputs to a temporary "
                      "folder failed", lines[0])
        self.assertIn(not_a_folder, lines[0])
        self.assertEqual(out, "")


if __name__ == "__main__":
    unittest.main()

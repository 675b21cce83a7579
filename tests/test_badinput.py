"""Bad input: a corpus of malformed files, each refused with one line that
names the file, exit 2 and no traceback; and a seeded mutation fuzzer over
valid files that never sees a traceback."""

import json
import os
import random
import shutil
import tempfile
import unittest

from tests import support
from tests.scenario_demo import run_demo
from tests.support import FIXTURES, ROOT, call_main

import ai_eval  # noqa: E402
import reproduce  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
REVIEWS = os.path.join(FIXTURES, "reviews-mini.json")
SCENARIOS = os.path.join(FIXTURES, "scenarios-mini.json")
DEMO = os.path.join(ROOT, "Documents", "c4-benchmark", "demo")
AI = os.path.join(FIXTURES, "ai")
CLOSED = "http://127.0.0.1:9/api/query"   # nothing listens; no request is ever made here

FUZZ_CASES = 5000
CORPUS_SIZE = 114   # malformed files in the corpus below; the README quotes this figure
FUZZ_SEED = 20261129


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def json_variants(valid, list_key=None):
    """Malformed versions of a valid JSON file (bytes): name -> bytes."""
    doc = json.loads(valid)
    out = {
        "empty": b"",
        "truncated": valid[:len(valid) // 2],
        "not utf-8": valid.replace(b"{", b"{\"x\": \"caf\xe9\",", 1),
        "a list": b"[1, 2, 3]\n",
        "NaN": valid.replace(b"{", b"{\"nan\": NaN,", 1),
        "huge number": valid.replace(b"{", b"{\"big\": 1e999,", 1),
        "huge integer": valid.replace(b"{", b"{\"big\": " + b"9" * 5000 + b",", 1),
        # No float holds it: read as a number, it would overflow later.
        "integer of 400 digits": valid.replace(b"{", b"{\"big\": -" + b"9" * 400 + b",", 1),
        "deeply nested": b"[" * 100000 + b"]" * 100000,
        # Python 3.13 parses it; every recursive walk after would fail.
        "nested 1,000 deep": valid.replace(b"{", b"{\"deep\": " + b"[" * 1000 + b"]" * 1000 + b",", 1),
        "wrong type": json.dumps({k: "x" for k in doc}).encode(),
        "bom and garbage": b"\xef\xbb\xbf}{",
    }
    if isinstance(doc, dict) and type(doc.get("format")) is int:
        out["format as a float"] = json.dumps(dict(doc, format=float(doc["format"]))).encode()
    if list_key and isinstance(doc.get(list_key), list) and doc[list_key]:
        dup = json.loads(valid)
        dup[list_key].append(dup[list_key][0])
        out["duplicate entry"] = json.dumps(dup).encode()
        missing = json.loads(valid)
        first = missing[list_key][0]
        if isinstance(first, dict):
            first.pop("id")
        out["missing key"] = json.dumps(missing).encode()
    return out


class Corpus(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.count = 0

    def refused(self, module, argv, name, label):
        code, out, err = call_main(module, argv)
        with self.subTest(label):
            self.assertEqual(code, 2, f"{label}: exit {code}: {err}")
            self.assertEqual(len(err.splitlines()), 1, f"{label}: {err}")
            self.assertNotIn("Traceback", err)
            self.assertIn(name, err, f"{label}: the message does not name the file: {err}")
        self.count += 1

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as fh:
            fh.write(data)
        return path

    def test_the_corpus(self):
        # Question files, reviews, target profiles, scenario and intake case files.
        for label, data in json_variants(read(QUESTIONS), "questions").items():
            path = self.write("questions-bad.json", data)
            self.refused(score, [path, RAW], "questions-bad.json", f"questions: {label}")
        for label, data in json_variants(read(REVIEWS), "reviews").items():
            path = self.write("reviews-bad.json", data)
            self.refused(score, [QUESTIONS, RAW, "--reviews", path], "reviews-bad.json", f"reviews: {label}")
        profile = read(os.path.join(support.TOOLS, "targets", "widget.json"))
        for label, data in json_variants(profile).items():
            path = self.write("profile-bad.json", data)
            self.refused(run, [QUESTIONS, os.path.join(self.tmp, "o.jsonl"), "--target", path,
                               "--endpoint", CLOSED], "profile-bad.json", f"profile: {label}")
        for label, data in json_variants(read(SCENARIOS), "scenarios").items():
            path = self.write("scenarios-bad.json", data)
            if label in ("a list", "empty", "truncated", "deeply nested", "bom and garbage", "not utf-8",
                         "NaN", "huge number", "huge integer", "integer of 400 digits",
                         "nested 1,000 deep"):
                # Before any suite is known, the file is read as a question file.
                self.refused(score, [path, RAW], "scenarios-bad.json", f"scenarios: {label}")
            else:
                self.refused(score, [path, RAW, RAW], "scenarios-bad.json", f"scenarios: {label}")
        env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
        saved = dict(os.environ)
        os.environ.update(env)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        for label, data in json_variants(read(os.path.join(AI, "intake-cases.json")), "cases").items():
            folder = os.path.join(self.tmp, "ai")
            os.makedirs(folder, exist_ok=True)
            shutil.copy(os.path.join(AI, "vocabulary.json"), folder)
            path = os.path.join(folder, "intake-bad.json")
            with open(path, "wb") as fh:
                fh.write(data)
            self.refused(ai_eval, ["intake", "--cases", path, "--provider", "openai", "--model", "m",
                                   "--output", os.path.join(self.tmp, "r.json"),
                                   "--raw", os.path.join(self.tmp, "r.raw.jsonl")],
                         "intake-bad.json", f"intake cases: {label}")
        # Manifests.
        for label, data in json_variants(read(os.path.join(DEMO, "MANIFEST.json"))).items():
            folder = os.path.join(self.tmp, f"demo-{self.count}")
            shutil.copytree(DEMO, folder)
            with open(os.path.join(folder, "MANIFEST.json"), "wb") as fh:
                fh.write(data)
            self.refused(reproduce, [folder], "MANIFEST.json", f"manifest: {label}")
        # Raw lines and atoms lines.
        good = read(RAW).splitlines(keepends=True)
        raw_cases = {
            "blank line": b"\n" + b"".join(good),
            "torn last line": b"".join(good)[:-20],
            "not an object": b"[1]\n" + b"".join(good),
            "not utf-8": b"{\"id\": \"\xff\"}\n" + b"".join(good),
            "NaN": good[0].replace(b'"latency_ms":737', b'"latency_ms":NaN') + b"".join(good[1:]),
            "deeply nested": b"[" * 50000 + b"]" * 50000 + b"\n",
            "nested 1,000 deep": good[0].replace(b'"latency_ms":737',
                                                 b'"latency_ms":' + b"[" * 1000 + b"]" * 1000),
            "integer of 400 digits": good[0].replace(b'"latency_ms":737',
                                                     b'"latency_ms":' + b"9" * 400),
            "wrong status type": good[0].replace(b'"status":200,"truncated"', b'"status":true,"truncated"'),
            "a 50 MB line": b"{\"id\": \"" + b"x" * (50 * 1024 * 1024) + b"\n",
            "missing id": good[0].replace(b'"id":"mini-en-01",', b""),
            "duplicate": good[0] + good[0],
            "run.tool a list": good[0].replace(b'"tool":"worked-example"', b'"tool":["x"]'),
            "platform version a list": good[0].replace(b'"x-assistant-version":"mini-assistant 2.3"',
                                                       b'"x-assistant-version":["2.3"]'),
            "format 1.0": good[0].replace(b'"format":1,', b'"format":1.0,'),
            "sources path a number": good[0].replace(b'"sources":"sources"', b'"sources":1'),
            "grounded path a list": good[0].replace(b'"grounded":"grounded"', b'"grounded":["x"]'),
            "source_url path a number": good[0].replace(b'"source_url":"url"', b'"source_url":1'),
        }
        for label in ("run.tool a list", "platform version a list", "format 1.0", "sources path a number",
                      "grounded path a list", "source_url path a number", "nested 1,000 deep",
                      "integer of 400 digits"):
            self.assertNotEqual(raw_cases[label], good[0], label)
        for label, data in raw_cases.items():
            path = self.write("raw-bad.jsonl", data)
            self.refused(score, [QUESTIONS, path], "raw-bad.jsonl", f"raw: {label}")
        # Atoms lines, against answers the loopback stand-ins gave.
        demo = os.path.join(self.tmp, "scenario-demo")
        run_demo(demo, SCENARIOS)
        raws = sorted(os.path.join(demo, n) for n in os.listdir(demo) if n.startswith("raw-"))
        good = read(os.path.join(demo, "atoms-stand-in-claude.jsonl")).splitlines(keepends=True)
        first = json.loads(good[0])

        def with_first(change):
            line = json.loads(good[0])
            change(line)
            return (json.dumps(line) + "\n").encode() + b"".join(good[1:])
        atoms_cases = {
            "blank line": b"\n" + b"".join(good),
            "torn last line": b"".join(good)[:-10],
            "not json": b"{atoms\n" + b"".join(good),
            "unknown correctness": with_first(lambda l: l["atoms"][0].update(correctness="mostly")),
            "extra atom field": with_first(lambda l: l["atoms"][0].update(confidence=1)),
            "another answer": with_first(lambda l: l.update(response_sha256="0" * 64)),
            "no evaluator": with_first(lambda l: l.pop("evaluator")),
            "repeat not a number": with_first(lambda l: l.update(repeat=True)),
            # An evaluator's number no float holds (a traceback in the atom checks before).
            "specificity of 400 digits": with_first(
                lambda l: l["atoms"][0].update(specificity=int("9" * 400))),
            "specificity 1e400": good[0].replace(b'"specificity":0.5', b'"specificity":1e400', 1)
            + b"".join(good[1:]),
        }
        self.assertNotEqual(atoms_cases["specificity 1e400"], b"".join(good))
        self.assertIsNone(first["error"])
        for label, data in atoms_cases.items():
            path = self.write("atoms-bad.jsonl", data)
            self.refused(score, [SCENARIOS] + raws + [path], "atoms-bad.jsonl", f"atoms: {label}")
        self.assertEqual(self.count, CORPUS_SIZE)


class NumbersAServerSends(support.TempDirCase):
    """An evaluator's number that no float holds (issue 40): atomize.py
    records the answer as an error in one line, never a traceback, and a
    re-run does not ask it again."""

    def test_an_atom_of_400_digits_is_an_error_recorded_once(self):
        from tests.model_servers import ModelServer
        from tests.test_atomize import good_atoms
        import atomize  # noqa: E402

        def huge(request):
            atoms = good_atoms(request)
            atoms["atoms"][0]["specificity"] = int("9" * 400)
            return atoms
        demo = self.path("scenario-demo")
        run_demo(demo, SCENARIOS)
        raw = sorted(os.path.join(demo, n) for n in os.listdir(demo) if n.startswith("raw-"))[0]
        for flavour in ("anthropic", "openai"):
            with self.subTest(flavour), ModelServer(flavour, reply=huge) as judge:
                os.environ.update(judge.environ())
                atoms = self.path(f"atoms-{flavour}.jsonl")
                argv = [raw, atoms, "--provider", flavour, "--model", "judge-x", "--cases",
                        SCENARIOS, "--quiet"]
                code, _, err = call_main(atomize, argv)
                self.assertEqual(code, 1, err)
                self.assertNotIn("Traceback", err)
                asked = len(judge.requests)
                lines = support.read_lines(atoms)
                self.assertTrue(lines and all(line["error"] for line in lines), lines)
                code, _, err = call_main(atomize, argv)
                self.assertEqual((code, len(judge.requests)), (1, asked), err)


class PathsThatCannotBeWritten(unittest.TestCase):
    """An output under a file, or a folder where a file should be: one line
    that names the path, exit 2, and nothing asked."""

    def test_run_ai_eval_and_score(self):
        with tempfile.TemporaryDirectory() as tmp:
            blocker = os.path.join(tmp, "a-file")
            with open(blocker, "w", encoding="utf-8") as fh:
                fh.write("not a folder\n")
            saved = dict(os.environ)
            self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
            os.environ["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
            intake = ["intake", "--cases", os.path.join(AI, "intake-cases.json"), "--provider", "openai",
                      "--model", "m", "--output", os.path.join(tmp, "r.json"), "--raw"]
            for label, module, argv, named in (
                    ("run.py, OUT under a file", run,
                     [QUESTIONS, os.path.join(blocker, "o.jsonl"), "--endpoint", CLOSED], blocker),
                    ("run.py, OUT a folder", run, [QUESTIONS, tmp, "--endpoint", CLOSED], tmp),
                    ("score.py, --out a folder", score, [QUESTIONS, RAW, "--out", tmp], tmp),
                    ("score.py, --json in no folder", score,
                     [QUESTIONS, RAW, "--json", os.path.join(tmp, "no", "r.json")],
                     os.path.join(tmp, "no", "r.json")),
                    ("ai_eval.py, --raw a folder", ai_eval, intake + [tmp], tmp),
                    ("ai_eval.py, --raw under a file", ai_eval,
                     intake + [os.path.join(blocker, "r.raw.jsonl")], blocker)):
                with self.subTest(label):
                    code, out, err = call_main(module, argv)
                    self.assertEqual((code, out), (2, ""), err)
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertNotIn("Traceback", err)
                    self.assertIn(named, err)



class ReviewsWrittenByHand(unittest.TestCase):
    """A reviews file is typed by a person: what a JSON parser would let
    through silently is refused, naming the file."""

    def test_slips_a_parser_would_let_through(self):
        with open(REVIEWS, encoding="utf-8") as fh:
            text = fh.read()
        entry = json.loads(text)["reviews"][0]
        reason = json.dumps(entry["reason"])
        value = json.dumps(entry["value"])
        cases = {
            "a value given twice": (text.replace(f'"value": {value}',
                                                 f'"value": {value}, "value": {json.dumps(not entry["value"])}', 1),
                                    "'value' is given twice"),
            "a reason across a Unicode line separator": (
                text.replace(reason, reason[:-1] + '\\u2028more"', 1), "reason must be one line"),
            "format 1.0": (text.replace('"format": 1', '"format": 1.0', 1), "format 1"),
        }
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "reviews-by-hand.json")
            for label, (data, said) in cases.items():
                with self.subTest(label):
                    self.assertNotEqual(data, text)
                    with open(path, "w", encoding="utf-8") as fh:
                        fh.write(data)
                    code, _, err = call_main(score, [QUESTIONS, RAW, "--reviews", path])
                    self.assertEqual(code, 2, err)
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertIn("reviews-by-hand.json", err)
                    self.assertIn(said, err)

def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            break
        i = rng.randrange(len(data))
        op = rng.randrange(5)
        if op == 0:
            data[i] = rng.randrange(256)
        elif op == 1:
            del data[i:i + rng.randint(1, 40)]
        elif op == 2:
            data[i:i] = rng.choice([b'"', b"{", b"}", b"[", b"]", b",", b"null", b"1e999", b"-1",
                                    b"true", b'"x"', b"\n", b"NaN", b"\xff", b"0.5", b'"unknown"'])
        elif op == 3:
            del data[i:]
        else:
            j = rng.randrange(len(data))
            data[i:i] = data[j:j + 30]
    return bytes(data)


class Fuzz(unittest.TestCase):
    def test_mutated_files_never_crash_a_command(self):
        rng = random.Random(FUZZ_SEED)
        with tempfile.TemporaryDirectory() as tmp:
            valid = {"q": read(QUESTIONS), "r": read(RAW), "v": read(REVIEWS)}
            paths = {k: os.path.join(tmp, name) for k, name in
                     (("q", "q.json"), ("r", "r.jsonl"), ("v", "v.json"))}
            codes = {}
            for n in range(FUZZ_CASES):
                target = rng.choice("qrv")
                for key, data in valid.items():
                    with open(paths[key], "wb") as fh:
                        fh.write(mutate(rng, data) if key == target else data)
                try:
                    code, _out, err = call_main(score, [paths["q"], paths["r"], "--reviews", paths["v"]])
                except Exception as exc:  # the defect this test exists to catch
                    self.fail(f"fuzz case {n} (seed {FUZZ_SEED}, mutated {target}): "
                              f"{type(exc).__name__}: {exc}")
                self.assertIn(code, (0, 2), f"fuzz case {n}: exit {code}")
                if code == 2:
                    self.assertEqual(len(err.splitlines()), 1, f"fuzz case {n}: {err}")
                codes[code] = codes.get(code, 0) + 1
            # The fuzzer reaches both outcomes: refusals and files that still score.
            self.assertGreater(codes.get(2, 0), FUZZ_CASES // 2)
            self.assertGreater(codes.get(0, 0), 0)


if __name__ == "__main__":
    unittest.main()

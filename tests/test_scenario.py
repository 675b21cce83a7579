"""The scenario suite end to end against loopback stand-ins: run.py, atomize.py
with two evaluators, score.py; the cross-evaluation table, judge stability,
the dashboard and detail pages (structure and escaping), and refusals."""

import json
import os
import shutil
import tempfile
import unittest
from html import escape

from tests import support
from tests.model_servers import ModelServer
from tests.scenario_demo import DEFAULT_CASES as DEMO_CASES, run_demo
from tests.standins import model
from tests.support import FIXTURES, call_main, read_lines
from tests.test_htmlpage import check

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios, parse_scenarios  # noqa: E402
from evalkit import BadInput  # noqa: E402
from evalkit.scenario import scenario_score  # noqa: E402
from evalkit.scenario.atomscore import SourceTable  # noqa: E402

CASES = os.path.join(FIXTURES, "scenarios-mini.json")


class EndToEnd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "demo")
        run_demo(cls.out, CASES)
        with open(os.path.join(cls.out, "results.json"), encoding="utf-8") as fh:
            cls.result = json.load(fh)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_cells_and_scores(self):
        cells = self.result["cells"]
        # 3 generators x 2 scenarios, each judged by the 2 evaluators that did not write it.
        self.assertEqual(len(cells), 3 * 2 * 2 - 2 * 2)
        for cell in cells:
            self.assertNotEqual(cell["evaluator"], cell["variant"])
            self.assertEqual(sorted(cell["scores"]), ["accurate", "cited", "complete", "useful"])
            for d in cell["scores"].values():
                self.assertIn(d["score"], (0, 1, 2, 3, None))
        self.assertEqual(self.result["provenance"]["run"]["status"], "not_run")
        self.assertTrue(self.result["provenance"]["example"])

    def test_the_tiny_house_cap(self):
        # The stand-in answer admits it could not look up the parcel (address):
        # all six topics covered, capped at 2.
        cell = next(c for c in self.result["cells"] if c["scenario"] == "tiny-house")
        self.assertEqual(cell["scores"]["complete"]["capped_by_admitted_gap_on"], ["address"])
        self.assertEqual(cell["scores"]["complete"]["score"], 2)

    def test_cross_evaluation_table(self):
        cross = self.result["cross_evaluation"]
        self.assertEqual(cross["evaluators"], ["anthropic:stand-in-claude", "openai:stand-in-gpt"])
        self_rows = [r for r in cross["table"] if r["self"]]
        self.assertEqual(len(self_rows), 2)
        self.assertTrue(all(r["accurate"] is None and (r["scored"], r["failed"], r["empty"]) ==
                            (0, 0, "family rule") for r in self_rows))
        others = [r for r in cross["table"] if not r["self"]]
        scenarios = len(self.result["scenarios"])
        self.assertTrue(all((r["scored"], r["failed"], r["not_reached"], r["empty"]) ==
                            (scenarios, 0, 0, None) for r in others), others)
        accurate = next(a for a in cross["agreement"] if a["dimension"] == "accurate")
        # The strict judge gives the uncited fence claim vague-correct, the lenient one correct.
        self.assertEqual((accurate["responses"], accurate["same"]), (2, 1))
        with open(os.path.join(self.out, "results.md"), encoding="utf-8") as fh:
            self.assertIn("refused (one model family)", fh.read())

    def test_pages_are_well_formed(self):
        pages = [os.path.join(self.out, "index.html")] + [
            os.path.join(self.out, "detail", n) for n in sorted(os.listdir(os.path.join(self.out, "detail")))]
        self.assertEqual(len(pages), 1 + len(self.result["cells"]))
        for path in pages:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            parser = check(text)
            self.assertEqual((parser.errors, parser.stack, parser.scripts), ([], [], 0), path)
            self.assertIn("EXAMPLE, not a measurement", text)
        with open(pages[1], encoding="utf-8") as fh:
            detail = fh.read()
        self.assertIn("Verified by: ", detail)
        self.assertIn("floor(raw × 3 + 0.5)", detail)


# The spec's 0-3 scale of each dimension (atomized-claim-scoring, "Score scale"),
# with the city where the spec names Portland.
SPEC_SCALES = [
    "Mostly wrong on the specifics that matter.",
    "Mix of right and wrong; the resident can't trust unverified claims.",
    "Right on most specifics but with at least one material error.",
    "All material specifics check out under independent verification.",
    "Missed almost everything material.", "Hit a few topics, missed most.",
    "Covered most topics; one or two material gaps.", "Covered every topic on the must-cover list.",
    "No authoritative sources at all.", "Mostly uncited or third-party-cited.",
    "Mix — some city sources, some non-authoritative.",
    "Cited claims overwhelmingly resolve to the city's site / the city code / authoritative state sources.",
    "Inaccessible. Jargon-dense, no scaffolding.",
    "Partially accessible. Mostly readable but unexplained terms.",
    "Accessible. Key terms defined, concrete next steps stated.",
    "Resident-ready. Plainly written, anticipates resident-level confusion, scaffolds next steps."]


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


class Pages(unittest.TestCase):
    """What the dashboard and results.json carry besides the scores."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.out = os.path.join(self.tmp, "demo")
        run_demo(self.out, CASES)
        self.raws = sorted(os.path.join(self.out, n) for n in os.listdir(self.out) if n.startswith("raw-"))
        self.atoms = sorted(os.path.join(self.out, n) for n in os.listdir(self.out) if n.startswith("atoms-"))

    def test_the_dashboard_shows_the_score_scales(self):
        index = read(os.path.join(self.out, "index.html"))
        self.assertIn("<h2>Score scales</h2>", index)
        for text in SPEC_SCALES:
            with self.subTest(text=text):
                self.assertIn(escape(text), index)
                self.assertIn(text, read(os.path.join(self.out, "results.md")))

    def test_the_evaluators_tokens_per_answer(self):
        """Summed over every call of an atoms line, shown per answer and per
        evaluator; a call whose provider reported nothing is counted apart."""
        lines = read_lines(self.atoms[0])
        calls = lines[0]["calls"]
        expected = sum(c["usage"]["input_tokens"] for c in calls)
        self.assertGreater(expected, 0)
        lines[1]["calls"] = [dict(c, usage={"reported": False, "input_tokens": None})
                             for c in lines[1]["calls"]]
        edited = os.path.join(self.tmp, "atoms-edited.jsonl")
        with open(edited, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in lines)
        out = os.path.join(self.tmp, "r.json")
        pages = os.path.join(self.tmp, "pages")
        md = os.path.join(self.tmp, "results.md")
        code, _, err = call_main(score, [CASES] + self.raws + [edited, "--example", "--json", out,
                                                               "--out", md, "--html-dir", pages])
        self.assertEqual(code, 0, err)
        with open(out, encoding="utf-8") as fh:
            cells = {(c["scenario"], c["variant"]): c for c in json.load(fh)["cells"]}
        first = cells[lines[0]["id"], lines[0]["variant"]]["evaluator_tokens"]
        self.assertEqual((first["input"], first["unreported"]), (expected, 0))
        second = cells[lines[1]["id"], lines[1]["variant"]]["evaluator_tokens"]
        self.assertEqual((second["input"], second["unreported"]), (0, len(lines[1]["calls"])))
        self.assertIn("The evaluator's tokens per answer: ", read(md))
        self.assertIn("call(s) with no usage reported", read(os.path.join(pages, "index.html")))

    def test_the_dashboard_lists_the_atomization_errors_results_md_lists(self):
        lines = read_lines(self.atoms[0])
        lines[0]["atoms"], lines[0]["error"] = None, "evaluator reply was not JSON <twice>"
        dropped = lines.pop()
        broken = os.path.join(self.tmp, "atoms-broken.jsonl")
        with open(broken, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in lines)
        pages = os.path.join(self.tmp, "pages")
        md = os.path.join(self.tmp, "results.md")
        code, _, err = call_main(score, [CASES] + self.raws + [broken, "--example", "--out", md,
                                                               "--html-dir", pages])
        self.assertEqual(code, 0, err)
        markdown, index = read(md), read(os.path.join(pages, "index.html"))
        errors = [l[2:] for l in markdown.split("## Atomization errors (scored n/a)\n\n")[1].split("\n\n")[0]
                  .splitlines()]
        shown = (f"{lines[0]['id']} ({lines[0]['variant']}, "
                 f"{lines[0]['evaluator']['provider']}:{lines[0]['evaluator']['model']}): "
                 "evaluator reply was not JSON <twice>")
        self.assertEqual(errors, [shown.replace("<", "\\<").replace(">", "\\>")])  # inert text
        self.assertIn("<h2>Atomization errors (scored n/a)</h2>", index)
        self.assertIn(f'<li dir="auto">{escape(shown)}</li>', index)
        (missing,) = [l for l in markdown.splitlines() if l.startswith("Answers with no atoms line: ")]
        self.assertIn(f"{dropped['id']} ({dropped['variant']})", missing)
        self.assertIn(f"<p>{escape(missing)}</p>", index)

    def test_results_json_records_the_run_dates_and_both_prompts(self):
        result = json.loads(read(os.path.join(self.out, "results.json")))
        raw_lines = [line for path in self.raws for line in read_lines(path)]
        atoms_lines = [line for path in self.atoms for line in read_lines(path)]
        p = result["provenance"]
        self.assertEqual(p["run_dates"], sorted({l["attempts"][-1]["started_at"][:10] for l in raw_lines}))
        expected = sorted({("generator", l["request"]["prompt"]["name"], l["request"]["prompt"]["sha256"])
                           for l in raw_lines}
                          | {("evaluator", l["evaluator"]["prompt"], l["evaluator"]["prompt_sha256"])
                             for l in atoms_lines})
        self.assertEqual([(v["role"], v["name"], v["sha256"]) for v in p["prompt_versions"]], expected)
        self.assertEqual([r for r, _n, _s in expected], ["evaluator", "generator"])
        index = read(os.path.join(self.out, "index.html"))
        generator = next(v for v in p["prompt_versions"] if v["role"] == "generator")
        self.assertIn(f"Generator prompts: {generator['name']} {generator['sha256']}", index)
        self.assertIn(f"Run dates (UTC, of the answers): {p['run_dates'][0]}", index)

    def test_a_collected_answer_is_dated_by_its_collection_and_has_no_prompt(self):
        collected = os.path.join(self.tmp, "collected.jsonl")
        with open(collected, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": "fence", "answer": "Front fences may be 3.5 feet tall (RCC 33.110.255).",
                                 "collected_by": "A. Reviewer", "collected_at": "2026-11-20T10:00:00Z",
                                 "product": "ConsumerChat web", "product_version": "2026-11"}) + "\n")
        raw = os.path.join(self.tmp, "raw-manual.jsonl")
        atoms = os.path.join(self.tmp, "atoms-manual.jsonl")
        self.assertEqual(call_main(run, [CASES, raw, "--provider", "manual", "--from", collected,
                                         "--quiet"])[0], 1)  # tiny-house was not collected
        saved = dict(os.environ)
        try:
            with ModelServer("anthropic", reply=model("anthropic", True)) as judge:
                os.environ.update(judge.environ())
                self.assertEqual(call_main(atomize, [raw, atoms, "--provider", "anthropic", "--model", "j",
                                                     "--cases", CASES, "--quiet"])[0], 0)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        outputs = []
        for attempt in range(2):
            out = os.path.join(self.tmp, f"results-{attempt}.json")
            self.assertEqual(call_main(score, [CASES, raw, atoms, "--json", out])[0], 0)
            outputs.append(read(out))
        self.assertEqual(outputs[0], outputs[1])  # the same inputs, the same bytes, any day
        p = json.loads(outputs[0])["provenance"]
        self.assertEqual(p["run_dates"], ["2026-11-20"])
        self.assertEqual([v["role"] for v in p["prompt_versions"]], ["evaluator"])
        code, markdown, _ = call_main(score, [CASES, raw, atoms])
        self.assertIn("- Generator prompts: none (answers collected by hand)", markdown)
        self.assertIn("- Run dates (UTC, of the answers): 2026-11-20", markdown)


class DemoAnswers(unittest.TestCase):
    """The jargon rule on every answer of make scenario-demo (the permits
    scenarios and tables), each token's verdict worked out by reading."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        run_demo(os.path.join(cls.tmp.name, "demo"), DEMO_CASES)
        with open(os.path.join(cls.tmp.name, "demo", "results.json"), encoding="utf-8") as fh:
            cls.result = json.load(fh)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_demo_answer_jargon(self):
        # Every code citation of the stand-in answers is attached to a plain
        # statement of what it requires; BDS and SDC are never spelled out.
        expected = {"RCC 33.205.040": (True, "800 square feet"), "RCC 33.110.220": (True, "5 feet"),
                    "BDS": (False, None), "SDC": (False, None)}
        answers = {c["response"]: c["scores"]["useful"]["jargon"] for c in self.result["cells"]}
        self.assertEqual(len(answers), 4)
        for response, tokens in sorted(answers.items()):
            with self.subTest(response=response[:60]):
                self.assertTrue(tokens)
                for t in tokens:
                    self.assertEqual((t["explained"], t.get("explained_by")), expected[t["token"]])

    def test_the_tiny_house_answer_is_useful_1(self):
        # 7 atoms, actionability 3 x 0.75 + 4 x 0.25 = 3.25: mean 13/28; 2
        # unexplained tokens (BDS, SDC) in 96 words: penalty 0.1 x 2 x 100/96 = 5/24;
        # 13/28 - 5/24 = 43/168 = 0.256; x 3 + 0.5 = 1.27 -> 1 (e8d1668: 4 tokens, 0).
        for cell in self.result["cells"]:
            if cell["scenario"] == "tiny-house":
                useful = cell["scores"]["useful"]
                self.assertEqual((useful["words"], useful["unexplained_jargon"], useful["raw"],
                                  useful["score"]), (96, 2, 0.256, 1))

    def test_every_demo_citation_is_known_to_the_table(self):
        # The source-authority table covers each citation the answers use: none
        # falls to the default bucket by not being recognised.
        table = SourceTable(os.path.join(support.ROOT, "evals", "permits", "sources.json"))
        citations = sorted({a["citation"] for c in self.result["cells"] for a in c["atoms"]
                            if a["citation"]})
        self.assertEqual(citations, ["RCC 33.110.220", "RCC 33.205.040", "Redfin", "RivertonMaps",
                                     "riverton.example.gov/fences)."])
        for citation in citations:
            with self.subTest(citation=citation):
                self.assertTrue(any(p.search(citation) for p, _b in table.patterns))


class Hostile(unittest.TestCase):
    def test_answers_and_atoms_are_escaped(self):
        hostile = '<script>alert(1)</script></td></table>"\' \u202eevil'
        with tempfile.TemporaryDirectory() as tmp:
            env = {}
            with ModelServer("openai", reply=lambda r: hostile + " Apply for a permit.") as gen, \
                    ModelServer("anthropic", reply=model("anthropic", True)) as judge:
                saved = dict(os.environ)
                try:
                    os.environ.update(gen.environ())
                    raw = os.path.join(tmp, "raw.jsonl")
                    self.assertEqual(call_main(run, [CASES, raw, "--provider", "openai", "--model",
                                                     "g", "--quiet"])[0], 0)
                    os.environ.update(judge.environ())
                    atoms = os.path.join(tmp, "atoms.jsonl")
                    self.assertEqual(call_main(atomize, [raw, atoms, "--provider", "anthropic",
                                                         "--model", "j", "--cases", CASES,
                                                         "--quiet"])[0], 0)
                finally:
                    os.environ.clear()
                    os.environ.update(saved)
            out = os.path.join(tmp, "pages")
            code, _, err = call_main(score, [CASES, raw, atoms, "--html-dir", out, "--example"])
            self.assertEqual(code, 0, err)
            for name in ["index.html"] + [os.path.join("detail", n) for n in os.listdir(os.path.join(out, "detail"))]:
                with open(os.path.join(out, name), encoding="utf-8") as fh:
                    text = fh.read()
                parser = check(text)
                self.assertEqual((parser.errors, parser.scripts), ([], 0), name)
                self.assertNotIn("<script>", text)
            self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;&lt;/td&gt;&lt;/table&gt;", text)


class Stability(unittest.TestCase):
    def test_repeats_agree_for_a_deterministic_judge(self):
        with tempfile.TemporaryDirectory() as tmp:
            saved = dict(os.environ)
            try:
                with ModelServer("openai", reply=model("openai", False)) as gen, \
                        ModelServer("anthropic", reply=model("anthropic", True)) as judge:
                    os.environ.update(gen.environ())
                    raw = os.path.join(tmp, "raw.jsonl")
                    call_main(run, [CASES, raw, "--provider", "openai", "--model", "g", "--quiet"])
                    os.environ.update(judge.environ())
                    atoms = os.path.join(tmp, "atoms.jsonl")
                    call_main(atomize, [raw, atoms, "--provider", "anthropic", "--model", "j",
                                        "--cases", CASES, "--repeat", "3", "--quiet"])
            finally:
                os.environ.clear()
                os.environ.update(saved)
            result = scenario_score.score(load_scenarios(CASES), [raw], [atoms],
                                                os.path.join(FIXTURES, "sources.json"),
                                                os.path.join(FIXTURES, "jargon.json"))
            self.assertEqual([(s["dimension"], s["responses"], s["repeats"], s["all_agree"])
                              for s in result["stability"]],
                             [(d, 2, 3, 2) for d in ("accurate", "complete", "cited", "useful")])
            # A repeat that disagrees is counted as such.
            lines = read_lines(atoms)
            lines[-1]["atoms"][0]["correctness"] = "WRONG"
            with open(atoms, "w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(json.dumps(line) + "\n")
            result = scenario_score.score(load_scenarios(CASES), [raw], [atoms],
                                                os.path.join(FIXTURES, "sources.json"),
                                                os.path.join(FIXTURES, "jargon.json"))
            accurate = next(s for s in result["stability"] if s["dimension"] == "accurate")
            self.assertEqual(accurate["all_agree"], 1)
            # A repeat that failed leaves its answer out: two failures, or a
            # score beside a failure, are no agreement.
            for line in lines:
                if line["id"] == lines[-1]["id"] and line["variant"] == lines[-1]["variant"]:
                    line.update(atoms=None, error="atoms rejected after one repair")
                    break
            with open(atoms, "w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(json.dumps(line) + "\n")
            result = scenario_score.score(load_scenarios(CASES), [raw], [atoms],
                                                os.path.join(FIXTURES, "sources.json"),
                                                os.path.join(FIXTURES, "jargon.json"))
            accurate = next(s for s in result["stability"] if s["dimension"] == "accurate")
            self.assertEqual((accurate["answers_repeated"], accurate["responses"],
                              accurate["all_agree"]), (2, 1, 1))


# Real Portland names the fictional city's examples once used (issue 17).
PORTLAND_NAMES = ("Sellwood", "SE Division", "NE Fremont", "N Willamette", "SE Alder", "97201")


class FictionalPlaces(unittest.TestCase):
    def test_no_real_portland_names_in_the_project(self):
        found = []
        for top in ("evals", "tests", "tools", "Documents"):
            for folder, dirs, files in os.walk(os.path.join(support.ROOT, top)):
                dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "build"))
                for name in sorted(files):
                    path = os.path.join(folder, name)
                    if os.path.abspath(path) == os.path.abspath(__file__.replace(".pyc", ".py")):
                        continue
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        text = fh.read()
                    found += [f"{os.path.relpath(path, support.ROOT)}: {n}"
                              for n in PORTLAND_NAMES if n in text]
        with open(os.path.join(support.ROOT, "README.md"), encoding="utf-8") as fh:
            text = fh.read()
        found += [f"README.md: {n}" for n in PORTLAND_NAMES if n in text]
        self.assertEqual(found, [])


class Refusals(unittest.TestCase):
    def test_topic_outside_the_vocabulary(self):
        with open(CASES, encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["scenarios"][1]["must_cover"].append("vibes")
        with self.assertRaises(BadInput) as ctx:
            parse_scenarios(doc, "scenarios.json")
        self.assertEqual(str(ctx.exception),
                         "scenarios.json: fence: must_cover topic 'vibes' is not in the topic vocabulary")

    def test_atoms_of_another_answer_and_self_evaluation(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "demo")
            run_demo(out, CASES)
            raw = os.path.join(out, "raw-stand-in-gpt.jsonl")
            atoms = os.path.join(out, "atoms-stand-in-claude.jsonl")
            lines = read_lines(atoms)
            changed = os.path.join(tmp, "atoms-changed.jsonl")
            with open(changed, "w", encoding="utf-8") as fh:
                line = next(l for l in lines if l["variant"] == "openai:stand-in-gpt")
                line["response_sha256"] = "0" * 64
                fh.write(json.dumps(line) + "\n")
            code, _, err = call_main(score, [CASES, raw, changed])
            self.assertEqual(code, 2)
            self.assertIn("these atoms are of another answer", err)
            with open(changed, "w", encoding="utf-8") as fh:
                line["evaluator"]["provider"], line["evaluator"]["model"] = "openai", "stand-in-gpt"
                fh.write(json.dumps(line) + "\n")
            code, _, err = call_main(score, [CASES, raw, changed])
            self.assertEqual(code, 2)
            self.assertIn("atomized its own answer", err)


if __name__ == "__main__":
    unittest.main()

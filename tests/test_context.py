"""run.py --context corpus: a generator given the passages of the city's code
its search finds for each question (a retrieval-augmented assistant), which
the raw line records, the variant's name says, and the results explain."""

import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import model
from tests.support import ROOT, call_main, read_lines

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.asking import modelrun  # noqa: E402
from evalkit.scenario.corpus import Corpus  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios, user_text  # noqa: E402

CASES = os.path.join(ROOT, "evals", "permits", "scenarios.json")
CODE = os.path.join(ROOT, "evals", "permits", "code", "riverton-code.json")


class Grounded(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)

    def generate(self, *extra):
        gen = ModelServer("openai", reply=lambda r: "You need a permit from the city.")
        gen.__enter__()
        self.addCleanup(gen.__exit__)
        os.environ.update(gen.environ())
        out = os.path.join(self.tmp, "raw.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", "gen-1",
                                       "--quiet", "--limit", "2"] + list(extra))
        self.assertEqual(code, 0, err)
        return gen, out

    def test_the_passages_are_in_the_prompt_and_on_the_line(self):
        gen, out = self.generate("--context", "corpus")
        case = load_scenarios(CASES).scenarios[0]
        hits = Corpus(CODE).search(user_text(case), modelrun.CONTEXT_PASSAGES)
        self.assertTrue(hits)
        user = gen.requests[0]["json"]["messages"][-1]["content"]
        self.assertTrue(user.startswith(user_text(case) + "\n\nPassages of Riverton's code"))
        self.assertIn(f"[{hits[0]['section']}] {hits[0]['passage']}", user)
        line = read_lines(out)[0]
        self.assertEqual(line["target"]["context"], "corpus")
        context = line["request"]["context"]
        self.assertEqual(context["sections"], [h["section"] for h in hits])
        self.assertEqual((context["kind"], context["corpus"]), ("corpus", "riverton-code.json"))
        self.assertEqual(context["corpus_sha256"], Corpus(CODE).sha256)

    def test_without_it_the_model_answers_from_its_own_knowledge(self):
        gen, out = self.generate()
        line = read_lines(out)[0]
        self.assertIsNone(line["request"]["context"])
        self.assertNotIn("context", line["target"])
        self.assertNotIn("Passages of", gen.requests[0]["json"]["messages"][-1]["content"])

    def test_a_grounded_generator_is_another_variant_of_the_same_family(self):
        _, out = self.generate("--context", "corpus")
        judge = ModelServer("anthropic", reply=model("anthropic", True))
        judge.__enter__()
        self.addCleanup(judge.__exit__)
        os.environ.update(judge.environ())
        atoms = os.path.join(self.tmp, "atoms.jsonl")
        code, _, err = call_main(atomize, [out, atoms, "--provider", "anthropic", "--model",
                                           "judge-1", "--cases", CASES, "--quiet"])
        self.assertEqual(code, 0, err)
        self.assertEqual({l["variant"] for l in read_lines(atoms)}, {"openai:gen-1+corpus"})
        # the family rule sees the model behind the name
        code, _, err = call_main(atomize, [out, os.path.join(self.tmp, "self.jsonl"),
                                           "--provider", "openai", "--model", "gen-1-2024-08-06",
                                           "--cases", CASES, "--quiet"])
        self.assertEqual(code, 2)
        self.assertIn("one model family", err)
        md = os.path.join(self.tmp, "results.md")
        code, _, err = call_main(score, [CASES, out, atoms, "--example", "--out", md])
        self.assertEqual(code, 0, err)
        with open(md, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn("openai:gen-1+corpus", text)
        self.assertIn("A generator named with +corpus was given", text)

    def test_a_missing_corpus_is_refused(self):
        os.environ["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"   # never called
        code, _, err = call_main(run, [CASES, os.path.join(self.tmp, "r.jsonl"), "--provider",
                                       "openai", "--model", "g", "--context", "corpus",
                                       "--corpus", os.path.join(self.tmp, "none.json")])
        self.assertEqual(code, 2)
        self.assertIn("none.json", err)


if __name__ == "__main__":
    unittest.main()

"""The intake prompt quotes the extraction policy the gold labels follow,
word for word (issue 17, item 3): the text sent to the model holds the
policy; ai_eval.py refuses a prompt whose policy section differs; and
intake_prompt.py writes the policy into a new prompt version."""

import os
import shutil
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import user_text
from tests.support import FIXTURES, ROOT, TOOLS, call_main, run_script

import ai_eval  # noqa: E402

POLICY = os.path.join(ROOT, "evals", "ai", "EXTRACTION_POLICY.md")


def policy_quoted_part(text):
    """Written here, not imported: the policy above its closing comment (or,
    in a policy without one, above the section on changing it)."""
    for end in ("\n<!-- The intake prompt quotes", "\n## Changing the policy"):
        if end in text:
            return text[:text.index(end)].rstrip()
    raise AssertionError("the policy has no end marker")


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


class SentPrompt(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        reply = {"project_type": "adu", "jurisdiction": "unknown",
                 "fields": {"adu_kind": "unknown", "owner_occupies": "unknown"}}
        self.srv = ModelServer("openai", reply=lambda request: reply)
        self.srv.__enter__()
        self.addCleanup(self.srv.__exit__)
        os.environ.update(self.srv.environ())

    def run_intake(self):
        return call_main(ai_eval, ["intake", "--cases", os.path.join(FIXTURES, "ai", "intake-cases.json"),
                                   "--output", os.path.join(self.tmp, "r.json"), "--limit", "1",
                                   "--raw", os.path.join(self.tmp, "r.raw.jsonl"),
                                   "--provider", "openai", "--model", "m", "--quiet"])

    def test_the_model_reads_the_policy_word_for_word(self):
        self.run_intake()
        sent = user_text("openai", self.srv.requests[0]["json"])
        policy = policy_quoted_part(read(POLICY))
        self.assertIn(policy, sent)
        # intake-v1's own paraphrase contradicted the policy on neighbourhoods.
        self.assertNotIn("named or unambiguous", sent)
        for narrow in ("rented to a tenant in the last three years",
                       "a stated plan to live on the property",
                       '"Our lot" does not say a home stands on it',
                       '"My house" alone does not say the owner lives there'):
            self.assertIn(narrow, sent)

    def test_a_prompt_that_differs_from_the_policy_is_refused(self):
        changed = os.path.join(self.tmp, "EXTRACTION_POLICY.md")
        with open(changed, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(read(POLICY).replace("last three years", "last five years"))
        saved = ai_eval.POLICY
        ai_eval.POLICY = changed
        self.addCleanup(setattr, ai_eval, "POLICY", saved)
        code, out, err = self.run_intake()
        self.assertEqual((code, out, len(self.srv.requests)), (2, "", 0))
        self.assertIn("its policy section differs from", err)


class WritePolicy(unittest.TestCase):
    def test_intake_prompt_check_and_write(self):
        prompts = os.path.join(TOOLS, "prompts")
        newest = max((n for n in os.listdir(prompts) if n.startswith("intake-v")),
                     key=lambda n: int(n[len("intake-v"):-3]))
        self.assertEqual(newest, "intake-v2.md")
        done = run_script("intake_prompt.py", "--check", os.path.join(prompts, newest))
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, "", ""))
        with tempfile.TemporaryDirectory() as tmp:
            policy = os.path.join(tmp, "policy.md")
            with open(policy, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(read(POLICY).replace("last three years", "last five years"))
            prompt = shutil.copy(os.path.join(prompts, newest), os.path.join(tmp, "intake-v3.md"))
            done = run_script("intake_prompt.py", "--check", "--policy", policy, prompt)
            self.assertEqual(done.returncode, 1)
            self.assertIn("its policy section differs from", done.stderr)
            done = run_script("intake_prompt.py", "--policy", policy, prompt)
            self.assertEqual((done.returncode, done.stderr), (0, ""))
            self.assertIn("last five years", read(prompt))
            self.assertIn(policy_quoted_part(read(policy)), read(prompt))
            done = run_script("intake_prompt.py", "--check", "--policy", policy, prompt)
            self.assertEqual(done.returncode, 0)


if __name__ == "__main__":
    unittest.main()

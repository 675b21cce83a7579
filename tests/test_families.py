"""Generator != evaluator by model family (evalkit/families.py): the names of
one model across OpenAI, Anthropic, Bedrock, Vertex, Ollama, llama.cpp and
Hugging Face are one family; different models stay apart. atomize.py refuses
an evaluator of the generator's family (exit 2, one line naming both and the
family), and score.py refuses atoms written so."""

import json
import os
import unittest

from tests.model_servers import ModelServer
from tests.support import call_main, sha256_text
from tests.test_atomize import CASES, EnvTestCase, good_atoms

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.families import family, same_family, split_variant  # noqa: E402

# Each group: names of one model family, and the family's key.
ONE_FAMILY = {
    "gpt4o": ["gpt-4o", "gpt-4o-2024-08-06", "gpt-4o-2024-05-13", "GPT-4o", "openai/gpt-4o",
              "chatgpt-4o-latest"],
    "gpt4omini": ["gpt-4o-mini", "gpt-4o-mini-2024-07-18", "ft:gpt-4o-mini-2024-07-18:acme::x1"],
    "gpt4": ["gpt-4", "gpt-4-0613"],
    "gpt35turbo": ["gpt-3.5-turbo", "gpt-3.5-turbo-0125", "gpt-35-turbo", "gpt-3.5-turbo-16k"],
    "o1": ["o1", "o1-2024-12-17"],
    "claude35sonnet": ["claude-3-5-sonnet-20241022", "claude-3-5-sonnet-20240620",
                       "claude-3-5-sonnet-latest", "anthropic.claude-3-5-sonnet-20241022-v2:0",
                       "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
                       "eu.anthropic.claude-3-5-sonnet-20240620-v1:0",
                       "apac.anthropic.claude-3-5-sonnet-20241022-v2:0",
                       "claude-3-5-sonnet-v2@20241022", "anthropic/claude-3.5-sonnet",
                       "arn:aws:bedrock:us-east-1:123456789012:inference-profile/"
                       "us.anthropic.claude-3-5-sonnet-20241022-v2:0"],
    "claude35haiku": ["claude-3-5-haiku-20241022", "claude-3-5-haiku-latest",
                      "anthropic.claude-3-5-haiku-20241022-v1:0"],
    "claudesonnet45": ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929",
                       "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                       "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
                       "anthropic/claude-sonnet-4.5"],
    "claudesonnet4": ["claude-sonnet-4-20250514", "claude-4-sonnet",
                      "us.anthropic.claude-sonnet-4-20250514-v1:0"],
    "llama31": ["llama3.1", "llama3.1:8b", "llama3.1:latest", "llama3.1:70b-instruct-q4_K_M",
                "meta.llama3-1-8b-instruct-v1:0", "us.meta.llama3-1-70b-instruct-v1:0",
                "meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/llama-3.1-8b-instruct",
                "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama-3.1-8b-instruct"],
    "llama32": ["llama3.2:1b", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M"],
    "llama2": ["llama2:7b", "llama-2-7b-chat.Q4_K_M.gguf", "meta-llama/Llama-2-7b-chat-hf"],
    "qwen25": ["qwen2.5:7b", "Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b-instruct-q8_0.gguf"],
    "mistral": ["mistral:7b-instruct-v0.3-q4_0", "mistralai/Mistral-7B-Instruct-v0.3",
                "mistral:latest"],
    "mistrallarge": ["mistral-large-2407", "mistral-large-latest",
                     "mistral.mistral-large-2407-v1:0"],
    "gemma2": ["gemma2:9b", "google/gemma-2-9b-it"],
    "gemini15pro": ["gemini-1.5-pro", "gemini-1.5-pro-002", "models/gemini-1.5-pro-latest"],
    "novapro": ["amazon.nova-pro-v1:0", "us.amazon.nova-pro-v1:0"],
    "commandrplus": ["command-r-plus", "command-r-plus-08-2024", "cohere.command-r-plus-v1:0"],
}

# Different models that must stay apart: a refusal here would stop a
# legitimate cross-evaluation.
DIFFERENT = [("gpt-4o", "gpt-4o-mini"), ("gpt-4o", "gpt-4"), ("gpt-4o", "o1"),
             ("o1", "o1-preview"), ("o1", "o3-mini"),
             ("claude-3-5-sonnet-20241022", "claude-3-5-haiku-20241022"),
             ("claude-3-5-sonnet-latest", "claude-3-7-sonnet-latest"),
             ("claude-sonnet-4-5", "claude-sonnet-4-20250514"),
             ("claude-opus-4-1", "claude-opus-4-20250514"),
             ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", "gpt-4o"),
             ("llama3.1:8b", "llama3.2:3b"), ("llama3.1:8b", "claude-3-5-sonnet-latest"),
             ("llama3.1:8b", "qwen2.5:7b"), ("meta.llama3-1-8b-instruct-v1:0", "llama3:8b"),
             ("deepseek-v3", "deepseek-r1:8b"), ("mistral:7b", "mixtral:8x7b"),
             ("gemini-1.5-pro", "gemini-1.5-flash"), ("gemma2:9b", "gemma3:4b"),
             ("amazon.nova-pro-v1:0", "amazon.nova-lite-v1:0"),
             ("stand-in-gpt", "stand-in-claude"), ("gen-1", "judge-1")]


# Pairs that are one model under two names (True) or two models (False),
# each checked both ways. The first groups are the ones the rules of
# 2026-12-01 accepted as different models: Claude's two word orders, Llama
# as Groq, Together and Fireworks spell it, DeepSeek's aliases; then local
# GGUF / llama.cpp / Ollama names, and the pairs that must stay apart.
PAIRS = [
    # Claude: both word orders, every tier, before and after Claude 4.
    ("claude-4.5-sonnet", "claude-sonnet-4-5", True),
    ("claude-4-5-sonnet", "claude-sonnet-4-5-20250929", True),
    ("claude-4-opus", "claude-opus-4", True),
    ("claude-4-opus", "claude-opus-4-20250514", True),
    ("claude-4.1-opus", "claude-opus-4-1", True),
    ("claude-4.5-haiku", "claude-haiku-4-5", True),
    ("claude-4-sonnet", "claude-sonnet-4-20250514", True),
    ("claude-sonnet-3.5", "claude-3-5-sonnet-20241022", True),
    ("claude-sonnet-3-7", "claude-3-7-sonnet-20250219", True),
    ("claude-haiku-3.5", "claude-3-5-haiku-latest", True),
    ("claude-opus-3", "claude-3-opus-20240229", True),
    ("anthropic/claude-4.5-sonnet", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
    ("anthropic/claude-3.7-sonnet", "claude-3-7-sonnet@20250219", True),
    ("claude-opus-4-1@20250805", "claude-4.1-opus", True),
    # Llama 3.1 as the hosts spell it, against Ollama's and Bedrock's names.
    ("llama-3.1-8b-instant", "llama3.1:8b", True),
    ("llama-3.1-8b-instant", "meta.llama3-1-8b-instruct-v1:0", True),
    ("meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", "llama3.1:8b", True),
    ("meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", "meta.llama3-1-8b-instruct-v1:0", True),
    ("accounts/fireworks/models/llama-v3p1-8b-instruct", "llama3.1:8b", True),
    ("accounts/fireworks/models/llama-v3p1-8b-instruct", "meta.llama3-1-8b-instruct-v1:0", True),
    ("llama-3.1-70b-versatile", "us.meta.llama3-1-70b-instruct-v1:0", True),
    # Llama 3.3.
    ("llama-3.3-70b-versatile", "llama3.3:70b", True),
    ("llama-3.3-70b-versatile", "meta.llama3-3-70b-instruct-v1:0", True),
    ("meta-llama/Llama-3.3-70B-Instruct-Turbo", "llama3.3:70b", True),
    ("meta-llama/Llama-3.3-70B-Instruct-Turbo", "meta.llama3-3-70b-instruct-v1:0", True),
    ("accounts/fireworks/models/llama-v3p3-70b-instruct", "llama3.3:70b", True),
    ("llama-v3p3-70b-instruct", "meta.llama3-3-70b-instruct-v1:0", True),
    ("llama-3.3-70b-specdec", "llama3.3", True),
    # Llama 3 and 3.2.
    ("llama3-70b-8192", "llama3:70b", True),
    ("llama3-8b-8192", "meta.llama3-8b-instruct-v1:0", True),
    ("meta-llama/Meta-Llama-3-8B-Instruct-Lite", "llama3:8b", True),
    ("accounts/fireworks/models/llama-v3-70b-instruct", "meta.llama3-70b-instruct-v1:0", True),
    ("llama-3.2-3b-preview", "llama3.2:3b", True),
    ("meta-llama/Llama-3.2-3B-Instruct-Turbo", "us.meta.llama3-2-3b-instruct-v1:0", True),
    ("accounts/fireworks/models/llama-v3p2-3b-instruct", "llama3.2:1b", True),
    # DeepSeek: the API's aliases and the version names.
    ("deepseek-chat", "deepseek-v3", True),
    ("deepseek-chat", "deepseek-ai/DeepSeek-V3", True),
    ("deepseek-chat", "deepseek-v3-0324", True),
    ("deepseek-reasoner", "deepseek-r1", True),
    ("deepseek-reasoner", "deepseek-ai/DeepSeek-R1", True),
    ("deepseek-ai/DeepSeek-V3", "deepseek-v3-0324", True),
    ("deepseek-r1", "deepseek-r1-0528", True),
    ("deepseek-reasoner", "us.deepseek.r1-v1:0", True),
    ("deepseek-chat", "deepseek-v3.1", True),
    ("deepseek-ai/DeepSeek-R1", "deepseek-r1:8b", True),   # deliberate: a distillation
    # Local GGUF / llama.cpp / Ollama names.
    ("qwen2.5-coder-1.5b-instruct", "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", True),
    ("qwen2.5-coder-1.5b-instruct", "qwen2.5-coder:1.5b", True),
    ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", "qwen2.5-coder:1.5b", True),
    ("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "qwen2.5-coder:1.5b", True),
    ("gemma-3-270m-it", "gemma3:270m", True),
    ("gemma-3-270m-it", "gemma-3-270m-q4_k_m.gguf", True),
    ("gemma3:270m", "gemma-3-270m-q4_k_m.gguf", True),
    ("google/gemma-3-270m-it", "gemma3:270m", True),
    ("smollm2-135m-instruct", "SmolLM2-135M-Instruct.Q4_1.gguf", True),
    ("smollm2:135m", "SmolLM2-135M-Instruct.Q4_1.gguf", True),
    ("HuggingFaceTB/SmolLM2-135M-Instruct", "smollm2-135m-instruct", True),
    # Claude: other tiers and versions stay apart, in either order.
    ("claude-sonnet-4-5", "claude-haiku-4-5", False),
    ("claude-4.5-sonnet", "claude-4.5-haiku", False),
    ("claude-4-opus", "claude-4.1-opus", False),
    ("claude-4-sonnet", "claude-4.5-sonnet", False),
    ("claude-3.5-sonnet", "claude-3.7-sonnet", False),
    ("claude-sonnet-3.5", "claude-sonnet-3.7", False),
    ("claude-3-5-sonnet-latest", "claude-sonnet-4-5", False),
    ("claude-opus-3", "claude-opus-4", False),
    ("claude-haiku-3.5", "claude-sonnet-3.5", False),
    # Llama: other releases, Llama Guard and the vision models stay apart.
    ("llama-3.1-8b-instant", "llama-3.3-70b-versatile", False),
    ("llama3-70b-8192", "llama3.1:70b", False),
    ("accounts/fireworks/models/llama-v3p1-8b-instruct", "llama-v3p3-70b-instruct", False),
    ("meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", "meta-llama/Llama-3.3-70B-Instruct-Turbo", False),
    ("llama-3.2-90b-vision-preview", "llama-3.2-3b-preview", False),
    ("llama-guard-3-8b", "llama3.1:8b", False),
    ("llama-3.3-70b-versatile", "qwen2.5:72b", False),
    # Serving words are read only in a Llama name: these are other models.
    ("gpt-4-turbo", "gpt-4", False),
    ("gpt-3.5-turbo", "gpt-4-turbo", False),
    ("o1-preview", "o1", False),
    # DeepSeek: V3 and R1 (and their aliases), V2 and the coder stay apart.
    ("deepseek-chat", "deepseek-reasoner", False),
    ("deepseek-v3", "deepseek-r1", False),
    ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", False),
    ("deepseek-chat", "deepseek-coder", False),
    ("deepseek-v3", "deepseek-v2.5", False),
    ("deepseek-reasoner", "o1", False),
    # Issue 39: one model under two names (a context length, a preview, a
    # Bedrock version without v, a provider written before the model), and
    # their neighbours that stay apart.
    ("gpt-4", "gpt-4-32k", True),
    ("gpt-4-32k-0613", "gpt-4-0613", True),
    ("gpt-4-turbo", "gpt-4-1106-preview", True),
    ("gpt-4-turbo-2024-04-09", "gpt-4-0125-preview", True),
    ("gemini-2.5-pro", "gemini-2.5-pro-preview-05-06", True),
    ("gemini-2.5-pro", "google/gemini-2.5-pro-preview", True),
    ("gemini-2.5-flash", "gemini-2.5-flash-preview-04-17", True),
    ("gpt-oss:120b", "openai.gpt-oss-120b-1:0", True),
    ("openai:gpt-4o", "gpt-4o-2024-08-06", True),
    ("anthropic:claude-sonnet-4-5", "claude-sonnet-4-5-20250929", True),
    ("openai:gpt-4o", "openai:gpt-4-turbo", False),
    ("gpt-4-1106-preview", "gpt-4", False),
    ("gemini-2.5-pro-preview-05-06", "gemini-2.5-flash", False),
    ("gpt-oss:120b", "gpt-4o", False),
    ("mistral:7b", "mistral:mistral-large-latest", False),
    # Qwen, Gemma and SmolLM2 are three families, and not their neighbours.
    ("qwen2.5-coder:1.5b", "gemma3:270m", False),
    ("qwen2.5-coder-1.5b-instruct", "smollm2-135m-instruct", False),
    ("gemma-3-270m-it", "SmolLM2-135M-Instruct.Q4_1.gguf", False),
    ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", "gemma-3-270m-q4_k_m.gguf", False),
    ("SmolLM2-135M-Instruct.Q4_1.gguf", "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", False),
    ("qwen2.5-coder:1.5b", "qwen2.5:1.5b", False),
    ("gemma3:270m", "gemma2:2b", False),
    ("smollm2:135m", "smollm:135m", False),
    ("gemma-3-270m-it", "llama3.2:1b", False),
]

class Names(unittest.TestCase):
    def test_one_family(self):
        for key, names in ONE_FAMILY.items():
            for name in names:
                with self.subTest(name):
                    self.assertEqual(family(name), key)

    def test_different_families(self):
        for a, b in DIFFERENT:
            with self.subTest(f"{a} / {b}"):
                self.assertIsNone(same_family(a, b))
                self.assertIsNone(same_family(b, a))

    def test_pairs_both_ways(self):
        for a, b, same in PAIRS:
            for first, second in ((a, b), (b, a)):
                with self.subTest(f"{first} / {second}"):
                    if same:
                        self.assertIsNotNone(same_family(first, second),
                                             f"{family(first)} != {family(second)}")
                    else:
                        self.assertIsNone(same_family(first, second))

    def test_the_table_is_large_and_the_docstring_points_to_it(self):
        import evalkit.families
        self.assertGreaterEqual(len(PAIRS), 78)
        self.assertEqual(len({(a, b) for a, b, _ in PAIRS}), len(PAIRS))
        self.assertIn("tests/test_families.py", evalkit.families.__doc__)

    def test_groups_do_not_collide(self):
        keys = [family(names[0]) for names in ONE_FAMILY.values()]
        self.assertEqual(len(keys), len(set(keys)))

    def test_a_name_made_only_of_packaging_keeps_itself(self):
        self.assertEqual(family("8b"), "8b")
        self.assertEqual(family("it"), "it")
        self.assertEqual(family("-latest"), "latest")

    def test_an_arn_that_names_no_model_is_of_no_other_family(self):
        arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
        for other in ("anthropic.claude-3-5-sonnet-20241022-v2:0", "llama3.1:8b", arn):
            self.assertTrue(same_family(arn, other).startswith("unknown: application inference "
                                                               "profile"))
            self.assertTrue(same_family(other, arn).startswith("unknown:"))

    def test_variants_keep_the_model_colons(self):
        self.assertEqual(split_variant("openai:llama3.1:8b"), ("openai", "llama3.1:8b"))
        self.assertEqual(split_variant("bedrock:us.anthropic.claude-3-5-sonnet-20241022-v2:0"),
                         ("bedrock", "us.anthropic.claude-3-5-sonnet-20241022-v2:0"))


class Atomize(EnvTestCase):
    """The refusal, end to end: a generator's raw file, then atomize.py."""

    def generate_as(self, model):
        self.server("openai", reply=lambda r: "A plain answer.")
        out = os.path.join(self.tmp, f"raw-{len(os.listdir(self.tmp))}.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", model, "--quiet"])
        self.assertEqual(code, 0, err)
        return out

    def atomize_as(self, raw_path, provider, model):
        srv = ModelServer(provider, reply=good_atoms)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        out = os.path.join(self.tmp, f"atoms-{len(os.listdir(self.tmp))}.jsonl")
        code, _, err = call_main(atomize, [raw_path, out, "--provider", provider, "--model", model,
                                           "--cases", CASES, "--quiet"])
        return code, err, srv

    def test_a_snapshot_of_the_generator_is_refused(self):
        raw_path = self.generate_as("gpt-4o")
        code, err, srv = self.atomize_as(raw_path, "openai", "gpt-4o-2024-08-06")
        self.assertEqual((code, srv.requests), (2, []))
        self.assertEqual(err, f"atomize.py: {raw_path}:1: the generator openai:gpt-4o and the "
                              "evaluator openai:gpt-4o-2024-08-06 are one model family (gpt4o); "
                              "the spec forbids self-evaluation: choose an evaluator of another "
                              "family\n")

    def test_the_same_model_through_another_provider_is_refused(self):
        cases = [("claude-3-5-sonnet-latest", "bedrock",
                  "us.anthropic.claude-3-5-sonnet-20241022-v2:0", "claude35sonnet"),
                 ("anthropic.claude-3-5-sonnet-20241022-v2:0", "anthropic",
                  "claude-3-5-sonnet-20241022", "claude35sonnet"),
                 ("llama3.1:8b", "bedrock", "us.meta.llama3-1-70b-instruct-v1:0", "llama31"),
                 ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "openai", "llama3.1:latest",
                  "llama31")]
        for generator, provider, evaluator, key in cases:
            with self.subTest(f"{generator} / {evaluator}"):
                raw_path = self.generate_as(generator)
                code, err, srv = self.atomize_as(raw_path, provider, evaluator)
                self.assertEqual((code, srv.requests), (2, []))
                self.assertIn(f"the generator openai:{generator} and the evaluator "
                              f"{provider}:{evaluator} are one model family ({key})", err)
                self.assertEqual(len(err.splitlines()), 1)

    def test_other_families_are_accepted(self):
        for generator, provider, evaluator in [
                ("gpt-4o", "openai", "gpt-4o-mini"),
                ("llama3.1:8b", "anthropic", "claude-3-5-sonnet-latest"),
                ("llama3.1:8b", "openai", "qwen2.5:7b"),
                ("gpt-4o-2024-08-06", "bedrock", "us.anthropic.claude-3-5-sonnet-20241022-v2:0")]:
            with self.subTest(f"{generator} / {evaluator}"):
                raw_path = self.generate_as(generator)
                code, err, _ = self.atomize_as(raw_path, provider, evaluator)
                self.assertEqual((code, err), (0, ""))


class Score(EnvTestCase):
    def test_the_cross_table_marks_a_family_self(self):
        from evalkit.scenario.scenario_score import cross_table
        table = cross_table([], ["bedrock:us.anthropic.claude-3-5-sonnet-20241022-v2:0"],
                            ["anthropic:claude-3-5-sonnet-latest", "openai:gpt-4o"])
        self.assertEqual([row["self"] for row in table], [True, False])

    def test_atoms_of_the_generator_family_are_refused(self):
        self.server("openai", reply=lambda r: "A plain answer.")
        raw_path = os.path.join(self.tmp, "raw.jsonl")
        self.assertEqual(call_main(run, [CASES, raw_path, "--provider", "openai", "--model",
                                         "gpt-4o", "--quiet"])[0], 0)
        atoms_path = os.path.join(self.tmp, "atoms.jsonl")
        with open(atoms_path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({
                "format": 1, "id": "fence", "variant": "openai:gpt-4o", "repeat": 0,
                "evaluator": {"provider": "openai", "model": "gpt-4o-2024-08-06",
                              "prompt": "atomize-v1", "prompt_sha256": "0" * 64},
                "atoms": good_atoms(None)["atoms"], "error": None, "calls": [], "run": {},
                "response_sha256": sha256_text("A plain answer.")}) + "\n")
        code, _, err = call_main(score, [CASES, raw_path, atoms_path])
        self.assertEqual(code, 2)
        self.assertEqual(err, f"score.py: {atoms_path}:1: evaluator openai:gpt-4o-2024-08-06 "
                              "atomized its own answer: the generator openai:gpt-4o is of its "
                              "model family (gpt4o); generator != evaluator\n")


if __name__ == "__main__":
    unittest.main()

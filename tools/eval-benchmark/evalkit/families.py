"""Model families: which model names are one model, for "generator != evaluator".

The spec forbids self-evaluation ("the model that generates a response must
not be the model that evaluates it"). The same model reaches this project
under many names: ``gpt-4o`` and its snapshot ``gpt-4o-2024-08-06``; Claude
through Anthropic (``claude-3-5-sonnet-20241022``, ``claude-3-5-sonnet-latest``)
and through Bedrock (``anthropic.claude-3-5-sonnet-20241022-v2:0``, and the
cross-region ``us.anthropic.claude-...``); Llama from Ollama (``llama3.1:8b``),
Bedrock (``meta.llama3-1-8b-instruct-v1:0``) or a GGUF file. ``family(model)``
reduces a name to one key, and two models with the same key are one family:

  1. lower case; an OpenAI fine-tune ``ft:BASE:org::id`` is its BASE
  2. the route before the last ``/`` (``openai/``, ``meta-llama/``, an ARN)
  3. a Vertex version ``@...``; Bedrock's version ``-v2:0``; then Ollama's tag
     after ``:`` (a size or quantisation: ``:8b``, ``:latest``, ``:70b-q4_K_M``)
  4. Bedrock's region and vendor prefixes (``us.``, ``eu.``, ``apac.``, ...;
     ``anthropic.``, ``meta.``, ...); a ``.gguf`` file name's extension and
     quantisation
  5. from the end, again and again: ``-latest``, a date (``-2024-08-06``,
     ``-20241022``, ``-0613``, ``-08-2024``, ``-002``) and a dotted version
     (``-v0.3``)
  6. words that name a size or a packaging of one release: a parameter count
     (``8b``, ``70b``, ``8x7b``, ``a3b``), ``instruct``, ``it``, ``hf``,
     ``gguf``, a quantisation (``q4_k_m``, ``fp16``, ``awq``), and the maker
     ``meta`` before ``llama``
  7. everything but letters and digits (``llama-3.1`` = ``llama3-1`` =
     ``llama31``), then ALIASES for names the rules above cannot join.

The family is the key of step 7, e.g. ``gpt4o``, ``claude35sonnet``,
``llama31``; the provider never enters it (Claude on Bedrock is Claude).

Deliberate choices. Sizes given as a parameter count are one family: an
Ollama name such as ``llama3.1`` does not say which size it is, so a rule
that kept sizes would let ``llama3.1`` judge ``llama3.1:8b``, the same
weights. Names the maker gives a different model (``gpt-4o-mini``,
``claude-3-5-haiku``, ``o1-preview``, ``deepseek-v3``) are other families;
merge more with ALIASES. What it leaves out: an imported product
(``--provider manual``) is named by its product, and no rule can see which
model a product runs; nor does it ask any API what a name points to.
"""

import re

# Bedrock's cross-region inference profiles and model vendors, as prefixes.
BEDROCK_REGIONS = ("us", "us-gov", "eu", "apac", "jp", "au", "ca", "global")
BEDROCK_VENDORS = ("anthropic", "meta", "amazon", "mistral", "cohere", "ai21", "deepseek",
                   "writer", "qwen", "openai", "twelvelabs", "stability")

# Names of one model that the rules cannot join: key -> family key.
ALIASES = {
    "chatgpt4o": "gpt4o",                # chatgpt-4o-latest: GPT-4o as ChatGPT serves it
    "gpt35turbo16k": "gpt35turbo",       # the long-context variant of one model
    "claude35sonnetv2": "claude35sonnet",  # Vertex's claude-3-5-sonnet-v2@20241022
    "claude4sonnet": "claudesonnet4",    # both orders of Claude 4's names occur
    "claude4opus": "claudeopus4",
    "llama2chat": "llama2",              # Llama 2's chat tuning, Ollama's llama2
    "llama3chat": "llama3",
}

_SUFFIXES = (re.compile(r"-latest$"), re.compile(r"-\d{4}-\d{2}-\d{2}$"),
             re.compile(r"-\d{2}-\d{4}$"), re.compile(r"-\d{8}$"), re.compile(r"-\d{3,4}$"),
             re.compile(r"-v\d+(\.\d+)+$"))
_PACKAGING = re.compile(r"^(\d+(\.\d+)?[bm]|\d+x\d+(\.\d+)?b|a\d+(\.\d+)?b|instruct|it|hf|gguf"
                        r"|i?q\d(_[0-9a-z]+)*|fp\d+|bf16|f16|f32|int\d|awq|gptq|mlx|\d+bit)$")


def _strip_route(name):
    """Steps 1-4: what only says where or how the model was reached."""
    if name.startswith("ft:") and name.count(":") >= 2:
        name = name.split(":")[1]
    name = name.rsplit("/", 1)[-1]
    name = name.split("@", 1)[0]
    name = re.sub(r"-v\d+:\d+$", "", name)
    name = name.split(":", 1)[0]
    changed = True
    while changed:
        head, dot, rest = name.partition(".")
        changed = bool(dot) and head in BEDROCK_REGIONS + BEDROCK_VENDORS and bool(rest)
        if changed:
            name = rest
    name = re.sub(r"\.gguf$", "", name)
    return re.sub(r"[.-](i?q\d\w*|f16|f32|bf16|fp16)$", "", name)


def _strip_version(name):
    """Steps 5-6: snapshot dates, versions, sizes and packaging words."""
    changed = True
    while changed:
        changed = False
        for pattern in _SUFFIXES:
            shorter = pattern.sub("", name)
            if shorter != name and shorter:
                name, changed = shorter, True
    words = [w for w in name.split("-") if not _PACKAGING.match(w)] or [name]
    if len(words) > 1 and words[0] == "meta" and words[1].startswith("llama"):
        words = words[1:]
    return "-".join(words)


def family(model):
    """The family key of a model name (see the module's docstring)."""
    name = _strip_version(_strip_route(str(model).strip().lower()))
    key = re.sub(r"[^a-z0-9]", "", name) or re.sub(r"[^a-z0-9]", "", str(model).lower())
    return ALIASES.get(key, key)


def split_variant(variant):
    """``(provider, model)`` of a ``provider:model`` name (evalkit.atoms.variant_of);
    the model keeps its own colons (``openai:llama3.1:8b``) and loses the
    ``+corpus`` of a generator given the code's passages."""
    provider, _colon, model = str(variant).partition(":")
    return provider, model.removesuffix("+corpus")  # the model, whatever it was given


def same_family(model_a, model_b):
    """The family both belong to, or None when they are of different families."""
    a, b = family(model_a), family(model_b)
    return a if a == b else None

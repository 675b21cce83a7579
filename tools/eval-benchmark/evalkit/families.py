"""Model families: which model names are one model, for "generator != evaluator".

The spec forbids self-evaluation ("the model that generates a response must
not be the model that evaluates it"). The same model reaches this project
under many names: ``gpt-4o`` and its snapshot ``gpt-4o-2024-08-06``; Claude
through Anthropic (``claude-3-5-sonnet-20241022``, ``claude-3-5-sonnet-latest``)
and through Bedrock (``anthropic.claude-3-5-sonnet-20241022-v2:0``, and the
cross-region ``us.anthropic.claude-...``); Llama from Ollama (``llama3.1:8b``),
Bedrock (``meta.llama3-1-8b-instruct-v1:0``), a hosting provider (Groq's
``llama-3.1-8b-instant``, Together's ``meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo``,
Fireworks' ``accounts/fireworks/models/llama-v3p1-8b-instruct``) or a GGUF
file. ``family(model)`` reduces a name to one key, and two models with the
same key are one family:

  1. lower case; an OpenAI fine-tune ``ft:BASE:org::id`` is its BASE; a
     provider written before the model (``openai:gpt-4o``, PROVIDER_PREFIXES)
     unless what follows is an Ollama tag (``mistral:7b``)
  2. the route before the last ``/`` (``openai/``, ``meta-llama/``, an ARN,
     ``accounts/fireworks/models/``)
  3. a Vertex version ``@...``; Bedrock's version (``-v2:0``, ``-1:0``); then
     Ollama's tag after ``:`` (a size or quantisation: ``:8b``, ``:latest``,
     ``:70b-q4_K_M``)
  4. Bedrock's region and vendor prefixes (``us.``, ``eu.``, ``apac.``, ...;
     ``anthropic.``, ``meta.``, ...; ``deepseek.r1`` keeps its maker:
     ``deepseek-r1``); a ``.gguf`` file name's extension and quantisation;
     then RELEASES, a point release read as its release (``deepseek-v3.1``
     and ``deepseek-v3-0324`` are ``deepseek-v3``; ``gpt-4-1106-preview`` is
     ``gpt-4-turbo``)
  5. from the end, again and again: ``-latest``, a date (``-2024-08-06``,
     ``-20241022``, ``-0613``, ``-08-2024``, ``-002``; Groq's context length
     ``-8192`` reads as one), a dotted version (``-v0.3``) and a dated preview
     (``-preview-05-06``); a Gemini release's ``-preview`` or ``-exp``
  6. words that name a size or a packaging of one release: a parameter count
     (``8b``, ``70b``, ``270m``, ``8x7b``, ``a3b``), a context length (``32k``:
     ``gpt-4-32k`` is GPT-4), ``instruct``, ``it``,
     ``hf``, ``gguf``, a quantisation (``q4_k_m``, ``fp16``, ``awq``), and the
     maker ``meta`` before ``llama``; in a Llama name also the hosts' serving
     words (HOSTED_LLAMA_WORDS: Groq's ``instant``, ``versatile``, Together's
     ``turbo``, ``lite``) and Fireworks' version spelling (``v3p1`` is 3.1)
  7. everything but letters and digits (``llama-3.1`` = ``llama3-1`` =
     ``llama31``); a Claude name in the maker's order for its version
     (``claude-4.5-sonnet`` is ``claude-sonnet-4-5``, ``claude-sonnet-3.5`` is
     ``claude-3-5-sonnet``: before Claude 4 the version comes first, from 4 on
     the tier); then ALIASES for names the rules above cannot join
     (``deepseek-chat`` is DeepSeek-V3, ``deepseek-reasoner`` DeepSeek-R1).

The family is the key of step 7, e.g. ``gpt4o``, ``claude35sonnet``,
``claudesonnet45``, ``llama31``, ``deepseekv3``; the provider never enters it
(Claude on Bedrock is Claude). A Bedrock ARN that names no model (an
application inference profile, a custom, provisioned or imported model) has
no family a name shows: ``same_family`` calls it ``unknown``, never another
family, so generator != evaluator refuses it; name the model id instead.

Two more readings of a name: ``closed_weights(model)``, a family whose
weights were never published (Claude, GPT-3.5 to GPT-5, o1, o3, o4, Gemini;
not gpt-oss nor Gemma), which no machine of one's own serves, so that such a
name answered from this machine or a private network is a stand-in; and
``served_name(model)``, a model id that is a path of a file (llama.cpp's
server without ``--alias`` reports ``/home/me/models/x.gguf``) reduced to its
file name and marked, so that no folder of the machine is published.

Every pair the tests hold is in tests/test_families.py: ONE_FAMILY (names of
one family, with its key), PAIRS (each pair marked one model or two: word
orders, hosts' spellings, aliases, GGUF files, and their neighbours that
must stay apart) and DIFFERENT (more pairs that must stay apart); each pair
is checked both ways.

Deliberate false refusals (names joined although the weights differ, so a
legitimate cross-evaluation is refused; choose an evaluator of another
family instead):

  - every size of one release is one family (``llama3.1:8b`` and
    ``llama3.1:70b``; ``qwen2.5-coder:1.5b`` and ``:32b``): an Ollama name
    such as ``llama3.1`` does not say which size it is, so a rule that kept
    sizes would let ``llama3.1`` judge ``llama3.1:8b``, the same weights;
  - a host's serving variant is its release (Together's ``-Turbo`` is FP8,
    ``-Lite`` INT4; Groq's ``-instant``, ``-versatile``, ``-specdec``);
  - DeepSeek's V3 point releases are one family (``deepseek-v3``,
    ``-v3-0324``, ``-v3.1``, ``-v3.2``), since ``deepseek-chat`` has named
    each in turn; the R1 releases and R1's distillations are one
    (``deepseek-r1:8b`` is a distillation in Ollama's naming).

Names the maker gives a different model (``gpt-4o-mini``,
``claude-3-5-haiku``, ``o1-preview``, ``qwen2.5-coder`` beside ``qwen2.5``)
are other families; merge more with ALIASES. What it leaves out: an alias
that moves (``deepseek-chat`` and ``deepseek-reasoner`` name the same V3.x
weights since V3.1, in two modes, yet stay V3 and R1 here, as the tests
hold; ``-latest`` names whatever is newest); an imported product
(``--provider manual``) is named by its product, and no rule can see which
model a product runs; nor does it ask any API what a name points to.
"""

import re

# Bedrock's cross-region inference profiles and model vendors, as prefixes.
BEDROCK_REGIONS = ("us", "us-gov", "eu", "apac", "jp", "au", "ca", "global")
BEDROCK_VENDORS = ("anthropic", "meta", "amazon", "mistral", "cohere", "ai21", "deepseek",
                   "writer", "qwen", "openai", "twelvelabs", "stability")
# Vendors whose Bedrock ids leave their name out: ``deepseek.r1-v1:0`` is deepseek-r1.
BEDROCK_KEEP_VENDOR = ("deepseek",)

# The serving words hosts add to a Llama release (step 6): Groq's instant,
# versatile, specdec and preview; Together's turbo (FP8), lite (INT4),
# reference and free; Vertex's maas (model as a service).
HOSTED_LLAMA_WORDS = ("instant", "versatile", "specdec", "preview", "turbo", "lite",
                      "reference", "free", "maas")

# Provider names written before a model as ``provider:model`` (a router's or
# an SDK's spelling, ``openai:gpt-4o``): step 1 reads the model after them.
PROVIDER_PREFIXES = ("openai", "anthropic", "bedrock", "manual", "google", "google-gla",
                     "google-vertex", "vertex", "vertex_ai", "gemini", "azure", "groq", "mistral",
                     "cohere", "deepseek", "ollama", "together", "fireworks", "openrouter", "xai",
                     "huggingface")
# Words of an Ollama tag that are not packaging (``mistral:instruct``).
OLLAMA_TAG_WORDS = ("latest", "instruct", "chat", "text", "code")

# Releases whose every point version is one family (the route stripped):
# deepseek-chat has named each V3 in turn; R1's releases and distillations;
# GPT-4 Turbo's previews (gpt-4-1106-preview, gpt-4-0125-preview) before its
# release, which is another model than GPT-4 (gpt-4, gpt-4-0613).
RELEASES = ((re.compile(r"^deepseek-v3([.-].+)?$"), "deepseek-v3"),
            (re.compile(r"^deepseek-r1(-.+)?$"), "deepseek-r1"),
            (re.compile(r"^deepseek-v2([.-].+)?$"), "deepseek-v2"),
            (re.compile(r"^gpt-4-(\d{4}-preview|turbo-preview|vision-preview)$"), "gpt-4-turbo"))

# Bedrock ARNs that name no model: an application inference profile, a
# custom, provisioned or imported model. Which model answers is known only to
# the account, so no rule can tell it from the other side's (unknowable).
_OPAQUE_ARN = re.compile(r"^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:(application-inference-profile|"
                         r"custom-model|provisioned-model|imported-model)/", re.IGNORECASE)

# Families whose weights their maker has never published: such a model is
# served by its maker's API (or a cloud's), never from a machine of one's own,
# so a name of one answered from this machine or a private network is a
# stand-in (closed_weights). Open-weight neighbours stay out: gpt-oss, Gemma.
_CLOSED = re.compile(r"^(claude|gpt3|gpt4|gpt5|chatgpt|o1|o3|o4|gemini|textdavinci|davinci)")

# A model id that is a path of a file: llama.cpp's server started without
# --alias reports the model by the path it was given (/home/me/models/x.gguf).
_PATH = re.compile(r"^(/|~|\.{1,2}[/\\]|[A-Za-z]:[/\\]|\\\\)")
_MODEL_FILE = re.compile(r"\.(gguf|ggml|bin|safetensors|pt|pth|onnx|llamafile)$", re.IGNORECASE)

# Names of one model that the rules cannot join: key -> family key.
ALIASES = {
    "chatgpt4o": "gpt4o",                # chatgpt-4o-latest: GPT-4o as ChatGPT serves it
    "gpt35turbo16k": "gpt35turbo",       # the long-context variant of one model
    "claude35sonnetv2": "claude35sonnet",  # Vertex's claude-3-5-sonnet-v2@20241022
    "llama2chat": "llama2",              # Llama 2's chat tuning, Ollama's llama2
    "llama3chat": "llama3",
    "deepseekchat": "deepseekv3",        # DeepSeek's API alias of DeepSeek-V3
    "deepseekreasoner": "deepseekr1",    # and of DeepSeek-R1
}

_SUFFIXES = (re.compile(r"-latest$"), re.compile(r"-\d{4}-\d{2}-\d{2}$"),
             re.compile(r"-\d{2}-\d{4}$"), re.compile(r"-\d{8}$"), re.compile(r"-\d{3,4}$"),
             re.compile(r"-v\d+(\.\d+)+$"),
             # a dated preview or experiment of a release: gemini-2.5-pro-preview-05-06
             re.compile(r"-(preview|exp)-(\d{2}-\d{2}|\d{4})$"))
# A Gemini release's preview or experiment, dated or not, is that release.
_GEMINI_PREVIEW = re.compile(r"^(gemini-.+?)-(preview|exp)$")
_PACKAGING = re.compile(r"^(\d+(\.\d+)?[bm]|\d+x\d+(\.\d+)?b|a\d+(\.\d+)?b|instruct|it|hf|gguf"
                        r"|i?q\d(_[0-9a-z]+)*|fp\d+|bf16|f16|f32|int\d|awq|gptq|mlx|\d+bit"
                        r"|\d+k)$")
_FIREWORKS_VERSION = re.compile(r"^v(\d+)(?:p(\d+))?$")  # llama-v3p1: Llama 3.1
# A Claude key in either order: claude45sonnet, claudesonnet45.
_CLAUDE = re.compile(r"^claude(?:(?P<v1>\d+)(?P<t1>sonnet|opus|haiku)"
                     r"|(?P<t2>sonnet|opus|haiku)(?P<v2>\d+))$")


def _strip_bedrock(name):
    """Step 4's region and vendor prefixes, keeping a vendor its ids leave out."""
    while True:
        head, dot, rest = name.partition(".")
        if not (dot and rest and head in BEDROCK_REGIONS + BEDROCK_VENDORS):
            return name
        keep = head in BEDROCK_KEEP_VENDOR and not rest.startswith(head)
        name = f"{head}-{rest}" if keep else rest


def _strip_provider(name):
    """Step 1's provider prefix: ``openai:gpt-4o`` is gpt-4o, while the part
    after an Ollama name's colon is its tag (``mistral:7b``, ``mistral:latest``)."""
    head, colon, rest = name.partition(":")
    if not colon or head not in PROVIDER_PREFIXES or not rest:
        return name
    tag = rest.split(":", 1)[0]
    if tag[0].isdigit() or all(_PACKAGING.match(w) or w in OLLAMA_TAG_WORDS
                               for w in tag.split("-")):
        return name
    return rest


def _strip_route(name):
    """Steps 1-4: what only says where or how the model was reached."""
    if name.startswith("ft:") and name.count(":") >= 2:
        name = name.split(":")[1]
    name = _strip_provider(name)
    name = name.rsplit("/", 1)[-1]
    name = name.split("@", 1)[0]
    name = re.sub(r"-v?\d+:\d+$", "", name)
    name = name.split(":", 1)[0]
    name = _strip_bedrock(name)
    name = re.sub(r"\.gguf$", "", name)
    return re.sub(r"[.-](i?q\d\w*|f16|f32|bf16|fp16)$", "", name)


def _release(name):
    """A name of a point release of RELEASES, as its release."""
    return next((release for pattern, release in RELEASES if pattern.match(name)), name)


def _strip_suffixes(name):
    """Step 5: dates, -latest and dotted versions from the end, again and again."""
    changed = True
    while changed:
        changed = False
        for pattern in _SUFFIXES:
            shorter = pattern.sub("", name)
            if shorter != name and shorter:
                name, changed = shorter, True
    return name


def _hosted_llama(words):
    """A Llama name's words without the hosts' serving words, with Fireworks'
    ``v3p1`` read as ``3.1``."""
    kept = [w for w in words if w not in HOSTED_LLAMA_WORDS] or words
    versions = (_FIREWORKS_VERSION.match(w) for w in kept)
    return [w if m is None else ".".join(p for p in m.groups() if p) for w, m in zip(kept, versions)]


def _strip_version(name):
    """Steps 5-6: snapshot dates, versions, sizes and packaging words."""
    name = _strip_suffixes(name)
    name = _GEMINI_PREVIEW.sub(r"\1", name)
    words = [w for w in name.split("-") if not _PACKAGING.match(w)] or [name]
    if len(words) > 1 and words[0] == "meta" and words[1].startswith("llama"):
        words = words[1:]
    if words[0].startswith("llama"):
        words = _hosted_llama(words)
    return "-".join(words)


def _claude_order(key):
    """A Claude key in the maker's order for its version: the version first
    before Claude 4 (claude35sonnet), the tier first from 4 on (claudesonnet45)."""
    found = _CLAUDE.match(key)
    if found is None:
        return key
    version, tier = found["v1"] or found["v2"], found["t1"] or found["t2"]
    return f"claude{tier}{version}" if int(version[0]) >= 4 else f"claude{version}{tier}"


def family(model):
    """The family key of a model name (see the module's docstring)."""
    name = _strip_version(_release(_strip_route(str(model).strip().lower())))
    key = re.sub(r"[^a-z0-9]", "", name) or re.sub(r"[^a-z0-9]", "", str(model).lower())
    key = _claude_order(key)
    return ALIASES.get(key, key)


def split_variant(variant):
    """``(provider, model)`` of a ``provider:model`` name (evalkit.scenario.atoms.variant_of);
    the model keeps its own colons (``openai:llama3.1:8b``) and loses the
    ``+corpus`` of a generator given the code's passages."""
    provider, _colon, model = str(variant).partition(":")
    return provider, model.removesuffix("+corpus")  # the model, whatever it was given


def unknowable(model):
    """Why no rule can tell the family of ``model`` (a Bedrock ARN that names
    no model), or None."""
    if _OPAQUE_ARN.match(str(model).strip()):
        kind = str(model).strip().split(":")[5].split("/")[0]
        return f"{kind.replace('-', ' ')}: an ARN that names no model"
    return None


def same_family(model_a, model_b):
    """The family both belong to, or None when they are of different families.
    A name whose family is unknowable is never of another family: it is
    ``unknown (why)``, so that generator != evaluator refuses it."""
    why = unknowable(model_a) or unknowable(model_b)
    if why:
        return f"unknown: {why}"
    a, b = family(model_a), family(model_b)
    return a if a == b else None


def closed_weights(model):
    """True when ``model`` is of a family whose weights were never published
    (Claude, GPT-3.5 to GPT-5, o1, o3, o4, Gemini): no machine of one's own
    serves it."""
    return bool(_CLOSED.match(family(model)))


def served_name(model):
    """``(name, reduced)`` of a model id a server reported: a path of a file
    (``/home/me/models/qwen.gguf``, ``C:\\models\\qwen.gguf``, ``./qwen.gguf``,
    ``models/qwen.gguf``) is reduced to its file name (``qwen.gguf``), so that
    no folder of the machine that ran is ever published, and ``reduced`` is
    True; any other name (``meta-llama/Llama-3.1-8B``, an ARN) is kept."""
    if not isinstance(model, str):
        return model, False
    if not (_PATH.match(model) or "\\" in model or ("/" in model and _MODEL_FILE.search(model))):
        return model, False
    return re.split(r"[/\\]", model.rstrip("/\\"))[-1] or "(a folder)", True

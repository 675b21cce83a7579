"""What a raw or atoms line says about its own run, held to what it holds.

A line records the settings that shaped its replies and the replies as
received; score.py refuses (``file:line: what``) a line whose record
disagrees with itself, so that a result re-scored by reproduce.py cannot
claim another run than the one it holds:

  settings      an atoms line's ``settings`` block (atomize.py): exactly
                json_mode, max_tokens, temperature, context and prompt, each
                of its kind; json_mode one its provider has (JSON_MODES);
                the prompt the evaluator block names; the context what its
                lookups were (none: no lookups; passages: passages asked
                for; tools: tools, or passages because the server took none)
  token limit   no call's reported output tokens over the max_tokens it was
                sent with (an atoms line's settings, a raw line's request)
  wire format   every reply body in a provider's wire format is in its own
                provider's (responses.reply_format): an OpenAI body under
                provider anthropic was not answered by Anthropic's API
  served model  the model the line says its server reported is the one the
                last reply body names (a path reduced as families.served_name
                reduces it); a body that names none (Bedrock) says nothing

An atoms line written before settings were recorded has none, and is read
as it is: its settings are "not recorded" on the pages.
"""

from .. import BadInput
from ..families import served_name
from ..fields import check, shown
from ..responses import parse_received, reply_format

JSON_MODES = {"openai": ("json_object", "json_schema", "none"),
              "anthropic": ("forced_tool",), "bedrock": ("forced_tool", "none")}
SETTINGS = {"json_mode": ("json_object", "json_schema", "none", "forced_tool"),
            "max_tokens": "count", "temperature": "number|null",
            "context": ("tools", "passages", "none"), "prompt": "text"}
# Why atomize.py --passages gave the passages (evalkit/asking/evallookup.py).
PASSAGES_ASKED = "asked for (--passages)"


def body_of(text):
    """A recorded body parsed, or None when it is not a JSON object."""
    if not isinstance(text, str):
        return None
    try:
        doc = parse_received(text)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def check_settings(line, where):
    """Refuse an atoms line whose settings disagree with it (the docstring)."""
    settings = line.get("settings")
    if settings is None:
        return
    check(settings, SETTINGS, f"{where}: settings")
    provider = line["evaluator"]["provider"]
    if settings["json_mode"] not in JSON_MODES.get(provider, ()):
        raise BadInput(f"{where}: settings.json_mode {settings['json_mode']} is not one of "
                       f"{provider}'s: not an atoms line of its evaluator")
    if settings["prompt"] != line["evaluator"]["prompt"]:
        raise BadInput(f"{where}: settings.prompt {shown(settings['prompt'])} is not the "
                       f"evaluator's prompt {shown(line['evaluator']['prompt'])}")
    lookups = line.get("lookups")
    got = "none" if lookups is None else "tools" if lookups["mode"] == "tools" else \
        "passages" if lookups.get("why") == PASSAGES_ASKED else "tools"
    if settings["context"] != got:
        raise BadInput(f"{where}: settings.context {settings['context']}, but the lookups say "
                       f"{'none were made' if lookups is None else lookups['mode']}")
    for index, call in enumerate(line.get("calls") or []):
        over = over_the_limit(call.get("usage"), settings["max_tokens"])
        if over:
            raise BadInput(f"{where}: calls[{index}]: {over} (settings.max_tokens)")


def over_the_limit(usage, limit):
    """Why a call's reported usage passes the token limit it was sent with, or None."""
    tokens = usage.get("output_tokens") if isinstance(usage, dict) else None
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > limit:
        return f"{tokens} output tokens reported, over the {limit} the call was sent with"
    return None


def check_replies(bodies, provider, served, where, who):
    """Refuse replies (``[(place, body text)]``) in another provider's wire
    format than ``provider``, or whose last model named is not ``served``."""
    named = None
    for place, text in bodies:
        doc = body_of(text)
        found = reply_format(doc)
        if found is None:
            continue  # an error body, or no reply of any provider's
        if found != provider:
            raise BadInput(f"{where}: {place} is a reply in {found}'s wire format, but "
                           f"{who}'s provider is {provider}: not a reply of its provider")
        model = doc.get("model")
        named = served_name(model)[0] if isinstance(model, str) and model else named
    if named is not None and served is not None and named != served:
        raise BadInput(f"{where}: the server reported {shown(named)}, not {shown(served)} as "
                       "the line says")


def check_atoms_line(line, where):
    """An atoms line's settings, token limits, wire formats and served model."""
    check_settings(line, where)
    bodies = [(f"calls[{n}].reply", call.get("reply"))
              for n, call in enumerate(line.get("calls") or [])]
    check_replies(bodies, line["evaluator"]["provider"], line.get("served_model"), where,
                  "the evaluator")


def check_raw_line(line, where):
    """A model's raw line: its token limit, its body's wire format and model."""
    target = line["target"]
    if target.get("kind") != "model":
        return
    request, response = line.get("request") or {}, line.get("response") or {}
    limit = request.get("max_tokens")
    if isinstance(limit, int) and not isinstance(limit, bool):
        over = over_the_limit(line.get("usage"), limit)
        if over:
            raise BadInput(f"{where}: {over} (request.max_tokens)")
    check_replies([("response.body", response.get("body"))], target.get("provider"),
                  response.get("model"), where, "the generator")

"""Model providers over evalkit.asking.http: one call shape for every API.

    reply = providers.get("anthropic", environ).call(Request(
        system="...", user="...", schema={...}, model="...", max_tokens=2000))

``Request``: system text, user text, an optional JSON schema for the reply,
model, max tokens, temperature (None: not sent, since some current models
reject any temperature), timeout; ``client.settings(request)`` is what of it
shapes a reply, as lines record it (json_mode, max_tokens, temperature). ``Reply``: text, data (the parsed JSON when
a schema was given and the reply parsed, else None), usage (messages.usage_record:
tokens in, out, cached, read from each API's own fields, with the API's usage
object as received, or ``reported: false``), the raw response body (a model id that is a path of a file written as the
file's name: base.without_model_path), the model the API reports (the same
name, ``model_reduced`` True), every attempt, and ``truncated`` (True when
the reply stopped at the token limit: OpenAI's ``finish_reason: length``,
Anthropic's and Bedrock's ``max_tokens``).

Built in: ``openai`` (also Ollama, vLLM, llama.cpp's server and LM Studio
through OPENAI_BASE_URL), ``anthropic`` (Messages API), ``bedrock`` (Converse
API, SigV4-signed) and ``manual`` (answers collected by hand; see manual.py).
Retries follow ``retry.Policy``; a client's ``meter`` and ``limiter``
(evalkit/asking/budget.py) count the run's calls and hold each attempt to its rate
limits and calls in flight. A failure raises ``ProviderError``: one line
with provider, status, the provider's error type and message, the URL tried
and, where recognisable, the fix; never a secret. ``FatalProviderError`` (a
subclass, ``fatal`` True) is one every call of the run would meet: the key or
credentials refused (401, 403), a model the provider says does not exist, a
wrong URL or JSON mode, a key or URL holding what HTTP cannot carry (a line
break, say: a key pasted from a file; refused when the client is made,
before anything is sent, naming the variable, never its value). It is never
retried; a caller should stop the run. Messages and recorded attempts never
hold a key, in any form (evalkit/redaction.py).

``client.call_with_tools(request, tools, run_tool, max_rounds=MAX_ROUNDS)``
answers a request after the model's lookups (openai, anthropic, bedrock):
a ``ToolReply`` (a Reply with ``exchange`` and ``rounds``), or
``ToolsUnsupported`` (a ProviderError, not fatal) when the model or server
takes no tools, for the caller to fall back on; see toolloop.py.
"""

from ...families import served_name
from .anthropic import Anthropic
from .base import FatalProviderError, ProviderError  # noqa: F401
from .messages import Reply, Request  # noqa: F401
from .bedrock import Bedrock
from .openai import OpenAI
from .retry import Policy  # noqa: F401
from .toolloop import MAX_ROUNDS, ToolReply, ToolsUnsupported  # noqa: F401

NAMES = ("openai", "anthropic", "bedrock", "manual")
PROVIDER_VARS = ("BENCH_PROVIDER", "PERMIT_AI_PROVIDER")
MODEL_VARS = ("BENCH_MODEL", "PERMIT_AI_MODEL")


def resolve(provider, model, environ, default=None):
    """``(provider, model)`` from flags, then BENCH_*, then PERMIT_AI_*, then
    ``default`` (a ``(provider, model)`` pair) when neither is configured.

    Raises ProviderError (the caller exits 2) when none is configured, or
    when the model is named by a path of a file (families.served_name),
    which every line and result would publish."""
    for var in PROVIDER_VARS:
        provider = provider or environ.get(var) or None
    for var in MODEL_VARS:
        model = model or environ.get(var) or None
    if not provider and not model and default:
        provider, model = default
    if not provider:
        raise ProviderError("no provider configured: pass --provider or set BENCH_PROVIDER "
                            f"({', '.join(NAMES)})")
    if provider not in NAMES:
        raise ProviderError(f"unknown provider {provider!r} (known: {', '.join(NAMES)})")
    if not model and provider != "manual":
        raise ProviderError(f"no model configured for {provider}: pass --model or set BENCH_MODEL")
    name, is_path = served_name(model)
    if is_path:  # it would be sent, recorded and published as written
        raise ProviderError(f"the model is named by a path of a file (.../{name}), which every "
                            "result would publish: name the model (llama.cpp's server: start it "
                            "with --alias NAME and pass NAME)")
    return provider, model


def get(name, environ, policy=None):
    """A configured provider client; ProviderError when its settings are missing."""
    if name == "openai":
        return OpenAI(environ, policy)
    if name == "anthropic":
        return Anthropic(environ, policy)
    if name == "bedrock":
        return Bedrock(environ, policy)
    raise ProviderError(f"provider {name!r} cannot be called (manual answers are imported "
                        "with run.py --provider manual --from FILE)")


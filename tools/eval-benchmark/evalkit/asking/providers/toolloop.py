"""A model that looks things up before it answers: the tool loop of every provider.

    reply = client.call_with_tools(request, lookups.TOOLS, lookups_obj.call)

sends ``request`` with the tools (each provider in its own wire format), runs
every tool call the model makes through ``run_tool(name, arguments) -> text``
(several calls in one round are run in the order the model made them), sends
each text back exactly as ``run_tool`` returned it, and asks again until the
model answers without a lookup. The final reply is read as the plain ``call``
reads it: with a schema, ``data`` is the answer in that format (Anthropic
and Bedrock: a call of the answer tool ``request.schema_name``, offered
beside the lookups, which the model must call to finish; OpenAI-compatible:
the JSON text of ``response_format``, asked for only in a round where no
tool can be called: a model asked for JSON while offered tools writes its
"call" as JSON text, as Qwen2.5 on llama.cpp's server did every time; an
answer given in a round offered tools that is not the JSON asked for gets one
more round with no tool to call and the format asked for).

The ``ToolReply`` returned is a ``Reply`` whose ``usage`` is summed over
every round (``reported`` only when every round reported; else the numbers
are null, never guessed, and each round's own usage is in the exchange),
``attempts`` those of every round in order, ``raw`` the last response body,
and ``exchange`` one record per round, in order::

    {"round": 1, "request": <the body sent>, "attempts": [...],
     "reply": <the response body as received>, "usage": {...},
     "tool_calls": [{"id", "name", "input", "result", "error"}]}

(``error`` is None, or why the call was answered with an error without
running it; ``given_id``, only when the loop sent the call back under an id
of its own, is the id the model gave, perhaps none.) ``rounds`` is the
number of requests made.

Bounds: at most ``max_rounds`` requests (``MAX_ROUNDS`` by default), each
one model call through the client's retries, meter and limiter. The last
one tells the model to answer now: a line after the tool results, and the
provider's own forcing (Anthropic and Bedrock: the answer tool, or
Anthropic's ``tool_choice: none`` without a schema; OpenAI-compatible:
``tool_choice: "none"``). A model that calls a lookup even then gets no
answer: the reply has ``data`` None and ``problem`` saying so. A malformed
call (no name, arguments that are not a JSON object) is answered to the
model with an error result and the loop goes on (OpenAI-compatible: the
history sent back carries ``{}`` for such arguments, since vLLM, llama.cpp
and SGLang answer a history holding them with HTTP 400; the exchange keeps
what the model sent); a call of an unknown tool
is given to ``run_tool``, whose error text the model gets. Each call goes
back under one id of its own (``own_ids``: the model's, or the loop's when
the model gave none or one an earlier call has), in the history and in its
result alike, and the history is rebuilt by position, never looked up by id.

``ToolsUnsupported`` (a ProviderError, not fatal) is raised when the model
or server cannot take tools: a Bedrock model without forced ``toolChoice``
(decided before anything is sent), a Bedrock ValidationException that says
the model does not support tool use, an OpenAI-compatible server that says
so (Ollama's "does not support tools", vLLM's "tool choice requires
--enable-auto-tool-choice", llama.cpp's "tools param requires --jinja").
The caller then puts the retrieved passages in the prompt instead. Any
ProviderError raised mid-loop carries ``exchange``, the rounds so far.

What it does not do: run the tools (``run_tool`` does, and records them),
decide what the tools are, or stream.
"""

import copy
import json

from ...responses import parse_received
from .messages import Reply, count_or_zero, usage_record
from .errors import ProviderError

# Enough for a search and a read or two on each of a few topics; a model that
# keeps looking is told to answer well before it costs much. lookups.py's own
# bound (MAX_LOOKUPS calls) still holds inside it.
MAX_ROUNDS = 8
NOT_A_CALL = object()  # resent: a block of the turn that is no tool call
ANSWER_NOW = ("That was your last lookup: no more tool calls are possible. "
              "Give your final answer now, in the format asked for.")


class ToolsUnsupported(ProviderError):
    """The model or server cannot take tools: fall back to putting the
    retrieved passages in the prompt. Not fatal; ``exchange`` holds the
    rounds made before it (none when decided before sending)."""

    def __init__(self, message, attempts=(), status=None, raw=None):
        super().__init__(message, attempts, status, raw)
        self.exchange = []


class ToolReply(Reply):
    def __init__(self, reply, exchange):
        super().__init__(reply.text, reply.data, summed_usage(exchange),
                         reply.raw, [a for r in exchange for a in r["attempts"]], reply.model,
                         reply.stop, reply.problem, reply.truncated, reply.model_reduced)
        self.exchange = exchange     # one record per round, in order (see above)
        self.rounds = len(exchange)  # requests made


def run(client, req, tools, run_tool, max_rounds=MAX_ROUNDS):
    """The loop; ``client`` is an OpenAI, Anthropic or Bedrock client. A
    ProviderError raised in it carries ``exchange``, the rounds made."""
    if not isinstance(max_rounds, int) or max_rounds < 1:
        raise ValueError("max_rounds must be a whole number of at least 1")
    client.check_tools(req)
    exchange = []
    try:
        return rounds(client, req, client.tools_body(req, tools), run_tool, max_rounds, exchange)
    except ProviderError as exc:
        if not isinstance(exc, ToolsUnsupported):
            exc.exchange = exchange
        raise


def rounds(client, req, body, run_tool, max_rounds, exchange):
    """Ask, run the lookups asked for, send their results, until an answer
    or the last round; each round appended to ``exchange`` as it ends."""
    used = set()  # every call id sent back so far (own_ids)
    while True:
        number = len(exchange) + 1
        if number == max_rounds:
            client.force_answer(body, req)
        doc, raw, attempts, usage = send(client, req, body, exchange)
        record = {"round": number, "request": copy.deepcopy(body), "attempts": attempts,
                  "reply": raw, "usage": usage, "tool_calls": []}
        exchange.append(record)
        calls = own_ids(client.tool_calls(req, doc), used, number)
        if not calls and number < max_rounds and client.unreadable_answer(req, doc):
            # Its answer came in a round offered tools, where a JSON-only
            # reply cannot be asked for: ask once more with no tool to call.
            client.ask_for_answer(body, doc, ANSWER_NOW)
            client.force_answer(body, req)
            continue
        if not calls or number == max_rounds:
            return ToolReply(final_reply(client, req, doc, raw, attempts, usage, calls,
                                         max_rounds), exchange)
        record["tool_calls"] = [answered(call, run_tool) for call in calls]
        note = ANSWER_NOW if number + 1 == max_rounds else None
        client.add_results(body, doc, record["tool_calls"], note)


def final_reply(client, req, doc, raw, attempts, usage, calls, max_rounds):
    """The last round's Reply, read as the plain call reads it; no answer
    when the model called a lookup even then (its calls are not run)."""
    reply = client.reply_of(req, doc, raw, attempts, usage)
    if not calls:
        return reply
    return Reply("", None, usage, raw, attempts, reply.model, reply.stop,
                 f"no answer: the model still called tools in round {max_rounds}, the last "
                 "allowed (max_rounds)", reply.truncated, reply.model_reduced)


def send(client, req, body, exchange):
    """One round through the client's retries; a refusal of the tools in the
    first round is ToolsUnsupported."""
    url = client.url_for(req.model)
    try:
        return client.post(url, client.headers, body, req.timeout)
    except ProviderError as exc:
        if client.tools_refused(exc) and not exchange:
            raise ToolsUnsupported(f"{exc}; the caller falls back to passages in the prompt",
                                   exc.attempts, exc.status, exc.raw) from None
        raise


def own_ids(calls, used, number):
    """``calls`` (of round ``number``), each with the id the loop sends it
    back under: the model's own when it gave one that no earlier call of the
    loop has, else the loop's own, ``call_<round>_<position>`` (a server may
    send a call without an id, or two calls under one: Gemini's
    OpenAI-compatible endpoint, llama.cpp's server, some proxies), with the
    id the model gave kept as ``given_id``. The history is sent back by
    position with these ids (each provider's ``add_results``), so that every
    result answers its own call and no two results share an id."""
    for position, call in enumerate(calls):
        given = call["id"]
        if not isinstance(given, str) or not given.strip() or given in used:
            mine = f"call_{number}_{position}"
            while mine in used:
                mine += "_"
            call["id"], call["given_id"] = mine, given
        used.add(call["id"])
    return calls


def resent(blocks, calls, id_of, renamed):
    """An assistant turn's ``blocks`` as the history sends them back: the
    n-th call among them (``id_of(block)``: its id, or ``NOT_A_CALL``) under
    the id of ``calls[n]`` (``renamed(block, id)``); every other block, and a
    call already under its id, as received."""
    ids = iter(call["id"] for call in calls)
    out = []
    for block in blocks:
        given = id_of(block)
        if given is not NOT_A_CALL:
            call_id = next(ids)
            block = block if given == call_id else renamed(block, call_id)
        out.append(block)
    return out


def answered(call, run_tool):
    """A call with its ``result`` (the text the model is given) and ``error``;
    ``given_id``, the model's id, when the loop sent it back under its own."""
    out = {"id": call["id"], "name": call["name"], "input": call["input"],
           "result": None, "error": call["problem"]}
    if "given_id" in call:
        out["given_id"] = call["given_id"]
    if call["problem"] is None:
        out["result"] = run_tool(call["name"], call["input"])
    else:
        out["result"] = json.dumps({"error": call["problem"]}, ensure_ascii=False)
    return out


def parsed_arguments(arguments, as_text):
    """``(object, None)`` or ``(None, problem)`` of a call's arguments: a JSON
    text when ``as_text`` (OpenAI-compatible servers), else an object."""
    if as_text and isinstance(arguments, str):
        try:
            arguments = parse_received(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):
            return None, "the arguments are not JSON: send one JSON object"
    if not isinstance(arguments, dict):
        return None, "the arguments are not a JSON object: send one JSON object"
    return arguments, None


def checked_call(call_id, name, arguments, as_text=False):
    """A tool call as the loop runs it: ``{id, name, input, problem}``."""
    if not isinstance(name, str) or not name.strip():
        return {"id": call_id, "name": None, "input": None,
                "problem": "the tool call has no name: call one of the tools by its name"}
    data, problem = parsed_arguments(arguments, as_text)
    return {"id": call_id, "name": name, "input": data if problem is None else arguments,
            "problem": problem}


def summed_usage(exchange):
    """The usage of every round added up; not reported when one round was not."""
    usages = [r["usage"] for r in exchange]
    if not usages or not all(u and u.get("reported") for u in usages):
        return usage_record(None, None, None)
    total = {k: sum(count_or_zero(u.get(k)) for u in usages)
             for k in ("input_tokens", "output_tokens", "cached_input_tokens",
                       "cache_write_input_tokens")}
    return usage_record(None, total["input_tokens"], total["output_tokens"],
                        total["cached_input_tokens"], total["cache_write_input_tokens"])

"""The shared call shape and one JSON POST with retries."""

import json
import re
import sys
import time

from .. import budget, http
from ... import cli, redaction
from ...families import served_name
from ...responses import parse_received
from . import retry
from . import toolloop
from .errors import (CallInterrupted, FatalProviderError, Failure, ProviderError, fold,  # noqa: F401
                     shown_url)
from .messages import count_or_zero, usage_record
from .retry import Policy


# Shapes of keys that must never reach a message, even when an API echoes them.
_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|sk-ant-[A-Za-z0-9_\-]{6,}|A[SK]IA[0-9A-Z]{12,})")
# A call that waits longer than this without a word says so on stderr: what
# it met, how long it has spent of the time it may take, when it tries again.
SAY_EVERY = 30.0


def redact(text, secrets):
    """``text`` without any of ``secrets`` in any form or escape
    (redaction.redact), nor anything shaped like a key, nor a URL's
    user:password."""
    text = _KEYLIKE.sub("[redacted]", redaction.redact(str(text), secrets))
    return redaction.redact_userinfo(text)  # a hint may quote a base URL whole


class CallClock:
    """The time of one call, as ``max_total_s`` counts it: since it
    started, less the time the limiter held its attempts behind other calls
    and the run's rates (``queued``; budget.Ticket: of a ticket's wait,
    ``own_s``, the pace after the call's own previous request, is the
    call's). ``said``: when stderr last heard of the call, ``heard``
    whether it did. The object is also the call's identity for the
    limiter."""

    def __init__(self, clock):
        self.clock = clock
        self.start = self.said = clock()
        self.queued = 0.0
        self.heard = False

    def spent(self):
        return self.clock() - self.start - self.queued


class Client:
    """A provider: ``name``, ``secrets`` (to redact), ``policy``; subclasses
    build the request and read the reply (``usage_of`` reads the API's usage
    fields). ``sleep`` and ``say`` (a line for stderr) can be replaced, so
    tests need not wait. ``meter`` counts the run's calls and tokens, and
    ``limiter`` (None: none), holds each attempt until the run's rate limits
    and calls in flight allow it (budget.py); a script gives every client of
    a run the same ones."""

    name = "?"
    key_hint = "check the credentials"
    obeys_should_retry = True  # x-should-retry: both the OpenAI and Anthropic SDKs obey it

    def __init__(self, environ, policy=None):
        self.environ = environ
        self.policy = policy or Policy()
        self.secrets = []
        self.sleep = http.pause  # a retry's wait, which Ctrl-C ends
        self.say = _to_stderr
        self.meter = budget.Meter()
        self.limiter = None

    def call_with_tools(self, req, tools, run_tool, max_rounds=None):
        """``req`` answered after the model's lookups: a toolloop.ToolReply
        (the final Reply, with ``exchange`` and ``rounds``), or
        toolloop.ToolsUnsupported to fall back on. See toolloop.py."""
        return toolloop.run(self, req, tools, run_tool,
                            toolloop.MAX_ROUNDS if max_rounds is None else max_rounds)

    def tools_refused(self, exc):
        """True when ``exc`` says the server or model takes no tools."""
        return False

    def json_mode_of(self, req):
        """How a JSON reply to ``req`` is held to its format (None: no schema,
        no JSON asked for): ``json_schema`` or ``json_object`` (OpenAI's
        response_format), ``forced_tool`` (a tool the model must call), or
        ``none`` (asked for in the prompt only)."""
        return None if req.schema is None else "none"

    def settings(self, req):
        """The settings of ``req`` that shape a reply, as a line records them:
        json_mode, max_tokens, temperature (None: not sent, the server's own)."""
        return {"json_mode": self.json_mode_of(req), "max_tokens": req.max_tokens,
                "temperature": req.temperature}

    def unreadable_answer(self, req, doc):
        """True when a round that called no tool answered outside the format
        asked for, because that round could not ask for it (openai.py)."""
        return False

    def usage_of(self, doc):
        """The usage_record of a success body."""
        return usage_record(None, None, None)

    def error_of(self, status, headers, body):
        """The provider's reading of an error response, as a ``Failure``."""
        return Failure(message=fold(body) or None)

    def failure_of(self, status, headers, body):
        """``error_of``, then what holds for every provider: 401 and 403 are
        fatal, x-should-retry decides where obeyed, then the status."""
        failure = self.error_of(status, headers, body)
        if failure.fatal is None:
            failure.fatal = status in (401, 403)
            if failure.fatal and not failure.hint:
                failure.hint = self.key_hint
        if failure.fatal:
            failure.retryable = False
            return failure
        said = retry.should_retry_header(headers) if self.obeys_should_retry else None
        if said is not None:
            failure.retryable = said
        elif failure.retryable is None:
            failure.retryable = status in (408, 409, 429) or status >= 500
        return failure

    def where(self, url):
        return f"POST {shown_url(url)}"

    def refuse_unsendable(self, variable, value, place=None, url=False):
        """A FatalProviderError, before anything is sent, when ``value`` (of
        the environment variable ``variable``) holds what ``place`` (a
        header, "the URL"; None: the value is only signed with) cannot carry;
        the message names the place and the variable, never the value."""
        if not value:
            return
        problem = http.url_problem(value) if url else \
            http.header_problem(value) if place else http.control_problem(value)
        if problem:
            where = f"{place} holds {problem} (from {variable})" if place else \
                f"{variable} holds {problem}"
            raise FatalProviderError(f"{self.name}: {where}: check the variable")

    def post(self, url, headers_for_attempt, body_obj, timeout):
        """POST JSON with retries; ``(document, raw text, attempts, usage)``.

        Counted by the meter (budget.CallLimitReached past --max-calls, before
        anything is sent); each attempt waits for the limiter first, and
        records that wait as ``waited_ms``."""
        self.meter.admit()
        data = json.dumps(body_obj, ensure_ascii=False).encode("utf-8")
        estimate = len(data) // 4  # a rough count of the prompt's tokens, for --tpm
        attempts = []
        rng = self.policy.rng()
        call = CallClock(time.monotonic)
        try:
            while True:
                doc, raw, usage, wait = self.attempt(url, headers_for_attempt, data, timeout,
                                                     estimate, attempts, rng, call)
                if wait is None:
                    self.meter.ended(usage)
                    return doc, raw, attempts, usage
                self.say_waiting(url, attempts, wait, call)
                self.sleep(wait.seconds)
        except ProviderError as exc:
            self.meter.ended(None)
            if call.heard:  # stderr heard it was waiting: it hears the end too
                self.say(str(exc))
            raise
        except http.Interrupted:  # Ctrl-C came before the next attempt went
            self.meter.ended(None)
            raise self.interrupted(url, attempts) from None

    def attempt(self, url, headers_for_attempt, data, timeout, estimate, attempts, rng, call):
        """One attempt: ``(document, raw, usage, None)`` on success, ``(..., wait)``
        to try again; a ProviderError when not. ``call``: the call's CallClock."""
        sent_headers = headers_for_attempt(url, data)
        unsendable = http.request_problem(url, sent_headers)
        if unsendable:  # the same for every attempt and call: never sent, never retried
            raise FatalProviderError(redact(f"{self.name}: {unsendable}; nothing was sent "
                                            f"({self.where(url)})", self.secrets), attempts)
        ticket = self.limiter.acquire(estimate, call) if self.limiter else None
        waited = ticket.waited_s if ticket else 0.0
        call.queued += waited - (ticket.own_s if ticket else 0.0)
        throttled, tokens = False, None
        try:
            attempt, response = http.send("POST", url, sent_headers, data, timeout,
                                          self.policy.max_bytes, self.secrets)
            attempt["waited_ms"] = round(waited * 1000)
            attempts.append(attempt)
            status = response["status"] if response else None
            throttled = status == 429
            raw = http_text(response)
            if status == 200 and raw is not None:
                doc, usage, tokens = self.read_success(url, status, raw, attempts)
                return doc, without_model_path(raw, doc), usage, None
        finally:
            if ticket is not None:
                self.limiter.release(ticket, throttled, tokens)
            self.meter.attempt(throttled, waited)
        if response is None and attempt["error"] == "interrupted":
            raise self.interrupted(url, attempts)
        failure, wait = self.failure_and_wait(response, status, raw, attempts, rng)
        why_not = self.why_not_again(failure, wait, attempts, call.spent())
        attempt["retry_in_s"] = None if why_not is not None else round(wait.seconds, 3)
        if why_not is not None:
            raise self.error(url, attempt, failure, why_not, attempts, raw)
        return None, None, None, wait

    def read_success(self, url, status, raw, attempts):
        """``(document, usage, tokens)`` of an HTTP 200 body; ``tokens`` (for
        the limiter) is None when the API reported no usage."""
        try:
            doc = parse_received(raw)
        except (ValueError, RecursionError):
            raise ProviderError(f"{self.name}: HTTP 200 but the body is not JSON "
                                f"({self.where(url)})", attempts, status, raw) from None
        usage = self.usage_of(doc if isinstance(doc, dict) else {})
        tokens = None
        if usage["reported"]:
            tokens = count_or_zero(usage["input_tokens"]) + count_or_zero(usage["output_tokens"])
        return doc, usage, tokens

    def failure_and_wait(self, response, status, raw, attempts, rng):
        """``(Failure, wait)`` of an attempt that failed: no response at all
        is retried; ``wait`` (retry.plan) is None when it is not retryable."""
        failure = Failure(retryable=True, fatal=False) if response is None else \
            self.failure_of(status, response["headers"], raw or "")
        headers = response["headers"] if response else {}
        wait = retry.plan(self.policy, len(attempts), headers, rng) \
            if failure.retryable else None
        return failure, wait

    def interrupted(self, url, attempts):
        """The CallInterrupted of a call Ctrl-C cut, with what it sent."""
        return CallInterrupted(f"{self.name}: interrupted ({self.where(url)})", attempts)

    def long_wait_line(self, url, status, wait):
        return (f"{self.name}: HTTP {status}: the server asks to wait {wait.asked:g} s, over the "
                f"usual {self.policy.retry_after_cap:g} s; waiting as asked (at most "
                f"{self.policy.retry_after_max:g} s) ({self.where(url)})")

    def say_waiting(self, url, attempts, wait, call):
        """A line on stderr before a retry's wait that is over the usual
        cap (``long_wait_line``), or that would leave the call SAY_EVERY
        seconds or more without a word: a call meeting only 429s takes
        minutes, and a run that says nothing meanwhile looks hung."""
        last = attempts[-1]
        if wait.long:
            line = self.long_wait_line(url, last["status"], wait)
        elif call.clock() + self.next_gap(wait) - call.said >= SAY_EVERY:
            what = f"HTTP {last['status']}" if last["status"] else last["error"]
            line = (f"{self.name}: {what} on attempt {len(attempts)}, "
                    f"{call.spent():.0f} s spent of the {self.policy.max_total_s:g} s one call "
                    f"may take; trying again in {self.next_gap(wait):.1f} s "
                    f"({self.where(url)})")
        else:
            return
        call.said, call.heard = call.clock(), True
        self.say(redact(line, self.secrets))

    def next_gap(self, wait):
        """The least time before the next attempt goes: the retry's wait,
        or the limiter's pace when that is longer (it is counted against the
        call when the call retries alone, which is what is assumed)."""
        return max(wait.seconds, self.limiter.pace if self.limiter else 0.0)

    def why_not_again(self, failure, wait, attempts, spent):
        """None to try again, else the note for the message ("" for none).

        With a limiter (every script's run has one: budget.account), a 429
        is not one of the policy's ``max_attempts``: it says the run is over
        the provider's rate, which the limiter answers by slowing down, not
        that the call fails. Such a call is bounded by time instead:
        ``max_total_s`` of its attempts, of the waits the server asked for
        (or the backoff) and of the pace that held it after its own previous
        attempt; ``spent`` (CallClock) leaves out only the time the limiter
        held it behind other calls and the run's rates (the run's own queue,
        as long as its calls divided by its rate). The next attempt is not
        made when the time until it goes (``next_gap``) would pass
        ``max_total_s``, so a call ends within it."""
        if not failure.retryable:
            return ""
        if wait.refused:
            return (f"not retried: the server asks to wait {wait.asked:g} s, over the longest "
                    f"wait of {self.policy.retry_after_max:g} s; try again later")
        throttled = sum(a["status"] == 429 for a in attempts) if self.limiter else 0
        tries = len(attempts) - throttled
        if tries >= self.policy.max_attempts:
            return f"gave up after {tries} attempts" + \
                (f" besides {throttled} answered 429" if throttled else "")
        gap = self.next_gap(wait)
        if spent + gap > self.policy.max_total_s:
            return (f"gave up after {len(attempts)} attempts"
                    f"{f' ({throttled} answered 429)' if throttled else ''}: waiting "
                    f"{round(gap, 1):g} s more would pass the {self.policy.max_total_s:g} s "
                    "one call may take")
        return None

    def error(self, url, attempt, failure, note, attempts, raw):
        """The ProviderError (fatal or not) of a call that is not tried again."""
        status = attempt["status"]
        what = f"HTTP {status}" if status else attempt["error"]
        if status and attempt["error"] and not attempt["error"].startswith("HTTP"):
            what += f", {attempt['error']}"  # a body over the size cap, say
        detail = ": ".join(str(x) for x in (failure.kind, failure.message) if x)
        text = (f"{self.name}: {what}{': ' + detail if detail else ''} "
                f"({self.where(url)}{'; ' + note if note else ''})"
                f"{'; ' + failure.hint if failure.hint else ''}")
        kind = FatalProviderError if failure.fatal else ProviderError
        return kind(redact(text, self.secrets), attempts, status, redact(raw or "", self.secrets))


def _to_stderr(line):
    print(cli.printable(line), file=sys.stderr, flush=True)


def without_model_path(raw, doc):
    """The body ``raw`` with the model id its ``model`` names replaced by the
    file's name where that id is a path of a file (families.served_name:
    llama.cpp's server started without --alias names its model by the path it
    was given, a folder of this machine, which no line may keep), in every
    spelling JSON may give it; else ``raw`` as received."""
    model = doc.get("model") if isinstance(doc, dict) else None
    name, reduced = served_name(model)
    if not reduced:
        return raw
    for spelling in (json.dumps(model, ensure_ascii=False)[1:-1], json.dumps(model)[1:-1]):
        raw = raw.replace(spelling, name).replace(spelling.replace("/", "\\/"), name)
    return raw


def http_text(response):
    if response is None or response.get("truncated") or response.get("body") is None:
        return None
    return response["body"]


def parse_json_text(text):
    """``(data, problem)`` of a reply that should be one JSON object."""
    try:
        data = parse_received(text)
    except (TypeError, ValueError, RecursionError) as exc:
        return None, f"reply is not JSON ({type(exc).__name__})"
    if not isinstance(data, dict):
        return None, "reply is JSON but not an object"
    return data, None

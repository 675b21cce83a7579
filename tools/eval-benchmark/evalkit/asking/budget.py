"""What a run of model calls may spend, and what it spent.

Three parts, shared by every worker thread of one run (run.py's model mode,
atomize.py, ai_eval.py), each consulted by the provider layer
(providers/base.py) around every attempt:

``Meter`` counts the calls, attempts, 429s and tokens of the run, for the
summary line the script prints at its end (``summary``), and refuses a call
past ``--max-calls`` with ``CallLimitReached`` (the script stops there,
exit 1; the same command continues, since the case whose call was refused
is not written).

``Limiter`` holds each attempt until it may go:

- requests per minute (``--rpm``): a bucket refilled at rpm/60 requests a
  second. It holds the provider's burst, the requests it lets go at once
  (its bucket), when the run knows it: from ``--burst N``, else from the
  provider's first reply, which holds back the other requests until it comes
  (at most the 60/rpm seconds the bucket would hold the second anyway), and
  whose rate-limit headers (``x-ratelimit-limit-requests`` and
  ``-remaining-requests``, Anthropic's ``anthropic-ratelimit-requests-*``)
  say how many it holds and how many are left. A bucket of one lets one
  request through every 60/rpm seconds, evenly; a larger one runs BURST_LAG
  seconds of the rate behind the provider's (its fill never quite reaches
  the burst), so that a request the network delivers early does not reach
  the provider before its bucket has refilled. make bench's runs of 90 calls
  with --rpm 60 at a provider of 60 a minute whose bucket holds 10: 1.03
  times the floor (the least time the provider allows, 80 requests at its
  rate) with the burst from its headers, 1.04 with --burst 10, 1.14 with a
  bucket of one (on a busy machine; 60 calls alone: 1.02, 1.01 and 1.19);
- tokens per minute (``--tpm``): a bucket refilled at tpm/60 tokens a second,
  holding at most one second of them. An attempt reserves an estimate before
  it is sent (its request's bytes / 4, a rough count of the prompt's tokens);
  the usage the reply reports then corrects the reservation, so the output
  tokens are paid for by the calls that follow. The bucket may go into debt:
  a call larger than the bucket waits for what it lacks, and never forever;
- calls in flight: at most ``concurrency``, halved on a 429 (once for the
  429s of the calls sent together: a 429 to an attempt that started before
  the last cut does not cut again), then grown back while attempts succeed,
  never over ``concurrency``: by one a success up to 7/8 of the level that
  met the 429, then by one for every ``limit`` successes (one step a round
  of calls). Growing by one a round all the way back left half the rate
  unused for most of each cycle (1.37 times the ideal in make bench's
  measure; 3/4 gave 1.21, 7/8 1.16; the target is 1.25);
- the pace, the least time from one request's start to the next's: none
  until a 429 has halved the calls in flight down to one. A provider slower
  than one call at a time (under about 120 requests a minute for a model
  that answers in 0.5 s) then goes on answering 429, and halving can do no
  more: one call grew back to two at its first reply and met the next 429,
  and calls gave up after five attempts (make bench's runs of 40 calls at 60
  and 120 requests a minute, burst 1, lost 19 to 33 of them). So from then
  on a 429 lengthens the pace instead, once for the attempts sent together
  as for a cut: to twice the spacing it met (the pace, or the mean time
  between the last nine request starts if that is longer) when no attempt
  got a reply since the pace last rose (far over the rate: a few doublings
  find it), else to 9/8 of it (just over: a little slower). Each reply to an
  attempt the pace held back shortens it: by 1/8 down to 9/8 of the pace
  before the last rise (back from a doubling that overshot), then by 1/128 a
  reply, so the run tries a little faster every dozen calls or so and follows
  a provider that raises its rate. The calls in flight grow only on replies
  to attempts the pace did not hold back: while it holds them, more calls
  would only wait. In make bench's runs of 40 calls at 120 a minute and
  --concurrency 16 (in brackets: at 60 and --concurrency 64): no failed
  call, 1.18 to 1.24 times the ideal (1.15 to 1.17), 21 to 23 answered 429
  (34 to 41); shortening by 1/32 gave 1.35 to 1.39 (1.26 to 1.28), no return
  to 9/8 of the last pace 1.54 to 1.59 (1.46 to 1.47), and no pace at all,
  only the 429s not counted against the attempts, 1.94 (1.43) with 232 (690)
  answered 429.
  Two limits keep the pace sane when a provider answers nothing but 429
  (an outage, or a Retry-After of ``nan`` or a date past, which leave the
  retry to the backoff). A 429 to an attempt whose call made the request
  before it too (no other call started between: a call retrying alone)
  lengthens the pace from the pace itself, not from the spacing it met:
  that spacing was the call's own retry wait, the server's ask or a backoff
  that already grows, and doubling that on every attempt made the pace,
  and the call, grow without end (the twentieth attempt of a call that met
  only 429s waited days). And the pace never passes ``MAX_PACE``.

These two need no flag: without ``--rpm`` a run finds the provider's rate by
itself, from 10 requests a minute up (at 60, 120 and 1,200 a minute in make
bench). In a run a 429 is not counted against the attempts of the call that
met it, which is bounded by time instead (providers/base.py).

Both buckets and the pace are reservations (GCRA): each attempt, under a
lock, takes its place in the queue and is told how long to wait; it then
waits outside the lock. So waits are first come, first served, and a test can
replace the clock and the sleep. The time each attempt waited is recorded on
it as ``waited_ms`` (providers/base.py). The part of it that the pace held
an attempt after its own call's previous request (``Ticket.own_s``) is that
call's retrying, not the run's queue: the call's time counts it.

The rates come from the flags, else from the environment per provider:
``OPENAI_RPM`` / ``OPENAI_TPM``, ``ANTHROPIC_RPM`` / ``ANTHROPIC_TPM``,
``BEDROCK_RPM`` / ``BEDROCK_TPM`` (``rates``).

Prices (``Prices``), in US dollars per million tokens: ``--price-in`` and
``--price-out``, or ``--prices FILE``, a JSON file the operator writes::

    {"format": 1, "usd_per_million_tokens": {
        "gpt-4o-mini": {"input": 0.15, "output": 0.60},
        "anthropic:claude-sonnet-4-5": {"input": 3.0, "output": 15.0}}}

keyed by ``provider:model`` or by the model alone (``provider:model`` first).
The cost is tokens in x input price + tokens out x output price: list prices,
with no discount for cached input, so an upper bound where a cache was read.

What it does not do: follow a provider's rate-limit headers past its first
reply (the adaptive limits answer what changes later), share a budget
between processes, or count the tokens of a prompt exactly (no tokenizer).
"""

import argparse
import collections
import math
import threading
import time

from .. import BadInput, cli
from . import http
from ..fields import check
from ..jsonl import read_json

PROVIDER_PREFIX = {"openai": "OPENAI", "anthropic": "ANTHROPIC", "bedrock": "BEDROCK"}
# The rates a limiter can keep: below one request in 100 minutes (or one
# token a minute) its waits run past what the clock can hold; far above any
# provider's limit a rate means nothing.
RATE_RANGES = {"rpm": (0.01, 10**9), "tpm": (1, 10**12)}
MAX_PRICE = 10**6  # USD per million tokens
# The price file of the module's docstring, as evalkit/fields.py checks it.
PRICE_FILE = {"format": (1,),
              "usd_per_million_tokens": {"*": {"input": "number", "output": "number"}}}
# The pace (Limiter, the module's docstring): a 429 after a reply lengthens
# it to PACE_STEP times the spacing it met, and a reply shortens it by
# PACE_RELAX once it is back at PACE_STEP times the pace before the last
# rise. A 429 is taken to have met a spacing of at least MIN_PACE seconds
# (100 requests a second), so that a first pace is never zero.
PACE_STEP = 9 / 8
PACE_RELAX = 1 / 128
MIN_PACE = 0.01
# A bucket larger than one runs this many seconds of its rate behind the
# provider's: more than a loopback or a network's jitter between two requests.
BURST_LAG = 0.05
# Where a provider states the requests its bucket holds, and how many are left.
BURST_HEADERS = (("x-ratelimit-limit-requests", "x-ratelimit-remaining-requests"),
                 ("anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining"))
# The longest pace: one request a minute, the longest wait the SDKs honour.
# A provider that takes fewer is no rate to learn but an outage (or a rate
# to give with --rpm); past it a pace only stretched the run, to days
# between attempts after twenty 429s.
MAX_PACE = 60.0


class CallLimitReached(Exception):
    """The run made the ``--max-calls`` calls it was allowed."""

    def __init__(self, limit):
        super().__init__(f"stopped at --max-calls {limit}")
        self.limit = limit


class Meter:
    """The run's calls, attempts, 429s, waits and tokens (thread-safe)."""

    def __init__(self, max_calls=None, clock=time.monotonic):
        self.max_calls = max_calls
        self.clock = clock
        self.started = clock()
        self.lock = threading.Lock()
        self.calls = 0            # calls started (a call and its retries count once)
        self.attempts = 0         # requests sent
        self.throttled = 0        # attempts answered 429 (or Bedrock's ThrottlingException)
        self.failed = 0           # calls that ended without a reply
        self.replies = 0          # calls that ended with a reply
        self.unreported = 0       # replies whose provider reported no usage
        self.tokens_in = 0
        self.tokens_out = 0
        self.tokens_cached = 0
        self.waited_s = 0.0       # time attempts waited for the limiter

    def admit(self):
        """Count a call about to start; CallLimitReached past --max-calls."""
        with self.lock:
            if self.max_calls is not None and self.calls >= self.max_calls:
                raise CallLimitReached(self.max_calls)
            self.calls += 1

    def attempt(self, throttled, waited_s):
        with self.lock:
            self.attempts += 1
            self.throttled += bool(throttled)
            self.waited_s += waited_s

    def ended(self, usage):
        """A call ended: ``usage`` as recorded (providers.usage), or None
        for a call that got no reply."""
        with self.lock:
            if usage is None:
                self.failed += 1
                return
            self.replies += 1
            if not usage.get("reported"):
                self.unreported += 1
            self.tokens_in += usage.get("input_tokens") or 0
            self.tokens_out += usage.get("output_tokens") or 0
            self.tokens_cached += usage.get("cached_input_tokens") or 0

    def elapsed(self):
        return self.clock() - self.started


class TokenBucket:
    """A bucket refilled at ``rate`` a second, holding at most ``capacity``;
    ``reserve(n)`` takes n now, going into debt if need be, and returns the
    seconds to wait before the debt is paid (0.0 when there was enough)."""

    def __init__(self, rate, capacity, clock=time.monotonic):
        self.rate = rate
        self.capacity = capacity
        self.clock = clock
        self.level = capacity
        self.at = clock()

    def _refill(self):
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.at) * self.rate)
        self.at = now

    def reserve(self, n):
        self._refill()
        self.level -= n
        return 0.0 if self.level >= 0 else -self.level / self.rate

    def adjust(self, n):
        """Take ``n`` more (or give back, when negative) after the fact."""
        self._refill()
        self.level = min(self.capacity, self.level - n)


class Limiter:
    """Holds each attempt until the rates and the calls in flight allow it.

    ``acquire(estimate)`` returns a ticket once the attempt may go;
    ``release(ticket, throttled, tokens)`` after its response (``tokens``:
    the usage reported, or None). ``ticket.waited_s`` is how long it waited.
    ``burst``: the requests the provider lets go at once (the module's
    docstring); None, as its first reply says."""

    def __init__(self, concurrency, rpm=None, tpm=None, burst=1, clock=time.monotonic,
                 sleep=http.pause):
        self.max_limit = concurrency
        self.limit = float(concurrency)
        self.in_flight = 0
        self.clock = clock
        self.sleep = sleep
        self.state = threading.Condition()
        self.requests = TokenBucket(rpm / 60.0, _holding(burst or 1, rpm / 60.0), clock) \
            if rpm else None
        self.learning = bool(rpm) and burst is None  # the burst, from the first reply
        self.probe = None  # the number of that first attempt, until its reply
        self.probe_until = 0.0  # when the attempts it holds back go anyway
        self.tokens = TokenBucket(tpm / 60.0, tpm / 60.0, clock) if tpm else None
        self.sent = 0        # attempts let through, numbered
        self.cut_at = 0      # the number of the last attempt sent before the last cut (or rise)
        self.overloaded_at = 0.0  # the calls in flight that met the last 429
        self.successes = 0   # since the limit last grew
        self.cuts = 0
        self.pacing = False  # once a cut left one call in flight: a 429 then lengthens the pace
        self.pace = 0.0      # the least seconds from one request's start to the next's
        self.floor = 0.0     # 9/8 of the pace before the last rise: shortening slows down there
        self.replied = False  # an attempt got its reply since the pace last rose
        self.starts = collections.deque(maxlen=9)  # when the last nine requests start
        self.last_call = None  # the call of the last request (acquire's ``call``)
        self.rises = 0

    def acquire(self, estimate=0, call=None):
        """``call``: any object that stands for the call the attempt is
        one of (None: unknown), so that its retries are told from the
        requests of other calls (the module's docstring)."""
        start = self.clock()
        with self.state:
            while True:
                held = self._held_for()
                if held is None and self.in_flight < int(self.limit):
                    break
                self.state.wait(held)
            self.in_flight += 1
            self.sent += 1
            ticket = Ticket(self.sent, estimate)
            if self.learning and self.probe is None:
                self.learning, self.probe = False, self.sent
                self.probe_until = start + 1 / self.requests.rate
            ticket.retry = call is not None and call is self.last_call
            self.last_call = call
            wait = self.requests.reserve(1) if self.requests else 0.0
            if self.tokens:
                wait = max(wait, self.tokens.reserve(estimate))
            now = self.clock()
            at = now + wait
            if self.starts and at < self.starts[-1] + self.pace:
                if ticket.retry:
                    ticket.own_s = self.starts[-1] + self.pace - at
                at = self.starts[-1] + self.pace
                ticket.paced = True
            self.starts.append(at)
            wait = at - now
        if wait > 0:
            self.sleep(wait)
        ticket.waited_s = max(0.0, self.clock() - start)
        return ticket

    def _held_for(self):
        """Seconds an attempt is still held back for the first reply, or None."""
        left = self.probe_until - self.clock() if self.probe is not None else 0
        return left if left > 0 else None

    def release(self, ticket, throttled, tokens=None, headers=None):
        """``headers``: the response's (lower-case names), by default those
        the thread's last request received (http.received_headers)."""
        with self.state:
            self.in_flight -= 1
            if ticket.number == self.probe:
                self.probe = None
                self._learn_burst(http.received_headers() if headers is None else headers,
                                  alone=self.sent == ticket.number)
            if self.tokens and tokens is not None:
                self.tokens.adjust(tokens - ticket.estimate)
            if throttled:
                if ticket.number <= self.cut_at:
                    pass  # sent before the last cut or rise: that overload was answered
                elif self.pacing:
                    self._lengthen_pace(ticket.retry)
                else:
                    self._cut()
            else:
                self.replied = True
                if ticket.paced:
                    # Back by 1/8 a reply to 9/8 of the pace before the last
                    # rise, then by PACE_RELAX.
                    if self.pace > self.floor:
                        self.pace = max(self.floor, self.pace * 7 / 8)
                    else:
                        self.pace *= 1 - PACE_RELAX
                elif self.limit < self.max_limit:
                    self.successes += 1
                    # Back to 7/8 of the level that met the 429 by one a success;
                    # past it, by one a round of calls.
                    if self.limit < self.overloaded_at * 7 / 8 or self.successes >= int(self.limit):
                        self.limit += 1
                        self.successes = 0
            self.state.notify_all()

    def _learn_burst(self, headers, alone):
        """The provider's burst, as its rate-limit headers state it, and
        the requests left in its bucket when no other went since."""
        for limit, left in BURST_HEADERS:
            burst, remaining = _whole(headers.get(limit)), _whole(headers.get(left))
            if burst:
                bucket = self.requests
                bucket.capacity = _holding(burst, bucket.rate)
                if alone and remaining is not None:
                    bucket.reserve(0)  # brought up to now
                    bucket.level = min(bucket.capacity, remaining)
                return

    def _cut(self):
        self.overloaded_at = self.limit
        self.limit = max(1.0, math.floor(self.limit / 2))
        self.pacing = self.limit == 1
        self.cut_at = self.sent
        self.successes = 0
        self.cuts += 1

    def _lengthen_pace(self, retry=False):
        """``retry``: the 429 answered a call retrying alone, whose spacing
        was its own retry wait: the pace grows from itself (the module's
        docstring)."""
        starts = self.starts
        spacing = (starts[-1] - starts[0]) / (len(starts) - 1) \
            if len(starts) > 1 and not retry else 0.0
        met = max(self.pace, spacing, MIN_PACE)
        self.floor = self.pace * PACE_STEP
        self.pace = min(MAX_PACE, met * (PACE_STEP if self.replied else 2))
        self.replied = False
        self.cut_at = self.sent
        self.rises += 1


def _holding(burst, rate):
    """What a bucket of ``burst`` requests at ``rate`` a second holds:
    BURST_LAG of its rate less, but a bucket of one (the module's docstring)."""
    return float(burst) if burst <= 1 else max(1.0, burst - BURST_LAG * rate)


def _whole(text):
    """A header's value as a whole number, or None."""
    text = (text or "").strip()
    return int(text) if text.isascii() and text.isdigit() else None


class Ticket:
    def __init__(self, number, estimate):
        self.number = number
        self.estimate = estimate
        self.waited_s = 0.0
        self.paced = False  # held back by the pace
        self.retry = False  # its call made the request before it too
        self.own_s = 0.0    # of waited_s, what the pace held it after that request


def rates(args, provider, environ):
    """``(rpm, tpm)``: the flags, else ``<PROVIDER>_RPM`` / ``_TPM`` from the
    environment, else None. BadInput for a value that is not a positive number."""
    found = []
    for name in ("rpm", "tpm"):
        value = getattr(args, name, None)
        if value is None:
            variable = f"{PROVIDER_PREFIX.get(provider, provider.upper())}_{name.upper()}"
            text = (environ.get(variable) or "").strip()
            if text:
                try:
                    value = cli.number(*RATE_RANGES[name])(text)
                except argparse.ArgumentTypeError as exc:
                    raise BadInput(f"{variable}: {exc} ({'requests' if name == 'rpm' else 'tokens'}"
                                   " per minute)") from None
        found.append(value)
    return tuple(found)


def add_arguments(parser):
    """The flags of every script that calls a model."""
    parser.add_argument("--rpm", type=cli.number(*RATE_RANGES["rpm"]),
                        help="at most this many requests a minute "
                             "(default: <PROVIDER>_RPM, else no limit)")
    parser.add_argument("--burst", type=cli.number(1, 10**6, integer=True),
                        help="with a requests-a-minute rate: the requests the provider lets "
                             "go at once (default: as its first reply's rate-limit headers "
                             "say, else one)")
    parser.add_argument("--tpm", type=cli.number(*RATE_RANGES["tpm"]),
                        help="at most this many tokens a minute "
                             "(default: <PROVIDER>_TPM, else no limit)")
    parser.add_argument("--max-calls", type=cli.number(minimum=1, integer=True),
                        help="stop (exit 1) before making more than N model calls; "
                             "the same command continues")
    parser.add_argument("--price-in", type=cli.number(0, MAX_PRICE),
                        help="USD per million input tokens, for the cost")
    parser.add_argument("--price-out", type=cli.number(0, MAX_PRICE),
                        help="USD per million output tokens")
    parser.add_argument("--prices", help="a price file (evalkit/asking/budget.py): "
                                         "USD per million tokens by model")


def check_arguments(parser, args):
    if (args.price_in is None) != (args.price_out is None):
        parser.error("give both --price-in and --price-out")
    if args.prices and args.price_in is not None:
        parser.error("give --prices or --price-in and --price-out, not both")


def prices_for(args, provider, model):
    """``(input, output)`` USD per million tokens, or None when not given."""
    if args.price_in is not None:
        return args.price_in, args.price_out
    if not args.prices:
        return None
    doc = read_json(args.prices)  # NaN, 1e999, deep nesting refused like every JSON file
    check(doc, PRICE_FILE, args.prices)
    for key in (f"{provider}:{model}", model):
        price = doc["usd_per_million_tokens"].get(key)
        if price is None:
            continue
        if not all(0 <= price[k] <= MAX_PRICE for k in ("input", "output")):
            raise BadInput(f"{args.prices}: {key}: input and output must be numbers from 0 "
                           f"to {MAX_PRICE}")
        return float(price["input"]), float(price["output"])
    raise BadInput(f"{args.prices}: no price for {provider}:{model} (nor {model})")


class Account:
    """A run's meter and prices, and the lines it ends with on stderr."""

    def __init__(self, prog, meter, prices, quiet=False):
        self.prog = prog
        self.meter = meter
        self.prices = prices
        self.quiet = quiet

    def stopped(self, exc):
        """The exit code of a run stopped by --max-calls, after its lines
        (the summary too, even with --quiet: the stop is about spending)."""
        cli.say(self.prog, f"{exc}: the cases not done were not written; "
                           "run the same command again to continue")
        self.report(always=True)
        return 1

    def report(self, always=False):
        """The summary line on stderr, unless --quiet (a quiet run's stderr
        holds only what went wrong)."""
        if self.quiet and not always:
            return
        cli.say(self.prog, summary(self.meter, self.prices))


def account(prog, client, args, provider, model, concurrency, environ):
    """Give ``client`` this run's meter and limiter (from the flags and the
    environment); the run's Account."""
    rpm, tpm = rates(args, provider, environ)
    burst = getattr(args, "burst", None)
    if burst is not None and rpm is None:
        raise BadInput(f"--burst {burst} needs a rate of requests: --rpm or "
                       f"{PROVIDER_PREFIX.get(provider, provider.upper())}_RPM")
    prices = prices_for(args, provider, model)
    client.meter = Meter(args.max_calls)
    client.limiter = Limiter(concurrency, rpm, tpm, burst)
    return Account(prog, client.meter, prices, args.quiet)


def summary(meter, prices=None):
    """The run's one line: calls, retries, 429s, tokens, wall time and, with
    prices, the cost."""
    retries = meter.attempts - meter.calls
    text = (f"{meter.calls} model call(s), {retries} retr{'y' if retries == 1 else 'ies'} "
            f"({meter.throttled} answered 429), {meter.failed} failed; tokens in "
            f"{meter.tokens_in} (cached {meter.tokens_cached}), out {meter.tokens_out}")
    if meter.unreported:
        text += f", not reported for {meter.unreported} reply(ies)"
    text += f"; waited for the rate limits {meter.waited_s:.1f} s; wall {meter.elapsed():.1f} s"
    if prices is not None:
        cost = (meter.tokens_in * prices[0] + meter.tokens_out * prices[1]) / 1e6
        text += f"; cost ${cost:.4f} (at ${prices[0]:g} in, ${prices[1]:g} out per million tokens)"
    return text

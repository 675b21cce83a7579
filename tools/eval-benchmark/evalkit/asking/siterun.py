"""run.py's website assistant run: each question of a site-qa file asked
once of a website assistant, one raw line per question appended to OUT.

Each question is sent once, with no conversation history, as the target
profile says (default: the widget protocol, targets/widget.json). One retry
only when the request itself fails (no HTTP 200); never a retry for a better
answer. Before the first question, the assistant is asked one plain greeting
(PROBE, not recorded) to check that the endpoint answers in the profile's
shape: a wrong URL stops the run at once (exit 2), before any question is
asked or any file made. --skip-endpoint-check leaves it out.

Models and answers collected by hand are modelrun.py's; what both write,
rawline.py's; continuing OUT, resume.py's.
"""

import json
import os
import urllib.parse
from functools import partial

from .. import BadInput
from ..redaction import redact_userinfo
from ..responses import derive
from . import http, rawline
from .runner import run_jobs
from .target import DEFAULT_PROFILE, build_request, load_profile

# The endpoint check's question: any answer in the profile's shape will do.
PROBE = "Hello"


def run(args, qset):
    """Ask the questions of ``qset`` that OUT has no line for, or with
    --retry-failed again those whose request failed; the exit code."""
    site = Site(args, qset)
    questions = rawline.select(qset, args.only, args.limit)
    out = rawline.output(args, qset, questions)
    if not out.pending:
        rawline.say_complete(args, len(questions))
    elif not args.skip_endpoint_check:
        try:
            site.check_endpoint(out.pending[0])
        except BadInput:
            out.discard()
            raise
    asked, first_failures = [], rawline.FirstFailures(args.out)

    def written(line):
        asked.append(line)
        first_failures(line)
    with out:
        run_jobs(out.pending, site.ask, out, args.concurrency, written)
    code = rawline.report(out.finish(rawline.merge_retry), questions)
    if out.pending and not args.quiet:
        rawline.say_summary(args.out, asked, len(questions) - len(out.pending))
    return code


class Site:
    """The website assistant of one run: its profile and endpoint, and one
    question asked as a raw line."""

    def __init__(self, args, qset):
        if args.provider or args.from_file:
            raise BadInput(f"{args.questions}: a site-qa file is asked of a website assistant; "
                           "--provider and --from are for model cases")
        given = [flag for flag in ("rpm", "tpm", "max_calls", "price_in", "prices")
                 if getattr(args, flag) is not None]
        if given:
            raise BadInput(f"{args.questions}: --{given[0].replace('_', '-')} is for model "
                           "cases; a website assistant is asked at --concurrency")
        self.args, self.qset = args, qset
        self.profile = load_profile(args.target or DEFAULT_PROFILE)
        self.url = args.endpoint or os.environ.get("BENCH_ENDPOINT") or self.profile["url"]
        if not self.url:
            raise BadInput("no endpoint: pass --endpoint URL, set BENCH_ENDPOINT, "
                           "or give a target profile with a url")
        # The endpoint as lines and messages show it: a user:password in the
        # URL is a secret no file or message may carry (redaction.py).
        self.shown = redact_userinfo(self.url)
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BadInput(f"endpoint {self.shown!r}: not an http:// or https:// URL with a host")
        self.target = dict({key: self.profile[key] for key in
                            ("kind", "name", "response", "version_header")},
                           url=self.shown, provider=None, model=None)
        self.run = rawline.run_block(args, qset)

    def request(self, question):
        """``(send() -> (attempt, response), the request as the line records it)``."""
        widget_key = self.qset.sites[question["lang"]]["widget_key"]
        sent, recorded, secrets = build_request(self.profile, self.url, question, widget_key)
        recorded["url"] = redact_userinfo(recorded["url"])
        data = None if sent["body"] is None else \
            json.dumps(sent["body"], ensure_ascii=False).encode("utf-8")
        return partial(http.send, sent["method"], sent["url"], sent["headers"], data,
                       self.args.timeout, self.args.max_bytes, secrets), recorded

    def ask(self, question):
        """The raw line of ``question``, asked once (one retry on a failed request).

        Ctrl-C during a request records it as interrupted (it was sent: the
        question is never asked again unknowingly); http.Interrupted, raised
        before the first request went, leaves the question to be asked when the
        same command continues."""
        send, recorded = self.request(question)
        attempts = []
        response = None
        for number in range(2):
            if number:
                http.pause(self.args.retry_pause)
            try:
                attempt, response = send()
            except http.Interrupted:
                if not attempts:
                    raise
                break  # the retry was not sent; the first request is recorded
            attempts.append(attempt)
            if response is not None and response["status"] == 200 \
                    or attempt["error"] == "interrupted":
                break
        return rawline.raw_line(question, "site-qa", self.target, self.run, {
            "request": recorded, "attempts": attempts, "response": response,
            "derived": derive(response, self.profile["response"]), "set": self.qset.set,
            "lang": question["lang"], "kind": question["kind"],
            "page_url": question["page_url"]})

    def check_endpoint(self, question):
        """Ask PROBE once, as ``question`` would be asked; BadInput unless the
        endpoint answers HTTP 200 in the profile's shape. Nothing is recorded."""
        send, _ = self.request(dict(question, question=PROBE))
        attempt, response = send()
        if response is None or response["status"] != 200:
            why = attempt["error"] or f"HTTP {response['status']}"
            bare = urllib.parse.urlsplit(self.url).path in ("", "/")
            hint = " (the URL has no path: the query endpoint usually has one, such as " \
                   "/api/query for the reference assistant)" if bare else ""
            raise BadInput(f"endpoint {self.shown}: {why} to a test question{hint}; "
                           "nothing was asked")
        problem = derive(response, self.profile["response"])["problem"]
        if problem is not None:
            raise BadInput(f"endpoint {self.shown}: HTTP 200, but not in the shape of the target "
                           f"profile {self.args.target or DEFAULT_PROFILE} ({problem}); "
                           "nothing was asked")

"""run.py's model generator run: each scenario of a scenario file asked once
of a model through the provider layer (BENCH_PROVIDER / BENCH_MODEL, or
PERMIT_AI_PROVIDER / PERMIT_AI_MODEL), or imported from answers collected by
hand (--provider manual: providers/manual.py; a scenario with no answer yet
is not written, and importing again adds it); one raw line per scenario
appended to OUT. With --context corpus the model gets too the passages of the
city's code found for the question (evalkit/scenario/corpus.py): a
retrieval-augmented assistant, another variant (``provider:model+corpus``).
Each call records its token usage; rates, prices, --max-calls and the
summary line the run ends with are budget.py's.

Website assistants are siterun.py's; what both write, rawline.py's;
continuing OUT, resume.py's.
"""

import os

from .. import BadInput
from ..redaction import redact_userinfo
from ..scenario.corpus import Corpus, beside as corpus_beside
from ..scenario.scenarios import user_text
from ..textmatch import visible
from . import budget, prompts, providers, rawline
from .providers.manual import load_collection
from .runner import run_jobs

# Passages of the code given to a generator with --context corpus: a
# scenario names about six topics (93 over 16), so about one passage a topic
# and a little room, as a site assistant's retrieval gives.
CONTEXT_PASSAGES = 8
# How a scenario run asks its failed questions again (no quarter's make target).
AGAIN = "the same run.py command with --retry-failed"


def run(args, cases):
    """Ask the scenarios of ``cases`` that OUT has no line for, or with
    --retry-failed again those whose call failed; the exit code."""
    generator = Generator(args, cases)
    account = generator.account
    questions = rawline.select(cases, args.only, args.limit)
    out = rawline.output(args, cases, questions, account.meter if account is not None else None)
    if not out.pending:
        rawline.say_complete(args, len(questions))
    try:
        with out:
            run_jobs(out.pending, generator.ask, out, args.concurrency,
                     rawline.FirstFailures(args.out, again=AGAIN))
    except budget.CallLimitReached as exc:
        return account.stopped(exc)
    code = rawline.report(out.finish(rawline.merge_retry), questions, again=AGAIN)
    if account is not None:
        account.report()
    return code


class Generator:
    """A model or answers collected by hand: the target block of the lines,
    and one scenario asked as a raw line. ``account``: None when no call is made."""

    def __init__(self, args, cases):
        self.args, self.collected, self.account = args, None, None
        # A provider that cannot be configured is the user's to fix, like a
        # bad file; the ProviderError of a failed call is recorded instead.
        try:
            self.provider, self.model = providers.resolve(args.provider, args.model, os.environ)
            if self.provider == "manual":
                self.target, self.collected = load_collection(args.from_file, cases)
            elif args.from_file:
                raise BadInput("--from is for --provider manual")
            else:
                self.client = providers.get(self.provider, os.environ)
        except providers.ProviderError as exc:
            raise BadInput(str(exc)) from None
        if self.collected is None:
            self.account = budget.account(rawline.PROG, self.client, args, self.provider,
                                          self.model, args.concurrency, os.environ)
            self.prompt = prompts.load(args.prompt)
            # The base URL as recorded: a user:password in it (a proxy's, say) is
            # a secret the raw line must not carry.
            self.target = {"kind": "model", "provider": self.provider, "model": self.model,
                           "url": redact_userinfo(getattr(self.client, "base", None))}
            self.corpus = None
            if args.context == "corpus":   # a retrieval-augmented assistant: another variant
                self.target["context"] = "corpus"
                self.corpus = Corpus(args.corpus or corpus_beside(cases.path, "--context corpus"))
        self.run = rawline.run_block(args, cases)

    def ask(self, case):
        """The raw line of ``case`` (None: an answer not collected yet)."""
        fields = self.call(case) if self.collected is None else self.collected(case)
        if fields is None:
            return None
        return rawline.raw_line(case, "scenario", self.target, self.run, fields)

    def call(self, case):
        """The raw fields of one call (retried by the provider): the question, the
        city and the address when named, with --context corpus the passages found."""
        args, user, context = self.args, user_text(case), None
        if self.corpus is not None:
            hits = self.corpus.search(user, CONTEXT_PASSAGES)
            text = "\n".join(f"[{hit['section']}] {hit['passage']}" for hit in hits)
            user = (f"{user}\n\nPassages of {self.corpus.jurisdiction}'s code found for this "
                    f"question:\n{text or '(none)'}")
            context = {"kind": "corpus", "corpus": os.path.basename(self.corpus.path),
                       "corpus_sha256": self.corpus.sha256,
                       "sections": [hit["section"] for hit in hits]}
        request = {"prompt": self.prompt.record(), "user": user, "max_tokens": args.max_tokens,
                   "temperature": args.temperature, "context": context}
        try:
            reply = self.client.call(providers.Request(
                system=self.prompt.text, user=user, model=self.model, max_tokens=args.max_tokens,
                temperature=args.temperature, timeout=args.timeout))
        except providers.ProviderError as exc:
            if exc.fatal:  # every call would meet it (a key refused, no such model)
                raise BadInput(f"{args.questions}: {case['id']}: {exc}; nothing more was asked")
            if exc.interrupted and not exc.attempts:
                raise  # Ctrl-C before anything was sent: asked when the command continues
            response = None if exc.status is None else {
                "status": exc.status, "body": exc.raw, "body_base64": None, "truncated": False}
            return {"request": request, "attempts": exc.attempts, "response": response,
                    "derived": {"answer": None, "problem": str(exc)}, "usage": None}
        # The model the server reported; a path of a file (llama.cpp's server
        # without --alias) is reduced to its name, here and in the body.
        response = {"status": 200, "body": reply.raw, "body_base64": None, "truncated": False,
                    "model": reply.model, "stop": reply.stop, "cut_off": reply.truncated}
        if reply.model_reduced:
            response["model_reduced"] = True
        problem = None if visible(reply.text) else (reply.problem or "empty answer")
        return {"request": request, "attempts": reply.attempts, "response": response,
                "derived": {"answer": reply.text or None, "problem": problem},
                "usage": reply.usage}

"""The evaluator's lookups for one answer (atomize.py --lookups).

The evaluator checks each claim against the city's code: with a provider that
takes tools, in a tool loop over the three lookups (evalkit/asking/lookups.py,
providers' ``call_with_tools``); with one that does not
(``providers.ToolsUnsupported``), the passages the corpus search finds for
the question are put in the prompt instead (and always with atomize.py
--passages, for a model that takes tools but never calls them). Either way the atoms line records
``lookups``: the mode (``tools`` or ``passages``), the corpus file and its
sha256, every lookup made and, for passages, the section ids given, so that an
auditor sees what the evaluator consulted and score.py can check what each
verified truth rests on (evalkit/scenario/scenario_score.py).
"""

from . import providers
from .lookups import MAX_LOOKUPS, TOOLS, Lookups
from ..scenario.scenarios import place_of

# Passages put in the prompt when the evaluator cannot call tools: about as
# many as the lookups it would have made.
FALLBACK_PASSAGES = 8

TOOLS_TEXT = ("Look the claims up with your tools before you answer: search_code searches "
              "the city's code, read_section reads a section by its id, lookup_parcel looks "
              f"up the property at an address. At most {MAX_LOOKUPS} lookups in all; then "
              "give the atoms.")


class AnswerLookups:
    """The lookups of one evaluation: ``prompt_fields()`` for the prompt,
    ``ask(client, request)`` for each turn, ``record()`` for the atoms line."""

    def __init__(self, corpus, corpus_name, case, tools=True):
        self.corpus = corpus
        self.corpus_name = corpus_name
        self.case = case
        self.lookups = Lookups(corpus)
        self.hits = None   # the passages given, once the provider took no tools
        self.why = None    # why passages were given: asked for, or the refusal of tools
        if not tools:      # atomize.py --passages: a model that never calls tools
            self.give_passages("asked for (--passages)")

    def give_passages(self, why):
        self.hits = self.corpus.search(self._query(), FALLBACK_PASSAGES)
        self.why = why

    def prompt_fields(self):
        if self.hits is None:
            return {"where": place_of(self.case), "lookup": TOOLS_TEXT}
        text = "\n".join(f"[{hit['section']}] {hit['passage']}" for hit in self.hits)
        return {"where": place_of(self.case),
                "lookup": "You have no tools: these are the passages of the code found for "
                          f"this question.\n{text or '(none)'}"}

    def _query(self):
        parts = [self.case.get("question", ""), self.case.get("jurisdiction") or "",
                 self.case.get("address") or ""]
        return " ".join(p for p in parts if p)

    def ask(self, client, request, fill):
        """One turn: ``(reply, calls)``, ``fill(fields) -> user text`` making the
        prompt again when the provider takes no tools and passages replace them."""
        if self.hits is None:
            try:
                reply = client.call_with_tools(request, TOOLS, self.lookups.call)
                return reply, [_round(r) for r in reply.exchange]
            except providers.ToolsUnsupported as exc:
                self.give_passages(f"the server took no tools: {exc}")
                request.user = fill(self.prompt_fields())
        reply = client.call(request)
        return reply, [{"attempts": reply.attempts, "reply": reply.raw, "usage": reply.usage}]

    def record(self):
        out = {"mode": "tools" if self.hits is None else "passages",
               "corpus": self.corpus_name, "corpus_sha256": self.corpus.sha256,
               "calls": self.lookups.exchange}
        if self.hits is not None:
            out["sections"] = [hit["section"] for hit in self.hits]
            out["why"] = self.why
        return out


def _round(record):
    """A round of the tool loop as the atoms line keeps it: what came back and
    the tool calls, not the request body, which repeats the whole history."""
    return {key: record.get(key) for key in ("round", "attempts", "reply", "usage", "tool_calls")}

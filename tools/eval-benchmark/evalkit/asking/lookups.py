"""The evaluator's three lookups over a code corpus, as tools a model calls.

Provider-neutral: ``TOOLS`` names each tool with a description and a JSON
schema of its input, which each provider puts in its own wire format
(OpenAI-compatible ``tools``, Anthropic tool use, Bedrock ``toolConfig``);
``Lookups.call`` runs one call and returns the text the model is given back.

Every call is recorded, in order, in ``Lookups.exchange`` ({tool, input,
output, error}), so that an auditor sees what the evaluator consulted and
can run each lookup again: the corpus search is deterministic. A call that
cannot be run (an unknown tool, an input of the wrong shape, one past the
bound) is answered with an error the model can read and recorded the same
way; it never stops the evaluation.
"""

import json

# Enough for an answer's claims on a handful of topics (a search and a read
# or two each), while a model that loops is cut off well before it costs much.
MAX_LOOKUPS = 12
SEARCH_RESULTS = 5

TOOLS = (
    {"name": "search_code",
     "description": "Search the city's code. Returns the best-matching passages, each with "
                    "the id of its section.",
     "input": {"type": "object", "required": ["query"], "additionalProperties": False,
               "properties": {"query": {"type": "string", "description": "words to look for"}}}},
    {"name": "read_section",
     "description": "Read one whole section of the city's code by its id, e.g. RCC 33.205.040.",
     "input": {"type": "object", "required": ["section_id"], "additionalProperties": False,
               "properties": {"section_id": {"type": "string"}}}},
    {"name": "lookup_parcel",
     "description": "Look up a property by its street address: zone, lot size, overlays and "
                    "existing structures.",
     "input": {"type": "object", "required": ["address"], "additionalProperties": False,
               "properties": {"address": {"type": "string"}}}},
)


class Lookups:
    def __init__(self, corpus, limit=MAX_LOOKUPS):
        self.corpus = corpus
        self.limit = limit
        self.exchange = []

    def call(self, name, arguments):
        """The text to give the model back for one tool call; the call and
        its output are appended to ``exchange``."""
        output, error = self._run(name, arguments)
        text = json.dumps(output if error is None else {"error": error}, ensure_ascii=False,
                          sort_keys=True)
        self.exchange.append({"tool": name, "input": arguments,
                              "output": output, "error": error})
        return text

    def _run(self, name, arguments):
        """``(output, None)``, or ``(None, the error the model is told)``."""
        if len(self.exchange) >= self.limit:
            return None, f"no more lookups: the limit is {self.limit}; give your answer now"
        tool = next((t for t in TOOLS if t["name"] == name), None)
        if tool is None:
            return None, f"no tool {name!r}; the tools are " + \
                ", ".join(t["name"] for t in TOOLS)
        (key,) = tool["input"]["required"]
        if not isinstance(arguments, dict) or set(arguments) != {key} or \
                not isinstance(arguments[key], str) or not arguments[key].strip():
            return None, f"{name} takes one string, {key}"
        value = arguments[key]
        if name == "search_code":
            return self.corpus.search(value, SEARCH_RESULTS), None
        if name == "read_section":
            section = self.corpus.read(value)
            return (section, None) if section else (None, f"no section {value!r} in the code")
        parcel = self.corpus.parcel(value)
        return (parcel, None) if parcel else (None, f"no parcel at {value!r}")

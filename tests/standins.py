"""Stand-in models for the scenario suite's loopback runs (tests and
``make scenario-demo``). They are NOT models and their outputs are NOT
measurements: the generator writes a canned answer from the scenario's
must-cover topics, and the evaluators tag claims by simple surface rules.
Results made with them are labelled examples (score.py --example).

Two evaluators differ on purpose, so the cross-evaluation table has
something to show: the strict one marks an uncited claim vague-correct, the
lenient one marks it correct.
"""

import re

CITATION = re.compile(r"(RCC\s*\d+(?:\.\d+)+|riverton\.example\.gov\S*|RivertonMaps|ORS\s*\d+(?:\.\d+)*"
                      r"|Redfin|Zillow|Wikipedia|reddit\S*)", re.IGNORECASE)
ACTION = ("apply", "call", "check", "submit", "book", "ask", "measure", "file", "get")
GAP = ("not sure", "don't know", "cannot see", "could not look up")

SENTENCES = {
    "zoning": "Check your zone on RivertonMaps first, because the zone decides what you may build.",
    "size": "A backyard cottage is limited to 800 square feet under RCC 33.205.040.",
    "setbacks": "Keep it at least 5 feet from the side and rear property lines (RCC 33.110.220).",
    "permits": "Apply for a building permit with BDS before any work starts.",
    "costs": "Expect permit fees and an SDC of several thousand dollars, according to Redfin.",
    "sequence": "Get zoning confirmed, then submit plans, then book inspections.",
    "address": "I could not look up your parcel, so I cannot see its zone.",
    "height": "Front fences are usually limited to 3.5 feet (riverton.example.gov/fences).",
}


def generator_answer(question):
    """A canned answer built from topic words found in the question."""
    lower = question.lower()
    picked = [SENTENCES[t] for t in ("zoning", "size", "setbacks", "permits", "costs", "sequence")
              if t in lower or t == "permits"]
    if "fence" in lower:
        picked.insert(0, SENTENCES["height"])
    if "tiny house" in lower or "back yard" in lower:
        picked = [SENTENCES[t] for t in ("zoning", "size", "setbacks", "permits", "costs",
                                         "sequence", "address")]
    return " ".join(picked) + " (Stand-in answer written for a loopback test, not advice.)"


def verified_truth(citation):
    """A stand-in checks nothing; asked to name the sections a truth rests on
    (atomize-v2), it names the code section the answer itself cites."""
    if citation and citation.startswith("RCC "):
        return f"Stand-in evaluator: not checked; the answer cites [{citation}]."
    return "Stand-in evaluator: not verified against any source."


def evaluator_atoms(prompt, strict):
    """Atoms for the response quoted in an atomize-v1 prompt, by surface rules."""
    response = prompt.split("<<<RESPONSE\n", 1)[1].split("\nRESPONSE>>>", 1)[0]
    topics_line = prompt.split("one topic from this vocabulary: ", 1)[1].split("\n", 1)[0]
    topics = [t.strip() for t in topics_line.split(",")]
    atoms = []
    for sentence in re.split(r"(?<=[.!?])\s+", response):
        if not sentence.strip() or sentence.startswith("(Stand-in"):
            continue
        lower = sentence.lower()
        topic = next((t for t in topics if t in lower), None) or next(
            (t for t, s in SENTENCES.items() if s == sentence and t in topics), topics[0])
        found = CITATION.search(sentence)
        citation = found.group(0) if found else None
        if any(g in lower for g in GAP):
            correctness = "admitted-gap"
        elif citation is None and strict:
            correctness = "vague-correct"
        else:
            correctness = "correct"
        atoms.append({"text": sentence, "correctness": correctness,
                      "verified_truth": verified_truth(citation),
                      "citation": citation, "topic": topic, "specificity": 0.5,
                      "actionability": 0.75 if any(w in lower for w in ACTION) else 0.25,
                      "importance": 4 if strict else 3})
    return {"atoms": atoms}


def user_text(flavour, request):
    """The user message of a request in each API's shape."""
    if flavour == "openai":
        return next(m["content"] for m in request["messages"] if m["role"] == "user")
    if flavour == "anthropic":
        return request["messages"][0]["content"]
    return request["messages"][0]["content"][0]["text"]


def model(flavour, strict):
    """One stand-in that generates plain answers and, when a JSON reply is
    asked for (a schema: the evaluator's call), returns atoms."""
    def reply(request):
        wants_json = "response_format" in request or "tools" in request or "toolConfig" in request
        text = user_text(flavour, request)
        return evaluator_atoms(text, strict) if wants_json else generator_answer(text)
    return reply

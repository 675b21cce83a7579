"""Atoms: the evaluator's claims about one answer, and their strict validator.

An atom has exactly these fields (atomized-claim-scoring, "Adversarial
protocol"):

  text            the claim (non-empty string)
  correctness     one of CORRECTNESS, spelled exactly so
  verified_truth  what the evaluator found to be true (non-empty string)
  citation        the source the answer gave for the claim, as written, or null
  topic           a topic of the scenario vocabulary
  specificity     a number in 0..1 (1 = a precise figure, rule or place)
  actionability   a number in 0..1 (1 = a concrete next step)
  importance      an integer 1..5

The evaluator's reply is ``{"atoms": [...]}`` and nothing else. Anything else
is rejected with the list of what is wrong; atomize.py asks for one repair
and then records the answer as an error, never half-accepted.

An empty list is a reply only for an answer of fewer than MIN_WORDS_FOR_ATOMS
words (counted as the Useful dimension counts them: runs of non-space). The
spec's atoms cover everything an answer says, an honest "I don't know" too
(an admitted-gap atom), so an answer of two sentences or more always has at
least one; an evaluator that returns none for it has not done the work, and
its reply would score Complete 0 as though the answer had said nothing. A
shorter answer ("Hello! How can I help?") may hold no claim at all.
"""

import math

CORRECTNESS = ("correct", "correct-vague", "correct-action", "correct-judg", "correct-range",
               "hedge-correct", "vague-correct", "vague-action", "WRONG", "PARTIAL-WRONG",
               "admitted-gap")
MIN_WORDS_FOR_ATOMS = 20
FIELDS = ("text", "correctness", "verified_truth", "citation", "topic", "specificity",
          "actionability", "importance")


def variant_of(target):
    """The name of the generator that wrote an answer: ``provider:model``, and
    ``+corpus`` when it was given passages of the city's code (run.py
    --context corpus): a retrieval-augmented assistant is another system."""
    name = f"{target.get('provider')}:{target.get('model')}"
    return name + "+corpus" if target.get("context") == "corpus" else name


def reply_schema(topics=None):
    """The JSON schema sent with the request (providers that support it)."""
    topic = {"type": "string"}
    if topics:
        topic["enum"] = sorted(topics)
    atom = {"type": "object", "additionalProperties": False, "required": list(FIELDS),
            "properties": {
                "text": {"type": "string"},
                "correctness": {"type": "string", "enum": list(CORRECTNESS)},
                "verified_truth": {"type": "string"},
                "citation": {"type": ["string", "null"]},
                "topic": topic,
                "specificity": {"type": "number", "minimum": 0, "maximum": 1},
                "actionability": {"type": "number", "minimum": 0, "maximum": 1},
                "importance": {"type": "integer", "minimum": 1, "maximum": 5}}}
    return {"type": "object", "additionalProperties": False, "required": ["atoms"],
            "properties": {"atoms": {"type": "array", "items": atom}}}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def no_atoms_problem(atoms, answer):
    """Why an empty list of atoms is no reply for ``answer``, or None."""
    words = len(answer.split()) if isinstance(answer, str) else 0
    if atoms or words < MIN_WORDS_FOR_ATOMS:
        return None
    return (f"atoms is empty for an answer of {words} words: every claim of the answer is "
            "an atom, and an answer that says it does not know is an admitted-gap atom")


def validate(reply, topics=None, answer=None):
    """``(atoms, problems)``: the atoms when ``problems`` is empty. With
    ``answer`` (the text atomized), an empty list for an answer of
    MIN_WORDS_FOR_ATOMS words or more is a problem too."""
    problems = []
    if not isinstance(reply, dict):
        return None, ["the reply is not a JSON object"]
    extra = sorted(set(reply) - {"atoms"})
    if extra:
        problems.append(f"unexpected key(s) {', '.join(extra)} beside atoms")
    atoms = reply.get("atoms")
    if not isinstance(atoms, list):
        return None, problems + ["atoms must be a list"]
    empty = no_atoms_problem(atoms, answer)
    if empty:
        problems.append(empty)
    for n, atom in enumerate(atoms):
        problems += atom_problems(f"atoms[{n}]", atom, topics)
    if problems:
        return None, problems
    return [{f: atom[f] for f in FIELDS} for atom in atoms], []


def atom_problems(where, atom, topics):
    """What is wrong with one atom: a list, empty when nothing is."""
    if not isinstance(atom, dict):
        return [f"{where} is not an object"]
    return (_field_problems(where, atom) + _string_problems(where, atom, topics)
            + _number_problems(where, atom))


def _blank(value):
    """True when ``value`` is not a string with something besides white space."""
    return not isinstance(value, str) or not value.strip()


def _field_problems(where, atom):
    """The fields an atom lacks and those it has beside FIELDS."""
    problems = []
    missing = [f for f in FIELDS if f not in atom]
    extra = sorted(set(atom) - set(FIELDS))
    if missing:
        problems.append(f"{where} lacks {', '.join(missing)}")
    if extra:
        problems.append(f"{where} has unknown field(s) {', '.join(extra)}")
    return problems


def _string_problems(where, atom, topics):
    """What is wrong with the fields of an atom that are words: text,
    verified_truth, correctness, citation and topic (absent ones are
    _field_problems' to report)."""
    problems = []
    for field in ("text", "verified_truth"):
        if field in atom and _blank(atom[field]):
            problems.append(f"{where}.{field} must be a non-empty string")
    if "correctness" in atom and atom["correctness"] not in CORRECTNESS:
        problems.append(f"{where}.correctness {atom['correctness']!r} is not one of "
                        f"{', '.join(CORRECTNESS)}")
    if "citation" in atom and atom["citation"] is not None and _blank(atom["citation"]):
        problems.append(f"{where}.citation must be a non-empty string or null")
    if "topic" in atom:
        if _blank(atom["topic"]):
            problems.append(f"{where}.topic must be a non-empty string")
        elif topics and atom["topic"] not in topics:
            problems.append(f"{where}.topic {atom['topic']!r} is not in the vocabulary")
    return problems


def _number_problems(where, atom):
    """What is wrong with the fields of an atom that are numbers:
    specificity, actionability and importance."""
    problems = []
    for field in ("specificity", "actionability"):
        if field in atom and (not _number(atom[field]) or not 0 <= atom[field] <= 1):
            problems.append(f"{where}.{field} must be a number from 0 to 1")
    if "importance" in atom:
        value = atom["importance"]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
            problems.append(f"{where}.importance must be an integer from 1 to 5")
    return problems

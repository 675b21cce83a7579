"""The fields of a record, checked before a script reads them: the one checker
of the formats a person or a tool writes (raw and atoms lines, question files,
reviews, manifests, history, scenarios, cases, prices).

A spec maps each key to its rule; ``key?`` may be absent, ``"*"`` is the rule
of every key the spec does not name (``"+"``: the same, one such key at
least), a kind after it the rule of those keys' names (``"+name"``). A rule:

  "string|null"  ``|``-separated kinds, the value one of them: the JSON types
                 object, list, string, integer, number, boolean, null, and
                 objects (a list of objects); text (a string not blank), name
                 (a plain file name, not hidden), date (YYYY-MM-DD in ASCII
                 digits, a day of the calendar), rules_date (a date, or
                 YYYY-MM-DD.N: the Nth rules of that day), sha256 (64 lower-case hex
                 digits), count (a whole number >= 0), utc_time (a time as
                 run.py writes it: utc_time), any
  ("en", "he")   one of these values (1.0 and true are not 1)
  {spec}         an object checked by that spec, no other key
  [rule]         a list, each item by the rule; [rule, ...] one item at least
  Worded(rule, words, null=False)
                 the rule, refused in its own words (``words``: {place} and
                 {value} name the place and the value shown) where the value
                 is missing or not of its form; what an object or a list holds
                 is refused in its own rules' words. With ``null``, null passes.

A manifest's file entry, for one: ``{"sha256": "sha256", "bytes": "count",
"role": ("input", "output")}``. What a field must be beside another (an id
given twice, a lang its file's sites lack) each loader says itself: this is
no JSON Schema, only what the loaders need. It imports no part of the kit.
"""

import functools
import os
import re
from collections import namedtuple

from . import BadInput, calendar_date, rules_date_text, whole_number

SHA256 = re.compile(r"[0-9a-f]{64}")
# A time as run.py writes it (evalkit/asking/http.py utc_now): UTC, to the
# millisecond, in ASCII digits (\d takes other scripts' digits, $ a final
# line break); the day is held to the calendar apart (utc_time).
_UTC_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
                       r"\.[0-9]{3}Z")
# How much of a value from the input a message shows: a value of 200,000
# characters would otherwise make a line of stderr as long.
SHOWN = 60


def shown(value, limit=SHOWN):
    """``repr(value)``, cut short for a message."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def brief(text, limit=SHOWN):
    """``text`` as a message shows it bare (an id, a key, a place): as it is
    when short, else its first characters and "..."."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def listed(names, most=5):
    """Names for a message, each cut short, the first ``most`` of them and
    how many more: ``a, b and 3 more``."""
    names = list(names)
    text = ", ".join(brief(name) for name in names[:most])
    return text + (f" and {len(names) - most} more" if len(names) > most else "")


def utc_time(value):
    """True for a time as run.py records it, ``2026-12-01T10:00:00.000Z``:
    UTC to the millisecond, on a day of the calendar."""
    return isinstance(value, str) and _UTC_TIME.fullmatch(value) is not None \
        and _calendar_day(value[:10])


# The days of a run's times are few: each is held to the calendar once.
_calendar_day = functools.lru_cache(maxsize=1024)(calendar_date)


# A rule refused in its own words (the module's docstring).
Worded = namedtuple("Worded", "rule words null", defaults=(False,))


def check_format(record, where, known=1):
    """Refuse a record (a line of a file a tool continues) of a format other
    than ``known``: a whole number, as the tools write it (JSON's 1.0 is a
    float, and true a bool, though Python finds both equal to 1)."""
    if not whole_number(record.get("format")) or record["format"] != known:
        raise BadInput(f"{where}: format {shown(record.get('format'))} is not one this tool "
                       f"knows ({known})")


def plain_name(name):
    """True for a file name that stays in its folder: text, no folder part,
    not empty, not . or .., no NUL character."""
    return isinstance(name, str) and name not in ("", ".", "..") and "\0" not in name \
        and os.path.basename(name) == name


def _text(value):
    return isinstance(value, str) and value.strip() != ""


# Each kind: the JSON type it narrows (a value of another type is named in the
# message: "not a list"), its test, and a message's words for one and for many.
_KINDS = {
    "object": ("object", lambda v: isinstance(v, dict), "an object", "objects"),
    "objects": ("objects", lambda v: isinstance(v, list) and all(isinstance(i, dict) for i in v),
                "a list of objects", "lists of objects"),
    "list": ("list", lambda v: isinstance(v, list), "a list", "lists"),
    "string": ("string", lambda v: isinstance(v, str), "a string", "strings"),
    "integer": ("integer", whole_number, "an integer", "integers"),
    "number": ("number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
               "a number", "numbers"),
    "boolean": ("boolean", lambda v: isinstance(v, bool), "true or false", "true or false"),
    "null": ("null", lambda v: v is None, "null", "null"),
    "any": ("any", lambda v: True, "anything", "anything"),
    "text": ("string", _text, "a non-empty string", "non-empty strings"),
    "name": ("string", lambda v: plain_name(v) and not v.startswith("."), "a file name",
             "file names"),
    "date": ("string", calendar_date, "a date YYYY-MM-DD", "dates YYYY-MM-DD"),
    "rules_date": ("string", rules_date_text, "a rules date YYYY-MM-DD or YYYY-MM-DD.N",
                   "rules dates"),
    "sha256": ("string", lambda v: isinstance(v, str) and SHA256.fullmatch(v) is not None,
               "64 lower-case hex digits", "sha256 digests"),
    "count": ("integer", lambda v: whole_number(v) and v >= 0, "a whole number >= 0",
              "whole numbers >= 0"),
    "utc_time": ("string", utc_time, "a UTC time YYYY-MM-DDTHH:MM:SS.mmmZ", "UTC times"),
}


def wrong_field(line, fields, prefix=""):
    """The first field of ``line`` that breaks its rule in ``fields`` (the
    spec), as a phrase (``response must be an object or null, not a list``);
    None when none does. ``prefix`` goes before the key (``calls[0].``). The
    line's keys the spec does not name are left alone: a raw line's other
    fields are its writer's."""
    return _wrong_keys(line, fields, prefix, closed=False)


def check(record, spec, where):
    """Refuse (BadInput, ``where: what``) a record that breaks ``spec`` or
    has a key it does not name."""
    problem = _wrong_keys(record, spec, "", closed=True) if isinstance(record, dict) \
        else f"must be an object, not {_name_of(record)}"
    if problem is not None:
        raise BadInput(f"{where}: {problem}")


def check_ids(records, where, name):
    """Refuse a list ``name`` of objects in which an id is not a non-empty
    string (``where: name[3]: ...``) or comes twice (``where: med-en-01:
    duplicate id``), before any is checked by its id."""
    seen = set()
    for index, record in enumerate(records):
        if not _text(record.get("id")):
            raise BadInput(f"{where}: {name}[{index}]: id must be a non-empty string")
        if record["id"] in seen:
            raise BadInput(f"{where}: {brief(record['id'])}: duplicate id")
        seen.add(record["id"])


# A spec worked out once: its key for the keys it does not name ("*" or
# "+...", or None), the names it gives, and (name, may be absent, rule, the
# rule's tests) of each. A question file of 100,000 questions is checked against the same two
# specs 100,000 times (make bench). Each entry keeps its spec, so that the id
# it is found by stays that spec's.
_LAYOUTS = {}


def _layout(spec):
    known = _LAYOUTS.get(id(spec))
    if known is None or known[0] is not spec:
        other = next((key for key in spec if key[:1] in ("*", "+")), None)
        fields = [(key.rstrip("?"), key.endswith("?"), rule, _fit(rule))
                  for key, rule in spec.items() if key != other]
        known = _LAYOUTS[id(spec)] = (spec, (other, {field[0] for field in fields}, fields))
    return known[1]


def _fits(value, tests):
    """True when ``value`` passes one of the tests of a rule (_tests),
    checked before any place is named: most values do."""
    for test in tests:
        if test(value):
            return True
    return False


def _fit(rule):
    """``_fits`` of one rule as one function: its one test, where it has one."""
    tests = _tests(rule)
    return tests[0] if len(tests) == 1 else functools.partial(_fits, tests=tests)


def _wrong_keys(record, spec, prefix, closed):
    other, named, fields = _layout(spec)
    if (other is None and not closed) or (other == "*" and spec[other] == "any"):
        return _wrong_named(record, fields, prefix)  # the other keys are the writer's
    rest = sorted(record.keys() - named)
    if other is not None and other[0] == "+" and not rest:
        return f"{prefix[:-1]} must not be empty"
    problem = _wrong_named(record, fields, prefix)
    if problem is None and rest:
        if other is not None:
            problem = _wrong_others(record, rest, other, spec[other], prefix)
        elif closed:
            problem = (f"{prefix[:-1]}: " if prefix else "") + f"unknown key(s) {listed(rest)}"
    return problem


def _wrong_named(record, fields, prefix):
    """The first of the fields a spec names that is missing or breaks its rule."""
    for name, optional, rule, fits in fields:
        if name not in record:
            if optional:
                continue
            if isinstance(rule, Worded):
                return rule.words.format(place=prefix + name, value="")
            # A rule of values says what to write there; one of JSON types only,
            # a raw line's, that the line lost a field.
            only_types = isinstance(rule, str) and all(_KINDS[k][0] == k for k in _kinds(rule))
            return f"{prefix}{name} is missing" if only_types \
                else f"{prefix}{name} must be {_wanted(rule)}"
        if not fits(record[name]):
            problem = _wrong(record[name], rule, prefix + name)
            if problem is not None:
                return problem
    return None


def _wrong_others(record, keys, other, rule, prefix):
    """The first of ``keys`` (those the spec does not name) whose name or
    value breaks the spec's ``other`` entry ("*", "+" or "+name")."""
    for key in keys:
        if other[1:] and not _KINDS[other[1:]][1](key):
            return f"{prefix[:-1]}: key {shown(key)} must be {_wanted(other[1:])}"
        problem = _wrong(record[key], rule, prefix + brief(key))
        if problem is not None:
            return problem
    return None


def _wrong(value, rule, place):
    """What is wrong with ``value`` under ``rule``, naming it ``place``; None
    when nothing is."""
    if isinstance(rule, Worded):
        return _wrong_worded(value, rule, place)
    if isinstance(rule, dict):
        if not isinstance(value, dict):
            return f"{place} must be an object, not {_name_of(value)}"
        return _wrong_keys(value, rule, place + ".", closed=True)
    if isinstance(rule, list):
        return _wrong_list(value, rule, place)
    if isinstance(rule, tuple):
        if _one_of(rule, value):
            return None
        return f"unknown {place} {shown(value)} ({place} must be {_wanted(rule)})"
    if _fits(value, _tests(rule)):
        return None
    # A value of the right JSON type is wrong by its value, not its type.
    found = "" if any(_KINDS[_KINDS[kind][0]][1](value) for kind in _kinds(rule)) \
        else f", not {_name_of(value)}"
    return f"{place} must be {_wanted(rule)}{found}"


def _wrong_worded(value, worded, place):
    """Worded: its words where ``value`` is not of the rule's form, else the
    words of the rules of what it holds."""
    rule = worded.rule
    if value is None and worded.null:
        return None
    problem = _wrong(value, rule, place)
    if problem is None or (isinstance(rule, dict) and isinstance(value, dict)) or \
            (isinstance(rule, list) and isinstance(value, list) and (len(rule) == 1 or value)):
        return problem
    return worded.words.format(place=place, value=shown(value))


def _wrong_list(value, rule, place):
    """``[rule]``: a list, each item by the rule; ``[rule, ...]``: one at least."""
    if not isinstance(value, list) or (len(rule) > 1 and not value):
        found = "" if isinstance(value, list) else f", not {_name_of(value)}"
        return f"{place} must be {_wanted(rule)}{found}"
    tests = _tests(rule[0])
    for index, item in enumerate(value):
        if not _fits(item, tests):
            problem = _wrong(item, rule[0], f"{place}[{index}]")
            if problem is not None:
                return problem
    return None


@functools.lru_cache(maxsize=None)
def _kinds(rule):
    """A rule's kinds, split once: specs are a handful of constants."""
    return tuple(rule.split("|"))


def _tests(rule):
    """The tests of a rule, one of which a value passes (``_fits``), made
    once a rule: of its kinds or its values, or the whole check of an object
    or a list, run without naming a place (``_wrong`` names the place of a
    value that fails, by the same rules)."""
    known = _TESTS.get(id(rule))
    if known is None or known[0] is not rule:
        known = _TESTS[id(rule)] = (rule, _made_tests(rule))
    return known[1]


_TESTS = {}


def _made_tests(rule):
    if isinstance(rule, Worded):
        return (_KINDS["null"][1],) * rule.null + _tests(rule.rule)
    if isinstance(rule, tuple):
        return (functools.partial(_one_of, rule),)
    if isinstance(rule, dict):
        return (lambda value: isinstance(value, dict)
                and _wrong_keys(value, rule, "", closed=True) is None,)
    if isinstance(rule, list):
        return (lambda value: _wrong_list(value, rule, "") is None,)
    return tuple(_KINDS[kind][1] for kind in _kinds(rule))


def _one_of(values, value):
    """Whether ``value`` is one of ``values`` (1.0 and true are not 1)."""
    return any(value == known and type(value) is type(known) for known in values)


def _wanted(rule, many=False):
    """A rule in a message's words: ``a list of file names``."""
    if isinstance(rule, Worded):
        return _wanted(rule.rule, many)
    if isinstance(rule, dict):
        return "objects" if many else "an object"
    if isinstance(rule, list):
        kind = ("non-empty " if len(rule) > 1 else "") + ("lists" if many else "list")
        return f"{'' if many else 'a '}{kind} of {_wanted(rule[0], many=True)}"
    if isinstance(rule, tuple):
        names = [str(value) for value in rule]
        return " or ".join(filter(None, [", ".join(names[:-1]), names[-1]]))
    return " or ".join(_KINDS[kind][3 if many else 2] for kind in rule.split("|"))


def _name_of(value):
    if isinstance(value, list):
        other = [item for item in value if not isinstance(item, dict)]
        return f"a list holding {_name_of(other[0])}" if other else "a list"
    for kind in ("null", "boolean", "string", "integer", "object"):
        if _KINDS[kind][1](value):
            return _KINDS[kind][2]
    return "a number"  # a float: JSON has no other type left

"""The JSON types of a record's fields, checked before a script reads them.

``wrong_field(record, fields)`` names the first field of a record (a raw
line, an atoms line, a call) that is missing or not of its type, in one
phrase a refusal can quote (``response must be an object or null, not a
list``). It checks types only, never values: each loader says what else a
field must be. Scoring and asking both use it, so it imports nothing of
either.
"""

from . import BadInput, whole_number


def check_format(record, where, known=1):
    """Refuse a record (a line of a file a tool continues) of a format other
    than ``known``: a whole number, as the tools write it (JSON's 1.0 is a
    float, and true a bool, though Python finds both equal to 1)."""
    if not whole_number(record.get("format")) or record["format"] != known:
        raise BadInput(f"{where}: format {record.get('format')!r} is not one this tool knows "
                       f"({known})")


# The JSON types of wrong_field, and how a message names them.
_TYPES = {"object": (dict, "an object"), "objects": (list, "a list of objects"),
          "list": (list, "a list"), "string": (str, "a string"),
          "integer": (int, "an integer"), "boolean": (bool, "true or false"),
          "null": (type(None), "null")}


def wrong_field(line, fields, prefix=""):
    """The first field of ``line`` that is not of its type, as a message
    (``response must be an object or null, not a list``); None when every
    one is. ``fields`` maps a key to its types, ``|``-separated: object,
    objects (a list of objects), list, string, integer, boolean, null; a
    key ending in ``?`` may be absent. ``prefix`` goes before the key in
    the message (``calls[0].``)."""
    for name, types in fields.items():
        key = name.rstrip("?")
        if key not in line:
            if name.endswith("?"):
                continue
            return f"{prefix}{key} is missing"
        value = line[key]
        allowed = types.split("|")
        if not any(_is(value, kind) for kind in allowed):
            wanted = " or ".join(_TYPES[kind][1] for kind in allowed)
            return f"{prefix}{key} must be {wanted}, not {_name_of(value)}"
    return None


def _is(value, kind):
    if kind == "objects":
        return isinstance(value, list) and all(isinstance(item, dict) for item in value)
    if kind == "integer" and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind][0])


def _name_of(value):
    if isinstance(value, list):
        other = [item for item in value if not isinstance(item, dict)]
        return f"a list holding {_name_of(other[0])}" if other else "a list"
    for kind in ("null", "boolean", "string", "integer", "object"):
        if _is(value, kind):
            return _TYPES[kind][1]
    return "a number"  # a float: JSON has no other type left

"""JSON asked for in the prompt, for a model with no JSON mode or forced tool.

``instruction(schema)`` is the text appended to the user's message: reply
with one JSON object only, following the schema (shown as JSON). ``read(text,
schema)`` is ``(data, problem)``: the object, or None and why not. It accepts
the object alone or inside one Markdown code fence (many instruction-tuned
models fence JSON whatever they are told), and checks that the schema's
required top-level keys are there. Worked example::

    read('```json\\n{"answer": "hi"}\\n```', {"required": ["answer"]})
    -> ({"answer": "hi"}, None)

What it does not do: validate the whole schema (the scripts validate what
they asked for), or repair JSON that does not parse.
"""

import json
import re

from .base import parse_json_text

_FENCE = re.compile(r"^```[A-Za-z]*\s*\n(.*)\n\s*```$", re.DOTALL)


def instruction(schema):
    return ("\n\nReply with one JSON object only, with no other text, that follows this JSON "
            "schema:\n" + json.dumps(schema, ensure_ascii=False, sort_keys=True))


def read(text, schema):
    text = (text or "").strip()
    fenced = _FENCE.match(text)
    data, problem = parse_json_text(fenced.group(1) if fenced else text)
    if data is None:
        return None, problem
    required = schema.get("required") if isinstance(schema, dict) else None
    missing = [k for k in required or [] if isinstance(k, str) and k not in data]
    if missing:
        return None, f"reply JSON lacks the required key(s) {', '.join(missing)}"
    return data, None

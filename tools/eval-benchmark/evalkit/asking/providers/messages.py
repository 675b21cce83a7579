"""What a call sends and what it gets back: the Request, the Reply, and a
call's usage as recorded. Apart from base.py, so that the tool loop
(toolloop.py) and the clients (base.py) both read them without importing
each other."""

from ...families import served_name


class Request:
    def __init__(self, system, user, model, schema=None, schema_name="record",
                 max_tokens=2048, temperature=None, timeout=120.0):
        self.system = system
        self.user = user
        self.model = model
        self.schema = schema
        self.schema_name = schema_name
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.timeout = timeout


class Reply:
    def __init__(self, text, data, usage, raw, attempts, model=None, stop=None, problem=None,
                 truncated=False, model_reduced=None):
        self.text = text          # the reply's text (for a schema reply, its JSON text)
        self.data = data          # the parsed JSON object, or None
        self.usage = usage        # tokens in and out (usage_record), the API's own fields in "api"
        self.raw = raw            # the response body as received (base.without_model_path)
        self.attempts = attempts
        # The model the API reports; a path of a file (llama.cpp's server
        # without --alias) reduced to the file's name, and model_reduced True.
        self.model, reduced = served_name(model)
        self.model_reduced = reduced if model_reduced is None else model_reduced
        self.stop = stop          # why generation stopped, as the API says
        self.problem = problem    # why data is None when a schema was asked for
        self.truncated = truncated  # True: cut off at the token limit (stop says which)


def usage_record(api, input_tokens, output_tokens, cached=None, cache_write=None):
    """A call's usage as recorded: ``input_tokens`` (every input token, cached
    ones included), ``output_tokens``, ``cached_input_tokens`` (read from a
    prompt cache), ``cache_write_input_tokens`` (written to one; Anthropic and
    Bedrock), ``reported`` (False when the reply carried no usage, or no
    input and output counts: the numbers are then null, never guessed) and
    ``api``, the usage object exactly as the API returned it (or null)."""
    numbers = [n if is_count(n) else None for n in (input_tokens, output_tokens, cached, cache_write)]
    reported = numbers[0] is not None and numbers[1] is not None
    if not reported:
        numbers = [None] * 4
    return {"input_tokens": numbers[0], "output_tokens": numbers[1],
            "cached_input_tokens": numbers[2], "cache_write_input_tokens": numbers[3],
            "reported": reported, "api": api if isinstance(api, dict) else None}


def is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def count_or_zero(value):
    return value if is_count(value) else 0

"""Reading the raw answer lines, a chunk of lines at a time.

A chunk is a byte range of one raw file that begins at a line's start
(``jsonl.line_ranges``). Reading a chunk checks each line, derives its
answer from the body and does the work on the answer that needs no question
(``measures.analyze_answer``): it needs the DECLINE phrases and nothing else,
so chunks can be read in any process and in any order (evalkit/parallel.py),
and a worker never reads the question files, which take more memory than
anything else. score.py takes the results in file order: it matches each
answer to its question, checks that no question is answered twice, judges
and applies the reviews.

A chunk knows the numbers of its lines only from its own first line; an
error is kept as ``(line in the chunk, message after "file:line")`` and given
its place in the file by ``Chunked.where`` when it is reported.
"""

import re

from . import BadInput
from .jsonl import count_lines_before, iter_jsonl, line_ranges
from .measures import analyze_answer, read_raw_line

# Chunks of about this many bytes: small enough to share out evenly (the
# last one read is about 50 ms of work), large enough that taking one costs
# nothing next to reading it.
CHUNK_BYTES = 3 << 19  # 1.5 MB
_LINE = re.compile(r"(\d+)(:.*)\Z", re.DOTALL)


class RunFacts:
    """What the provenance needs from the raw lines, gathered while reading
    them, so no line's run and target blocks are kept per answer."""

    def __init__(self):
        self.runs = {}
        self.tools = set()
        self.targets = set()
        self.providers = set()
        self.models = set()
        self.platforms = set()
        self.dates = set()
        self.lines = 0

    def add(self, got):
        run, target = got.pop("run"), got.pop("target")
        self.lines += 1
        run_id = str(run.get("run_id"))
        if run_id not in self.runs:
            self.runs[run_id] = {"git_commit": run.get("git_commit"),
                                 "git_dirty": run.get("git_dirty"), "python": run.get("python")}
        self.tools.add(run.get("tool"))
        self.targets.add(f"{target.get('kind')} at {target.get('url')}")
        if target.get("provider"):
            self.providers.add(str(target["provider"]))
        if target.get("model"):
            self.models.add(str(target["model"]))
        if got["platform_version"]:
            self.platforms.add(got["platform_version"])
        if isinstance(got["started_at"], str):
            self.dates.add(got["started_at"][:10])

    def merge(self, other):
        """Add a later chunk's facts (the first line of a run describes it)."""
        for run_id, run in other.runs.items():
            self.runs.setdefault(run_id, run)
        for name in ("tools", "targets", "providers", "models", "platforms", "dates"):
            getattr(self, name).update(getattr(other, name))
        self.lines += other.lines


def plan(raw_files, jobs):
    """The chunks of the raw files: ``(path, start, end)``; one per file
    when a single process judges them."""
    if jobs <= 1:
        return [(path, 0, None) for path in raw_files]
    return [(path, start, end) for path in raw_files
            for start, end in line_ranges(path, CHUNK_BYTES)]


class State:
    """What reading a chunk needs: the DECLINE matchers, and whether every
    answer itself is kept."""

    def __init__(self, phrases, keep_answers):
        self.phrases = phrases
        self.keep_answers = keep_answers


def worker_state(phrases, keep_answers):
    """The state of a worker process (evalkit/parallel.py)."""
    import gc
    gc.disable()  # as in score.py: what a worker builds holds no reference cycles
    return State(phrases, keep_answers)


def read_chunk(state, chunk):
    """Read every line of a chunk: a dict with ``answers``, ``shas`` (the
    question files' sha256 the lines name), ``facts`` (RunFacts) and
    ``error`` (None, or the first bad line as ``(line in the chunk, message
    after "file:line")``).

    Each answer is a flat tuple, in file order: id, line in the chunk, index
    in ``shas``, what judging and the rows need of the line (status, answer,
    sources, grounded, latency_ms, problem, attempts), then
    ``measures.analyze_answer``'s six. score.py's ``take`` unpacks it in this
    order. Flat tuples, and each sha256 sent once, took half the time of dicts
    to send to this process and back.

    The answer itself is kept only where the rows show it
    (``State.keep_answers``) or where the line's language is not the one its
    letters were counted in; else it is False, and a question of another
    language than its line's has it read again (``Reread``)."""
    path, start, end = chunk
    facts = RunFacts()
    shas = {}
    answers = []
    error = None
    try:
        for number, line in iter_jsonl(path, start, end):
            got = read_raw_line(line, f"{path}:{number}")
            facts.add(got)
            answer = got["answer"]
            analysis = analyze_answer(answer, line.get("lang"), line.get("kind"), state.phrases)
            if not state.keep_answers and analysis[2] == line.get("lang"):
                answer = False
            sha = got["cases_sha256"]
            answers.append((got["id"], number, shas.setdefault(sha, len(shas)), got["status"],
                            answer, got["sources"], got["grounded"], got["latency_ms"],
                            got["problem"], got["attempts"]) + analysis)
    except BadInput as exc:
        # Every error about a line begins with "file:line".
        message = str(exc)
        found = _LINE.match(message[len(path) + 1:]) if message.startswith(path + ":") else None
        error = (int(found.group(1)), found.group(2)) if found else (None, message)
    return {"answers": answers, "shas": list(shas), "facts": facts, "error": error}


class Reread:
    """Answers of a chunk's lines read again, wanted only where a line names
    another language than its question's and the answer was not kept
    (``read_chunk``). Asked for in increasing line order, so the chunk is
    read once, however many of its lines are wanted."""

    def __init__(self, chunk):
        self.path, start, end = chunk
        self._lines = iter_jsonl(self.path, start, end)

    def answer(self, number):
        for at, line in self._lines:
            if at == number:
                return read_raw_line(line, f"{self.path}:{at}")["answer"]
        raise BadInput(f"{self.path}: changed while being scored")


class Chunked:
    """Line numbers of chunks in their files, counted only when needed."""

    def __init__(self, chunks):
        self.chunks = chunks
        self._before = {}

    def where(self, index, number):
        path, start, _end = self.chunks[index]
        if start not in (0, None) and (path, start) not in self._before:
            self._before[path, start] = count_lines_before(path, start)
        return f"{path}:{self._before.get((path, start), 0) + number}"

    def error(self, index, error):
        number, message = error
        return message if number is None else self.where(index, number) + message

"""Reading and judging the raw answer lines, a chunk of lines at a time.

A chunk is a byte range of one raw file that begins at a line's start
(``jsonl.line_ranges``). Judging a chunk needs the question files and the
DECLINE phrases, nothing else, so chunks can be judged in any process and
in any order (evalkit/parallel.py); score.py puts the results back in file
order, checks that no question is answered twice, and applies the reviews.

A chunk knows the numbers of its lines only from its own first line; an
error is kept as ``(line in the chunk, message after "file:line")`` and given
its place in the file by ``Chunked.where`` when it is reported.
"""

import re

from . import BadInput
from .cases import question_item
from .jsonl import count_lines_before, iter_jsonl, line_ranges, read_json_sha
from .measures import judge, read_raw_line

# Chunks of about this many bytes: small enough to share out evenly, large
# enough that taking one costs nothing next to judging it.
CHUNK_BYTES = 4 << 20
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
    """What judging needs: the question sets by sha256, the DECLINE
    matchers, and whether the answers and details are kept."""

    def __init__(self, by_sha, phrases, keep_detail):
        self.by_sha = by_sha
        self.phrases = phrases
        self.keep_detail = keep_detail


class _Questions:
    """A question file read by a worker: the checks are the main process's
    (it reads the same file, and a worker's results count only if the file
    passed them and has the same sha256); questions are built when asked for."""

    def __init__(self, path):
        doc, self.sha256 = read_json_sha(path)
        self.path = path
        self._raw = {q["id"]: q for q in doc["questions"]}
        self._set = doc["set"]
        self.by_id = self

    def __contains__(self, qid):
        return qid in self._raw

    def __getitem__(self, qid):
        return question_item(self._raw[qid], self._set)


def worker_state(question_files, phrases, keep_detail):
    """The state of a worker process (evalkit/parallel.py)."""
    import gc
    gc.disable()  # as in score.py: what a worker builds holds no reference cycles
    sets = [_Questions(path) for path in question_files]
    return State({qset.sha256: qset for qset in sets}, phrases, keep_detail)


def judge_chunk(state, chunk):
    """Judge every line of a chunk: a dict with ``answers`` (``(id, line in
    the chunk, got, verdicts, details)`` in file order), ``facts`` (RunFacts),
    ``shas`` (of the question files used) and ``error`` (None, or the first
    bad line as ``(line in the chunk, message after "file:line")``)."""
    path, start, end = chunk
    facts = RunFacts()
    answers = []
    error = None
    try:
        for number, line in iter_jsonl(path, start, end):
            where = f"{path}:{number}"
            got = read_raw_line(line, where)
            qset = state.by_sha.get(got["cases_sha256"])
            if qset is None:
                raise BadInput(
                    f"{where}: answers a question file with sha256 {got['cases_sha256'][:12]}, "
                    "which matches none of the files given; questions are frozen: "
                    "score against the exact file that was asked")
            if got["id"] not in qset.by_id:
                raise BadInput(f"{where}: {got['id']} is not a question of {qset.path}")
            facts.add(got)
            mechanical, details = judge(qset.by_id[got["id"]], got, state.phrases)
            kept = {"latency_ms": got["latency_ms"], "problem": got["problem"]}
            if state.keep_detail:
                kept.update(answer=got["answer"], sources=got["sources"],
                            grounded=got["grounded"], attempts=got["attempts"])
            else:
                details = None
            answers.append((got["id"], number, kept, mechanical, details))
    except BadInput as exc:
        # Every error about a line begins with "file:line".
        message = str(exc)
        found = _LINE.match(message[len(path) + 1:]) if message.startswith(path + ":") else None
        error = (int(found.group(1)), found.group(2)) if found else (None, message)
    return {"answers": answers, "facts": facts, "error": error,
            "shas": sorted(state.by_sha)}


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

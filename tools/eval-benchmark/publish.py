#!/usr/bin/env python3
"""Assemble a quarter folder from a run's files, score it, write its manifest.

    python3 tools/eval-benchmark/publish.py QUARTER --from WORK [--bench DIR]
        [--force] [--allow-unreviewed]

Takes from WORK the raw answers (raw-*.jsonl) and, if present, the reviews
(reviews-QUARTER.json); takes from the benchmark folder (--bench, default
Documents/c4-benchmark) the question files those raw lines were asked from,
checked by sha256. Scores them (results.md, results.json, the results pages
index.html, index.he.html and index.ru.html: evalkit/pages/htmlpage.py), writes
MANIFEST.json, and moves the whole folder into place at once:
BENCH/QUARTER/. Bad results are published exactly like good ones.

Refuses (exit 2): a quarter name that is not YYYY-QN or a plain slug (one
nearly YYYY-QN, such as 2026q4, 2026-q4 or 2026Q4, with "did you mean
2026-Q4?"); a run without raw-*.jsonl files, or whose raw files hold no
answer (they name no question file: nothing to score); raw answers asked from
other question files than those in the benchmark folder now (these before
anything is written); a quarter already published (unless --force); a quarter
where an answer the rubric requires a person to read has no review entry, or
(rules of 2026-12-02 on) a sampled pass lacks an entry for a measure that
applies to it (unless --allow-unreviewed, and then the results say so in plain
words).

    python3 tools/eval-benchmark/publish.py QUARTER --check [--from WORK] [--bench DIR]

publishes nothing: it checks the quarter's name and, with --from, that WORK's
raw answers were asked from the question files in the benchmark folder as they
are now, byte for byte (their sha256), and exits 0, or 2 with the refusal.
The Makefile checks QUARTER so, and a run whose question files are newer than
its run.done: a git checkout writes them again with the same bytes, and only
other bytes mean other questions.
"""

import os
import re
import shutil
import sys
import tempfile

try:
    import fcntl
except ImportError:  # Windows: publishes into one folder are not kept apart
    fcntl = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import VERSION, BadInput, cli  # noqa: E402
from evalkit.pages import outputs  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.jsonl import dumps_file, iter_jsonl, open_regular, sha256_file, write_atomic  # noqa: E402
from evalkit.provenance import git_state, python_version  # noqa: E402
from evalkit.rubric.quarter import (SHA256, check_quarter, describe, history,  # noqa: E402
                                    input_kind, plain_name, role_of, scoring_inputs, shown)

PROG = "publish.py"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BENCH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Documents", "c4-benchmark")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/publish.py 2026-Q4 --from build/2026-Q4",
        "python3 tools/eval-benchmark/publish.py 2026-Q4 --from build/2026-Q4 --force",
        "python3 tools/eval-benchmark/publish.py 2026-Q4 --check --from build/2026-Q4"))
    parser.add_argument("quarter", help="YYYY-QN or a plain slug such as demo")
    parser.add_argument("--from", dest="work",
                        help="the run's folder (raw-*.jsonl, reviews-QUARTER.json); "
                             "required unless --check")
    parser.add_argument("--bench", default=DEFAULT_BENCH, help="the benchmark folder")
    parser.add_argument("--force", action="store_true", help="replace a published quarter")
    parser.add_argument("--allow-unreviewed", action="store_true",
                        help="publish although some required answers, or sampled passes, "
                             "have no review")
    parser.add_argument("--check", action="store_true",
                        help="publish nothing: check QUARTER's name and, with --from, that "
                             "the raw answers were asked from the question files in --bench "
                             "as they are now")
    args = parser.parse_args(argv)
    if args.work is None and not args.check:
        parser.error("the following arguments are required: --from")
    return args


# A name that is nearly a quarter's, YYYY-QN with another separator or a small
# q: 2026q4 is a slug by the letter and 2026Q4 nothing, but either is surely
# meant as 2026-Q4, and two folders for one quarter would split its history.
NEARLY_A_QUARTER = re.compile(r"([0-9]{4})([-_ .]?)([qQ])([1-4])")


def quarter_name(name):
    """``name`` when it is a quarter's name (YYYY-QN or a plain slug:
    evalkit/rubric/quarter.py's check_quarter), else BadInput; one nearly
    YYYY-QN gets its spelling. The one rule: the Makefile asks it too."""
    near = NEARLY_A_QUARTER.fullmatch(name)
    if near and near.group(2, 3) != ("-", "Q"):
        meant = f"{near.group(1)}-Q{near.group(4)}"
        wrong = [words for amiss, words in ((near.group(2) != "-", "a hyphen"),
                                            (near.group(3) != "Q", "a capital Q")) if amiss]
        raise BadInput(f"quarter {name!r}: did you mean {meant}? (a quarter is written with "
                       f"{' and '.join(wrong)}: {meant})")
    return check_quarter(name)


def asked_from(work, bench):
    """``(raw file names, question file names)`` of the run in ``work``, each
    question file the one in ``bench`` that every raw line asked from it
    records by sha256; else BadInput naming the file and a line that records
    another. Bytes, not file times: a git checkout writes a file again, the
    same bytes at a new time."""
    if not os.path.isdir(work):
        raise BadInput(f"{work}: no such folder (run the quarter first: make run)")
    raws = sorted(f for f in os.listdir(work) if f.startswith("raw-") and f.endswith(".jsonl"))
    for name in raws:
        if input_kind(name) != "raw":
            # reproduce.py reads a quarter's inputs by the same names.
            raise BadInput(f"{work}/{shown(name)}: a raw file is named raw-SET.jsonl, SET "
                           "lower-case letters, digits and hyphens (raw-biz.jsonl): rename it")
    if not raws:
        raise BadInput(f"{work}: no raw-*.jsonl answers (run the quarter first: make run)")
    questions = {}  # name -> {sha256: the first raw line that records it}
    for raw in raws:
        for number, line in iter_jsonl(os.path.join(work, raw)):
            place = f"{work}/{raw}:{number}"
            name, sha = asked_with(line, place)
            questions.setdefault(name, {}).setdefault(sha, place)
    if not questions:
        # No answer names a question file: the quarter would be scored from
        # none, and its manifest (no questions) is one reproduce.py refuses.
        others = f" nor in the {len(raws) - 1} other raw-*.jsonl" if len(raws) > 1 else ""
        raise BadInput(f"{os.path.join(work, raws[0])}: no answer line in it{others}, so no "
                       "question file is named to score: nothing to publish (run the quarter "
                       "first: make run)")
    for name, shas in sorted(questions.items()):
        source = os.path.join(bench, name)
        if not os.path.exists(source):
            raise BadInput(f"{source}: the question file the raw answers were asked from is missing")
        actual = sha256_file(source)
        for sha, place in shas.items():  # in the order the raw lines give them
            if sha != actual:
                raise BadInput(f"{source}: sha256 {actual[:12]}, but {place} was asked from "
                               f"sha256 {sha[:12]}; questions are frozen: score and publish the "
                               "quarter with the question files it was asked, or run a new "
                               "quarter (make run QUARTER=...)")
    return raws, sorted(questions)


def asked_with(line, place):
    """``(question file name, its sha256)`` that a raw line (at ``place``)
    records it was asked from; else BadInput."""
    run = line.get("run") if isinstance(line.get("run"), dict) else {}
    name, sha = run.get("cases_file"), run.get("cases_sha256")
    if not plain_name(name) or input_kind(name) != "questions":
        raise BadInput(f"{place}: run.cases_file {shown(name)} is not a question file name")
    if not isinstance(sha, str) or not SHA256.fullmatch(sha):
        raise BadInput(f"{place}: run.cases_sha256 {shown(sha)} is not the sha256 of a "
                       "question file (64 hex digits)")
    return name, sha


def gather(work, bench, quarter, staging, asked):
    """Copy the inputs into ``staging``: ``asked``, the raw and question
    files (asked_from), and the history and reviews; return their names."""
    raws, question_files = asked
    names = []
    for raw in raws:
        copy_in(os.path.join(work, raw), staging, raw)
        names.append(raw)
    for name in question_files:
        copy_in(os.path.join(bench, name), staging, name)
        names.append(name)
    past = history(bench, quarter)
    if past is not None:
        with open(os.path.join(staging, "history.json"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(dumps_file(past))
        names.append("history.json")
    reviews = f"reviews-{quarter}.json"
    others = sorted(f for f in os.listdir(work)
                    if f.startswith("reviews") and f.endswith(".json") and f != reviews)
    if os.path.exists(os.path.join(work, reviews)):
        copy_in(os.path.join(work, reviews), staging, reviews)
        names.append(reviews)
        for other in others:
            cli.say(PROG, f"{work}/{other} is not read: the reviews file is {work}/{reviews}")
    elif others:
        raise BadInput(f"{work}/{others[0]}: the reviews of {quarter} are read from "
                       f"{work}/{reviews} only: rename it")
    return sorted(names)


def copy_in(source, staging, name):
    """Copy ``source`` into the staging folder as ``name``: a regular file
    only (a FIFO in the run's folder is refused in one line, never waited on)."""
    with open_regular(source) as fh, open(os.path.join(staging, name), "wb") as out:
        shutil.copyfileobj(fh, out)


def build(staging, quarter, allow_unreviewed, work):
    """Score the staged inputs and write outputs and MANIFEST.json."""
    scoring = dict(scoring_inputs(os.listdir(staging), quarter), decline_as_of=None)
    result = siteqa.score_quarter(staging, scoring)
    cov = result["review_coverage"]
    sample = result["sampled_review"]["coverage"] if "sampled_review" in result else None
    if (cov["missing"] or sample and sample["missing"]) and not allow_unreviewed:
        raise BadInput(unreviewed(cov, sample) + f"; write them into {work}/reviews-{quarter}.json "
                       f"from the review sheet (score.py --review-sheet writes one; make "
                       f"score QUARTER={quarter} writes build/{quarter}/review-sheet.md), or "
                       "publish without them: --allow-unreviewed "
                       "(make: PUBLISH_FLAGS=--allow-unreviewed)")
    rules_date = result["provenance"]["decline_list_date"]
    scoring["decline_as_of"] = rules_date
    outputs.write_outputs(result, staging)
    commit, dirty = git_state()
    listing = {name: describe(staging, name, role_of(name))
               for name in sorted(os.listdir(staging)) if role_of(name)}
    manifest = {
        "format": 2, "quarter": quarter, "files": listing,
        "scoring": scoring,
        "decline_list_date": rules_date,
        "scored_with": {"tool": "score.py", "version": VERSION, "git_commit": commit,
                        "git_dirty": dirty, "python": python_version()},
        "runs": {"run_dates": result["provenance"]["run_dates"],
                 "platform_versions": result["provenance"]["platform_versions"],
                 "run_ids": result["provenance"]["run_ids"]},
        "review_coverage": cov,
        "unreviewed_allowed": bool(cov["missing"] or sample and sample["missing"]),
    }
    if sample is not None:
        manifest["sampled_review"] = sample
    write_atomic(os.path.join(staging, "MANIFEST.json"), dumps_file(manifest))
    return manifest


def unreviewed(cov, sample):
    """What is not reviewed, in words: the answers the rubric requires a
    person to read, and the sampled passes (each needs an entry for every
    measure that applies)."""
    parts = []
    if cov["missing"]:
        parts.append(f"{len(cov['missing'])} of {cov['required']} answers the rubric requires "
                     f"a person to read have no review entry (first: {cov['missing'][0]})")
    if sample and sample["missing"]:
        first = sample["missing"][0]
        parts.append(f"{len(sample['missing'])} of {sample['sampled']} sampled answers lack an "
                     "entry for a measure sampled (first: "
                     f"{first['id']} {first['measures'][0]})")
    return "; ".join(parts)


def check_command(args):
    """--check: the quarter's name and, with --from, the question files its
    raw answers were asked from; nothing is written."""
    quarter_name(args.quarter)
    if args.work is not None:
        asked_from(args.work, args.bench)
    return 0


# What a publish makes beside the quarters while it works, and removes: a
# killed one leaves them (tempfile adds the rest of the name).
LEFT_BEHIND = re.compile(r"\.(?P<quarter>.+)\.(?P<kind>staging|old)-[A-Za-z0-9_]+")


def lock_bench(bench):
    """One publish at a time into ``bench``: the folder itself is locked
    (fcntl.flock on it), so nothing is left there, and the kernel lets go
    when the process ends, however it ends. The open folder, to be closed
    when done; None where fcntl is missing."""
    if fcntl is None or not os.path.isdir(bench):
        return None
    fd = os.open(bench, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BadInput(f"{bench}: another publish.py is publishing into it now: wait for it "
                       "to end") from None
    except OSError:
        pass  # a file system without locks: as where fcntl is missing
    return fd


def clear_left_behind(bench):
    """What a publish that was killed left in ``bench``: its staging folder
    (removed) and a published quarter it had moved aside to replace
    (put back where no quarter took its place, else removed: the publish
    had replaced it). Each said in one line; anything else of such a name
    named and left as it is. Run under lock_bench: no publish is at work."""
    for name in sorted(os.listdir(bench)) if os.path.isdir(bench) else []:
        found = LEFT_BEHIND.fullmatch(name)
        path = os.path.join(bench, name)
        if found is None:
            continue
        if os.path.islink(path) or not os.path.isdir(path):
            cli.say(PROG, f"{path}: named like a stopped publish's folder, but not a folder: "
                          "left as it is")
            continue
        aside = os.path.join(path, found.group("quarter"))
        target = os.path.join(bench, found.group("quarter"))
        if found.group("kind") == "old" and os.path.isdir(aside) and not os.path.lexists(target):
            os.rename(aside, target)
            cli.say(PROG, f"{target}: put back where it was published (a publish --force "
                          f"stopped after moving it aside to {path})")
        shutil.rmtree(path)
        cli.say(PROG, f"{path}: removed, left by a publish that was stopped")


def publish_command(args):
    if args.check:
        return check_command(args)
    quarter = quarter_name(args.quarter)
    held = lock_bench(args.bench)
    try:
        clear_left_behind(args.bench)
        return publish_quarter(args, quarter)
    finally:
        if held is not None:
            os.close(held)


def publish_quarter(args, quarter):
    target = os.path.join(args.bench, quarter)
    if os.path.exists(target) and not args.force:
        raise BadInput(f"{target}: already published; to replace it, pass --force "
                       "(make: PUBLISH_FLAGS=--force)")
    # The run's files are checked before anything is written: a run that
    # cannot be published leaves no folder behind, not even the benchmark's.
    asked = asked_from(args.work, args.bench)
    os.makedirs(args.bench, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=f".{quarter}.staging-", dir=args.bench)
    try:
        try:
            gather(args.work, args.bench, quarter, staging, asked)
            manifest = build(staging, quarter, args.allow_unreviewed, args.work)
        except BadInput as exc:
            raise BadInput(users_paths(str(exc), staging, args.work, args.bench)) from None
        os.chmod(staging, folder_mode())
        old = None
        if os.path.exists(target):
            old = tempfile.mkdtemp(prefix=f".{quarter}.old-", dir=args.bench)
            os.rename(target, os.path.join(old, quarter))
        try:
            os.rename(staging, target)
        except BaseException:
            # The published quarter goes back where it was: a failed --force
            # leaves the old quarter, never no quarter at all.
            if old:
                os.rename(os.path.join(old, quarter), target)
                os.rmdir(old)
            raise
        if old:
            shutil.rmtree(old)
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging)
    cov = manifest["review_coverage"]
    sample = manifest.get("sampled_review")
    cli.say(PROG, f"published {target}: {len(manifest['files'])} files, "
                  f"reviewed {cov['reviewed']} of {cov['required']} required"
                  + (f" and {sample['reviewed']} of {sample['sampled']} sampled" if sample else ""))
    return 0


def users_paths(message, staging, work, bench):
    """``message`` with each file of the staging folder named where the user
    keeps it: the run's folder for raw answers and reviews, the benchmark
    folder for question files. The staging folder is gone when they read it."""
    def where(match):
        name = match.group(1)
        return os.path.join(bench if name.startswith("questions-") else work, name)
    return re.sub(re.escape(staging + os.sep) + r"([^\s:/]+)", where, message)


def folder_mode():
    """The mode os.makedirs would give a new folder (0755 under the usual
    umask 022): the staging folder was made 0700 by mkdtemp, private while it
    was filled, and the published folder is for everyone to read."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, publish_command)


if __name__ == "__main__":
    sys.exit(main())

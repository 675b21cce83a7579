#!/usr/bin/env python3
"""Re-score a published folder or result file and check what it publishes:
the numbers byte for byte, the pages by what they show.

    python3 tools/eval-benchmark/reproduce.py FOLDER
    python3 tools/eval-benchmark/reproduce.py evals/ai/results/RESULT.json

A result file of the intake or grounding suite (evals/ai/results/*.json) is
checked as tests/test_ai_provenance.py checks it: every figure scored again
from the file's per-case records and the committed inputs, and its commit,
prompts, inputs, dates, endpoint and models held to the repository's history
(evalkit/aieval/resultfile.py); one line per problem.

FOLDER is a published quarter (below) or a published scenario run, whose
MANIFEST.json says ``"suite": "scenario"`` (evalkit/pages/scenario_run.py: its
inputs checked, scored again, every output compared byte for byte, the
detail pages too).

Checks the folder first: it holds regular files only (a symbolic link, a FIFO,
a device or a subfolder in it, or a folder that is itself a link, is refused
before anything is read: evalkit/rubric/quarter.py). Then checks every file
against MANIFEST.json (sha256 and size), re-scores the inputs the manifest
names (its ``scoring`` block: question files, raw files, reviews, history,
DECLINE list date), writes the outputs into a temporary folder, and compares
results.md and results.json byte for byte with the published ones (an output
of these the scorer writes that the manifest lacks differs too; the review
sheet is a worksheet, never published, so never compared). The results pages
and results.csv are a presentation of results.json, checked by what they show
(evalkit/pages/shown.py): each published page must be the one the manifest
lists and show results.json's figures, row by row, and every question; today's
renderer may lay a page out otherwise, so a page is never compared byte for
byte. One line per file: ``verified`` (an input), ``identical``, ``shows`` (a
page) or ``differs`` (a file missing differs too); where an output differs,
the first lines of a unified diff, or what a page shows that results.json does
not say (the published side read from the regular file checked, never through
a link).
No network, no keys; nothing is written outside the temporary folder.

Under the rules of 2026-12-02 on, the sampled review of passes
(evalkit/rubric/sampling.py) is checked too: the sample results.json names must be
the one the rule draws from the inputs (it is re-drawn, so another sample
differs, and the line says so), and every sampled answer must have its
review entries (else exit 1, in one line naming the first missing one, even
when every file is identical: a quarter published with --allow-unreviewed
says so on its pages, and is not verified).

Exit codes: 0 every input verified, every result identical and every page
showing them (a scenario run: every file identical); 1 something differs, the
sampled review is incomplete, or the published inputs are ones the scorer
refuses (the results cannot follow from them: a verdict on the quarter,
named in one line); 2 could not check
(no folder, no or bad manifest, anything but a regular file in the folder,
or the temporary folder cannot be written: a full or read-only disk).
"""

import difflib
import hashlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import REPO, BadInput, cli, one_line  # noqa: E402
from evalkit.aieval import resultfile  # noqa: E402
from evalkit.jsonl import decode, sha256_of  # noqa: E402
from evalkit.pages import csvexport, outputs, scenario_run, shown  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.rubric.quarter import load_manifest, open_regular  # noqa: E402

PROG = "reproduce.py"
DIFF_LINES = 20


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/reproduce.py Documents/c4-benchmark/demo",
        "python3 tools/eval-benchmark/reproduce.py evals/permits/results/2026-12-01-local-cpu",
        "python3 tools/eval-benchmark/reproduce.py evals/ai/results/"
        "2026-12-01-intake-openai-qwen2.5-coder-1.5b-instruct.json"))
    parser.add_argument("folder", help="a published quarter or scenario folder, e.g. "
                                       "Documents/c4-benchmark/demo, or a result file of "
                                       "evals/ai/results/")
    return parser.parse_args(argv)


def check_inputs(folder, listed):
    """``(lines, ok)``: every file of the folder against the manifest."""
    lines = []
    ok = True
    present = sorted(f for f in os.listdir(folder) if f != "MANIFEST.json" and not f.startswith("."))
    for name in present:
        if name not in listed:
            lines.append(f"differs    {name} (not in MANIFEST.json)")
            ok = False
    for name in sorted(n for n, e in listed.items() if e["role"] == "input"):
        sha256, size, problem = digest_of(os.path.join(folder, name))
        if problem:
            lines.append(f"differs    {name} ({problem})")
            ok = False
        elif sha256 != listed[name]["sha256"] or size != listed[name]["bytes"]:
            lines.append(f"differs    {name} (input does not match MANIFEST.json)")
            ok = False
        else:
            lines.append(f"verified   {name}")
    return lines, ok


def digest_of(path):
    """``(sha256, bytes, None)`` of a regular file, or ``(None, None, why
    not)``: read only as the regular file it was checked to be."""
    fh, problem = open_regular(path)
    if problem:
        return None, None, problem
    digest = hashlib.sha256()
    size = 0
    with fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size, None


def compare_output(folder, name, entry, new):
    """``(lines, ok)`` of one output: identical, or the start of a diff.
    ``new`` is what the scorer wrote, None when it no longer writes it."""
    if new is None:
        return [f"differs    {name} (the scorer no longer writes it)"], False
    # Only the regular file the folder check saw is shown in a diff: never a
    # link's target (an environment file with keys) nor a FIFO's writer.
    fh, problem = open_regular(os.path.join(folder, name))
    if problem:
        return [f"differs    {name} ({problem})"], False
    with fh:
        old = fh.read()
    if new == old and sha256_of(old) == entry["sha256"]:
        return [f"identical  {name}"], True
    diff = difflib.unified_diff(old.decode("utf-8", "replace").splitlines(),
                                new.decode("utf-8", "replace").splitlines(),
                                f"published/{name}", f"re-scored/{name}", lineterm="")
    # A published file may hold terminal escapes: shown escaped, like stderr.
    shown = [f"    {cli.printable(line)}" for line in list(diff)[:DIFF_LINES]]
    if not shown:
        # Every line the same: the bytes differ where splitlines cannot show.
        shown = ["    (every line is the same: the line endings or the last newline differ; "
                 "a checkout that converts line endings, such as git's core.autocrlf, does "
                 "this)"]
    return [f"differs    {name}"] + shown, False


def is_presentation(name):
    """A results page or results.csv: a presentation of results.json."""
    return name.endswith(".html") or name == "results.csv"


def check_page(folder, name, entry, result):
    """``(lines, ok)`` of a published page or results.csv: the bytes the
    manifest lists, saying what the results say (evalkit/pages/shown.py,
    csvexport.py)."""
    fh, problem = open_regular(os.path.join(folder, name))
    if problem:
        return [f"differs    {name} ({problem})"], False
    with fh:
        data = fh.read()
    if sha256_of(data) != entry["sha256"] or len(data) != entry["bytes"]:
        return [f"differs    {name} (does not match MANIFEST.json)"], False
    check = csvexport.problems if name == "results.csv" else shown.problems
    found, compared = check(data.decode("utf-8", "replace"), result)
    if found:
        return ([f"differs    {name} (shows what results.json does not say)"]
                + [f"    {cli.printable(line)}" for line in found[:DIFF_LINES]]), False
    what = "cells" if name == "results.csv" else "figures and every question"
    return [f"shows      {name} (results.json's {compared} {what})"], True


def rescored_outputs(result):
    """``{name: bytes}`` of what the scorer writes for ``result``, written
    into a temporary folder as score.py writes them and read back."""
    with tempfile.TemporaryDirectory(prefix="reproduce-") as scratch:
        names = outputs.write_outputs(result, scratch)
        out = {}
        for name in names:
            with open(os.path.join(scratch, name), "rb") as fh:
                out[name] = fh.read()
        return out


def reproduce_command(args):
    folder = args.folder
    if folder.endswith(".json") and not os.path.isdir(folder):
        if not os.path.lexists(folder):
            raise BadInput(f"{folder}: no such result file")
        return reproduce_result_file(folder)
    not_published(folder)
    if scenario_run.is_scenario_manifest(folder):
        return reproduce_scenario_run(folder)
    manifest = load_manifest(folder)
    listed = manifest["files"]
    lines, ok = check_inputs(folder, listed)
    try:
        result = siteqa.score_quarter(folder, manifest["scoring"])
    except OSError as exc:
        # An input that is not a readable file (named among the lines
        # above): a verdict on the quarter, as an input the scorer refuses.
        return cannot_rescore(lines, folder, cli.describe_os_error(exc))
    except BadInput as exc:
        return cannot_rescore(lines, folder, exc)
    try:
        fresh = rescored_outputs(result)
    except (OSError, BadInput) as exc:
        # The scratch disk full, read-only or gone says nothing of the
        # quarter (exit 1 would say it is not reproduced): the check failed.
        reason = cli.describe_os_error(exc) if isinstance(exc, OSError) else exc
        return cli.fail(PROG, f"cannot check {folder}: writing the re-scored outputs to a "
                              f"temporary folder failed: {one_line(reason)} (free space there, "
                              "or set TMPDIR to a folder with room)")
    for name in sorted(n for n, e in listed.items() if e["role"] == "output"):
        more, same = check_output(folder, name, listed[name], result, fresh)
        lines += more
        ok = ok and same
    # An output of the numbers that was not published: the quarter is not
    # reproduced whole. (Pages are today's renderer's: an old quarter has fewer.)
    unlisted = unlisted_outputs(listed, [n for n in fresh if not is_presentation(n)])
    listing(lines + unlisted)
    return verdict(folder, result, ok and not unlisted)


def check_output(folder, name, entry, result, fresh):
    """``(lines, ok)`` of one output the manifest lists: a page or results.csv
    by what it shows, the rest byte for byte with what the scorer wrote."""
    if is_presentation(name):
        return check_page(folder, name, entry, result)
    more, same = compare_output(folder, name, entry, fresh.get(name))
    if name == "results.json" and not same and "sampled_review" in result:
        more[1:1] = other_sample(folder, result["sampled_review"])
    return more, same


def unlisted_outputs(listed, written):
    """``[line]`` for each file the scorer writes that the manifest does not
    list as an output."""
    return [f"differs    {name} (the scorer writes it; not in MANIFEST.json)"
            for name in sorted(written) if listed.get(name, {}).get("role") != "output"]


def verdict(folder, result, ok):
    """The exit code and its line: not verified while the sampled review is
    incomplete, even when every file is identical."""
    missing = result["sampled_review"]["coverage"]["missing"] \
        if "sampled_review" in result else []
    if missing:
        first = missing[0]
        sample = result["sampled_review"]["coverage"]
        return cli.fail(PROG, f"{folder}: NOT verified: the sampled review is incomplete: "
                              f"{len(missing)} of {sample['sampled']} sampled answers lack a "
                              f"review entry (first: {first['id']} {first['measures'][0]})"
                              + ("" if ok else "; and see the lines marked differs"), code=1)
    cli.say(PROG, f"{folder}: " + ("every input verified, every result identical, every "
                                   "page shows them" if ok else
                                   "NOT reproduced: see the lines marked differs"))
    return 0 if ok else 1


def reproduce_scenario_run(folder):
    """A published scenario run (evalkit/pages/scenario_run.py): its files
    checked, its inputs scored again, every output compared byte for byte."""
    scenario_run.check_tree(folder)
    manifest = scenario_run.load(folder)
    listed = manifest["files"]
    lines, ok = scenario_run.check_inputs(folder, manifest)
    try:
        fresh = scenario_run.rescored(folder, manifest)
    except BadInput as exc:
        return cannot_rescore(lines, folder, exc)
    except OSError as exc:
        return cli.fail(PROG, f"cannot check {folder}: {cli.describe_os_error(exc)}")
    # A scenario run's pages have one renderer, never frozen: compared byte
    # for byte with the rest.
    for name in sorted(n for n, e in listed.items() if e["role"] == "output"):
        more, same = compare_output(folder, name, listed[name], fresh.get(name))
        lines += more
        ok = ok and same
    unlisted = unlisted_outputs(listed, fresh)
    ok = ok and not unlisted
    listing(lines + unlisted)
    cli.say(PROG, f"{folder}: " + ("every file verified and identical" if ok else
                                   "NOT reproduced: see the lines marked differs"))
    return 0 if ok else 1


def not_published(folder):
    """Refuse, in one line, a folder without MANIFEST.json: a reader who
    gave the folder above the published ones is told their names."""
    if not os.path.isdir(folder) or os.path.islink(folder.rstrip(os.sep) or folder) or \
            os.path.lexists(os.path.join(folder, "MANIFEST.json")):
        return  # quarter.check_folder names what is wrong with it
    inside = [name for name in sorted(os.listdir(folder))
              if not os.path.islink(os.path.join(folder, name))
              and os.path.isfile(os.path.join(folder, name, "MANIFEST.json"))]
    hint = f"; the published folders in it: {', '.join(inside)}" if inside else ""
    raise BadInput(f"{folder}: no MANIFEST.json, so not a published folder{hint}")


def reproduce_result_file(path):
    """A result file of the intake or grounding suite (ai_eval.py): every
    figure scored again from its per-case records and the committed inputs,
    and its provenance held to the repository's history
    (evalkit/aieval/resultfile.py)."""
    found = resultfile.check_file(path, REPO)
    for line in found:
        print(f"differs    {cli.printable(line)}")
    if found:
        return cli.fail(PROG, f"{path}: NOT reproduced: {len(found)} problem(s) above", code=1)
    cli.say(PROG, f"{path}: every figure recomputed from its records and equal; its inputs, "
                  "prompts and commit are those of the repository's history")
    return 0


def other_sample(folder, block):
    """``[line]`` when the published results.json names a sample other than
    the one the rule draws from the inputs (``block``), else ``[]``: why
    its bytes differ, in words. The regular file checked, read as JSON;
    anything unreadable there names no sample."""
    drawn = sample_named(block)
    fh, problem = open_regular(os.path.join(folder, "results.json"))
    if problem:
        return []
    with fh:
        try:
            named = sample_named(decode(fh.read().decode("utf-8"))["sampled_review"])
        except (ValueError, KeyError, TypeError):
            named = None
    if named == drawn:
        return []
    other = [group for group in drawn if group not in (named or [])]
    return ["    " + cli.printable("(the sample it names is not the one the rule draws from "
                                    "the inputs: " + "; ".join(other) + ")")]


def sample_named(block):
    """The sample a ``sampled_review`` block names, in words: per set (rules
    of 2026-12-02), or per set and measure (2026-12-03 on), its ids."""
    out = []
    for item in block["sets"]:
        if "measures" in item:
            out += [f"{item['set']} {m['measure']} {', '.join(m['sampled'])}"
                    for m in item["measures"]]
        else:
            out.append(f"{item['set']} {', '.join(entry['id'] for entry in item['sampled'])}")
    return out


def listing(lines):
    """The lines on stdout, each name in them escaped: a file in the folder
    may be named with a terminal's escape sequences."""
    print("\n".join(cli.escaped(line) for line in lines))


def cannot_rescore(lines, folder, reason):
    """Exit 1: the lines so far, and why the folder's inputs give no results."""
    listing(lines)
    return cli.fail(PROG, f"cannot re-score {folder}: {one_line(reason)}", code=1)


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, reproduce_command)


if __name__ == "__main__":
    sys.exit(main())

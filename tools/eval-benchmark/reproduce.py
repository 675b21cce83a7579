#!/usr/bin/env python3
"""Re-score a published quarter folder and compare every output byte for byte.

    python tools/eval-benchmark/reproduce.py FOLDER

Checks every file of the folder against MANIFEST.json (sha256 and size),
re-scores the inputs the manifest names (its ``scoring`` block: question
files, raw files, reviews, history, DECLINE list date) into a temporary
folder, and compares each output with the published one (the results pages:
index.html, and from the rules of 2026-12-01 index.he.html and index.ru.html;
an output the scorer writes that the manifest lacks differs too). One line per
file: ``verified`` / ``identical`` or ``differs`` (a file missing, or a folder
in its place, differs too); where an output differs, the first lines of a
unified diff.
No network, no keys; nothing is written outside the temporary folder.

Exit codes: 0 every file verified and identical; 1 something differs, or
the published inputs are ones the scorer refuses (the results cannot follow
from them: a verdict on the quarter, named in one line); 2 could not start
(no folder, no or bad manifest).
"""

import difflib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, cli, one_line, siteqa  # noqa: E402
from evalkit.quarter import load_manifest, sha256_file  # noqa: E402

PROG = "reproduce.py"
DIFF_LINES = 20


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="a published quarter folder, e.g. "
                                       "Documents/c4-benchmark/demo")
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
        path = os.path.join(folder, name)
        problem = not_a_file(path)
        if problem:
            lines.append(f"differs    {name} ({problem})")
            ok = False
        elif sha256_file(path) != listed[name]["sha256"] or \
                os.path.getsize(path) != listed[name]["bytes"]:
            lines.append(f"differs    {name} (input does not match MANIFEST.json)")
            ok = False
        else:
            lines.append(f"verified   {name}")
    return lines, ok


def not_a_file(path):
    """Why ``path`` cannot be compared (missing, a folder, unreadable), or None."""
    if os.path.isdir(path):
        return "a folder, not a file"
    if not os.path.exists(path):
        return "missing"
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        return f"cannot read: {exc.strerror or type(exc).__name__}"
    return None


def compare_output(folder, fresh_folder, name, entry):
    """``(lines, ok)`` of one output: identical, or the start of a diff."""
    published = os.path.join(folder, name)
    fresh = os.path.join(fresh_folder, name)
    if not os.path.exists(fresh):
        return [f"differs    {name} (the scorer no longer writes it)"], False
    with open(fresh, "rb") as fh:
        new = fh.read()
    problem = not_a_file(published)
    if problem:
        return [f"differs    {name} ({problem})"], False
    with open(published, "rb") as fh:
        old = fh.read()
    if new == old and sha256_file(published) == entry["sha256"]:
        return [f"identical  {name}"], True
    diff = difflib.unified_diff(old.decode("utf-8", "replace").splitlines(),
                                new.decode("utf-8", "replace").splitlines(),
                                f"published/{name}", f"re-scored/{name}", lineterm="")
    return [f"differs    {name}"] + ["    " + d for d in list(diff)[:DIFF_LINES]], False


def reproduce_command(args):
    folder = args.folder
    manifest = load_manifest(folder)
    listed = manifest["files"]
    lines, ok = check_inputs(folder, listed)
    with tempfile.TemporaryDirectory(prefix="reproduce-") as tmp:
        try:
            result = siteqa.score_quarter(folder, manifest["scoring"])
        except OSError as exc:
            # An input that is not a readable file (named among the lines
            # above): a verdict on the quarter, as an input the scorer refuses.
            return cannot_rescore(lines, folder, cli.describe_os_error(exc))
        except BadInput as exc:
            return cannot_rescore(lines, folder, exc)
        try:
            written = siteqa.write_outputs(result, tmp)
        except BadInput as exc:
            return cannot_rescore(lines, folder, exc)
        for name in sorted(n for n, e in listed.items() if e["role"] == "output"):
            more, same = compare_output(folder, tmp, name, listed[name])
            lines += more
            ok = ok and same
        # An output the rules of the quarter write (a results page in another
        # language) that was not published: the quarter is not reproduced whole.
        for name in written:
            if listed.get(name, {}).get("role") != "output":
                lines.append(f"differs    {name} (the scorer writes it; not in MANIFEST.json)")
                ok = False
    print("\n".join(lines))
    print(f"{PROG}: {folder}: " + ("every file verified and identical" if ok else
                                   "NOT reproduced: see the lines marked differs"),
          file=sys.stderr)
    return 0 if ok else 1


def cannot_rescore(lines, folder, reason):
    """Exit 1: the lines so far, and why the folder's inputs give no results."""
    print("\n".join(lines))
    return cli.fail(PROG, f"cannot re-score {folder}: {one_line(reason)}", code=1)


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, reproduce_command)


if __name__ == "__main__":
    sys.exit(main())

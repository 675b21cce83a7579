#!/usr/bin/env python3
"""Re-score a published quarter folder and compare every output byte for byte.

    python tools/eval-benchmark/reproduce.py FOLDER

Checks every file of the folder against MANIFEST.json (sha256 and size),
re-scores the inputs into a temporary folder with the arguments and the
DECLINE list date the manifest records, and compares each output with the
published one. One line per file: ``verified`` / ``identical`` or
``differs``; where an output differs, the first lines of a unified diff.
No network, no keys; nothing is written outside the temporary folder.

Exit codes: 0 every file verified and identical; 1 something differs;
2 could not start (no folder, no or bad manifest).
"""

import difflib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, cli, one_line  # noqa: E402

PROG = "reproduce.py"
DIFF_LINES = 20


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="a published quarter folder, e.g. "
                                       "Documents/c4-benchmark/demo")
    return parser.parse_args(argv)


def load_manifest(folder):
    from evalkit.jsonl import read_json
    path = os.path.join(folder, "MANIFEST.json")
    if not os.path.isdir(folder):
        raise BadInput(f"{folder}: no such folder")
    manifest = read_json(path)
    if not isinstance(manifest, dict) or manifest.get("format") != 1:
        raise BadInput(f"{path}: not a format-1 manifest")
    files = manifest.get("files")
    args = manifest.get("score_args")
    if not isinstance(files, dict) or not files or not isinstance(args, list):
        raise BadInput(f"{path}: files and score_args are required")
    for name, entry in files.items():
        if os.path.basename(name) != name or name.startswith(".") or not isinstance(entry, dict) \
                or entry.get("role") not in ("input", "output") \
                or not isinstance(entry.get("sha256"), str):
            raise BadInput(f"{path}: files.{name}: needs sha256 and role input/output, "
                           "and a plain file name")
    for arg in args:
        if not isinstance(arg, str) or (not arg.startswith("--") and arg not in files
                                        and not _is_date(arg)):
            raise BadInput(f"{path}: score_args: {arg!r} is not a file of the manifest")
    return manifest


def _is_date(text):
    return len(text) == 10 and text[4] == "-" and text[7] == "-"


def main(argv=None):
    args = parse_args(argv)
    import score
    from evalkit.quarter import sha256_file
    try:
        manifest = load_manifest(args.folder)
    except BadInput as exc:
        print(f"{PROG}: {one_line(exc)}", file=sys.stderr)
        return 2
    folder = args.folder
    ok = True
    lines = []
    listed = manifest["files"]
    present = sorted(f for f in os.listdir(folder) if f != "MANIFEST.json" and not f.startswith("."))
    for name in present:
        if name not in listed:
            lines.append(f"differs    {name} (not in MANIFEST.json)")
            ok = False
    for name in sorted(n for n, e in listed.items() if e["role"] == "input"):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            lines.append(f"differs    {name} (missing)")
            ok = False
        elif sha256_file(path) != listed[name]["sha256"] or \
                os.path.getsize(path) != listed[name].get("bytes"):
            lines.append(f"differs    {name} (input does not match MANIFEST.json)")
            ok = False
        else:
            lines.append(f"verified   {name}")
    score_args = [os.path.join(folder, a) if a in listed else a for a in manifest["score_args"]]
    with tempfile.TemporaryDirectory(prefix="reproduce-") as tmp:
        try:
            parsed = score.parse_args(score_args)
            result = score.score(parsed.files, parsed.reviews, parsed.decline_as_of,
                                 history_path=parsed.history)
            score.write_outputs(result, tmp)
        except (BadInput, SystemExit) as exc:
            print(f"{PROG}: cannot re-score {folder}: {one_line(exc)}", file=sys.stderr)
            print("\n".join(lines))
            return 1
        for name in sorted(n for n, e in listed.items() if e["role"] == "output"):
            published = os.path.join(folder, name)
            fresh = os.path.join(tmp, name)
            if not os.path.exists(fresh):
                lines.append(f"differs    {name} (the scorer no longer writes it)")
                ok = False
                continue
            with open(fresh, "rb") as fh:
                new = fh.read()
            old = b""
            if os.path.exists(published):
                with open(published, "rb") as fh:
                    old = fh.read()
            if new == old and sha256_file(published) == listed[name]["sha256"]:
                lines.append(f"identical  {name}")
                continue
            ok = False
            lines.append(f"differs    {name}")
            diff = difflib.unified_diff(old.decode("utf-8", "replace").splitlines(),
                                        new.decode("utf-8", "replace").splitlines(),
                                        f"published/{name}", f"re-scored/{name}", lineterm="")
            lines += ["    " + d for d in list(diff)[:DIFF_LINES]]
    print("\n".join(lines))
    print(f"{PROG}: {folder}: " + ("every file verified and identical" if ok else
                                   "NOT reproduced: see the lines marked differs"),
          file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

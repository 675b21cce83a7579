"""A published scenario run: its folder, its MANIFEST.json, and its re-scoring.

    python tools/eval-benchmark/score.py evals/permits/scenarios.json RAW... ATOMS... \\
        --publish evals/permits/results/NAME
    python tools/eval-benchmark/reproduce.py evals/permits/results/NAME

``publish`` copies the raw and atoms files into the folder as they are,
scores them there exactly as score.py does (results.md, results.json,
index.html and detail/*.html) and writes MANIFEST.json; a file that would
name a folder of this machine (its home folder, the repository's path) is
refused and nothing is published:

  format     1
  suite      "scenario"
  scenarios  the scenario file, as a path from the repository's root (its
             sources.json, jargon.json and code/ are read beside it, as
             score.py reads them; results.json records their sha256)
  scoring    raw [names], atoms [names]: the inputs, files of the folder
  files      {name: {sha256, bytes, role}} for every file of the folder but
             the manifest; role input or output; a detail page's name is
             ``detail/<page>``

A folder already there is replaced (score.py --replace) only when it is a
published scenario run: a folder, not a link, of regular files and detail/
pages, with a scenario MANIFEST.json that lists every one of them. Anything
else is refused and left as it is, and of a run replaced only the files its
manifest lists are removed.

``reproduce`` (reproduce.py, for a manifest whose suite is "scenario")
checks the folder holds regular files only, and one subfolder, ``detail``,
of regular files (nothing is followed through a link), checks every input
against the manifest, scores the inputs again into a temporary folder and
compares every output byte for byte: one line per file, ``verified``,
``identical`` or ``differs`` (an output the scorer no longer writes, or
writes and the manifest lacks, differs too).
"""

import json
import os
import shutil
import stat
import tempfile

from .. import REPO, BadInput
from ..fields import check, shown
from ..provenance import machine_folder_in
from ..jsonl import dumps_file, read_json, sha256_of, write_all_atomic
from ..rubric.quarter import describe, file_kind, open_regular
from ..scenario import scenario_score
from ..scenario.scenarios import load_scenarios
from . import scenario_pages

PAGES = "detail"
# MANIFEST.json as publish writes it (the docstring), checked by the one record
# checker (evalkit/fields.py) before a field is followed: a file's sha256 and
# bytes are what reproduce compares, so one missing or of another type is
# refused, not read as "no sha256" or passed over. A files key is a name of
# the folder or detail/<name> (_check_files).
MANIFEST = {"format": (1,), "suite": ("scenario",), "scenarios": "text",
            "scoring": {"raw": ["name", ...], "atoms": ["name", ...]},
            "files": {"+": {"sha256": "sha256", "bytes": "count", "role": ("input", "output")}}}


def outputs(scenarios_path, raw_paths, atoms_paths):
    """``{name: bytes}`` of what score.py writes for these inputs, written
    through its own writer into a temporary folder and read back."""
    return rendered(scored(scenarios_path, raw_paths, atoms_paths))


def scored(scenarios_path, raw_paths, atoms_paths):
    """The results of these inputs, as score.py scores them (the tables beside
    the scenario file)."""
    scenarios = load_scenarios(scenarios_path)
    beside = os.path.dirname(scenarios_path)
    return scenario_score.score(scenarios, raw_paths, atoms_paths,
                                os.path.join(beside, "sources.json"),
                                os.path.join(beside, "jargon.json"))


def rendered(result):
    """``{name: bytes}`` of the files score.py writes for ``result``."""
    with tempfile.TemporaryDirectory(prefix="scenario-run-") as scratch:
        written = [(os.path.join(scratch, "results.md"), scenario_pages.render_markdown(result)),
                   (os.path.join(scratch, "results.json"), dumps_file(result))]
        scenario_pages.write_pages(result, scratch, lambda path, text: written.append((path, text)))
        write_all_atomic(written)
        out = {}
        for path, _text in written:
            with open(path, "rb") as fh:
                out[os.path.relpath(path, scratch).replace(os.sep, "/")] = fh.read()
    return out


def publish(folder, scenarios_path, raw_paths, atoms_paths, force=False):
    """Write the run's folder: inputs copied, outputs scored, MANIFEST.json.
    Built in a new folder beside it and renamed into place, so a failure
    leaves no half-published run. With ``force``, a published scenario run
    already in ``folder`` is replaced (replaceable: nothing else ever is)."""
    folder = os.path.normpath(folder)  # "run/" is "run": a link is seen as one
    old = existing_run(folder, force)
    raw_names = [os.path.basename(p) for p in raw_paths]
    atoms_names = [os.path.basename(p) for p in atoms_paths]
    names = raw_names + atoms_names
    if len(set(names)) != len(names):
        raise BadInput("two inputs share a file name; the folder keeps names as they are")
    relative = os.path.relpath(os.path.abspath(scenarios_path), REPO).replace(os.sep, "/")
    if relative.startswith("../"):
        raise BadInput(f"{scenarios_path}: the scenario file must be inside the repository")
    staging = tempfile.mkdtemp(prefix=".publishing-", dir=os.path.dirname(os.path.abspath(folder)))
    try:
        for path in list(raw_paths) + list(atoms_paths):
            shutil.copyfile(path, os.path.join(staging, os.path.basename(path)))
        result = scored(os.path.join(REPO, relative), [os.path.join(staging, n) for n in raw_names],
                        [os.path.join(staging, n) for n in atoms_names])
        refuse_example_in_results(folder, os.path.join(REPO, relative), result)
        made = rendered(result)
        os.makedirs(os.path.join(staging, PAGES), exist_ok=True)
        for name, data in made.items():
            with open(os.path.join(staging, name), "wb") as fh:
                fh.write(data)
        refuse_machine_folders(staging, names + list(made))
        files = {name: describe(staging, name, "input") for name in names}
        files.update({name: describe(staging, name, "output") for name in made})
        manifest = {"format": 1, "suite": "scenario", "scenarios": relative,
                    "scoring": {"raw": raw_names, "atoms": atoms_names},
                    "files": files}
        with open(os.path.join(staging, "MANIFEST.json"), "w", encoding="utf-8",
                  newline="\n") as fh:
            fh.write(dumps_file(manifest))
        if old is None:
            os.rename(staging, folder)
        else:
            replace(folder, staging, old)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sorted(files)


def refuse_machine_folders(staging, names):
    """Refuse a run whose files (inputs as copied, outputs as made) name a
    folder of this machine: its home folder or the repository's path, as a
    model id that was a path of a file does (provenance.machine_folder_in)."""
    for name in names:
        with open(os.path.join(staging, *name.split("/")), "rb") as fh:
            folder = machine_folder_in(fh.read().decode("utf-8", "replace"))
        if folder:
            raise BadInput(f"{name}: names a folder of this machine ({folder}), which a published "
                           "run never does (a model named by the path of its file: start "
                           "llama.cpp's server with --alias NAME); nothing was published")


def refuse_example_in_results(folder, scenarios_path, result):
    """Refuse to put an example (a run a stand-in answered) among the published
    runs, results/ beside the scenario file, where every run is read as a
    measurement: ai_eval.py keeps its examples out of evals/ai/results/ so."""
    if not result["provenance"]["example"]:
        return
    results = os.path.join(os.path.dirname(scenarios_path), "results")
    # The folder is not there yet: where it would be, through any link above it.
    place = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(folder))),
                         os.path.basename(folder))
    if os.path.commonpath([place, os.path.realpath(results)]) == os.path.realpath(results):
        raise BadInput(f"{folder}: a stand-in answered this run (a reply says \"stand_in\": "
                       "true, or a model id begins stand-in), so it is an example, and examples "
                       f"are not published in {os.path.relpath(results, REPO)}/: publish it "
                       "elsewhere")


def existing_run(folder, force):
    """None when nothing is at ``folder``; with ``force``, the files of the
    published scenario run there, which publish may replace; else refused,
    before anything is read or written."""
    if not os.path.lexists(folder):
        return None
    try:
        listed = replaceable(folder)
    except BadInput as exc:
        raise BadInput(f"{folder}: is there and is no published scenario run, the only thing "
                       f"--replace replaces ({exc}); nothing was changed") from None
    if not force:
        raise BadInput(f"{folder}: already published (--replace replaces it)")
    return listed


def replaceable(folder):
    """The files of the published scenario run in ``folder`` (names as its
    manifest writes them), or BadInput saying why it is not one: a link or
    anything but a folder, anything in it but regular files and detail/
    (check_tree), no scenario manifest (load), or a file the manifest does
    not list (a note put beside the run is never deleted with it)."""
    check_tree(folder)
    manifest = load(folder)
    present = present_files(folder)
    unlisted = [name for name in present if name not in manifest["files"]]
    if unlisted:
        raise BadInput(f"{os.path.join(folder, unlisted[0])}: not in its MANIFEST.json")
    return present


def replace(folder, staging, listed):
    """Put the run built in ``staging`` where ``folder`` is. The old run is
    moved aside first, so that a failure leaves it whole where it was; then
    only the files it listed (``listed``, MANIFEST.json) are removed, and the
    folders they leave empty. Anything else, put there after replaceable
    looked, stays in the folder moved aside, which is kept then."""
    aside = tempfile.mkdtemp(prefix=".replaced-", dir=os.path.dirname(os.path.abspath(folder)))
    old = os.path.join(aside, "run")
    os.rename(folder, old)
    try:
        os.rename(staging, folder)
    except BaseException:
        os.rename(old, folder)
        os.rmdir(aside)
        raise
    for name in listed + ["MANIFEST.json"]:
        path = os.path.join(old, *name.split("/"))
        if os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)
    for path in (os.path.join(old, PAGES), old, aside):
        try:
            os.rmdir(path)
        except FileNotFoundError:
            continue  # a run without detail/ pages
        except OSError:
            return  # not empty: something unlisted is kept


def is_scenario_manifest(folder):
    """True when ``folder``'s MANIFEST.json (a regular file) says suite scenario."""
    fh, problem = open_regular(os.path.join(folder, "MANIFEST.json"))
    if problem:
        return False
    with fh:
        try:
            doc = json.loads(fh.read().decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            return False
    return isinstance(doc, dict) and doc.get("suite") == "scenario"


def check_tree(folder):
    """Refuse anything but regular files, and one ``detail`` folder of
    regular files, before a byte is read: a link is never followed."""
    for sub, allowed in (("", True), (PAGES, False)):
        here = os.path.join(folder, sub) if sub else folder
        if sub and not os.path.lexists(here):
            continue
        mode = os.lstat(here).st_mode
        if not stat.S_ISDIR(mode):
            raise BadInput(f"{here}: is {file_kind(mode)}, not a folder of the run")
        for name in sorted(os.listdir(here)):
            mode = os.lstat(os.path.join(here, name)).st_mode
            if stat.S_ISREG(mode) or (allowed and name == PAGES and stat.S_ISDIR(mode)):
                continue
            raise BadInput(f"{os.path.join(here, name)}: is {file_kind(mode)}; a published "
                           f"run holds regular files and its {PAGES}/ pages only")


def load(folder):
    """The manifest, checked enough to be followed: its fields of their type,
    every name a plain file of the folder or of detail/."""
    path = os.path.join(folder, "MANIFEST.json")
    doc = read_json(path, unique_keys=True)
    if not isinstance(doc, dict):
        raise BadInput(f"{path}: not a scenario run manifest (format 1, scenarios, scoring, files)")
    check(doc, MANIFEST, path)
    _check_files(path, doc["files"])
    _check_scoring(path, doc["scoring"], doc["files"])
    if doc["scenarios"].startswith("/") or ".." in doc["scenarios"].split("/") or \
            "\0" in doc["scenarios"]:
        raise BadInput(f"{path}: scenarios must be a path inside the repository")
    return doc


def _check_files(path, files):
    """Refuse a ``files`` entry that is not a plain file of the folder or of
    its PAGES folder (its fields are MANIFEST's)."""
    for name in files:
        parts = name.split("/")
        if not (len(parts) == 1 or (len(parts) == 2 and parts[0] == PAGES)) or \
                any(p in ("", ".", "..") or "\0" in p for p in parts):
            raise BadInput(f"{path}: files: {shown(name)} is not a file of the run")


def _check_scoring(path, scoring, files):
    """Refuse ``scoring.raw`` or ``scoring.atoms`` unless each lists input files."""
    for key in ("raw", "atoms"):
        if any(files.get(n, {}).get("role") != "input" for n in scoring[key]):
            raise BadInput(f"{path}: scoring.{key} must list input files of the manifest")


def check_inputs(folder, manifest):
    """``(lines, ok)``: every file of the folder listed, every input as listed."""
    files = manifest["files"]
    lines = []
    for name in present_files(folder):
        if name not in files:
            lines.append(f"differs    {name} (not in MANIFEST.json)")
    for name in sorted(n for n, e in files.items() if e["role"] == "input"):
        fh, problem = open_regular(os.path.join(folder, name))
        if problem:
            lines.append(f"differs    {name} ({problem})")
            continue
        with fh:
            data = fh.read()
        if sha256_of(data) != files[name]["sha256"] or len(data) != files[name]["bytes"]:
            lines.append(f"differs    {name} (input does not match MANIFEST.json)")
        else:
            lines.append(f"verified   {name}")
    return lines, not any(line.startswith("differs") for line in lines)


def present_files(folder):
    """The files of a run's folder as its manifest names them, but the
    manifest: its own, sorted, then detail/<page> of its pages, sorted."""
    present = sorted(n for n in os.listdir(folder) if n not in ("MANIFEST.json", PAGES))
    if os.path.isdir(os.path.join(folder, PAGES)):
        present += sorted(f"{PAGES}/{n}" for n in os.listdir(os.path.join(folder, PAGES)))
    return present


def rescored(folder, manifest):
    """``{name: bytes}``: the folder's inputs scored again, as published."""
    scoring = manifest["scoring"]
    return outputs(os.path.join(REPO, *manifest["scenarios"].split("/")),
                   [os.path.join(folder, n) for n in scoring["raw"]],
                   [os.path.join(folder, n) for n in scoring["atoms"]])

"""Published quarter folders and their MANIFEST.json.

A quarter folder (``Documents/c4-benchmark/{quarter}/``, quarter ``YYYY-QN``
or a plain slug such as ``demo``) holds the question files as asked, the raw
answers, the reviews, the results (results.md, results.json, index.html and,
from the rules of 2026-12-01, index.he.html and index.ru.html) and
MANIFEST.json, which records:

  format            2 (the whole number: not 2.0, not true)
  quarter           the folder's name
  files             {name: {sha256, bytes, role}}: a plain file name; sha256,
                    64 lower-case hex digits; bytes, a whole number; role is
                    input (questions, raw answers, reviews, history) or output
                    (what score.py writes)
  scoring           the scoring inputs, as file names in the folder, each an
                    input of files: questions [..] and raw [..] (lists of
                    questions-*.json and raw-*.jsonl, at least one each),
                    reviews (reviews-*.json or null), history (history.json or
                    null), and decline_as_of, the date (YYYY-MM-DD, on or after
                    the first rules) of the rules to score
                    with (the DECLINE list and the text rules: evalkit/rubric/rulebook.py;
                    the name is the list's, the first dated rule); reproduce
                    scores these again (evalkit/rubric/siteqa.py), nothing else
  decline_list_date the date of the rules the outputs were scored with
  scored_with       tool, version, git_commit, git_dirty, python of the scorer
  runs              run_dates (UTC, YYYY-MM-DD), platform_versions and run_ids
                    read from the raw lines
  review_coverage   required, reviewed (whole numbers), missing (ids)
  sampled_review    (rules of 2026-12-02 on) the sample's coverage, as
                    results.json has it: sampled, reviewed, missing ([{id,
                    measures}]: the measures still without an entry)
  history.json      (an input, when earlier quarters exist) their overall figures,
                    frozen at publish time, for the trend chart of the pages
  unreviewed_allowed  true when published with --allow-unreviewed (an answer
                    the rubric requires, or a sampled pass, without its entries)

Format 1 manifests (score.py's arguments as a list, before tools 0.2.0) are
not read: the quarters they describe were republished in format 2.

The manifest itself is not an output that reproduce compares byte for byte:
it names the scorer's commit, which an auditor's checkout need not share.

A quarter folder holds regular files only, the ones publish.py writes (above).
A symbolic link, a FIFO, a device, a socket or a subfolder in it, or a quarter
folder that is itself a link, is refused (check_folder) before anything in it
is read: git carries links, so a link to a file outside (an environment with
keys in it) would otherwise be read, or shown in reproduce's diff, as though
it were published.
"""

import errno
import os
import re
import stat

from .. import BadInput, whole_number
from ..fields import SHA256, check, plain_name, shown  # noqa: F401  (publish.py reads them here)
from ..jsonl import file_kind, read_json, read_json_sha, sha256_file  # noqa: F401  (file_kind: scenario_run.py)
from .measures import MEASURES
from .rulebook import check_date

# The manifest's fields that reproduce.py, compare.py and quarters.py read, as
# the docstring gives them (evalkit/fields.py); check_scoring says what they
# must be beside each other. runs and review_coverage are quarters.py's
# listing, which prints them: a run date of 1 or a coverage of [] would break
# the line, so they are checked here too, each of its fields where given (an
# older manifest may lack some). The other fields are the pages'.
MANIFEST = {"format": (2,),
            "files": {"+name": {"sha256": "sha256", "bytes": "count", "role": ("input", "output")}},
            "scoring": {"questions": ["name"], "raw": ["name"], "reviews": "name|null",
                        "history": "name|null", "decline_as_of": "rules_date"},
            "runs?": {"run_dates?": ["date"], "platform_versions?": ["string"],
                      "run_ids?": ["string"], "*": "any"},
            "review_coverage?": {"required?": "count", "reviewed?": "count",
                                 "missing?": ["string"], "*": "any"},
            "*": "any"}
# ASCII digits, the whole name (fullmatch): \d takes other scripts' digits and
# $ a final line break, and the name becomes a folder's.
QUARTER = re.compile(r"[0-9]{4}-Q[1-4]|[a-z0-9][a-z0-9-]{0,39}")
SERIES = re.compile(r"[0-9]{4}-Q[1-4]")  # the quarters of the series, not demo or trial runs
# What publish.py writes into a quarter folder (evalkit/pages/outputs.py). A
# quarter published before a page or results.csv existed lacks them: they are
# presentations of results.json, checked by what they say (reproduce.py).
OUTPUTS = ("results.md", "results.json", "results.csv", "index.html", "index.he.html",
           "index.ru.html")
# The inputs of a quarter, by their names: the one definition publish.py
# gathers by, writes the manifest by, and reproduce.py reads it by. A set's
# name is lower-case letters, digits and hyphens (raw-biz.jsonl; not
# raw-Biz.jsonl nor raw-biz_v2.jsonl), the reviews file's the quarter's.
INPUTS = {"questions": re.compile(r"questions-[a-z0-9][a-z0-9-]*\.json"),
          "raw": re.compile(r"raw-[a-z0-9][a-z0-9-]*\.jsonl"),
          "reviews": re.compile(r"reviews-(?:" + QUARTER.pattern + r")\.json"),
          "history": re.compile(r"history\.json")}
# How a refusal names each kind of input.
INPUT_FORMS = {"questions": "questions-SET.json", "raw": "raw-SET.jsonl",
               "reviews": "reviews-QUARTER.json", "history": "history.json"}


def check_quarter(name):
    """The quarter name, or BadInput: it becomes a folder name, so nothing
    that could climb out of the benchmark folder is accepted."""
    if isinstance(name, str) and re.fullmatch(r"[0-9]{4}-q[1-4]", name):
        # A slug by the letter, but surely meant as the quarter: two folders
        # for one quarter would split its history.
        raise BadInput(f"quarter {shown(name)}: a quarter is written with a capital Q: "
                       f"{name.upper()}")
    if not isinstance(name, str) or not QUARTER.fullmatch(name):
        raise BadInput(f"quarter {shown(name)}: give YYYY-QN (2026-Q4) or a plain slug "
                       "(lower-case letters, digits, hyphens)")
    return name


def check_regular(path):
    """Refuse ``path`` unless it is a regular file or missing (a missing file
    is left to its reader, which names it). The file itself, never where a
    link points: ``os.lstat``, so nothing is opened to find out."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if not stat.S_ISREG(mode):
        raise BadInput(f"{path}: is {file_kind(mode)}, not a regular file (nothing was read "
                       "from it: a link is never followed)")


def check_folder(folder):
    """Refuse a quarter folder that is a symbolic link, or that holds
    anything but regular files (a link, a FIFO, a device, a socket, a
    subfolder), before any file of it is read: one line naming the first
    such entry and what it is. Hidden entries too: nothing in the folder
    escapes the rule."""
    # "demo/" names what a link called demo points to: look at the link itself.
    own = folder.rstrip(os.sep) or folder
    try:
        mode = os.lstat(own).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise BadInput(f"{folder}: no such folder") from None
    if stat.S_ISREG(mode):
        raise BadInput(f"{folder}: is a file, not a quarter folder")
    if not stat.S_ISDIR(mode):
        raise BadInput(f"{folder}: is {file_kind(mode)}, not a quarter folder (a quarter "
                       "folder is a folder of regular files; nothing in it was read)")
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            raise BadInput(f"{path}: is {file_kind(mode)}; a quarter folder holds regular files "
                           "only (nothing in it was read)")


def open_regular(path):
    """``(file, None)``: ``path`` opened for reading, in binary, when it is a
    regular file; else ``(None, why not)``: missing, a symbolic link, a
    folder, a FIFO ...

    A link is not followed (O_NOFOLLOW) and a FIFO is not waited on
    (O_NONBLOCK); the kind is checked on the open file, so the bytes read are
    those of the regular file checked, whatever took its name since the
    folder was checked."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None, "missing"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "a symbolic link"
        return None, f"cannot read: {exc.strerror or type(exc).__name__}"
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return None, file_kind(mode)
    return os.fdopen(fd, "rb"), None


def describe(folder, name, role):
    path = os.path.join(folder, name)
    return {"sha256": sha256_file(path), "bytes": os.path.getsize(path), "role": role}


def input_kind(name):
    """Which input of a quarter ``name`` is (INPUTS), or None."""
    return next((kind for kind, form in INPUTS.items() if form.fullmatch(name)), None)


def role_of(name):
    if name in OUTPUTS:
        return "output"
    return "input" if input_kind(name) else None


def scoring_inputs(folder_files, quarter):
    """The scoring inputs of a quarter folder, from its file names (the
    ``scoring`` block of a manifest, without its DECLINE date)."""
    reviews = f"reviews-{quarter}.json"
    return {
        "questions": sorted(f for f in folder_files if input_kind(f) == "questions"),
        "raw": sorted(f for f in folder_files if input_kind(f) == "raw"),
        "reviews": reviews if reviews in folder_files else None,
        "history": "history.json" if "history.json" in folder_files else None,
    }


def load_manifest(folder):
    """MANIFEST.json of a quarter folder, checked before anything is read:
    the folder holds regular files only (check_folder); every field
    reproduce.py and compare.py read has the type this module's docstring
    gives it, every file a plain name in the folder, every scoring input a
    file of the manifest. The one place of the manifest's type rules."""
    path = os.path.join(folder, "MANIFEST.json")
    check_folder(folder)
    manifest = read_json(path)
    if not isinstance(manifest, dict):
        raise BadInput(f"{path}: not a format-2 manifest: a manifest is a JSON object")
    fmt = manifest.get("format")
    if not whole_number(fmt) and isinstance(fmt, (int, float)):
        raise BadInput(f"{path}: format {shown(fmt)}: a format number is a whole number (2)")
    if fmt != 2:
        raise BadInput(f"{path}: format {shown(fmt)}: not a format-2 manifest (a quarter "
                       "published before tools 0.2.0 is republished with publish.py --force)")
    check(manifest, MANIFEST, path)
    check_scoring(manifest["scoring"], manifest["files"], path)
    return manifest


def check_scoring(scoring, files, path):
    """Each scoring input an input file of the manifest, of its kind, named
    once; the rules' date on or after the first rules."""
    for key in INPUTS:
        value = scoring[key]
        if value == []:
            raise BadInput(f"{path}: scoring.{key} must name at least one file")
        names = value if isinstance(value, list) else [] if value is None else [value]
        for index, name in enumerate(names):
            place = f"scoring.{key}[{index}]" if isinstance(value, list) else f"scoring.{key}"
            if files.get(name, {}).get("role") != "input":
                raise BadInput(f"{path}: {place}: {shown(name)} is not an input file of the "
                               "manifest")
            if input_kind(name) != key:
                raise BadInput(f"{path}: {place}: {shown(name)} is not a {INPUT_FORMS[key]} file")
            if names.index(name) != index:
                raise BadInput(f"{path}: {place}: {shown(name)} is named twice")
    check_date(scoring["decline_as_of"], f"{path}: scoring.decline_as_of")


# history.json, as history writes it (evalkit/fields.py).
_FIGURE = {"passed": "count", "applicable": "count"}
HISTORY = {"format": (1,), "quarters": [
    {"quarter": "string", "results_sha256": "sha256",
     "groups": [{"set": "string", "lang": "string",
                 "figures": {**{measure: _FIGURE for measure in MEASURES}, "*": _FIGURE}}]}]}


def history(bench, quarter):
    """The overall figures of the quarters published before this one, frozen
    into this quarter's folder as history.json (an input), so its trend chart
    re-scores from the folder alone. None when there are none.

    Only YYYY-QN quarters have a trend, and it holds only the YYYY-QN quarters
    before them, oldest first (the names sort by date): a quarter published
    later, or a slug such as ``demo`` (a demo or a trial run, not a quarter of
    the series), is never in it."""
    if not SERIES.fullmatch(quarter):
        return None
    entries = []
    for name in sorted(os.listdir(bench)):
        folder = os.path.join(bench, name)
        results = os.path.join(folder, "results.json")
        if not SERIES.fullmatch(name) or name >= quarter or \
                not os.path.exists(os.path.join(folder, "MANIFEST.json")) or \
                not os.path.exists(results):
            continue
        doc, sha256 = read_json_sha(results)
        entries.append({"quarter": name, "results_sha256": sha256,
                        "groups": overall_figures(doc, results)})
    if not entries:
        return None
    return {"format": 1, "quarters": entries}


def overall_figures(doc, path):
    """The overall groups (lang all) of an earlier quarter's results.json,
    checked first: ``[{set, lang, figures: {measure: {passed, applicable}}}]``."""
    measures = _earlier_measures(doc, path)
    groups = doc.get("groups")
    if not isinstance(groups, list):
        _refuse_earlier(path, "groups", "must be a list")
    out = []
    for index, group in enumerate(groups):
        place = f"groups[{index}]"
        if not isinstance(group, dict):
            _refuse_earlier(path, place, "must be an object")
        for key in ("set", "lang"):
            if not isinstance(group.get(key), str):
                _refuse_earlier(path, f"{place}.{key}", "must be text")
        if group["lang"] != "all":
            continue
        for measure in measures:
            figure = group.get(measure)
            if not isinstance(figure, dict) or not all(
                    whole_number(figure.get(key)) and figure[key] >= 0
                    for key in ("passed", "applicable")):
                _refuse_earlier(path, f"{place}.{measure}", "needs passed and applicable counts")
        out.append({"set": group["set"], "lang": group["lang"],
                    "figures": {m: {"passed": group[m]["passed"],
                                    "applicable": group[m]["applicable"]} for m in measures}})
    return out


def _earlier_measures(doc, path):
    """The measures an earlier quarter's results.json lists, its format and
    every measure of today's rubric checked first."""
    if not isinstance(doc, dict):
        _refuse_earlier(path, "the whole file", "not a results file: a JSON object with "
                                                "format, measures and groups")
    if not whole_number(doc.get("format")) or doc["format"] != 1:
        _refuse_earlier(path, "format", f"{shown(doc.get('format'))} is not 1")
    measures = doc.get("measures")
    if not isinstance(measures, list) or not all(isinstance(m, str) for m in measures):
        _refuse_earlier(path, "measures", "must be a list of measure names")
    for measure in MEASURES:
        if measure not in measures:
            _refuse_earlier(path, "measures", f"{measure} is missing")
    return measures


def _refuse_earlier(path, place, reason):
    """BadInput naming the place in an earlier quarter's results.json, and why it was read."""
    raise BadInput(f"{path}: {place}: {reason} (an earlier quarter's results, read for "
                   "the trend of this one)")

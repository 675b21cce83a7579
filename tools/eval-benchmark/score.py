#!/usr/bin/env python3
"""Score raw answers by fixed, deterministic rules.

    python3 tools/eval-benchmark/score.py QUESTIONS RAW.jsonl [RAW2.jsonl ...]
        [--reviews FILE] [--out results.md] [--json results.json] [--csv results.csv]
        [--html index.html] [--review-sheet FILE] [--review-page FILE]
        [--rules-as-of YYYY-MM-DD]
    python3 tools/eval-benchmark/score.py SCENARIOS.json RAW.jsonl ... ATOMS.jsonl ...
        [--sources FILE] [--jargon FILE] [--out results.md] [--json results.json]
        [--html-dir DIR] [--example]

A site-qa question file is scored by the rubric's measures
(evalkit/rubric/siteqa.py, rules in evalkit/rubric/measures.py). A scenario file is scored
from atoms on four 0-3 dimensions, Accurate, Complete, Cited and Useful
(evalkit/scenario/atomscore.py), never combined.

Positional files ending in .json are question files, those ending in .jsonl
are raw answer files; give at least one of each. Every raw line is matched to
its question file by the question file's sha256 recorded in the line:
questions are frozen, so a raw line recorded against another version of the
file is refused. A question with no raw line counts as not delivered.

No model judges a model here. When no output file is asked for (--out, --json,
--csv, --html, --review-sheet, --review-page), the markdown table is printed on
stdout. The files asked for are written together or not at all:
each goes to a temporary file beside it first, and none is renamed into place
until all are written. None of them may be a file read (a question, raw,
atoms, reviews, history, sources or jargon file, or a link to one): that is
refused (exit 2) and nothing is written.

Exit codes: 0 scored; 2 could not score (bad arguments or a bad input file);
130 interrupted.
"""

import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import VERSION, BadInput, cli, schemas  # noqa: E402
from evalkit.pages import scenario_pages  # noqa: E402
from evalkit.pages import scenario_run  # noqa: E402
from evalkit.scenario import scenario_score  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.pages.csvexport import render_csv  # noqa: E402
from evalkit.pages.htmlpage import render_pages  # noqa: E402
from evalkit.pages.reviewpage import render_review_page  # noqa: E402
from evalkit.jsonl import declared, dumps_file, iter_jsonl, write_all_atomic  # noqa: E402
from evalkit.rubric import measures  # noqa: E402
from evalkit.rubric.measures import MEASURES, TITLES  # noqa: E402
from evalkit.rubric.rulebook import CHANGES, change_dates, rules_as_of  # noqa: E402
from evalkit.rubric.report import render_markdown, render_review_sheet  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios  # noqa: E402

PROG = "score.py"
# The options only one suite reads: given to the other, each would be passed
# over in silence, and the user would believe it applied.
SITE_QA_ONLY = (("--reviews", "reviews"), ("--csv", "csv_out"), ("--html", "html_out"),
                ("--history", "history"), ("--review-sheet", "review_sheet"),
                ("--review-page", "review_page"), ("--reviews-to", "reviews_to"),
                ("--rules-as-of", "rules_date"))
SCENARIO_ONLY = (("--sources", "sources"), ("--jargon", "jargon"), ("--html-dir", "html_dir"),
                 ("--publish", "publish"), ("--replace", "replace"), ("--example", "example"))
# --publish writes the outputs itself, scored with the tables beside the
# scenario file that it copies in: these would not be what it publishes.
NOT_WITH_PUBLISH = (("--sources", "sources"), ("--jargon", "jargon"), ("--out", "out"),
                    ("--json", "json_out"), ("--html-dir", "html_dir"))


def parse_args(argv):
    parser = cli.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0], formats=schemas.SCORE_HELP, examples=(
            "python3 tools/eval-benchmark/score.py Documents/c4-benchmark/questions-med.json "
            "raw-med.jsonl --out med.md",
            "python3 tools/eval-benchmark/score.py Documents/c4-benchmark/questions-med.json "
            "raw-med.jsonl --reviews reviews-2026-Q4.json --json results.json --html index.html",
            "python3 tools/eval-benchmark/score.py evals/permits/scenarios.json raw-llama.jsonl "
            "atoms-claude.jsonl --out scenario-results.md --html-dir scenario-pages"))
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="question files (.json) and raw answer files (.jsonl)")
    parser.add_argument("--rules", action="store_true",
                        help="print each measure's rule and the dated changes in force, then stop")
    parser.add_argument("--reviews", metavar="FILE", help="reviews-{quarter}.json to apply")
    parser.add_argument("--out", metavar="FILE", help="write the markdown table here")
    parser.add_argument("--json", dest="json_out", metavar="FILE", help="write results.json here")
    parser.add_argument("--csv", dest="csv_out", metavar="FILE",
                        help="write results.csv here: a row per question, with its answer, "
                             "sources, latency and verdicts")
    parser.add_argument("--html", dest="html_out", metavar="FILE",
                        help="write the results page (index.html) here, and its Hebrew and "
                             "Russian pages beside it")
    parser.add_argument("--history", metavar="FILE",
                        help="earlier quarters' figures (history.json) for the trend chart")
    parser.add_argument("--review-sheet", metavar="FILE",
                        help="write the answers a person must read, an entry for each")
    parser.add_argument("--review-page", metavar="FILE",
                        help="write them as a page to review in the browser (review.html)")
    parser.add_argument("--reviews-to", metavar="FILE",
                        help="the reviews file the sheet and page name, without --reviews")
    parser.add_argument("--sources", metavar="FILE", help="scenario suite: the source-authority "
                                                         "table (default: beside the scenarios)")
    parser.add_argument("--jargon", metavar="FILE", help="scenario suite: the jargon table "
                                                        "(default: beside the scenarios)")
    parser.add_argument("--html-dir", metavar="DIR",
                        help="scenario suite: write the dashboard and detail pages here")
    parser.add_argument("--publish", metavar="FOLDER",
                        help="scenario suite: publish the run into FOLDER, for reproduce.py")
    parser.add_argument("--replace", action="store_true",
                        help="--publish: replace a run already published in FOLDER")
    parser.add_argument("--example", action="store_true",
                        help="label the results an example (a run against stand-ins)")
    parser.add_argument("--rules-as-of", "--decline-as-of", dest="rules_date",
                        metavar="YYYY-MM-DD",
                        help="score with the rules as they stood on this date (default: the "
                             f"newest, {change_dates()[-1]}); --decline-as-of: its older name")
    return parser.parse_args(argv)


def split_files(files):
    """``(question files, raw files)`` of the positional arguments."""
    question_files = [f for f in files if f.endswith(".json")]
    raw_files = [f for f in files if f.endswith(".jsonl")]
    other = [f for f in files if f not in question_files and f not in raw_files]
    if other:
        raise BadInput(f"{other[0]}: name a question file (.json) or a raw file (.jsonl)")
    if not question_files or not raw_files:
        raise BadInput("give at least one question file (.json) and one raw file (.jsonl)")
    return question_files, raw_files


def is_atoms_file(path):
    """An atoms file's lines carry atoms or an evaluator; a raw file's neither."""
    for _number, line in iter_jsonl(path):
        return "evaluator" in line or "atoms" in line
    return False


def scenario_inputs(files):
    """``(scenario file, its scenarios, raw files, atoms files)`` of the
    positional arguments of the scenario suite."""
    cases = [f for f in files if f.endswith(".json")]
    lines = [f for f in files if f.endswith(".jsonl")]
    if len(cases) != 1 or not lines or len(cases) + len(lines) != len(files):
        raise BadInput("the scenario suite takes one scenario file (.json), raw files and "
                       "atoms files (.jsonl)")
    scenarios = load_scenarios(cases[0])  # a bad scenario file is named before anything else
    atoms = [f for f in lines if is_atoms_file(f)]
    raws = [f for f in lines if f not in atoms]
    if not raws or not atoms:
        raise BadInput("give the raw answers (run.py) and the atoms (atomize.py)")
    return cases[0], scenarios, raws, atoms


def refuse_options(args, options, why):
    """Refuse, in one line, any of ``options`` ((flag, dest)) that was given."""
    given = [flag for flag, dest in options if getattr(args, dest)]
    if given:
        raise BadInput(f"{', '.join(given)}: {why}")


def score_scenarios(args):
    refuse_options(args, SITE_QA_ONLY, "not read by the scenario suite (site-qa question "
                                       "files only)")
    if args.publish:
        refuse_options(args, NOT_WITH_PUBLISH, "not with --publish, which writes every output "
                                               "itself from the tables beside the scenario file")
    case, scenarios, raws, atoms = scenario_inputs(args.files)
    if args.publish:
        if args.example:
            raise BadInput("--publish is for a recorded run, never an --example")
        names = scenario_run.publish(args.publish, case, raws, atoms, force=args.replace)
        cli.say(PROG, f"published {len(names)} files into {args.publish}; check it with: "
                      f"python3 tools/eval-benchmark/reproduce.py {args.publish}")
        return 0
    folder = os.path.dirname(case)
    sources = args.sources or os.path.join(folder, "sources.json")
    jargon = args.jargon or os.path.join(folder, "jargon.json")
    # The city's code beside the scenario file is read whole (every .json of
    # code/): an output there would replace a corpus or be read as one.
    cli.refuse_writing_into([args.out, args.json_out, args.html_dir],
                            os.path.join(folder, "code"))
    result = scenario_score.score(scenarios, raws, atoms, sources, jargon, args.example)
    markdown = scenario_pages.render_markdown(result)
    # Every output rendered first, then all written or none (write_all_atomic):
    # a page that cannot be written leaves no new results.md beside old pages.
    outputs = []
    if args.out:
        outputs.append(("--out", args.out, markdown))
    if args.json_out:
        outputs.append(("--json", args.json_out, dumps_file(result)))
    if args.html_dir:
        scenario_pages.write_pages(result, args.html_dir,
                                   lambda path, text: outputs.append(("--html-dir", path, text)))
    write_outputs(args, outputs, sources, jargon)
    if not (args.out or args.json_out or args.html_dir):
        sys.stdout.write(markdown)
    return 0


def rules_text(rules_date=None):
    """Each measure's rule, as its function states it (the first paragraph of
    its docstring, evalkit/rubric/measures.py), then the dated changes in
    force and those after: what a quoted number was scored with."""
    rules = rules_as_of(rules_date)
    lines = [f"The rules of {rules.rules_date}: their results are those of tools {rules.version} "
             f"(this is score.py {VERSION})", ""]
    for measure in MEASURES:
        rule = " ".join(getattr(measures, measure).__doc__.split("\n\n")[0].split())
        lines += textwrap.wrap(f"{TITLES[measure]}: {rule}", 88, subsequent_indent="    ")
    lines += ["", "Dated changes in force (evalkit/rubric/rulebook.py):"]
    later = []
    for date, key, what in CHANGES:
        entry = textwrap.wrap(f"{date} {key}: {what}", 88, initial_indent="  ",
                              subsequent_indent="    ")
        if date <= rules.rules_date:
            lines += entry
        else:
            later += entry
    if later:
        lines += ["", "Dated after these rules, not in force:"] + later
    return "\n".join(lines) + "\n"


def detail_outputs(args):
    """The files asked for beside the table: each needs every answer's detail."""
    return [path for path in (args.json_out, args.csv_out, args.html_out, args.review_sheet,
                              args.review_page) if path]


def outputs_to_write(args, result, markdown):
    """``[(option, path, text)]`` of every file asked for, rendered before any
    is written."""
    reviews_file = args.reviews_to or args.reviews
    outputs = []
    if args.out:
        outputs.append(("--out", args.out, markdown))
    if args.json_out:
        outputs.append(("--json", args.json_out, siteqa.results_json(result)))
    if args.csv_out:
        outputs.append(("--csv", args.csv_out, render_csv(result)))
    if args.html_out:
        # The English page at --html, the others beside it (index.he.html ...),
        # whatever the rules scored with (evalkit/pages/htmlpage.py).
        folder, name = os.path.split(args.html_out)
        for page, text in render_pages(result, name).items():
            outputs.append(("--html", os.path.join(folder, page), text))
    if args.review_sheet:
        outputs.append(("--review-sheet", args.review_sheet,
                        render_review_sheet(result, reviews_file)))
    if args.review_page:
        outputs.append(("--review-page", args.review_page, render_review_page(
            result, reviews_file or "reviews-QUARTER.json")))
    return outputs


def write_outputs(args, outputs, *inputs):
    """Write every ``(option, path, text)`` of ``outputs`` or none; first
    refuse an output that is one of the files read (the positional files,
    --reviews, --history, and ``inputs``), which it would replace: ``--out
    raw.jsonl`` would leave the table where the answers were."""
    written = [(option, path) for option, path, _text in outputs]
    cli.refuse_overwriting(written, list(args.files) + [args.reviews, args.history, *inputs])
    for index, (what, path) in enumerate(written):
        for earlier, other in written[:index]:
            if cli.same_file(path, other):  # the second would silently replace the first
                raise BadInput(f"{path}: {what} is the same file as {earlier}: one of the two "
                               "would be lost, so nothing was written")
    write_all_atomic([(path, text) for _option, path, text in outputs])


def score_command(args):
    if args.rules:
        sys.stdout.write(rules_text(args.rules_date))
        return 0
    question_files, raw_files = split_files(args.files)
    # The suite a case file declares picks the scorer; a file that declares
    # none, or another, is the site-qa loader's to refuse, in its words.
    if any(declared(path, "suite") == "scenario" for path in question_files):
        return score_scenarios(args)
    result = siteqa.score(question_files, raw_files, args.reviews, args.rules_date,
                          args.history, keep_detail=bool(detail_outputs(args)))
    refuse_options(args, SCENARIO_ONLY, "read by the scenario suite only, not with site-qa "
                                        "question files")
    markdown = render_markdown(result)
    # Every output rendered first, then all written or none (write_all_atomic):
    # a review sheet that cannot be written leaves no new results.md beside
    # the old results.json, whose figures it would contradict.
    write_outputs(args, outputs_to_write(args, result, markdown))
    if not (args.out or detail_outputs(args)):
        sys.stdout.write(markdown)
    return 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, score_command)


if __name__ == "__main__":
    sys.exit(main())

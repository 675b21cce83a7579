"""Scoring the scenario suite: raw answers + atoms -> results, per scenario,
variant (the generator) and evaluator; never collapsed into one number.

Inputs: the scenario file (frozen: raw lines must carry its sha256), raw
files written by run.py (one line per scenario and generator), atoms files
written by atomize.py (one line per answer, evaluator and repeat; its
response_sha256 must be that of the answer derived again from the raw body,
and its run.cases_sha256, unless null, that of the scenario file),
the source-authority table and the jargon table. Each line is checked
before it is used (``read_raw``, ``read_atoms``): every field the scoring
reads has its type (``RAW_FIELDS``, ``ATOMS_FIELDS``), the format is 1, and
no string holds half of a surrogate pair; anything else is refused with
``file:line: what``.

Each line is also held to what it says of its own run (linechecks.py: its
settings, token limits, wire formats, served model).

Outputs (a dict): ``cells`` (one per scenario, variant, evaluator, repeat,
with the four dimensions, their raw values and the arithmetic; the atoms
line's ``settings``, null when not recorded; ``atom_checks``: the atoms held
to the answer, atomchecks.py, each atom's ``set_aside`` and Accurate's
``atoms_kept_after_checks`` beside the spec's count of every atom; with
lookups, ``verified``: how many factual atoms rest on a section the
evaluator read for that answer, beside Accurate, which counts them all),
``cross_evaluation`` (evaluator x generator: per dimension the mean over the
answers scored, with ``scored``, ``failed``, ``not_reached`` and, for a row
with no mean, ``empty``: family rule, failed or not reached; self rows
marked: one model family, evalkit/families.py; and per dimension the
agreement between each pair of evaluators), ``stability`` (with --repeat:
how often the scores of repeats agree), and provenance (``settings``: each
generator's and evaluator's settings and the answers they shaped;
``stand_ins``: closed-weights models that answered from this machine or a
private network; with lookups, ``evaluator_lookups``: per evaluator, the
answers it had tools for and looked nothing up for).
"""

import os
import re
from fractions import Fraction

from .. import BadInput, calendar_date, whole_number
from . import atomchecks, linechecks
from .atomscore import DIMENSIONS, GAP, JargonTable, SourceTable, citation_checks, score_answer
from .atoms import validate, variant_of
from .corpus import Corpus
from .linechecks import PASSAGES_ASKED
from ..families import closed_weights, same_family, split_variant
from ..provenance import host_of, is_local_host
from ..jsonl import iter_jsonl, sha256_file, sha256_of
from ..responses import answer_text, parse_received
from ..fields import wrong_field
from ..textmatch import visible

# The score.py version whose scenario results these are, byte for byte. The
# scenario suite's output moves only with it, not with evalkit.VERSION (which
# a dated site-qa rule bumps), so that a published scenario run re-scores
# byte for byte after a site-qa change; a change that moves the scenario
# suite's results.md or results.json bumps it (tests/test_real_runs.py fails
# until the published runs are scored again or the change is undone).
OUTPUT_VERSION = "0.6.0"

# The fields of the lines that the scoring reads, and their types
# (fields.wrong_field: a key ending in ? may be absent).
RAW_FIELDS = {"id": "string", "target": "object", "run": "object", "attempts?": "list",
              "request?": "object|null", "response?": "object|null"}
TARGET_FIELDS = {"kind?": "string|null", "provider?": "string|null", "model?": "string|null",
                 "context?": "string|null", "collected_at?": "string|null"}
PROMPT_FIELDS = {"name": "string", "sha256": "string|null"}
ATOMS_FIELDS = {"id": "string", "variant": "string", "repeat": "integer", "evaluator": "object",
                "atoms": "list|null", "error": "string|null", "response_sha256": "string",
                "run?": "object", "calls?": "objects", "lookups?": "object|null",
                "settings?": "object|null", "served_model?": "string|null",
                "served_model_reduced?": "boolean"}
EVALUATOR_FIELDS = {"provider": "string", "model": "string", "prompt": "string",
                    "prompt_sha256": "string"}
CALL_FIELDS = {"usage?": "object|null"}
USAGE_FIELDS = {"input_tokens?": "integer|null", "output_tokens?": "integer|null",
                "reported?": "boolean"}
LOOKUPS_FIELDS = {"mode": "string", "calls": "objects", "sections?": "list", "why?": "string|null"}
LOOKUP_CALL_FIELDS = {"tool": "string", "error?": "string|null"}


def check_line(line, where, what, fields, *parts):
    """Refuse a line whose format is not 1, whose fields are not of their
    type, or that holds a string no file can carry; ``parts`` are
    ``(key, fields)`` of objects inside it to check the same way."""
    if not whole_number(line.get("format")) or line["format"] != 1:
        raise BadInput(f"{where}: format {str(line.get('format'))[:20]!r} is not one this tool "
                       f"knows (1): not {what}")
    problem = wrong_field(line, fields)
    for key, inner in parts:
        if problem is None and isinstance(line.get(key), dict):
            problem = wrong_field(line[key], inner, f"{key}.")
    if problem is not None:
        raise BadInput(f"{where}: {problem}: not {what}")


def read_raw(paths, scenarios):
    answers = {}
    for path in paths:
        for number, line in iter_jsonl(path):
            where = f"{path}:{number}"
            check_line(line, where, "a raw answer line", RAW_FIELDS, ("target", TARGET_FIELDS))
            target, run = line["target"], line["run"]
            prompt = (line.get("request") or {}).get("prompt")
            problem = None if prompt is None else \
                "request.prompt must be an object" if not isinstance(prompt, dict) else \
                wrong_field(prompt, PROMPT_FIELDS, "request.prompt.")
            if problem is not None:
                raise BadInput(f"{where}: {problem}: not a raw answer line")
            linechecks.check_raw_line(line, where)
            if run.get("cases_sha256") != scenarios.sha256:
                raise BadInput(f"{where}: answers a scenario file with sha256 "
                               f"{str(run.get('cases_sha256'))[:12]}, not {scenarios.path}; "
                               "scenarios are frozen")
            if line["id"] not in scenarios.by_id:
                raise BadInput(f"{where}: {line['id']} is not a scenario of {scenarios.path}")
            key = (line["id"], variant_of(target))
            if key in answers:
                raise BadInput(f"{where}: a second answer of {key[1]} to {key[0]}")
            response = line.get("response") or {}
            answers[key] = {"text": answer_text(target, line.get("response")), "target": target,
                            "run": run, "where": where, "date": answered_on(line),
                            "served": reported(response.get("model")),
                            "served_reduced": response.get("model_reduced") is True,
                            "cut_off": response.get("cut_off") is True,
                            "prompt": generator_prompt(line),
                            "settings": generator_settings(line),
                            "stand_in": stand_in_said(response.get("body"), response.get("model"))}
    return answers


def read_atoms(paths, answers, scenarios):
    out = {}
    corpora = Corpora()
    for path in paths:
        for number, line in iter_jsonl(path):
            where = f"{path}:{number}"
            check_atoms_line(line, where)
            check_atoms_cases(line, where, scenarios)
            ev = line["evaluator"]
            evaluator = f"{ev.get('provider')}:{ev.get('model')}"
            answer = answers.get((line["id"], line["variant"]))
            if answer is None:
                raise BadInput(f"{where}: no raw answer of {line['variant']} to {line['id']} "
                               "among the raw files given")
            check_not_self(line, where, evaluator, answer)
            text = answer["text"] or ""
            if line.get("response_sha256") != sha256_of(text):
                raise BadInput(f"{where}: these atoms are of another answer than the raw line's "
                               "(response_sha256 differs)")
            atoms = line_atoms(line, where, text, scenarios, corpora)
            linechecks.check_atoms_line(line, where)
            key = (line["id"], line["variant"], evaluator, line["repeat"])
            if key in out:
                raise BadInput(f"{where}: a second atoms line for {key}")
            out[key] = {"atoms": atoms, "error": line.get("error"), "evaluator": ev,
                        "lookups": line.get("lookups"), "settings": line.get("settings"),
                        "served": reported(line.get("served_model")),
                        "served_reduced": line.get("served_model_reduced") is True,
                        "run": line.get("run") or {}, "where": where,
                        "tokens": evaluator_tokens(line.get("calls")),
                        "stand_in": any(stand_in_said(c.get("reply"), line.get("served_model"))
                                        for c in line.get("calls") or [{}])}
    return out


def check_atoms_cases(line, where, scenarios):
    """Refuse atoms made against another scenario file than the one scored,
    as read_raw refuses such a raw line: the evaluator was shown that file's
    question and topics. A line that records none (atomize.py without
    --cases writes null; a line without a run block) says nothing to check."""
    recorded = (line.get("run") or {}).get("cases_sha256")
    if recorded is not None and recorded != scenarios.sha256:
        raise BadInput(f"{where}: atoms made against a scenario file with sha256 "
                       f"{str(recorded)[:12]}, not {scenarios.path}; scenarios are frozen")


# A stand-in says so (tests/model_servers.py): "stand_in": true in its reply's
# body, which no real API sends, or a model id beginning "stand-in". The rule
# of ai_eval.py (evalkit/aieval/resultfile.py), so that both suites label
# such a run an example, never a measurement.
_STAND_IN = re.compile(r"^stand-in", re.IGNORECASE)


def stand_in_said(body, model):
    """True when a reply's ``body`` (the text as received) or the ``model``
    its server reported says the server is a stand-in."""
    if isinstance(model, str) and _STAND_IN.match(model):
        return True
    if not isinstance(body, str) or "stand_in" not in body:
        return False  # no key to find: the body is not parsed again
    try:
        doc = parse_received(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and doc.get("stand_in") is True


def stand_in_answered(answers, atoms):
    """True when the server of any raw or atoms line said it is a stand-in."""
    return any(e["stand_in"] for e in list(answers.values()) + list(atoms.values()))


def check_atoms_line(line, where):
    """Refuse an atoms line whose fields, calls' usage or atoms beside an
    error are not what the scoring reads."""
    check_line(line, where, "an atoms line", ATOMS_FIELDS, ("evaluator", EVALUATOR_FIELDS))
    if line["error"] is not None and line["atoms"] is not None:
        raise BadInput(f"{where}: atoms must be null beside an error: not an atoms line")
    for index, made in enumerate(line.get("calls", [])):
        problem = wrong_field(made, CALL_FIELDS, f"calls[{index}].") or (
            None if made.get("usage") is None else
            wrong_field(made["usage"], USAGE_FIELDS, f"calls[{index}].usage."))
        if problem is not None:
            raise BadInput(f"{where}: {problem}: not an atoms line")


def line_atoms(line, where, text, scenarios, corpora):
    """The atoms of a line (None beside an error), validated against the
    answer ``text``, and each with its grounding when the evaluator's
    lookups were recorded."""
    atoms = line.get("atoms")
    if line.get("error") is None:
        checked, problems = validate({"atoms": atoms}, scenarios.topics, answer=text)
        if problems:
            raise BadInput(f"{where}: {problems[0]}")
        atoms = checked
    lookups = line.get("lookups")
    if lookups is not None:
        check_lookups(lookups, where)
    if lookups is not None and atoms is not None:
        corpus = corpora.get(os.path.dirname(scenarios.path), lookups, where)
        seen = what_was_read(lookups, corpus)
        atoms = [dict(atom, **grounding(atom, corpus, seen)) for atom in atoms]
    return atoms


def check_not_self(line, where, evaluator, answer):
    """Refuse atoms an evaluator made of its own family's answer: every name
    on each side, the one asked for and the one its server reported (a
    local server answers with the model it serves, whatever was asked)."""
    asked = (split_variant(line["variant"])[1], line["evaluator"].get("model"))
    served = (answer["served"], reported(line.get("served_model")))
    for generator in filter(None, (asked[0], served[0])):
        for model in filter(None, (asked[1], served[1])):
            shared = same_family(model, generator)
            if shared is None:
                continue
            via = "" if (generator, model) == asked else \
                f"; as the servers reported them: {generator} and {model}"
            raise BadInput(f"{where}: evaluator {evaluator} atomized its own answer: the "
                           f"generator {line['variant']} is of its model family ({shared}"
                           f"{via}); generator != evaluator")


def reported(model):
    """A model name a server reported, or None."""
    return model if isinstance(model, str) and model else None


# The section ids a verified truth names, in brackets: "... [RCC 33.205.040]".
_RESTS_ON = re.compile(r"\[([^\[\]]+)\]")


def check_lookups(lookups, where):
    """Refuse an atoms line's lookups the scoring cannot read (lookups_problem)."""
    problem = lookups_problem(lookups)
    if problem is not None:
        raise BadInput(f"{where}: {problem}: not an atoms line")


def lookups_problem(lookups):
    """What is wrong with an atoms line's lookups, or None: a mode of tools or
    passages, calls (objects, each naming its tool), the section ids of
    passages, and each output of the shape its tool returns
    (evalkit/asking/lookups.py), since the scoring reads what each returned."""
    problem = wrong_field(lookups, LOOKUPS_FIELDS, "lookups.")
    if problem is not None:
        return problem
    if lookups["mode"] not in ("tools", "passages"):
        return "lookups.mode must be tools or passages"
    if lookups["mode"] == "passages" and "sections" not in lookups:
        return "lookups.sections is missing beside passages"
    if not all(isinstance(sid, str) for sid in lookups.get("sections", [])):
        return "lookups.sections must be a list of strings"
    for index, call in enumerate(lookups["calls"]):
        problem = wrong_field(call, LOOKUP_CALL_FIELDS, f"lookups.calls[{index}].")
        if problem is None and not _output_fits(call):
            problem = f"lookups.calls[{index}].output is not what {call['tool']} returns"
        if problem is not None:
            return problem
    return None


def _output_fits(call):
    """Whether a call's output is of its tool's shape: search_code a list of
    hits with their section, read_section a section with its id,
    lookup_parcel a parcel with its address. A failed call (an error) and a
    tool that does not exist returned nothing the scoring reads."""
    output = call.get("output")
    if call.get("error") is not None or output is None:
        return True
    if call["tool"] == "search_code":
        return isinstance(output, list) and all(
            isinstance(hit, dict) and isinstance(hit.get("section"), str) for hit in output)
    key = {"read_section": "id", "lookup_parcel": "address"}.get(call["tool"])
    return key is None or (isinstance(output, dict) and isinstance(output.get(key), str))


def what_was_read(lookups, corpus):
    """``(section ids, parcel addresses)`` the evaluator read for this answer,
    as the code writes them. Read: each section a search_code call returned
    a passage of, each section read_section returned, each parcel
    lookup_parcel returned (the parcel table's row), and, with passages, each
    section whose passage was put in the prompt. A call that failed read
    nothing; what the evaluator only names is not read."""
    ids = list(lookups["sections"]) if lookups["mode"] == "passages" else []
    addresses = []
    for call in lookups["calls"]:
        output = call.get("output")
        if call.get("error") is not None or output is None:
            continue
        if call["tool"] == "search_code":
            ids += [hit["section"] for hit in output]
        elif call["tool"] == "read_section":
            ids.append(output["id"])
        elif call["tool"] == "lookup_parcel":
            addresses.append(output["address"])
    sections = {sid for sid in map(corpus.section, ids) if sid}
    parcels = {address for address in map(corpus.parcel, addresses) if address}
    return sections, parcels


def named_in(truth, corpus):
    """``(sections, parcels, unknown)`` a verified truth names in brackets:
    section ids the code has and addresses its parcel table has (a bracket
    holding one address, with or without the city: "[4127 SE Wrenfield
    Court, Riverton]"), each ``(as written, as the code writes it)``, and
    the rest as written, split at commas and semicolons."""
    sections, parcels, unknown = [], [], []
    for found in _RESTS_ON.findall(truth):
        whole = found.strip()
        # an address holds a comma ("..., Riverton"): look for it before splitting
        parcel = None if corpus.section(whole) else corpus.parcel(whole)
        if parcel is not None:
            parcels.append((whole, parcel))
            continue
        for part in (p.strip() for p in re.split(r"[;,]", found)):
            section = corpus.section(part) if part else None
            if section is not None:
                sections.append((part, section))
            elif part:
                unknown.append(part)
    return sections, parcels, unknown


def grounding(atom, corpus, seen):
    """What an atom's verified truth rests on, for an evaluator that looked
    the code up (atomize.py with a corpus): ``rests_on``, the section ids it
    names that the code has, ``rests_on_parcel``, the parcels it names,
    ``unknown_sections``, what it names that the code does not have,
    ``rests_on_read``, those of its sections and parcels the evaluator read
    for this answer (``seen``: what_was_read), and ``verified``, whether it
    rests on any of them."""
    sections, parcels, unknown = named_in(atom["verified_truth"], corpus)
    read = [written for written, sid in sections if sid in seen[0]] + \
        [written for written, address in parcels if address in seen[1]]
    return {"rests_on": [written for written, _sid in sections],
            "rests_on_parcel": [written for written, _address in parcels],
            "unknown_sections": unknown, "rests_on_read": read, "verified": bool(read)}


def verified(atoms):
    """The figure beside Accurate: of the factual atoms (not admitted gaps),
    how many rest on a section (or a parcel) the evaluator read."""
    facts = [a for a in atoms if a["correctness"] != GAP]
    return {"factual_atoms": len(facts), "resting_on_a_section_read": sum(a["verified"] for a in facts)}


def lookup_use(cells):
    """Per evaluator that had the code: the answers it atomized (every
    repeat; a failed atomization has no atoms to rest on anything and is
    listed apart) by mode, those given the passages because the run asked for
    them (atomize.py --passages: a model that makes no real tool call), and
    those in tools mode with not one lookup call:
    it could look each claim up and looked nothing up (atomize.py counts
    them the same way)."""
    use = {}
    for cell in cells:
        lookups = cell.get("lookups")
        if lookups is None or cell["error"] is not None:
            continue
        entry = use.setdefault(cell["evaluator"], {"answers": 0, "passages": 0, "tools": 0,
                                                   "tools_without_a_lookup": 0,
                                                   "passages_asked": 0})
        entry["answers"] += 1
        entry[lookups["mode"]] += 1
        entry["passages_asked"] += lookups.get("why") == PASSAGES_ASKED
        entry["tools_without_a_lookup"] += lookups["mode"] == "tools" and not lookups["calls"]
    return use


class CodeIds:
    """A corpus's section ids and parcel addresses as the code writes them,
    for the ids and addresses an atoms line writes (Corpus.read and
    Corpus.parcel, kept: the same few come back in every answer)."""

    def __init__(self, corpus):
        self.corpus = corpus
        self.sha256 = corpus.sha256
        self.ids, self.addresses = {}, {}

    def section(self, text):
        """The id of the section ``text`` names, or None."""
        if text not in self.ids:
            found = self.corpus.read(text)
            self.ids[text] = found["id"] if found else None
        return self.ids[text]

    def parcel(self, text):
        """The address of the parcel ``text`` names, or None."""
        if text not in self.addresses:
            found = self.corpus.parcel(text)
            self.addresses[text] = found["address"] if found else None
        return self.addresses[text]


class Corpora:
    """The corpus files atoms lines name, beside the scenario file (``code/``),
    each read once (as its CodeIds) and checked against the sha256 the line
    recorded."""

    def __init__(self):
        self.loaded = {}

    def get(self, folder, lookups, where):
        name = lookups.get("corpus") if isinstance(lookups, dict) else None
        if not isinstance(name, str) or os.path.basename(name) != name:
            raise BadInput(f"{where}: lookups.corpus must name the corpus file")
        path = os.path.join(folder, "code", name)
        if path not in self.loaded:
            if not os.path.exists(path):
                raise BadInput(f"{where}: the corpus {name} is not in {os.path.join(folder, 'code')}")
            self.loaded[path] = CodeIds(Corpus(path))
        corpus = self.loaded[path]
        if lookups.get("corpus_sha256") != corpus.sha256:
            raise BadInput(f"{where}: the evaluator looked up another version of {name} "
                           "(corpus_sha256 differs)")
        return corpus


def evaluator_tokens(calls):
    """What the evaluator spent on one answer, over every call of its atoms
    line (a repair included): ``{"input", "output", "unreported"}``, the last
    counting the calls whose provider reported no usage (their tokens are
    not in the sums)."""
    tokens = {"input": 0, "output": 0, "unreported": 0}
    for call in calls if isinstance(calls, list) else []:
        usage = call.get("usage") if isinstance(call, dict) else None
        if not isinstance(usage, dict) or usage.get("reported") is False or \
                not isinstance(usage.get("input_tokens"), int):
            tokens["unreported"] += 1
            continue
        tokens["input"] += usage["input_tokens"]
        tokens["output"] += usage.get("output_tokens") or 0
    return tokens


def mean(values):
    values = [v for v in values if v is not None]
    return round(float(Fraction(sum(values), len(values))), 2) if values else None


def score(scenarios, raw_paths, atoms_paths, sources_path, jargon_path, example=False):
    """``scenarios`` is a loaded ScenarioSet (evalkit.scenario.scenarios.load_scenarios)."""
    sources = SourceTable(sources_path)
    jargon = JargonTable(jargon_path)
    answers = read_raw(raw_paths, scenarios)
    atoms = read_atoms(atoms_paths, answers, scenarios)
    cells = [score_cell(key, entry, scenarios, answers, sources, jargon)
             for key, entry in sorted(atoms.items())]
    atomized = {(c["scenario"], c["variant"]) for c in cells}
    not_atomized = sorted(f"{sid} ({variant})" for (sid, variant) in answers
                          if (sid, variant) not in atomized)
    evaluators = sorted({c["evaluator"] for c in cells})
    generators = sorted({variant for _sid, variant in answers})
    first = [c for c in cells if c["repeat"] == 0]
    answered = {}
    for (_sid, variant), answer in answers.items():
        answered[variant] = answered.get(variant, 0) + bool(visible(answer["text"] or ""))
    table = cross_table(first, evaluators, generators, answered)
    agreement = evaluator_agreement(first, evaluators)
    stability = repeat_stability(cells, evaluators)
    audit = evaluator_audit(first, scenarios)
    provenance = describe_runs(answers, atoms, cells, example)
    use = lookup_use(cells)
    if use:
        provenance["evaluator_lookups"] = use
    provenance.update({
        "generators": generators,
        "evaluators": evaluators,
        "cases": {"file": os.path.basename(scenarios.path), "sha256": scenarios.sha256},
        "sources": {"file": os.path.basename(sources.path), "sha256": sources.sha256},
        "jargon": {"file": os.path.basename(jargon.path), "sha256": jargon.sha256},
        "scorer": {"tool": "score.py", "version": OUTPUT_VERSION},
        "inputs": [{"file": os.path.basename(path), "role": role, "sha256": sha256_file(path)}
                   for role, paths in (("raw", raw_paths), ("atoms", atoms_paths))
                   for path in paths],
    })
    return {"format": 1, "suite": "scenario", "dimensions": list(DIMENSIONS),
            "provenance": provenance,
            "scenarios": [{"id": s["id"], "question": s["question"], "must_cover": s["must_cover"],
                           "address": s["address"]} for s in scenarios.scenarios],
            "cells": cells, "not_atomized": not_atomized,
            # A generator's answer stopped at its token limit: scored as it
            # came, and listed, since what it would have said is not known.
            "cut_off": sorted(f"{sid} ({variant})" for (sid, variant), a in answers.items()
                              if a["cut_off"]),
            "cross_evaluation": {"evaluators": evaluators, "generators": generators,
                                 "table": table, "agreement": agreement},
            "stability": stability, **({"evaluator_audit": audit} if audit else {})}


def describe_runs(answers, atoms, cells, example):
    """The runs as their lines describe them, never the clock: status, the UTC
    dates the answers were got (run_dates), the commits, and the prompts of
    both sides, the generator's (request.prompt of a model's raw line) and the
    evaluator's (the atoms line's evaluator.prompt)."""
    prompts = {("generator", a["prompt"]["name"], a["prompt"]["sha256"])
               for a in answers.values() if a["prompt"]}
    prompts |= {("evaluator", c["evaluator_prompt"]["name"], c["evaluator_prompt"]["sha256"])
                for c in cells}
    # A run a stand-in answered is an example whatever the flags: its numbers
    # measure no model (ai_eval.py labels it so too); so is one in which a
    # closed-weights model answered from this machine or a private network.
    stand_ins = closed_weights_here(answers, atoms)
    example = bool(example) or stand_in_answered(answers, atoms) or bool(stand_ins)
    return {
        "run": {"status": run_status(answers, atoms, example)},
        "served_models": served_models(answers, atoms),
        "stand_ins": stand_ins,
        "settings": run_settings(answers, atoms),
        "example": example,
        "run_dates": sorted({a["date"] for a in answers.values() if a["date"]}),
        "prompt_versions": [{"role": role, "name": name, "sha256": sha}
                            for role, name, sha in sorted(prompts, key=lambda p: tuple(map(str, p)))],
        "run_git_commits": sorted({str(a["run"].get("git_commit")) for a in answers.values()}
                                  | {str(e["run"].get("git_commit")) for e in atoms.values()}),
    }


def run_status(answers, atoms, example):
    """recorded_live_run or recorded_local_run when run.py asked and
    atomize.py judged every answer (local when any endpoint is this machine
    or a private network), else not_run; not_run for an example too (--example,
    or a stand-in said so: describe_runs)."""
    recorded = (not example and bool(answers) and
                all(a["run"].get("tool") == "run.py" for a in answers.values()) and
                all(e["run"].get("tool") == "atomize.py" for e in atoms.values()))
    if not recorded:
        return "not_run"
    endpoints = [a["target"].get("url") for a in answers.values()] + \
                [e["run"].get("url") for e in atoms.values()]
    local = any(is_local_host(host_of(url)) for url in endpoints if isinstance(url, str))
    return "recorded_local_run" if local else "recorded_live_run"


def served_models(answers, atoms):
    """``[{role, asked, served, reduced}]``: each model asked for beside the
    models its server reported (none for an answer collected by hand);
    ``reduced`` when the server named it by a path of a file, of which only
    the file's name was kept (families.served_name)."""
    pairs = {("generator", variant_of(a["target"]), a["served"], a["served_reduced"])
             for a in answers.values() if a["target"].get("kind") == "model"}
    pairs |= {("evaluator", evaluator_name(e), e["served"], e["served_reduced"])
              for e in atoms.values()}
    return [{"role": role, "asked": asked, "served": served, "reduced": reduced}
            for role, asked, served, reduced in sorted(pairs, key=lambda p: tuple(map(str, p)))]


def evaluator_name(entry):
    return f"{entry['evaluator'].get('provider')}:{entry['evaluator'].get('model')}"


def closed_weights_here(answers, atoms):
    """A line for each model of a closed-weights family (families.closed_weights:
    Claude, GPT, Gemini, ...) that answered from this machine or a private
    network, as its line's API base is written: no one serves such weights
    there, so what answered is a stand-in, whatever it is called."""
    found = set()
    sides = [(variant_of(a["target"]), split_variant(variant_of(a["target"]))[1], a["served"],
              a["target"].get("url")) for a in answers.values()
             if a["target"].get("kind") == "model"]
    sides += [(evaluator_name(e), e["evaluator"].get("model"), e["served"], e["run"].get("url"))
              for e in atoms.values()]
    for name, asked, served, url in sides:
        if isinstance(url, str) and is_local_host(host_of(url)) and \
                any(closed_weights(m) for m in (asked, served) if m):
            found.add(f"{name} answered from {host_of(url)}: a closed-weights model is served "
                      "by its maker, never there")
    return sorted(found)


def run_settings(answers, atoms):
    """``[{role, model, settings, answers}]``: each generator's and
    evaluator's settings as their lines record them, with how many answers
    each set shaped (settings null: not recorded, an atoms line of an older
    atomize.py, or an answer collected by hand)."""
    counted = {}
    for a in answers.values():
        key = ("generator", variant_of(a["target"]), _frozen(a["settings"]))
        counted[key] = counted.get(key, 0) + 1
    for e in atoms.values():
        key = ("evaluator", evaluator_name(e), _frozen(e["settings"]))
        counted[key] = counted.get(key, 0) + 1
    return [{"role": role, "model": model, "settings": dict(frozen) if frozen else None,
             "answers": count}
            for (role, model, frozen), count in sorted(counted.items(),
                                                       key=lambda i: tuple(map(str, i[0])))]


def _frozen(settings):
    return tuple(sorted(settings.items())) if isinstance(settings, dict) else None


def answered_on(line):
    """The UTC date (YYYY-MM-DD) an answer was got: of the attempt that got it,
    or the day a manual answer was collected; None when the line says neither."""
    attempts = line.get("attempts") if isinstance(line.get("attempts"), list) else []
    last = attempts[-1] if attempts and isinstance(attempts[-1], dict) else {}
    target = line.get("target") if isinstance(line.get("target"), dict) else {}
    when = last.get("started_at") or target.get("collected_at")
    return when[:10] if isinstance(when, str) and calendar_date(when[:10]) else None


def generator_settings(line):
    """The settings a model generator's raw line records in its request
    (run.py): max_tokens, temperature (null: not sent), context (corpus or
    none) and prompt; None for an answer collected by hand."""
    request = line.get("request") if isinstance(line.get("request"), dict) else {}
    if (line.get("target") or {}).get("kind") != "model" or "max_tokens" not in request:
        return None
    prompt = generator_prompt(line)
    context = request.get("context")
    return {"max_tokens": request.get("max_tokens"), "temperature": request.get("temperature"),
            "context": context.get("kind", "corpus") if isinstance(context, dict) else "none",
            "prompt": prompt["name"] if prompt else None}


def generator_prompt(line):
    """A model generator's request.prompt ``{name, sha256}``; None for an
    answer collected by hand (no request was made)."""
    request = line.get("request") if isinstance(line.get("request"), dict) else {}
    prompt = request.get("prompt")
    if isinstance(prompt, dict) and prompt.get("name"):
        return {"name": prompt.get("name"), "sha256": prompt.get("sha256")}
    return None


def score_cell(key, entry, scenarios, answers, sources, jargon):
    """One answer as one evaluator atomized it, with its four dimensions."""
    sid, variant, evaluator, repeat = key
    scenario = scenarios.by_id[sid]
    answer = answers[(sid, variant)]
    cell = {"scenario": sid, "variant": variant, "evaluator": evaluator, "repeat": repeat,
            "generator_kind": answer["target"].get("kind"),
            "evaluator_prompt": {"name": entry["evaluator"].get("prompt"),
                                 "sha256": entry["evaluator"].get("prompt_sha256")},
            "response": answer["text"], "atoms": entry["atoms"], "error": entry["error"],
            "evaluator_tokens": entry["tokens"], "settings": entry["settings"]}
    if entry["lookups"] is not None:
        cell["lookups"] = entry["lookups"]
    if entry["error"] is None:
        checks = citation_checks(entry["atoms"], answer["text"] or "", sources)
        cell["scores"] = score_answer(entry["atoms"], scenario["must_cover"],
                                      answer["text"] or "", sources, jargon, checks)
        flags = atomchecks.check_atoms(entry["atoms"], answer["text"] or "")
        for atom, (bucket, missing), flagged in zip(cell["atoms"], checks, flags):
            atom["citation_bucket"] = bucket
            atom["citation_not_in_answer"] = missing
            atom["set_aside"] = flagged
        # Beside the spec's Accurate (every factual atom), how many of them
        # are left once the atoms the answer does not hold are set aside.
        cell["atom_checks"] = atomchecks.counts(cell["atoms"], flags, GAP)
        cell["scores"]["accurate"]["atoms_kept_after_checks"] = \
            cell["atom_checks"]["factual_atoms_kept"]
        if entry["lookups"] is not None:
            cell["verified"] = verified(cell["atoms"])
    else:
        cell["scores"] = {d: {"score": None, "raw": None, "why": "atomization failed"}
                          for d in DIMENSIONS}
    return cell


def evaluator_audit(first, scenarios):
    """How far to trust each evaluator, against the scenarios' reference keys
    (never shown to it), over the atoms of its first repeat:

    - ``sections`` (when it looked the code up): of its factual atoms, how many
      rest on a section, how many on a section the key names for the atom's
      topic, how many name a section the code does not have;
    - ``tags`` (when it atomized the answers audit_answers.py writes from the
      keys): the tags it gave the claims of the true answers and of the
      altered ones, tag by tag; ``tags_kept``, the same over the atoms that
      the answer holds (not set aside by atomchecks: a claim the answer never
      made, a copy, a truth that only negates), so that an agreement resting
      on such atoms shows.

    ``{}`` when there is nothing to audit."""
    audit = {}
    for cell in first:
        if cell["error"]:
            continue
        entry = audit.setdefault(cell["evaluator"], {})
        if "lookups" in cell:
            _count_sections(entry, cell, scenarios.by_id[cell["scenario"]])
        kind = audit_kind(cell["variant"])
        if kind is not None:
            tags = entry.setdefault("tags", {"true_claims": {}, "false_claims": {}})[kind]
            kept = entry.setdefault("tags_kept", {"true_claims": {}, "false_claims": {}})[kind]
            for atom in cell["atoms"]:
                tags[atom["correctness"]] = tags.get(atom["correctness"], 0) + 1
                if not atom["set_aside"]:
                    kept[atom["correctness"]] = kept.get(atom["correctness"], 0) + 1
    return {evaluator: entry for evaluator, entry in audit.items() if entry}


def audit_kind(variant):
    """``true_claims`` or ``false_claims`` for the answers of audit_answers.py
    (imported by hand: ``manual:reference-key[-altered] VERSION``), else None."""
    if variant.startswith("manual:reference-key-altered "):
        return "false_claims"
    if variant.startswith("manual:reference-key "):
        return "true_claims"
    return None


def _count_sections(entry, cell, scenario):
    key = scenario.get("reference_key") or {}
    counts = entry.setdefault("sections", {
        "atoms": 0, "atoms_kept_after_checks": 0, "resting_on_a_section": 0,
        "on_a_key_section_of_the_topic": 0, "naming_a_section_the_code_lacks": 0})
    for atom in cell["atoms"]:
        if atom["correctness"] == GAP:
            continue
        counts["atoms"] += 1
        counts["atoms_kept_after_checks"] += not atom["set_aside"]
        counts["resting_on_a_section"] += bool(atom["rests_on"])
        key_sections = {fact["section"] for fact in key.get(atom["topic"], [])}
        counts["on_a_key_section_of_the_topic"] += bool(set(atom["rests_on"]) & key_sections)
        counts["naming_a_section_the_code_lacks"] += bool(atom["unknown_sections"])


def cross_table(first, evaluators, generators, answered=None):
    """Evaluator x generator: per dimension the mean score over the answers
    the evaluator scored (a failed atomization has no score and is counted
    apart, never as a response), with ``scored``, ``failed`` and
    ``not_reached`` (the generator's answers, ``answered``, that the
    evaluator has no atoms line for); an evaluator of the generator's
    family is marked self and left blank; ``empty`` says why a row has no
    mean: "family rule", "failed" (every answer reached failed) or "not
    reached", else None."""
    table = []
    by_pair = {}
    for c in first:
        by_pair.setdefault((c["evaluator"], c["variant"]), []).append(c)
    for evaluator in evaluators:
        for generator in generators:
            mine = by_pair.get((evaluator, generator), [])
            scored = [c for c in mine if c["error"] is None]
            row = {"evaluator": evaluator, "generator": generator,
                   "self": same_family(split_variant(evaluator)[1],
                                       split_variant(generator)[1]) is not None,
                   "scored": len(scored), "failed": len(mine) - len(scored)}
            row["not_reached"] = 0 if row["self"] else \
                max(0, (answered or {}).get(generator, 0) - len(mine))
            row["empty"] = "family rule" if row["self"] else None if scored else \
                "failed" if row["failed"] else "not reached"
            for d in DIMENSIONS:
                row[d] = None if row["self"] else mean([c["scores"][d]["score"] for c in scored])
            table.append(row)
    return table


def evaluator_agreement(first, evaluators):
    """Per pair of evaluators and dimension: how often they gave the same score."""
    agreement = []
    for i, a in enumerate(evaluators):
        for b in evaluators[i + 1:]:
            pairs = {}
            for c in first:
                if c["evaluator"] in (a, b):
                    pairs.setdefault((c["scenario"], c["variant"]), {})[c["evaluator"]] = c
            both = [(p[a], p[b]) for p in pairs.values() if a in p and b in p]
            for d in DIMENSIONS:
                scored = [(x["scores"][d]["score"], y["scores"][d]["score"]) for x, y in both
                          if x["scores"][d]["score"] is not None and y["scores"][d]["score"] is not None]
                same = sum(1 for x, y in scored if x == y)
                agreement.append({"a": a, "b": b, "dimension": d, "responses": len(scored),
                                  "same": same,
                                  "share_same": round(same / len(scored), 4) if scored else None,
                                  "mean_abs_diff": round(sum(abs(x - y) for x, y in scored)
                                                         / len(scored), 4) if scored else None})
    return agreement


def repeat_stability(cells, evaluators):
    """With --repeat: how often the repeats of one evaluator agree, over the
    answers every repeat scored (``responses``), as evaluator_agreement
    counts pairs: two failed atomizations are not an agreement, only
    ``answers_repeated`` counts them."""
    stability = []
    repeats = {}
    for c in cells:
        repeats.setdefault((c["evaluator"], c["scenario"], c["variant"]), []).append(c)
    for evaluator in evaluators:
        groups = [g for (e, _s, _v), g in sorted(repeats.items()) if e == evaluator and len(g) > 1]
        if not groups:
            continue
        for d in DIMENSIONS:
            scored = [g for g in groups if all(c["scores"][d]["score"] is not None for c in g)]
            agree = sum(1 for g in scored if len({c["scores"][d]["score"] for c in g}) == 1)
            stability.append({"evaluator": evaluator, "dimension": d,
                              "answers_repeated": len(groups), "responses": len(scored),
                              "repeats": max(len(g) for g in groups), "all_agree": agree,
                              "share": round(agree / len(scored), 4) if scored else None})
    return stability

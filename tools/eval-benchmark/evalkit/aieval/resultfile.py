"""Result files of recorded runs (evals/ai/results/): what their provenance
must hold, and the checks that refuse a number without it.

A result file (``format`` 4) holds exactly ``format``, ``suite``, ``run``,
``summary``, ``cases`` (the per-case records), ``errors`` and ``calls`` (per
case, each model call: its ``prompt``, the model the server reported and
whether it was reduced from a path of a file, whether the server said it is
a stand-in, the wire format of its reply, ``reply_format``, and its token
usage). The ``run`` block holds exactly RUN_FIELDS_4: ``status``,
``endpoint`` (the base URL called), ``provider``, ``model`` (asked for),
``served_model`` / ``served_models`` (what the server reported),
``prompt_versions``, ``settings`` (json_mode, max_tokens, temperature: null
when not sent, context: none for intake, passages for grounding),
``date_utc`` / ``dates_utc``, ``git_commit``, ``git_dirty``, ``cases_file``,
``cases_sha256``, ``inputs`` (each input's repository path and sha256),
``cases_run``, ``limit``, ``tool``, ``tool_version``, ``python`` and
``tokens``. A ``format`` 3 file, written before the settings were recorded,
has no ``settings`` and its calls only the served model, stand-in and usage;
it is read and checked as it was written. A key given twice is refused when
the file is read (``load``): the second ``"summary"`` would silently win.

status is one of

  ``recorded_live_run``   a hosted API answered: the endpoint is not this
                          machine or a private network as written
                          (provenance.is_local_host) and its host is not one
                          of another provider's API
  ``recorded_local_run``  a model served on this machine or a private network
                          answered, and its server named it (served_model)
  ``example``             a stand-in answered (the server said so, in every
                          reply: ``"stand_in": true``, or a model id beginning
                          ``stand-in``), a local server that named no model,
                          or a closed-weights model (families.closed_weights)
                          answered from this machine or a private network
  ``not_run``             holds ``format``, ``suite`` and a ``run`` of
                          ``status``, ``provider``, ``model`` and a ``reason``
                          without a digit: no result, not even as text

Numbers are never written by hand, so:

  ``problems(doc)``       the shape: every key known and of its type (no
                          headline, no ``run.accuracy``), the per-case records,
                          ``run.cases_run`` the number of them and within
                          ``run.limit``, ``run.tokens`` and the served models
                          what ``calls`` add up to, the dates calendar days not
                          after today; the prompts the suite's calls use,
                          each listed once (intake-vN; explain-vN and
                          staff-questions-vN); in format 4 the settings (a
                          JSON mode of the provider, the suite's context) and
                          each call held to them: its prompt the one of its
                          place, its reply in the provider's wire format, its
                          output tokens within max_tokens, every listed
                          prompt used; for a recorded run (live or local) a
                          clean tree, no stand-in, every served model of the
                          asked model's family (evalkit/families.py), no
                          closed-weights model run locally, at a maker's own
                          API (api.openai.com, api.anthropic.com) only its
                          maker's models, an endpoint of its status whose API
                          is the provider's (anthropic never at an
                          OpenAI-style ``.../v1`` or api.openai.com, bedrock
                          only at bedrock-runtime), and the committed inputs
                          of evals/ai/ (not the tests' fixtures under the real
                          file's name)
  ``recompute_problems``  every published figure (summary, per-case records,
                          errors) scored again from the per-case records and
                          the inputs, whose sha256 must match; the records
                          are the first cases of the case file, as many as the
                          file holds or ``run.limit`` says
  ``history_problems``    with git: the commit is in the repository's
                          history (an ancestor of HEAD) and the run's first
                          date is not before the day it was made, each prompt
                          and each input at that commit has the recorded
                          sha256 (and a recorded grounding run used every
                          corpus document of that commit), and the figures
                          recompute from the inputs as they were then
  ``check(doc, root)``    all of them; the history ones when ``root`` is a git
                          checkout. Without git it checks the shape, the prompt
                          files and inputs as ``root`` has them today and the
                          figures recomputed from those, but it cannot check a
                          commit (that it exists, its files, its date), so it
                          refuses to vouch for a recorded run there
  ``check_file(path, root)``  ``load`` and ``check``

What it does not prove: that the model named is the model that answered,
nor that a reply or a usage count is what a server sent. The file holds each
reply, the model each server named and the usage of each call, and the
checker holds them to one another, to the inputs and to the history; a file
written by hand to agree with itself throughout is not told apart from a
run.
"""

import datetime
import os
import re
import subprocess
import tempfile
from urllib.parse import urlsplit

from .. import BadInput, calendar_date
from ..families import closed_weights, family, same_family
from ..fields import brief, listed, shown, wrong_field
from .grounding import Corpus, Rules, score as score_grounding
from .intake import Vocabulary, load_cases, score as score_intake
from ..jsonl import read_json, sha256_file, sha256_of
from ..provenance import host_of, is_local_host, literal_address
from ..responses import parse_received, reply_format

# Format 4 records the settings (run.settings) and, per call, its prompt, its
# reply's wire format and a served model reduced from a path; format 3 files,
# written before, are read as they are (their settings not recorded).
FORMAT = 4
FORMATS = (3, 4)
HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
PROMPTS = "tools/eval-benchmark/prompts"
STATUSES = ("recorded_live_run", "recorded_local_run", "example", "not_run")
RECORDED = ("recorded_live_run", "recorded_local_run")
PROVIDERS = ("openai", "anthropic", "bedrock")

# Every key of a result file and its JSON type (fields.wrong_field); no other.
TOP_FIELDS = {"format": "integer", "suite": "string", "run": "object", "summary": "object",
              "cases": "objects", "errors": "objects", "calls": "objects"}
RUN_FIELDS = {"status": "string", "endpoint": "string", "provider": "string", "model": "string",
              "served_model": "string|null", "served_models": "list",
              "prompt_versions": "objects", "date_utc": "string", "dates_utc": "list",
              "git_commit": "string|null", "git_dirty": "boolean|null", "cases_file": "string",
              "cases_sha256": "string", "inputs": "object", "cases_run": "integer",
              "limit": "integer|null", "tool": "string", "tool_version": "string",
              "python": "string", "tokens": "object"}
RUN_FIELDS_4 = dict(RUN_FIELDS, settings="object")
PROMPT_FIELDS = {"name": "string", "sha256": "string"}
INPUT_FIELDS = {"path": "string|null", "name": "string", "sha256": "string"}
CASE_CALLS_FIELDS = {"id": "string", "calls": "objects"}
CALL_FIELDS = {"served_model": "string|null", "stand_in": "boolean", "usage": "object|null"}
CALL_FIELDS_4 = dict(CALL_FIELDS, **{"prompt": "string", "served_model_reduced": "boolean",
                                     "reply_format": "string|null"})
SETTINGS_FIELDS = {"json_mode": "string", "max_tokens": "integer", "temperature": "number|null",
                   "context": "string"}
# How each provider holds a reply to JSON (providers' json_mode_of), and the
# context each suite gives: the matched rules' passages to grounding.
JSON_MODES = {"openai": ("json_object", "json_schema", "none"),
              "anthropic": ("forced_tool",), "bedrock": ("forced_tool", "none")}
CONTEXTS = {"intake": "none", "grounding": "passages"}
# The prompts each suite's calls use, in their order, by name before -vN: a
# run lists each of them once, and no other.
SUITE_PROMPTS = {"intake": ("intake",), "grounding": ("explain", "staff-questions")}
# The models a maker's own API serves (by family key, evalkit/families.py):
# a run at api.openai.com of a Qwen model is no run of that API.
MAKERS = {"openai": re.compile(r"^(gpt|o\d|chatgpt|davinci|textdavinci|babbage|codex)"),
          "anthropic": re.compile(r"^claude")}
USAGE_FIELDS = {"input_tokens": "integer|null", "cached_input_tokens": "integer|null",
                "output_tokens": "integer|null", "reported": "boolean"}
CALLS_PER_CASE = {"intake": 1, "grounding": 2}
NOT_RUN_TOP = {"format": "integer", "suite?": "string", "run": "object"}
NOT_RUN_RUN = {"status": "string", "provider?": "string", "model?": "string", "reason?": "string"}

# The committed inputs a recorded run must use: the tests' fixtures are
# small case sets of the same names.
PUBLISHED_INPUTS = {
    "intake": {"cases": "evals/ai/intake-cases.json", "vocabulary": "evals/ai/vocabulary.json",
               "policy": "evals/ai/EXTRACTION_POLICY.md"},
    "grounding": {"cases": "evals/ai/grounding-cases.json",
                  "vocabulary": "evals/ai/vocabulary.json", "rules": "evals/ai/rules.json"}}
CORPUS = "evals/ai/corpus"

# Hosts whose API is one provider's: the endpoint names the API it speaks.
API_HOSTS = {"api.openai.com": "openai", "api.anthropic.com": "anthropic"}
_BEDROCK_HOST = re.compile(r"^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$")
_STAND_IN = re.compile(r"^stand-in", re.IGNORECASE)


def _numbers(value, path="", out=None):
    out = [] if out is None else out
    if isinstance(value, bool) or value is None:
        return out
    if isinstance(value, (int, float)):
        out.append(path or "(top)")
    elif isinstance(value, dict):
        for key, item in value.items():
            _numbers(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _numbers(item, f"{path}[{index}]", out)
    return out


def api_of(host):
    """The provider whose API a host serves, or None for any other host."""
    return "bedrock" if _BEDROCK_HOST.match(host) else API_HOSTS.get(host)


def load(path):
    """A result file, each key given once in every object (BadInput names the file)."""
    return read_json(path, unique_keys=True)


# -- the calls: served models, stand-ins and tokens ---------------------------

def call_record(call):
    """What a result keeps of one call of a raw line: its prompt, the model
    its server reported (reduced from a path or not), whether the server said
    it is a stand-in, the wire format of its reply (responses.reply_format:
    openai, anthropic, bedrock, or null for none, a failed call's), and its
    usage."""
    usage = call.get("usage")
    kept = None
    if isinstance(usage, dict):
        both = all(isinstance(usage.get(key), int) for key in ("input_tokens", "output_tokens"))
        kept = {key: usage.get(key) for key in ("input_tokens", "cached_input_tokens", "output_tokens")}
        kept["reported"] = bool(usage.get("reported", both))
    try:
        doc = parse_received(call["reply"]) if isinstance(call.get("reply"), str) else None
    except (ValueError, RecursionError):
        doc = None
    return {"prompt": call.get("prompt"), "served_model": call.get("served_model"),
            "served_model_reduced": call.get("served_model_reduced") is True,
            "stand_in": call.get("stand_in") is True, "reply_format": reply_format(doc),
            "usage": kept}


def served_of(calls):
    """``(served_model, served_models)`` of a result's ``calls``: every model
    id the servers reported, sorted, and the one when there is one."""
    names = sorted({c["served_model"] for case in calls for c in case["calls"]
                    if isinstance(c.get("served_model"), str) and c["served_model"]})
    return (names[0] if len(names) == 1 else None), names


def stand_in_said(calls):
    """True when a server said it is a stand-in, in a reply or in the model it named."""
    return any(c.get("stand_in") is True or _STAND_IN.match(str(c.get("served_model") or ""))
               for case in calls for c in case["calls"])


def tokens_of(calls):
    """What the model's calls used, from their usage records: calls, replies
    whose provider reported no usage, tokens in (cached ones included),
    cached and out, and tokens in and out per case."""
    every = [call for case in calls for call in case.get("calls") or []]
    replied = [c["usage"] for c in every if isinstance(c.get("usage"), dict)]
    # Raw lines written before usage carried "reported" have the two counts only.
    reported = [u for u in replied if u.get("reported", isinstance(u.get("input_tokens"), int)
                                           and isinstance(u.get("output_tokens"), int))]
    total = {key: sum(u.get(key) or 0 for u in reported)
             for key in ("input_tokens", "cached_input_tokens", "output_tokens")}
    per_case = {f"{key}_per_case": round(total[key] / len(calls), 1) if calls else None
                for key in ("input_tokens", "output_tokens")}
    return dict({"calls": len(every), "replies_without_usage": len(replied) - len(reported)},
                **total, **per_case)


# -- the shape ----------------------------------------------------------------

def _shape(record, fields, prefix=""):
    """Every key of ``record`` unknown to ``fields``, missing or of another type."""
    known = {name.rstrip("?") for name in fields}
    found = [f"{prefix}{brief(key)} is not a field of a result file"
             for key in record if key not in known]
    for name, kind in fields.items():
        problem = wrong_field(record, {name: kind}, prefix)
        if problem:
            found.append(problem)
    return found


def _not_run_problems(doc):
    """A not_run file holds no result: no number, no summary, no figure as text."""
    numbers = _numbers({k: v for k, v in doc.items() if k not in ("format", "run")})
    if numbers:
        return [f"status not_run but it holds numbers (first: {brief(numbers[0])})"]
    found = _shape(doc, NOT_RUN_TOP) + _shape(doc["run"], NOT_RUN_RUN, "run.")
    if not found and re.search(r"[0-9]", doc["run"].get("reason", "")):
        found.append("run.reason of a not_run file holds a digit: a reason, not a result")
    return found


def _entry_problems(run):
    """The prompts and inputs, each entry exactly its fields."""
    found = []
    for n, prompt in enumerate(run["prompt_versions"]):
        found += _shape(prompt, PROMPT_FIELDS, f"run.prompt_versions[{n}].")
        if not HEX64.match(str(prompt.get("sha256"))):
            found.append(f"run.prompt_versions[{n}].sha256 must be the prompt's sha256")
    if not run["prompt_versions"]:
        found.append("run.prompt_versions must list each prompt's name and sha256")
    for role, item in sorted(run["inputs"].items()):
        role = brief(role)  # a key of the file: named, never repeated whole
        if not isinstance(item, dict):
            found.append(f"run.inputs.{role} must give the input file's path and sha256")
            continue
        found += _shape(item, INPUT_FIELDS, f"run.inputs.{role}.")
        if not HEX64.match(str(item.get("sha256"))):
            found.append(f"run.inputs.{role}.sha256 must be the file's sha256")
    return found


def _date_problems(run):
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    dates = run["dates_utc"]
    if not calendar_date(run["date_utc"]):
        return ["run.date_utc must be YYYY-MM-DD"]
    if not dates or not all(calendar_date(d) for d in dates) or dates != sorted(set(dates)) \
            or dates[0] != run["date_utc"]:
        return ["run.dates_utc must be the run's days, sorted, the first run.date_utc"]
    if dates[-1] > today:
        return [f"run.dates_utc {dates[-1]} is after today ({today}, UTC)"]
    return []


def _run_problems(run):
    found = _entry_problems(run) + _date_problems(run)
    if not HEX40.match(str(run["git_commit"])):
        found.append("run.git_commit must be the 40-hex commit the run used")
    if not HEX64.match(run["cases_sha256"]):
        found.append("run.cases_sha256 must be the case file's sha256")
    cases = run["inputs"].get("cases")
    if not isinstance(cases, dict):
        found.append("run.inputs.cases is missing")
    elif cases.get("sha256") != run["cases_sha256"]:
        found.append("run.inputs.cases is not the case file of run.cases_sha256")
    elif run["cases_file"] != cases.get("name") or (
            cases.get("path") and os.path.basename(cases["path"]) != run["cases_file"]):
        found.append(f"run.cases_file {brief(run['cases_file'])} is not the file of "
                     "run.inputs.cases")
    return found


def _count_problems(doc):
    run, count = doc["run"], len(doc["cases"])
    if run["cases_run"] != count:
        return [f"run.cases_run {run['cases_run']} is not the number of per-case records ({count})"]
    if run["limit"] is not None and (run["limit"] < 1 or count > run["limit"]):
        return [f"run.limit {run['limit']}, but {count} per-case records"]
    return []


def _call_shape_problems(doc):
    """``calls``: one record per case, in order, each call of its shape."""
    calls, per_case = doc["calls"], CALLS_PER_CASE[doc["suite"]]
    if [c.get("id") for c in calls] != [c.get("id") for c in doc["cases"]]:
        return ["calls must hold one record per case, in the order of cases"]
    fields = CALL_FIELDS_4 if doc["format"] >= 4 else CALL_FIELDS
    for n, case in enumerate(calls):
        found = _shape(case, CASE_CALLS_FIELDS, f"calls[{n}].")
        if not found and len(case["calls"]) != per_case:
            found.append(f"calls[{n}] must hold the case's {per_case} call(s)")
        for k, call in enumerate(case["calls"] if not found else []):
            found += _shape(call, fields, f"calls[{n}].calls[{k}].")
            if not found and call["usage"] is not None:
                found += _shape(call["usage"], USAGE_FIELDS, f"calls[{n}].calls[{k}].usage.")
        if found:
            return found
    return []


def _calls_problems(doc):
    """``calls`` of their shape and, in format 4, of the run's settings and
    prompts; the tokens and served models of ``run`` are what they add up to."""
    found = _call_shape_problems(doc)
    if not found and doc["format"] >= 4:
        found = _call_settings_problems(doc)
    if found:
        return found
    calls, run = doc["calls"], doc["run"]
    if not same(tokens_of(calls), run["tokens"]):
        found.append("run.tokens is not what the calls' usage adds up to")
    if (run["served_model"], run["served_models"]) != served_of(calls):
        found.append("run.served_model and run.served_models are not the models the calls name")
    return found


def _settings_problems(doc):
    """run.settings: exactly its fields, a JSON mode of the provider, the
    suite's context, a positive token limit."""
    settings, run = doc["run"]["settings"], doc["run"]
    found = _shape(settings, SETTINGS_FIELDS, "run.settings.")
    if found:
        return found
    if settings["json_mode"] not in JSON_MODES.get(run["provider"], (settings["json_mode"],)):
        found.append(f"run.settings.json_mode {brief(settings['json_mode'])} is not one of "
                     f"{brief(run['provider'])}'s ({', '.join(JSON_MODES[run['provider']])})")
    if settings["context"] != CONTEXTS.get(doc["suite"], settings["context"]):
        found.append(f"run.settings.context {brief(settings['context'])}: the {doc['suite']} "
                     f"suite gives {CONTEXTS[doc['suite']]}")
    if settings["max_tokens"] < 1:
        found.append("run.settings.max_tokens must be at least 1")
    return found


def _prompt_problems(doc):
    """A run lists every prompt its suite's calls use, each once, and no other."""
    names = [p.get("name") for p in doc["run"]["prompt_versions"]]
    roles = [re.sub(r"-v\d+$", "", str(name)) for name in names]
    wanted = SUITE_PROMPTS.get(doc["suite"])
    if wanted is None or sorted(roles) == sorted(wanted):
        return []
    return [f"run.prompt_versions names {', '.join(brief(n) for n in names) or 'none'}; a "
            f"{doc['suite']} run uses one prompt of each of {', '.join(wanted)}, and lists each"]


def _call_settings_problems(doc):
    """Each call of a format-4 file: a prompt of the run, the one of its place
    in the case (SUITE_PROMPTS), its reply in its provider's wire format, its
    output tokens within run.settings.max_tokens; every listed prompt used."""
    run, found = doc["run"], []
    listed_names = [p["name"] for p in run["prompt_versions"]]
    used = set()
    for n, case in enumerate(doc["calls"]):
        for k, call in enumerate(case["calls"]):
            place = f"calls[{n}].calls[{k}]"
            used.add(call["prompt"])
            role = SUITE_PROMPTS[doc["suite"]][k]
            if call["prompt"] not in listed_names or not call["prompt"].startswith(role + "-v"):
                found.append(f"{place}.prompt {brief(call['prompt'])} is not the run's {role} "
                             "prompt (run.prompt_versions)")
            if call["reply_format"] not in (None, run["provider"]):
                found.append(f"{place}: a reply in {brief(call['reply_format'])}'s wire format, "
                             f"but run.provider is {brief(run['provider'])}: not its provider's")
            tokens = (call["usage"] or {}).get("output_tokens")
            if isinstance(tokens, int) and tokens > run["settings"]["max_tokens"]:
                found.append(f"{place}: {tokens} output tokens, over run.settings.max_tokens "
                             f"{run['settings']['max_tokens']}")
            if found:
                return found
    unused = [name for name in listed_names if name not in used]
    return [f"run.prompt_versions lists {brief(unused[0])}, which no call used"] if unused else []


def _shape_problems(doc):
    """Every key known and of its type; the per-case records there."""
    found = _shape(doc, TOP_FIELDS)
    if "cases" not in doc or doc["cases"] == []:
        found = [p for p in found if not p.startswith("cases ")]
        found.append("no per-case records (cases): the figures cannot be recomputed")
    older = doc.get("format") == 3  # written before the settings were recorded
    found += _shape(doc["run"], RUN_FIELDS if older else RUN_FIELDS_4, "run.")
    if found:
        return found
    if doc["format"] not in FORMATS:
        return [f"format {doc['format']} is not {FORMAT}, the format of a result file (nor "
                f"{', '.join(map(str, FORMATS[:-1]))}, which is read as it was written)"]
    if not older:
        found += _settings_problems(doc)
    if doc["suite"] not in CALLS_PER_CASE:
        found.append("suite must be intake or grounding")
    if not all(isinstance(r.get("id"), str) for r in doc["cases"]):
        found.append("every per-case record needs its case id")
    return found


def problems(doc):
    """What is wrong with a result file's shape and provenance ([] when nothing)."""
    if not isinstance(doc, dict):
        return ["not a JSON object"]
    run = doc.get("run")
    if not isinstance(run, dict):
        return ["no run block"]
    status = run.get("status")
    if status == "not_run":
        return _not_run_problems(doc)
    if status not in STATUSES:
        return [f"run.status {shown(status)} is none of {', '.join(STATUSES)}"]
    found = _shape_problems(doc)
    if found:
        return found
    found = _run_problems(run) + _count_problems(doc) + _prompt_problems(doc)
    found = found or _calls_problems(doc)
    if not found and status in RECORDED:
        found = _recorded_problems(doc)
    return found


# -- a recorded run -----------------------------------------------------------

def _recorded_problems(doc):
    run = doc["run"]
    found = []
    if run["git_dirty"] is not False:
        found.append("run.git_dirty must be false: a published run is made from a committed tree")
    found += _served_problems(doc) + _endpoint_problems(run) + _published_input_problems(doc)
    return found


def _served_problems(doc):
    """No stand-in; a local run names its model; every model named is of the
    family of the model asked for."""
    run = doc["run"]
    if stand_in_said(doc["calls"]) or _STAND_IN.match(run["model"]):
        return ["a stand-in answered (its server said so): label the run example"]
    if run["status"] == "recorded_local_run" and not run["served_models"]:
        return ["a local run names the model its server reported, and no reply named one: "
                "label the run example"]
    closed = [name for name in [run["model"]] + run["served_models"] if closed_weights(name)]
    if run["status"] == "recorded_local_run" and closed:
        return [f"a local run of {brief(closed[0])}, a closed-weights model no machine of one's "
                "own serves: what answered is a stand-in; label the run example"]
    maker = MAKERS.get(api_of(host_of(run["endpoint"])))
    strangers = [name for name in [run["model"]] + run["served_models"]
                 if maker is not None and not maker.match(family(name))]
    if run["status"] == "recorded_live_run" and strangers:
        return [f"run.endpoint {brief(run['endpoint'])} serves its maker's models only, not "
                f"{brief(strangers[0])}: not a run of that API"]
    return [f"the server reported {brief(name)}, not of the family of run.model "
            f"{brief(run['model'])} ({family(run['model'])}): record the model that answered"
            for name in run["served_models"] if same_family(run["model"], name) is None]


def _endpoint_problems(run):
    """The endpoint is a base URL of the run's status, and its API is the provider's."""
    endpoint, status, provider = run["endpoint"], run["status"], run["provider"]
    parts, host = urlsplit(endpoint), host_of(endpoint)
    endpoint, provider = brief(endpoint), brief(provider)  # as the messages name them
    if parts.scheme not in ("http", "https") or not host or "@" in parts.netloc \
            or parts.query or parts.fragment:
        return [f"run.endpoint {endpoint} is not a base URL as ai_eval.py records it"]
    if provider not in PROVIDERS:
        return [f"run.provider {provider} is none of {', '.join(PROVIDERS)}"]
    local, api = is_local_host(host), api_of(host)
    if status == "recorded_live_run" and local:
        return [f"run.endpoint {endpoint} is this machine or a private network: label the run "
                "recorded_local_run (or example, for a stand-in)"]
    if status == "recorded_local_run" and (api or literal_address(host)) and not local:
        return [f"run.endpoint {endpoint} is a hosted API's: label the run recorded_live_run"]
    return _provider_problems(provider, endpoint, parts.path, api, local)


def _provider_problems(provider, endpoint, path, api, local):
    if provider == "bedrock" and api != "bedrock" and not local:
        return [f"run.provider bedrock with the endpoint {endpoint}: Bedrock's Converse API is "
                "at bedrock-runtime.<region>.amazonaws.com"]
    if provider != "bedrock" and api == "bedrock":
        return [f"run.provider {provider} with Bedrock's endpoint {endpoint}"]
    if provider == "anthropic" and (api == "openai" or path.rstrip("/").endswith("/v1")):
        return [f"run.provider anthropic with an OpenAI-style endpoint {endpoint}: the Messages "
                "API's base has no /v1 (the client adds /v1/messages)"]
    return []


def _published_input_problems(doc):
    """A recorded run used the committed inputs of evals/ai/, under their own paths."""
    suite, inputs = doc["suite"], doc["run"]["inputs"]
    expected = dict(PUBLISHED_INPUTS[suite])
    if suite == "grounding":
        expected.update({role: f"{CORPUS}/{role[len('corpus/'):]}"
                         for role in inputs if role.startswith("corpus/")})
    found = [f"run.inputs.{brief(role)} is {brief((inputs.get(role) or {}).get('path'))}, "
             f"not {path}: a "
             "recorded run uses the committed inputs of evals/ai/"
             for role, path in sorted(expected.items()) if (inputs.get(role) or {}).get("path") != path]
    found += [f"run.inputs.{brief(role)} is not an input of the {suite} suite"
              for role in sorted(inputs) if role not in expected]
    if suite == "grounding" and len(expected) == len(PUBLISHED_INPUTS[suite]):
        found.append("run.inputs names no corpus document")
    return found


def _corpus_problems(doc, names):
    """A recorded grounding run used every corpus document (``names``) there was."""
    if doc["suite"] != "grounding" or doc["run"]["status"] not in RECORDED:
        return []
    used = sorted(role[len("corpus/"):] for role in doc["run"]["inputs"] if role.startswith("corpus/"))
    if used != sorted(names):
        return [f"run.inputs: the corpus documents are not those of {CORPUS} "
                f"({', '.join(sorted(names)) or 'none'})"]
    return []


# -- the figures, recomputed --------------------------------------------------

def _sha256_file(path):
    try:
        return sha256_file(path)
    except OSError:
        return None


def _input_file_problems(inputs, root):
    found = []
    for role, item in sorted(inputs.items()):
        if not item.get("path"):
            found.append(f"run.inputs.{brief(role)} ({brief(item.get('name'))}) is outside "
                         "the repository")
        elif _sha256_file(os.path.join(root, item["path"])) != item["sha256"]:
            found.append(f"run.inputs.{brief(role)}: {brief(item['path'])} does not have the "
                         "recorded sha256")
    return found


def _case_count_problems(doc, cases):
    """The per-case records are the first cases of the file, as many as it
    holds or as run.limit says."""
    count, total, limit = len(doc["cases"]), len(cases), doc["run"]["limit"]
    if [c["id"] for c in cases[:count]] != [str(r.get("id")) for r in doc["cases"]]:
        return ["the per-case records are not the first cases of the case file"]
    expected = min(limit, total) if limit else total
    if count != expected:
        return [f"the per-case records are {count} of the case file's {total} cases, and "
                f"run.limit is {limit if limit else 'not set'}: a run of the first {count} "
                f"says run.limit {count}"]
    return []


def recompute_problems(doc, root):
    """Score the per-case records again from the inputs under ``root`` (where
    each input's recorded path resolves) and compare every figure."""
    inputs = doc["run"]["inputs"]
    found = _input_file_problems(inputs, root)
    if found:
        return found
    where = {role: os.path.join(root, item["path"]) for role, item in inputs.items()}
    vocabulary = Vocabulary(where["vocabulary"])
    key = "gold" if doc["suite"] == "intake" else "facts"
    cases, _sha = load_cases(where["cases"], vocabulary, doc["suite"], key)
    found = _case_count_problems(doc, cases)
    if found:
        return found
    summary, detail = _rescore(doc, cases[:len(doc["cases"])], where, vocabulary)
    errors = [{"id": d["id"], "error": d["error"]} for d in detail if d["error"]]
    for name, mine, theirs in (("summary", summary, doc["summary"]), ("errors", errors, doc["errors"])):
        if not same(mine, theirs):
            found.append(f"{name} is not what the per-case records give")
    bad = [d["id"] for d, r in zip(detail, doc["cases"]) if not same(d, r)]
    if bad:
        found.append(f"per-case records not as scored: {listed(bad, 20)}")
    return found


def same(mine, theirs):
    """True when a published value is the recomputed one, types and all, at
    every depth: Python finds 0 == False and 2 == 2.0, but a file that says
    "match": 0 or "count": 2.0 is not what the scorer wrote."""
    if type(mine) is not type(theirs):
        return False
    if isinstance(mine, dict):
        return mine.keys() == theirs.keys() and all(same(v, theirs[k]) for k, v in mine.items())
    if isinstance(mine, list):
        return len(mine) == len(theirs) and all(map(same, mine, theirs))
    return mine == theirs


def _rescore(doc, cases, where, vocabulary):
    """``(summary, detail)`` of the per-case records' replies."""
    records = {r["id"]: r for r in doc["cases"]}
    if doc["suite"] == "intake":
        lines = {i: {"prediction": r.get("prediction"), "error": r.get("call_error")}
                 for i, r in records.items()}
        return score_intake(cases, lines, vocabulary)
    corpus_files = [p for r, p in where.items() if r.startswith("corpus/")]
    if not corpus_files:
        raise BadInput("run.inputs names no corpus document")
    corpus = Corpus(os.path.dirname(corpus_files[0]))
    rules = Rules(where["rules"], vocabulary, corpus)
    lines = {i: {"explain": r.get("explain_reply"), "explain_error": r.get("explain_call_error"),
                 "staff": r.get("staff_reply"), "staff_error": r.get("staff_call_error")}
             for i, r in records.items()}
    return score_grounding(cases, lines, rules, corpus)


# -- the history --------------------------------------------------------------

def _git(root, *args, binary=False):
    """stdout of a git command in ``root``; None when git fails."""
    try:
        done = subprocess.run(("git",) + args, cwd=root, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout if binary else done.stdout.decode("utf-8", "replace")


def is_git_checkout(root):
    return _git(root, "rev-parse", "--git-dir") is not None


def _commit_date_problems(run, root):
    """The run's first day is not before the day its commit was made (UTC)."""
    stamp = (_git(root, "show", "-s", "--format=%ct", run["git_commit"]) or "").strip()
    if not stamp.isdigit():
        return [f"run.git_commit {run['git_commit'][:12]}: git gives no date for it"]
    made = datetime.datetime.fromtimestamp(int(stamp), datetime.timezone.utc).strftime("%Y-%m-%d")
    if run["date_utc"] < made:
        return [f"run.date_utc {run['date_utc']} is before its commit {run['git_commit'][:12]} "
                f"was made ({made}, UTC)"]
    return []


def _prompt_history_problems(run, root):
    commit, found = run["git_commit"], []
    for prompt in run["prompt_versions"]:
        data = _git(root, "show", f"{commit}:{PROMPTS}/{prompt['name']}.md", binary=True)
        if data is None or sha256_of(data) != prompt["sha256"]:
            found.append(f"prompt {brief(prompt['name'])}: not the file of that name at "
                         f"{commit[:12]}")
    return found


def _corpus_at(root, commit):
    listing = _git(root, "ls-tree", "--name-only", f"{commit}:{CORPUS}") or ""
    return [name for name in listing.splitlines() if name.endswith(".json")]


def history_problems(doc, root):
    """The commit, its date, prompts and inputs as the repository at ``root``
    has them in its history, and the figures recomputed from the inputs at
    that commit."""
    run = doc["run"]
    commit = run["git_commit"]
    if _git(root, "merge-base", "--is-ancestor", commit, "HEAD") is None:
        return [f"run.git_commit {commit} is not in the repository's history"]
    found = _commit_date_problems(run, root) + _prompt_history_problems(run, root)
    found += _corpus_problems(doc, _corpus_at(root, commit))
    with tempfile.TemporaryDirectory() as tree:
        for role, item in sorted(run["inputs"].items()):
            data = _git(root, "show", f"{commit}:{item['path']}", binary=True) \
                if item.get("path") else None
            if data is None or sha256_of(data) != item["sha256"]:
                found.append(f"run.inputs.{brief(role)}: "
                             f"{brief(item.get('path') or item.get('name'))} is not "
                             f"at {commit[:12]} with the recorded sha256")
                continue
            target = os.path.join(tree, *item["path"].split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(data)
        return found or recompute_problems(doc, tree)


def _without_history_problems(doc, root):
    """What ``root``'s own files can check: the prompts and inputs as they
    are today, the figures recomputed from them; a recorded run's commit
    cannot be checked."""
    found = []
    for prompt in doc["run"]["prompt_versions"]:
        path = os.path.join(root, *PROMPTS.split("/"), prompt["name"] + ".md")
        if _sha256_file(path) != prompt["sha256"]:
            found.append(f"prompt {brief(prompt['name'])}: not the file of that name in {root}")
    corpus = os.path.join(root, *CORPUS.split("/"))
    names = [n for n in os.listdir(corpus) if n.endswith(".json")] if os.path.isdir(corpus) else []
    found += _corpus_problems(doc, names) + recompute_problems(doc, root)
    if doc["run"]["status"] in RECORDED:
        found.append(f"run.git_commit {doc['run']['git_commit'][:12]} cannot be checked: {root} is "
                     "not a git checkout (its history holds the commit, its files and its date)")
    return found


def check(doc, root):
    """Every problem of a result file: shape, then history (git) or what
    ``root``'s own files can check when it is not a git checkout."""
    found = problems(doc)
    if found or doc["run"]["status"] == "not_run":
        return found
    try:
        if is_git_checkout(root):
            return history_problems(doc, root)
        return _without_history_problems(doc, root)
    except BadInput as exc:
        return [f"an input cannot be read: {exc}"]


def check_file(path, root):
    """``check`` of the result file at ``path``, read with every key once."""
    try:
        doc = load(path)
    except BadInput as exc:
        return [str(exc)]
    return check(doc, root)

"""The file formats, in prose, in one place.

``run.py --help``, ``score.py --help`` and ``atomize.py --help`` print these
strings (each the formats it reads or writes), and the README describes the
same fields (tests/test_schemas.py holds the raw lines' table to these blocks
and to lines run.py writes), so help and code cannot drift apart. One line
per field: the field names, then after two spaces or more what they hold.
Beside a format's prose, its fields as evalkit/fields.py checks them
(tests/test_fields.py holds each field name to the prose).
"""

QUESTIONS = """\
QUESTION FILE (suite site-qa, format 1): one JSON object
  suite             "site-qa"
  set               the set's name, e.g. "med"
  format            1
  sites             {lang: {"site_url": ..., "widget_key": ...}}, lang in en, he, ru
  questions         list of questions; each has
    id              unique, e.g. "med-en-01"
    lang            en | he | ru (must have an entry in sites)
    kind            answerable | not_on_site
    question        the text sent, as a visitor types it
    page_url        the page the visitor is on when asking
  answerable questions also have
    source_url      the page whose visible text answers it
    also_source_urls  other pages stating the same fact in the same words ([] if none)
    evidence        the answering sentence, quoted verbatim from source_url
    facts           fact groups: [["120", "$120"], ...]; a group passes when any
                    spelling appears in the answer; every group must pass
  not-on-site questions may have
    must_not_include  strings an invented answer would contain
  Unknown keys, duplicate ids, empty strings, an answerable question without
  source_url, evidence or facts, and a not-on-site one with source_url or facts
  are refused (exit 2), and so is a string holding half of a surrogate pair
  (JSON's \\ud800 escape on its own: no request or page can carry it)."""

# QUESTIONS as evalkit/fields.py checks it; evalkit/rubric/cases.py says the rest
# (duplicate ids, a lang the sites lack, what each kind must or may not carry).
LANGS = ("en", "he", "ru")
QUESTION_FILE = {"suite": "string", "set": "text", "format": (1,),
                 "sites": {f"{lang}?": {"site_url": "text", "widget_key": "text"}
                           for lang in LANGS},
                 "questions": ["object", ...]}
QUESTION = {"id": "text", "lang": LANGS, "kind": ("answerable", "not_on_site"),
            "question": "text", "page_url": "text"}
ANSWERABLE = {**QUESTION, "source_url": "text", "also_source_urls?": ["text"],
              "evidence": "text", "facts": [["text", ...], ...]}
NOT_ON_SITE = {**QUESTION, "must_not_include?": ["text"]}

TARGET = """\
TARGET PROFILE (format 1): how to ask, and where the answer is
  format            1
  name, kind        e.g. "widget", "widget"
  url               the endpoint, or null (then --endpoint or BENCH_ENDPOINT)
  method            POST | GET | PUT
  headers           {name: template}; {env:NAME} takes a secret from the environment
  body              a JSON template; strings may hold {question} {page_url}
                    {widget_key} {lang} {id} {env:NAME}
  response          dotted paths into the reply: answer, sources (a list of URL
                    strings or objects), source_url (the URL's key in such an
                    object), grounded (a boolean; false = no grounding content)
  version_header    the response header naming the platform's version, or null
  Values from {env:NAME} are recorded as [redacted:NAME], never as themselves.
  A value its header or the URL cannot carry (a line break, a control
  character; a space in the URL) is refused before any question is asked."""
TARGET_FIELDS = {"format": (1,), "name": "text", "kind": "text", "url?": "string|null",
                 "method": ("POST", "GET", "PUT"), "headers?": {"*": "string"}, "body?": "any",
                 "response": {"answer": "text", "sources?": "string|null",
                              "source_url?": "string|null", "grounded?": "string|null"},
                 "version_header?": "string|null"}

# The raw line comes in three kinds, told apart by target.kind: a website
# assistant's (the widget protocol, suite site-qa), a model generator's and an
# answer collected by hand (both suite scenario). They share format, id, suite,
# question, attempts, response, derived and run, but not what is inside them.
RAW_LINE = """\
RAW LINE, website assistant (suite site-qa; one per question, JSON Lines, format 1)
  format            1
  id, suite, set, lang, kind, question, page_url   copied from the question
  target            kind, name, url, provider and model (null), response (the
                    profile's paths to the answer), version_header
  request           method, url, headers, body as sent (secrets redacted)
  attempts          one per try: started_at (UTC), status (or null), error (or
                    null: "timeout" when --timeout ended it, "interrupted" when
                    Ctrl-C did), latency_ms; a second try only when the first got
                    no HTTP 200 and was not interrupted
  response          null when no HTTP response came; else status, headers
                    (lower-cased names, string values),
                    body (text exactly as received, or null when not UTF-8),
                    body_base64 (the bytes when not UTF-8), bytes, truncated;
                    redacted (true) when a secret the request carried came back
                    in a header or the body, plain or escaped, and was replaced
                    by [redacted]
  derived           answer, sources, grounded, problem: read from the body for
                    convenience; score.py derives them again and never trusts these;
                    a lone surrogate escaped in the body ("\\ud83d") is U+FFFD here
  earlier_responses, redone   only in a line asked again by run.py --retry-failed:
                    the earlier responses, oldest first, and true
  run               run_id, tool (a string), tool_version, git_commit, git_dirty,
                    python, cases_file, cases_sha256, concurrency"""

RAW_LINE_MODEL = """\
RAW LINE, model generator (suite scenario, target.kind "model"; format 1)
  format            1
  id, suite, question   copied from the scenario (suite "scenario")
  target            kind ("model"), provider, model (as asked for), url (the API's base);
                    context "corpus" when run.py --context corpus gave it the code
  request           prompt (name and sha256 of the versioned system prompt),
                    user (the question, then "The city: ..." and "The address: ..."
                    when the scenario names them, then with --context corpus the
                    passages found), max_tokens, temperature (null: not sent),
                    context (null, or kind "corpus", corpus and corpus_sha256 of
                    the file, sections: the ids of the passages given); no method,
                    url or headers: the provider builds them, and keys are never recorded
  attempts          one per try: started_at (UTC), status (or null), error (or
                    null), latency_ms, waited_ms (the time it was held back
                    first by --rpm, --tpm or the calls in flight allowed;
                    evalkit/asking/budget.py), and after a failed try retry_in_s (the
                    wait before the next one, or null when none followed)
  response          null when no HTTP response came; else status, body (the API's
                    reply as received), body_base64 (null), truncated (false), and
                    on HTTP 200 model (as the API reports it), stop (the API's
                    stop or finish reason: stop, end_turn, length, max_tokens...)
                    and cut_off (true when that reason is the token limit);
                    no headers
  usage             null when the call failed (no reply); else input_tokens (every
                    input token, cached ones included), output_tokens,
                    cached_input_tokens (read from a prompt cache),
                    cache_write_input_tokens (written to one: Anthropic,
                    Bedrock), reported (false when the reply carried no usage:
                    the counts are then null, never guessed) and api (the API's
                    usage object as received: OpenAI's prompt_tokens,
                    completion_tokens, prompt_tokens_details.cached_tokens;
                    Anthropic's input_tokens, output_tokens,
                    cache_read_input_tokens, cache_creation_input_tokens;
                    Bedrock's inputTokens, outputTokens, cacheReadInputTokens,
                    cacheWriteInputTokens)
  derived           answer (the reply's text, or null), problem: for reading;
                    score.py and atomize.py read the answer again from the body
  earlier_responses, redone   only in a line asked again by run.py --retry-failed:
                    the earlier responses, oldest first, and true
  run               as in a website assistant's raw line"""

RAW_LINE_MANUAL = """\
RAW LINE, answer collected by hand (suite scenario, target.kind "manual"; format 1)
  format            1
  id, suite, question   copied from the scenario (suite "scenario")
  target            kind ("manual"), provider ("manual"), model ("product
                    product_version"), url (null), collected_by, collected_at,
                    product, product_version
  request           null: nothing was sent
  attempts          [] (never asked again by --retry-failed)
  response          status (null), body (the answer as collected), body_base64
                    (null), bytes, truncated (false)
  derived           answer (null when blank), problem
  run               as in a website assistant's raw line"""

REVIEWS = """\
REVIEWS FILE (reviews-{quarter}.json, format 1): one JSON object
  format            1
  reviews           a list of entries, each either
    {"id": ..., "measure": ..., "value": true|false, "reason": ...}
                    sets one verdict after review (measure: delivered,
                    correct_facts, right_page_cited, in_question_language,
                    declined_when_not_on_site; it must apply to the question)
    {"id": ..., "faulty": true, "reason": ...}
                    leaves the question out of every score, listed with its reason
  reason is one non-empty line (no line break of any kind). Unknown ids or
  measures, a measure that does not apply, two entries for the same id and
  measure, a faulty question with verdict entries, and a key given twice in one
  entry are refused."""
# REVIEWS as evalkit/fields.py checks it; evalkit/rubric/reviews.py checks each entry.
REVIEWS_FILE = {"format": (1,), "reviews": ["object"]}

RESULTS = """\
RESULTS (results.json, indent 2, sorted keys)
  provenance        run.status (recorded_live_run | recorded_local_run, from the
                    rules of 2026-12-03, for a run asked of this machine or a
                    private network | not_run), target, provider,
                    model, platform_versions, run_dates (UTC), run_ids,
                    run_git_commits, cases (file, sha256), decline_list_date
                    (the date of the rules in force: evalkit/rubric/rulebook.py),
                    scorer (tool, version of the output those rules give),
                    prompt_versions, inputs (file, role, sha256)
  groups            per set and language and "all": for each measure
                    {passed, applicable, rate, mechanical: {passed, applicable, rate}},
                    and median_latency_ms
  questions         per question: id, set, lang, kind, answer, sources, grounded,
                    latency_ms, mechanical {measure: true|false|null},
                    after_review {measure: ...}, reviews, faulty,
                    review_required, reviewed, details (what the rules found),
                    flags (rules of 2026-12-01 on: why a passing answer is read
                    by a person: echo, long, numbers, decline; from 2026-12-02
                    also negation, value, qualifier), sampled (rules of
                    2026-12-02: drawn for the sampled review, true or false; a
                    sampled row is reviewed once every measure that applies has
                    an entry; from 2026-12-03 the list of measures drawn), asked
                    (rules of 2026-12-03 on: the measures a person is asked to
                    judge; a row is reviewed once every measure asked or sampled
                    has an entry)
  faulty            [{id, reason}]
  sampled_review    the sampled review of passes. Rules of 2026-12-03 on
                    (evalkit/rubric/passes.py): order, size, sets [{set,
                    measures [{measure, candidates (passes no one is asked
                    about), sampled [ids in the draw's order]}]}], coverage
                    {sampled, reviewed, missing [{id, measures}]}, rates [{measure,
                    set, lang, candidates, reviewed, overturned, rate, interval
                    (of the rate among the candidates, exact hypergeometric 95%),
                    exact, not_reviewed}], estimates [{set (each, and "all"),
                    measure, applicable, passes (after review), estimate (true
                    passes, one decimal; null when none can be made), interval
                    ([low, high] answers, 95%), exact}]. Rules of 2026-12-02:
                    per_set (20), order, sets [{set, candidates, sampled [{id,
                    run_id, sha256}]}], coverage, figures per set and "all": for
                    each measure {reviewed, overturned, rate, interval (Wilson
                    95%), not_reviewed, unsampled_passes}
  Counts come first; a rate is passed/applicable rounded to 4 places, null when
  nothing applies. null for a verdict means the measure does not apply."""

SCENARIOS = """\
SCENARIO FILE (suite scenario, format 1): one JSON object
  suite, format     "scenario", 1
  note              optional prose
  topics            {topic: description}: the one topic vocabulary
  scenarios         list; each has
    id              unique
    kind            resident | business (default resident)
    question        the resident's question, as they would type it
    jurisdiction    optional; the city whose code answers the question (the
                    corpus's jurisdiction); the generator is told it
    must_cover      topics a complete answer must hit (from topics)
    address         optional; makes address and zoning parcel topics
    reference_key   optional; for auditing the evaluator, never shown to a
                    generator or an evaluator: {topic: [facts]} with every
                    must_cover topic and no other; each fact has fact (what a
                    correct answer states), section (the code section's id),
                    quote (verbatim from that section, at least 4 words) and,
                    for a fact about the parcel, parcel ({field: value} of the
                    address's row in the corpus's parcel table)
  A field of another type, and a string holding half of a surrogate pair, are
  refused (exit 2). Its answers are raw lines of a model generator or
  collected by hand (below)."""
# SCENARIOS as evalkit/fields.py checks it; evalkit/scenario/scenarios.py says
# the rest (duplicate ids, topics of the vocabulary, a reference key's topics).
SCENARIO_FILE = {"suite": ("scenario",), "format": (1,), "note?": "string",
                 "topics": {"+text": "text"}, "scenarios": ["object", ...]}
SCENARIO = {"id": "text", "kind?": ("resident", "business"), "question": "text",
            "jurisdiction?": "text|null", "must_cover": ["string", ...],
            "address?": "text|null", "reference_key?": "object|null"}
KEY_FACT = {"fact": "text", "section": "text", "quote": "text", "parcel?": {"+text": "any"}}

ATOMS_LINE = """\
ATOMS LINE (atomize.py output, one per answer, evaluator and repeat, format 1)
  format            1
  id, variant       the scenario and the generator ("provider:model")
  generator         kind, provider, model: the raw line's target
  repeat            0.. (atomize.py --repeat K)
  evaluator         provider, model, prompt, prompt_sha256; never of the
                    generator's model family (evalkit/families.py)
  settings          what shaped the replies, the same for every line of a file:
                    json_mode (json_schema, json_object or none: OPENAI_JSON_MODE;
                    forced_tool: Anthropic, Bedrock), max_tokens, temperature
                    (null: not sent), context (tools, passages or none) and
                    prompt; score.py refuses settings the line disagrees with
  served_model, served_model_reduced   the model the evaluator's server
                    reported (null when no reply came); it may not be of the
                    generator's family either, nor of the model the generator's
                    server reported; a path of a file is kept as the file's name
                    (llama.cpp's server without --alias), and then reduced is true
  atoms             null on error, else a list of atoms with exactly:
                    text, correctness (correct, correct-vague, correct-action,
                    correct-judg, correct-range, hedge-correct, vague-correct,
                    vague-action, WRONG, PARTIAL-WRONG, admitted-gap),
                    verified_truth, citation (string or null), topic,
                    specificity (0..1), actionability (0..1), importance (1..5);
                    [] only for an answer of fewer than 20 words
                    (MIN_WORDS_FOR_ATOMS, evalkit/scenario/atoms.py)
  error             null, or why there are no atoms
  response_sha256   sha256 of the answer atomized (score.py checks it)
  calls             every call: attempts (as in a raw line), reply (the body as
                    received), usage (as in a raw line; null for a failed call)
  run               run_id, tool, tool_version, git_commit, git_dirty, python,
                    raw_file, cases_sha256, url (the evaluator's API base: a
                    loopback one is a model served on this machine)
  lookups           only with --lookups: mode ("tools", or "passages" when the model
                    takes no tools or --passages asked for them), corpus and
                    corpus_sha256 of the code file, calls (every lookup in order:
                    tool, input, output, error), and for passages sections (the
                    ids put in the prompt) and why (why passages were given);
                    score.py counts as read, for this answer only, each section
                    a search_code output holds, the section read_section
                    returned, the parcel lookup_parcel returned and the
                    passages' sections (a failed call reads nothing; an output
                    of another shape than its tool's is refused)
  earlier_errors, redone   only in a line atomized again by --retry-errors: the
                    earlier lines' errors, and true (its calls come first in calls)"""

RAW_LINES = (RAW_LINE, RAW_LINE_MODEL, RAW_LINE_MANUAL)
RUN_HELP = "\n\n".join([QUESTIONS, TARGET, RAW_LINE, SCENARIOS, RAW_LINE_MODEL,
                         RAW_LINE_MANUAL])
SCORE_HELP = "\n\n".join([QUESTIONS, RAW_LINE, REVIEWS, RESULTS, SCENARIOS, RAW_LINE_MODEL,
                           RAW_LINE_MANUAL, ATOMS_LINE])
ATOMIZE_HELP = "\n\n".join([SCENARIOS, RAW_LINE_MODEL, RAW_LINE_MANUAL, ATOMS_LINE])

# The benchmark pipeline. Targets name real files, so make redoes only what changed.
#   make demo                         the whole benchmark, offline, against the reference assistant
#   make run QUARTER=2026-Q4          ask both sets (ENDPOINT=... or BENCH_ENDPOINT, TARGET=profile; LIMIT=5 a trial)
#   make retry QUARTER=2026-Q4        ask again, once, the questions whose request failed
#   make score QUARTER=2026-Q4        score with build/QUARTER/reviews-QUARTER.json if present
#   make publish QUARTER=2026-Q4      assemble Documents/c4-benchmark/QUARTER with its MANIFEST
#   make reproduce QUARTER=2026-Q4    re-score a published quarter: numbers byte for byte, pages by what they show
#   make quarters                     the published quarters: dates, rules, pages
#   make compare A=... B=...          two runs: changed or within noise, and which questions flipped
#   make lint-questions               the question files' defects that make verdicts wrong
#   make agreement                    how often the rules agree with a careful human
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

PY ?= python3
QUARTER ?= demo
ENDPOINT ?=
TARGET ?=
PUBLISH_FLAGS ?=
LIMIT ?=
ONLY ?=
A ?=
B ?=
COMPARE_FLAGS ?=

TOOLS := tools/eval-benchmark
BENCH := Documents/c4-benchmark
WORK := build/$(QUARTER)
SETS := biz med  # the order of a published quarter, whose files are sorted by name
QUESTIONS := $(foreach s,$(SETS),$(BENCH)/questions-$(s).json)
RAWS := $(foreach s,$(SETS),$(WORK)/raw-$(s).jsonl)
REVIEWS := $(wildcard $(WORK)/reviews-$(QUARTER).json)
RUN_FLAGS := $(if $(ENDPOINT),--endpoint $(ENDPOINT)) $(if $(TARGET),--target $(TARGET)) \
  $(if $(LIMIT),--limit $(LIMIT)) $(if $(ONLY),--only $(ONLY))

# A quarter name becomes a folder name: YYYY-QN or a plain slug, by publish.py's
# one rule (2026q4, 2026-q4, 2026Q4 get "did you mean 2026-Q4?"), checked
# before any goal that uses QUARTER makes or reads anything of it.
QUARTER_FREE_GOALS := help test demo golden scenario-demo bench lint-questions agreement \
  quarters compare
ifneq ($(filter-out $(QUARTER_FREE_GOALS),$(MAKECMDGOALS)),)
QUARTER_REFUSED := $(shell $(PY) $(TOOLS)/publish.py --check -- '$(subst ','\'',$(QUARTER))' 2>&1)
ifneq ($(QUARTER_REFUSED),)
$(error $(QUARTER_REFUSED))
endif
endif

.PHONY: help test demo run retry score publish reproduce golden scenario-demo bench lint-questions \
  agreement quarters compare
help: ## list the targets and the variables
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | sort
	@printf '\nVariables, given on the make line (make run QUARTER=2026-Q4 ENDPOINT=...):\n'
	@printf '  QUARTER        YYYY-QN or a plain slug (default: demo)\n'
	@printf '  ENDPOINT       the assistant'"'"'s query URL for run (default: BENCH_ENDPOINT, then the profile'"'"'s url)\n'
	@printf '  TARGET         a target profile JSON for run (default: the widget protocol)\n'
	@printf '  PY             the Python to run (default: python3; 3.10 or newer)\n'
	@printf '  PUBLISH_FLAGS  --force to replace a published quarter, --allow-unreviewed (default: none)\n'
	@printf '  LIMIT          run: a trial of the first N questions of each set, run.py --limit; never marks QUARTER as run (default: all)\n'
	@printf '  ONLY           run: a trial of these question ids, comma-separated, run.py --only (default: all)\n'
	@printf '  A              compare: the first run, a raw file or a quarter folder (default: none)\n'
	@printf '  B              compare: the second run (default: none)\n'
	@printf '  COMPARE_FLAGS  compare: --fail-on-change to exit 1 on a change (default: none)\n'

test: ## run every test (unittest, standard library only)
	$(PY) -m unittest

demo: ## the whole benchmark offline: reference assistant, both sets, results table
	$(PY) tools/demo-assistant/run_demo.py --out build/demo
	@touch build/demo/run.done

run: $(WORK)/run.done ## ask both sets of QUARTER against the configured target (LIMIT=5: a trial)
# run.py continues an interrupted run and exits 1 when some questions got no
# answer (recorded, listed); only 2 (could not start) stops make.
# A trial (LIMIT or ONLY) never marks the quarter as run: the next make run
# asks what it did not, and make publish waits for that full run. make score
# scores whatever was asked (results.md names the questions not asked).
# Only make run (or retry) asks: a publish of a quarter that was not run
# stops here instead of asking every question on the way. Question files
# newer than run.done are most often a git checkout that wrote the same bytes
# again: publish.py --check compares the bytes with the sha256 every raw line
# records, and only other bytes stop make, with what to do.
$(WORK)/run.done: $(QUESTIONS)
ifeq ($(filter run,$(MAKECMDGOALS)),)
	@[ -e $@ ] || { echo "make: QUARTER=$(QUARTER) was not run in full ($@ is missing; a trial with LIMIT or ONLY does not make it): make run QUARTER=$(QUARTER) asks what is missing" >&2; exit 2; }
	@$(PY) $(TOOLS)/publish.py $(QUARTER) --check --from $(WORK) --bench $(BENCH)
	@touch $@
else
	@mkdir -p $(WORK)
	for s in $(SETS); do \
	  $(PY) $(TOOLS)/run.py $(BENCH)/questions-$$s.json $(WORK)/raw-$$s.jsonl $(RUN_FLAGS) || [ $$? -eq 1 ]; \
	done
	$(if $(LIMIT)$(ONLY),@echo "make run: a trial ($(strip $(if $(LIMIT),LIMIT=$(LIMIT)) $(if $(ONLY),ONLY=$(ONLY)))): QUARTER=$(QUARTER) is not marked as run; make run QUARTER=$(QUARTER) asks the rest" >&2,touch $@)
endif

retry: ## ask again, once, the questions of QUARTER whose request failed (an outage)
	for s in $(SETS); do \
	  $(PY) $(TOOLS)/run.py $(BENCH)/questions-$$s.json $(WORK)/raw-$$s.jsonl --retry-failed $(RUN_FLAGS) || [ $$? -eq 1 ]; \
	done

# A reviews file of another name is pointed out whenever make score runs, even
# when the results are up to date: the reviewer who wrote it expects it read.
# What comes next (the questions not asked, the reviews missing, or publish)
# is read from results.json: quarters.py --next.
score: $(WORK)/results.md ## score QUARTER (with its reviews) and write its review sheet
	@for f in $(WORK)/reviews*.json; do \
	  if [ -e "$$f" ] && [ "$$f" != "$(WORK)/reviews-$(QUARTER).json" ]; then \
	    echo "make score: $$f is not read: the reviews of QUARTER=$(QUARTER) are read from $(WORK)/reviews-$(QUARTER).json only" >&2; fi; \
	done
	@$(PY) $(TOOLS)/quarters.py --next $(QUARTER) --from $(WORK)
# Question files newer than the raw answers are most often a git checkout that
# wrote the same bytes again: publish.py --check compares the bytes with the
# sha256 every raw line records, and only other bytes stop make, with what to do.
$(WORK)/results.md: $(RAWS) $(REVIEWS) $(QUESTIONS)
	@$(PY) $(TOOLS)/publish.py $(QUARTER) --check --from $(WORK) --bench $(BENCH)
	$(PY) $(TOOLS)/score.py $(QUESTIONS) $(RAWS) $(if $(REVIEWS),--reviews $(REVIEWS)) \
	  --reviews-to $(WORK)/reviews-$(QUARTER).json \
	  --json $(WORK)/results.json --csv $(WORK)/results.csv --html $(WORK)/index.html \
	  --review-sheet $(WORK)/review-sheet.md --review-page $(WORK)/review.html --out $@
	@cat $@
# A raw file make score needs that is not there: the quarter was not run.
$(RAWS):
	@echo "make: QUARTER=$(QUARTER) was not run ($@ is missing): make run QUARTER=$(QUARTER) first" >&2; exit 2

publish: $(WORK)/run.done ## publish QUARTER into Documents/c4-benchmark/QUARTER (PUBLISH_FLAGS=--force)
	$(PY) $(TOOLS)/publish.py $(QUARTER) --from $(WORK) --bench $(BENCH) $(PUBLISH_FLAGS)

reproduce: ## re-score the published QUARTER: the numbers byte for byte, the pages by what they show
	$(PY) $(TOOLS)/reproduce.py $(BENCH)/$(QUARTER)

quarters: ## list the published quarters: when asked, the rules they were scored with, their pages
	$(PY) $(TOOLS)/quarters.py --bench $(BENCH)

compare: ## compare two runs, A=... B=... (raw files or quarter folders); COMPARE_FLAGS=--fail-on-change
	@[ -n "$(A)" ] && [ -n "$(B)" ] || { echo "make compare: give A=... and B=... (two raw files or quarter folders)" >&2; exit 2; }
	$(PY) $(TOOLS)/compare.py $(A) $(B) $(COMPARE_FLAGS)

lint-questions: ## list the question files' defects (topic words, echoes, spellings); exit 1 if any
	$(PY) $(TOOLS)/lint_questions.py $(QUESTIONS)

agreement: ## the rules against the labelled agreement set, per language and measure
	$(PY) $(TOOLS)/agreement.py --disagreements

scenario-demo: ## the scenario suite end to end against loopback stand-ins (an example, not a measurement)
	$(PY) -m tests.scenario_demo --out build/scenario-demo

bench: ## the speed benchmark; writes Documents/performance/results.json and its README's table
	$(PY) tools/bench/bench.py --write-readme

golden: ## rewrite the golden tables of the test fixtures, recorded under VERSION (review the diff!)
	$(PY) -m tests.golden.record

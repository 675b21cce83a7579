# The benchmark pipeline. Targets name real files, so make redoes only what changed.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

PY ?= python3
TOOLS := tools/eval-benchmark

.PHONY: help test golden
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | sort

test: ## run every test (unittest, standard library only)
	$(PY) -m unittest

golden: ## rewrite the golden tables of the test fixtures (review the diff!)
	$(PY) $(TOOLS)/score.py tests/fixtures/questions-mini.json tests/fixtures/raw-mini.jsonl \
	  --reviews tests/fixtures/reviews-mini.json \
	  --out tests/golden/mini-results.md --json tests/golden/mini-results.json

"""Asking sites and models: every byte that goes over the network.

http.py (one POST, urllib), target.py (a website assistant's profile),
runner.py (cases asked concurrently), resume.py (a run that continues where
it stopped), budget.py (rate limits, call caps, costs), progress.py,
prompts.py (the versioned prompt files), lookups.py and evallookup.py (the
code lookups a model calls as tools), providers/ (OpenAI-compatible,
Anthropic, Bedrock, manual import).

Imports the shared formats at evalkit's root, and the place of a scenario
(scenarios.place_of) for the evaluator's lookups; never a page or a script
(tests/test_layers.py).
"""

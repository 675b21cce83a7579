"""Asking sites and models: every byte that goes over the network.

run.py's two programs: siterun.py (a website assistant asked each question
of a site-qa file) and modelrun.py (a model generator answering scenarios,
with the city's code in the prompt or answers imported by hand), and
rawline.py (the raw line both write). Beneath them: http.py (one POST,
urllib), target.py (a website assistant's profile), runner.py (cases asked
concurrently), resume.py (a file that continues where it stopped),
budget.py (rate limits, call caps, costs), progress.py, prompts.py (the
versioned prompt files), lookups.py and evallookup.py (the code lookups a
model calls as tools), providers/ (OpenAI-compatible, Anthropic, Bedrock,
manual import).

Imports the shared formats at evalkit's root, and of the scenario suite what
a question to a model needs: the scenario's place and text, the city's code
passages (scenarios.py, corpus.py); never a rule, a page or a script
(tests/test_layers.py).
"""

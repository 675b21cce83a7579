"""The intake and grounding suites (ai_eval.py): their cases, metrics and
result files.

intake.py (facts extracted from a request, invented ones counted),
grounding.py (claims checked against the policy corpus), policyprompt.py (the
prompts' policy text), resultfile.py (a result file and the checks that its
figures are what its recorded replies give).

Imports the shared formats at evalkit's root only: no network code, no page,
no script (tests/test_layers.py).
"""

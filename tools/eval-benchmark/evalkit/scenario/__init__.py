"""The scenario suite: four dimensions (Accurate, Complete, Cited, Usable)
from an evaluator's atoms.

scenarios.py (the scenario file), corpus.py (the city's code, searched),
atoms.py (the atoms format and its checks), atomchecks.py (atoms held to the
answer they come from), atomscore.py (one answer's dimensions from its atoms),
linechecks.py (what a line says of its run, held to what it holds),
scenario_score.py (a run's answers scored).

Imports the shared formats at evalkit's root only: no network code, no page,
no script (tests/test_layers.py).
"""

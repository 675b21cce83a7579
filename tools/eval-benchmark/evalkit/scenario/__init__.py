"""The scenario suite: four dimensions (Accurate, Complete, Cited, Usable)
from an evaluator's atoms.

scenarios.py (the scenario file), corpus.py (the city's code, searched),
atoms.py (the atoms format and its checks), atomscore.py (one answer's
dimensions from its atoms), scenario_score.py (a run's answers scored).

Imports the shared formats at evalkit's root only: no network code, no page,
no script (tests/test_layers.py).
"""

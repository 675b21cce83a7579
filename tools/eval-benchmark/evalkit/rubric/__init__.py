"""The site-qa rubric: its rules, and the files it scores and publishes.

measures.py (the measures, one named function per rule), rulebook.py (the
dated changes), urls.py, cases.py (question files), qualifiers.py, reviews.py,
sampling.py (the sampled review of passes), report.py (results.md and the
review sheet), siteqa.py (a quarter's answers scored, streaming),
quarter.py (quarter folders and their MANIFEST.json), sitepages.py (the demo
sites' pages, for the question linter).

Imports the shared formats at evalkit's root only: no network code
(evalkit/asking), no page (evalkit/pages), no script (tests/test_layers.py).
"""

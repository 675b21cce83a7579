"""The results pages and the published folders' outputs.

htmlpage.py (a quarter's pages in three languages, whatever its rules),
explore.py (their filters and what each rule found), svgcharts.py,
pagelabels.py (the pages' words, and the escaping and frame they share),
shown.py (what a published page shows, held to its results.json),
csvexport.py (results.csv), reviewpage.py (review.html), outputs.py (the
outputs of a quarter folder), scenario_pages.py (the scenario dashboard and
detail pages), scenario_run.py (a published scenario run: its folder and
re-scoring).

Reached from the scripts only: the scoring code never imports a page. Reads
the rubric's and the scenario suite's results; no network code, no script
(tests/test_layers.py).
"""

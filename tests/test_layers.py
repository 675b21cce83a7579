"""The parts of the product and the imports that must never exist between them.

Documents/architecture.json is the picture: each part's files (a path ending
in / is a folder) and the ``never`` list, ``[from, to, why]``. This test reads
every import of the product (the ast of every .py file under tools/, imports
inside functions included), places each file and each imported module on its
part, and fails on an import the picture forbids, on a product file that is on
no part, and on a circle of imports among the kit's modules. The picture and
the test cannot say different things: the test has no rule of its own.

A module imported by a bare name (``import score``, ``import pages``) is looked
for beside the importing file, then among the scripts, then in the reference
assistant's folder, as the scripts' ``sys.path`` lines would find it.
"""

import ast
import json
import os
import shutil
import tempfile
import unittest

from tests.support import ROOT

PICTURE = os.path.join("Documents", "architecture.json")
KIT = "tools/eval-benchmark/evalkit"
BARE_NAME_FOLDERS = ("tools/eval-benchmark", "tools/demo-assistant")


def product_files(root):
    """Every .py file under tools/, as a path from ``root`` with / separators."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(root, "tools")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return found


def part_of(path, parts):
    for name, part in parts.items():
        for entry in part["is"]:
            if path == entry or (entry.endswith("/") and path.startswith(entry)):
                return name
    return None


def module_file(root, dotted):
    """The file of a module ``a.b.c`` under tools/eval-benchmark, or None."""
    base = "tools/eval-benchmark/" + dotted.replace(".", "/")
    for path in (base + ".py", base + "/__init__.py"):
        if os.path.isfile(os.path.join(root, path)):
            return path
    return None


def package_of(path):
    """The dotted package a kit file is in (``evalkit.asking.providers``)."""
    inside = path[len("tools/eval-benchmark/"):].split("/")[:-1]
    return ".".join(inside)


def imported_files(root, path):
    """``[(line, file)]``: the product files ``path`` imports."""
    with open(os.path.join(root, path), encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found += [(node.lineno, f) for f in by_name(root, path, alias.name)]
        elif isinstance(node, ast.ImportFrom):
            found += [(node.lineno, f) for f in from_import(root, path, node)]
    return found


def by_name(root, path, dotted):
    if dotted.split(".")[0] == "evalkit":
        target = module_file(root, dotted)
        return [target] if target else []
    folders = (os.path.dirname(path),) + BARE_NAME_FOLDERS
    for folder in folders:
        candidate = f"{folder}/{dotted.replace('.', '/')}.py"
        if os.path.isfile(os.path.join(root, candidate)):
            return [candidate]
    return []


def from_import(root, path, node):
    if node.level:
        package = package_of(path).split(".")
        package = package[:len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module or ""
        if base.split(".")[0] != "evalkit":
            return by_name(root, path, base)
    found = []
    for alias in node.names:
        # ``from evalkit.asking import providers`` imports a module; ``from
        # evalkit import BadInput`` a name of the package's __init__.
        target = module_file(root, f"{base}.{alias.name}") or module_file(root, base)
        if target:
            found.append(target)
    return found


def broken_rules(root):
    """Every import the picture forbids, every product file on no part, and
    every circle of imports among the kit's modules, one line each."""
    with open(os.path.join(root, PICTURE), encoding="utf-8") as fh:
        picture = json.load(fh)
    parts = picture["parts"]
    never = {(a, b): why for a, b, why in picture["never"]}
    problems, graph = [], {}
    for path in product_files(root):
        here = part_of(path, parts)
        if here is None:
            problems.append(f"{path}: on no part of {PICTURE}")
            continue
        for line, target in imported_files(root, path):
            there = part_of(target, parts)
            if (here, there) in never:
                problems.append(f"{path}:{line}: imports {target}: {here} -> {there} "
                                f"never ({never[here, there]})")
            if path.startswith(KIT) and target.startswith(KIT) and target != path:
                graph.setdefault(path, set()).add(target)
    return problems + [f"circle: {' -> '.join(c)}" for c in circles(graph)]


def circles(graph):
    """One path for each circle of ``graph`` (file -> files it imports)."""
    found, done = [], set()

    def visit(node, trail):
        if node in trail:
            found.append(trail[trail.index(node):] + [node])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, trail + [node])
        done.add(node)

    for node in sorted(graph):
        visit(node, [])
    return found


class Layers(unittest.TestCase):
    def test_no_import_breaks_the_picture(self):
        self.assertEqual(broken_rules(ROOT), [])

    def test_every_part_of_the_picture_is_there(self):
        with open(os.path.join(ROOT, PICTURE), encoding="utf-8") as fh:
            parts = json.load(fh)["parts"]
        for name, part in parts.items():
            for entry in part["is"]:
                with self.subTest(part=name, entry=entry):
                    self.assertTrue(os.path.exists(os.path.join(ROOT, entry)))


class TheCheckCanFail(unittest.TestCase):
    """The checker on a copy of the product with one forbidden import added:
    it must name it. Without these, a checker that read nothing would pass."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="layers-")
        self.addCleanup(shutil.rmtree, self.root)
        shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(self.root, "tools"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.makedirs(os.path.join(self.root, "Documents"))
        shutil.copyfile(os.path.join(ROOT, PICTURE), os.path.join(self.root, PICTURE))

    def add_line(self, path, line):
        with open(os.path.join(self.root, path), "a", encoding="utf-8") as fh:
            fh.write("\n" + line + "\n")

    def test_a_rule_that_imports_network_code(self):
        self.add_line(f"{KIT}/rubric/measures.py", "from ..asking import http")
        (problem,) = broken_rules(self.root)
        self.assertIn("rubric/measures.py", problem)
        self.assertIn("SiteQA -> Asking never", problem)

    def test_scoring_code_that_renders_a_page(self):
        self.add_line(f"{KIT}/scenario/scenario_score.py",
                      "def page():\n    from evalkit.pages import scenario_pages")
        (problem,) = broken_rules(self.root)
        self.assertIn("Scenario -> Pages never", problem)

    def test_the_kit_importing_the_reference_assistant(self):
        self.add_line("tools/eval-benchmark/lint_questions.py", "import pages")
        (problem,) = broken_rules(self.root)
        self.assertIn("Scripts -> Demo never", problem)

    def test_a_format_that_knows_a_rule(self):
        self.add_line(f"{KIT}/schemas.py", "from .scenario.atoms import MIN_WORDS_FOR_ATOMS")
        (problem,) = broken_rules(self.root)
        self.assertIn("Formats -> Scenario never", problem)

    def test_a_circle(self):
        self.add_line(f"{KIT}/asking/providers/toolloop.py", "from . import base")
        (problem,) = broken_rules(self.root)
        self.assertTrue(problem.startswith("circle: "), problem)
        self.assertIn("providers/base.py", problem)

    def test_a_file_on_no_part(self):
        with open(os.path.join(self.root, "tools", "stray.py"), "w", encoding="utf-8") as fh:
            fh.write("import os\n")
        self.assertEqual(broken_rules(self.root),
                         [f"tools/stray.py: on no part of {PICTURE}"])


if __name__ == "__main__":
    unittest.main()

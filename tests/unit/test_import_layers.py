"""The house's rooms and floors, held against the code's own imports (docs/contributors/architecture.md).

Every import of every module counts, one inside a function included: a late import is still a dependency.
Three rules: no import cycle between modules; the framework never imports the tooling (`autograder.devtools`)
nor this course's graders (`autograder.graders.<assignment>`, which it finds by name at run time); and no package
imports one on a higher floor than its own, but for the few crossings named in `CROSSINGS`, each with why it is
still there. A crossing mended must leave that list too, so it only shrinks.
"""

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "autograder"

# Lowest floor first. A package may import its own floor's and lower floors' packages only.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("display", "grader_support"),  # tables and page lines; judging an answer (and the graders' namespace)
    ("sandbox",),  # the untrusted side and its wire
    # The course folder and its settings, our tables in the gradebook, nbgrader's cells and kernel; due dates,
    # extensions and labels; the one arithmetic of a grade and its settling.
    ("course", "migrations", "nbgrader_glue", "deadlines", "grades"),
    ("grading",),  # the engine: grade, regrade and watch's stages
    # what reads and moves graded work (by_question: one question's answers graded across the class)
    ("feedback", "regrade", "similarity", "collect", "lms", "watch", "cluster", "by_question"),
    ("report", "authoring"),  # the class report; `new`, `check` and `release`
    ("hub",),  # a JupyterHub for the course
    ("commands", "cli"),  # one module per subcommand, and the entry point
)
TOOLING = "devtools"
COURSE_GRADERS = "graders"  # its __init__ is the framework's namespace hook; its subpackages are this course's

# Imports that still climb a floor: (importer, imported), modules as dotted names below `autograder.`.
CROSSINGS: dict[tuple[str, str], str] = {}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of other modules of the package (an imported name that is a module counts as it)."""

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                named = (f"{base}.{alias.name}" for alias in node.names)
                targets = [name if name in modules else base for name in named]
            else:
                continue
            for target in targets:
                found = owner(target) if target.startswith("autograder") else None
                if found and found != module:
                    graph[module].add(found)
    return graph


MODULES = _modules()
GRAPH = _imports(MODULES)


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(set(graph) | {target for targets in graph.values() for target in targets}):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_another_that_imports_it_back():
    assert _cycles(GRAPH) == []


def test_the_framework_never_imports_the_tooling_nor_this_course_s_graders():
    wrong = sorted((module, target) for module, targets in GRAPH.items() for target in targets
                   if _room(module) not in (TOOLING, COURSE_GRADERS)
                   and (_room(target) == TOOLING or target.startswith(f"autograder.{COURSE_GRADERS}.")))
    assert wrong == []


def test_every_package_sits_on_a_floor():
    placed = {room for floor in FLOORS for room in floor}
    rooms = {_room(module) for module in MODULES} - {"", TOOLING, COURSE_GRADERS}
    assert rooms - placed == set(), "add each new package to FLOORS"
    assert placed - rooms == set(), "a package in FLOORS no longer exists"


def _floor(module: str) -> int | None:
    room = "grader_support" if module == f"autograder.{COURSE_GRADERS}" else _room(module)
    return next((level for level, floor in enumerate(FLOORS) if room in floor), None)


def test_no_package_imports_one_on_a_higher_floor():
    climbs = {}
    for module, targets in GRAPH.items():
        for target in targets:
            here, there = _floor(module), _floor(target)
            if here is not None and there is not None and there > here:
                climbs[(module.removeprefix("autograder."), target.removeprefix("autograder."))] = there
    unexplained = sorted(set(climbs) - set(CROSSINGS))
    mended = sorted(set(CROSSINGS) - set(climbs))
    assert unexplained == [], "these imports climb a floor: turn them around, or (for now) name them in CROSSINGS"
    assert mended == [], "these crossings are gone: take them out of CROSSINGS"


def test_the_rules_see_a_climb_and_a_cycle():
    # The checks themselves, on a graph made for them: a rule that can see nothing holds nothing.
    graph = {"autograder.display.a": {"autograder.hub.b"}, "autograder.hub.b": {"autograder.display.a"}}
    assert _cycles(graph) == [["autograder.display.a", "autograder.hub.b"]]
    assert _floor("autograder.display.a") < _floor("autograder.hub.b")
    assert _floor(f"autograder.{COURSE_GRADERS}") == _floor("autograder.grader_support.checks")

"""The app's modules import each other one way: none imports, at its top or inside a
function, a module that imports it back, however far round. A circle means two modules
each need the other to be whole, and which one is read first decides what works."""

import ast
import graphlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("scoresheet", "matches", "tournaments", "clubs")


def modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the apps by its dotted name: its file, and whether it is a package."""
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def imported(name, path, package, known) -> set[str]:
    """The modules of ``known`` that module ``name`` imports anywhere in its text."""
    here = name if package else name.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            base = ".".join(filter(None, [base if node.level else "", node.module or ""]))
            # ``from package import module`` imports the module (its package is always
            # there first); ``from module import name`` the module.
            for alias in node.names:
                module = f"{base}.{alias.name}"
                names.add(module if module in known else base)
    return {found for found in names if found in known and found != name}


def circle(graph) -> list[str] | None:
    """One circle of imports: the modules round it, the first again at the end (graphlib
    finds it); None if there is none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return error.args[1]
    return None


def test_no_module_imports_one_that_imports_it_back():
    known = modules()
    graph = {name: imported(name, path, package, known) for name, (path, package) in known.items()}
    # The test reads what it means to: the app's models import their rules, and a club's
    # receivers its ratings.
    assert "matches.rules" in graph["matches.models.match"]
    assert "clubs.rating" in graph["clubs.receivers"]
    assert circle(graph) is None


def test_a_circle_is_found_however_far_round():
    assert set(circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})) == {"a", "b", "c"}
    assert circle({"a": {"b"}, "b": set()}) is None

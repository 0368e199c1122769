"""The app's modules import each other one way: none imports, at its top or inside a
function, a module that imports it back, however far round. A circle means two modules
each need the other to be whole, and which one is read first decides what works."""

import ast
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


def circles(graph) -> list[list[str]]:
    """The groups of modules that reach each other through imports (Tarjan's strongly
    connected components of more than one module)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for after in sorted(graph[node]):
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in on_stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_module_imports_one_that_imports_it_back():
    known = modules()
    graph = {name: imported(name, path, package, known) for name, (path, package) in known.items()}
    # The test reads what it means to: the app's models import their rules, and a club's
    # receivers its ratings.
    assert "matches.rules" in graph["matches.models.match"]
    assert "clubs.rating" in graph["clubs.receivers"]
    assert circles(graph) == []


def test_a_circle_is_found_however_far_round():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []

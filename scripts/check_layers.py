"""The house's floors: every import in ``fivestack/`` flows down the layers, and no module imports itself back.

    python scripts/check_layers.py [SOURCE_ROOT]     prints each problem on its own line; exit 1 if there is any

A package may import itself and the packages on lower floors, nothing on its own floor or above:

    game  <-  env, viewer  <-  model, bots  <-  rl, runs  <-  match, asp  <-  system  <-  surgery, draft, arena
          <-  play  <-  cli

Every import counts: at the top of a module, inside a function, under ``if TYPE_CHECKING``, relative or absolute.
Apart from the floors, the apps' use of the training system is listed (``APP_USES_OF_SYSTEM``): the arena, the
draft and ``play`` use none of it; surgery writes a new run, with the training system's writers. Cycles are
looked for between modules (a package's ``__init__`` is a module), so a cycle inside one package is found too.
``tests/test_layers.py`` runs this on the source and on copies with a deliberate bad import and a cycle.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

FLOORS = (
    ("game",),
    ("env", "viewer"),
    ("model", "bots"),
    ("rl", "runs"),
    ("match", "asp"),
    ("system",),
    ("surgery", "draft", "arena"),
    ("play",),
    ("cli",),
)
FLOOR_OF = {package: floor for floor, packages in enumerate(FLOORS) for package in packages}
ROOT_MODULES = ("fivestack",)  # fivestack/__init__.py: imports nothing of its own
# the training system's modules an app may import (anything else of ``fivestack.system`` is a problem)
APP_USES_OF_SYSTEM = {
    "arena": (),
    "draft": (),
    "play": (),
    "surgery": ("fivestack.system.controller", "fivestack.system.run_state", "fivestack.system.rollout"),
}


def module_name(path: Path, source_root: Path) -> str:
    parts = list(path.relative_to(source_root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The fivestack modules that ``name`` (at ``path``) imports, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "fivestack")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "fivestack":
                continue
            for alias in node.names:  # ``from package import module`` imports that module
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
    return found


def import_graph(source_root: Path) -> dict[str, set[str]]:
    """module -> the fivestack modules it imports, for every ``.py`` under ``source_root/fivestack``."""
    paths = {module_name(p, source_root): p for p in sorted((source_root / "fivestack").rglob("*.py"))}
    return {name: imports_of(path, name, set(paths)) for name, path in paths.items()}


def package_of(module: str) -> str:
    """``fivestack.system.ray.driver`` -> ``system``; ``fivestack.play`` -> ``play``; ``fivestack`` -> ``fivestack``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def floor_problems(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        here = package_of(module)
        if here not in FLOOR_OF and module not in ROOT_MODULES:
            problems.append(f"{module}: package {here!r} has no floor; add it to FLOORS in scripts/check_layers.py")
            continue
        for target in sorted(targets):
            there = package_of(target)
            if there == here:
                continue
            if module in ROOT_MODULES or there not in FLOOR_OF or FLOOR_OF[there] >= FLOOR_OF[here]:
                problems.append(f"{module} imports {target}: {there!r} is not on a floor below {here!r}")
            elif there == "system" and here in APP_USES_OF_SYSTEM and target not in APP_USES_OF_SYSTEM[here]:
                problems.append(f"{module} imports {target}: {here!r} may use only "
                                f"{list(APP_USES_OF_SYSTEM[here]) or 'nothing'} of the training system")
    return problems


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: each strongly connected group of two or more modules (or one that imports itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative (no recursion limit)
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1 or node in graph.get(node, ()):
                        found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def problems(source_root: Path) -> list[str]:
    """Every layer problem and import cycle under ``source_root/fivestack``, one line each."""
    graph = import_graph(Path(source_root))
    return floor_problems(graph) + [f"import cycle between {', '.join(group)}" for group in cycles(graph)]


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    found = problems(root)
    for line in found:
        print(line)
    print(f"{len(found)} problem(s) in {root / 'fivestack'}" if found else "layers: no problem")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""The modules of ``agents`` and of ``bocvs_env`` each import one another without a circle, so that each can be read,
tested and changed after the ones it builds on (imports under ``TYPE_CHECKING`` count too:
they are a dependency of the code's meaning)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path, package: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that the module at ``path`` imports (``from a import b`` counts
    ``a.b`` where that is a module, else ``a``), the root ``package`` left out."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        found.update(n for n in names if n in known and n.startswith(package))
    found.discard(module_name(path, root))
    # Every module of a package imports the package's root first, whatever it names, so an
    # import of the root itself (``import bocvs_env`` for ``__version__``) adds no dependency.
    found.discard(package)
    return found


def circles(package: str, root: Path = ROOT) -> list[list[str]]:
    """The import circles among the modules of ``package`` (a folder of ``root``): its
    strongly connected components of more than one module (Tarjan's algorithm)."""
    paths = {module_name(p, root): p for p in (root / package).rglob("*.py")}
    graph = {m: imports(p, root, package, set(paths)) for m, p in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        for n in graph[m]:
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            component = []
            while True:
                n = stack.pop()
                component.append(n)
                if n == m:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return found


def test_the_agents_modules_import_one_another_without_a_circle() -> None:
    assert circles("agents") == []


def test_the_environments_modules_import_one_another_without_a_circle() -> None:
    assert circles("bocvs_env") == []


def test_a_circle_is_found_through_a_type_checking_import(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from pkg.b import g\n")
    (tmp_path / "pkg" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    (tmp_path / "pkg" / "c.py").write_text("import pkg.a\n")
    assert circles("pkg", tmp_path) == [["pkg.a", "pkg.b"]]

"""The size limits of the code: no class over :data:`MAX_CLASS_LINES` lines and no function of
cyclomatic complexity above :data:`MAX_COMPLEXITY` as ``radon`` counts it (McCabe's count with
each boolean operator and each comprehension's loop and condition a branch; ruff's ``C901``,
enabled in pyproject.toml at the same limit, counts fewer, so a function can pass ruff and fail
here). Prints each offender, one per line, and exits with status 1 if there is any.

    python tools/code_limits.py                 # bocvs_env and agents
    python tools/code_limits.py bocvs_env       # one package (or file)

A class's lines run from its ``class`` line (or first decorator) to its last line, docstring,
comments and blank lines included, as a reader scrolls them. Needs ``radon`` (the ``dev``
extra).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

#: The most lines a class may span.
MAX_CLASS_LINES = 250
#: The highest cyclomatic complexity a function or method may have.
MAX_COMPLEXITY = 12
#: What the script checks without arguments.
DEFAULT_PATHS = ("bocvs_env", "agents")


def python_files(paths: Iterable[Path]) -> Iterator[Path]:
    """The ``.py`` files of ``paths`` (files, or folders searched recursively), sorted."""
    for path in paths:
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def long_classes(source: str, limit: int = MAX_CLASS_LINES) -> list[tuple[str, int, int]]:
    """``(qualified name, first line, lines)`` of every class of ``source`` over ``limit``
    lines, nested classes included."""
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}."
            if isinstance(child, ast.ClassDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                lines = (child.end_lineno or child.lineno) - first + 1
                if lines > limit:
                    out.append((name[:-1], first, lines))
            visit(child, name)

    visit(ast.parse(source), "")
    return out


def complex_functions(source: str, limit: int = MAX_COMPLEXITY) -> list[tuple[str, int, int]]:
    """``(qualified name, line, complexity)`` of every function or method of ``source`` whose
    complexity is above ``limit``: the functions ``radon cc`` lists (a nested function counts
    within the function that defines it)."""
    return [
        (block.fullname, block.lineno, block.complexity)
        for block in cc_visit(source)
        if isinstance(block, Function) and block.complexity > limit
    ]


def offenders(paths: Iterable[Path]) -> list[str]:
    """One line per class over :data:`MAX_CLASS_LINES` and per function above
    :data:`MAX_COMPLEXITY` in the files of ``paths``: ``path:line: what``."""
    lines = []
    for path in python_files(paths):
        source = path.read_text()
        for name, line, size in long_classes(source):
            lines.append(f"{path}:{line}: class {name} has {size} lines (> {MAX_CLASS_LINES})")
        for name, line, complexity in complex_functions(source):
            lines.append(f"{path}:{line}: {name} has complexity {complexity} (> {MAX_COMPLEXITY})")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("paths", nargs="*", type=Path, default=[Path(p) for p in DEFAULT_PATHS])
    args = p.parse_args(argv)
    missing = [str(path) for path in args.paths if not path.exists()]
    if missing:
        p.error(f"no such file or folder: {', '.join(missing)}")
    found = offenders(args.paths)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""``benchmarks/`` as its README presents it: every script and every result kept there is listed
in ``benchmarks/README.md``, every script answers ``--help``, and no test imports a module of
``benchmarks/`` (the logic that tests rely on lives in the library)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
README = (BENCHMARKS / "README.md").read_text()
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def _named(name: str) -> bool:
    """Whether the README names ``name`` in code (``name``, ``name/``, or a glob matching it)."""
    prose = re.sub(r"^```.*?^```$", "", README, flags=re.DOTALL | re.MULTILINE)
    for code in re.findall(r"`([^`\n]+)`", prose):
        pattern = re.escape(code.rstrip("/")).replace(r"\*", ".*").replace(r"\.\.\.", ".*")
        if re.fullmatch(pattern, name):
            return True
    return False


def test_every_script_and_result_is_listed_in_the_readme() -> None:
    scripts = [p.name for p in [*SCRIPTS, *BENCHMARKS.glob("*.sh")]]
    results = [p.name for p in (BENCHMARKS / "results").iterdir()]
    assert [name for name in scripts + results if not _named(name)] == []


def test_no_test_imports_a_module_of_benchmarks() -> None:
    modules = {p.stem for p in SCRIPTS}
    importing = {}
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = {node.module.split(".")[0]}
            else:
                continue
            if names & modules:
                importing[path.relative_to(ROOT).as_posix()] = sorted(names & modules)
    assert importing == {}


@pytest.mark.slow  # each script imports torch in a fresh process: about 3 s apiece
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_answers_help(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:")

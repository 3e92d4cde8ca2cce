"""The size limits of the code (``benchmarks/code_limits.py``): classes of at most 250 lines and
functions of complexity at most 12, held by ``bocvs_env`` and ``agents``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import code_limits

REPO = Path(__file__).resolve().parents[2]


def _class_of(lines: int) -> str:
    """A decorated class spanning ``lines`` lines, decorator included."""
    body = "\n".join(f"    x{k} = {k}" for k in range(lines - 2))
    return f"@dataclass\nclass Big:\n{body}\n"


def _function_of(branches: int) -> str:
    """A function of complexity ``branches + 1`` (one ``if`` per branch)."""
    body = "\n".join(f"    if x == {k}:\n        return {k}" for k in range(branches))
    return f"def f(x):\n{body}\n    return -1\n"


def test_a_class_over_the_limit_is_reported_with_its_lines() -> None:
    assert code_limits.long_classes(_class_of(250)) == []
    assert code_limits.long_classes(_class_of(251)) == [("Big", 1, 251)]
    nested = "class Outer:\n" + "\n".join("    " + line for line in _class_of(251).splitlines())
    assert ("Outer.Big", 2, 251) in code_limits.long_classes(nested)


def test_a_function_above_the_complexity_limit_is_reported() -> None:
    assert code_limits.complex_functions(_function_of(11)) == []  # complexity 12
    assert code_limits.complex_functions(_function_of(12)) == [("f", 1, 13)]
    method = "class C:\n" + "\n".join("    " + line for line in _function_of(12).splitlines())
    assert code_limits.complex_functions(method) == [("C.f", 2, 13)]


def test_the_script_lists_the_offenders_and_fails(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text(_class_of(300) + "\n\n" + _function_of(20))
    script = [sys.executable, str(REPO / "benchmarks" / "code_limits.py"), str(tmp_path)]
    done = subprocess.run(script, capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{tmp_path / 'big.py'}:1: class Big has 300 lines (> 250)",
        f"{tmp_path / 'big.py'}:303: f has complexity 21 (> 12)",
    ]


def test_the_packages_keep_to_the_limits() -> None:
    assert code_limits.offenders([REPO / "bocvs_env", REPO / "agents"]) == []

"""The size limits of the code (``tools/code_limits.py``, run as a developer runs it): classes
of at most 250 lines and functions of complexity at most 12, held by ``bocvs_env`` and
``agents``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "code_limits.py"


def _class_of(lines: int) -> str:
    """A decorated class spanning ``lines`` lines, decorator included."""
    body = "\n".join(f"    x{k} = {k}" for k in range(lines - 2))
    return f"@dataclass\nclass Big:\n{body}\n"


def _function_of(branches: int) -> str:
    """A function of complexity ``branches + 1`` (one ``if`` per branch)."""
    body = "\n".join(f"    if x == {k}:\n        return {k}" for k in range(branches))
    return f"def f(x):\n{body}\n    return -1\n"


def _offenders(path: Path) -> tuple[int, list[str]]:
    """The script's exit status on ``path`` and the lines it prints."""
    done = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True)
    return done.returncode, done.stdout.splitlines()


def test_code_at_the_limits_passes(tmp_path: Path) -> None:
    method = "class C:\n" + "\n".join("    " + line for line in _function_of(11).splitlines())
    (tmp_path / "ok.py").write_text(_class_of(250) + "\n\n" + _function_of(11) + "\n\n" + method)
    assert _offenders(tmp_path) == (0, [])


def test_the_script_lists_the_offenders_and_fails(tmp_path: Path) -> None:
    """A class over the limit with its lines (nested ones by their qualified name), a function or
    method above the complexity limit with its complexity."""
    (tmp_path / "big.py").write_text(_class_of(300) + "\n\n" + _function_of(20))
    nested = "class Outer:\n" + "\n".join("    " + line for line in _class_of(251).splitlines())
    method = "class C:\n" + "\n".join("    " + line for line in _function_of(12).splitlines())
    (tmp_path / "nested.py").write_text(nested + "\n\n" + method + "\n")
    status, lines = _offenders(tmp_path)
    assert status == 1
    assert lines == [
        f"{tmp_path / 'big.py'}:1: class Big has 300 lines (> 250)",
        f"{tmp_path / 'big.py'}:303: f has complexity 21 (> 12)",
        f"{tmp_path / 'nested.py'}:1: class Outer has 252 lines (> 250)",
        f"{tmp_path / 'nested.py'}:2: class Outer.Big has 251 lines (> 250)",
        f"{tmp_path / 'nested.py'}:255: C.f has complexity 13 (> 12)",
    ]


def test_the_packages_keep_to_the_limits() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "bocvs_env", "agents"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stdout

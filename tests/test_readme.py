"""Every ```python block of the README and of the documentation's hand-written pages runs as a
user would paste it: alone, in a fresh interpreter, from the repository's root. A block fenced
as ```python notest is shown but not run (it names a placeholder path); each such block says so
in its fence. The generated results pages (docs/paper, docs/extras, docs/agents/fetc_*.md) and
the published data's README hold no Python blocks."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
BLOCKS = BLOCK.findall(README.read_text())
#: The documentation's pages, the published data's folder left out.
DOC_PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if "data" not in p.parts)


def test_readme_has_runnable_blocks() -> None:
    assert len(BLOCKS) >= 3  # the environment, one agent's episode, a learner of one's own


def _cases(page: Path) -> list:
    """One case per block of ``page``; blocks that train PPO (over ~20 s) are slow."""
    name = page.relative_to(ROOT).as_posix()
    return [
        pytest.param(code, marks=[pytest.mark.slow] if "PPO(" in code else [], id=f"{name}:{k}")
        for k, code in enumerate(BLOCK.findall(page.read_text()))
    ]


CASES = [case for page in [README, *DOC_PAGES] for case in _cases(page)]


def test_the_docs_have_runnable_blocks() -> None:
    # The environment, the first episode, a learner of one's own, Stable-Baselines3.
    assert len(CASES) - len(BLOCKS) >= 4


@pytest.mark.parametrize("code", CASES)
def test_block_runs(code: str) -> None:
    # Inherits the session's isolated cache (BOCVS_CACHE_DIR); runs where the user would, in
    # the repository's root.
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=dict(os.environ),
        check=False,
    )
    assert done.returncode == 0, f"{code}\n---\n{done.stderr[-3000:]}"

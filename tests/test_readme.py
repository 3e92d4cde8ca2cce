"""Every ```python block of the README runs as a user would paste it: alone, in a fresh
interpreter. A block fenced as ```python notest is shown but not run (it names a placeholder
path); each such block says so in its fence."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
BLOCKS = BLOCK.findall(README.read_text())


def test_readme_has_runnable_blocks() -> None:
    assert len(BLOCKS) >= 3  # Use, Bring your own learner, Stable-Baselines3


#: Blocks that take more than ~20 s (PPO training: 4,096 steps).
CASES = [
    pytest.param(code, marks=[pytest.mark.slow] if "PPO(" in code else [], id=f"block{k}")
    for k, code in enumerate(BLOCKS)
]


@pytest.mark.parametrize("code", CASES)
def test_readme_block_runs(code: str, tmp_path: Path) -> None:
    # Inherits the session's isolated cache (BOCVS_CACHE_DIR); runs where the user would, in
    # the repository's root.
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=README.parent,
        env=dict(os.environ),
        check=False,
    )
    assert done.returncode == 0, f"{code}\n---\n{done.stderr[-3000:]}"

"""The README's commands in the order it gives them, as a new user runs them on a fresh machine:
in a fresh folder holding only what the README says it holds (the published runs `docs/data`
and the learner `my_module.py` of its "own learner" block), with no data folder and no
``BOCVS_NUMERICS`` set. Each ``bocvs`` command of its ``bash`` blocks runs as written, one after
the other, and exits 0; the leaderboard then ranks the user's learner among the published
baselines; and the test command needs no outside folder (its collection runs without
``BOCVS_DATA_DIR``). The README's links resolve in the repository, and it stays a first page."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BASH = re.compile(r"^```bash\n(.*?)^```$", re.DOTALL | re.MULTILINE)
PYTHON = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
#: A leading ``NAME=value`` of a shell command.
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def readme_commands(program: str) -> list[tuple[dict[str, str], list[str]]]:
    """The commands of the README's ``bash`` blocks that run ``program``, in order: each the
    last command of its line (after the set-up joined by ``&&``), as its leading variable
    assignments and its words."""
    found = []
    for block in BASH.findall(README):
        for line in block.splitlines():
            words = shlex.split(line.split("&&")[-1], comments=True)
            assigned = {}
            while words and ASSIGNMENT.match(words[0]):
                name, _, value = words.pop(0).partition("=")
                assigned[name] = value
            if words[:1] == [program] or words[:3] == ["python", "-m", program]:
                found.append((assigned, words))
    return found


def _environment(assigned: dict[str, str]) -> dict[str, str]:
    """A fresh machine's environment (no data folder, no numerics mode) with this tree's
    package first on the path, and the command's own assignments (``PYTHONPATH=.`` before it)."""
    env = {k: v for k, v in os.environ.items() if k not in ("BOCVS_DATA_DIR", "BOCVS_NUMERICS")}
    env.update(assigned)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (assigned.get("PYTHONPATH"), str(ROOT)) if p)
    return env


@pytest.mark.slow  # the quick preset: about 2 minutes on two idle cores
def test_the_readmes_commands_work_in_order_in_a_fresh_folder(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "data").symlink_to(ROOT / "docs" / "data")
    (learner,) = [b for b in PYTHON.findall(README) if "class FullSetRandom" in b]
    (tmp_path / "my_module.py").write_text(learner)
    commands = readme_commands("bocvs")
    assert [words[:2] for _, words in commands] == [
        ["bocvs", "run"],  # the main job
        ["bocvs", "run"],  # the own learner
        ["bocvs", "leaderboard"],
    ]
    outputs = []
    for assigned, words in commands:
        argv = [sys.executable, "-m", "bocvs_env.benchmark", *words[1:]]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path,
                              env=_environment(assigned), timeout=1800)  # fmt: skip
        assert done.returncode == 0, f"{shlex.join(words)}\n{done.stderr[-3000:]}"
        outputs.append(done.stdout)
    quick, own, board = outputs
    assert "Takeaway, hartmann6_12d · cheap · var 0.02 · C=30: etc ends lowest" in quick
    assert "| my_module:FullSetRandom | etc@" in own  # paired with the published baselines
    best = re.findall(r"Best baseline: ([^ ]+)\.", board)
    assert best and all("@" in b for b in best)  # a published agent, never the user's own
    assert "| full-set-random |" in board and "| etc |" not in board


@pytest.mark.slow  # collecting the whole suite imports every test module: a minute when busy
def test_the_test_command_needs_no_outside_folder() -> None:
    """On a machine without ``../shared/data`` the suite is collected whole (it once stopped at
    once, exit 4, without it)."""
    ((assigned, words),) = readme_commands("pytest")
    assert "BOCVS_DATA_DIR" not in assigned
    argv = [sys.executable, *words[1:], "--collect-only", "-n", "0", "-p", "no:cacheprovider"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT,
                          env=_environment(assigned), timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "shipped copies" in done.stdout  # the data the plant and airfoil tests read


#: A markdown link or image: ``[text](target)``.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readmes_links_resolve_in_the_repository() -> None:
    """A reader of the README on GitHub or in a clone follows its links to files that exist
    (not to pages that only the built site has)."""
    local = [t for t in LINK.findall(README) if "://" not in t]
    assert local  # the docs pages, the figure, the licence
    missing = [t for t in local if not (ROOT / t.split("#")[0]).exists()]
    assert missing == []


def test_the_readme_stays_a_first_page() -> None:
    assert len(README.splitlines()) <= 150  # the rest is in the pages it links

"""Every example runs as a user would run it: with its defaults, or with the ``--smoke`` flag
that its docstring and the README show (for those whose defaults take a minute or more).
Results go to stdout and say what they show; progress goes to stderr."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
README = EXAMPLES.parent / "README.md"

#: Example file -> its arguments in the test, a fragment of its result (stdout), and a
#: fragment of its progress (stderr).
CASES: dict[str, tuple[list[str], str, str]] = {
    "one_episode.py": ([], "simple_regret: ", "playing random"),
    "cost_aware_bandit.py": ([], "What to look for", "playing cost-aware-ucb1, seed 2"),
    "custom_problem.py": ([], "(lower is better)", "playing etc"),
    "headline_comparison.py": (["--smoke"], "What to look for", "[2/2] random seed 0"),
    # Trains PPO for 2,048 steps through the SB3 wrappers, then evaluates the trained policy
    # through the benchmark adapter against ETC and random on one test function.
    "train_ppo.py": (["--smoke"], "What to look for", "tested on function 1/1"),
}


def test_every_example_is_covered() -> None:
    examples = [p.name for p in EXAMPLES.glob("*.py") if not p.name.startswith("_")]
    assert sorted(examples) == sorted(CASES)  # _common.py is what they share


@pytest.mark.parametrize("name", [n for n, (args, _, _) in CASES.items() if args])
def test_smoke_flags_are_in_the_readme(name: str) -> None:
    assert f"python examples/{name} {' '.join(CASES[name][0])}" in README.read_text()


#: Examples whose test takes more than ~20 s on a busy two-core machine.
SLOW = {"headline_comparison.py", "train_ppo.py"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in sorted(CASES)]
)
def test_example_runs(name: str) -> None:
    args, result, progress = CASES[name]
    # Examples inherit the session's isolated cache (BOCVS_CACHE_DIR) from the environment.
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert result in done.stdout
    assert progress in done.stderr and progress not in done.stdout

"""Every example runs, with small settings, in a fresh interpreter as a user would run it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

#: Example file -> small-setting arguments, and a line fragment its output must contain.
CASES: dict[str, tuple[list[str], str]] = {
    "one_episode.py": (["--budget", "2"], "simple_regret"),
    "headline_comparison.py": (
        ["--budget", "2", "--seeds", "1", "--agents", "random"],
        "random",
    ),
    "cost_aware_bandit.py": (["--budget", "2", "--seeds", "1"], "cost-aware-ucb1"),
    "custom_problem.py": (["--budget", "3", "--agent", "etc"], "simple_regret"),
    # Trains PPO for 2,048 steps through the SB3 wrappers, then evaluates the trained policy
    # through the benchmark adapter against ETC and random on one test function.
    "train_ppo.py": (
        ["--total-timesteps", "2048", "--n-envs", "2", "--n-steps", "256", "--eval-episodes", "1"],
        "ppo",
    ),
}


def test_every_example_is_covered() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_runs(name: str) -> None:
    args, expected = CASES[name]
    # Examples inherit the session's isolated cache (BOCVS_CACHE_DIR) from the environment.
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert expected in result.stdout

"""The ETC episode of the decision benchmark (``benchmarks/decisions.py``, run as a script):
its options reach the agent and the environment, and the report says what ran; and the
benchmark side by side with another revision (``benchmarks/decisions_vs.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.policies.etc import ETCAgent
from bocvs_env.problems import Problem

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "decisions.py"


def episode(tmp_path: Path, *options: str) -> dict[str, Any]:
    """The report of ``decisions.py --worker episode`` (one thread) with ``options``."""
    out = tmp_path / "episode.json"
    cmd = [sys.executable, str(SCRIPT), "--worker", "episode", "--result", str(out), *options]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.mark.slow
def test_episode_runs_with_the_given_tolerance_schedule_and_initial_points(
    tmp_path: Path,
) -> None:
    options = ["--budget", "1.5", "--timeout", "600", "--alpha0", "0.6", "--halve-every", "3"]
    report = episode(tmp_path, *options, "--initial", "12")
    assert report["completed"]
    assert (report["alpha0"], report["halve_every"], report["initial_points"]) == (0.6, 3, 12)
    # the first cycle (7 sets, 1.33 units in mean cost) is explored, then the budget runs out
    assert report["explore_rounds"] >= 7
    # every decision is evaluated but possibly the last, whose cost ran past the budget
    decided = report["explore_rounds"] + report["exploit_rounds"]
    assert report["evaluations"] in (decided - 1, decided)
    assert sum(report["plays"]) == report["evaluations"]
    assert 1.5 - 1.0 < report["spent"] <= 1.5 + 1e-9


def test_episode_stops_and_says_so_at_its_time_limit(tmp_path: Path) -> None:
    report = episode(tmp_path, "--budget", "100", "--timeout", "0")
    assert not report["completed"]
    assert report["evaluations"] == 1
    # options left unset keep the agent's and the problem's defaults, and are reported
    assert report["alpha0"] == ETCAgent().rules.alpha0
    assert report["halve_every"] is None
    assert report["initial_points"] == Problem.n_initial


@pytest.mark.slow
def test_decisions_vs_runs_both_trees_alternately(tmp_path: Path) -> None:
    """``decisions_vs.py`` against this very revision: both trees time the same decisions on the
    same data, so they choose the same sets, and the report pairs them."""
    script = SCRIPT.parent / "decisions_vs.py"
    out = tmp_path / "vs.json"
    cmd = [sys.executable, str(script), "--compare-to", "HEAD", "--sizes", "30", "--rounds", "2",
           "--repeats", "1", "--out", str(out)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [(r["n"], r["agent"]) for r in rows] == [(30, "ucb-psq"), (30, "etc")]
    for r in rows:
        assert r["base"]["repeats"] == r["this"]["repeats"] == 2
        assert r["base"]["sets"] == r["this"]["sets"]
        assert r["base_over_this"] == r["base"]["median_s"] / r["this"]["median_s"]
    assert "| 30 | etc |" in done.stdout

"""The whole-episode benchmark (``benchmarks/episodes.py``), run as a user runs it: every step is
split into its phases, and two variants run side by side in one invocation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "episodes.py"
#: Agent options that refit the hyperparameters after every observation.
EVERY_STEP = {"refit_every": 1, "refit_schedule": "every"}


def test_two_variants_side_by_side_report_every_phase_of_every_step(tmp_path: Path) -> None:
    out = tmp_path / "episodes.json"
    cmd = [
        sys.executable, str(SCRIPT), "--agents", "ucb-psq", "--seeds", "3", "--budget", "2",
        "--baseline-params", json.dumps(EVERY_STEP), "--out", str(out),
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "refit med" in done.stdout  # the printed table
    result = json.loads(out.read_text())
    rows = {row["variant"]: row for row in result["summary"]}
    assert set(rows) == {"baseline", "current"}
    baseline, current = result["episodes"]["baseline"], result["episodes"]["current"]
    for episode in (*baseline, *current):
        steps = episode["steps"]
        assert len(steps) >= episode["n_evaluations"] >= 1
        assert all(min(s["act"], s["refit"], s["observe"], s["env"]) >= 0 for s in steps)
        phases = sum(s["act"] + s["refit"] + s["observe"] + s["env"] for s in steps)
        assert phases <= episode["wall_s"]
        assert 0 < episode["cpu_s"] and all(s["act_cpu"] >= 0 for s in steps)
    # refitting after every observation (but the last) shows up as refit time, the default
    # (after at least 10 points) does not
    assert all(s["refit"] > 0 for s in baseline[0]["steps"][:-1])
    assert all(s["refit"] == 0 for s in current[0]["steps"])
    # the episodes are paired by seed
    paired = rows["current"]["paired_with_baseline"]
    assert paired["seeds"] == ["3"]
    assert len(paired["time_ratio_old_over_new"]) == 1


def test_plant_and_airfoil_without_their_data_directory_fail_in_one_line(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, str(SCRIPT), "--problems", "airfoil"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2
    assert "BOCVS_DATA_DIR" in done.stderr.strip().splitlines()[-1]


def test_an_empty_baseline_params_runs_the_default_of_the_same_tree(tmp_path: Path) -> None:
    out = tmp_path / "episodes.json"
    cmd = [
        sys.executable, str(SCRIPT), "--agents", "ucb-psq", "--seeds", "0", "--budget", "1",
        "--params", json.dumps({"refit_every": 1}), "--baseline-params", "{}", "--out", str(out),
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert [row["variant"] for row in result["summary"]] == ["baseline", "current"]
    assert [row["params"] for row in result["summary"]] == [{}, {"refit_every": 1}]

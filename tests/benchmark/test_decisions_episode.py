"""The ETC episode of the decision benchmark (``benchmarks/decisions.py``): its options reach the
agent and the environment, and the report says what ran."""

from __future__ import annotations

import argparse

from bench_helpers import load_benchmark_script

from agents.etc import ETCAgent
from bocvs_env.problems import Problem

decisions = load_benchmark_script("decisions")


def test_episode_runs_with_the_given_tolerance_schedule_and_initial_points() -> None:
    args = argparse.Namespace(budget=1.5, timeout=600.0, alpha0=0.6, halve_every=3, initial=12)
    report = decisions._worker_episode(args)
    assert report["completed"]
    assert (report["alpha0"], report["halve_every"], report["initial_points"]) == (0.6, 3, 12)
    # the first cycle (7 sets, 1.33 units in mean cost) is explored, then the budget runs out
    assert report["explore_rounds"] >= 7
    # every decision is evaluated but possibly the last, whose cost ran past the budget
    decided = report["explore_rounds"] + report["exploit_rounds"]
    assert report["evaluations"] in (decided - 1, decided)
    assert sum(report["plays"]) == report["evaluations"]
    assert 1.5 - 1.0 < report["spent"] <= 1.5 + 1e-9


def test_episode_stops_and_says_so_at_its_time_limit() -> None:
    args = argparse.Namespace(
        budget=100.0, timeout=0.0, alpha0=None, halve_every=None, initial=None
    )
    report = decisions._worker_episode(args)
    assert not report["completed"]
    assert report["evaluations"] == 1
    # options left unset keep the agent's and the problem's defaults, and are reported
    assert report["alpha0"] == ETCAgent().alpha0
    assert report["halve_every"] is None
    assert report["initial_points"] == Problem.n_initial

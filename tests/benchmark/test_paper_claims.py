"""The paper-claims summary (``benchmarks/paper_claims.py``): spend shares and the tally."""

from __future__ import annotations

import numpy as np
import pytest
from bench_helpers import load_benchmark_script

from bocvs_env.benchmark.panels import Panel, group_panels
from bocvs_env.benchmark.store import StoredRun

paper_claims = load_benchmark_script("paper_claims")


def test_spend_shares_partition_the_spend(stored_runs: list[StoredRun]) -> None:
    record = stored_runs[0].record
    m = len(record.set_max)
    shares = [paper_claims.spend_share(record, [i]) for i in range(m)]
    assert sum(shares) == pytest.approx(1.0)
    assert paper_claims.spend_share(record, list(range(m))) == pytest.approx(1.0)
    played = int(record.control_set[0])
    assert shares[played] > 0


def test_panel_summary_averages_over_seeds(stored_runs: list[StoredRun]) -> None:
    (panel, agents), = group_panels(stored_runs).items()  # fmt: skip
    summary = paper_claims.panel_summary(panel, agents)["random"]
    assert summary["seeds"] == len(agents["random"])
    assert summary["regret"].shape == (len(paper_claims.CHECKPOINTS),)
    assert np.all(np.diff(summary["regret"]) <= 0)  # simple regret never rises with spend
    mean_evals = np.mean([len(r.y) for r in agents["random"]])
    assert summary["evaluations"] == pytest.approx(mean_evals)


def test_tally_counts_panels_where_etc_is_lower() -> None:
    k = len(paper_claims.CHECKPOINTS)

    def entry(values: list[float]) -> dict:
        return {"regret": np.array(values)}

    a, b = Panel("p", "cheap", 0.02, 100.0), Panel("q", "cheap", 0.02, 100.0)
    summaries = {
        a: {"etc": entry([1.0] * k), "random": entry([2.0] * k), "ucb-psq": entry([0.5] * k)},
        b: {"etc": entry([1.0] * k), "random": entry([3.0] * k)},
        Panel("r", "cheap", 0.02, 100.0): {"random": entry([1.0] * k)},  # no etc: not counted
    }
    counts = paper_claims.tally(summaries)
    np.testing.assert_array_equal(counts["panels"], [2] * k)
    np.testing.assert_array_equal(counts["best"], [1] * k)
    np.testing.assert_array_equal(counts["beats random"], [2] * k)
    np.testing.assert_array_equal(counts["beats ucb-psq"], [0] * k)
    np.testing.assert_array_equal(counts["panels with ucb-psq"], [1] * k)


def test_runs_are_selected_by_sweep_seed_and_problem(stored_runs: list[StoredRun]) -> None:
    sweep = stored_runs[0].sweep
    seeds = sorted({r.config.seed for r in stored_runs})
    assert paper_claims.select_runs(stored_runs, sweep) == stored_runs
    assert paper_claims.select_runs(stored_runs, "another sweep") == []
    first = paper_claims.select_runs(stored_runs, sweep, seeds=seeds[:1])
    assert first and all(r.config.seed == seeds[0] for r in first)
    assert len(first) < len(stored_runs)
    problem = stored_runs[0].config.problem
    assert paper_claims.select_runs(stored_runs, sweep, problems=[problem]) == stored_runs
    assert paper_claims.select_runs(stored_runs, sweep, problems=["plant"]) == []

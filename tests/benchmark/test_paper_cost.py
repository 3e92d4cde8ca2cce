"""The paper preset's cost estimate (``benchmarks/paper_cost.py``): the reference timing model and
the per-agent sums."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import load_benchmark_script

from bocvs_env.benchmark.store import StoredRun

paper_cost = load_benchmark_script("paper_cost")
SIZES = np.array([100.0, 1000.0])
SECONDS = np.array([10.0, 200.0])


def test_reference_time_is_log_linear_between_sizes_and_constant_below() -> None:
    t = paper_cost.reference_seconds(np.array([10.0, 100.0, 1000.0]), SIZES, SECONDS)
    np.testing.assert_allclose(t, [10.0, 10.0, 200.0])
    slope = np.log(20.0) / np.log(10.0)
    mid = paper_cost.reference_seconds(np.array([np.sqrt(1e5)]), SIZES, SECONDS)
    np.testing.assert_allclose(mid, [10.0 * np.sqrt(10.0) ** slope])
    beyond = paper_cost.reference_seconds(np.array([10_000.0]), SIZES, SECONDS)
    np.testing.assert_allclose(beyond, [200.0 * 10.0**slope])


def test_reference_times_take_the_median_over_reports(tmp_path: Path) -> None:
    def entry(n: int, seconds: float) -> dict:
        return {"n": n, "rows": [{"method": "reference", "median_s": seconds},
                                 {"method": "etc", "median_s": 0.1}]}  # fmt: skip

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"decisions": [entry(100, 9.0), entry(300, 40.0)]}))
    b.write_text(json.dumps({"n1000_rerun": entry(1000, 150.0), "decisions": [entry(100, 11.0)]}))
    sizes, seconds = paper_cost.reference_times([a, b])
    np.testing.assert_array_equal(sizes, [100.0, 300.0, 1000.0])
    np.testing.assert_array_equal(seconds, [10.0, 40.0, 150.0])
    with pytest.raises(ValueError, match="two sizes"):
        paper_cost.reference_times([_only_one(tmp_path)])


def _only_one(tmp_path: Path) -> Path:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"decisions": [{"n": 100, "rows": [{"method": "reference",
                                                                     "median_s": 1.0}]}]}))  # fmt: skip
    return path


def test_model_based_runs_are_charged_one_reference_decision_per_round(
    stored_runs: list[StoredRun],
) -> None:
    run = stored_runs[0]
    as_etc = dataclasses.replace(run, config=dataclasses.replace(run.config, agent="etc"))
    rows = paper_cost.sweep_cost([run, as_etc], SIZES, SECONDS)
    rounds = len(run.record.y)
    assert rows["random"] == {
        "runs": 1, "rounds": rounds, "after_s": run.provenance["wall_s"],
        "before_s": run.provenance["wall_s"],
    }  # fmt: skip
    n0 = run.config.problem_options["n_initial"]
    expected = paper_cost.reference_seconds(n0 + np.arange(rounds), SIZES, SECONDS).sum()
    assert rows["etc"]["before_s"] == pytest.approx(expected)
    assert rows["etc"]["before_s"] == pytest.approx(10.0 * rounds)  # all below n = 100

"""The sweep cost estimate (:mod:`bocvs_env.benchmark.sweep_cost`, printed by ``bocvs cost``):
the reference timing model and the per-agent sums."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from bocvs_env.benchmark import sweep_cost as cost_estimate
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import ResultStore, StoredRun

SIZES = np.array([100.0, 1000.0])
SECONDS = np.array([10.0, 200.0])


def test_reference_time_is_log_linear_between_sizes_and_constant_below() -> None:
    t = cost_estimate.reference_seconds(np.array([10.0, 100.0, 1000.0]), SIZES, SECONDS)
    np.testing.assert_allclose(t, [10.0, 10.0, 200.0])
    slope = np.log(20.0) / np.log(10.0)
    mid = cost_estimate.reference_seconds(np.array([np.sqrt(1e5)]), SIZES, SECONDS)
    np.testing.assert_allclose(mid, [10.0 * np.sqrt(10.0) ** slope])
    beyond = cost_estimate.reference_seconds(np.array([10_000.0]), SIZES, SECONDS)
    np.testing.assert_allclose(beyond, [200.0 * 10.0**slope])


def test_reference_times_take_the_median_over_reports(tmp_path: Path) -> None:
    def entry(n: int, seconds: float) -> dict:
        return {"n": n, "rows": [{"method": "reference", "median_s": seconds},
                                 {"method": "etc", "median_s": 0.1}]}  # fmt: skip

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"decisions": [entry(100, 9.0), entry(300, 40.0)]}))
    b.write_text(json.dumps({"n1000_rerun": entry(1000, 150.0), "decisions": [entry(100, 11.0)]}))
    sizes, seconds = cost_estimate.reference_times([a, b])
    np.testing.assert_array_equal(sizes, [100.0, 300.0, 1000.0])
    np.testing.assert_array_equal(seconds, [10.0, 40.0, 150.0])
    with pytest.raises(ValueError, match="two sizes"):
        cost_estimate.reference_times([_only_one(tmp_path)])


def _only_one(tmp_path: Path) -> Path:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"decisions": [{"n": 100, "rows": [{"method": "reference",
                                                                     "median_s": 1.0}]}]}))  # fmt: skip
    return path


def _as(run: StoredRun, agent: str) -> StoredRun:
    return dataclasses.replace(run, config=dataclasses.replace(run.config, agent=agent))


def test_model_based_runs_are_charged_one_reference_decision_per_round(
    stored_runs: list[StoredRun],
) -> None:
    run = stored_runs[0]
    rows = cost_estimate.sweep_cost([run, _as(run, "etc"), _as(run, "fetc")], SIZES, SECONDS)
    rounds = len(run.record.y)
    assert rows["random"] == {
        "runs": 1, "rounds": rounds, "after_s": run.provenance["wall_s"],
        "cpu_s": run.provenance["cpu_s"], "before_s": run.provenance["cpu_s"],
    }  # fmt: skip
    older = dataclasses.replace(
        run, provenance={k: v for k, v in run.provenance.items() if k != "cpu_s"}
    )
    mixed = cost_estimate.sweep_cost([run, older], SIZES, SECONDS)["random"]
    assert np.isnan(mixed["cpu_s"])
    assert mixed["before_s"] == run.provenance["cpu_s"] + run.provenance["wall_s"]
    # a published folder reads an unrecorded CPU time back as NaN: the wall time stands in
    unrecorded = dataclasses.replace(run, provenance={**run.provenance, "cpu_s": float("nan")})
    charged = cost_estimate.sweep_cost([unrecorded], SIZES, SECONDS)["random"]["before_s"]
    assert charged == run.provenance["wall_s"]
    n0 = run.config.problem_options["n_initial"]
    expected = cost_estimate.reference_seconds(n0 + np.arange(rounds), SIZES, SECONDS).sum()
    assert rows["etc"]["before_s"] == pytest.approx(expected)
    assert rows["etc"]["before_s"] == pytest.approx(10.0 * rounds)  # all below n = 100
    assert np.isnan(rows["fetc"]["before_s"])  # no reference code: no estimate
    assert rows["fetc"]["after_s"] == run.provenance["wall_s"]


def test_the_command_prints_the_cost_per_agent(
    filled_store: ResultStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    timings = tmp_path / "decisions.json"
    rows = [
        {"n": n, "rows": [{"method": "reference", "median_s": s}]}
        for n, s in ((100, 1.0), (1000, 20.0))
    ]
    timings.write_text(json.dumps({"decisions": rows}))
    cmd = ["cost", "--store", str(filled_store.path), "--reference", str(timings), "--sweep"]
    assert main([*cmd, "tiny"]) == 0
    out = capsys.readouterr().out
    assert "sweep 'tiny': 2 runs" in out
    assert "| random | 2 |" in out
    assert "| all | 2 |" in out and "with an estimate" not in out
    run = filled_store.runs()[0]  # and one run of an agent without a reference code
    provenance = {k: v for k, v in run.provenance.items() if k != "sweep"}
    filled_store.add(RunResult(_as(run, "fetc").config, run.record, provenance), "other")
    tiny = filled_store.sweeps()["tiny"]
    filled_store.register_sweep(dataclasses.replace(tiny, name="both", agents=["random", "fetc"]))
    assert main([*cmd, "both"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("| fetc | 1 |") and line.endswith("| — | — |") for line in lines)
    assert any(line.startswith("| all | 3 |") and line.endswith("| — | — |") for line in lines)
    assert any(line.startswith("| all with an estimate (random) | 2 |") for line in lines)
    assert main([*cmd, "both", "--workers", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "bocvs cost: error: workers must be a positive integer, got 0"

"""Helpers of the benchmark tests: tiny sweeps of the random agent on Hartmann-3."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from bocvs_env.benchmark.config import RunConfig, SweepConfig
from bocvs_env.benchmark.executors import execute
from bocvs_env.benchmark.manifest import RUNS_FILE, STEPS_FILE, seal
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.evaluation import EpisodeRecord


def tiny_sweep(name: str = "tiny", seeds: int = 2, budget: float = 3.0) -> SweepConfig:
    """Random agent, Hartmann-3, cheap costs, a small budget."""
    return SweepConfig(
        name=name, problems=["hartmann3"], budgets=[budget], agents=["random"], seeds=seeds
    )


def sweep_seeds(sweep: SweepConfig) -> tuple[int, ...]:
    """The sweep's seeds: a tuple once the sweep is built (a count ``n`` becomes ``0..n-1``),
    though the field's type also admits the count it may be given."""
    assert isinstance(sweep.seeds, tuple)
    return sweep.seeds


def run_one(config: RunConfig) -> RunResult:
    """One run here, as a worker would run it (one torch thread); fails on a failed run."""
    threads = torch.get_num_threads()
    try:
        outcome = execute(config)
    finally:
        torch.set_num_threads(threads)
    assert outcome.result is not None, outcome.error
    return outcome.result


def run_in_process(sweep: SweepConfig) -> list[RunResult]:
    """The sweep's results, run here one after another (see :func:`run_one`)."""
    return [run_one(c) for c in sweep.runs()]


def assert_same_traces(a: list[StoredRun], b: list[StoredRun]) -> None:
    """Both lists hold the same configurations with bit-identical traces."""
    by_key = {r.key: r for r in b}
    assert sorted(r.key for r in a) == sorted(by_key)
    for run in a:
        other = by_key[run.key]
        assert run.config == other.config
        for name in ("control_set", "x", "y", "cost", "g", "set_max", "cost_means"):
            assert (getattr(run.record, name) == getattr(other.record, name)).all(), name
            assert getattr(run.record, name).shape == getattr(other.record, name).shape, name


def hand_run(
    agent: str,
    seed: int,
    g: list[float],
    cost: list[float] | None = None,
    cost_set: str = "cheap",
    budget: float = 10.0,
    provenance: dict | None = None,
) -> StoredRun:
    """A stored run made by hand: 3 sets with oracle values 1, 0.5, 1 (``g* = 1``) and mean
    costs 0.1, 0.5, 1; every step plays set 2 at ``cost`` (1 each by default) and scores ``g``."""
    T = len(g)
    config = RunConfig("hartmann3", cost_set, 0.02, budget, agent, seed)
    record = EpisodeRecord(
        problem="hartmann3",
        agent=agent,
        seed=seed,
        control_set=np.full(T, 2, dtype=np.int64),
        x=np.zeros((T, 3)),
        y=np.zeros(T),
        cost=np.asarray(cost if cost is not None else [1.0] * T, dtype=np.float64),
        g=np.asarray(g, dtype=np.float64),
        set_max=np.array([1.0, 0.5, 1.0]),
        cost_means=np.array([0.1, 0.5, 1.0]),
        budget=budget,
    )
    return StoredRun(config.key(), "hand", config, record, dict(provenance or {}))


def win_and_tie_runs(agent: str, other: str) -> list[StoredRun]:
    """Two panels: with cheap costs ``agent``'s final regret (0.1) is below ``other``'s (0.5) on
    each of 3 seeds (a win); with moderate costs it is 0.1 and 0.9 on 2 seeds (a tie)."""
    runs = [hand_run(agent, s, [0.9]) for s in range(3)]
    runs += [hand_run(other, s, [0.5]) for s in range(3)]
    runs += [hand_run(agent, s, [g], cost_set="moderate") for s, g in ((0, 0.9), (1, 0.1))]
    return runs + [hand_run(other, s, [0.5], cost_set="moderate") for s in (0, 1)]


def at_commit(result: RunResult, commit: str) -> RunResult:
    """``result`` as if made by the code of ``commit``."""
    return replace(result, provenance={**result.provenance, "git_commit": commit})


def tamper_published(folder: Path, **columns: Any) -> RunConfig:
    """Set columns of the first run of a published ``folder`` (``agent_params`` a dict), its
    key recomputed in the runs' and the steps' tables and the folder's manifest rewritten, as a
    forger would (a key and the manifest are plain digests); the run's new configuration."""
    runs = pd.read_parquet(folder / RUNS_FILE)
    steps = pd.read_parquet(folder / STEPS_FILE)
    steps["key"] = steps["key"].astype(str)
    old = runs.iloc[0]["key"]
    for name, value in columns.items():
        runs.loc[0, name] = json.dumps(value) if name == "agent_params" else value
    row = runs.iloc[0]
    config = RunConfig(
        problem=row["problem"], cost_set=row["cost_set"], variance=float(row["variance"]),
        budget=float(row["budget"]), agent=row["agent"], seed=int(row["seed"]),
        agent_params=json.loads(row["agent_params"]),
        problem_options=json.loads(row["problem_options"]),
    )  # fmt: skip
    steps.loc[steps["key"] == old, "key"] = config.key()
    runs.loc[0, "key"] = config.key()
    runs.to_parquet(folder / RUNS_FILE, index=False)
    steps.astype({"key": "category"}).to_parquet(folder / STEPS_FILE, index=False)
    seal(folder)
    return config

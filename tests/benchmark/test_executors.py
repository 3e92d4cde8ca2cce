"""Executors and the sweep driver: the same records from local processes, from Ray and in
process; a run that raises is recorded as failed and the sweep goes on; a second call
resumes."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from bench_helpers import assert_same_traces, tiny_sweep

from agents import RandomAgent
from bocvs_env.benchmark.executors import (
    Executor,
    LocalExecutor,
    Outcome,
    RayExecutor,
    execute,
    make_executor,
)
from bocvs_env.benchmark.store import ResultStore, StoredRun
from bocvs_env.benchmark.sweep import run_sweep
from bocvs_env.numerics import PINNED_SETTINGS, Numerics

HAS_RAY = importlib.util.find_spec("ray") is not None


class InProcessExecutor(Executor):
    """Runs each configuration here, as a worker would: for fast tests of the driver."""

    def run(self, configs, progress=None) -> Iterator[Outcome]:
        threads = torch.get_num_threads()
        try:
            for config in configs:
                yield execute(config)
        finally:
            torch.set_num_threads(threads)


def _local(folder: Path, numerics: Numerics) -> tuple[list[StoredRun], set[str]]:
    """The tiny sweep run by two local worker processes (after the oracle is cached) in the
    numerics mode ``numerics``, and the keys of the runs that reported progress."""
    seen: set[str] = set()
    executor = LocalExecutor(2, numerics)
    with ResultStore(folder / "local.db") as store, executor:
        report = run_sweep(tiny_sweep(), store, executor, progress=lambda k, *_: seen.add(k))
        assert (report.recorded, report.skipped, report.failed) == (report.total, 0, [])
        return store.runs(), seen


@pytest.fixture(scope="module")
def local_runs(
    tmp_path_factory: pytest.TempPathFactory, tiny_results
) -> tuple[list[StoredRun], set[str]]:
    """:func:`_local` in ``fast`` mode, as the tests' own process runs."""
    return _local(tmp_path_factory.mktemp("local"), "fast")


@pytest.fixture(scope="module")
def reproducible_runs(tmp_path_factory: pytest.TempPathFactory, tiny_results) -> list[StoredRun]:
    """:func:`_local` in ``reproducible`` mode."""
    return _local(tmp_path_factory.mktemp("reproducible"), "reproducible")[0]


def test_local_processes_match_in_process(local_runs, filled_store) -> None:
    runs, seen = local_runs
    assert_same_traces(runs, filled_store.runs())
    assert {r.provenance["sweep"] for r in runs} == {"tiny"}
    assert {r.provenance["numerics"] for r in runs} == {"fast"}
    assert seen == {r.key for r in runs}


#: The kernel settings in force in a ``reproducible`` worker (its provenance).
PINNED = {**PINNED_SETTINGS, "numerics": "reproducible", "torch_threads": 1}


def test_reproducible_local_workers_have_every_pin_in_force(reproducible_runs) -> None:
    """The pins reach the workers before their libraries load, whatever this process runs."""
    for run in reproducible_runs:
        assert {k: run.provenance[k] for k in PINNED} == PINNED


def test_a_run_that_raises_is_recorded_as_failed_and_the_sweep_goes_on(
    store_path: Path, tiny_results, monkeypatch: pytest.MonkeyPatch
) -> None:
    act = RandomAgent.act

    def act_or_fail(self: RandomAgent, observation):
        if self.seed == 0:
            raise RuntimeError("the agent broke")
        return act(self, observation)

    monkeypatch.setattr(RandomAgent, "act", act_or_fail)
    sweep = tiny_sweep(name="bad", seeds=3)
    with ResultStore(store_path) as store:
        report = run_sweep(sweep, store, InProcessExecutor())
        assert report.recorded == 2 and [c.seed for c, _ in report.failed] == [0]
        assert "RuntimeError: the agent broke" in report.failed[0][1]
        (failure,) = store.failures()
        assert failure.config == sweep.runs()[0] and failure.sweep == "bad"
        assert "Traceback" in failure.error and "the agent broke" in failure.error
        assert failure.attempts == 1 and len(store) == 2
        run_sweep(sweep, store, InProcessExecutor())  # retried, and failing again
        assert [f.attempts for f in store.failures()] == [2]
        monkeypatch.setattr(RandomAgent, "act", act)
        report = run_sweep(sweep, store, InProcessExecutor())  # fixed: recorded, failure gone
        assert (report.recorded, report.failed) == (1, []) and store.failures() == []
        assert len(store) == 3


def test_a_second_call_skips_finished_runs(filled_store: ResultStore) -> None:
    sweep = tiny_sweep(seeds=3)
    report = run_sweep(sweep, filled_store, InProcessExecutor())
    assert (report.total, report.skipped, report.recorded) == (3, 2, 1)
    assert len(filled_store) == 3
    report = run_sweep(sweep, filled_store, InProcessExecutor())
    assert (report.skipped, report.recorded) == (3, 0)


def test_unregistered_agents_are_refused(store_path: Path) -> None:
    sweep = tiny_sweep().with_overrides(agents=["no-such-agent"])
    with ResultStore(store_path) as store, pytest.raises(ValueError, match="unregistered"):
        run_sweep(sweep, store, InProcessExecutor())


def test_executor_names() -> None:
    assert isinstance(make_executor("local", workers=3), LocalExecutor)
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("slurm")
    with pytest.raises(ValueError, match="workers"):
        LocalExecutor(0)


@pytest.mark.slow
@pytest.mark.skipif(not HAS_RAY, reason='Ray is not installed (pip install "bocvs[ray]")')
def test_ray_gives_the_same_records(tmp_path: Path, reproducible_runs, tiny_results) -> None:
    seen: set[str] = set()
    with (
        ResultStore(tmp_path / "ray.db") as store,
        RayExecutor(num_cpus=2, numerics="reproducible") as executor,
    ):
        report = run_sweep(tiny_sweep(), store, executor, progress=lambda key, *_: seen.add(key))
        assert report.failed == [] and report.recorded == report.total
        ray_runs = store.runs()
    assert_same_traces(ray_runs, reproducible_runs)  # the pins reach Ray's workers too
    for run in ray_runs:
        assert {k: run.provenance[k] for k in PINNED} == PINNED
    assert seen == {r.key for r in ray_runs}

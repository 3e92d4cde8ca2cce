"""Fixtures of the benchmark tests: a tiny sweep's results and stores holding them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from bench_helpers import run_in_process, tiny_sweep

from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import ResultStore, StoredRun


@pytest.fixture(scope="session")
def tiny_results() -> list[RunResult]:
    """Results of :func:`tiny_sweep` (also warms the oracle cache for the workers)."""
    return run_in_process(tiny_sweep())


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "results.db"


@pytest.fixture
def filled_store(store_path: Path, tiny_results: list[RunResult]) -> Iterator[ResultStore]:
    """A store holding the tiny sweep."""
    with ResultStore(store_path) as store:
        store.register_sweep(tiny_sweep())
        for result in tiny_results:
            store.add(result, sweep="tiny")
        yield store


@pytest.fixture
def stored_runs(filled_store: ResultStore) -> list[StoredRun]:
    return filled_store.runs()


@pytest.fixture
def two_agent_store(store_path: Path, tiny_results: list[RunResult]) -> Path:
    """The tiny sweep's random runs, plus the same runs relabelled as a second agent with
    their last step dropped (so that there is something to compare), at one commit."""
    with ResultStore(store_path) as store:
        store.register_sweep(tiny_sweep())
        for result in tiny_results:
            store.add(result, sweep="tiny", git_commit="c" * 40)
            rec = result.record
            fewer = {k: getattr(rec, k)[:-1] for k in ("control_set", "x", "y", "cost", "g")}
            clone = RunResult(
                replace(result.config, agent="etc"),
                replace(rec, agent="etc", **fewer),
                result.provenance,
            )
            store.add(clone, sweep="tiny", git_commit="c" * 40)
    return store_path

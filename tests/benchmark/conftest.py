"""Fixtures of the benchmark tests: a tiny sweep's results and stores holding them."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from bench_helpers import at_commit, run_in_process, tiny_sweep

from bocvs_env.benchmark.cli import main
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
def read_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], Path]]:
    """``read_only(folder)``: a read-only view of a filled ``folder``, undone at teardown.

    A real read-only condition: a read-only bind mount when running as root (where permission
    bits do not stop writes), else the folder itself with its write bits removed. Skips when
    root may not mount.
    """
    undo: list[list[str] | Path] = []

    def view(folder: Path) -> Path:
        if os.geteuid() != 0:
            folder.chmod(0o555)
            undo.append(folder)
            return folder
        target = tmp_path_factory.mktemp("read-only")
        if subprocess.run(["mount", "--bind", str(folder), str(target)]).returncode != 0:
            pytest.skip("root without the right to mount: no read-only folder to test with")
        undo.append(["umount", "--lazy", str(target)])  # even if a failed test left a file open
        remount = ["mount", "-o", "remount,bind,ro", str(target)]
        if subprocess.run(remount).returncode != 0:
            pytest.skip("cannot remount a bind mount read-only")
        return target

    yield view
    for item in reversed(undo):
        if isinstance(item, Path):
            item.chmod(0o755)
        else:
            subprocess.run(item, check=True)


@pytest.fixture
def two_agent_store(store_path: Path, tiny_results: list[RunResult]) -> Path:
    """The tiny sweep's random runs, plus the same runs relabelled as a second agent with
    their last step dropped (so that there is something to compare), at one commit."""
    with ResultStore(store_path) as store:
        store.register_sweep(tiny_sweep())
        for result in tiny_results:
            store.add(at_commit(result, "c" * 40), sweep="tiny")
            rec = result.record
            fewer = {k: getattr(rec, k)[:-1] for k in ("control_set", "x", "y", "cost", "g")}
            clone = RunResult(
                replace(result.config, agent="etc"),
                replace(rec, agent="etc", **fewer),
                result.provenance,
            )
            store.add(at_commit(clone, "c" * 40), sweep="tiny")
    return store_path


@pytest.fixture
def published(two_agent_store: Path, tmp_path: Path) -> Path:
    """:func:`two_agent_store` published into ``tmp_path / "data"`` (its manifest included)."""
    out = tmp_path / "data"
    assert main(["publish", "--store", str(two_agent_store), "--out", str(out)]) == 0
    return out

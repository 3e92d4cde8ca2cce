"""A result store and a published folder are both a :class:`RunSource`: a report written
against the protocol reads the same runs from either."""

from __future__ import annotations

from pathlib import Path

from bocvs_env.benchmark.published import PublishedRuns
from bocvs_env.benchmark.run_source import RunSource
from bocvs_env.benchmark.selection import RunFilter
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.metrics import final_simple_regret


def _final_regrets(source: RunSource) -> tuple[dict[str, float], dict[str, float]]:
    """Through the protocol alone: the final regret of each run of the tiny sweep (selected by
    its keys), and of each ``etc`` run (selected by a filter)."""
    with source:
        sweep = source.sweeps()["tiny"]
        assert len(source) == len(source.done_keys()) == 2 * len(sweep.runs())
        of_sweep = source.runs(sweep.keys())
        of_etc = source.runs(where=RunFilter.of(agents=["etc"]))
    assert {r.config.agent for r in of_sweep} == {"random"}
    assert {r.config.agent for r in of_etc} == {"etc"}
    regrets = [{r.key: final_simple_regret(r.record) for r in runs} for runs in (of_sweep, of_etc)]
    return regrets[0], regrets[1]


def test_a_store_and_a_published_folder_are_run_sources(
    two_agent_store: Path, published: Path
) -> None:
    store, folder = ResultStore(two_agent_store, readonly=True), PublishedRuns(published)
    assert isinstance(store, RunSource) and isinstance(folder, RunSource)
    from_store, from_folder = _final_regrets(store), _final_regrets(folder)
    assert from_store == from_folder and all(from_store)

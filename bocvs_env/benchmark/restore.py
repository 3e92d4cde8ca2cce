"""Restoring a result store from a published folder: :func:`restore_store` adds a folder's runs
and sweeps to a store (``bocvs restore``), so that a sweep resumes after them on a machine that
kept only the published folder."""

from __future__ import annotations

from typing import Any

from bocvs_env.benchmark.published import PublishedRuns
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.benchmark.versions import check_each_sweep


def restore_store(source: PublishedRuns, store: ResultStore, allow_mixed: bool = False) -> int:
    """Add the published runs of ``source`` (and their sweeps) to ``store``; how many it had
    not held (a configuration it holds keeps the store's run).

    The store then resumes a sweep after them (``bocvs run`` skips their configurations) and
    publishes them again as they were: their configuration, steps, final figures and
    provenance (commit, versions, host, times) are kept; what a published folder leaves out is
    not (the queries ``x``, which read back as an empty ``(T, 0)`` array, the noisy ``y``, which
    read back as NaN, and the decision logs).
    This carries a sweep across machines that keep only the published folder.

    Raises:
        MixedVersionsError: before any write, if a sweep's runs, the store's and the folder's
            together, would come from several code versions (or modes), unless ``allow_mixed``
            (a sweep resumes with the code that began it; the folder's sweeps may be of
            different versions).
    """
    runs, sweeps = source.runs(), source.sweeps()  # all read (and checked) before any write
    held = store.sweeps()

    def provenances(keys: set[str]) -> list[dict[str, Any]]:
        return [*store.provenances(keys), *(r.provenance for r in runs if r.key in keys)]

    check_each_sweep({**sweeps, **held}, provenances, allow_mixed)
    for name, sweep in sweeps.items():
        if name not in held:  # a sweep the store records already keeps its configuration
            store.register_sweep(sweep)
    added = 0
    for run in runs:
        provenance = {k: v for k, v in run.provenance.items() if k != "sweep"}
        added += store.add(RunResult(run.config, run.record, provenance), run.sweep)
    return added

"""Where the reports read runs from: a result store or a published folder, opened by its path
(:func:`open_runs`), and the runs of a recorded sweep or a filter in it (:func:`read_runs`),
each agent's of one code version; a published folder of baselines read in place
(:func:`baseline_runs`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from bocvs_env.benchmark.config import SweepConfig
from bocvs_env.benchmark.panels import Panel
from bocvs_env.benchmark.published import PublishedRuns
from bocvs_env.benchmark.run_source import RunSource
from bocvs_env.benchmark.selection import RunFilter
from bocvs_env.benchmark.store import ResultStore, StoredRun
from bocvs_env.benchmark.versions import MixedVersionsError, check_each_agent


def read_runs(
    path: str | Path,
    choose: Callable[[RunSource], SweepConfig | RunFilter | None],
    allow_mixed: bool = False,
) -> tuple[list[StoredRun], SweepConfig | RunFilter | None]:
    """The runs every report reads: those of the sweep that ``choose`` picks in the store or
    published folder at ``path`` (by :meth:`~bocvs_env.benchmark.config.SweepConfig.keys`),
    or those its filter keeps (:class:`~bocvs_env.benchmark.selection.RunFilter`), or all
    runs if it picks ``None``; each agent's of one code version unless ``allow_mixed``
    (:func:`~bocvs_env.benchmark.versions.check_each_agent`); and that choice.

    Raises:
        FileNotFoundError, StoreError: nothing at ``path``, or not a store or published folder.
        ValueError: what ``choose`` raises (e.g. an unknown sweep), or no runs selected.
        MixedVersionsError: an agent's runs of several code versions (one line, naming it
            and them).
    """
    with open_runs(path) as source:
        chosen = choose(source)
        runs = select_runs(source, chosen)
    if not runs:
        what = "the store" if chosen is None else "the selection"
        if isinstance(chosen, SweepConfig):
            what = f"sweep {chosen.name!r}"
        raise ValueError(f"no recorded runs for {what} in {path}")
    check_each_agent(runs, allow_mixed)
    return runs, chosen


def select_runs(source: RunSource, chosen: SweepConfig | RunFilter | None) -> list[StoredRun]:
    """The runs of ``source`` that a sweep (by its keys) or a filter selects; all for ``None``.
    Only the selected runs' steps are read."""
    if isinstance(chosen, SweepConfig):
        return source.runs(chosen.keys())
    return source.runs(where=chosen)


def baseline_runs(
    folder: str | Path,
    panels: Iterable[Panel],
    agents: Iterable[str] | None = None,
    allow_mixed: bool = False,
    of_sweep: str | None = None,
) -> list[StoredRun]:
    """The runs of a published folder (an archive of baselines, read in place) on ``panels``,
    of ``agents`` (``None``: the agents of the folder's sweep ``of_sweep`` if it records one,
    else every agent), each agent's of one code version unless ``allow_mixed``; only those
    runs' steps are read.

    Raises:
        FileNotFoundError: if ``folder`` is not a published folder.
        MixedVersionsError: an agent's runs of several code versions, naming the folder and
            the agent.
    """
    source = PublishedRuns(folder)
    if agents is None and of_sweep is not None:
        sweep = source.sweeps().get(of_sweep)
        agents = None if sweep is None else sweep.agents
    runs = source.runs(where=RunFilter.of(panels=panels, agents=agents))
    try:
        check_each_agent(runs, allow_mixed)
    except MixedVersionsError as err:
        raise MixedVersionsError(f"baselines {folder}: {err}") from None
    return runs


def recorded_sweep(source: RunSource, name: str) -> SweepConfig:
    """The sweep recorded in ``source`` under ``name``.

    Raises:
        ValueError: naming the sweeps ``source`` records, if none is called ``name``.
    """
    recorded = source.sweeps()
    if name not in recorded:
        raise ValueError(f"no sweep {name!r} in {source.path}; it has {sorted(recorded)}")
    return recorded[name]


def open_runs(path: str | Path) -> RunSource:
    """A published folder (a directory) or else a result store (a file), opened for reading.

    Raises:
        FileNotFoundError: if nothing is at ``path``.
        StoreError: if the file is not a result store.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no result store or folder written by bocvs publish at {path}")
    return PublishedRuns(path) if path.is_dir() else ResultStore(path, readonly=True)

"""The options that the report commands of the docs' pages share
(:mod:`bocvs_env.benchmark.report_commands`): which runs they read (``--store`` or ``--data``,
``--sweep``) and the archive they pair them with (``--baselines``, ``--baseline-sweep``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the published format imports torch: only once runs are read
    from bocvs_env.benchmark.config import SweepConfig
    from bocvs_env.benchmark.published import PublishedRuns
    from bocvs_env.benchmark.store import ResultStore, StoredRun


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a report command that reads runs (:func:`report_runs`): ``--store`` or
    ``--data`` (one of them), ``--sweep`` and ``--allow-mixed-versions``."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--store", type=Path, help="a result store")
    source.add_argument("--data", type=Path, help="a folder written by bocvs publish")
    parser.add_argument("--sweep", required=True, help="the recorded sweep, e.g. grid")
    parser.add_argument("--allow-mixed-versions", action="store_true",
                        help="accept runs of several commits or library versions")  # fmt: skip


def add_baseline_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """The options of a report command that pairs its runs by seed with an archive's
    (:func:`baseline_runs`): ``--baselines`` (a store or published folder) and
    ``--baseline-sweep`` (its recorded sweep)."""
    parser.add_argument(
        "--baselines",
        type=Path,
        required=required,
        help="an archive whose runs pair with these by seed, e.g. docs/data",
    )
    parser.add_argument("--baseline-sweep", required=required,
                        help="the archive's recorded sweep, e.g. grid")  # fmt: skip


def report_runs(
    args: argparse.Namespace,
    seeds: Sequence[int] | None = None,
    problems: Sequence[str] | None = None,
) -> list[StoredRun]:
    """The runs a report command reads (options of :func:`add_source_arguments`): those of the
    recorded sweep ``--sweep`` of the folder ``--data``, else of the store ``--store``,
    restricted to these of its seeds and problems (``None``: all), as :func:`~bocvs_env.benchmark.run_sources.read_runs` selects
    them.

    Raises:
        FileNotFoundError, ValueError: as :func:`~bocvs_env.benchmark.run_sources.read_runs`, and naming seeds or problems that
            the sweep does not have.
    """
    return _sweep_runs(
        args.store if args.data is None else args.data,
        args.sweep,
        seeds,
        problems,
        args.allow_mixed_versions,
    )


def baseline_runs(
    args: argparse.Namespace,
    seeds: Sequence[int] | None = None,
    problems: Sequence[str] | None = None,
) -> list[StoredRun]:
    """The archive's runs a report command pairs its own with (options of
    :func:`add_baseline_arguments`): those of the sweep ``--baseline-sweep`` recorded in
    ``--baselines``, restricted as :func:`report_runs` restricts its own; none without
    ``--baselines``. Each agent's runs are of one code version; the archive's may be of another
    version than the command's runs, since a seed fixes the function instance and the initial
    design on any commit and machine.

    Raises:
        ValueError: ``--baselines`` without ``--baseline-sweep`` or the reverse; and as
            :func:`report_runs`.
    """
    if (args.baselines is None) != (args.baseline_sweep is None):
        raise ValueError("--baselines and --baseline-sweep are given together")
    if args.baselines is None:
        return []
    return _sweep_runs(args.baselines, args.baseline_sweep, seeds, problems, allow_mixed=False)


def _sweep_runs(
    path: Path,
    name: str,
    seeds: Sequence[int] | None,
    problems: Sequence[str] | None,
    allow_mixed: bool,
) -> list[StoredRun]:
    """The runs of the sweep ``name`` recorded at ``path``, of these seeds and problems."""
    from bocvs_env.benchmark.run_sources import read_runs, recorded_sweep

    def choose(source: ResultStore | PublishedRuns) -> SweepConfig:
        sweep = recorded_sweep(source, name)
        return sweep.with_overrides(
            seeds=_within(sweep, "seeds", seeds), problems=_within(sweep, "problems", problems)
        )

    return read_runs(path, choose, allow_mixed)[0]


def _within(sweep: SweepConfig, axis: str, wanted: Sequence[Any] | None) -> list[Any] | None:
    """The values of ``sweep``'s ``axis`` that are ``wanted`` (``None``: all of them).

    Raises:
        ValueError: naming the wanted values that the sweep does not have.
    """
    if wanted is None:
        return None
    values = list(getattr(sweep, axis))
    missing = sorted(set(wanted) - set(values))
    if missing:
        raise ValueError(f"sweep {sweep.name!r} has no {axis} {missing}; it has {values}")
    return [v for v in values if v in wanted]

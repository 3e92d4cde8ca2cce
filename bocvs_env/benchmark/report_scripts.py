"""The options and the error line that the docs' report scripts share: which runs they read
(``--store`` or ``--data``, ``--sweep``), the archive they pair them with (``--baselines``,
``--baseline-sweep``), and one line ``<prog>: error: ...`` for bad input."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bocvs_env.benchmark.config import SweepConfig
from bocvs_env.benchmark.run_source import RunSource
from bocvs_env.benchmark.run_sources import read_runs, recorded_sweep
from bocvs_env.benchmark.stored_run import StoredRun


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a report script that reads runs (:func:`script_runs`): ``--store`` or
    ``--data`` (one of them, for :func:`open_runs`), ``--sweep`` and
    ``--allow-mixed-versions``."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--store", type=Path, help="a result store")
    source.add_argument("--data", type=Path, help="a folder written by bocvs publish")
    parser.add_argument("--sweep", required=True, help="the recorded sweep, e.g. grid")
    parser.add_argument("--allow-mixed-versions", action="store_true",
                        help="accept runs of several commits or library versions")  # fmt: skip


def add_baseline_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """The options of a report script that pairs its runs by seed with an archive's
    (:func:`script_baselines`): ``--baselines`` (a store or published folder) and
    ``--baseline-sweep`` (its recorded sweep)."""
    parser.add_argument(
        "--baselines",
        type=Path,
        required=required,
        help="an archive whose runs pair with these by seed, e.g. docs/data",
    )
    parser.add_argument("--baseline-sweep", required=required,
                        help="the archive's recorded sweep, e.g. grid")  # fmt: skip


def print_report(prog: str, page: Callable[[], str]) -> None:
    """Print the page a report script makes (``page()``); when its input is bad (no such store,
    folder or sweep, runs of mixed versions, ...), one line ``<prog>: error: ...`` on stderr
    instead, and exit status 2."""
    try:
        text = page()
    except (OSError, ValueError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        sys.exit(2)
    print(text, end="")


def script_runs(
    args: argparse.Namespace,
    seeds: Sequence[int] | None = None,
    problems: Sequence[str] | None = None,
) -> list[StoredRun]:
    """The runs a report script reads (options of :func:`add_source_arguments`): those of the
    recorded sweep ``--sweep`` restricted to these of its seeds and problems (``None``: all),
    as :func:`read_runs` selects them.

    Raises:
        FileNotFoundError, ValueError: as :func:`read_runs`, and naming seeds or problems that
            the sweep does not have.
    """
    return _sweep_runs(
        args.store or args.data, args.sweep, seeds, problems, args.allow_mixed_versions
    )


def script_baselines(
    args: argparse.Namespace,
    seeds: Sequence[int] | None = None,
    problems: Sequence[str] | None = None,
) -> list[StoredRun]:
    """The archive's runs a report script pairs its own with (options of
    :func:`add_baseline_arguments`): those of the sweep ``--baseline-sweep`` recorded in
    ``--baselines``, restricted as :func:`script_runs` restricts its own; none without
    ``--baselines``. Each agent's runs are of one code version; the archive's may be of another
    version than the script's runs, since a seed fixes the function instance and the initial
    design on any commit and machine.

    Raises:
        ValueError: ``--baselines`` without ``--baseline-sweep`` or the reverse; and as
            :func:`script_runs`.
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

    def choose(source: RunSource) -> SweepConfig:
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

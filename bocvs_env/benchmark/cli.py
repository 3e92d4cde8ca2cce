"""``bocvs``: run benchmark sweeps into a result store, and report on them.

Examples::

    bocvs run --preset quick                       # progress, then a table and the plots' path
    bocvs run --preset paper --executor ray --ray-address auto
    bocvs run --problems hartmann3 --agents random etc --seeds 5 --budgets 20 --name mine
    bocvs run --config sweep.toml --workers 2
    bocvs status                                   # every sweep in the store, done / total
    bocvs status --data docs/data                  # the same for a published folder
    bocvs plot --preset quick --out figures/
    bocvs table --sweep mine
    bocvs export --out runs.parquet --level runs   # all runs of the store
    bocvs compare --sweep paper --agent etc        # paired intervals, win / tie / loss
    bocvs compare --sweep grid --against old.db    # each agent against its runs in old.db
    bocvs compare --baselines docs/data            # every agent against the published ones
    bocvs leaderboard --data docs/data             # ranks, W/T/L, data profiles (--figure)
    bocvs publish --sweep paper --out docs/data    # the published tables the docs read
    bocvs verify --data docs/data --sample 20      # rerun 20 published runs: identical?
    bocvs seal docs/data                           # a manifest for an older published folder
    bocvs restore --data docs/data --store results/grid/bocvs.db   # resume after its runs
    bocvs table --data docs/data --sweep paper     # reports from published tables

A sweep is a preset, a config file (``.toml``/``.json``, see :mod:`bocvs_env.benchmark.config`)
or flags; flags override a preset's or a file's fields. The reports (``plot``, ``table``,
``export``, ``compare``, ``leaderboard``) take the sweep's runs, the runs of a recorded sweep
(``--sweep``), with flags alone every run matching each flag given (an axis without a flag is
not filtered: every agent, seed, cost set ... present), or else every run in the store.

A sweep's recorded definition is replaced only from its config file or by extending it with
``--sweep NAME`` and flags. A sweep built from flags (or a preset changed by flags) without
``--name`` is named after its definition, ``cli-<digest>`` (``quick-<digest>``), so that two
such sweeps never share a name, and running the same flags again resumes the same sweep; with
``--name`` it must match the definition recorded under that name, if any.

``status``, ``table``, ``export`` and ``plot`` only read the store, and work on a store the user
cannot write (``plot`` writes its PNGs to ``--out``, by default a folder beside the store).
Every error ends in one line, ``bocvs <command>: error: ...``, naming the file,
the run or the option, with exit status 2; nothing stored is changed.

Reports (``plot``, ``table``, ``compare``, ``export``, ``publish``) read a store, or a folder
written by ``publish`` (``--data``), and refuse runs of several code versions
(:mod:`bocvs_env.benchmark.versions`) or numerics modes unless given ``--allow-mixed-versions``;
so does ``run``, before it adds runs to a sweep whose stored runs another code version made, or
to a store whose runs were made in another numerics mode.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bocvs_env.benchmark import cli_parser
from bocvs_env.benchmark.cli_parser import default_store
from bocvs_env.benchmark.trust import allowed_by, check_recorded_runs

# The store, the executors and the runs import torch (about 2 s): each command imports them
# when it runs, so that ``bocvs --help`` and argument errors answer at once.
if TYPE_CHECKING:
    from bocvs_env.benchmark.comparison_reports import Pairing
    from bocvs_env.benchmark.config import SweepConfig
    from bocvs_env.benchmark.selection import RunFilter
    from bocvs_env.benchmark.store import StoredRun
    from bocvs_env.benchmark.sweep_choice import SweepChoice


def _choice(args: argparse.Namespace) -> SweepChoice:
    """The sweep options given (a preset, a config file, a recorded sweep, flags)."""
    from bocvs_env.benchmark.sweep_choice import SweepChoice

    return SweepChoice(**{f.name: getattr(args, f.name) for f in fields(SweepChoice)})


def _report_runs(
    args: argparse.Namespace,
) -> tuple[list[StoredRun], SweepConfig | RunFilter | None]:
    """The runs a report command selects (store or ``--data``), of one code version."""
    from bocvs_env.benchmark.run_sources import read_runs

    return read_runs(args.data or args.store, _choice(args).selection, args.allow_mixed_versions)


def _plot_dir(args: argparse.Namespace, chosen: SweepConfig | RunFilter | None) -> Path:
    """``--out``, else the chosen sweep's folder beside the store or ``--data`` folder read."""
    from bocvs_env.benchmark.sweep_choice import plot_folder

    return args.out or plot_folder(getattr(args, "data", None) or args.store, chosen)


def _cmd_run(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.agent_output import stdout_to_stderr
    from bocvs_env.benchmark.comparison_reports import Pairing
    from bocvs_env.benchmark.recording import RecordOptions, record_sweep, sweep_to_run

    _check_variants(args)
    options = RecordOptions(args.executor, args.workers, args.ray_address, args.numerics,
                            args.run_timeout, args.quiet, args.allow_mixed_versions)  # fmt: skip
    choice, baselines = _choice(args), args.baselines or []
    with stdout_to_stderr():  # stdout carries the results only, not what agents print
        sweep = sweep_to_run(choice, args.store, allowed_by(args), args.check_timeout, baselines)
        recorded = record_sweep(sweep, args.store, choice, options)
    if recorded.mixed is not None:
        print(f"bocvs run: no table or plots: {recorded.mixed}", file=sys.stderr)
    if recorded.runs:
        plots = None if args.no_plot else _plot_dir(args, sweep)
        pairing = Pairing(with_variants=args.with_variants)
        _print_sweep_report(recorded.runs, plots, baselines, args.allow_mixed_versions, pairing)
    failed = recorded.report.failed
    if failed:
        config, error = failed[0]
        print(f"{len(failed)} runs failed; the first, {config.label()}:\n{error}",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def _print_sweep_report(
    runs: list[StoredRun],
    plots: Path | None,
    baselines: Sequence[Path],
    allow_mixed: bool,
    pairing: Pairing,
) -> None:
    """The summary table of a sweep's runs, its takeaways, the plots' paths (written into
    ``plots``, unless ``None``) and the comparison with the ``baselines`` folders."""
    from bocvs_env.benchmark.comparison_reports import baselines_comparison
    from bocvs_env.benchmark.tables import summary_markdown, takeaway

    print(summary_markdown(runs))
    for line in takeaway(runs):
        print(line + "\n")
    if plots is not None:
        paths = _save_figures(runs, plots)
        print(f"plot: {paths[0]}")
        print(f"other plots: {', '.join(str(p) for p in paths[1:])}")
    if baselines:
        print("\n" + baselines_comparison(runs, baselines, allow_mixed, pairing)[0])


def _save_figures(runs: Sequence[StoredRun], folder: Path) -> list[Path]:
    """:func:`bocvs_env.benchmark.plots.save_figures`, or an ``ImportError`` saying how to get
    matplotlib (the ``plot`` extra)."""
    try:
        from bocvs_env.benchmark.plots import save_figures
    except ModuleNotFoundError as err:
        missing = (err.name or "matplotlib").split(".")[0]
        raise ImportError(
            f'plots need {missing}: pip install "bocvs[plot]" (or pass --no-plot)'
        ) from err
    return save_figures(runs, folder)


def _cmd_status(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.run_sources import open_runs
    from bocvs_env.benchmark.sweep import status_lines

    with open_runs(args.data or args.store) as source:
        sweep = _choice(args).sweep_config(source)
        lines = status_lines(source, None if sweep is None else [sweep])
    print("\n".join(lines))
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    runs, chosen = _report_runs(args)
    for path in _save_figures(runs, _plot_dir(args, chosen)):
        print(path)
    return 0


def _cmd_table(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.tables import summary_markdown

    runs, _ = _report_runs(args)
    return _emit(summary_markdown(runs), args.out)


def _emit(text: str, out: Path | None) -> int:
    """Write a report to ``out`` (whole or not at all) and print its path, or print it; exit
    status 0."""
    if out is not None:
        from bocvs_env.benchmark.atomic import write_file

        print(write_file(out, lambda tmp: tmp.write_text(text)))
    else:
        print(text)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.export import runs_frame, steps_frame, write_frame

    runs, _ = _report_runs(args)
    frame = (runs_frame if args.level == "runs" else steps_frame)(runs)
    print(write_frame(frame, args.out))
    return 0


def _pairing(args: argparse.Namespace) -> Pairing:
    """Who ``bocvs compare`` pairs with whom, and its bootstrap."""
    from bocvs_env.benchmark.comparison_reports import Pairing

    return Pairing(args.agent, args.reference, args.metrics, args.resamples, args.level,
                   args.bootstrap_seed, args.with_variants)  # fmt: skip


def _check_variants(args: argparse.Namespace) -> None:
    """Refuse ``--with-variants`` without ``--baselines``, which it chooses the agents of."""
    if args.with_variants and not args.baselines:
        raise ValueError("--with-variants goes with --baselines")


def _cmd_compare(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.comparison_reports import (
        baselines_comparison,
        store_comparison,
        write_rows,
    )

    _check_variants(args)
    runs, _ = _report_runs(args)
    mixed = args.allow_mixed_versions
    if args.baselines:
        if args.against is not None:
            raise ValueError("give --baselines or --against, not both")
        text, comparisons = baselines_comparison(runs, args.baselines, mixed, _pairing(args))
    else:
        text, comparisons = store_comparison(runs, args.against, mixed, _pairing(args))
    write_rows(comparisons, args.json, args.csv)
    print(text)
    return 0


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.comparison_reports import leaderboard_page

    runs, _ = _report_runs(args)
    baselines = args.baselines or []
    page = leaderboard_page(runs, baselines, args.allow_mixed_versions, args.figure, args.out)
    return _emit(page, args.out)


def _cmd_publish(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.publish import publish
    from bocvs_env.benchmark.run_sources import open_runs, read_runs

    # publish checks each sweep and each agent, naming the sweep first (not the whole folder)
    runs, _ = read_runs(args.data or args.store, _choice(args).selection, True)
    with open_runs(args.data or args.store) as source:
        sweeps = source.sweeps()
    for path in publish(runs, sweeps, args.out, args.force, args.allow_mixed_versions):
        print(f"{path} ({path.stat().st_size / 1e6:.2f} MB)")
    return 0


def _cmd_seal(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.manifest import seal

    print(seal(args.folder))
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.published import PublishedRuns
    from bocvs_env.benchmark.restore import restore_store
    from bocvs_env.benchmark.store import ResultStore

    source = PublishedRuns(args.data)  # its manifest and steps checked before the store opens
    with ResultStore(args.store) as store:
        added = restore_store(source, store, args.allow_mixed_versions)
        total = len(store)
    print(f"{args.store}: {added} runs added from {args.data}, {total} in all")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.executors import LocalExecutor
    from bocvs_env.benchmark.run_sources import open_runs
    from bocvs_env.benchmark.verify import (
        Check,
        outcome,
        rerun,
        select_runs,
        verdict_agreement,
        verify_markdown,
    )
    from bocvs_env.benchmark.versions import this_version

    with open_runs(args.data) as source:
        published = source.runs(None)
    seeds = range(args.seeds) if isinstance(args.seeds, int) else args.seeds
    sample = select_runs(published, args.sample, args.seed, seeds, args.agents)
    check_recorded_runs([r.config for r in sample], allowed_by(args))  # before any rerun
    print(f"bocvs verify: rerunning {len(sample)} runs of {args.data} at {this_version()} in "
          f"{args.numerics} mode", file=sys.stderr)  # fmt: skip

    def say(check: Check) -> None:
        versions = f" ({check.versions()})" if check.rerun is not None else ""
        print(f"  {check.run.config.label()}: {outcome(check)}{versions}", file=sys.stderr,
              flush=True)  # fmt: skip

    with LocalExecutor(args.workers, args.numerics) as executor:
        checks = rerun(sample, executor, say)
    print(verify_markdown(checks, verdict_agreement(published, checks)))
    identical = all(c.rerun is not None and c.divergence() is None for c in checks)
    return 0 if identical else 1


def build_parser() -> argparse.ArgumentParser:
    """The ``bocvs`` argument parser (:func:`bocvs_env.benchmark.cli_parser.build_parser`), each
    subcommand calling its command of this module."""
    commands = {
        "run": _cmd_run,
        "status": _cmd_status,
        "plot": _cmd_plot,
        "table": _cmd_table,
        "export": _cmd_export,
        "compare": _cmd_compare,
        "leaderboard": _cmd_leaderboard,
        "publish": _cmd_publish,
        "seal": _cmd_seal,
        "restore": _cmd_restore,
        "verify": _cmd_verify,
    }
    return cli_parser.build_parser(commands)


def _one_line(err: BaseException, store: Path) -> str:
    """An error as one line naming what it is about (an OS error's file, SQLite's store)."""
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        text = f"{err.filename}: {err.strerror}"
    elif isinstance(err, sqlite3.Error):
        text = f"{store}: {err}"
    else:
        text = str(err) or type(err).__name__
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bocvs`` console script; returns the exit status."""
    args: Any = build_parser().parse_args(argv)
    if args.store is None:
        args.store = default_store(getattr(args, "preset", None))
    from bocvs_env.benchmark.signals import exit_status, signal_name, stopped_by_signals
    from bocvs_env.benchmark.store import StoreError

    try:
        with stopped_by_signals():  # SIGTERM and SIGHUP as Ctrl-C
            return int(args.func(args))
    except BrokenPipeError:
        # The reader went away (``bocvs table | head``): stop quietly, as Unix tools do, and keep
        # the interpreter's final flush from raising again on the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # killed by SIGPIPE, in the shell's terms
    except (ValueError, TypeError, OSError, ImportError, StoreError, sqlite3.Error) as err:
        print(f"bocvs {args.command}: error: {_one_line(err, args.store)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as err:
        by = "" if exit_status(err) == 130 else f" by {signal_name(err)}"
        kept = "; finished runs are kept, run again to resume" if args.command == "run" else ""
        print(f"\nbocvs {args.command}: interrupted{by}{kept}", file=sys.stderr)
        return exit_status(err)

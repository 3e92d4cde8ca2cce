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
import csv
import functools
import json
import os
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bocvs_env.benchmark import report_commands
from bocvs_env.benchmark.agent_check import CHECK_TIMEOUT
from bocvs_env.benchmark.config import (
    MAX_SEEDS,
    SWEEP_PRESETS,
    SweepConfig,
    check_run_timeout,
    preset,
)
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, LEVEL, RESAMPLES
from bocvs_env.benchmark.trust import (
    add_allow_options,
    allowed_by,
    check_recorded_runs,
    check_recorded_sweep,
)
from bocvs_env.experiment.cli import add_experiment_command
from bocvs_env.numerics import DEFAULT, MODES
from bocvs_env.registration import problem_listing

# The store, the executors and the runs import torch (about 2 s): each command imports them
# when it runs, so that ``bocvs --help`` and argument errors answer at once.
if TYPE_CHECKING:
    from bocvs_env.benchmark.compare import PairedComparison
    from bocvs_env.benchmark.published import PublishedRuns
    from bocvs_env.benchmark.selection import RunFilter
    from bocvs_env.benchmark.store import ResultStore, StoredRun
    from bocvs_env.benchmark.sweep import SweepReport

DEFAULT_STORE = Path("results") / "bocvs.db"


def default_store(preset_name: str | None) -> Path:
    """The store of a command without ``--store``: a preset's own, ``results/<preset>.db``, else
    :data:`DEFAULT_STORE`. A store holds runs of one numerics mode, and the presets ask for
    ``reproducible`` while sweeps of one's own run ``fast`` by default: each in its own store,
    the README's commands work one after the other."""
    return DEFAULT_STORE if preset_name is None else DEFAULT_STORE.with_name(f"{preset_name}.db")


EPILOG = """\
exit status: 0 done; 1 some runs failed (the others are recorded; run again to retry);
2 bad usage or input (unknown option, preset, problem or agent, a missing or corrupt store);
130 interrupted by Ctrl-C (SIGINT), 143 by SIGTERM, 129 by SIGHUP (finished runs are kept;
run again to resume; a signal the process was started ignoring, as `nohup` does SIGHUP and a
shell script's `&` job SIGINT, stays ignored); 141 the reader of the output went away
(`bocvs table | head`), as for other Unix tools.

output: results (tables, plot paths) go to stdout; progress and errors to stderr. Progress is
drawn as bars on a terminal and as plain lines otherwise (logs, pipes, CI); -q hides it.
Tables and plots give the mean over seeds ± one standard error (std / sqrt(seeds)).
"""


def _positive(text: str) -> int:
    """An integer of at least 1 (``--workers``), checked before the store is created."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _seconds(text: str) -> float:
    """A time limit in seconds (``--run-timeout``): a finite number > 0."""
    try:
        seconds = float(text)
        check_run_timeout(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds > 0, got {text!r}"
        ) from None
    return seconds


def _seeds(text: str) -> int | list[int]:
    """``"5"`` -> 5 seeds (0..4); ``"0,3,7"`` -> those seeds; ``"5-9"`` -> seeds 5 to 9, also
    inside a list: ``"0,3-5"`` -> 0, 3, 4, 5 (``"7-7"``: seed 7 alone)."""
    try:
        if "," not in text and "-" not in text:
            count = int(text)
            if count > MAX_SEEDS:
                raise OverflowError
            return count
        seeds: list[int] = []
        for part in text.split(","):
            lo, dash, hi = part.partition("-")
            if dash and int(hi) < int(lo):
                raise ValueError(part)
            if len(seeds) + (int(hi) - int(lo) if dash else 0) >= MAX_SEEDS:
                raise OverflowError
            seeds += list(range(int(lo), int(hi) + 1)) if dash else [int(part)]
        return seeds
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"seeds: a count, a comma list or a range such as 5-9, got {text!r}"
        ) from None
    except OverflowError:
        raise argparse.ArgumentTypeError(
            f"seeds: at most {MAX_SEEDS} per sweep, got {text!r}"
        ) from None


def _default(axis: str) -> str:
    """A :class:`SweepConfig` axis's default, as ``--help`` shows it: ``"cheap"``, ``"0.02"``."""
    return " ".join(str(v) for v in getattr(SweepConfig, axis))  # a field's default


def _add_sweep_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("the sweep (a preset, a config file, or flags)")
    g.add_argument("--preset", choices=sorted(SWEEP_PRESETS), help="a shipped sweep")
    g.add_argument("--config", type=Path, help="a sweep config file (.toml or .json); bocvs "
                   "run trusts it as a script, importing its agents and loading the model files "
                   "it names (a saved SB3 model is a pickle: loading it runs code)")  # fmt: skip
    g.add_argument("--sweep", help="a sweep recorded in the store, by name")
    g.add_argument("--name", help="the sweep's name in the store")
    g.add_argument("--problems", nargs="+", help="problem names (bocvs run --help lists them)")
    g.add_argument("--cost-sets", nargs="+", help=f"cost-set names (default "
                   f"{_default('cost_sets')}; bocvs run --help lists each problem's)")  # fmt: skip
    g.add_argument("--variances", nargs="+", type=float,
                   help=f"input variances in (0, 1/12) (default {_default('variances')})")  # fmt: skip
    g.add_argument("--budgets", nargs="+", type=float,
                   help="budgets (default: each problem's default budget)")  # fmt: skip
    g.add_argument(
        "--agents",
        nargs="+",
        help="registered names (entry points bocvs.agents) or module:Class, each optionally "
        "name@variant (a variant with its own agent_params, from a config file)",
    )
    g.add_argument(
        "--seeds", type=_seeds,
        help=f"a count (0..n-1), a comma list, or a range: 5-9, 0-0 (at most {MAX_SEEDS})",
    )  # fmt: skip
    p.add_argument("--store", type=Path, help=f"default {DEFAULT_STORE}; with --preset NAME, "
                   f"{DEFAULT_STORE.parent / 'NAME.db'}")  # fmt: skip


def _add_report_options(p: argparse.ArgumentParser) -> None:
    _add_sweep_options(p)
    p.add_argument("--data", type=Path, help="read a folder written by bocvs publish, not --store")
    p.add_argument("--allow-mixed-versions", action="store_true",
                   help="accept runs of several commits, library versions or numerics "
                        "modes")  # fmt: skip


def _sweep(
    args: argparse.Namespace, store: ResultStore | PublishedRuns | None = None
) -> SweepConfig | None:
    """The sweep the options describe, or ``None`` when they describe none."""
    sources = [s for s in (args.preset, args.config, args.sweep) if s is not None]
    if len(sources) > 1:
        raise ValueError("give at most one of --preset, --config and --sweep")
    overrides = {
        "name": args.name,
        "problems": args.problems,
        "cost_sets": args.cost_sets,
        "variances": args.variances,
        "budgets": args.budgets,
        "agents": args.agents,
        "seeds": args.seeds,
    }
    if args.preset is not None:
        base = preset(args.preset)
    elif args.config is not None:
        base = SweepConfig.from_file(args.config)
    elif args.sweep is not None:
        from bocvs_env.benchmark.run_sources import recorded_sweep

        if store is None:
            raise ValueError(f"--sweep {args.sweep} names a recorded sweep: give its store")
        base = recorded_sweep(store, args.sweep)
    elif all(v is None for v in overrides.values()):
        return None
    else:
        if args.problems is None:
            raise ValueError("a sweep from flags needs --problems (or use --preset/--config)")
        base = SweepConfig(name="cli", problems=args.problems)
    return _named(args, base, base.with_overrides(**overrides))


def _named(args: argparse.Namespace, base: SweepConfig, sweep: SweepConfig) -> SweepConfig:
    """``sweep``, renamed ``<base name>-<digest>`` when built from flags without ``--name``."""
    if args.name is None and _from_flags(args) and (args.preset is None or sweep != base):
        return sweep.with_overrides(name=f"{base.name}-{sweep.digest()}")
    return sweep


def _from_flags(args: argparse.Namespace) -> bool:
    """Whether the sweep is built from flags (or a preset and flags), not a file or a record."""
    return args.config is None and args.sweep is None


def _check_name(args: argparse.Namespace, sweep: SweepConfig, store: ResultStore) -> None:
    """Refuse a sweep built from flags under a name that a different definition holds."""
    recorded = store.sweeps().get(sweep.name)
    if _from_flags(args) and recorded not in (None, sweep):
        raise ValueError(
            f"{store.path} already holds a different sweep named {sweep.name!r}; choose "
            f"another --name, or extend that one with --sweep {sweep.name} and flags"
        )


def _selection(
    args: argparse.Namespace, source: ResultStore | PublishedRuns
) -> SweepConfig | RunFilter | None:
    """What a report reads: a preset's, a config file's or a recorded sweep's runs (changed by
    flags), or, with flags alone, every run matching each flag given
    (:class:`~bocvs_env.benchmark.selection.RunFilter`: every agent, seed, ... present by
    default); ``None`` for every run."""
    if any(s is not None for s in (args.preset, args.config, args.sweep)):
        return _sweep(args, source)
    from bocvs_env.benchmark.selection import RunFilter

    axes = (args.problems, args.cost_sets, args.variances, args.budgets, args.agents)
    seeds = args.seeds
    if all(v is None for v in axes) and seeds is None:
        return None
    if isinstance(seeds, int):
        seeds = range(seeds)
    return RunFilter.of(*axes, seeds=seeds)


def _report_runs(
    args: argparse.Namespace,
) -> tuple[list[StoredRun], SweepConfig | RunFilter | None]:
    """The runs a report command selects (store or ``--data``), of one code version."""
    from bocvs_env.benchmark.run_sources import read_runs

    choose = functools.partial(_selection, args)
    return read_runs(args.data or args.store, choose, args.allow_mixed_versions)


def _plot_dir(args: argparse.Namespace, sweep: SweepConfig | RunFilter | None) -> Path:
    """``--out``, else the sweep's folder beside the store or the ``--data`` folder read (a
    sweep's name is never a path)."""
    source = getattr(args, "data", None) or args.store
    return args.out or source.parent / (sweep.name if sweep is not None else "all")


def _cmd_run(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.agent_output import stdout_to_stderr

    with stdout_to_stderr():  # stdout carries the results only, not what agents print
        sweep = _sweep_to_run(args)
        report, runs = _record_sweep(args, sweep)
    if runs:
        _print_sweep_report(args, sweep, runs)
    if report.failed:
        config, error = report.failed[0]
        print(f"{len(report.failed)} runs failed; the first, {config.label()}:\n{error}",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def _sweep_to_run(args: argparse.Namespace) -> SweepConfig:
    """The sweep ``bocvs run`` runs, checked whole (its agents, its ``--baselines`` folders)
    before any store is created or written."""
    from bocvs_env.benchmark.store import ResultStore
    from bocvs_env.benchmark.sweep import check_outside_agents, check_sweep

    if args.sweep is not None:  # resume a recorded sweep: its store must exist
        with ResultStore(args.store, readonly=True) as store:
            sweep = _sweep(args, store)
        if sweep is not None:  # a record's agents run only if registered or allowed
            check_recorded_sweep(sweep, allowed_by(args))
    else:
        sweep = _sweep(args)
    if sweep is None:
        raise ValueError("bocvs run needs a sweep: --preset, --config or --problems ...")
    check_sweep(sweep)  # whole, before the store is created or written
    check_outside_agents(sweep, args.check_timeout)  # a short episode of each outside agent
    if args.baselines:
        from bocvs_env.benchmark.published import PublishedRuns

        for folder in args.baselines:  # a wrong folder fails now, not after the sweep
            PublishedRuns(folder)
    return sweep


def _record_sweep(
    args: argparse.Namespace, sweep: SweepConfig
) -> tuple[SweepReport, list[StoredRun]]:
    """Runs ``sweep``'s pending runs into ``--store`` with progress on the terminal: the report,
    and the sweep's stored runs if they are of one code version (else none, said on stderr)."""
    from bocvs_env.benchmark.agent_sources import check_agent_sources
    from bocvs_env.benchmark.executors import make_executor
    from bocvs_env.benchmark.progress import SweepProgress, progress_mode
    from bocvs_env.benchmark.store import ResultStore
    from bocvs_env.benchmark.sweep import pending_runs, run_sweep
    from bocvs_env.benchmark.versions import (
        MixedVersionsError,
        check_one_version,
        check_resumable,
        check_store_numerics,
    )
    from bocvs_env.numerics import worker_numerics

    labels = {c.key(): c.label() for c in sweep.runs()}
    shown = SweepProgress(sweep.name, labels, progress_mode(args.quiet))
    with ResultStore(args.store) as store:
        _check_name(args, sweep, store)
        check_agent_sources(sweep, store)
        numerics = worker_numerics(args.numerics, sweep.numerics)
        if pending_runs(sweep, store)[0]:  # runs to add: of this code and the store's mode
            check_resumable(store.provenances(sweep.keys()), args.allow_mixed_versions)
            check_store_numerics(store.provenances(), numerics, args.allow_mixed_versions)
        timeout = sweep.run_timeout if args.run_timeout is None else args.run_timeout
        executor = make_executor(args.executor, args.workers, args.ray_address, numerics, timeout)
        t0 = time.perf_counter()
        try:
            with executor:
                report = run_sweep(sweep, store, executor, shown.on_outcome, shown.progress,
                                   shown.on_start, shown.say)  # fmt: skip
        finally:  # so that an error starts a line of its own
            shown.close()
        shown.say(_recorded_line(report, time.perf_counter() - t0, args.store))
        runs = store.runs(sweep.keys())
    try:
        check_one_version([r.provenance for r in runs], args.allow_mixed_versions)
    except MixedVersionsError as err:
        print(f"bocvs run: no table or plots: {err}", file=sys.stderr)
        runs = []
    return report, runs


def _recorded_line(report: SweepReport, seconds: float, store: Path) -> str:
    """What a ``bocvs run`` did, in a line: runs recorded, skipped, failed, left to another
    ``bocvs run`` on the store, and where the logs of the runs that printed are."""
    elsewhere = f", {report.elsewhere} by another bocvs run" if report.elsewhere else ""
    logs = f"; what {len(report.logs)} runs printed: {report.logs[0].parent}" if report.logs else ""
    return (
        f"recorded {report.recorded} runs in {seconds:.1f} s ({report.skipped} skipped, "
        f"{len(report.failed)} failed{elsewhere}) in {store}{logs}"
    )


def _print_sweep_report(
    args: argparse.Namespace, sweep: SweepConfig, runs: list[StoredRun]
) -> None:
    """The summary table of a sweep's runs, its takeaways, the plots' paths (unless
    ``--no-plot``) and the comparison with ``--baselines``."""
    from bocvs_env.benchmark.tables import summary_markdown, takeaway

    print(summary_markdown(runs))
    for line in takeaway(runs):
        print(line + "\n")
    if not args.no_plot:
        paths = _save_figures(runs, _plot_dir(args, sweep))
        print(f"plot: {paths[0]}")
        print(f"other plots: {', '.join(str(p) for p in paths[1:])}")
    if args.baselines:
        print("\n" + _baselines_report(runs, args.baselines, args.allow_mixed_versions)[0])


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
    from bocvs_env.benchmark.store import ResultStore, writable_here
    from bocvs_env.benchmark.sweep import pending_runs

    with open_runs(args.data or args.store) as source:
        sweep = _sweep(args, source)
        sweeps = [sweep] if sweep is not None else list(source.sweeps().values())
        store = source if isinstance(source, ResultStore) else None
        note = ""
        if store is not None and not writable_here(store.path):
            note = " (read-only here: bocvs run cannot add to it)"
        print(f"{source.path}: {len(source)} runs{note}")
        for s in sweeps:
            pending, done = pending_runs(s, source)
            failed = len(store.failures(c.key() for c in pending)) if store is not None else 0
            print(
                f"  sweep {s.name!r}: {done} / {done + len(pending)} done"
                + (f", {failed} failed (run it again to retry)" if failed else "")
            )
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:

    runs, sweep = _report_runs(args)
    for path in _save_figures(runs, _plot_dir(args, sweep)):
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


#: How runs of two code versions pair up, said under a comparison with published baselines.
PAIRING_NOTE = (
    "Runs pair by panel and seed: a seed fixes the function instance and the initial design on "
    "any machine, so runs of different commits and machines pair up validly; bit-identical "
    "traces are not expected across kinds of CPU. The baselines' seeds that your runs lack are left "
    "out."
)


def _baselines_report(
    runs: Sequence[StoredRun],
    folders: Sequence[Path],
    allow_mixed: bool,
    agent: str | None = None,
    reference: str | None = None,
    metrics: Sequence[str] = ("final", "area"),
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    bootstrap_seed: int = BOOTSTRAP_SEED,
) -> tuple[str, list[PairedComparison]]:
    """The agents of ``runs`` against every agent of the published ``folders`` (read in place,
    on the panels of ``runs`` only): the markdown report and its comparisons."""
    from bocvs_env.benchmark.compare import compare_baselines, comparison_markdown
    from bocvs_env.benchmark.panels import Panel
    from bocvs_env.benchmark.run_sources import baseline_runs
    from bocvs_env.benchmark.versions import sides_line

    panels = {Panel.of(r) for r in runs}
    agents = None if reference is None else [reference]
    archives = [baseline_runs(f, panels, agents, allow_mixed) for f in folders]
    comparisons = compare_baselines(runs, archives, agent, reference, metric_names=metrics,
                                    n_resamples=resamples, level=level, seed=bootstrap_seed)  # fmt: skip
    theirs = [r for archive in archives for r in archive]
    head = sides_line(runs, theirs) + "\n\n" + PAIRING_NOTE + "\n\n"
    return head + comparison_markdown(comparisons), comparisons


def _cmd_compare(args: argparse.Namespace) -> int:
    runs, _ = _report_runs(args)
    if args.baselines:
        if args.against is not None:
            raise ValueError("give --baselines or --against, not both")
        text, comparisons = _baselines_report(
            runs, args.baselines, args.allow_mixed_versions, args.agent, args.reference,
            args.metrics, args.resamples, args.level, args.bootstrap_seed,
        )  # fmt: skip
    else:
        text, comparisons = _store_comparison_report(args, runs)
    _write_comparison_rows(args, comparisons)
    print(text)
    return 0


def _store_comparison_report(
    args: argparse.Namespace, runs: list[StoredRun]
) -> tuple[str, list[PairedComparison]]:
    """The agents of ``runs`` against ``--reference`` (or one another), or, with ``--against``,
    each against its own runs there: the markdown report and its comparisons."""
    from bocvs_env.benchmark.compare import compare_runs, compare_versions, comparison_markdown
    from bocvs_env.benchmark.versions import short_commit, versions_line

    others: list[StoredRun] = []
    if args.against is None:
        comparisons = compare_runs(runs, args.agent, args.reference, args.metrics,
                                   args.resamples, args.level, args.bootstrap_seed)  # fmt: skip
    else:
        others = _against_runs(args, runs)
        tag = short_commit(others[0].provenance) if others else "other"
        agents = None if args.agent is None else [args.agent]
        comparisons = compare_versions(runs, others, tag, agents, args.metrics, args.resamples,
                                       args.level, args.bootstrap_seed)  # fmt: skip
    text = versions_line([*runs, *others]) + "\n\n"
    return text + comparison_markdown(comparisons), comparisons


def _against_runs(args: argparse.Namespace, runs: list[StoredRun]) -> list[StoredRun]:
    """The runs of ``--against`` of the agents in ``runs``, of one code version."""
    from bocvs_env.benchmark.run_sources import open_runs
    from bocvs_env.benchmark.versions import check_one_version

    if args.reference is not None:
        raise ValueError("--against compares each agent with itself; leave out --reference")
    with open_runs(args.against) as source:
        names = {r.config.agent for r in runs}
        others = [r for r in source.runs(None) if r.config.agent in names]
    check_one_version([r.provenance for r in others], args.allow_mixed_versions)
    return others


def _write_comparison_rows(args: argparse.Namespace, comparisons: list[PairedComparison]) -> None:
    """The comparisons' rows into ``--json`` and ``--csv``, where given."""
    if args.json is not None:
        args.json.write_text(json.dumps([c.row() for c in comparisons], indent=1) + "\n")
    if args.csv is not None:
        rows = [c.row() for c in comparisons]
        with args.csv.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.compare import as_baselines
    from bocvs_env.benchmark.leaderboard import (
        by_agent_name,
        leaderboard,
        leaderboard_markdown,
        save_profile_figure,
    )
    from bocvs_env.benchmark.panels import Panel
    from bocvs_env.benchmark.run_sources import baseline_runs
    from bocvs_env.benchmark.versions import sides_line, versions_line

    runs, _ = _report_runs(args)
    runs = by_agent_name(runs)
    head = versions_line(runs)
    baselines = None
    if args.baselines:
        panels = {Panel.of(r) for r in runs}
        archive = [r for f in args.baselines for r in baseline_runs(f, panels, None,
                                                                     args.allow_mixed_versions)]  # fmt: skip
        theirs = as_baselines(archive)
        baselines = sorted({r.config.agent for r in theirs})
        head = sides_line(runs, archive)
        head += "\n\n" + PAIRING_NOTE
        runs = [*runs, *theirs]
    groups = leaderboard(runs, baselines)
    figure = None
    if args.figure is not None:
        save_profile_figure(groups, args.figure)
        where = args.out.parent if args.out is not None else Path.cwd()
        figure = os.path.relpath(args.figure, where)
    return _emit(leaderboard_markdown(groups, head, figure, baselines is not None), args.out)


def _cmd_publish(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.published import publish
    from bocvs_env.benchmark.run_sources import open_runs, read_runs

    # publish checks each sweep and each agent, naming the sweep first (not the whole folder)
    runs, _ = read_runs(args.data or args.store, functools.partial(_selection, args), True)
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
    """Add the runs and sweeps of a folder written by bocvs publish to a result store (made if
    missing; runs it holds are kept), so that bocvs run resumes a sweep after them on a machine
    that kept only the published folder. The restored runs lack what publishing leaves out (the
    queries x, the noisy y, the decision logs) and publish again unchanged. Refuses runs of
    another code version beside a sweep's stored ones."""
    from bocvs_env.benchmark.published import PublishedRuns, restore_store
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
    """The ``bocvs`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="bocvs",
        description="Benchmark sweeps of BOCVS agents, their store and reports.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser(
        "run",
        help="run a sweep (resumes: skips runs already in the store)",
        epilog=problem_listing(markdown=False) + "\n\n" + EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_sweep_options(run)
    run.add_argument("--executor", choices=("local", "ray"), default="local")
    run.add_argument("--workers", type=_positive, help="local processes, or CPUs of a local Ray")
    run.add_argument("--ray-address", help="connect to this Ray cluster (else start one)")
    run.add_argument("--numerics", choices=MODES,
                     help="the workers' kernels: pinned, to reproduce on any x86-64 machine with "
                     "AVX2, or the machine's own (default: $BOCVS_NUMERICS, else the sweep's "
                     f"numerics, else {DEFAULT}; see docs/reproducibility.md)")  # fmt: skip
    run.add_argument("--run-timeout", type=_seconds, metavar="SECONDS",
                     help="end a run that takes longer (its worker killed; recorded as failed, "
                     "the other runs go on); default: the sweep's run_timeout, else no limit")  # fmt: skip
    run.add_argument("--check-timeout", type=_seconds, metavar="SECONDS", default=CHECK_TIMEOUT,
                     help="time limit of the startup check of each agent not of bocvs's own "
                     f"(default {CHECK_TIMEOUT:g})")  # fmt: skip
    run.add_argument("--out", type=Path, help="plot folder (default: the sweep's name beside "
                     "the store)")  # fmt: skip
    run.add_argument("--no-plot", action="store_true", help="skip the plots")
    run.add_argument("--baselines", type=Path, action="append", metavar="FOLDER",
                     help="end with the paired comparison of the sweep's agents with every "
                          "agent of this published folder (e.g. docs/data; repeatable) on the "
                          "panels the sweep ran, as bocvs compare --baselines")  # fmt: skip
    run.add_argument("--allow-mixed-versions", action="store_true",
                     help="add runs to a sweep whose stored runs another code version made, "
                          "or to a store of another numerics mode")  # fmt: skip
    run.add_argument(
        "-q", "--quiet", action="store_true", help="no progress on stderr (failures still are)"
    )
    add_allow_options(run)
    run.set_defaults(func=_cmd_run)
    status = sub.add_parser("status", help="runs done per sweep")
    _add_sweep_options(status)
    status.add_argument(
        "--data", type=Path, help="count a folder written by bocvs publish, not --store"
    )
    status.set_defaults(func=_cmd_status)
    plot = sub.add_parser("plot", help="write the figures as PNGs")
    _add_report_options(plot)
    plot.add_argument("--out", type=Path, help="folder (default: the sweep's name beside the "
                      "store or the --data folder)")  # fmt: skip
    plot.set_defaults(func=_cmd_plot)
    table = sub.add_parser("table", help="print the markdown summary tables")
    _add_report_options(table)
    table.add_argument("--out", type=Path, help="write to this file instead")
    table.set_defaults(func=_cmd_table)
    export = sub.add_parser("export", help="write runs as CSV or Parquet")
    _add_report_options(export)
    export.add_argument("--out", type=Path, required=True, help="a .csv or .parquet file")
    export.add_argument("--level", choices=("runs", "steps"), default="runs")
    export.set_defaults(func=_cmd_export)
    compare = sub.add_parser("compare", help="paired comparison of agents by seed, per panel")
    _add_report_options(compare)
    compare.add_argument("--agent", help="compare this agent against the others")
    compare.add_argument("--reference", help="compare the others against this agent")
    compare.add_argument("--against", type=Path, metavar="STORE",
                         help="compare each agent with its own runs in this store (or folder of "
                              "bocvs publish), e.g. of an earlier commit, labelled agent@commit")  # fmt: skip
    compare.add_argument("--baselines", type=Path, action="append", metavar="FOLDER",
                         help="compare every agent of the runs with every agent of this "
                              "published folder (e.g. docs/data; repeatable), on the panels and "
                              "seeds both ran, labelled agent@commit; read in place")  # fmt: skip
    compare.add_argument("--metrics", nargs="+", default=["final", "area"],
                         help="final (simple regret), area (under simple regret / budget), "
                         "evaluations, costliest_share, target_share (spend on i*)")  # fmt: skip
    compare.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    compare.add_argument("--level", type=float, default=LEVEL, help="interval coverage")
    compare.add_argument("--bootstrap-seed", type=int, default=BOOTSTRAP_SEED)
    compare.add_argument("--json", type=Path, help="also write the rows as JSON here")
    compare.add_argument("--csv", type=Path, help="also write the rows as CSV here")
    compare.set_defaults(func=_cmd_compare)
    board = sub.add_parser(
        "leaderboard",
        help="mean ranks over shared panels, W/T/L against the best baseline, data profiles",
    )
    _add_report_options(board)
    board.add_argument("--baselines", type=Path, action="append", metavar="FOLDER",
                       help="rank the runs with the agents of this published folder (e.g. "
                            "docs/data; repeatable) on the runs' panels, labelled agent@commit")  # fmt: skip
    board.add_argument("--out", type=Path, help="write the markdown page here")
    board.add_argument("--figure", type=Path, help="write the data profiles here (a PNG)")
    board.set_defaults(func=_cmd_leaderboard)
    publish = sub.add_parser("publish", help="write the published tables (runs, steps, README)")
    _add_report_options(publish)
    publish.add_argument("--out", type=Path, required=True, help="a folder, e.g. docs/data")
    publish.add_argument(
        "--force", action="store_true", help="overwrite a folder even if runs it publishes would go"
    )
    publish.set_defaults(func=_cmd_publish)
    sealing = sub.add_parser(
        "seal",
        help="write the manifest of a published folder that has none, trusting its files",
        description="Write manifest.json for a folder published without one, leaving its "
        "tables as they are: their bytes are trusted, once they read and every run's steps "
        "agree with its row.",
    )
    sealing.add_argument("folder", type=Path, help="a published folder, e.g. docs/data")
    sealing.set_defaults(func=_cmd_seal, store=DEFAULT_STORE)
    restore = sub.add_parser(
        "restore",
        help="add a published folder's runs to a store, so that a sweep resumes after them",
        description=_cmd_restore.__doc__,
    )
    restore.add_argument("--data", type=Path, required=True,
                         help="a folder written by bocvs publish, e.g. docs/data")  # fmt: skip
    restore.add_argument("--store", type=Path, required=True, help="the store to add the runs to")
    restore.add_argument("--allow-mixed-versions", action="store_true",
                         help="add the runs even if a sweep's stored runs come from another "
                         "code version")  # fmt: skip
    restore.set_defaults(func=_cmd_restore)
    verify = sub.add_parser(
        "verify",
        help="rerun a sample of published runs: identical, or where they diverge",
        description="Rerun a seeded random sample of the runs of a published folder (or store) "
        "with their recorded configurations; report per run whether it is identical (the set, "
        "cost and g of every step) or its first diverging step, and whether the paired verdicts "
        "of the panels it touches hold with the reruns in place. Exit status 0 if every rerun is "
        "identical, 1 otherwise.",
    )
    verify.add_argument("--data", type=Path, required=True,
                        help="a folder written by bocvs publish, e.g. docs/data (or a store)")  # fmt: skip
    verify.add_argument("--sample", type=_positive, default=20, help="runs to rerun (default 20)")
    verify.add_argument("--seed", type=int, default=0, help="seeds the sample's draw")
    verify.add_argument("--seeds", type=_seeds, help="draw from the runs of these seeds only: "
                        "a count (0..n-1), a comma list, or a range: 5-9")  # fmt: skip
    verify.add_argument("--agents", nargs="+", help="draw from the runs of these agents only")
    verify.add_argument("--numerics", choices=MODES, default="fast",
                        help="the reruns' kernels (default fast: the published runs were made "
                        "with the machine's own)")  # fmt: skip
    verify.add_argument("--workers", type=_positive, help="local processes (default: one per core)")
    add_allow_options(verify)
    verify.set_defaults(func=_cmd_verify, store=DEFAULT_STORE)
    add_experiment_command(sub)
    report_commands.add_commands(sub)  # paper-claims, bar, cost
    return parser


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

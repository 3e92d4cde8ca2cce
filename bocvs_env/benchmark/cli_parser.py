"""The ``bocvs`` command's argument parser: its subcommands, their options, help texts and
the option types that check a value before anything runs (:func:`build_parser`); the commands
themselves are :mod:`bocvs_env.benchmark.cli`'s."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bocvs_env.benchmark import report_commands
from bocvs_env.benchmark.agent_check import CHECK_TIMEOUT
from bocvs_env.benchmark.config import MAX_SEEDS, SWEEP_PRESETS, SweepConfig, check_run_timeout
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, LEVEL, RESAMPLES
from bocvs_env.benchmark.trust import add_allow_options
from bocvs_env.experiment.cli import add_experiment_command
from bocvs_env.numerics import DEFAULT, MODES
from bocvs_env.registration import problem_listing

#: A command: the parsed options in, the exit status out.
Command = Callable[[Any], int]

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


#: ``--with-variants``'s help (``bocvs compare`` and ``bocvs run``).
WITH_VARIANTS_HELP = (
    "with --baselines: compare with every agent of the folders, their ablation variants "
    "included, not only their grid sweep's"
)

#: ``bocvs seal --help``'s description.
SEAL_DESCRIPTION = (
    "Write manifest.json for a folder published without one, leaving its "
    "tables as they are: their bytes are trusted, once they read and every run's steps "
    "agree with its row."
)

#: ``bocvs verify --help``'s description.
VERIFY_DESCRIPTION = (
    "Rerun a seeded random sample of the runs of a published folder (or store) "
    "with their recorded configurations; report per run whether it is identical (the set, "
    "cost and g of every step) or its first diverging step, and whether the paired verdicts "
    "of the panels it touches hold with the reruns in place. Exit status 0 if every rerun is "
    "identical, 1 otherwise."
)

#: ``bocvs restore --help``'s description.
RESTORE_DESCRIPTION = """\
Add the runs and sweeps of a folder written by bocvs publish to a result store (made if
missing; runs it holds are kept), so that bocvs run resumes a sweep after them on a machine
that kept only the published folder. The restored runs lack what publishing leaves out (the
queries x, the noisy y, the decision logs) and publish again unchanged. Refuses runs of
another code version beside a sweep's stored ones."""


def _command(
    sub: Any, name: str, func: Command, help: str, **options: Any
) -> argparse.ArgumentParser:
    """The parser of the subcommand ``name``, which calls ``func`` (``options``: the further
    keywords of ``add_parser``, e.g. its ``description``)."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, **options)
    parser.set_defaults(func=func)
    return parser


def build_parser(commands: Mapping[str, Command]) -> argparse.ArgumentParser:
    """The ``bocvs`` argument parser; each subcommand's ``func`` is its function of
    ``commands`` (by name), the ``experiment`` commands' their own."""
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
                     help="the workers' kernels: pinned, to reproduce on x86-64 machines of one "
                     "CPU vendor with AVX2, or the machine's own (default: $BOCVS_NUMERICS, else the sweep's "
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
                     help="end with the paired comparison of the sweep's agents with the "
                          "agents of this published folder's grid sweep (e.g. docs/data; "
                          "repeatable) on the panels the sweep ran, as bocvs compare "
                          "--baselines")  # fmt: skip
    run.add_argument("--with-variants", action="store_true", help=WITH_VARIANTS_HELP)
    run.add_argument("--allow-mixed-versions", action="store_true",
                     help="add runs to a sweep whose stored runs another code version made, "
                          "or to a store of another numerics mode")  # fmt: skip
    run.add_argument(
        "-q", "--quiet", action="store_true", help="no progress on stderr (failures still are)"
    )
    add_allow_options(run)
    run.set_defaults(func=commands["run"])
    status = _command(sub, "status", commands["status"], "runs done per sweep")
    _add_sweep_options(status)
    status.add_argument(
        "--data", type=Path, help="count a folder written by bocvs publish, not --store"
    )
    plot = _command(sub, "plot", commands["plot"], "write the figures as PNGs")
    _add_report_options(plot)
    plot.add_argument("--out", type=Path, help="folder (default: the sweep's name beside the "
                      "store or the --data folder)")  # fmt: skip
    table = _command(sub, "table", commands["table"], "print the markdown summary tables")
    _add_report_options(table)
    table.add_argument("--out", type=Path, help="write to this file instead")
    export = _command(sub, "export", commands["export"], "write runs as CSV or Parquet")
    _add_report_options(export)
    export.add_argument("--out", type=Path, required=True, help="a .csv or .parquet file")
    export.add_argument("--level", choices=("runs", "steps"), default="runs")
    compare = _command(
        sub, "compare", commands["compare"], "paired comparison of agents by seed, per panel"
    )
    _add_report_options(compare)
    compare.add_argument("--agent", help="compare this agent against the others")
    compare.add_argument("--reference", help="compare the others against this agent")
    compare.add_argument("--against", type=Path, metavar="STORE",
                         help="compare each agent with its own runs in this store (or folder of "
                              "bocvs publish), e.g. of an earlier commit, labelled agent@commit")  # fmt: skip
    compare.add_argument("--baselines", type=Path, action="append", metavar="FOLDER",
                         help="compare every agent of the runs with the agents of this "
                              "published folder's grid sweep, the paper's and its peers' (every "
                              "agent of a folder without one; e.g. docs/data; repeatable), on "
                              "the panels and seeds both ran, labelled agent@commit; read in "
                              "place")  # fmt: skip
    compare.add_argument("--with-variants", action="store_true", help=WITH_VARIANTS_HELP)
    compare.add_argument("--metrics", nargs="+", default=["final", "area"],
                         help="final (simple regret), area (under simple regret / budget), "
                         "evaluations, costliest_share, target_share (spend on i*)")  # fmt: skip
    compare.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    compare.add_argument("--level", type=float, default=LEVEL, help="interval coverage")
    compare.add_argument("--bootstrap-seed", type=int, default=BOOTSTRAP_SEED)
    compare.add_argument("--json", type=Path, help="also write the rows as JSON here")
    compare.add_argument("--csv", type=Path, help="also write the rows as CSV here")
    board = _command(
        sub,
        "leaderboard",
        commands["leaderboard"],
        help="mean ranks over shared panels, W/T/L against the best baseline, data profiles",
    )
    _add_report_options(board)
    board.add_argument("--baselines", type=Path, action="append", metavar="FOLDER",
                       help="rank the runs with the agents of this published folder (e.g. "
                            "docs/data; repeatable) on the runs' panels, labelled agent@commit")  # fmt: skip
    board.add_argument("--out", type=Path, help="write the markdown page here")
    board.add_argument("--figure", type=Path, help="write the data profiles here (a PNG)")
    publish = _command(
        sub, "publish", commands["publish"], "write the published tables (runs, steps, README)"
    )
    _add_report_options(publish)
    publish.add_argument("--out", type=Path, required=True, help="a folder, e.g. docs/data")
    publish.add_argument(
        "--force", action="store_true", help="overwrite a folder even if runs it publishes would go"
    )
    sealing = _command(
        sub,
        "seal",
        commands["seal"],
        help="write the manifest of a published folder that has none, trusting its files",
        description=SEAL_DESCRIPTION,
    )
    sealing.add_argument("folder", type=Path, help="a published folder, e.g. docs/data")
    sealing.set_defaults(store=DEFAULT_STORE)
    restore = _command(sub, "restore", commands["restore"], "add a published folder's runs to a "
                       "store, so that a sweep resumes after them",
                       description=RESTORE_DESCRIPTION)  # fmt: skip
    restore.add_argument("--data", type=Path, required=True,
                         help="a folder written by bocvs publish, e.g. docs/data")  # fmt: skip
    restore.add_argument("--store", type=Path, required=True, help="the store to add the runs to")
    restore.add_argument("--allow-mixed-versions", action="store_true",
                         help="add the runs even if a sweep's stored runs come from another "
                         "code version")  # fmt: skip
    verify = _command(sub, "verify", commands["verify"], "rerun a sample of published runs: "
                      "identical, or where they diverge", description=VERIFY_DESCRIPTION)  # fmt: skip
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
    verify.set_defaults(store=DEFAULT_STORE)
    add_experiment_command(sub)
    report_commands.add_commands(sub)  # paper-claims, bar, cost
    return parser

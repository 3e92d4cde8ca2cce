"""The ``bocvs`` commands that print the docs' results pages beyond the tables and comparisons:

- ``bocvs paper-claims``: the AAAI paper's experimental claims on a sweep, for the paper's
  agent or any other (:mod:`bocvs_env.benchmark.paper_claims`);
- ``bocvs bar``: whether a new agent's sweep clears the bar of the best agent on the grid,
  against an archive (:mod:`bocvs_env.benchmark.agent_bar`);
- ``bocvs cost``: a sweep's measured CPU time per agent beside an estimate at the reference
  implementations' speed (:mod:`bocvs_env.benchmark.sweep_cost`).

Each reads a result store or a folder written by ``bocvs publish`` and refuses runs of several
code versions unless given ``--allow-mixed-versions``. Bad input (no such store, folder, sweep
or agent) is one line ``bocvs <command>: error: ...`` and exit status 2, as every ``bocvs``
command reports it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bocvs_env.benchmark.report_options import (
    add_baseline_arguments,
    add_source_arguments,
    baseline_runs,
    report_runs,
)
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, RESAMPLES


def add_commands(subparsers: Any) -> None:
    """Add ``paper-claims``, ``bar`` and ``cost`` to the ``bocvs`` parser's ``subparsers``
    (what :meth:`argparse.ArgumentParser.add_subparsers` returns)."""
    claims = subparsers.add_parser(
        "paper-claims",
        help="the paper's claims on a sweep: win / tie / loss per panel, paired by seed",
        description="The AAAI paper's experimental claims on a sweep: per panel, the proposed "
        "agent's win / tie / loss against each other agent by a paired bootstrap interval over "
        "seeds, and the CPU time per run. With --baselines, a new agent's sweep against an "
        "archive's agents, paired by seed.",
    )
    add_source_arguments(claims)
    claims.add_argument("--seeds", type=int, nargs="+", help="only these seeds (default: all)")
    claims.add_argument("--problems", nargs="+", help="only these problems (default: all)")
    claims.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    claims.add_argument("--proposed", help="the agent the claims are about (default: the "
                        "paper's, explore-then-commit)")  # fmt: skip
    claims.add_argument("--time-reference", help="its CPU time as a ratio to this agent's "
                        "(default: the paper's agent)")  # fmt: skip
    add_baseline_arguments(claims)
    claims.set_defaults(func=_cmd_paper_claims)
    bar = subparsers.add_parser(
        "bar",
        help="whether a new agent's sweep clears the bar of the best agent on the grid",
        description="Whether a new agent's sweep clears the bar of the best agent on the grid "
        "(or, with --extras, of the settings beyond it) against an archive, paired by seed.",
    )
    add_source_arguments(bar)
    bar.add_argument("--agent", required=True, help="the new agent, as its runs name it")
    add_baseline_arguments(bar, required=True)
    bar.add_argument(
        "--extras", action="store_true", help="the bar of the settings beyond the grid"
    )
    bar.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    bar.set_defaults(func=_cmd_bar)
    cost = subparsers.add_parser(
        "cost",
        help="a sweep's CPU time per agent, against an estimate at the references' speed",
        description="A sweep's measured wall and CPU time per agent, against an estimate at "
        "the reference implementations' speed: one reference-style decision per round, timed "
        "by the decision benchmark's report (benchmarks/decisions.py).",
    )
    add_source_arguments(cost)
    cost.add_argument("--reference", type=Path, nargs="+", required=True,
                      help="reports of benchmarks/decisions.py, e.g. "
                      "benchmarks/results/decisions.json")  # fmt: skip
    cost.add_argument("--workers", type=int, default=2, help="parallel workers for the wall time")
    cost.set_defaults(func=_cmd_cost)


def _cmd_paper_claims(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.paper_claims import PROPOSED, claims_markdown

    runs = report_runs(args, args.seeds, args.problems)
    runs += baseline_runs(args, args.seeds, args.problems)
    proposed, reference = args.proposed or PROPOSED, args.time_reference or PROPOSED
    page = claims_markdown(runs, args.resamples, BOOTSTRAP_SEED, proposed, reference)
    # (fails on a proposed agent without runs, too)
    print(page, end="")
    return 0


def _cmd_bar(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.agent_bar import bar_markdown

    runs = [r for r in report_runs(args) if r.config.agent == args.agent]
    print(bar_markdown(runs, baseline_runs(args), args.agent, args.extras, args.resamples), end="")
    return 0


def _cmd_cost(args: argparse.Namespace) -> int:
    from bocvs_env.benchmark.sweep_cost import cost_markdown, reference_times

    sizes, seconds = reference_times(args.reference)
    runs = report_runs(args)
    source = f"sweep {args.sweep!r}: {len(runs)} runs in {args.data or args.store}"
    print(cost_markdown(runs, sizes, seconds, source, args.workers), end="")
    return 0

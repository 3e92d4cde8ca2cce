"""The AAAI paper's experimental claims, checked on a sweep, by paired comparison over seeds.

The paper (section "Experiments") claims that

1. the proposed explore-then-commit agent (``etc``) reaches a lower simple regret for the cost
   spent than the baselines (UCB-PSQ, TS-PSQ, ETC-50, random);
2. it makes significantly more evaluations than the others once its exploitation phase starts
   (it spends no more than 60% of the budget exploring);
3. because the baselines keep evaluating the (expensive) full set, while it exploits the cheaper
   set of the relevant variables.

For every panel (problem x cost set x variance x budget) this prints the mean simple regret of
each agent at 25, 50, 60, 75 and 100% of the budget, the mean evaluations, and the share of the
spend on the target set ``i*`` and on the costliest set (the last one, cost 1: the full set except
on airfoil, whose sets all have two variables). Then, per claim, a panel-by-baseline matrix of
``etc``'s win / tie / loss by the paired bootstrap interval of ``bocvs compare``
(:mod:`bocvs_env.benchmark.compare`): claim 1 on the final simple regret and on the area under
simple regret against cost (divided by the budget), claim 2 on evaluations, claim 3 on the share
of the spend on the costliest set; and last the paired differences with their intervals.

It reads a result store or a folder written by ``bocvs publish`` (``docs/data``), and refuses
runs of several code versions unless given ``--allow-mixed-versions``:

    python benchmarks/paper_claims.py --data docs/data [--sweep paper] [--seeds 0 1]
        [--problems hartmann6_12d plant] [--resamples 10000]
    python benchmarks/paper_claims.py --store results/paper/bocvs.db
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bocvs_env.benchmark.compare import (  # noqa: E402
    PairedComparison,
    compare_runs,
    comparison_markdown,
    tally,
    wtl,
)
from bocvs_env.benchmark.panels import Panel, group_panels  # noqa: E402
from bocvs_env.benchmark.published import open_runs  # noqa: E402
from bocvs_env.benchmark.store import StoredRun  # noqa: E402
from bocvs_env.benchmark.versions import check_one_version  # noqa: E402
from bocvs_env.evaluation import EpisodeRecord  # noqa: E402
from bocvs_env.metrics import evaluations_at, simple_regret_at, target  # noqa: E402
from bocvs_env.metrics import spend_share as set_shares  # noqa: E402

#: Fractions of the budget at which the regrets are compared.
CHECKPOINTS = (0.25, 0.5, 0.6, 0.75, 1.0)
PROPOSED = "etc"
#: The claims, each checked on one figure of :data:`bocvs_env.benchmark.compare.METRICS`.
CLAIMS = (
    ("final", "1. ETC's final simple regret is lower"),
    ("area", "1. ETC's simple regret is lower for the cost spent (area under the curve / budget)"),
    ("evaluations", "2. ETC makes more evaluations"),
    ("costliest_share", "3. ETC spends a smaller share on the costliest set"),
)


def spend_share(record: EpisodeRecord, sets: list[int]) -> float:
    """The fraction of the spend that went to the control sets ``sets``."""
    return float(set_shares(record)[sets].sum())


def panel_summary(panel: Panel, agents: dict[str, list[EpisodeRecord]]) -> dict[str, dict]:
    """Per agent: seeds, mean regret per checkpoint (``regret``, ``(len(CHECKPOINTS),)``), mean
    evaluations, and mean spend shares on ``i*`` and on the costliest (last) set."""
    spends = np.array(CHECKPOINTS) * panel.budget
    out = {}
    for agent, records in agents.items():
        i_star = target(records[0].set_max, records[0].cost_means).i_star
        costliest = len(records[0].set_max) - 1
        out[agent] = {
            "seeds": len(records),
            "regret": np.mean([simple_regret_at(r, spends) for r in records], axis=0),
            "evaluations": float(np.mean([evaluations_at(r, spends[-1:])[0] for r in records])),
            "share_target": float(np.mean([spend_share(r, [i_star]) for r in records])),
            "share_costliest": float(np.mean([spend_share(r, [costliest]) for r in records])),
            "i_star": i_star,
        }
    return out


def claim_matrix(comparisons: Sequence[PairedComparison], metric: str, title: str) -> str:
    """Panels x baselines: ETC's verdict on ``metric`` per panel, then the W / T / L tally."""
    rows = [c for c in comparisons if c.metric == metric]
    baselines = sorted({c.reference for c in rows})
    verdicts = {(c.panel, c.reference): c.verdict() for c in rows}
    lines = [f"#### {title}", "", "| panel | " + " | ".join(baselines) + " |"]
    lines.append("| --- |" + " :---: |" * len(baselines))
    for panel in sorted({c.panel for c in rows}):
        cells = [verdicts.get((panel, b), "–") for b in baselines]
        lines.append(f"| {panel.title()} | " + " | ".join(cells) + " |")
    counts = tally(rows)
    totals = [wtl(counts[(PROPOSED, b, metric)]) for b in baselines]
    lines.append("| **win / tie / loss** | " + " | ".join(totals) + " |")
    return "\n".join(lines)


def select_runs(
    runs: Sequence[StoredRun],
    sweep: str,
    seeds: Sequence[int] | None = None,
    problems: Sequence[str] | None = None,
) -> list[StoredRun]:
    """The runs of ``sweep``, of these seeds and problems (``None``: all)."""
    return [
        r
        for r in runs
        if r.sweep == sweep
        and (seeds is None or r.config.seed in seeds)
        and (problems is None or r.config.problem in problems)
    ]


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def panel_tables(runs: Sequence[StoredRun]) -> str:
    """The descriptive table of every panel (see the module docstring)."""
    marks = " | ".join(f"regret @{c:.0%}" for c in CHECKPOINTS)
    parts = []
    for panel, agents in group_panels(runs).items():
        summary = panel_summary(panel, agents)
        i_star = next(iter(summary.values()))["i_star"]
        lines = [
            f"### {panel.title()} (i* = set {i_star})",
            "",
            f"| agent | seeds | {marks} | evaluations | spend on i* | spend on the costliest set |",
            "| --- | ---: |" + " ---: |" * len(CHECKPOINTS) + " ---: | ---: | ---: |",
        ]
        for agent, s in summary.items():
            regrets = " | ".join(_fmt(r) for r in s["regret"])
            lines.append(f"| {agent} | {s['seeds']} | {regrets} | {s['evaluations']:.0f} | "
                         f"{s['share_target']:.0%} | {s['share_costliest']:.0%} |")  # fmt: skip
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def claims_markdown(runs: Sequence[StoredRun], resamples: int = 10_000, seed: int = 0) -> str:
    """The whole page: panel tables, the claims' verdict matrices, the paired differences."""
    comparisons = compare_runs(
        runs, agent=PROPOSED, metric_names=[m for m, _ in CLAIMS], n_resamples=resamples, seed=seed
    )
    parts = [panel_tables(runs)]
    if comparisons:
        level = comparisons[0].interval.level
        parts.append(
            f"## The claims, panel by panel: {PROPOSED} against each baseline\n\n"
            f"Paired by seed; a win when the {level:.0%} paired bootstrap interval of the mean "
            f"difference ({PROPOSED} minus the baseline) lies on {PROPOSED}'s better side of 0, a "
            "loss when on the other side, a tie when it contains 0 "
            f"(`bocvs compare --agent {PROPOSED}`)."
        )
        parts += [claim_matrix(comparisons, m, title) for m, title in CLAIMS]
        parts.append("## Paired differences per panel\n\n" + comparison_markdown(comparisons))
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--store", type=Path, help="a result store")
    source.add_argument("--data", type=Path, help="a folder written by bocvs publish")
    p.add_argument("--sweep", default="paper")
    p.add_argument("--seeds", type=int, nargs="+", help="only these seeds (default: all)")
    p.add_argument("--problems", nargs="+", help="only these problems (default: all)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    p.add_argument("--allow-mixed-versions", action="store_true")
    args = p.parse_args()
    with open_runs(args.store or args.data) as source_runs:
        runs = select_runs(source_runs.runs(), args.sweep, args.seeds, args.problems)
    if not runs:
        sys.exit(f"paper_claims: no runs of sweep {args.sweep!r} with these seeds and problems")
    try:
        check_one_version(runs, args.allow_mixed_versions)
    except ValueError as err:
        print(f"paper_claims: error: {err}", file=sys.stderr)
        sys.exit(2)
    print(claims_markdown(runs, args.resamples), end="")


if __name__ == "__main__":
    main()

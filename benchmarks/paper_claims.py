"""The AAAI paper's experimental claims, checked on a sweep in a result store.

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
on airfoil, whose sets all have two variables); then, over all panels, how often ``etc`` has the
lowest mean regret and how often it beats each baseline.

    python benchmarks/paper_claims.py --store results/paper/bocvs.db [--sweep paper] [--seeds 0 1]
        [--problems hartmann6_12d plant]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bocvs_env.benchmark.panels import Panel, group_panels  # noqa: E402
from bocvs_env.benchmark.store import ResultStore, StoredRun  # noqa: E402
from bocvs_env.evaluation import EpisodeRecord  # noqa: E402
from bocvs_env.metrics import evaluations_at, simple_regret_at, target  # noqa: E402

#: Fractions of the budget at which the regrets are compared.
CHECKPOINTS = (0.25, 0.5, 0.6, 0.75, 1.0)
PROPOSED = "etc"


def spend_share(record: EpisodeRecord, sets: list[int]) -> float:
    """The fraction of the spend that went to the control sets ``sets``."""
    total = float(record.cost.sum())
    mask = np.isin(record.control_set, sets)
    return float(record.cost[mask].sum()) / total if total > 0 else 0.0


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


def tally(summaries: dict[Panel, dict[str, dict]]) -> dict[str, np.ndarray]:
    """Over the panels that have ``etc``: per checkpoint, in how many it has the lowest mean
    regret (``best``) and, per baseline, in how many its mean regret is lower (``beats <b>``);
    ``panels`` counts the panels where both ran."""
    counts: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(CHECKPOINTS), dtype=int))
    for summary in summaries.values():
        if PROPOSED not in summary or len(summary) < 2:
            continue
        mine = summary[PROPOSED]["regret"]
        others = {a: s["regret"] for a, s in summary.items() if a != PROPOSED}
        counts["panels"] += 1
        counts["best"] += np.all([mine < r for r in others.values()], axis=0)
        for agent, regret in others.items():
            counts[f"beats {agent}"] += mine < regret
            counts[f"panels with {agent}"] += 1
    return dict(counts)


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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--sweep", default="paper")
    p.add_argument("--seeds", type=int, nargs="+", help="only these seeds (default: all)")
    p.add_argument("--problems", nargs="+", help="only these problems (default: all)")
    args = p.parse_args()
    with ResultStore(args.store, create=False) as store:
        runs = select_runs(store.runs(), args.sweep, args.seeds, args.problems)
    summaries = {
        panel: panel_summary(panel, agents) for panel, agents in group_panels(runs).items()
    }
    marks = " | ".join(f"regret @{c:.0%}" for c in CHECKPOINTS)
    for panel, summary in summaries.items():
        i_star = next(iter(summary.values()))["i_star"]
        print(f"### {panel.title()} (i* = set {i_star})\n")
        print(
            f"| agent | seeds | {marks} | evaluations | spend on i* | spend on the costliest set |"
        )
        print("| --- | ---: |" + " ---: |" * len(CHECKPOINTS) + " ---: | ---: | ---: |")
        for agent, s in summary.items():
            regrets = " | ".join(_fmt(r) for r in s["regret"])
            print(f"| {agent} | {s['seeds']} | {regrets} | {s['evaluations']:.0f} | "
                  f"{s['share_target']:.0%} | {s['share_costliest']:.0%} |")  # fmt: skip
        print()
    counts = tally(summaries)
    if counts:
        print(
            f"### Over {counts['panels'][0]} panels: panels where {PROPOSED} has the lower mean regret\n"
        )
        print(f"| comparison | {marks} |")
        print("| --- |" + " ---: |" * len(CHECKPOINTS))
        print(f"| lowest of all agents | {' | '.join(str(c) for c in counts['best'])} |")
        for key in sorted(k for k in counts if k.startswith("beats ")):
            agent = key.removeprefix("beats ")
            total = counts[f"panels with {agent}"]
            cells = " | ".join(f"{c}/{t}" for c, t in zip(counts[key], total, strict=True))
            print(f"| below {agent} | {cells} |")


if __name__ == "__main__":
    main()

"""Markdown summary tables: one per panel (problem x cost set x variance x budget), one row per
agent, with figures from :func:`bocvs_env.metrics.summarize`: final simple regret and
evaluations (mean ± standard error over seeds) and the mean share of the spend per control
set, each set named by the variables it controls and the target set ``i*`` marked; and a
one-line takeaway per panel (:func:`takeaway`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bocvs_env import metrics
from bocvs_env.benchmark.compare import compare_runs
from bocvs_env.benchmark.panels import Panel, group_panels, mean_and_se
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import versions_line
from bocvs_env.evaluation import EpisodeRecord
from bocvs_env.problems.registry import PROBLEMS

#: What the tables' figures are, printed under them.
FOOTNOTE = (
    "Lower final simple regret is better. ± is one standard error of the mean over seeds "
    "(sample std / sqrt(seeds)); set i {x...} spend % is the mean share of the spend (the costs "
    "paid) on control set i, which sets the variables in braces (the others are drawn at "
    "random); i* marks the target set, the cheapest set whose best value is within 10% of g*."
)


def variables(control_set: Sequence[int]) -> str:
    """The variables a control set sets, compactly: ``(0, 1, 2)`` -> ``"x0-x2"``, ``(1, 4)`` ->
    ``"x1,x4"``."""
    s = sorted(control_set)
    if len(s) > 2 and s == list(range(s[0], s[-1] + 1)):
        return f"x{s[0]}-x{s[-1]}"
    return ",".join(f"x{i}" for i in s)


def _set_columns(panel: Panel, records: Sequence[EpisodeRecord], alpha: float) -> list[str]:
    """``set i {variables} spend %`` per control set, ``i*`` marked (the target set of every
    record; a set that is the target of some records only is marked ``i*?``)."""
    m = records[0].set_max.size
    sets = PROBLEMS[panel.problem].control_sets if panel.problem in PROBLEMS else None
    targets = {metrics.target(r.set_max, r.cost_means, alpha).i_star for r in records}
    out = []
    for i in range(m):
        named = f" {{{variables(sets[i])}}}" if sets is not None and len(sets) == m else ""
        mark = (" i*" if len(targets) == 1 else " i*?") if i in targets else ""
        out.append(f"set {i}{named}{mark} spend %")
    return out


def _pm(values: list[float], fmt: str) -> str:
    mean, se = mean_and_se(np.asarray(values)[:, None])
    return f"{mean[0]:{fmt}} ± {se[0]:{fmt}}"


def summary_markdown(runs: Sequence[StoredRun], alpha: float = 0.1) -> str:
    """The summary tables of ``runs`` as one markdown document: the runs' code version
    (:func:`~bocvs_env.benchmark.versions.versions_line`), then a heading per panel.

    Raises:
        ValueError: if there are no runs.
    """
    panels = group_panels(runs)
    if not panels:
        raise ValueError("no runs to summarize")
    parts = [versions_line(runs)]
    for panel, agents in panels.items():
        every = [r for records in agents.values() for r in records]
        head = ["agent", "seeds", "final simple regret (mean ± SE, lower is better)"]
        head += ["evaluations (mean ± SE)", *_set_columns(panel, every, alpha)]
        lines = [f"### {panel.title()}", "", "| " + " | ".join(head) + " |"]
        lines.append("| " + " | ".join(["---"] * len(head)) + " |")
        for agent, records in agents.items():
            summaries = [metrics.summarize(r, alpha) for r in records]
            share = 100.0 * np.mean([s["spend_share"] for s in summaries], axis=0)
            row = [
                agent,
                str(len(records)),
                _pm([s["simple_regret"] for s in summaries], ".4g"),
                _pm([s["evaluations"] for s in summaries], ".1f"),
                *(f"{v:.0f}" for v in share),
            ]
            lines.append("| " + " | ".join(row) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n\n" + FOOTNOTE + "\n"


def takeaway(runs: Sequence[StoredRun]) -> list[str]:
    """One line per panel with two agents or more: which agent ends with the lowest mean final
    simple regret, by how much it is below each other agent's, and the paired verdict of each
    difference (:func:`~bocvs_env.benchmark.compare.compare_runs`, final regret)."""
    lines = []
    for panel, agents in group_panels(runs).items():
        if len(agents) < 2:
            continue
        means = {a: float(np.mean([metrics.final_simple_regret(r) for r in recs]))
                 for a, recs in agents.items()}  # fmt: skip
        best = min(means, key=lambda a: (means[a], a))
        chosen = [r for r in runs if Panel.of(r) == panel]
        pairs = compare_runs(chosen, agent=best, metric_names=["final"])
        said = [  # by the mean paired difference, over the seeds both ran
            f"{-c.interval.mean:.3g} below {c.reference} "
            f"(paired {c.interval.level:.0%} interval [{c.interval.low:.3g}, "
            f"{c.interval.high:.3g}]: {c.verdict()})"
            for c in sorted(pairs, key=lambda c: means[c.reference])
        ]
        lines.append(
            f"Takeaway, {panel.title()}: {best} ends lowest (final simple regret "
            f"{means[best]:.3g}, mean of {len(agents[best])} seeds), " + ", ".join(said) + "."
        )
    return lines

"""The AAAI paper's experimental claims, measured on stored runs (Hoang, Nguyen & Tran, AAAI
2025, section "Experiments").

The paper claims that the explore-then-commit agent (``etc``) reaches a lower simple regret for
the cost spent than the baselines (UCB-PSQ, TS-PSQ, ETC-50, random), that it makes more
evaluations once it exploits (it spends no more than 60% of the budget exploring), and that it
does so by spending on the cheaper target set ``i*`` rather than on the costliest set, which
the baselines keep evaluating. This module computes, per panel (problem x cost set x variance
x budget), what those claims compare: the mean simple regret of each agent at 25, 50, 60, 75 and
100% of the budget, the mean evaluations, and the shares of the spend on ``i*`` and on the
costliest set (the last one, cost 1: the full set except on airfoil, whose sets all have two
variables). Then the page of verdicts by paired comparison over seeds
(:mod:`bocvs_env.benchmark.compare`): a summary over the panels per claim and baseline, a
panel-by-baseline matrix per claim (claim 1 on the final simple regret and on the area under
simple regret against cost divided by the budget, claim 2 on evaluations, claim 3 on the
shares of the spend), the CPU time per run, and the paired differences with their intervals.

The same page states the claims for any other agent (``proposed``), e.g. FETC against ETC and
the rest, with its CPU time per run as a ratio to another agent's. ``bocvs paper-claims``
prints it (:mod:`bocvs_env.benchmark.report_commands`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bocvs_env.benchmark.compare import (
    METRICS,
    PairedComparison,
    compare_runs,
    comparison_markdown,
    tally,
    wtl,
)
from bocvs_env.benchmark.panels import Panel, group_panels
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, RESAMPLES
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import versions_line
from bocvs_env.evaluation import EpisodeRecord
from bocvs_env.metrics import evaluations_at, simple_regret_at, target

#: Fractions of the budget at which the regrets are compared.
CHECKPOINTS = (0.25, 0.5, 0.6, 0.75, 1.0)
PROPOSED = "etc"
#: The claims, each checked on one figure of :data:`bocvs_env.benchmark.compare.METRICS`; ``{agent}``
#: is the proposed agent.
CLAIMS = (
    ("final", "1. {agent}'s final simple regret is lower"),
    (
        "area",
        "1. {agent}'s simple regret is lower for the cost spent (area under the curve / budget)",
    ),
    ("evaluations", "2. {agent} makes more evaluations"),
    ("costliest_share", "3. {agent} spends a smaller share on the costliest set"),
    ("target_share", "3. {agent} spends a larger share on the target set i*"),
)
#: The summary's column heads, per claim's figure.
METRIC_HEADS = {
    "final": "final simple regret",
    "area": "area under regret / cost",
    "evaluations": "evaluations",
    "costliest_share": "share on the costliest set",
    "target_share": "share on i*",
}


def panel_summary(panel: Panel, agents: dict[str, list[EpisodeRecord]]) -> dict[str, dict]:
    """Per agent: seeds, mean regret per checkpoint (``regret``, ``(len(CHECKPOINTS),)``), mean
    evaluations, and mean spend shares on ``i*`` and on the costliest set (the figures
    ``target_share`` and ``costliest_share`` of :data:`~bocvs_env.benchmark.compare.METRICS`)."""
    spends = np.array(CHECKPOINTS) * panel.budget
    target_share, costliest_share = METRICS["target_share"].value, METRICS["costliest_share"].value
    out = {}
    for agent, records in agents.items():
        out[agent] = {
            "seeds": len(records),
            "regret": np.mean([simple_regret_at(r, spends) for r in records], axis=0),
            "evaluations": float(np.mean([evaluations_at(r, spends[-1:])[0] for r in records])),
            "share_target": float(np.mean([target_share(r) for r in records])),
            "share_costliest": float(np.mean([costliest_share(r) for r in records])),
            "i_star": target(records[0].set_max, records[0].cost_means).i_star,
        }
    return out


def claim_matrix(
    comparisons: Sequence[PairedComparison], metric: str, title: str, proposed: str = PROPOSED
) -> str:
    """Panels x baselines: ``proposed``'s verdict on ``metric`` per panel, then the W / T / L
    tally and the number of panels where its mean over the paired seeds is the better one."""
    rows = [c for c in comparisons if c.metric == metric]
    baselines = sorted({c.reference for c in rows})
    verdicts = {(c.panel, c.reference): c.verdict() for c in rows}
    lines = [f"#### {title}", "", "| panel | " + " | ".join(baselines) + " |"]
    lines.append("| --- |" + " :---: |" * len(baselines))
    for panel in sorted({c.panel for c in rows}):
        cells = [verdicts.get((panel, b), "–") for b in baselines]
        lines.append(f"| {panel.title()} | " + " | ".join(cells) + " |")
    totals = [over_panels(rows, metric, b, proposed) for b in baselines]
    lines.append("| **win / tie / loss** | " + " | ".join(t[0] for t in totals) + " |")
    cells = [f"{better} / {n}" for _, better, n in totals]
    lines.append("| **better mean** | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def over_panels(
    comparisons: Sequence[PairedComparison], metric: str, baseline: str, proposed: str = PROPOSED
) -> tuple[str, int, int]:
    """``proposed`` against ``baseline`` on ``metric`` over the panels: ``"W / T / L"``, the
    number of panels where its mean over the paired seeds is the better one, and of panels."""
    rows = [c for c in comparisons if c.metric == metric and c.reference == baseline]
    sign = -1.0 if METRICS[metric].lower_is_better else 1.0
    better = sum(sign * c.interval.mean > 0 for c in rows)
    return wtl(tally(rows)[(proposed, baseline, metric)]), better, len(rows)


def summary_table(comparisons: Sequence[PairedComparison], proposed: str = PROPOSED) -> str:
    """Baselines x claims: ``proposed``'s win / tie / loss over the panels and, after it, the
    panels where its mean is the better one (the page's summary; ``docs/results.md`` quotes it)."""
    metrics = [m for m, _ in CLAIMS if any(c.metric == m for c in comparisons)]
    baselines = sorted({c.reference for c in comparisons})
    lines = [
        f"| {proposed} against | " + " | ".join(METRIC_HEADS[m] for m in metrics) + " |",
        "| --- |" + " :---: |" * len(metrics),
    ]
    for b in baselines:
        cells = []
        for m in metrics:
            counts, better, n = over_panels(comparisons, m, b, proposed)
            cells.append(f"{counts} · {better}/{n}")
        lines.append(f"| {b} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cpu_seconds(runs: Sequence[StoredRun]) -> dict[Panel, dict[str, dict[int, float]]]:
    """Per panel and agent, the CPU time of each seed's run in seconds (``provenance["cpu_s"]``),
    over the runs that recorded it; agents with none are left out."""
    times: dict[Panel, dict[str, dict[int, float]]] = {}
    for r in runs:
        cpu = r.provenance.get("cpu_s")
        if cpu is not None and cpu == cpu:  # published runs hold NaN where it was not recorded
            agent = times.setdefault(Panel.of(r), {}).setdefault(r.config.agent, {})
            agent[r.config.seed] = float(cpu)
    return {
        panel: {a: dict(sorted(t.items())) for a, t in sorted(agents.items())}
        for panel, agents in sorted(times.items())
    }


def cpu_table(
    times: Mapping[Panel, Mapping[str, Mapping[int, float]]],
    proposed: str,
    reference: str | None,
) -> str:
    """The mean CPU seconds per run of :func:`cpu_seconds`, panels x agents. When ``proposed``
    and ``reference`` are both given and differ, two more columns: the ratio of their means, and
    the median and the largest of the per-seed ratios over the seeds both ran (paired by seed,
    so one slow run shows as the largest ratio without moving the median)."""
    agents = sorted({a for t in times.values() for a in t})
    ratio = reference if reference != proposed else None
    head = agents + (
        [f"{proposed} / {ratio}", "per seed: median [max]"] if ratio is not None else []
    )
    lines = ["| panel | " + " | ".join(head) + " |", "| --- |" + " ---: |" * len(head)]
    for panel, t in times.items():
        mean = {a: float(np.mean(list(seeds.values()))) for a, seeds in t.items()}
        cells = [f"{mean[a]:.0f}" if a in mean else "–" for a in agents]
        if ratio is not None:
            cells += _ratio_cells(t, mean, proposed, ratio)
        lines.append(f"| {panel.title()} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _ratio_cells(
    times: Mapping[str, Mapping[int, float]], mean: dict[str, float], proposed: str, ratio: str
) -> list[str]:
    """A panel's two ratio cells of :func:`cpu_table`: ``proposed``'s mean CPU time over
    ``ratio``'s, and the median and the largest of their per-seed ratios ("–" for none)."""
    have = proposed in times and ratio in times
    mine, theirs = times.get(proposed, {}), times.get(ratio, {})
    paired = [mine[s] / theirs[s] for s in mine if s in theirs]
    return [
        f"{mean[proposed] / mean[ratio]:.2f}" if have else "–",
        f"{np.median(paired):.2f} [{max(paired):.2f}]" if paired else "–",
    ]


#: What the panel tables show (the published folder's ``README.md`` defines each figure).
PANEL_INTRO = (
    "Per panel (problem · cost set · variance · budget C) and agent, means over the seeds of: "
    "the simple regret after spending 25, 50, 60, 75 and 100% of the budget (`g*` minus the "
    "best value `g` among the plays paid within that spend), the evaluations, and the shares "
    "of the spend on the target set i* (the cheapest set within 10% of `g*`) and on the "
    "costliest set (by mean cost). Every figure is defined in the published runs' `README.md`."
)


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


def claims_markdown(
    runs: Sequence[StoredRun],
    resamples: int = RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    proposed: str = PROPOSED,
    time_reference: str | None = PROPOSED,
) -> str:
    """The whole page: the runs' code version, panel tables, the claims' verdict matrices for
    ``proposed`` against every other agent, the CPU time per run (with ``proposed``'s ratio to
    ``time_reference``'s), the paired differences.

    Raises:
        ValueError: if ``proposed`` has no runs, or two runs of one seed in a panel
            (:func:`~bocvs_env.benchmark.compare.compare_runs`).
    """
    comparisons = compare_runs(
        runs, agent=proposed, metric_names=[m for m, _ in CLAIMS], n_resamples=resamples, seed=seed
    )
    parts = [versions_line(runs), PANEL_INTRO, panel_tables(runs)]
    if comparisons:
        level = comparisons[0].interval.level
        parts.append(
            f"## The claims, panel by panel: {proposed} against each baseline\n\n"
            f"Paired by seed; a win when the {level:.0%} paired bootstrap interval of the mean "
            f"difference ({proposed} minus the baseline) lies on {proposed}'s better side of 0, a "
            "loss when on the other side, a tie when it contains 0 "
            f'(`bocvs compare --agent {proposed}`). "better mean" counts the panels where '
            f"{proposed}'s mean over the paired seeds is the better one, significant or not."
        )
        parts.append(
            f"### Over all panels\n\nPer claim: {proposed}'s win / tie / loss over the panels, "
            f"then the panels where its mean is the better one.\n\n"
            + summary_table(comparisons, proposed)
        )
        parts += [
            claim_matrix(comparisons, m, title.format(agent=proposed), proposed)
            for m, title in CLAIMS
        ]
    times = cpu_seconds(runs)
    if times:
        parts.append(
            "## CPU time per run\n\nMean CPU seconds of a run's process (user + system) over "
            "its seeds, and the ratio of two agents' times, of the means and seed by seed; the "
            "runs shared the machine with other work, so read ratios, not absolute times.\n\n"
            + cpu_table(times, proposed, time_reference)
        )
    if comparisons:
        parts.append("## Paired differences per panel\n\n" + comparison_markdown(comparisons))
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"

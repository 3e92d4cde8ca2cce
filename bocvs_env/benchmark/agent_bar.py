"""Whether a new agent's runs clear the bar of the best agent on the grid, against an archive.

The bar, from the published runs, paired by seed with bootstrap 95% intervals on the final
simple regret (``bocvs compare``'s ``final`` and ``area``, :mod:`bocvs_env.benchmark.compare`):

- the lowest mean of all the archive's agents in at least :data:`LOWEST_IN` of the panels;
- significantly lower than each agent of :data:`WINS_OVER` in at least as many panels as it says;
- significantly higher than no agent of the archive in any panel; on the area under simple
  regret against cost, significantly higher than none of :data:`AREA_NO_LOSS` in any panel;
- CPU time per run at most :data:`CPU_RATIO` times :data:`CPU_REFERENCE`'s on every panel
  (means over the seeds both ran).

``--extras`` checks the bar of the settings beyond the grid instead: no significant loss against
:data:`CPU_REFERENCE` on the final simple regret. Each side is one code version, named on the
page (the archive's agents as ``agent@commit``); a seed fixes the function instance and the
initial design on any commit and machine, so the sides pair by seed. ``bocvs bar`` prints the
page (:mod:`bocvs_env.benchmark.report_commands`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bocvs_env.benchmark.compare import METRICS, PairedComparison, compare_baselines
from bocvs_env.benchmark.panels import Panel
from bocvs_env.benchmark.paper_claims import cpu_seconds
from bocvs_env.benchmark.stats import RESAMPLES
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import versions_line

#: Panels (of 16) in which the agent's mean final simple regret must be the lowest.
LOWEST_IN = 12
#: Archive agent -> panels in which the agent must be significantly lower.
WINS_OVER = {"etc": 8, "etc-50": 4}
#: Archive agents the agent may lose to on the area in no panel.
AREA_NO_LOSS = ("etc", "etc-50")
#: The CPU time per run is compared with this agent's.
CPU_REFERENCE = "etc"
CPU_RATIO = 2.0


def _base(label: str) -> str:
    """An archive agent's name without its ``@commit``."""
    return label.rsplit("@", 1)[0]


def final_regrets(runs: Sequence[StoredRun]) -> dict[Panel, dict[str, dict[int, float]]]:
    """Per panel and agent, the final simple regret of each seed's run."""
    out: dict[Panel, dict[str, dict[int, float]]] = {}
    for r in runs:
        by_seed = out.setdefault(Panel.of(r), {}).setdefault(r.config.agent, {})
        by_seed[r.config.seed] = METRICS["final"].value(r.record)
    return out


def _over(values: dict[int, float], seeds: Sequence[int]) -> float:
    return float(np.mean([values[s] for s in seeds]))


def bar_markdown(
    runs: Sequence[StoredRun],
    baselines: Sequence[StoredRun],
    agent: str,
    extras: bool = False,
    n_resamples: int = RESAMPLES,
) -> str:
    """The page: per panel the means, the verdicts and the CPU ratio, then the bar's items."""
    comps = compare_baselines(
        runs, [baselines], agent=agent, metric_names=("final", "area"), n_resamples=n_resamples
    )
    verdict = {(c.panel, _base(c.reference), c.metric): c for c in comps}
    finals, cpus = final_regrets([*runs, *baselines]), cpu_seconds([*runs, *baselines])
    others = sorted({_base(c.reference) for c in comps})
    lines = [
        f"Agent: {versions_line(runs)} Archive: {versions_line(baselines)}",
        "",
        "Per panel: the mean final simple regret over the seeds both ran, with the verdict of "
        f"{agent} against each agent (W / T / L: significantly lower / no difference / higher, "
        f"paired bootstrap 95% interval); `*` marks the lowest mean; area: the verdicts on the "
        f"area under regret against cost; CPU: mean CPU seconds per run over {CPU_REFERENCE}'s.",
        "",
        "| panel | " + " | ".join([agent, *others]) + f" | area vs {', '.join(AREA_NO_LOSS)} | "
        f"CPU / {CPU_REFERENCE} |",
        "| --- |" + " ---: |" * (len(others) + 3),
    ]
    counts = _Counts()
    for panel, by_agent in sorted(finals.items()):
        if agent not in by_agent:
            continue
        row = _panel_row(panel, by_agent, cpus.get(panel, {}), verdict, agent, others, counts)
        lines.append(row)
    lines += ["", *counts.bar(extras, len(counts.panels))]
    return "\n".join(lines) + "\n"


class _Counts:
    """The tallies the bar is judged on, filled panel by panel."""

    def __init__(self) -> None:
        self.panels: list[Panel] = []
        self.lowest = 0
        self.wins = dict.fromkeys(WINS_OVER, 0)
        self.losses: list[str] = []
        self.area_losses: list[str] = []
        self.cpu_over: list[str] = []

    def bar(self, extras: bool, n: int) -> list[str]:
        """The bar's items, each with what was measured and whether it is met."""
        if extras:
            lost = [x for x in self.losses if x.endswith(f"against {CPU_REFERENCE}")]
            return [_item(f"no significant loss against {CPU_REFERENCE}", not lost, lost)]
        items = [_item(f"lowest mean in {self.lowest} of {n} panels (at least {LOWEST_IN})",
                       self.lowest >= LOWEST_IN, [])]  # fmt: skip
        for other, need in WINS_OVER.items():
            got = self.wins[other]
            items.append(_item(f"significantly lower than {other} in {got} panels (at least "
                               f"{need})", got >= need, []))  # fmt: skip
        items.append(_item("no significant loss to any agent", not self.losses, self.losses))
        items.append(_item("on the area, no significant loss to " + ", ".join(AREA_NO_LOSS),
                           not self.area_losses, self.area_losses))  # fmt: skip
        items.append(_item(f"CPU per run at most {CPU_RATIO:g}x {CPU_REFERENCE}'s on every panel",
                           not self.cpu_over, self.cpu_over))  # fmt: skip
        return items


def _item(text: str, met: bool, where: list[str]) -> str:
    said = f" (not met: {'; '.join(where)})" if where else ""
    return f"- {'met' if met else 'NOT met'}: {text}{said}"


def _panel_row(
    panel: Panel,
    by_agent: dict[str, dict[int, float]],
    cpu: dict[str, dict[int, float]],
    verdict: dict[tuple[Panel, str, str], PairedComparison],
    agent: str,
    others: list[str],
    counts: _Counts,
) -> str:
    """One panel's row of :func:`bar_markdown`, its tallies added to ``counts``."""
    counts.panels.append(panel)
    means: dict[str, float] = {}
    cells = []
    for other in others:
        c = verdict.get((panel, other, "final"))
        if c is None:
            cells.append("–")
            continue
        means[other] = _over(by_agent[other], c.seeds)
        v = c.verdict()
        cells.append(f"{means[other]:.3g} {v[0].upper()}")
        if other in counts.wins and v == "win":
            counts.wins[other] += 1
        if v == "loss":
            counts.losses.append(f"{panel.title()} against {other}")
    own = _over(by_agent[agent], sorted(by_agent[agent]))
    lowest = all(own < m for m in means.values())
    counts.lowest += lowest
    area = _area_cells(panel, verdict, counts)
    ratio = _cpu_ratio(cpu, agent)
    if ratio > CPU_RATIO:
        counts.cpu_over.append(f"{panel.title()}: {ratio:.2f}x")
    head = f"{own:.3g}{' *' if lowest else ''}"
    return (
        f"| {panel.title()} | {head} | "
        + " | ".join(cells)
        + f" | {' '.join(area)} | {ratio:.2f} |"
    )


def _area_cells(
    panel: Panel, verdict: dict[tuple[Panel, str, str], PairedComparison], counts: _Counts
) -> list[str]:
    """A panel's verdicts on the area against each agent of :data:`AREA_NO_LOSS` (W, T, L or
    "–"), its losses added to ``counts``."""
    cells = []
    for other in AREA_NO_LOSS:
        c = verdict.get((panel, other, "area"))
        cells.append(c.verdict()[0].upper() if c is not None else "–")
        if c is not None and c.verdict() == "loss":
            counts.area_losses.append(f"{panel.title()} against {other}")
    return cells


def _cpu_ratio(cpu: dict[str, dict[int, float]], agent: str) -> float:
    """``agent``'s mean CPU seconds per run over :data:`CPU_REFERENCE`'s, on their common seeds
    (NaN without them)."""
    seeds = sorted(set(cpu.get(agent, {})) & set(cpu.get(CPU_REFERENCE, {})))
    if not seeds:
        return float("nan")
    return _over(cpu[agent], seeds) / _over(cpu[CPU_REFERENCE], seeds)

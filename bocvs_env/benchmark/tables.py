"""Markdown summary tables: one per panel (problem x cost set x variance x budget), one row per
agent, with figures from :func:`bocvs_env.metrics.summarize`: final simple regret and
evaluations (mean ± standard error over seeds) and the mean share of the spend per control
set."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bocvs_env import metrics
from bocvs_env.benchmark.panels import group_panels, mean_and_se
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import versions_line

#: What the tables' figures are, printed under them.
FOOTNOTE = (
    "± is one standard error of the mean over seeds (sample std / sqrt(seeds)); "
    "set i spend % is the mean share of the spend (the costs paid) on control set i."
)


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
    parts = [versions_line(r.provenance for r in runs)]
    for panel, agents in panels.items():
        m = next(iter(agents.values()))[0].set_max.size
        head = ["agent", "seeds", "final simple regret (mean ± SE)", "evaluations (mean ± SE)"]
        head += [f"set {i} spend %" for i in range(m)]
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

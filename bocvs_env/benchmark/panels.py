"""Grouping stored runs the way the papers present them: one panel per problem x cost set x
variance (x budget), one curve or table row per agent, one sample per seed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from bocvs_env.benchmark.stored_run import StoredRun
from bocvs_env.evaluation import EpisodeRecord


@dataclass(frozen=True, order=True)
class Panel:
    """A problem setting: what one plot panel or summary table shows."""

    problem: str
    cost_set: str
    variance: float
    budget: float

    def title(self) -> str:
        """``problem · cost set · variance · budget``."""
        return f"{self.problem} · {self.cost_set} · var {self.variance:g} · C={self.budget:g}"

    @classmethod
    def of(cls, run: StoredRun) -> Panel:
        """The panel a run belongs to."""
        c = run.config
        return cls(c.problem, c.cost_set, c.variance, c.budget)


def group_panels(runs: Iterable[StoredRun]) -> dict[Panel, dict[str, list[EpisodeRecord]]]:
    """Panels in sorted order; within each, agent name -> its records sorted by seed."""
    panels: dict[Panel, dict[str, list[tuple[int, EpisodeRecord]]]] = {}
    for run in runs:
        agents = panels.setdefault(Panel.of(run), {})
        agents.setdefault(run.config.agent, []).append((run.config.seed, run.record))
    return {
        panel: {
            agent: [rec for _, rec in sorted(recs, key=lambda t: t[0])]
            for agent, recs in sorted(agents.items())
        }
        for panel, agents in sorted(panels.items())
    }


def mean_and_se(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error over the first axis of ``seeds x ...`` values (s.e. 0 for one
    seed)."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    se = values.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(values.shape[1:])
    return values.mean(axis=0), se

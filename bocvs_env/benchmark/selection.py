"""Which runs a report reads when no sweep names them: a filter on the runs' configurations.

A report given flags alone (``bocvs table --problems hartmann6_12d``, ``bocvs compare
--agents etc``) selects every run that matches each flag given; an axis without a flag is not
filtered, so every agent, seed, cost set, ... present is read. (A sweep, by contrast, names
exactly the runs of its product, with its own defaults; ``bocvs run`` needs one.)

A published folder applies the filter to ``runs.parquet`` before it reads the steps of the
runs it keeps (:meth:`~bocvs_env.benchmark.published.PublishedRuns.runs`), so that a report on
one panel of a large archive reads that panel's steps only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bocvs_env.benchmark.config import RunConfig
from bocvs_env.benchmark.panels import Panel


def _set(values: Iterable[Any] | None) -> frozenset[Any] | None:
    return None if values is None else frozenset(values)


@dataclass(frozen=True)
class RunFilter:
    """Runs whose configuration matches every field that is not ``None``.

    Attributes:
        problems, cost_sets, variances, budgets, agents, seeds: the values kept on each axis.
        panels: the panels (problem x cost set x variance x budget) kept.
    """

    problems: frozenset[str] | None = None
    cost_sets: frozenset[str] | None = None
    variances: frozenset[float] | None = None
    budgets: frozenset[float] | None = None
    agents: frozenset[str] | None = None
    seeds: frozenset[int] | None = None
    panels: frozenset[Panel] | None = None

    @classmethod
    def of(
        cls,
        problems: Iterable[str] | None = None,
        cost_sets: Iterable[str] | None = None,
        variances: Iterable[float] | None = None,
        budgets: Iterable[float] | None = None,
        agents: Iterable[str] | None = None,
        seeds: Iterable[int] | None = None,
        panels: Iterable[Panel] | None = None,
    ) -> RunFilter:
        """A filter from any iterables (``None``: that axis is not filtered)."""
        return cls(
            _set(problems),
            _set(cost_sets),
            _set(None if variances is None else map(float, variances)),
            _set(None if budgets is None else map(float, budgets)),
            _set(agents),
            _set(seeds),
            _set(panels),
        )

    def _axes(self, config: RunConfig) -> dict[str, Any]:
        c = config
        return {
            "problems": c.problem,
            "cost_sets": c.cost_set,
            "variances": float(c.variance),
            "budgets": float(c.budget),
            "agents": c.agent,
            "seeds": int(c.seed),
            "panels": Panel(c.problem, c.cost_set, float(c.variance), float(c.budget)),
        }

    def matches(self, config: RunConfig) -> bool:
        """Whether the run of ``config`` is kept."""
        return all(
            getattr(self, axis) is None or value in getattr(self, axis)
            for axis, value in self._axes(config).items()
        )

    def mask(self, frame: Any) -> Any:
        """The rows of a runs table (``runs.parquet``'s columns, a pandas DataFrame) that are
        kept, as a boolean Series."""
        keep = frame["key"].notna()
        for axis, column in (
            ("problems", "problem"),
            ("cost_sets", "cost_set"),
            ("variances", "variance"),
            ("budgets", "budget"),
            ("agents", "agent"),
            ("seeds", "seed"),
        ):
            wanted = getattr(self, axis)
            if wanted is not None:
                keep &= frame[column].isin(list(wanted))
        if self.panels is not None:
            columns = ["problem", "cost_set", "variance", "budget"]
            rows = frame[columns].itertuples(index=False, name=None)
            wanted_panels = {(p.problem, p.cost_set, p.variance, p.budget) for p in self.panels}
            keep &= frame["key"].notna().to_numpy() & [row in wanted_panels for row in rows]
        return keep

    @property
    def name(self) -> str:
        """``cli-<digest>``: names the plot folder of a report on this selection."""
        data = {
            k: sorted(map(str, v)) for k, v in vars(self).items() if v is not None
        }  # a digest of what is filtered
        text = json.dumps(data, sort_keys=True)
        return f"cli-{hashlib.sha256(text.encode()).hexdigest()[:8]}"

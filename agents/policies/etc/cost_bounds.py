"""Cost bounds of the explore-then-commit policy: each set's optimistic cost in exploitation,
from which ``S3`` takes the cheapest sets of ``S1``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np

from agents.costs.estimates import bernstein_cost_lcb, cost_lcb
from agents.policies.etc.port import Observed


class CostBound(Protocol):
    """Optimistic costs of the sets in exploitation."""

    def lower(self, observed: Observed, horizon: float) -> np.ndarray:
        """``(m,)`` cost lower bounds with horizon ``T = horizon``, in cost units."""


@dataclass(frozen=True)
class HoeffdingCostBound:
    """Algorithm 1 line 24 (Hoang, Nguyen & Tran, AAAI 2025):
    ``max(c_hat_i - sqrt(2 log T / n_i), 0)`` (:func:`agents.costs.estimates.cost_lcb`)."""

    name: ClassVar[str] = "hoeffding"

    def lower(self, observed: Observed, horizon: float) -> np.ndarray:
        return cost_lcb(observed.cost_sums, observed.plays, horizon)


@dataclass(frozen=True)
class BernsteinCostBound:
    """FETC's empirical-Bernstein bound (Maurer & Pontil, COLT 2009;
    :func:`agents.costs.estimates.bernstein_cost_lcb`), with the costs' support of length
    ``cost_range`` (``None``: each set's observed range)."""

    name: ClassVar[str] = "bernstein"
    cost_range: float | None = None

    def lower(self, observed: Observed, horizon: float) -> np.ndarray:
        return bernstein_cost_lcb(observed.cost_draws, horizon, self.cost_range)

"""Tolerances of the explore-then-commit policy: how far below the largest lower bound of a
value a set's upper bound may be for the set to enter ``S1``, and how the tolerance shrinks."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np

from agents.policies.etc.port import Observed
from agents.policies.etc.state import ETCState
from agents.rules.set_selection import halving_alpha


class Tolerance(Protocol):
    """This round's ``alpha`` and the threshold it sets (with current bounds; Algorithm 1's
    bars use :class:`RelativeTolerance`'s form)."""

    def alpha(self, state: ETCState, observed: Observed) -> float:
        """This exploitation round's tolerance."""

    def threshold(self, observed: Observed, lcb: float, alpha: float) -> float:
        """The value a set's upper bound must exceed for ``S1``, from the largest lower
        bound ``lcb`` (in the units of ``y``)."""


@dataclass(frozen=True)
class RelativeTolerance:
    """Algorithm 1's tolerance (Hoang, Nguyen & Tran, AAAI 2025): ``S1`` needs
    ``max U_i > (1 - alpha) max L``, ``alpha`` from ``alpha0`` halved every ``halve_every``
    exploitation decisions (``None``: ``d``; :func:`agents.rules.set_selection.halving_alpha`).
    Relative to the value, so it moves with the objective's offset: where ``g* = 414``,
    ``alpha0 = 0.1`` admits sets 41 below."""

    name: ClassVar[str] = "relative"
    alpha0: float = 0.1
    halve_every: int | None = None

    def alpha(self, state: ETCState, observed: Observed) -> float:
        return halving_alpha(state.n_exploit, self.alpha0, self.halve_every or observed.task.dim)

    def threshold(self, observed: Observed, lcb: float, alpha: float) -> float:
        return (1.0 - alpha) * lcb


@dataclass(frozen=True)
class RangeTolerance:
    """GETC's tolerance, in units of the observed range of ``y`` (``max y - min y``), halved per
    ``halve_spend`` of the budget spent in exploitation: ``S1`` needs
    ``max U_i > max L - alpha (max y - min y)``. Invariant to the objective's offset and scale
    (it is Algorithm 1's ``(1 - alpha) max L`` where ``y``'s minimum is 0), and tightened by
    spend rather than by decisions, so a decision's size (a ``hold``) does not change the
    schedule."""

    name: ClassVar[str] = "range"
    alpha0: float = 0.1
    halve_spend: float = 0.1

    def alpha(self, state: ETCState, observed: Observed) -> float:
        spent = max(observed.spent - state.explore_spent, 0.0)
        halvings = math.floor(spent / (self.halve_spend * observed.task.budget))
        return halving_alpha(halvings, self.alpha0)

    def threshold(self, observed: Observed, lcb: float, alpha: float) -> float:
        spread = float(np.ptp(observed.y)) if observed.y.size else 0.0
        return lcb - alpha * spread

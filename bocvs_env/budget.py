"""Exact budget accounting: a play is refused only when its drawn cost exceeds what is left.

Costs and budgets are floats. Each is taken at the value of its shortest decimal form (what
``repr`` prints and what a user types: ``0.01``, not the binary ``0.0100000000000000002...``), and
what has been spent is kept as an exact rational (:class:`fractions.Fraction`). The rule therefore
holds exactly for any budget and any cost, and does not drift with the number of plays: always
playing a set of cost 0.01 with budget 1.0 pays for 100 plays (a running float sum reaches
0.99000000000000066 after 99 plays and refuses the 100th). What is reported as spent is the exact
sum rounded to the nearest float, so it never exceeds the budget either (rounding is monotone and
the budget's decimal rounds back to the budget).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def exact(value: float) -> Fraction:
    """The shortest decimal that rounds to the float ``value``, as an exact rational.

    Raises:
        ValueError: for a value that is not finite.
    """
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"a cost or budget must be finite, got {value!r}")
    return Fraction(repr(value))


class Ledger:
    """What a budget has paid for, kept exactly (see the module docstring).

    Args:
        budget: the total that may be spent, in cost units (> 0).
    """

    def __init__(self, budget: float) -> None:
        self.budget = float(budget)
        self._budget = exact(budget)
        self._spent = Fraction(0)

    def fits(self, cost: float) -> bool:
        """Whether ``cost`` can be paid from what is left (a cost equal to it fits)."""
        return exact(cost) <= self._budget - self._spent

    def pay(self, cost: float) -> None:
        """Pay ``cost``.

        Raises:
            ValueError: if it does not fit (:meth:`fits`).
        """
        if not self.fits(cost):
            raise ValueError(f"cost {cost!r} exceeds the {self.remaining!r} left of the budget")
        self._spent += exact(cost)

    @property
    def spent(self) -> float:
        """What has been paid, rounded to the nearest float (never above the budget)."""
        return float(self._spent)

    @property
    def remaining(self) -> float:
        """What is left, rounded to the nearest float (never negative)."""
        return float(self._budget - self._spent)


def cumulative_spend(costs: np.ndarray) -> np.ndarray:
    """The exact running sums of ``costs`` (shape ``(T,)``), each rounded to a float: ``(T,)``."""
    total = Fraction(0)
    out = np.empty(len(costs), dtype=np.float64)
    for t, cost in enumerate(costs):
        total += exact(cost)
        out[t] = float(total)
    return out

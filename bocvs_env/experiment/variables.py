"""A process variable in its own units, and its map to the agents' ``[0, 1]``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Variable:
    """One input of a process: its name and range in its own units.

    Agents work on ``[0, 1]``: ``low`` maps to 0 and ``high`` to 1, linearly, or linearly in
    ``log(value)`` when ``log`` (then ``0 < low``).

    Attributes:
        name: the variable's name, as the operator knows it.
        low: the smallest value, in the variable's units.
        high: the largest value (``> low``).
        log: whether the agents search it on a log scale.
    """

    name: str
    low: float
    high: float
    log: bool = False

    def _ends(self) -> tuple[float, float]:
        if self.log:
            return math.log(self.low), math.log(self.high)
        return self.low, self.high

    def to_unit(self, value: np.ndarray | float) -> np.ndarray:
        """Values in the variable's units (any shape) as points of ``[0, 1]`` (same shape)."""
        lo, hi = self._ends()
        v = np.asarray(value, dtype=np.float64)
        if self.log:
            v = np.log(v)
        return np.clip((v - lo) / (hi - lo), 0.0, 1.0)

    def from_unit(self, u: np.ndarray | float) -> np.ndarray:
        """Points of ``[0, 1]`` (any shape) as values in the variable's units (same shape),
        the ends exactly ``low`` and ``high``."""
        lo, hi = self._ends()
        u = np.asarray(u, dtype=np.float64)
        v = lo + u * (hi - lo)
        if self.log:
            v = np.exp(v)
        return np.where(u <= 0.0, self.low, np.where(u >= 1.0, self.high, v))

    def inside(self, value: float) -> bool:
        """Whether ``value`` (in the variable's units) lies in ``[low, high]``."""
        return self.low <= value <= self.high

"""The papers' synthetic objectives, on BoTorch's test functions, negated and shifted to be >= 0.

* Hartmann-6 in 12-D (Hoang et al. 2025): negated Hartmann-6 on dims 0-5, dims 6-11 inert.
  Negated Hartmann is a positive sum of exponentials, so the shift is 0; maximum 3.32237.
* Ackley-6 in 12-D: Ackley on ``[-32.768, 32.768]^6`` mapped from dims 0-5, negated, shifted by
  the analytic bound ``20 + e - exp(-1)`` (Ackley never exceeds it); maximum ``20 + e - exp(-1)``.
* Levy-6 in 12-D: Levy on ``[-10, 10]^6`` mapped from dims 0-5, negated, shifted by 414.415,
  an upper bound of Levy-6 on its box (Levy's terms are separable per coordinate, so its maximum
  414.41404 follows from one-dimensional maxima); maximum 414.415.
* Hartmann-3 (Tay et al. 2023): negated Hartmann-3, shift 0, maximum 3.86278.
"""

from __future__ import annotations

import math

import torch
from botorch.test_functions.synthetic import Ackley, Hartmann, Levy, SyntheticTestFunction
from torch import Tensor

from bocvs_env.problems.objective import Objective

ACKLEY_SHIFT = 20.0 + math.e - math.exp(-1.0)
LEVY6_SHIFT = 414.415


class EmbeddedTestFunction(Objective):
    """A negated BoTorch test function on the first ``active_dim`` of ``dim`` inputs.

    Args:
        function: the BoTorch test function (a minimisation problem on its own ``bounds``).
        dim: the total input dimension; inputs beyond the function's own are inert.
        shift: added to the negated values so that they are ``>= 0``.
        name: a short name.
    """

    def __init__(self, function: SyntheticTestFunction, dim: int, shift: float, name: str) -> None:
        self.function = function
        self.active_dim = int(function.dim)
        if dim < self.active_dim:
            raise ValueError(f"dim {dim} is smaller than the function's {self.active_dim}")
        self.dim = dim
        self.shift = float(shift)
        self.name = name
        bounds = function.bounds.to(torch.float64)
        self._lower = bounds[0]
        self._width = bounds[1] - bounds[0]
        self.optimal_value = -float(function.optimal_value) + self.shift

    def raw(self, X: Tensor) -> Tensor:
        Z = self._lower + X[..., : self.active_dim] * self._width
        return -self.function.evaluate_true(Z)


def hartmann6_12d() -> EmbeddedTestFunction:
    """Negated Hartmann-6 on dims 0-5 of a 12-D cube (dims 6-11 do nothing)."""
    return EmbeddedTestFunction(Hartmann(dim=6), dim=12, shift=0.0, name="hartmann6_12d")


def ackley6_12d() -> EmbeddedTestFunction:
    """Negated, shifted Ackley-6 on dims 0-5 of a 12-D cube."""
    return EmbeddedTestFunction(Ackley(dim=6), dim=12, shift=ACKLEY_SHIFT, name="ackley6_12d")


def levy6_12d() -> EmbeddedTestFunction:
    """Negated, shifted Levy-6 on dims 0-5 of a 12-D cube."""
    return EmbeddedTestFunction(Levy(dim=6), dim=12, shift=LEVY6_SHIFT, name="levy6_12d")


def hartmann3() -> EmbeddedTestFunction:
    """Negated Hartmann-3 on the 3-D cube (UCB-CVS)."""
    return EmbeddedTestFunction(Hartmann(dim=3), dim=3, shift=0.0, name="hartmann3")

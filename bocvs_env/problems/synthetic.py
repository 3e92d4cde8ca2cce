"""The papers' synthetic objectives, negated and shifted to be >= 0.

* Hartmann-6 in 12-D (Hoang et al. 2025): negated Hartmann-6 on dims 0-5, dims 6-11 inert.
  Negated Hartmann is a positive sum of exponentials, so the shift is 0; maximum 3.32237.
* Ackley-6 in 12-D: Ackley on ``[-32.768, 32.768]^6`` mapped from dims 0-5, negated, shifted by
  the analytic bound ``20 + e - exp(-1)`` (Ackley never exceeds it); maximum ``20 + e - exp(-1)``.
* Levy-6 in 12-D: Levy on ``[-10, 10]^6`` mapped from dims 0-5, negated, shifted by 414.415,
  an upper bound of Levy-6 on its box (Levy's terms are separable per coordinate, so its maximum
  414.41404 follows from one-dimensional maxima); maximum 414.415.
* Hartmann-3 (Tay et al. 2023): negated Hartmann-3, shift 0, maximum 3.86278.

The functions are the standard definitions (Surjanovic & Bingham's library, as in
``botorch.test_functions``), written here without input validation because the environment
evaluates them once per step; tests check them against BoTorch's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from bocvs_env.problems.objective import Objective

ACKLEY_SHIFT = 20.0 + math.e - math.exp(-1.0)
LEVY6_SHIFT = 414.415

_HARTMANN_ALPHA = torch.tensor([1.0, 1.2, 3.0, 3.2], dtype=torch.float64)
_HARTMANN3_A = torch.tensor(
    [[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]], dtype=torch.float64
)
_HARTMANN3_P = 1e-4 * torch.tensor(
    [[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]],
    dtype=torch.float64,
)
_HARTMANN6_A = torch.tensor(
    [
        [10, 3, 17, 3.5, 1.7, 8],
        [0.05, 10, 17, 0.1, 8, 14],
        [3, 3.5, 1.7, 10, 17, 8],
        [17, 8, 0.05, 10, 0.1, 14],
    ],
    dtype=torch.float64,
)
_HARTMANN6_P = 1e-4 * torch.tensor(
    [
        [1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381],
    ],
    dtype=torch.float64,
)


def neg_hartmann(X: Tensor, A: Tensor, P: Tensor) -> Tensor:
    """Negated Hartmann on ``[0, 1]^k``: ``sum_j alpha_j exp(-sum_l A_jl (x_l - P_jl)^2)``.

    ``X`` is ``batch_shape x k``; returns ``batch_shape``.
    """
    inner = (A * (X.unsqueeze(-2) - P) ** 2).sum(dim=-1)
    return (_HARTMANN_ALPHA * torch.exp(-inner)).sum(dim=-1)


def ackley(Z: Tensor) -> Tensor:
    """Ackley (a=20, b=0.2, c=2 pi) on raw inputs ``Z`` (``batch_shape x k``)."""
    k = Z.shape[-1]
    part1 = -20.0 * torch.exp(-0.2 * torch.linalg.norm(Z, dim=-1) / math.sqrt(k))
    part2 = -torch.exp(torch.cos(2.0 * math.pi * Z).mean(dim=-1))
    return part1 + part2 + 20.0 + math.e


def levy(Z: Tensor) -> Tensor:
    """Levy on raw inputs ``Z`` (``batch_shape x k``)."""
    w = 1.0 + (Z - 1.0) / 4.0
    part1 = torch.sin(math.pi * w[..., 0]) ** 2
    part2 = (
        (w[..., :-1] - 1.0) ** 2 * (1.0 + 10.0 * torch.sin(math.pi * w[..., :-1] + 1.0) ** 2)
    ).sum(-1)
    part3 = (w[..., -1] - 1.0) ** 2 * (1.0 + torch.sin(2.0 * math.pi * w[..., -1]) ** 2)
    return part1 + part2 + part3


class EmbeddedFunction(Objective):
    """A function of the first ``active_dim`` of ``dim`` inputs; the others are inert.

    Args:
        raw_fn: maps ``batch_shape x active_dim`` points of the cube to raw values to maximize.
        active_dim: the number of inputs the function uses.
        dim: the total input dimension.
        shift: added to the raw values so that they are ``>= 0``.
        optimal_value: the known maximum of the shifted function.
        optimizer: a maximizer of the function in its ``active_dim`` inputs (inert inputs 0.5).
        name: a short name.
    """

    def __init__(
        self,
        raw_fn: Callable[[Tensor], Tensor],
        active_dim: int,
        dim: int,
        shift: float,
        optimal_value: float,
        optimizer: tuple[float, ...],
        name: str,
    ) -> None:
        if dim < active_dim:
            raise ValueError(f"dim {dim} is smaller than the function's {active_dim}")
        self.raw_fn = raw_fn
        self.active_dim = active_dim
        self.dim = dim
        self.shift = float(shift)
        self.optimal_value = float(optimal_value)
        self.optimizers = torch.full((1, dim), 0.5, dtype=torch.float64)
        self.optimizers[0, :active_dim] = torch.tensor(optimizer, dtype=torch.float64)
        self.name = name

    def raw(self, X: Tensor) -> Tensor:
        return self.raw_fn(X[..., : self.active_dim])


def _neg_hartmann6(X: Tensor) -> Tensor:
    return neg_hartmann(X, _HARTMANN6_A, _HARTMANN6_P)


def _neg_hartmann3(X: Tensor) -> Tensor:
    return neg_hartmann(X, _HARTMANN3_A, _HARTMANN3_P)


def _neg_ackley_cube(X: Tensor) -> Tensor:
    return -ackley(65.536 * X - 32.768)


def _neg_levy_cube(X: Tensor) -> Tensor:
    return -levy(20.0 * X - 10.0)


def hartmann6_12d() -> EmbeddedFunction:
    """Negated Hartmann-6 on dims 0-5 of a 12-D cube (dims 6-11 do nothing)."""
    return EmbeddedFunction(
        _neg_hartmann6,
        6,
        12,
        0.0,
        3.32237,
        (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573),
        "hartmann6_12d",
    )


def ackley6_12d() -> EmbeddedFunction:
    """Negated, shifted Ackley-6 on dims 0-5 of a 12-D cube, ``[0, 1]`` mapped to ±32.768."""
    return EmbeddedFunction(
        _neg_ackley_cube, 6, 12, ACKLEY_SHIFT, ACKLEY_SHIFT, (0.5,) * 6, "ackley6_12d"
    )


def levy6_12d() -> EmbeddedFunction:
    """Negated, shifted Levy-6 on dims 0-5 of a 12-D cube, ``[0, 1]`` mapped to ``[-10, 10]``."""
    return EmbeddedFunction(
        _neg_levy_cube, 6, 12, LEVY6_SHIFT, LEVY6_SHIFT, (0.55,) * 6, "levy6_12d"
    )


def hartmann3() -> EmbeddedFunction:
    """Negated Hartmann-3 on the 3-D cube (UCB-CVS)."""
    return EmbeddedFunction(
        _neg_hartmann3, 3, 3, 0.0, 3.86278, (0.114614, 0.555649, 0.852547), "hartmann3"
    )

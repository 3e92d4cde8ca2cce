"""A function drawn from a GP with a squared-exponential kernel, one per seed (UCB-CVS).

The draw is approximated by random Fourier features (Rahimi and Recht, 2007)::

    f(x) = sqrt(2 * variance / M) * sum_j w_j cos(omega_j . x + b_j),
    omega_j ~ N(0, I / lengthscale^2),   b_j ~ U[0, 2 pi),   w_j ~ N(0, 1),

whose covariance tends to ``variance * exp(-|x - x'|^2 / (2 lengthscale^2))`` as the number of
features ``M`` grows. Every parameter comes from a ``torch.Generator`` seeded by the function seed,
so one seed gives the same function bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor

from bocvs_env.checks import integer
from bocvs_env.problems.extrema import extremes_on_cube
from bocvs_env.problems.objective import Objective

#: Subtracted from the minimum found, in case the search misses a slightly lower value.
GP_SAMPLE_MARGIN = 0.05


class RandomFourierFeatureFunction:
    """A seeded draw from a zero-mean GP with an SE kernel on ``[0, 1]^dim`` (cheap to build).

    Args:
        seed: seeds the ``torch.Generator`` that draws every parameter.
        dim: the input dimension.
        lengthscale: the SE kernel's lengthscale (> 0).
        n_features: the number of random features ``M`` (>= 1).
        variance: the SE kernel's variance (> 0).
    """

    def __init__(
        self,
        seed: int,
        dim: int = 3,
        lengthscale: float = 0.1,
        n_features: int = 2048,
        variance: float = 1.0,
    ) -> None:
        if not isinstance(dim, int) or dim < 1:
            raise ValueError(f"dim must be a positive integer, got {dim!r}")
        if not isinstance(n_features, int) or n_features < 1:
            raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
        if not lengthscale > 0 or not variance > 0:
            raise ValueError(f"lengthscale ({lengthscale}) and variance ({variance}) must be > 0")
        self.seed = int(seed)
        self.dim = dim
        self.lengthscale = float(lengthscale)
        self.n_features = n_features
        self.variance = float(variance)
        gen = torch.Generator().manual_seed(self.seed)
        kw: dict[str, Any] = {"dtype": torch.float64, "generator": gen}
        self.omega = torch.randn(n_features, dim, **kw) / self.lengthscale  # M x d
        self.phase = 2.0 * math.pi * torch.rand(n_features, **kw)  # M
        self.weights = math.sqrt(2.0 * self.variance / n_features) * torch.randn(n_features, **kw)

    def __call__(self, X: Tensor) -> Tensor:
        """Values at ``X`` (``batch_shape x dim`` float64), of shape ``batch_shape``."""
        return torch.cos(X @ self.omega.T + self.phase) @ self.weights

    def sample_mean(self, fixed: Sequence[int], samples: Tensor) -> Callable[[Tensor], Tensor]:
        """``z -> mean_n f(x_n(z))`` in closed form: again a sum of ``M`` cosines, in ``z`` alone.

        With ``x_n(z)`` holding ``z`` in the ``fixed`` variables ``S`` and ``samples[n]`` in the
        others ``R``, ``cos(omega_j . x_n + b_j) = Re(exp(i (omega_jS . z + b_j))
        exp(i omega_jR . s_nR))``, so the average over ``n`` is ``sum_j w_j r_j cos(omega_jS . z
        + b_j + phi_j)`` with ``r_j exp(i phi_j) = mean_n exp(i omega_jR . s_nR)``: the same
        average as evaluating ``f`` at every sample (up to rounding), at the cost of one
        evaluation of ``f`` per query instead of ``n``.

        Args:
            fixed: the fixed variables (distinct indices in ``[0, dim)``).
            samples: ``n x dim`` values of the other variables (the ``fixed`` columns are unused).

        Returns:
            A function mapping ``batch x k`` float64 tensors (``k = len(fixed)``, columns in the
            order of ``fixed``) to ``batch`` values, differentiably.
        """
        fixed = list(fixed)
        others = [l for l in range(self.dim) if l not in fixed]
        theta = samples[:, others] @ self.omega[:, others].T  # n x M
        re, im = torch.cos(theta).mean(dim=0), torch.sin(theta).mean(dim=0)
        omega = self.omega[:, fixed]  # M x k
        phase = self.phase + torch.atan2(im, re)
        weights = self.weights * torch.hypot(re, im)
        return lambda Z: torch.cos(Z @ omega.T + phase) @ weights


class GPSampleObjective(Objective):
    """A GP sample on ``[0, 1]^dim`` shifted to be ``>= 0``.

    The shift is ``-(min - GP_SAMPLE_MARGIN)``, with ``min`` the smallest value that
    :func:`~bocvs_env.problems.extrema.extremes_on_cube` finds (4096 Sobol points scrambled by the
    function seed, 16 L-BFGS-B starts; kept as ``extremes``); ``optimal_value`` is the largest
    value found by the same search, plus the shift (a lower bound of the true maximum, equal to
    it up to the search's accuracy), and ``optimizers`` its argument.

    Args:
        function: the draw.
        name: a short name.
    """

    closed_form_mean = True

    def __init__(self, function: RandomFourierFeatureFunction, name: str = "gp_sample") -> None:
        self.function = function
        self.dim = function.dim
        self.name = name
        self.extremes = extremes_on_cube(function, function.dim, seed=function.seed)
        self.shift = GP_SAMPLE_MARGIN - self.extremes.min_value
        self.optimal_value = self.extremes.max_value + self.shift
        self.optimizers = self.extremes.argmax[None]  # 1 x dim

    def raw(self, X: Tensor) -> Tensor:
        return self.function(X)

    def sample_mean(
        self, fixed: Sequence[int], samples: Tensor, chunk: int = 64
    ) -> Callable[[Tensor], Tensor]:
        """The average over ``samples`` in closed form
        (:meth:`RandomFourierFeatureFunction.sample_mean`); ``chunk`` is unused (one
        evaluation per query)."""
        mean = self.function.sample_mean(fixed, samples)
        return lambda Z: mean(Z) + self.shift

    def describe(self) -> dict[str, Any]:
        f = self.function
        return {
            **super().describe(),
            "function_seed": f.seed,
            "lengthscale": f.lengthscale,
            "n_features": f.n_features,
            "variance": f.variance,
        }


def gp_sample(
    function_seed: int = 0, lengthscale: float = 0.1, n_features: int = 2048
) -> GPSampleObjective:
    """The 3-D GP-sample objective of UCB-CVS: an SE-kernel GP draw (unit variance) per seed.

    Args:
        function_seed: picks the function (an integer >= 0); the same seed gives the same
            function bit for bit.
        lengthscale: the SE kernel's lengthscale (0.1 in UCB-CVS).
        n_features: random Fourier features of the approximation.

    Raises:
        TypeError: if ``function_seed`` is not an integer; ValueError if it is negative, or
            for a bad ``lengthscale`` or ``n_features``.
    """
    function_seed = integer(function_seed, "function_seed", minimum=0)
    return GPSampleObjective(
        RandomFourierFeatureFunction(function_seed, 3, lengthscale, n_features)
    )

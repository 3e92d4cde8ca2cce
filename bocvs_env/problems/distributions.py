"""Known input distributions ``P_l`` on ``[0, 1]`` for the random (uncontrolled) variables.

Every built-in problem uses :class:`TruncatedNormal` with mean 0.5 whose scale is solved so that
the *truncated* variance equals a target (0.02, 0.04 or 0.08 in the papers; the uniform
distribution on ``[0, 1]`` has 1/12). Distributions sample by inverse CDF, so the same code maps
i.i.d. uniforms and quasi-random (Sobol) points.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri

UNIFORM_VARIANCE = 1.0 / 12.0


class InputDistribution(ABC):
    """A distribution on ``[0, 1]`` sampled through its inverse CDF."""

    @abstractmethod
    def icdf(self, u: np.ndarray) -> np.ndarray:
        """Map probabilities ``u`` (any shape, in ``[0, 1]``) to values in ``[0, 1]``."""

    @property
    @abstractmethod
    def variance(self) -> float:
        """The exact variance of the distribution."""

    @property
    @abstractmethod
    def mean(self) -> float:
        """The exact mean of the distribution."""

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Draw i.i.d. samples of the given shape from ``rng``."""
        return self.icdf(rng.random(size))


@dataclass(frozen=True)
class Uniform(InputDistribution):
    """The uniform distribution on ``[0, 1]``."""

    def icdf(self, u: np.ndarray) -> np.ndarray:
        return np.asarray(u, dtype=np.float64)

    @property
    def variance(self) -> float:
        return UNIFORM_VARIANCE

    @property
    def mean(self) -> float:
        return 0.5


def _symmetric_truncated_variance(scale: float) -> float:
    """Variance of ``N(0.5, scale^2)`` truncated to ``[0, 1]``."""
    beta = 0.5 / scale
    phi = math.exp(-0.5 * beta * beta) / math.sqrt(2.0 * math.pi)
    z = 2.0 * float(ndtr(beta)) - 1.0
    return scale * scale * (1.0 - 2.0 * beta * phi / z)


@dataclass(frozen=True)
class TruncatedNormal(InputDistribution):
    """``N(0.5, scale^2)`` truncated to ``[0, 1]``, parameterised by its truncated variance.

    Args:
        target_variance: the variance of the truncated distribution, in ``(0, 1/12)``.

    The scale of the underlying normal is the root of ``Var_trunc(scale) = target_variance``
    (the truncated variance grows monotonically from 0 to 1/12 as the scale grows), found with
    Brent's method to machine precision.
    """

    target_variance: float
    scale: float = field(init=False)

    def __post_init__(self) -> None:
        v = self.target_variance
        if isinstance(v, numbers.Real) and not isinstance(v, bool):
            v = float(v)  # e.g. a NumPy float
            object.__setattr__(self, "target_variance", v)
        if not (isinstance(v, float) and math.isfinite(v) and 0.0 < v < UNIFORM_VARIANCE):
            raise ValueError(
                f"target_variance must be in (0, 1/12) for a normal truncated to [0, 1], got {v!r}"
            )
        scale = brentq(
            lambda s: _symmetric_truncated_variance(s) - v, 1e-6, 1e3, xtol=1e-15, rtol=1e-15
        )
        object.__setattr__(self, "scale", float(scale))

    @property
    def variance(self) -> float:
        return _symmetric_truncated_variance(self.scale)

    @property
    def mean(self) -> float:
        return 0.5

    def icdf(self, u: np.ndarray) -> np.ndarray:
        lo = ndtr(-0.5 / self.scale)
        p = lo + np.asarray(u, dtype=np.float64) * (1.0 - 2.0 * lo)
        return np.clip(0.5 + self.scale * ndtri(p), 0.0, 1.0)

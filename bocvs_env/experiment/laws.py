"""The laws of variables left to chance, as the agents see them: distributions on ``[0, 1]``.

A problem file states a law in the variable's own units (a physical statement about the value
when nobody sets it); the agents receive its image under the variable's map to ``[0, 1]``
(:class:`~bocvs_env.experiment.variables.Variable`, log scale included). The map is monotone, so
the image's quantile function is the map of the law's quantile function: every law here is
sampled through it, as the environment samples its inputs (:mod:`bocvs_env.problems.distributions`).

- ``uniform``: uniform on ``[low, high]`` in the variable's units (on a log variable, its image is
  not uniform: the law is the value's, not the search scale's);
- ``truncnorm``: ``N(mean, sd^2)`` truncated to ``[low, high]``, in the variable's units;
- ``empirical``: past measurements, through their quantile function (linear interpolation between
  the order statistics, numpy's default ``np.quantile``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import integrate, stats

from bocvs_env.experiment.variables import Variable
from bocvs_env.problems.distributions import InputDistribution

#: The law kinds a problem file may name.
KINDS = ("uniform", "truncnorm", "empirical")


@dataclass(frozen=True)
class MappedLaw(InputDistribution):
    """A law in a variable's units, seen on ``[0, 1]`` through the variable's map.

    Attributes:
        variable: the variable (its range and scale).
        kind: one of :data:`KINDS`.
        params: ``()`` for uniform, ``(mean, sd)`` for truncnorm, the sorted measurements for
            empirical (all in the variable's units).
    """

    variable: Variable
    kind: str
    params: tuple[float, ...] = ()

    def _quantile(self, u: np.ndarray) -> np.ndarray:
        """The law's quantile function in the variable's units."""
        low, high = self.variable.low, self.variable.high
        if self.kind == "uniform":
            return low + u * (high - low)
        if self.kind == "truncnorm":
            mean, sd = self.params
            a, b = (low - mean) / sd, (high - mean) / sd
            return np.asarray(stats.truncnorm.ppf(u, a, b, loc=mean, scale=sd))
        return np.quantile(np.asarray(self.params), u)

    def icdf(self, u: np.ndarray) -> np.ndarray:
        u = np.clip(np.asarray(u, dtype=np.float64), 0.0, 1.0)
        return self.variable.to_unit(self._quantile(u))

    @cached_property
    def _moments(self) -> tuple[float, float]:
        """The mean and variance on ``[0, 1]``, integrating the quantile function."""
        mean = integrate.quad(lambda u: float(self.icdf(np.array(u))), 0.0, 1.0, limit=200)[0]
        second = integrate.quad(lambda u: float(self.icdf(np.array(u))) ** 2, 0.0, 1.0, limit=200)
        return mean, max(second[0] - mean * mean, 0.0)

    @property
    def mean(self) -> float:
        return self._moments[0]

    @property
    def variance(self) -> float:
        return self._moments[1]

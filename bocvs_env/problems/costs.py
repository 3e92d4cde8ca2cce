"""Stochastic cost models of the control sets.

A cost model knows the mean cost ``c_i`` of every control set (the learner does not) and draws a
strictly positive cost each time a set is played. :class:`GaussianCost` follows the paper's noise
rule; subclass :class:`CostModel` for another (a heavy tail, say).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

#: The papers' cost means per control set, in control-set order (Hoang et al. 2025; Tay et al. 2023).
COST_SETS: dict[str, tuple[float, ...]] = {
    "cheap": (0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0),
    "moderate": (0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 1.0),
    "expensive": (0.6, 0.6, 0.6, 0.8, 0.8, 0.8, 1.0),
}


def _validate_means(means: Sequence[float]) -> np.ndarray:
    arr = np.asarray(means, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"cost means must be a non-empty 1-D sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"cost means must be finite and strictly positive, got {arr.tolist()}")
    return arr


class CostModel(ABC):
    """Draws the cost of playing control set ``i``; ``means[i]`` is its (hidden) mean ``c_i``."""

    def __init__(self, means: Sequence[float]) -> None:
        self._means = _validate_means(means)
        self._means.setflags(write=False)

    @property
    def means(self) -> np.ndarray:
        """Mean cost of each control set, shape ``(m,)``, in budget units."""
        return self._means

    @abstractmethod
    def sample(self, i: int, rng: np.random.Generator) -> float:
        """One strictly positive cost draw of control set ``i``, in budget units."""

    def describe(self) -> dict[str, object]:
        """A JSON-able description for result provenance."""
        return {"type": type(self).__name__, "means": self._means.tolist()}


class GaussianCost(CostModel):
    """The paper's rule: ``mean + N(0, noise_std^2)`` when ``mean >= threshold``, else the mean.

    Args:
        means: mean cost per control set, shape ``(m,)``.
        noise_std: standard deviation of the Gaussian noise (the paper writes ``N(0, 0.02)``;
            we read 0.02 as the standard deviation).
        threshold: means below it are charged exactly.
        floor_fraction: draws are clipped from below at ``floor_fraction * mean`` so that they
            stay strictly positive (a clip that a 0.1 mean reaches with probability ~1e-6).
    """

    def __init__(
        self,
        means: Sequence[float],
        noise_std: float = 0.02,
        threshold: float = 0.1,
        floor_fraction: float = 0.01,
    ) -> None:
        super().__init__(means)
        if not np.isfinite(noise_std) or noise_std < 0:
            raise ValueError(f"cost_noise_std must be finite and >= 0, got {noise_std!r}")
        if not 0 < floor_fraction <= 1:
            raise ValueError(f"floor_fraction must be in (0, 1], got {floor_fraction!r}")
        self.noise_std = float(noise_std)
        self.threshold = float(threshold)
        self.floor_fraction = float(floor_fraction)

    def sample(self, i: int, rng: np.random.Generator) -> float:
        mean = float(self._means[i])
        if mean < self.threshold or self.noise_std == 0.0:
            return mean
        return max(mean + self.noise_std * float(rng.standard_normal()), self.floor_fraction * mean)

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "noise_std": self.noise_std,
            "threshold": self.threshold,
            "floor_fraction": self.floor_fraction,
        }


class LogNormalCost(CostModel):
    """A heavy-tailed alternative: ``mean * exp(sigma Z - sigma^2 / 2)`` with ``Z ~ N(0, 1)``.

    Its mean is exactly ``means[i]``; ``sigma`` sets the tail weight.
    """

    def __init__(self, means: Sequence[float], sigma: float = 0.5) -> None:
        super().__init__(means)
        if not np.isfinite(sigma) or sigma < 0:
            raise ValueError(f"sigma must be finite and >= 0, got {sigma!r}")
        self.sigma = float(sigma)

    def sample(self, i: int, rng: np.random.Generator) -> float:
        z = float(rng.standard_normal())
        return float(self._means[i] * np.exp(self.sigma * z - 0.5 * self.sigma**2))

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "sigma": self.sigma}


def cost_model_from_name(name: str, noise_std: float = 0.02) -> GaussianCost:
    """The paper's Gaussian cost model for a named cost set (``cheap``, ``moderate``, ``expensive``)."""
    try:
        means = COST_SETS[name]
    except KeyError:
        raise ValueError(
            f"unknown cost set {name!r}; expected one of {sorted(COST_SETS)}"
        ) from None
    return GaussianCost(means, noise_std=noise_std)

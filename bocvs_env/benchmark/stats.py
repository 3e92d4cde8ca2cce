"""Paired statistics over seeds: the percentile bootstrap of a mean paired difference.

Two agents run on the same seed see the same problem instance, initial design and cost draws
up to their own decisions, so their difference on a seed is the unit of comparison. The
interval is the percentile bootstrap (Efron & Tibshirani 1993, "An Introduction to the
Bootstrap", ch. 13) of the mean of the ``n`` paired differences: resample the ``n`` differences
with replacement ``n_resamples`` times, take each resample's mean, and report the
``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles. With few pairs (5 or 10 seeds) it is
narrower than it should be, so a "win" on it is evidence, not proof.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: The verdicts of :meth:`PairedInterval.verdict`.
VERDICTS = ("win", "tie", "loss")
#: The defaults of every report's paired intervals (:func:`paired_bootstrap`): resamples per
#: interval, coverage, and the seed of each interval's resampling.
RESAMPLES = 10_000
LEVEL = 0.95
BOOTSTRAP_SEED = 0


@dataclass(frozen=True)
class PairedInterval:
    """A mean paired difference ``a - b`` and its bootstrap interval.

    Attributes:
        n: pairs.
        mean: the mean difference (NaN without pairs).
        low: the interval's lower end (NaN with fewer than 2 pairs: no interval).
        high: its upper end (NaN with fewer than 2 pairs).
        level: the interval's coverage, e.g. 0.95.
    """

    n: int
    mean: float
    low: float
    high: float
    level: float

    def verdict(self, lower_is_better: bool = True) -> str:
        """For a difference ``a - b`` of a lower-is-better figure: ``"win"`` for ``a`` when the
        whole interval is below 0, ``"loss"`` when it is above 0, else ``"tie"`` (the interval
        contains 0, or there is none); the other way round for a higher-is-better figure."""
        below, above = self.high < 0, self.low > 0
        if below or above:
            return "win" if below == lower_is_better else "loss"
        return "tie"


def paired_bootstrap(
    differences: npt.ArrayLike,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = BOOTSTRAP_SEED,
) -> PairedInterval:
    """The percentile bootstrap interval of the mean of ``differences`` (shape ``(n,)``).

    Args:
        differences: one paired difference per seed.
        n_resamples: bootstrap resamples (>= 1).
        level: coverage in ``(0, 1)``.
        seed: seeds the resampling, so that the interval is reproducible.

    Raises:
        ValueError: for non-finite differences, ``n_resamples < 1`` or ``level`` outside (0, 1).
    """
    diffs = np.asarray(differences, dtype=np.float64).ravel()
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if not np.all(np.isfinite(diffs)):
        raise ValueError(f"paired differences must be finite, got {diffs.tolist()}")
    n = diffs.size
    if n == 0:
        return PairedInterval(0, float("nan"), float("nan"), float("nan"), level)
    if n == 1:
        return PairedInterval(1, float(diffs[0]), float("nan"), float("nan"), level)
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, n, size=(n_resamples, n))].mean(axis=1)
    low, high = np.quantile(means, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return PairedInterval(n, float(diffs.mean()), float(low), float(high), level)

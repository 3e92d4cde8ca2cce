"""Estimators by sample averages: any posterior with any bound, and GP sample paths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import torch
from torch import Tensor

from agents.acquisition.bounds import Integrand, combine
from agents.acquisition.estimator import Estimator
from agents.acquisition.inputs import RandomInputs
from agents.acquisition.set_acquisition import Part
from agents.surrogate import PathSampleMean, SamplePath


class Posterior(Protocol):
    """What the acquisition needs of a surrogate (:class:`agents.surrogate.GPSurrogate`)."""

    def mean_std(self, X: Tensor) -> tuple[Tensor, Tensor]:
        """``batch_shape x d`` points -> mean and standard deviation, each ``batch_shape``."""
        ...


class SampleAverage(Estimator):
    """The average of the score over the sample rows, all queries and samples in one call.

    Args:
        inputs: the sample.
        surrogate: the posterior (for a named bound).
        score: a named bound or a function of ``batch_shape x d`` points with one value each.
        beta: the confidence multiplier of ``"ucb"`` and ``"lcb"``.
        screen_samples: raw candidates are screened on the first ``screen_samples`` rows only.
    """

    def __init__(
        self,
        inputs: RandomInputs,
        surrogate: Posterior,
        score: Integrand,
        beta: float,
        screen_samples: int,
    ) -> None:
        super().__init__(inputs)
        self.surrogate, self.score, self.beta = surrogate, score, beta
        self.screen_samples = screen_samples

    def value(self, parts: Sequence[Part], n_samples: int | None = None) -> list[Tensor]:
        counts = [self.inputs.count(i, n_samples) for i, _ in parts]
        fulls = [
            self.inputs.full_queries(i, X)[:, :s] for (i, X), s in zip(parts, counts, strict=True)
        ]
        points = torch.cat([f.reshape(-1, f.shape[-1]) for f in fulls])
        values = self._values(points)
        out, lo = [], 0
        for (_, X), s in zip(parts, counts, strict=True):
            b = X.shape[0]
            out.append(values[lo : lo + b * s].reshape(b, s).mean(-1))
            lo += b * s
        return out

    def screen(self, parts: Sequence[Part]) -> list[Tensor]:
        """The expectation over the first ``screen_samples`` rows (a balanced Sobol prefix)."""
        return self.value(parts, self.screen_samples)

    def _values(self, points: Tensor) -> Tensor:
        """The score at ``p x d`` points, shape ``p``."""
        if callable(self.score):
            values = self.score(points)
            if values.numel() != points.shape[0]:
                raise ValueError(
                    f"a path bound must return one value per point (n_paths=1), got shape "
                    f"{tuple(values.shape)} for {points.shape[0]} points"
                )
            return values.reshape(-1)
        mean, std = self.surrogate.mean_std(points)
        return combine(mean, std, self.score, self.beta)


class PathAverage(Estimator):
    """The average of one GP sample path, taken per feature and training point
    (:meth:`SamplePath.averaged_over`, ``O(D + n)`` per query) instead of per query and sample; cheap
    enough to screen with every sample.

    Raises:
        ValueError: for a path object holding more than one path.
    """

    def __init__(self, inputs: RandomInputs, path: SamplePath) -> None:
        super().__init__(inputs)
        if path.n_paths != 1:
            raise ValueError(f"a path bound must have n_paths=1, got {path.n_paths}")
        self.path = path
        #: ``(set, samples used)`` -> the path's averages over those sample rows, computed once
        #: per estimator (one path) instead of once per evaluation.
        self._rows: dict[tuple[int, int], PathSampleMean] = {}

    def value(self, parts: Sequence[Part], n_samples: int | None = None) -> list[Tensor]:
        out = []
        for i, X in parts:
            self.inputs.check_set(i)
            ctrl = self.inputs.controlled(i)
            out.append(
                self.path.averaged_over(X[:, ctrl], ctrl, self._sample_mean(i, n_samples))[0]
            )
        return out

    def _sample_mean(self, i: int, n_samples: int | None) -> PathSampleMean:
        """The path's :meth:`~SamplePath.sample_mean` over set ``i``'s first rows."""
        key = (i, self.inputs.count(i, n_samples))
        if key not in self._rows:
            free = self.inputs.free(i)
            Zr = self.inputs.set_samples(i)[: key[1]][:, free]
            self._rows[key] = self.path.sample_mean(Zr, free)
        return self._rows[key]

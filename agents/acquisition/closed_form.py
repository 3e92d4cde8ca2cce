"""The GP estimator: ``E[mu +- beta sigma]`` and ``E[mu]`` from factorized kernels.

For a :class:`GPSurrogate` the RBF kernel splits into the factor of the controlled variables
(per query) and that of the random variables (per sample, computed once per fit), and the
variance is ``k0 - k^T W k`` with the cached precision ``W``: no kernel is evaluated per query
and sample. Candidates are screened by ``E[mu] +- beta sqrt(E[sigma^2])``, ``O(n^2)`` per
candidate, which equals the expectation where the variance is the same at every sample and
bounds it otherwise (:meth:`GPSurrogate.averaged_moments`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from agents.acquisition.bounds import Bound, combine, sign
from agents.acquisition.estimator import Estimator
from agents.acquisition.gp_cache import GPFactorCache
from agents.acquisition.inputs import RandomInputs
from agents.acquisition.screening import SCREEN_CHUNK, pruned_top
from agents.acquisition.set_acquisition import Part, RefinePlan, Top
from agents.surrogate import CROSS_BLOCK_ELEMENTS, MIN_VARIANCE, GPSurrogate

#: How far the variance of :meth:`GPClosedForm.upper` may be off by rounding, relative to the
#: prior variance (the ``O(n^2)`` quadratic forms of a badly conditioned precision): its bounds
#: are widened by this much.
VARIANCE_SLACK = 1e-6
#: How far the averaged mean of :meth:`GPClosedForm.upper` may be off by rounding, relative to
#: the prior standard deviation.
MEAN_SLACK = 1e-6


class GPClosedForm(Estimator):
    """``E[bound]`` of a GP by factorized kernels, screened in closed form.

    Args:
        inputs: the sample of the random inputs.
        surrogate: the GP.
        bound: ``"ucb"``, ``"lcb"`` or ``"mean"``.
        beta: the confidence multiplier.
        cache: the per-fit factors and screening moments (shared across maximizations).
        exact_mean: take ``E[mu]`` by the closed-form kernel mean embedding, not the samples.
        pre_refine: refine the starts on the screening score before polishing on the exact
            expectation (:meth:`plan`).
        n_polish: the distinct starts per set polished after pre-refinement (``None``: all).
    """

    def __init__(
        self,
        inputs: RandomInputs,
        surrogate: GPSurrogate,
        bound: Bound,
        beta: float,
        cache: GPFactorCache,
        exact_mean: bool = False,
        pre_refine: bool = True,
        n_polish: int | None = 2,
    ) -> None:
        super().__init__(inputs)
        self.surrogate, self.bound, self.beta = surrogate, bound, beta
        self.sign = sign(bound)
        self.cache = cache
        self.exact_mean = exact_mean
        self.pre_refine = pre_refine
        self.n_polish = n_polish

    def value(self, parts: Sequence[Part], n_samples: int | None = None) -> list[Tensor]:
        gp, cache = self.surrogate, self.cache
        counts = [self.inputs.count(i, n_samples) for i, _ in parts]
        As = []
        for i, X in parts:
            self.inputs.check_set(i)
            ctrl = self.inputs.controlled(i)
            As.append(gp.cross_factor(X[:, ctrl], ctrl))  # b x n
        means: list[Tensor] = []
        stds: list[Tensor] = []
        if self.sign != 0.0 or not self.exact_mean:
            F = [
                (A.unsqueeze(-2) * cache.sample_factor(gp, i)[:s]).reshape(
                    A.shape[0] * s, A.shape[-1]
                )
                for A, (i, _), s in zip(As, parts, counts, strict=True)
            ]
            mean, std = gp.posterior_from_cross(torch.cat(F), use_precision=True)
            lo = 0
            for A, s in zip(As, counts, strict=True):
                b = A.shape[0]
                means.append(mean[lo : lo + b * s].reshape(b, s).mean(-1))
                stds.append(std[lo : lo + b * s].reshape(b, s).mean(-1))
                lo += b * s
        if self.exact_mean:
            means = [
                gp.averaged_mean(A, cache.embedding(gp, i))
                for A, (i, _) in zip(As, parts, strict=True)
            ]
        if self.sign == 0.0:
            return means
        return [m + self.sign * self.beta * sd for m, sd in zip(means, stds, strict=True)]

    def screen(self, parts: Sequence[Part]) -> list[Tensor]:
        """``E[mu] +- beta sqrt(E[sigma^2])`` over all samples, ``O(n^2)`` per candidate."""
        out = []
        for i, X in parts:
            ctrl = self.inputs.controlled(i)
            out.append(self._score(ctrl, X[:, ctrl], self.cache.moments(self.surrogate, i)))
        return out

    def _score(self, ctrl: list[int], Zc: Tensor, moments: tuple[Tensor, Tensor]) -> Tensor:
        """:meth:`screen`'s score of ``b x |ctrl|`` controlled values, given the set's
        moments; shape ``b``."""
        A = self.surrogate.cross_factor(Zc, ctrl)
        return combine(*self.surrogate.averaged_moments(A, moments), self.bound, self.beta)

    def upper(self, parts: Sequence[Part]) -> list[Tensor] | None:
        """Upper bounds of :meth:`value` from the screening moments, ``O(n^2)`` a query
        instead of ``O(S n^2)``, widened by :data:`VARIANCE_SLACK` and :data:`MEAN_SLACK`
        against rounding.

        With ``v_s`` the posterior variance at sample ``s`` (standardized) and ``sigma_max`` the
        prior's standard deviation: ``E[sigma] <= sqrt(E[v])`` (Jensen) bounds ``E[u]``, and
        ``E[sigma] >= E[v] / sigma_max`` (as ``sigma <= sigma_max``) bounds ``E[l]``; ``E[mu]``
        is the mean itself. ``None`` without training points, or when the screening matrices
        of the parts' sets do not all fit in the cache (computing one costs as much as valuing
        a point).
        """
        gp = self.surrogate
        if gp.n_train == 0 or self.cache.capacity(gp) < len({i for i, _ in parts}):
            return None
        h = gp.hyper
        floor = MIN_VARIANCE * h.outputscale
        slack = VARIANCE_SLACK * h.outputscale
        out = []
        for i, X in parts:
            ctrl = self.inputs.controlled(i)
            A = gp.cross_factor(X[:, ctrl], ctrl)
            mean, root = gp.averaged_moments(A, self.cache.moments(gp, i))
            mean = mean + MEAN_SLACK * h.outputscale**0.5 * h.y_scale
            var = (root / h.y_scale) ** 2  # the clamped E[v]
            if self.sign > 0:
                out.append(mean + self.beta * h.y_scale * (var + floor + slack).sqrt())
            elif self.sign < 0:
                low = (var - floor - slack).clamp_min(0.0) / h.outputscale**0.5
                out.append(mean - self.beta * h.y_scale * low)
            else:
                out.append(mean)
        return out

    def top(
        self, sets: Sequence[int], idx: Sequence[list[int]], raws: Sequence[Tensor], k: int
    ) -> list[Top]:
        """Per set, set by set (each screening matrix kept in the cache while
        :data:`~agents.acquisition.gp_cache.MOMENT_CACHE_BYTES` allows, the oldest dropped
        first), the ``k`` best raw candidates by :meth:`screen`, computing the ``O(n^2)``
        variance only for candidates whose ``O(n)`` averaged mean plus the widest possible
        ``beta sigma`` can still reach the top (:func:`pruned_top`)."""
        return [self._top(i, ix, Z, k) for i, ix, Z in zip(sets, idx, raws, strict=True)]

    def _top(self, i: int, ix: list[int], Z: Tensor, k: int) -> Top:
        gp = self.surrogate
        low, high = gp.std_range()
        moments = self.cache.moments(gp, i)
        # the r x n cross factors in blocks, never all at once (r is in the thousands for a
        # set without random variables)
        block = max(SCREEN_CHUNK, CROSS_BLOCK_ELEMENTS // max(1, gp.n_train))
        mean = torch.cat(
            [
                gp.averaged_mean(gp.cross_factor(Z[lo : lo + block], ix), moments[0])
                for lo in range(0, Z.shape[0], block)
            ]
        )
        if self.sign == 0.0:
            best = mean.topk(k)
            return Top(best.indices, best.values)
        upper = mean + self.sign * self.beta * (high if self.sign > 0 else low)
        return pruned_top(upper, lambda rows: self._score(ix, Z[rows], moments), k)

    def plan(self, n_sets: int) -> RefinePlan:
        """Pre-refine on the screening score, then polish the best :attr:`n_polish` distinct
        starts per set: all sets at once while their ``n x n`` screening matrices fit in the
        cache, set by set while one does; beyond, polish the best screened starts directly."""
        everything = [list(range(n_sets))]
        if not self.pre_refine:
            return RefinePlan(everything)
        capacity = self.cache.capacity(self.surrogate)
        pre_refine = capacity >= 1
        together = not pre_refine or capacity >= n_sets
        groups = everything if together else [[j] for j in range(n_sets)]
        return RefinePlan(groups, pre_refine, self.n_polish)

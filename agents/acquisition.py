"""Acquisition over random inputs: ``E[u(x^i, X^{-i})]`` and its maximization over ``x^i``.

When control set ``i`` is played, the variables outside it are drawn from their known
distributions, so an agent scores a partial query ``x^i`` by the expectation of a bound of the
GP over those random variables (Hayashi et al. 2022; Tay et al. 2023; Hoang et al. 2025):
``E[u] = E[mu + beta sigma]``, ``E[l] = E[mu - beta sigma]``, ``E[mu]`` or, for Thompson
sampling, ``E[path]`` of a posterior sample path.

The expectation is an average over one fixed, seeded set of scrambled Sobol points mapped through
the inverse CDFs of the distributions (:func:`bocvs_env.goal.quasi_random_inputs`, the
construction the goal evaluator uses). The same points serve every set and every round (common
random numbers), so comparisons between sets and rounds are not blurred by sampling noise, and
128 quasi-random points are far more accurate than the references' 1,024 i.i.d. draws.

Every evaluation is one batched posterior call. For a :class:`GPSurrogate` the RBF kernel is
split into the factor of the controlled variables (per query) and that of the random variables
(per sample, computed once per fit), and the variance is ``k0 - k^T W k`` with the cached
precision ``W``; a Thompson-sampling path is averaged per feature and training point
(:meth:`SamplePath.averaged`), ``O(D + n)`` per query.

Maximization (:meth:`ExpectedAcquisition.maximize`), for all requested sets at once:

1. screen scrambled Sobol candidates per set (``raw_samples``, up to :data:`RAW_SCALE_MAX` times
   more for a set whose expectation needs fewer samples, e.g. one with no random variables) and
   the observed inputs (the surrogate's training points) with a cheap score (for a GP,
   ``E[mu] +- beta sqrt(E[sigma^2])``, ``O(n^2)`` per candidate, which equals the expectation
   where the variance is the same at every sample and bounds it otherwise; the variance is
   computed only for candidates whose ``O(n)`` mean plus the widest possible ``beta sigma`` can
   still reach the best ``n_restarts``, see :meth:`ExpectedAcquisition._screen_top`);
2. refine the best ``n_restarts`` of each set on that score, then polish the best ``n_polish``
   on the exact expectation; every start runs its own L-BFGS-B (SciPy's routine, driven in
   lockstep by :func:`batched_lbfgsb`) so it stops when it converges, and each round evaluates
   all active starts of all sets in one call, with autograd gradients;
3. return per set the best polished point, or the best raw candidate if it is better.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

import numpy as np
import torch
from threadpoolctl import threadpool_limits
from torch import Tensor
from torch.quasirandom import SobolEngine

from agents.surrogate import CHUNK_ELEMENTS, GPSurrogate, SamplePath
from bocvs_env.goal import quasi_random_inputs
from bocvs_env.task import Task

Bound = Literal["ucb", "lcb", "mean"]
#: ``(active problems, their points) -> [(value, gradient)]`` (see :func:`batched_lbfgsb`).
ValuesAndGrads = Callable[[list[int], list[np.ndarray]], list[tuple[float, np.ndarray]]]
#: The most memory the screening matrices of all sets may keep between evaluations (bytes).
MOMENT_CACHE_BYTES = 1 << 30
#: The most by which a set's raw candidates are multiplied when its expectation needs fewer
#: samples (see :meth:`ExpectedAcquisition.raw_count`).
RAW_SCALE_MAX = 8
#: Raw candidates whose variance :meth:`ExpectedAcquisition._screen_top` computes at a time.
SCREEN_CHUNK = 128
#: Pre-refined starts closer than this (max-norm, in ``[0, 1]`` units) count as one when
#: choosing the points to polish (:func:`_distinct_best`).
DISTINCT_TOLERANCE = 1e-3
#: The sign of ``beta sigma`` in each bound.
_SIGNS = {"ucb": 1.0, "lcb": -1.0, "mean": 0.0}


def _sign(bound: Bound) -> float:
    """The sign of ``beta sigma`` in a bound; raises ValueError for an unknown bound."""
    if bound not in _SIGNS:
        raise ValueError(f"bound must be 'ucb', 'lcb', 'mean' or a callable, got {bound!r}")
    return _SIGNS[bound]


class Posterior(Protocol):
    """What the acquisition needs of a surrogate (:class:`agents.surrogate.GPSurrogate`)."""

    def mean_std(self, X: Tensor) -> tuple[Tensor, Tensor]:
        """``batch_shape x d`` points -> mean and standard deviation, each ``batch_shape``."""
        ...


class ExpectedAcquisition:
    """E over the random inputs of a control set, by a fixed seeded quasi-random (scrambled Sobol)
    sample of the known distributions, and its maximization over the controlled variables.

    Args:
        task: the public task (dimension, control sets, input distributions).
        n_samples: quasi-random samples of the random variables per expectation (a power of two
            keeps the Sobol points balanced). A set that controls every variable needs none and
            is evaluated at its query alone.
        seed: scrambles the sample set and the raw candidates; same seed, same decisions.
        raw_samples: Sobol candidates scored per set before refinement, scaled up for sets whose
            expectation needs fewer samples (:meth:`raw_count`); the surrogate's training inputs
            are scored too.
        n_restarts: the best candidates of each set refined by L-BFGS-B.
        maxiter: the L-BFGS-B iteration limit.
        raw_n_samples: raw candidates are screened with only the first ``raw_n_samples``
            samples (a prefix of the Sobol sequence, balanced for powers of two) when the
            surrogate is not a :class:`GPSurrogate` or the bound is a sample path (a GP's bounds
            are screened in closed form, see :meth:`_screen`); the refined starts and the
            returned values use all ``n_samples``.
        pre_refine: for a :class:`GPSurrogate` and a ``"ucb"``/``"lcb"``/``"mean"`` bound, first
            refine the starts on the ``O(n^2)``-per-point screening score (which equals the
            expectation wherever the variance is the same for every sample, and bounds it
            otherwise), then polish on the exact expectation: far fewer exact evaluations. All
            sets at once while their ``n x n`` screening matrices fit in
            :data:`MOMENT_CACHE_BYTES` (``n`` up to about 4,000 with 7 sets), set by set while
            one does (``n`` up to about 11,500); beyond, the starts are refined on the exact
            expectation alone.
        n_polish: after pre-refinement, polish on the exact expectation only the best
            ``n_polish`` distinct points of each set by their screening score (``None``: all
            ``n_restarts``; starts that converged within :data:`DISTINCT_TOLERANCE` of a better
            one are not polished twice). On hartmann6 and ackley6 in 12-D (84 maximizations)
            polishing 2 or 4 instead of 8 changed no value by more than 6e-9 and halved the time
            at n = 1,000; 2 distinct points instead of 4 changed none of 84 UCB and LCB set
            maxima on hartmann6 (n = 100, 300, 1,000) by more than 2e-15.
            Where the data is too large to pre-refine, the best ``n_polish`` screened starts.
        exact_mean: for a :class:`GPSurrogate`, take ``E[mu]`` in closed form (the kernel mean
            embedding of the RBF kernel against truncated-normal or uniform inputs,
            :meth:`GPSurrogate.kernel_mean_embedding`) instead of the sample average; the
            ``beta sigma`` part is still averaged over the samples.
    """

    def __init__(
        self,
        task: Task,
        n_samples: int = 128,
        seed: int = 0,
        raw_samples: int = 256,
        n_restarts: int = 8,
        maxiter: int = 100,
        raw_n_samples: int = 32,
        pre_refine: bool = True,
        exact_mean: bool = False,
        n_polish: int | None = 2,
    ) -> None:
        for name, value in (
            ("n_samples", n_samples),
            ("raw_samples", raw_samples),
            ("n_restarts", n_restarts),
            ("maxiter", maxiter),
            ("raw_n_samples", raw_n_samples),
        ):
            if not (isinstance(value, int) and value >= 1):
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.task = task
        self.n_samples = n_samples
        self.seed = seed
        self.raw_samples = raw_samples
        self.n_restarts = min(n_restarts, raw_samples)
        self.maxiter = maxiter
        self.raw_n_samples = raw_n_samples
        self.pre_refine = pre_refine
        self.exact_mean = exact_mean
        if n_polish is not None and not (isinstance(n_polish, int) and n_polish >= 1):
            raise ValueError(f"n_polish must be a positive integer or None, got {n_polish!r}")
        self.n_polish = n_polish
        d = task.dim
        #: ``n_samples x d`` quasi-random draws of every variable.
        self.samples = quasi_random_inputs(task.distributions, n_samples, seed)
        self._masks: list[Tensor] = []
        self._set_samples: list[Tensor] = []  # per set: S_i x d (S_i = 1 if nothing is random)
        for i, s in enumerate(task.control_sets):
            mask = torch.zeros(d, dtype=torch.bool)
            mask[list(s)] = True
            self._masks.append(mask)
            random = len(task.free_variables(i)) > 0
            self._set_samples.append(self.samples if random else self.samples[:1])
        self._cache_owner: GPSurrogate | None = None
        self._cache_version = -1
        self._factors: dict[int, Tensor] = {}
        self._moment_cache: dict[int, tuple[Tensor, Tensor]] = {}
        self._embeddings: dict[int, Tensor] = {}

    # -------------------------------------------------------------------------- expectation
    def full_queries(self, i: int, X: Tensor) -> Tensor:
        """Complete queries with the sample set: ``batch x d`` -> ``batch x S_i x d``.

        The entries of set ``i`` come from ``X``, the others from the quasi-random samples.
        """
        self._check_set(i)
        return torch.where(self._masks[i], X.unsqueeze(-2), self._set_samples[i])

    def expected(
        self,
        surrogate: Posterior,
        i: int,
        X: Tensor,
        bound: Bound | Callable[[Tensor], Tensor] = "ucb",
        beta: float = 2.0,
    ) -> Tensor:
        """``E_{X^-i}[bound([x^i, X^-i])]`` for a batch of queries.

        Args:
            surrogate: the posterior (:class:`agents.surrogate.GPSurrogate`).
            i: the control set.
            X: ``batch x d`` full queries; only the entries in set ``i`` matter.
            bound: ``"ucb"`` (``mu + beta sigma``), ``"lcb"`` (``mu - beta sigma``), ``"mean"``
                (``mu``), or a sample path (from ``sample_paths`` with ``n_paths=1``) mapping
                ``batch_shape x d`` points to ``1 x batch_shape`` (or ``batch_shape``) values.
            beta: the confidence multiplier of ``"ucb"`` and ``"lcb"``.

        Returns:
            ``batch`` expected values in the units of ``y``, differentiable with respect to
            ``X``.
        """
        return self._expected_many(surrogate, [(i, X)], bound, beta)[0]

    def _expected_many(
        self,
        surrogate: Posterior,
        parts: Sequence[tuple[int, Tensor]],
        bound: Bound | Callable[[Tensor], Tensor],
        beta: float,
        n_samples: int | None = None,
    ) -> list[Tensor]:
        """:meth:`expected` of several ``(set, batch x d queries)`` parts in one posterior call.

        ``n_samples`` (default: all) uses a prefix of the sample set (cheaper, for screening).
        For a :class:`GPSurrogate` and a ``"ucb"``/``"lcb"``/``"mean"`` bound, the kernel is
        split into the factor of the controlled variables (one per query) and the factor of the
        random variables (one per sample, computed once per fit), so that no kernel is evaluated
        per query and sample.
        """
        counts = [min(n_samples or self.n_samples, self._set_samples[i].shape[0]) for i, _ in parts]
        if isinstance(bound, SamplePath):
            return self._expected_path(bound, parts, counts)
        if isinstance(surrogate, GPSurrogate) and not callable(bound):
            return self._expected_gp(surrogate, parts, bound, beta, counts)
        fulls = [self.full_queries(i, X)[:, :s] for (i, X), s in zip(parts, counts, strict=True)]
        points = torch.cat([f.reshape(-1, f.shape[-1]) for f in fulls])
        values = self._bound_values(surrogate, points, bound, beta)
        out, lo = [], 0
        for (_, X), s in zip(parts, counts, strict=True):
            b = X.shape[0]
            out.append(values[lo : lo + b * s].reshape(b, s).mean(-1))
            lo += b * s
        return out

    def _expected_path(
        self, path: SamplePath, parts: Sequence[tuple[int, Tensor]], counts: Sequence[int]
    ) -> list[Tensor]:
        """:meth:`_expected_many` for a GP sample path: the average over the samples taken per
        feature and training point (:meth:`SamplePath.averaged`), not per query and sample."""
        if path.n_paths != 1:
            raise ValueError(f"a path bound must have n_paths=1, got {path.n_paths}")
        out = []
        for (i, X), s in zip(parts, counts, strict=True):
            self._check_set(i)
            ctrl, free = list(self.task.control_sets[i]), list(self.task.free_variables(i))
            Zr = self._set_samples[i][:s][:, free]
            out.append(path.averaged(X[:, ctrl], ctrl, Zr, free)[0])
        return out

    def _expected_gp(
        self,
        surrogate: GPSurrogate,
        parts: Sequence[tuple[int, Tensor]],
        bound: Bound,
        beta: float,
        counts: Sequence[int],
    ) -> list[Tensor]:
        """:meth:`_expected_many` for a GP: factorized kernels, and ``E[mu]`` in closed form when
        :attr:`exact_mean` is set (then ``"mean"`` needs no variance at all)."""
        sign = _sign(bound)
        As = []
        for i, X in parts:
            self._check_set(i)
            ctrl = list(self.task.control_sets[i])
            As.append(surrogate.cross_factor(X[:, ctrl], ctrl))  # b x n
        means: list[Tensor] = []
        stds: list[Tensor] = []
        if sign != 0.0 or not self.exact_mean:
            F = [
                (A.unsqueeze(-2) * self._sample_factor(surrogate, i)[:s]).reshape(
                    A.shape[0] * s, A.shape[-1]
                )
                for A, (i, _), s in zip(As, parts, counts, strict=True)
            ]
            mean, std = surrogate.posterior_from_cross(torch.cat(F), use_precision=True)
            lo = 0
            for A, s in zip(As, counts, strict=True):
                b = A.shape[0]
                means.append(mean[lo : lo + b * s].reshape(b, s).mean(-1))
                stds.append(std[lo : lo + b * s].reshape(b, s).mean(-1))
                lo += b * s
        if self.exact_mean:
            means = [
                surrogate.averaged_mean(A, self._embedding(surrogate, i))
                for A, (i, _) in zip(As, parts, strict=True)
            ]
        if sign == 0.0:
            return means
        return [m + sign * beta * sd for m, sd in zip(means, stds, strict=True)]

    def _screen(
        self,
        surrogate: Posterior,
        parts: Sequence[tuple[int, Tensor]],
        bound: Bound | Callable[[Tensor], Tensor],
        beta: float,
    ) -> list[Tensor]:
        """Cheap scores of raw candidates, to choose the starts of the refinement.

        For a :class:`GPSurrogate` and a string bound: ``E[mu] +- beta sqrt(E[sigma^2])`` over
        all samples, ``O(n^2)`` per candidate (:meth:`GPSurrogate.averaged_moments`); for a
        :class:`SamplePath`, its exact average; otherwise the expectation over the first
        ``raw_n_samples`` samples.
        """
        if isinstance(bound, SamplePath):  # cheap with every sample
            return self._expected_many(surrogate, parts, bound, beta)
        if not (isinstance(surrogate, GPSurrogate) and not callable(bound)):
            return self._expected_many(surrogate, parts, bound, beta, self.raw_n_samples)
        out = []
        for i, X in parts:
            ctrl = list(self.task.control_sets[i])
            moments = self._moments(surrogate, i)
            out.append(self._gp_screen_score(surrogate, ctrl, X[:, ctrl], moments, bound, beta))
        return out

    def _gp_screen_score(
        self,
        surrogate: GPSurrogate,
        ctrl: list[int],
        Zc: Tensor,
        moments: tuple[Tensor, Tensor],
        bound: Bound,
        beta: float,
    ) -> Tensor:
        """:meth:`_screen`'s GP score of ``b x |ctrl|`` values of the controlled variables, given
        the set's :meth:`_moments`; shape ``b``."""
        A = surrogate.cross_factor(Zc, ctrl)
        return self._combine(*surrogate.averaged_moments(A, moments), bound, beta)

    def _screen_top(
        self,
        surrogate: Posterior,
        sets: Sequence[int],
        idx: Sequence[list[int]],
        raws: Sequence[Tensor],
        bound: Bound | Callable[[Tensor], Tensor],
        beta: float,
    ) -> list[Tensor]:
        """Per set, the indices of the ``n_restarts`` raw candidates with the best
        :meth:`_screen` score, best first.

        For a :class:`GPSurrogate` and a string bound the variance, ``O(n^2)`` per candidate, is
        computed only where it can matter: the averaged mean (``O(n)``) plus the widest possible
        ``beta * root`` bounds every score from above, candidates are scored in chunks in the
        order of that bound, and the rest are skipped once the bound falls below the
        ``n_restarts``-th best score. The result is the same as scoring every candidate.

        Args:
            sets: the control sets; ``idx`` their variables; ``raws`` their ``r x |set|``
                candidates.
        """
        k = self.n_restarts
        if not (isinstance(surrogate, GPSurrogate) and not callable(bound)):
            parts = [(i, self._embed(ix, Z)) for i, ix, Z in zip(sets, idx, raws, strict=True)]
            scores = self._screen(surrogate, parts, bound, beta)
            return [s.topk(k).indices for s in scores]
        return [
            self._screen_top_gp(surrogate, i, ix, Z, bound, beta)
            for i, ix, Z in zip(sets, idx, raws, strict=True)
        ]

    def _screen_top_gp(
        self, surrogate: GPSurrogate, i: int, ix: list[int], Z: Tensor, bound: Bound, beta: float
    ) -> Tensor:
        """:meth:`_screen_top` of one set for a GP and a string bound (its screening matrix is
        released on return, before the next set's is computed)."""
        k = self.n_restarts
        sign = _sign(bound)
        low, high = surrogate.std_range()
        moments = self._moments(surrogate, i)
        # the r x n cross factors in blocks, never all at once (r is in the thousands for a
        # set without random variables)
        block = max(SCREEN_CHUNK, CHUNK_ELEMENTS // max(1, surrogate.n_train))
        mean = torch.cat(
            [
                surrogate.averaged_mean(surrogate.cross_factor(Z[lo : lo + block], ix), moments[0])
                for lo in range(0, Z.shape[0], block)
            ]
        )
        if sign == 0.0:
            return mean.topk(k).indices
        upper = mean + sign * beta * (high if sign > 0 else low)
        order = upper.argsort(descending=True)
        scores = torch.full_like(mean, -torch.inf)
        chunk = max(SCREEN_CHUNK, k)
        for lo in range(0, order.numel(), chunk):
            rows = order[lo : lo + chunk]
            scores[rows] = self._gp_screen_score(surrogate, ix, Z[rows], moments, bound, beta)
            if lo + chunk < order.numel():
                kth = scores.topk(k).values[-1]
                if upper[order[lo + chunk]] < kth - 1e-9 * (1.0 + kth.abs()):
                    break  # no candidate left can reach the top
        return scores.topk(k).indices

    def _moments(self, surrogate: GPSurrogate, i: int) -> tuple[Tensor, Tensor]:
        """:meth:`GPSurrogate.factor_moments` of set ``i``'s sample factor, cached until the next
        fit: as many sets' ``n x n`` matrices as fit in :data:`MOMENT_CACHE_BYTES`, the oldest
        dropped (before the new one is computed) when it is full."""
        self._sample_factor(surrogate, i)  # validates the cache
        if i in self._moment_cache:
            return self._moment_cache[i]
        capacity = self._moment_capacity(surrogate)
        while self._moment_cache and len(self._moment_cache) >= capacity:
            del self._moment_cache[next(iter(self._moment_cache))]
        moments = surrogate.factor_moments(self._sample_factor(surrogate, i))
        if self.exact_mean:
            moments = (self._embedding(surrogate, i), moments[1])
        if capacity >= 1:
            self._moment_cache[i] = moments
        return moments

    def _moment_capacity(self, surrogate: GPSurrogate) -> int:
        """How many sets' ``n x n`` screening matrices fit in :data:`MOMENT_CACHE_BYTES`."""
        return MOMENT_CACHE_BYTES // max(1, 8 * surrogate.n_train**2)

    def _embedding(self, surrogate: GPSurrogate, i: int) -> Tensor:
        """``E[F_free(X^-i, x_j)] * alpha_j`` in closed form (``n``), cached until the next fit."""
        self._sample_factor(surrogate, i)  # validates the cache
        if i not in self._embeddings:
            free = list(self.task.free_variables(i))
            dists = [self.task.distributions[l] for l in free]
            self._embeddings[i] = surrogate.kernel_mean_embedding(dists, free) * surrogate.alpha
        return self._embeddings[i]

    def _sample_factor(self, surrogate: GPSurrogate, i: int) -> Tensor:
        """The RBF factor of set ``i``'s random variables at the samples, ``S_i x n`` (cached
        until the surrogate is fit again)."""
        if self._cache_owner is not surrogate or self._cache_version != surrogate.version:
            self._cache_owner, self._cache_version = surrogate, surrogate.version
            self._factors = {}
            self._moment_cache = {}
            self._embeddings = {}
        if i not in self._factors:
            free = list(self.task.free_variables(i))
            samples = self._set_samples[i]
            if free:
                self._factors[i] = surrogate.cross_factor(samples[:, free], free)
            else:
                self._factors[i] = samples.new_ones(samples.shape[0], surrogate.n_train)
        return self._factors[i]

    @staticmethod
    def _bound_values(
        surrogate: Posterior,
        points: Tensor,
        bound: Bound | Callable[[Tensor], Tensor],
        beta: float,
    ) -> Tensor:
        """The bound at ``p x d`` points, shape ``p``."""
        if callable(bound):
            values = bound(points)
            if values.numel() != points.shape[0]:
                raise ValueError(
                    f"a path bound must return one value per point (n_paths=1), got shape "
                    f"{tuple(values.shape)} for {points.shape[0]} points"
                )
            return values.reshape(-1)
        mean, std = surrogate.mean_std(points)
        return ExpectedAcquisition._combine(mean, std, bound, beta)

    @staticmethod
    def _combine(mean: Tensor, std: Tensor, bound: Bound, beta: float) -> Tensor:
        """``mean + sign(bound) * beta * std``."""
        sign = _sign(bound)
        return mean if sign == 0.0 else mean + sign * beta * std

    # ------------------------------------------------------------------------- maximization
    def maximize(
        self,
        surrogate: Posterior,
        sets: Sequence[int],
        bound: Bound | Callable[[Tensor], Tensor] = "ucb",
        beta: float = 2.0,
    ) -> list[tuple[float, np.ndarray]]:
        """``max_{x^i} E[bound]`` for each requested set, all optimized together.

        Screens :meth:`raw_count` scrambled Sobol candidates and the observed inputs per set
        (:meth:`_screen`), then refines the best ``n_restarts`` of every set, each by its own bounded
        L-BFGS-B with autograd gradients, all evaluated together in one posterior call per
        round (:func:`batched_lbfgsb`), and returns per set the best of the refined points and
        the starts. Deterministic given the seed.

        Args:
            surrogate: the posterior.
            sets: the control sets to maximize over.
            bound: as in :meth:`expected`.
            beta: as in :meth:`expected`.

        Returns:
            For each set in ``sets``, in order: the maximum value (units of ``y``) and the
            maximizing full query of shape ``(d,)`` (entries outside the set are 0.5).
        """
        sets = [int(i) for i in sets]
        for i in sets:
            self._check_set(i)
        if not sets:
            return []
        idx = [list(self.task.control_sets[i]) for i in sets]
        # 1. raw candidates (Sobol points and observed inputs), scored without gradients; the best
        # of each set refined by its own L-BFGS-B, all evaluated together in lockstep: first on
        # the screening score (a GP's bounds), then (2.) on the exact expectation
        raws = [self._raw_candidates(surrogate, i, ix) for i, ix in zip(sets, idx, strict=True)]
        screened_gp = self.pre_refine and isinstance(surrogate, GPSurrogate) and not callable(bound)
        capacity = self._moment_capacity(surrogate) if screened_gp else 0
        pre_refine = screened_gp and (capacity >= 1 or self.n_polish is None)
        # all sets together while their screening matrices fit, else one set (matrix) at a time
        together = not pre_refine or capacity >= len(sets)
        groups = [list(range(len(sets)))] if together else [[j] for j in range(len(sets))]

        def objective(
            evaluate: Callable[[list[tuple[int, Tensor]]], list[Tensor]], owners: list[int]
        ) -> ValuesAndGrads:
            def values_and_grads(
                active: list[int], Z: list[np.ndarray]
            ) -> list[tuple[float, np.ndarray]]:
                groups: dict[int, list[int]] = {}
                for a, p in enumerate(active):
                    groups.setdefault(owners[p], []).append(a)
                leaves, parts = [], []
                for j, members in groups.items():
                    leaf = torch.from_numpy(np.stack([Z[a] for a in members]))
                    leaves.append(leaf.requires_grad_(True))
                    parts.append((sets[j], self._embed(idx[j], leaf)))
                values = evaluate(parts)
                total = torch.stack([v.sum() for v in values]).sum()
                grads: Sequence[Tensor | None] = [None] * len(leaves)
                if total.requires_grad:  # a constant (e.g. a prior without data) has none
                    grads = torch.autograd.grad(total, leaves, allow_unused=True)
                grads = [
                    torch.zeros_like(z) if g is None else g
                    for z, g in zip(leaves, grads, strict=True)
                ]
                out: list[tuple[float, np.ndarray]] = [(0.0, np.zeros(0))] * len(active)
                for members, v, g in zip(groups.values(), values, grads, strict=True):
                    for row, a in enumerate(members):
                        out[a] = (-float(v[row].detach()), -g[row].numpy())
                return out

            return values_and_grads

        best_first: dict[int, Tensor] = {}  # set -> its starts, best screened first
        refined: list[np.ndarray] = []
        owners: list[int] = []  # problem -> set
        screened: list[float] = []
        for group in groups:
            with torch.no_grad():
                tops = self._screen_top(
                    surrogate,
                    [sets[j] for j in group],
                    [idx[j] for j in group],
                    [raws[j] for j in group],
                    bound,
                    beta,
                )
            for j, top in zip(group, tops, strict=True):
                best_first[j] = raws[j][top]
            mine = [j for j in group for _ in range(self.n_restarts)]
            points = [row.numpy().copy() for j in group for row in best_first[j]]
            if pre_refine:
                screen = objective(lambda parts: self._screen(surrogate, parts, bound, beta), mine)
                points, values = batched_lbfgsb(screen, points, maxiter=self.maxiter)
            else:  # each set's starts in screening order, best first
                values = [float(rank) for _ in group for rank in range(self.n_restarts)]
            refined, owners, screened = refined + points, owners + mine, screened + values
        starts = [best_first[j] for j in range(len(sets))]
        if screened_gp and self.n_polish is not None:  # polish the best distinct points per set
            keep = [
                p
                for j in range(len(sets))
                for p in _distinct_best(
                    [p for p in range(len(owners)) if owners[p] == j],
                    refined,
                    screened,
                    self.n_polish,
                )
            ]
            refined, owners = [refined[p] for p in keep], [owners[p] for p in keep]
        exact = objective(lambda parts: self._expected_many(surrogate, parts, bound, beta), owners)
        refined, minus_values = batched_lbfgsb(exact, refined, maxiter=self.maxiter)
        # 3. per set, the best refined point (L-BFGS-B reports the exact value at its final
        # point), unless the set's best raw candidate is better (evaluated exactly, one per set)
        with torch.no_grad():
            best_raw = self._expected_many(
                surrogate,
                [(i, self._embed(ix, st[:1])) for i, ix, st in zip(sets, idx, starts, strict=True)],
                bound,
                beta,
            )
        out = []
        for j in range(len(sets)):
            mine = [p for p in range(len(owners)) if owners[p] == j]
            b = max(mine, key=lambda p: -minus_values[p])
            x = self._embed(idx[j], torch.from_numpy(refined[b]).unsqueeze(0))[0].numpy()
            value = -minus_values[b]
            if float(best_raw[j][0]) > value:
                value = float(best_raw[j][0])
                x = self._embed(idx[j], starts[j][:1])[0].numpy()
            out.append((value, x))
        return out

    def raw_count(self, i: int) -> int:
        """The Sobol candidates screened for set ``i``: ``raw_samples`` times the factor by which
        its expectation is cheaper than one over all ``n_samples`` (``n_samples / S_i``), capped
        at :data:`RAW_SCALE_MAX`; a set with no random variables (``S_i = 1``) gets the most."""
        self._check_set(i)
        scale = self.n_samples // self._set_samples[i].shape[0]
        return self.raw_samples * max(1, min(RAW_SCALE_MAX, scale))

    def _raw_candidates(self, surrogate: Posterior, i: int, idx: list[int]) -> Tensor:
        """Set ``i``'s raw candidates, ``r x k`` (``k = len(idx)``): :meth:`raw_count` scrambled
        Sobol points, then the surrogate's training inputs restricted to the set's variables (the
        most recent :meth:`raw_count` of them, when it exposes ``train_X``), so that the starts
        are never worse than the best observed point by the screening score."""
        count = self.raw_count(i)
        engine = SobolEngine(len(idx), scramble=True, seed=self.seed)
        parts = [engine.draw(count, dtype=torch.float64)]
        train_X = getattr(surrogate, "train_X", None)
        if isinstance(train_X, Tensor) and train_X.shape[0] > 0:
            parts.append(train_X[-count:, idx].to(torch.float64))
        return torch.cat(parts)

    def _embed(self, idx: list[int], Z: Tensor) -> Tensor:
        """``b x k`` values of the variables ``idx`` -> ``b x d`` queries (others 0.5)."""
        X = Z.new_full((Z.shape[0], self.task.dim), 0.5)
        return X.index_copy(1, torch.tensor(idx), Z)

    def _check_set(self, i: int) -> None:
        if not (0 <= i < self.task.n_sets):
            raise ValueError(f"control set {i} is out of range for {self.task.n_sets} sets")


def _distinct_best(
    members: Sequence[int], points: Sequence[np.ndarray], minus_values: Sequence[float], limit: int
) -> list[int]:
    """Up to ``limit`` of ``members``, best (smallest ``minus_values``) first, skipping any point
    within :data:`DISTINCT_TOLERANCE` (max-norm) of one already taken: starts that converged to
    the same optimum would be polished to the same point."""
    taken: list[int] = []
    for p in sorted(members, key=lambda p: minus_values[p]):
        if all(np.abs(points[p] - points[q]).max() > DISTINCT_TOLERANCE for q in taken):
            taken.append(p)
            if len(taken) == limit:
                break
    return taken


def batched_lbfgsb(
    values_and_grads: ValuesAndGrads,
    x0: Sequence[np.ndarray],
    maxiter: int = 100,
    maxcor: int = 10,
    ftol: float = 2.220446049250313e-09,
    gtol: float = 1e-5,
    maxls: int = 20,
) -> tuple[list[np.ndarray], list[float]]:
    """Minimize independent problems on ``[0, 1]^k`` with one L-BFGS-B each, in lockstep.

    Each problem runs SciPy's L-BFGS-B (its reverse-communication routine, with the defaults of
    ``scipy.optimize.minimize``) on its own, so it converges and stops on its own; the objective
    is called once per round with every problem that needs a value, so the evaluations are
    batched. That routine is private to SciPy: if its interface differs from SciPy 1.17's
    (probed once), the problems run one after another through ``scipy.optimize.minimize``
    instead, with the same results and no batching.

    Args:
        values_and_grads: ``(active, X)`` -> ``[(f, grad)]``: the indices of the problems to
            evaluate, their points (``X[a]`` of shape ``(k_p,)`` for ``active[a]``), and their
            values and gradients in the same order.
        x0: the starting point of every problem, in ``[0, 1]^{k_p}``.
        maxiter: the iteration limit of every problem.
        maxcor: ``maxcor``, ``ftol``, ``gtol``, ``maxls``: as in ``scipy.optimize.minimize``.

    Returns:
        The final point of every problem and its value (as last reported by
        ``values_and_grads``; problems that never needed a value report ``inf``).
    """
    options = {"maxiter": maxiter, "maxcor": maxcor, "ftol": ftol, "gtol": gtol, "maxls": maxls}
    run = _batched_lbfgsb_lockstep if _lockstep_available() else _sequential_lbfgsb
    return run(values_and_grads, x0, options)


def _batched_lbfgsb_lockstep(
    values_and_grads: ValuesAndGrads, x0: Sequence[np.ndarray], options: dict[str, Any]
) -> tuple[list[np.ndarray], list[float]]:
    """:func:`batched_lbfgsb` on SciPy's reverse-communication routine ``setulb``."""
    from scipy.optimize import _lbfgsb

    maxiter, maxcor, maxls = options["maxiter"], options["maxcor"], options["maxls"]
    gtol = options["gtol"]
    factr = options["ftol"] / np.finfo(float).eps
    states = []
    for x in x0:
        n = x.size
        states.append(
            {
                "x": np.clip(np.array(x, dtype=np.float64), 0.0, 1.0),
                "f": np.array(np.inf),
                "g": np.zeros(n),
                "wa": np.zeros(2 * maxcor * n + 5 * n + 11 * maxcor * maxcor + 8 * maxcor),
                "iwa": np.zeros(3 * n, dtype=np.int32),
                "task": np.zeros(2, dtype=np.int32),
                "ln_task": np.zeros(2, dtype=np.int32),
                "lsave": np.zeros(4, dtype=np.int32),
                "isave": np.zeros(44, dtype=np.int32),
                "dsave": np.zeros(29),
                "lo": np.zeros(n),
                "hi": np.ones(n),
                "nbd": np.full(n, 2, dtype=np.int32),
                "iterations": 0,
            }
        )

    def advance(st: dict) -> bool:
        """Run one problem until it asks for a value (True) or stops (False)."""
        while True:
            _lbfgsb.setulb(
                maxcor, st["x"], st["lo"], st["hi"], st["nbd"], st["f"], st["g"], factr, gtol,
                st["wa"], st["iwa"], st["task"], st["lsave"], st["isave"], st["dsave"], maxls,
                st["ln_task"],
            )  # fmt: skip
            task = int(st["task"][0])
            if task == 3:  # FG: wants f and g at x
                return True
            if task != 1:  # converged, stopped or failed
                return False
            st["iterations"] += 1  # NEW_X
            if st["iterations"] >= maxiter:
                st["task"][:] = (5, 504)  # STOP: iteration limit

    # L-BFGS-B's BLAS calls are on tiny vectors: BLAS threads only cost (much, on a busy machine)
    with threadpool_limits(limits=1, user_api="blas"):
        active = [p for p, st in enumerate(states) if advance(st)]
        while active:
            results = values_and_grads(active, [states[p]["x"].copy() for p in active])
            for p, (f, g) in zip(active, results, strict=True):
                states[p]["f"] = np.array(f, dtype=np.float64)
                states[p]["g"] = np.asarray(g, dtype=np.float64)
            active = [p for p in active if advance(states[p])]
    return [np.clip(st["x"], 0.0, 1.0) for st in states], [float(st["f"]) for st in states]


@functools.cache
def _lockstep_available() -> bool:
    """Whether SciPy's reverse-communication L-BFGS-B routine has the interface used here (that
    of SciPy 1.17's C translation): probed once on ``min (x - 0.3)^2``."""
    try:
        x, _ = _lockstep_probe()
        return abs(float(x[0][0]) - 0.3) < 1e-6
    except Exception:  # any other signature or behaviour: not usable
        return False


def _lockstep_probe() -> tuple[list[np.ndarray], list[float]]:
    def quadratic(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        return [(float(((z - 0.3) ** 2).sum()), 2.0 * (z - 0.3)) for z in Z]

    from scipy.optimize import _lbfgsb

    if not hasattr(_lbfgsb, "setulb"):
        raise AttributeError("scipy.optimize._lbfgsb.setulb is missing")
    options = {"maxiter": 50, "maxcor": 10, "ftol": 2.2e-9, "gtol": 1e-5, "maxls": 20}
    return _batched_lbfgsb_lockstep(quadratic, [np.array([0.9])], options)


def _sequential_lbfgsb(
    values_and_grads: ValuesAndGrads, x0: Sequence[np.ndarray], options: dict[str, Any]
) -> tuple[list[np.ndarray], list[float]]:
    """:func:`batched_lbfgsb` through the public ``scipy.optimize.minimize``, one problem after
    another (the same optimizer, without batching)."""
    from scipy.optimize import minimize

    xs, fs = [], []
    for p, x in enumerate(x0):
        res = minimize(
            lambda z, p=p: values_and_grads([p], [z])[0],
            np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * x.size,
            options=options,
        )
        xs.append(np.clip(res.x, 0.0, 1.0))
        fs.append(float(res.fun))
    return xs, fs

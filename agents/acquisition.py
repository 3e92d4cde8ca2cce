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

Every evaluation is one batched posterior call over ``batch x n_samples`` points. Maximization
scores ``raw_samples`` Sobol candidates per set, then refines the best ``n_restarts`` of every
requested set together in a single L-BFGS-B run with autograd gradients (the objectives of the
starts are independent, so the gradient of their sum separates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol

import numpy as np
import torch
from scipy.optimize import minimize
from torch import Tensor
from torch.quasirandom import SobolEngine

from bocvs_env.goal import quasi_random_inputs
from bocvs_env.task import Task

Bound = Literal["ucb", "lcb", "mean"]
#: The sign of ``beta sigma`` in each bound.
_SIGNS = {"ucb": 1.0, "lcb": -1.0, "mean": 0.0}


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
        raw_samples: Sobol candidates scored per set before refinement.
        n_restarts: the best candidates of each set refined by L-BFGS-B.
        maxiter: the L-BFGS-B iteration limit.
    """

    def __init__(
        self,
        task: Task,
        n_samples: int = 128,
        seed: int = 0,
        raw_samples: int = 256,
        n_restarts: int = 8,
        maxiter: int = 100,
    ) -> None:
        for name, value in (
            ("n_samples", n_samples),
            ("raw_samples", raw_samples),
            ("n_restarts", n_restarts),
            ("maxiter", maxiter),
        ):
            if not (isinstance(value, int) and value >= 1):
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.task = task
        self.n_samples = n_samples
        self.seed = seed
        self.raw_samples = raw_samples
        self.n_restarts = min(n_restarts, raw_samples)
        self.maxiter = maxiter
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
    ) -> list[Tensor]:
        """:meth:`expected` of several ``(set, batch x d queries)`` parts in one posterior call."""
        fulls = [self.full_queries(i, X) for i, X in parts]
        points = torch.cat([f.reshape(-1, f.shape[-1]) for f in fulls])
        values = self._bound_values(surrogate, points, bound, beta)
        out, lo = [], 0
        for f in fulls:
            b, s = f.shape[0], f.shape[1]
            out.append(values[lo : lo + b * s].reshape(b, s).mean(-1))
            lo += b * s
        return out

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
        if bound not in _SIGNS:
            raise ValueError(f"bound must be 'ucb', 'lcb', 'mean' or a callable, got {bound!r}")
        mean, std = surrogate.mean_std(points)
        sign = _SIGNS[bound]
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

        Scores ``raw_samples`` scrambled Sobol candidates per set, then refines the best
        ``n_restarts`` of every set in one bounded L-BFGS-B run on the sum of their values
        (gradients by autograd). Deterministic given the seed.

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
        # 1. raw candidates, scored without gradients
        raws = []
        for k in (len(ix) for ix in idx):
            engine = SobolEngine(k, scramble=True, seed=self.seed)
            raws.append(engine.draw(self.raw_samples, dtype=torch.float64))
        with torch.no_grad():
            scores = self._expected_many(
                surrogate,
                [(i, self._embed(ix, Z)) for i, ix, Z in zip(sets, idx, raws, strict=True)],
                bound,
                beta,
            )
        starts = [Z[s.topk(self.n_restarts).indices] for Z, s in zip(raws, scores, strict=True)]
        # 2. one L-BFGS-B run over every set's starts
        sizes = [st.numel() for st in starts]
        r = self.n_restarts

        def unpack(z: Tensor) -> list[tuple[int, Tensor]]:
            parts, lo = [], 0
            for i, ix, size in zip(sets, idx, sizes, strict=True):
                parts.append((i, self._embed(ix, z[lo : lo + size].reshape(r, len(ix)))))
                lo += size
            return parts

        def value_and_grad(z: np.ndarray) -> tuple[float, np.ndarray]:
            zt = torch.from_numpy(z).requires_grad_(True)
            total = torch.stack(
                [v.sum() for v in self._expected_many(surrogate, unpack(zt), bound, beta)]
            ).sum()
            (grad,) = torch.autograd.grad(total, zt)
            return -float(total.detach()), -grad.numpy()

        z0 = torch.cat([st.reshape(-1) for st in starts]).numpy()
        res = minimize(
            value_and_grad,
            z0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * z0.size,
            options={"maxiter": self.maxiter},
        )
        z = torch.from_numpy(np.clip(res.x, 0.0, 1.0))
        parts = unpack(z)
        with torch.no_grad():
            refined = self._expected_many(surrogate, parts, bound, beta)
        # 3. the best of the refined starts and the raw candidates, per set
        out = []
        for (_, X), v, ix, Z, s in zip(parts, refined, idx, raws, scores, strict=True):
            b = int(v.argmax())
            if float(v[b]) >= float(s.max()):
                out.append((float(v[b]), X[b].numpy().copy()))
            else:  # a raw candidate beat every refined start (rare)
                out.append((float(s.max()), self._embed(ix, Z[s.argmax()].unsqueeze(0))[0].numpy()))
        return out

    def _embed(self, idx: list[int], Z: Tensor) -> Tensor:
        """``b x k`` values of the variables ``idx`` -> ``b x d`` queries (others 0.5)."""
        X = Z.new_full((Z.shape[0], self.task.dim), 0.5)
        return X.index_copy(1, torch.tensor(idx), Z)

    def _check_set(self, i: int) -> None:
        if not (0 <= i < self.task.n_sets):
            raise ValueError(f"control set {i} is out of range for {self.task.n_sets} sets")

"""A reference-style decision: the baseline that the agents' decisions are measured against.

It is not an agent: ``benchmarks/decisions.py`` times it next to the agents' own decisions,
and the estimate of a sweep's cost at the references' speed
(:mod:`bocvs_env.benchmark.sweep_cost`) charges its timings.

It reproduces, inside this project, how the reference codes (Tay et al. 2023; Hayashi et al.
2022; Hoang et al. 2025) make one UCB decision (as the project's specification describes them),
so that every timing of the
benchmark suite (``benchmarks/decisions.py``) is also a ratio measured in the same process:

- an exact GP with fixed hyperparameters (RBF kernel, lengthscale 0.1 in every dimension, unit
  output scale, noise variance ``1e-4``, zero mean, raw outputs), factorized by Cholesky *from
  scratch* at every decision (:meth:`ReferenceGP.fit`);
- ``E[u]`` as the mean of ``u = mu + beta sigma`` over 1,024 fixed i.i.d. samples of the random
  variables (drawn once per decision, shared by every set and candidate);
- per control set: 100 uniform random candidates (10,000 for a set that controls every
  variable), evaluated in chunks so that memory stays bounded, then SciPy's L-BFGS-B with
  finite-difference gradients (its default two-point scheme) from the best 5 of them; the set's
  value is the best of the refined points and the candidates;
- the decision is the set with the largest value and its maximizer (UCB-PSQ's rule over all sets).

One deliberate difference: a set that controls every variable has nothing random to average,
so its expectation is the value at the query itself (the references average 1,024 copies of the
same point, which gives the same number at 1,024 times the cost). This only makes the baseline
faster, so the ratios reported against it are conservative.

:func:`common_expected_bound` is the suite's one high-precision judge of decision quality:
the same GP posterior averaged over ``2^14`` scrambled Sobol samples of the random variables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from scipy.optimize import minimize
from torch import Tensor

from bocvs_env.gp_algebra import rbf
from bocvs_env.sampling import quasi_random_inputs
from bocvs_env.task import Task

Bound = Literal["ucb", "lcb"]
#: Elements of one ``rows x n`` kernel block (and of its triangular solve): bounds memory.
CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class ReferenceGP:
    """An exact zero-mean GP with an RBF kernel, conditioned on data by one Cholesky factor.

    Attributes:
        X: ``n x d`` training inputs.
        L: ``n x n`` lower Cholesky factor of ``K + noise I``.
        alpha: ``(K + noise I)^{-1} y``, shape ``n``.
        lengthscale: the lengthscale of every dimension.
        outputscale: the prior variance.
    """

    X: Tensor
    L: Tensor
    alpha: Tensor
    lengthscale: float
    outputscale: float

    @classmethod
    def fit(
        cls,
        X: np.ndarray,
        y: np.ndarray,
        lengthscale: float = 0.1,
        outputscale: float = 1.0,
        noise: float = 1e-4,
    ) -> ReferenceGP:
        """Factorize ``K + noise I`` from scratch (``O(n^3)``).

        Args:
            X: ``n x d`` inputs in ``[0, 1]^d``.
            y: ``n`` outputs (raw, not standardized).
            lengthscale: the RBF lengthscale of every dimension.
            outputscale: the prior variance.
            noise: the observation-noise variance.

        Raises:
            ValueError: if the shapes disagree or there is no data.
        """
        Xt = torch.as_tensor(np.asarray(X, dtype=np.float64))
        yt = torch.as_tensor(np.asarray(y, dtype=np.float64))
        if Xt.ndim != 2 or Xt.shape[0] == 0 or yt.shape != (Xt.shape[0],):
            raise ValueError(
                f"need X of shape (n, d) with n >= 1 and y of shape (n,); got {tuple(Xt.shape)}"
                f" and {tuple(yt.shape)}"
            )
        ls = torch.full((Xt.shape[1],), float(lengthscale), dtype=torch.float64)
        K = rbf(Xt, Xt, ls, outputscale)
        K.diagonal().add_(noise)
        L = torch.linalg.cholesky(K)
        del K
        alpha = torch.cholesky_solve(yt.unsqueeze(-1), L).squeeze(-1)
        return cls(Xt, L, alpha, float(lengthscale), float(outputscale))

    @property
    def dim(self) -> int:
        """The input dimension ``d``."""
        return int(self.X.shape[1])

    def mean_std(self, Z: Tensor) -> tuple[Tensor, Tensor]:
        """Posterior mean and standard deviation at ``p x d`` points, each ``p``.

        The ``p x n`` cross-kernel is built and solved in blocks of :data:`CHUNK_ELEMENTS`.
        """
        n = self.X.shape[0]
        ls = torch.full((self.dim,), self.lengthscale, dtype=torch.float64)
        rows = max(1, CHUNK_ELEMENTS // n)
        means, stds = [], []
        for lo in range(0, Z.shape[0], rows):
            Ks = rbf(Z[lo : lo + rows], self.X, ls, self.outputscale)  # c x n
            means.append(Ks @ self.alpha)
            V = torch.linalg.solve_triangular(self.L, Ks.T, upper=False)  # n x c
            var = self.outputscale - (V * V).sum(0)
            stds.append(var.clamp_min(1e-12 * self.outputscale).sqrt())
        return torch.cat(means), torch.cat(stds)


@dataclass(frozen=True)
class SetChoice:
    """One control set's maximum of ``E[bound]``.

    Attributes:
        value: the maximum found (units of ``y``).
        x: the maximizing full query, shape ``(d,)`` (entries outside the set are 0.5).
        stderr: the standard error of ``value`` as a mean over the i.i.d. samples (0 for a set
            without random variables).
    """

    value: float
    x: np.ndarray
    stderr: float


@dataclass(frozen=True)
class ReferenceDecision:
    """The reference-style decision: the best set, its query, and every set's maximum."""

    control_set: int
    x: np.ndarray
    value: float
    per_set: tuple[SetChoice, ...]


def _bound_samples(
    gp: ReferenceGP, mask: np.ndarray, Xc: np.ndarray, samples: Tensor, bound: Bound, beta: float
) -> Tensor:
    """``bound`` at every query completed by every sample: ``p x d`` -> ``p x S``.

    Queries are processed in chunks of about :data:`CHUNK_ELEMENTS` / ``n`` points.
    """
    S = samples.shape[0]
    sign = 1.0 if bound == "ucb" else -1.0
    per_chunk = max(1, CHUNK_ELEMENTS // (gp.X.shape[0] * S))
    m = torch.from_numpy(mask)
    out = []
    for lo in range(0, Xc.shape[0], per_chunk):
        Q = torch.from_numpy(Xc[lo : lo + per_chunk])
        full = torch.where(m, Q.unsqueeze(-2), samples)  # c x S x d
        mean, std = gp.mean_std(full.reshape(-1, gp.dim))
        out.append((mean + sign * beta * std).reshape(-1, S))
    return torch.cat(out)


def _set_maximum(
    gp: ReferenceGP,
    task: Task,
    i: int,
    samples: Tensor,
    rng: np.random.Generator,
    bound: Bound,
    beta: float,
    n_candidates: int,
    n_starts: int,
) -> SetChoice:
    """Random search over ``n_candidates`` then L-BFGS-B (finite differences) from the best."""
    idx = list(task.control_sets[i])
    mask = np.zeros(task.dim, dtype=bool)
    mask[idx] = True
    set_samples = samples if task.free_variables(i) else samples[:1]

    def embed(Z: np.ndarray) -> np.ndarray:
        X = np.full((Z.shape[0], task.dim), 0.5)
        X[:, idx] = Z
        return X

    with torch.no_grad():
        cands = rng.random((n_candidates, len(idx)))
        scores = _bound_samples(gp, mask, embed(cands), set_samples, bound, beta).mean(-1)
        order = np.argsort(-scores.numpy(), kind="stable")[:n_starts]

        def negative(z: np.ndarray) -> float:
            x = embed(np.clip(z, 0.0, 1.0)[None])
            return -float(_bound_samples(gp, mask, x, set_samples, bound, beta).mean())

        best_z, best_v = cands[order[0]], float(scores[order[0]])
        for s in order:
            res = minimize(negative, cands[s], method="L-BFGS-B", bounds=[(0.0, 1.0)] * len(idx))
            if -float(res.fun) > best_v:
                best_z, best_v = np.clip(res.x, 0.0, 1.0), -float(res.fun)
        x = embed(best_z[None])
        values = _bound_samples(gp, mask, x, set_samples, bound, beta)[0]
    S = values.shape[0]
    stderr = float(values.std() / np.sqrt(S)) if S > 1 else 0.0
    return SetChoice(float(values.mean()), x[0], stderr)


def reference_decision(
    gp: ReferenceGP,
    task: Task,
    seed: int,
    sets: Sequence[int] | None = None,
    bound: Bound = "ucb",
    beta: float = 2.0,
    n_samples: int = 1024,
    n_candidates: int = 100,
    n_candidates_full: int = 10_000,
    n_starts: int = 5,
) -> ReferenceDecision:
    """One reference-style decision: ``argmax over (i, x^i) of E[bound]`` by the references'
    procedure (see the module docstring).

    Args:
        gp: the GP, fitted to all data (the caller times :meth:`ReferenceGP.fit` with it).
        task: the public task (control sets, input distributions).
        seed: seeds the i.i.d. samples and the random candidates.
        sets: the control sets to compare (default: all).
        bound: ``"ucb"`` (``mu + beta sigma``) or ``"lcb"`` (``mu - beta sigma``).
        beta: the confidence multiplier.
        n_samples: i.i.d. samples of the random variables behind each expectation.
        n_candidates: random candidates per set.
        n_candidates_full: random candidates of a set that controls every variable.
        n_starts: the best candidates refined by L-BFGS-B.

    Returns:
        The chosen set, its query (``(d,)``) and value, and every compared set's maximum (in the
        order of ``sets``).

    Raises:
        ValueError: on an unknown bound or set, or dimensions that do not match.
    """
    if bound not in ("ucb", "lcb"):
        raise ValueError(f"bound must be 'ucb' or 'lcb', got {bound!r}")
    if gp.dim != task.dim:
        raise ValueError(f"the GP has dimension {gp.dim} but the task {task.dim}")
    sets = list(range(task.n_sets)) if sets is None else [int(i) for i in sets]
    if not sets or not all(0 <= i < task.n_sets for i in sets):
        raise ValueError(f"sets must be a non-empty list of indices below {task.n_sets}: {sets}")
    rng = np.random.default_rng(seed)
    samples = torch.from_numpy(
        np.stack([p.sample(rng, n_samples) for p in task.distributions], axis=1)
    )
    per_set = []
    for i in sets:
        full = not task.free_variables(i)
        k = n_candidates_full if full else n_candidates
        per_set.append(_set_maximum(gp, task, i, samples, rng, bound, beta, k, n_starts))
    best = int(np.argmax([c.value for c in per_set]))
    return ReferenceDecision(sets[best], per_set[best].x, per_set[best].value, tuple(per_set))


def common_expected_bound(
    gp: ReferenceGP,
    task: Task,
    sets: Sequence[int],
    X: np.ndarray,
    bound: Bound = "ucb",
    beta: float = 2.0,
    n_samples: int = 1 << 14,
    seed: int = 12345,
) -> np.ndarray:
    """The suite's common judge: ``E[bound]`` of queries under one high-precision estimate.

    The expectation over the random variables is an average over ``n_samples`` scrambled Sobol
    points (:func:`bocvs_env.sampling.quasi_random_inputs`), the same for every query.

    Args:
        gp: the posterior.
        task: the public task.
        sets: ``p`` control sets.
        X: ``p x d`` queries (only each set's entries matter).
        bound: ``"ucb"`` or ``"lcb"``.
        beta: the confidence multiplier.
        n_samples: Sobol samples (a power of two).
        seed: scrambles the Sobol points.

    Returns:
        ``p`` values in the units of ``y``.
    """
    if bound not in ("ucb", "lcb"):
        raise ValueError(f"bound must be 'ucb' or 'lcb', got {bound!r}")
    X = np.asarray(X, dtype=np.float64).reshape(len(sets), task.dim)
    samples = quasi_random_inputs(task.distributions, n_samples, seed)
    out = np.empty(len(sets))
    with torch.no_grad():
        for r, i in enumerate(sets):
            mask = np.zeros(task.dim, dtype=bool)
            mask[list(task.control_sets[i])] = True
            set_samples = samples if task.free_variables(i) else samples[:1]
            out[r] = float(_bound_samples(gp, mask, X[r : r + 1], set_samples, bound, beta).mean())
    return out

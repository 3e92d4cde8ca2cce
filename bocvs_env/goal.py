"""The noiseless goal ``g_i(x^i) = E[f([x^i, X^{-i}])]`` and the per-set oracle ``max g_i``.

Both are privileged: they need ``f``, which only the environment knows. Expectations average
``f`` over one fixed, seeded set of scrambled Sobol points mapped through the inverse CDFs of the
input distributions (1024 by default, as many as the references' i.i.d. samples, with a much
smaller error). The same sample set serves every control set (common random numbers), so
differences between sets are not blurred by sampling noise.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import torch
from torch import Tensor
from torch.quasirandom import SobolEngine

from bocvs_env.problems.extrema import refine_min
from bocvs_env.problems.problem import Problem
from bocvs_env.sampling import quasi_random_inputs

#: Bump when the oracle's algorithm changes, so that stale cached values are not reused.
ORACLE_VERSION = 2


def cache_dir() -> Path:
    """Where cached oracles and fitted models live: ``$BOCVS_CACHE_DIR`` or ``~/.cache/bocvs``."""
    return Path(os.environ.get("BOCVS_CACHE_DIR", Path.home() / ".cache" / "bocvs"))


class GoalEvaluator:
    """Computes ``g_i(x)`` by averaging ``f`` over a fixed quasi-random sample of the inputs.

    Args:
        problem: the problem (its objective is privileged).
        n_samples: the number of quasi-random samples (a power of two keeps Sobol balanced).
        seed: the scrambling seed of the sample set.
        chunk: the most queries evaluated at once (memory is ``chunk x n_samples x d`` doubles).
    """

    def __init__(
        self, problem: Problem, n_samples: int = 1024, seed: int = 0, chunk: int = 64
    ) -> None:
        self.problem = problem
        self.n_samples = n_samples
        self.seed = seed
        self.chunk = chunk
        self.samples = quasi_random_inputs(problem.distributions, n_samples, seed)  # n_samples x d
        masks = torch.zeros(problem.n_sets, problem.dim, dtype=torch.bool)
        for i, s in enumerate(problem.control_sets):
            masks[i, list(s)] = True
        self.masks = masks  # m x d

    def g(self, sets: Tensor, X: Tensor) -> Tensor:
        """Goal values of queries.

        Args:
            sets: ``batch`` control-set indices (long).
            X: ``batch x d`` queries in ``[0, 1]^d``; only the entries in each set matter.

        Returns:
            ``batch`` values of ``g_{sets[b]}(X[b])``.
        """
        out = []
        for lo in range(0, X.shape[0], self.chunk):
            mask = self.masks[sets[lo : lo + self.chunk]].unsqueeze(-2)  # b x 1 x d
            full = torch.where(mask, X[lo : lo + self.chunk].unsqueeze(-2), self.samples)
            out.append(self.problem.objective(full).mean(dim=-1))
        return torch.cat(out) if out else X.new_zeros(0)

    def g_batch(self, sets: np.ndarray, X: np.ndarray) -> np.ndarray:
        """:meth:`g` on numpy arrays: ``sets`` ``(n,)`` and ``X`` ``(n, d)``, returns ``(n,)``."""
        with torch.no_grad():
            return self.g(torch.as_tensor(sets, dtype=torch.long), torch.as_tensor(X)).numpy()

    def g_one(self, i: int, x: np.ndarray) -> float:
        """``g_i(x)`` for one query ``x`` of shape ``(d,)``."""
        return float(self.g_batch(np.array([i]), np.asarray(x, np.float64)[None])[0])

    def cache_key(self) -> str:
        """A digest of everything the oracle depends on."""
        p = self.problem
        spec = {
            "version": ORACLE_VERSION,
            "objective": p.objective.describe(),
            "control_sets": [list(s) for s in p.control_sets],
            "distributions": [repr(d) for d in p.distributions],
            "n_samples": self.n_samples,
            "seed": self.seed,
        }
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:24]

    def maximize(
        self, i: int, n_raw: int = 1024, n_starts: int = 16, seed: int = 0
    ) -> tuple[float, np.ndarray]:
        """``max_{x^i} g_i(x^i)`` by multi-start L-BFGS-B with autograd gradients.

        Scores ``n_raw`` Sobol candidates in the set's subspace, plus the inputs' means and the
        objective's known maximizers (restricted to the set), then refines the best ``n_starts``
        of them jointly (:func:`~bocvs_env.problems.extrema.refine_min`).

        Returns:
            The best value and the maximizing full query of shape ``(d,)`` (entries outside the
            set are 0.5).
        """
        idx = list(self.problem.control_sets[i])
        k = len(idx)
        means = torch.tensor([[p.mean for p in self.problem.distributions]], dtype=torch.float64)
        known = self.problem.objective.optimizers
        raw = torch.cat(
            [
                SobolEngine(k, scramble=True, seed=seed).draw(n_raw, dtype=torch.float64),
                means[:, idx],
                *([] if known is None else [known[:, idx].to(torch.float64)]),
            ]
        )
        n_raw = raw.shape[0]
        sets = torch.full((n_raw,), i, dtype=torch.long)
        base = torch.full((n_raw, self.problem.dim), 0.5, dtype=torch.float64)
        base[:, idx] = raw
        with torch.no_grad():
            scores = self.g(sets, base)
        starts = raw[scores.topk(min(n_starts, n_raw)).indices]

        def neg_g(Z: Tensor) -> Tensor:
            X = torch.full((Z.shape[0], self.problem.dim), 0.5, dtype=torch.float64)
            X[:, idx] = Z
            return -self.g(sets[: Z.shape[0]], X)

        value, z = refine_min(neg_g, starts)
        x = torch.full((self.problem.dim,), 0.5, dtype=torch.float64)
        x[idx] = z
        return -value, x.numpy()


def oracle_values(evaluator: GoalEvaluator, use_cache: bool = True) -> np.ndarray:
    """``max_{x^i} g_i(x^i)`` for every control set, shape ``(m,)``, cached on disk.

    The cache file is ``cache_dir()/oracle-<key>.json``, keyed by :meth:`GoalEvaluator.cache_key`;
    a missing or unreadable cache file is recomputed (and rewritten atomically).
    """
    path = cache_dir() / f"oracle-{evaluator.cache_key()}.json"
    if use_cache and path.is_file():
        try:
            values = json.loads(path.read_text())["set_max"]
            if len(values) == evaluator.problem.n_sets:
                return np.asarray(values, dtype=np.float64)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    values = np.array([evaluator.maximize(i)[0] for i in range(evaluator.problem.n_sets)])
    if use_cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"problem": evaluator.problem.name, "set_max": values.tolist()}))
        os.replace(tmp, path)
    return values

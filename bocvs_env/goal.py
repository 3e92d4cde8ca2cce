"""The noiseless goal ``g_i(x^i) = E[f([x^i, X^{-i}])]`` and the per-set oracle ``max g_i``.

Both are privileged: they need ``f``, which only the environment knows. Expectations average
``f`` over one fixed, seeded set of scrambled Sobol points mapped through the inverse CDFs of the
input distributions (1024 by default, as many as the references' i.i.d. samples, with a much
smaller error). The same sample set serves every control set (common random numbers), so
differences between sets are not blurred by sampling noise. The goal values that episodes
record are :meth:`~bocvs_env.problems.objective.Objective.sample_average`: ``f`` evaluated at
every sample, always, so a published run's ``g`` reproduces bit for bit. The oracle's search uses
:meth:`~bocvs_env.problems.objective.Objective.sample_mean`, the same average in a cheaper exact
form where there is one (``f`` itself for the set of every variable; a GP sample's closed form,
one evaluation of ``f`` per query instead of 1024), and values its maximizer by the recorded
definition, so regrets compare like with like.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import Tensor
from torch.quasirandom import SobolEngine

from bocvs_env.problems.extrema import refine_min
from bocvs_env.problems.problem import Problem
from bocvs_env.sampling import quasi_random_inputs

#: Bump when the oracle's algorithm changes, so that stale cached values are not reused.
ORACLE_VERSION = 5


def cache_dir() -> Path:
    """Where cached oracles and fitted models live: ``$BOCVS_CACHE_DIR`` or ``~/.cache/bocvs``."""
    return Path(os.environ.get("BOCVS_CACHE_DIR", Path.home() / ".cache" / "bocvs"))


class GoalEvaluator:
    """Computes ``g_i(x)`` by averaging ``f`` over a fixed quasi-random sample of the inputs.

    Each set's goal is the objective's
    :meth:`~bocvs_env.problems.objective.Objective.sample_average` on that sample (built on first
    use); the oracle searches with its cheaper exact form, ``sample_mean``.

    Args:
        problem: the problem (its objective is privileged).
        n_samples: the number of quasi-random samples (a power of two keeps Sobol balanced).
        seed: the scrambling seed of the sample set.
        chunk: the most queries evaluated at once by the generic average (memory is
            ``chunk x n_samples x d`` doubles).
    """

    def __init__(
        self, problem: Problem, n_samples: int = 1024, seed: int = 0, chunk: int = 64
    ) -> None:
        self.problem = problem
        self.n_samples = n_samples
        self.seed = seed
        self.chunk = chunk
        self.samples = quasi_random_inputs(problem.distributions, n_samples, seed)  # n_samples x d
        self._goals: dict[int, Callable[[Tensor], Tensor]] = {}

    def set_goal(self, i: int) -> Callable[[Tensor], Tensor]:
        """``g_i`` as a function of the set's own variables: ``batch x k`` queries (``k`` the
        set's size, columns in the set's order) to ``batch`` values, differentiably."""
        if i not in self._goals:
            fixed = self.problem.control_sets[i]
            self._goals[i] = self.problem.objective.sample_average(fixed, self.samples, self.chunk)
        return self._goals[i]

    def g(self, sets: Tensor, X: Tensor) -> Tensor:
        """Goal values of queries.

        Args:
            sets: ``batch`` control-set indices (long).
            X: ``batch x d`` queries in ``[0, 1]^d``; only the entries in each set matter.

        Returns:
            ``batch`` values of ``g_{sets[b]}(X[b])``.
        """
        out = X.new_zeros(X.shape[0])
        for i in torch.unique(sets).tolist():
            rows = sets == i
            out[rows] = self.set_goal(i)(X[rows][:, list(self.problem.control_sets[i])])
        return out

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
        self,
        i: int,
        n_raw: int = 1024,
        n_starts: int | None = None,
        seed: int = 0,
        n_screen: int = 32,
        n_rescore: int = 32,
    ) -> tuple[float, np.ndarray]:
        """``max_{x^i} g_i(x^i)`` by multi-start L-BFGS-B with autograd gradients.

        The candidates are ``n_raw`` Sobol points in the set's subspace, the inputs' means and
        the objective's known maximizers (restricted to the set). When the set's goal costs one
        evaluation of ``f`` per query (the objective's sample mean is in closed form, or the set
        holds every variable), every candidate is scored on all samples and the best
        ``n_starts`` (default 16) are refined jointly
        (:func:`~bocvs_env.problems.extrema.refine_min`). Otherwise a query costs
        ``n_samples`` evaluations, so the candidates are screened on the first ``n_screen``
        samples (a balanced Sobol subset), the best ``n_rescore`` are scored again on all
        samples and the best ``n_starts`` (default 4) of those are refined on all samples. The
        value returned is always ``g_i`` as episodes record it (:meth:`set_goal`) at the
        maximizer found.

        Returns:
            The best value and the maximizing full query of shape ``(d,)`` (entries outside the
            set are 0.5).
        """
        idx = list(self.problem.control_sets[i])
        k = len(idx)
        means = torch.tensor([[p.mean for p in self.problem.distributions]], dtype=torch.float64)
        known = self.problem.objective.optimizers
        candidates = torch.cat(
            [
                SobolEngine(k, scramble=True, seed=seed).draw(n_raw, dtype=torch.float64),
                means[:, idx],
                *([] if known is None else [known[:, idx].to(torch.float64)]),
            ]
        )
        goal = self.problem.objective.sample_mean(idx, self.samples, self.chunk)
        cheap = self.problem.objective.closed_form_mean or k == self.problem.dim
        with torch.no_grad():
            if not cheap and n_screen < self.n_samples:
                screen = self.problem.objective.sample_mean(
                    idx, self.samples[:n_screen], self.chunk
                )
                best = screen(candidates).topk(min(n_rescore, candidates.shape[0])).indices
                candidates = candidates[best]
            scores = goal(candidates)
        if n_starts is None:
            n_starts = 16 if cheap else 4
        starts = candidates[scores.topk(min(n_starts, candidates.shape[0])).indices]
        _, z = refine_min(lambda Z: -goal(Z), starts)
        with torch.no_grad():
            value = float(self.set_goal(i)(z[None])[0])
        x = torch.full((self.problem.dim,), 0.5, dtype=torch.float64)
        x[idx] = z
        return value, x.numpy()


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

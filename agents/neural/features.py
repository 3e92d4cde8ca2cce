"""What the neural acquisition sees: a GP's view of candidate (control set, query) pairs.

After MetaBO (Volpp et al., "Meta-Learning Acquisition Functions for Transfer Learning in
Bayesian Optimization", ICLR 2020), whose policy scores candidate points from a GP's posterior
mean and deviation and the budget used, here for control sets with unknown costs: every
decision offers, for each of the ``m`` control sets, :attr:`FeatureConfig.n_candidates` queries

- the maximizer of the set's expected UCB ``E[mu + beta sigma]`` over a candidate pool,
- the maximizer of its expected posterior mean (the exploiting choice),
- and queries drawn from a shared quasi-random pool (the same for every set),

where the pool is a scrambled Sobol sequence (fixed for the episode), the observed queries and
Gaussian steps around the best UCB points. Every set's posterior over the pool, and then over
its steps, is one batched computation
(:meth:`~agents.expected_posterior.ExpectedPosterior.mean_std_sets`): no optimizer runs, so a
decision at a few tens of observations takes milliseconds. Each (set, query) row carries
:data:`FEATURES`, computed from the public task and the history only: the posterior of the
set's value ``g_i(x^i) = E_{X^-i}[f]`` (:class:`agents.expected_posterior.ExpectedPosterior`,
on the agents' GP surrogate), the set's observed cost and its bounds, its play count, the
budget spent, the set's cost estimate as a share of the budget and the number of evaluations
(so that cost sets and budgets can be told apart). The rows are what both the
training wrapper (:class:`agents.neural.wrapper.CandidateEnv`) and the agent
(:class:`agents.neural.agent.NeuralAFAgent`) give the policy, so a trained policy sees in
evaluation exactly what it saw in training.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from torch.quasirandom import SobolEngine

from agents.expected_posterior import ExpectedPosterior, expected_improvement
from agents.surrogate import GPSurrogate, SurrogateMode
from bocvs_env.sampling import quasi_random_inputs
from bocvs_env.task import Task

#: The names of a row's features, in column order (units: ``y`` standard deviations of the
#: data for values, the mean observed cost of the played sets for costs).
FEATURES = (
    "mean",  # posterior mean of g_i(x), standardized by the observed y
    "std",  # posterior deviation of g_i(x), same units
    "ucb_gap",  # mean + beta std - the best posterior mean over all rows
    "mean_gap",  # mean - the best posterior mean over all rows
    "ei",  # expected improvement over the best posterior mean
    "log_cost",  # log of the set's mean observed cost (relative); 0 when unplayed
    "log_cost_low",  # log of mean - 2 standard errors (floored at 1% of the reference)
    "log_cost_high",  # log of mean + 2 standard errors
    "unplayed",  # 1 if the set has not been played this episode
    "log_plays",  # log(1 + plays of the set)
    "spent",  # fraction of the budget spent
    "log_plays_left",  # log(1 + remaining budget / the set's cost estimate)
    "ucb_gap_per_cost",  # ucb_gap / relative cost
    "ei_per_cost",  # ei / relative cost
    "set_size",  # |set| / d
    "is_ucb_max",  # 1 for the set's UCB maximizer
    "is_mean_max",  # 1 for the set's mean maximizer
    "log_cost_share",  # log of the set's cost estimate / the budget
    "log_evaluations",  # log(1 + evaluations this episode)
)
#: Every feature is clipped to ``[-BOUND, BOUND]``.
BOUND = 10.0
#: The smallest relative cost a per-cost feature divides by.
MIN_RELATIVE_COST = 0.01


@dataclass(frozen=True)
class FeatureConfig:
    """How candidates and features are built.

    Attributes:
        n_candidates: queries per control set (``>= 3``): the UCB maximizer, the mean maximizer
            and ``n_candidates - 2`` from the shared pool.
        pool: Sobol points of the candidate pool (a power of two).
        local: Gaussian steps around each of the 4 best UCB points of a set.
        local_scale: the steps' standard deviation (inputs live in ``[0, 1]``).
        n_samples: quasi-random samples of the random inputs behind each expectation.
        beta: the UCB's width.
        surrogate_mode: the GP's hyperparameters: ``"fixed"`` (the task's reference
            lengthscale, unit prior variance on ``y`` standardized by the initial design) or
            ``"fitted"`` (BoTorch's MAP fit, ARD).
        refit_every: the fitted GP's refits: at least this many new points and 25% more data
            since the last (the surrogate's geometric schedule).
    """

    n_candidates: int = 8
    pool: int = 128
    local: int = 8
    local_scale: float = 0.05
    n_samples: int = 64
    beta: float = 1.0
    surrogate_mode: SurrogateMode = "fixed"
    refit_every: int = 5

    def __post_init__(self) -> None:
        if self.n_candidates < 3:
            raise ValueError(f"n_candidates must be at least 3, got {self.n_candidates!r}")
        if self.pool < self.n_candidates:
            raise ValueError(f"pool must be at least n_candidates, got {self.pool!r}")


def observation_space(task: Task, config: FeatureConfig) -> spaces.Box:
    """``Box(-BOUND, BOUND, (m * n_candidates, len(FEATURES)), float32)``: one row per
    (set, candidate), set-major (row ``i * n_candidates + k``)."""
    shape = (task.n_sets * config.n_candidates, len(FEATURES))
    return spaces.Box(-BOUND, BOUND, shape, np.float32)


class CandidateFeatures:
    """The history of an episode, a GP fitted to it, and the candidate rows of the next decision.

    Use: :meth:`reset` with the task's reset ``info`` and a seed, :meth:`update` after every
    step, :meth:`rows` for the candidates (``N x F`` features, ``N x d`` queries, ``N`` set
    indices, ``N = m * n_candidates``). Only public data enters: the task, the initial design,
    the observations (``x``, ``y``, ``cost``, the set) and ``info["evaluated"]``.
    """

    def __init__(self, task: Task, config: FeatureConfig | None = None) -> None:
        self.task = task
        self.config = config or FeatureConfig()
        self.space = observation_space(task, self.config)
        m, k = task.n_sets, self.config.n_candidates
        self.set_of_row = np.repeat(np.arange(m), k)
        #: Each set's row of its UCB maximizer (the first of its candidates), ``m``.
        self.ucb_rows = np.arange(m) * k
        self.size = np.array([len(s) / task.dim for s in task.control_sets])

    def reset(self, info: dict[str, Any], seed: int | None = None) -> None:
        """Start an episode from the reset ``info`` (``initial_x``, ``initial_y``)."""
        d, m = self.task.dim, self.task.n_sets
        self.rng = np.random.default_rng(seed)
        model_seed = int(self.rng.integers(2**31 - 1))
        self.X = np.asarray(info.get("initial_x", np.zeros((0, d))), np.float64).reshape(-1, d)
        self.y = np.asarray(info.get("initial_y", np.zeros(0)), np.float64).reshape(-1)
        self.costs: list[list[float]] = [[] for _ in range(m)]
        self.plays = np.zeros(m)
        self.cost_sum, self.cost_squares = np.zeros(m), np.zeros(m)
        self.spent = 0.0
        spread = float(self.y.std()) if self.y.size > 1 else 0.0
        self.y_shift = float(self.y.mean()) if self.y.size else 0.0
        self.y_scale = spread if spread > 1e-12 else 1.0
        self.surrogate = GPSurrogate(
            d,
            mode=self.config.surrogate_mode,
            lengthscale=self.task.reference_lengthscale,
            refit_every=self.config.refit_every,
            refit_schedule="geometric",
            seed=model_seed,
        )
        samples = quasi_random_inputs(self.task.distributions, self.config.n_samples, model_seed)
        self.posterior = ExpectedPosterior(self.task, samples)
        sobol = SobolEngine(d, scramble=True, seed=model_seed)
        self.pool = sobol.draw(self.config.pool, dtype=torch.float64)
        self._fit()

    def _fit(self) -> None:
        if self.y.size:
            self.surrogate.fit(self.X, (self.y - self.y_shift) / self.y_scale)

    def update(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Account for one step (ignored unless ``info["evaluated"]``)."""
        if not info.get("evaluated", False):
            return
        i = int(observation["control_set"])
        self.X = np.vstack([self.X, np.asarray(observation["x"], np.float64)[None]])
        self.y = np.append(self.y, float(observation["y"][0]))
        cost = float(observation["cost"][0])
        self.costs[i].append(cost)
        self.plays[i] += 1.0
        self.cost_sum[i] += cost
        self.cost_squares[i] += cost * cost
        self.spent += cost
        self._fit()

    def _cost_columns(self) -> np.ndarray:
        """``m x 8``: log cost, its low and high bounds, unplayed, log plays, log plays left,
        relative cost (the divisor of the per-cost features), log cost share of the budget."""
        m, budget = self.task.n_sets, float(self.task.budget)
        plays = self.plays
        played = plays > 0
        n = np.maximum(plays, 1.0)
        means = self.cost_sum / n
        ref = float(means[played].mean()) if played.any() else 1.0
        ref = ref if ref > 0 else 1.0
        centred = np.maximum(self.cost_squares - plays * means**2, 0.0)
        sd = np.where(plays > 1, np.sqrt(centred / np.maximum(plays - 1.0, 1.0)), 0.0)
        rel = np.where(played, means / ref, 1.0)
        err = 2.0 * sd / np.sqrt(n) / ref
        low = np.maximum(rel - err, MIN_RELATIVE_COST)
        high = rel + err
        remaining = max(budget - self.spent, 0.0)
        estimate = np.maximum(rel * ref, 1e-12)
        cols = np.zeros((m, 8))
        cols[:, 0] = np.where(played, np.log(np.maximum(rel, MIN_RELATIVE_COST)), 0.0)
        cols[:, 1] = np.where(played, np.log(low), 0.0)
        cols[:, 2] = np.where(played, np.log(high), 0.0)
        cols[:, 3] = ~played
        cols[:, 4] = np.log1p(plays)
        cols[:, 5] = np.log1p(remaining / estimate)
        cols[:, 6] = np.maximum(rel, MIN_RELATIVE_COST)
        cols[:, 7] = np.log(estimate / budget)
        return cols

    def _scored(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Posterior mean and std (units of ``y``) of every set's ``g_i`` at its own queries
        (``m x p x d`` to ``m x p`` each), in one batched computation."""
        return self.posterior.mean_std_sets(self.surrogate, X)

    def _candidates(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Every set's ``n_candidates`` queries with their posterior mean and std (units of
        ``y``), ``m x k x d`` and ``m x k``: UCB maximizer, mean maximizer, then pool points
        drawn by the generator. The pool (Sobol points and the observed queries) is scored for
        every set at once, then Gaussian steps around each set's 4 best UCB points."""
        c, m = self.config, self.task.n_sets
        base = torch.cat([self.pool, torch.as_tensor(self.X)])
        mean, std = self._scored(base[None])
        top = torch.topk(mean + c.beta * std, min(4, base.shape[0]), dim=1).indices  # m x t
        centres = base[top]  # m x t x d
        shape = (m, top.shape[1], c.local, base.shape[1])
        steps = torch.as_tensor(self.rng.normal(0.0, c.local_scale, shape))
        local = (centres[:, :, None, :] + steps).reshape(m, -1, base.shape[1]).clamp(0.0, 1.0)
        m_loc, s_loc = self._scored(local)
        queries = torch.cat([base.expand(m, *base.shape), local], dim=1)
        mean, std = torch.cat([mean, m_loc], dim=1), torch.cat([std, s_loc], dim=1)
        shared = np.argsort(self.rng.random((m, c.pool)), axis=1)[:, : c.n_candidates - 2]
        pick = torch.cat(
            [
                torch.argmax(mean + c.beta * std, dim=1, keepdim=True),
                torch.argmax(mean, dim=1, keepdim=True),
                torch.as_tensor(shared),
            ],
            dim=1,
        )  # m x k
        rows = torch.arange(m)[:, None]
        return queries[rows, pick], mean[rows, pick], std[rows, pick]

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The candidates of the next decision: ``N x F`` float32 features (inside
        :attr:`space`) and ``N x d`` full queries in ``[0, 1]`` (set-major, ``N = m * k``)."""
        m, k = self.task.n_sets, self.config.n_candidates
        with torch.no_grad():
            queries_t, mean, std = self._candidates()
        queries = queries_t.reshape(m * k, -1).numpy()
        mean, std = mean.reshape(-1), std.reshape(-1)
        z = (self.y - self.y_shift) / self.y_scale
        y_mean = float(z.mean()) if z.size else 0.0
        y_std = float(z.std()) if z.size > 1 else 0.0
        y_std = y_std if y_std > 1e-12 else 1.0
        best = float(mean.max())
        ei = expected_improvement(mean, std.clamp_min(1e-12), best).numpy() / y_std
        mean_np, std_np = mean.numpy(), std.numpy()
        z_mean = (mean_np - y_mean) / y_std
        z_std = std_np / y_std
        ucb_gap = (mean_np + self.config.beta * std_np - best) / y_std
        cost = self._cost_columns()[self.set_of_row]
        spent = min(self.spent / float(self.task.budget), 1.0)
        kind = np.zeros((m, k, 2))
        kind[:, 0, 0] = 1.0
        kind[:, 1, 1] = 1.0
        table = np.column_stack(
            [
                z_mean,
                z_std,
                ucb_gap,
                (mean_np - best) / y_std,
                ei,
                cost[:, :5],
                np.full(m * k, spent),
                cost[:, 5],
                ucb_gap / cost[:, 6],
                ei / cost[:, 6],
                self.size[self.set_of_row],
                kind.reshape(m * k, 2),
                cost[:, 7],
                np.full(m * k, np.log1p(self.plays.sum())),
            ]
        )
        return np.clip(table, -BOUND, BOUND).astype(np.float32), queries

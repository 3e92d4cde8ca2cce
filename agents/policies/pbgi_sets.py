"""A Pandora's-box Gittins index over control sets (PBGI-D of Xie et al., NeurIPS 2024, on the
exact posterior of each set's value) with optimistic costs and distinct replays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch
from torch import Tensor

from agents.acquisition import SetOptimizer, SetScores
from agents.acquisition.gittins import gittins_index
from agents.acquisition.screening import set_candidates
from agents.base import Action, Observation
from agents.config import FRUGAL, Computation, Rules
from agents.costs.estimates import optimistic_cost_bounds
from agents.expected_posterior import ExpectedPosterior
from agents.policies.model_based import ModelBasedAgent
from bocvs_env.agent_state import StateArrays, StateMeta
from bocvs_env.checks import check_positive_finite, check_positive_integers

#: The least relative cost priced (``c_i / c_max``): a set never played has the cost bound 0,
#: and its index, at this price about ``mean + 6 std``, puts it before every set played.
MIN_RELATIVE_COST = 1e-9


@dataclass(frozen=True)
class PBGIRules(Rules):
    """The index policy's rules (:class:`PBGISetsAgent` documents each)."""

    lmbda: float = 0.1
    decay: float = 2.0
    cost_z: float = 2.0
    cost_aware: bool = True
    distinct_replays: bool = True
    n_refine: int = 2

    def __post_init__(self) -> None:
        check_positive_finite(lmbda=self.lmbda)
        check_positive_integers(n_refine=self.n_refine)
        if not (np.isfinite(self.decay) and self.decay >= 1.0):
            raise ValueError(f"decay must be >= 1 and finite, got {self.decay!r}")
        if not (np.isfinite(self.cost_z) and self.cost_z >= 0.0):
            raise ValueError(f"cost_z must be >= 0 and finite, got {self.cost_z!r}")


class PBGISetsAgent(ModelBasedAgent):
    """Each decision plays the set and query of largest Gittins index of the set's value.

    The value of playing set ``i`` at ``x^i`` is ``g_i(x^i) = E_{X^-i}[f([x^i, X^-i])]``, whose
    posterior is Gaussian with the exact mean and deviation of a linear functional of the GP
    (:class:`agents.expected_posterior.ExpectedPosterior`). Its index (Xie, Astudillo, Frazier
    & Frazier, NeurIPS 2024, PBGI; :func:`agents.acquisition.gittins.gittins_index`) is the
    ``G`` solving ``E[max(g_i(x^i) - G, 0)] = lambda * s_y * c_i / c_max``: the reservation
    value of a Pandora's box that costs the set's price. The rule:

    - **Index, per set**: ``max_{x^i} G_i(x^i)`` by :class:`~agents.acquisition.SetOptimizer`
      on :class:`~agents.acquisition.SetScores` (``raw_samples`` scrambled Sobol candidates of
      the set's variables, one seed per set and run, plus every observed query; the best
      ``n_refine`` refined by L-BFGS-B). The largest index over sets is played (ties: the lower
      set index). The price is in units of ``y`` (``s_y``, the GP's scale of ``y``) per
      relative cost (``c_max``, the largest cost estimate), so the rule is invariant to affine
      maps of ``f`` and to the unit of cost.
    - **Optimistic costs** (``cost_z``): ``c_i`` is a lower confidence bound of the set's mean
      cost, 0 for a set never played, so that every set is tried once before the costs seen
      are trusted (:func:`agents.costs.estimates.optimistic_cost_bounds`); ``cost_aware=False`` gives every
      set the same price (PBGI with uniform costs, an ablation).
    - **lambda's decay** (PBGI-D, the authors' ``step_divide``): ``lambda`` starts at
      ``lmbda`` and is divided by ``decay`` whenever the played index is below the incumbent
      (the largest posterior mean of ``g_{i_t}(x_t)`` over the plays so far): PBGI's stopping
      rule (Xie et al. 2024; 2025, "cost-aware stopping") says that no box is worth its price,
      so the price falls and the search turns from cheap sets to valuable ones. ``decay = 1``
      keeps ``lambda`` fixed.
    - **Distinct replays** (``distinct_replays``): a decision is held as
      :data:`~agents.config.FRUGAL` holds it (0.5% of the budget); each replay maximizes the
      index again on the held set, on the GP conditioned on the plays so far, so that a cheap
      set's replays are distinct queries, not one query with fresh random inputs. Off: the
      held query is replayed.

    The decision log has one entry per decision: ``set``, ``index`` (per set), ``cost`` (the
    estimates), ``lmbda`` (the one used), ``incumbent`` and ``decayed``.

    Args:
        lmbda: ``lambda``'s initial value (``> 0``; default 0.1, PBGI-D's ``init_lmbda``).
        decay: the factor ``lambda`` is divided by when the index falls below the incumbent
            (``>= 1``; default 2, PBGI-D's).
        cost_z: the width of the cost bound in standard errors (``>= 0``; default 2).
        cost_aware: price the sets by their costs (default on).
        distinct_replays: re-maximize the index on each replay of a held decision (default on).
        n_refine: the best screened candidates per set refined by L-BFGS-B (default 2).
        **model: the options of :class:`~agents.policies.model_based.ModelBasedAgent`,
            with :data:`~agents.config.FRUGAL`'s computation bounds by default.
    """

    name = "pbgi-sets"
    default_rules: ClassVar[PBGIRules] = PBGIRules()
    default_computation: ClassVar[Computation] = FRUGAL
    rules: PBGIRules

    def start(self) -> None:
        super().start()
        self.posterior = ExpectedPosterior(self.task, self.acquisition.samples)
        self._sobol_seed = int(self.rng.integers(2**31 - 1))
        self._first_play = self.y.size
        self._played_sets: list[int] = []
        self.lmbda = self.rules.lmbda

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """Its state (:class:`~bocvs_env.agent_state.StatefulAgent`): the model-based agent's
        (:meth:`~agents.policies.model_state.SavedModelAgent.model_state`), the set of each
        evaluated play as ``pbgi.played_sets`` (``n_plays``, the incumbent's) and, in JSON as
        ``lmbda``, the decayed ``lambda``; the Sobol seed and the initial design's size are
        set in :meth:`start` (again by ``reset``)."""
        arrays, meta = self.model_state()
        arrays["pbgi.played_sets"] = np.asarray(self._played_sets, np.int64)
        meta["lmbda"] = self.lmbda
        return arrays, meta

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state` (after :meth:`reset`).

        Raises:
            ValueError: for a state :meth:`load_model_state` refuses, a ``lmbda`` that is not
                positive and finite, or played sets that are not one valid set per play.
        """
        lmbda = meta.get("lmbda")
        if not isinstance(lmbda, float) or not (np.isfinite(lmbda) and lmbda > 0):
            raise ValueError(f"a state's lmbda must be positive and finite, got {lmbda!r}")
        played = np.asarray(arrays.get("pbgi.played_sets", []))
        n_plays = np.asarray(arrays.get("y", [])).size - self._first_play
        valid = played.ndim == 1 and played.dtype.kind in "iu" and played.size == n_plays
        if not valid or not np.all((played >= 0) & (played < self.task.n_sets)):
            raise ValueError(f"a state's pbgi.played_sets must be {n_plays} set indices in "
                             f"[0, {self.task.n_sets}), got {played.tolist()!r}")  # fmt: skip
        self.load_model_state(arrays, meta)
        self._played_sets = [int(i) for i in played]
        self.lmbda = lmbda

    def observe(
        self,
        action: Action,
        observation: Observation,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        if info.get("evaluated", False):
            self._played_sets.append(int(observation["control_set"]))
        super().observe(action, observation, reward, terminated, truncated, info)

    def decide(self, observation: Observation) -> Action:
        costs = optimistic_cost_bounds(self.cost_draws, self.rules.cost_z)
        prices = self.prices(costs)
        found = [self._max_index(i, float(prices[i])) for i in range(self.task.n_sets)]
        index = [v for v, _ in found]
        i = int(np.argmax(index))
        incumbent = self.incumbent()
        used = self.lmbda
        decayed = index[i] < incumbent
        if decayed:
            self.lmbda /= self.rules.decay
        self.log(set=i, index=index, cost=costs.tolist(), lmbda=used, incumbent=incumbent,
                 decayed=bool(decayed))  # fmt: skip
        return {"control_set": i, "x": found[i][1]}

    def replay(self, i: int, x: np.ndarray) -> np.ndarray:
        """A held decision's next query on set ``i``: the index maximized again on the
        current GP (``distinct_replays``), else ``x``."""
        if not self.rules.distinct_replays:
            return x.copy()
        costs = optimistic_cost_bounds(self.cost_draws, self.rules.cost_z)
        return self._max_index(i, float(self.prices(costs)[i]))[1]

    def prices(self, costs: np.ndarray) -> np.ndarray:
        """``(m,)`` the price of a play of each set, ``lambda * s_y * c_i / c_max`` (units of
        ``y``; a relative cost of 0, a set never played, is raised to :data:`MIN_RELATIVE_COST`),
        or ``lambda * s_y`` for every set without ``cost_aware``."""
        scale = self.surrogate.hyper.y_scale if self.surrogate.n_train else 1.0
        top = float(costs.max())
        if self.rules.cost_aware and top > 0:
            relative = np.maximum(costs / top, MIN_RELATIVE_COST)
        else:
            relative = np.ones_like(costs)
        return self.lmbda * max(float(scale), 1e-12) * relative

    def incumbent(self) -> float:
        """The largest posterior mean of ``g_{i_t}(x_t)`` over the plays so far (``-inf``
        before the first play): the best value the plays are believed to have reached."""
        played = np.asarray(self._played_sets)
        rows = self.X[self._first_play :]
        best = -np.inf
        for i in np.unique(played):
            X = torch.as_tensor(rows[played == i], dtype=torch.float64)
            with torch.no_grad():
                mean, _ = self.posterior.mean_std(self.surrogate, int(i), X)
            best = max(best, float(mean.max()))
        return best

    def _index(self, i: int, X: Tensor, price: float) -> Tensor:
        mean, std = self.posterior.mean_std(self.surrogate, i, X)
        return gittins_index(mean, std, price)

    def _max_index(self, i: int, price: float) -> tuple[float, np.ndarray]:
        """``max_{x^i} G_i`` at ``price`` and its full query ``(d,)`` (entries outside the set
        0.5, drawn by the environment)."""
        ctrl = list(self.task.control_sets[i])
        Z = set_candidates(ctrl, self.acquisition_options.raw_samples, self._sobol_seed + i, self.X)
        score = SetScores(
            self.task.control_sets, self.task.dim, lambda j, X: self._index(j, X, price)
        )
        optimizer = SetOptimizer(self.rules.n_refine, self.acquisition_options.maxiter)
        ((value, x),) = optimizer.maximize(score, [i], [Z])
        return value, x

"""Expected improvement per unit cost with cost cooling (Snoek et al. 2012; Lee et al. 2020,
CArBO) over the expectation of the random inputs, with a learned cost model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch
from botorch.acquisition.cost_aware import InverseCostWeightedUtility
from botorch.models.deterministic import GenericDeterministicModel
from torch import Tensor

from agents.acquisition import SetOptimizer, SetScores
from agents.acquisition.screening import set_candidates
from agents.base import Action, Observation
from agents.config import FRUGAL, Computation, Rules
from agents.costs.estimates import cooling_exponent, optimistic_mean_costs
from agents.expected_posterior import ExpectedPosterior, expected_improvement
from agents.policies.model_based import ModelBasedAgent
from agents.rules.set_selection import maximal_sets
from bocvs_env.agent_state import StateArrays, StateMeta
from bocvs_env.checks import check_positive_finite, check_positive_integers


@dataclass(frozen=True)
class CostEIRules(Rules):
    """Cost-cooled EI's rules (:class:`CostCooledEIAgent` documents each)."""

    cooling: bool = True
    cost_prior: float | None = None
    cost_warmup: bool = True
    n_refine: int = 2

    def __post_init__(self) -> None:
        if self.cost_prior is not None:
            check_positive_finite(cost_prior=self.cost_prior)
        check_positive_integers(n_refine=self.n_refine)


class CostCooledEIAgent(ModelBasedAgent):
    """Each decision plays the set and query of largest ``EI_i(x) / c_hat_i^alpha``.

    Snoek, Larochelle & Adams (NeurIPS 2012, "Practical Bayesian optimization of machine
    learning algorithms") maximize expected improvement per second, with a GP model of the
    cost; Lee, Perrone, Archambeau & Seeger (2020, "Cost-aware Bayesian optimization",
    arXiv:2003.10870, CArBO) start from a cheap initial design and then divide by
    ``c(x)^alpha`` with ``alpha = (C - spent) / (C - C_init)`` falling from 1 to 0 (``C_init``
    the initial design's spend), so that late rounds are not spent on cheap, uninformative
    evaluations.

    Adaptations to BOCVS:

    - **The value being improved** is ``g_i(x) = E_{X^-i}[f([x^i, X^-i])]``, the set's value
      at a partial query, not ``f`` at a full query: EI uses the posterior mean and standard
      deviation of ``g_i`` (:class:`agents.expected_posterior.ExpectedPosterior`, the variance
      of the average over the random inputs, covariances included), and the incumbent is the
      largest posterior mean of any set's value, ``max_{i, x^i} E[mu]`` (the plug-in incumbent
      of noisy EI; observed ``y`` carry the random inputs' noise).
    - **The cost model** is per set, not per point, and learned: the mean of the set's cost
      draws, with an optimistic prior for sets never played (the cheapest observed mean, or
      ``cost_prior``) (:func:`agents.costs.estimates.optimistic_mean_costs`); the cost is
      random but its mean does not depend on ``x``, so no GP on cost is needed. In place of
      CArBO's initial design, the first decisions (``cost_warmup``) play every set once, the
      unplayed set of largest EI each time (by EI, not by cost: the full set is among them),
      so that every set has an observed cost (with a ``hold``, a decision is replayed: a 0.01
      set's about 50 times, a 0.1 set's 5):
      without it, the first set played (the full set, whose EI is largest) sets the prior of
      every other set to its own cost, and the ratio never tries the cheap sets.
    - **Cooling**: ``alpha = (C - spent) / C`` (:func:`agents.costs.estimates.cooling_exponent`):
      the problems' initial design is free, but the warmup's spend counts, so ``alpha`` is
      below 1 when the warmup ends, where CArBO's is 1 after its initial design;
      ``cooling=False`` keeps ``alpha = 1`` (Snoek et al.'s EI per unit cost).
    - The division is BoTorch's :class:`~botorch.acquisition.cost_aware.InverseCostWeightedUtility`
      over a :class:`~botorch.models.deterministic.GenericDeterministicModel` that maps a set's
      index to ``c_hat_i^alpha``.
    - **Maximization** per set: ``raw_samples`` scrambled Sobol candidates in the set's
      variables (the same candidates every decision: one seed per set and run) plus every
      observed query, scored, and the best ``n_refine`` of them refined by L-BFGS-B with
      autograd gradients (``maxiter`` iterations), one start at a time
      (:class:`~agents.acquisition.SetOptimizer` on :class:`~agents.acquisition.SetScores`);
      the maximizer is played as found (entries outside the set 0.5, drawn by the
      environment). The incumbent ``max E[mu]`` is taken over the sets that are no strict
      subset of another (a superset's maximum is never smaller). Ties in the score go to the
      lower set index.

    The decision log has one entry per decision: ``set``, ``ei`` (per set; during the warmup
    0 for the sets already played, which are not maximized), ``cost`` (the cost estimates),
    ``alpha``, ``score`` (per set; during the warmup the EI of the unplayed sets and -1 for
    the others) and ``best`` (the incumbent).

    Args:
        cooling: divide by ``c^alpha`` with the cooling schedule (else by ``c``; default on).
        cost_prior: the cost assumed for sets never played; ``None`` (the default) is the
            cheapest observed.
        cost_warmup: play every set once (largest EI first) before dividing by cost (default
            on).
        n_refine: the best screened candidates per set refined by L-BFGS-B (default 2).
        **model: the options of :class:`~agents.policies.model_based.ModelBasedAgent`,
            with :data:`~agents.config.FRUGAL`'s computation bounds by default.
    """

    name = "ei-cost"
    default_rules: ClassVar[CostEIRules] = CostEIRules()
    default_computation: ClassVar[Computation] = FRUGAL
    rules: CostEIRules

    def start(self) -> None:
        super().start()
        self.posterior = ExpectedPosterior(self.task, self.acquisition.samples)
        self._maximal = maximal_sets(self.task.control_sets)
        self._sobol_seed = int(self.rng.integers(2**31 - 1))

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """Its state (:class:`~bocvs_env.agent_state.StatefulAgent`): the model-based agent's
        (:meth:`~agents.policies.model_state.SavedModelAgent.model_state`); the Sobol seed is
        drawn in :meth:`start` (redrawn by ``reset``), the warmup's and the cooling's place
        follow from the plays and the spend."""
        return self.model_state()

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state` (after :meth:`reset`)."""
        self.load_model_state(arrays, meta)

    def decide(self, observation: Observation) -> Action:
        m = self.task.n_sets
        warmup = self.warmup_sets()
        sets = warmup or list(range(m))
        best = max(v for v, _ in self.set_maxima(self._maximal, "mean").values())
        found = {i: self._max_ei(i, best) for i in sets}
        ei = torch.tensor(
            [found[i][0] if i in found else 0.0 for i in range(m)], dtype=torch.float64
        )
        costs = optimistic_mean_costs(self.cost_draws, self.rules.cost_prior)
        alpha = cooling_exponent(self.spent, self.task.budget) if self.rules.cooling else 1.0
        score = self.cost_weighted(ei, costs, alpha)
        if warmup:  # the cost model's initial design: EI alone
            score = torch.where(torch.tensor([i in found for i in range(m)]), ei, -1.0)
        i = int(torch.argmax(score))
        self.log(
            set=i,
            ei=ei.tolist(),
            cost=costs.tolist(),
            alpha=alpha,
            score=score.tolist(),
            best=best,
        )
        return {"control_set": i, "x": found[i][1]}

    def warmup_sets(self) -> list[int]:
        """The sets not yet played while ``cost_warmup`` is on (the cost model's initial
        design, valued by EI alone), else none."""
        if not self.rules.cost_warmup:
            return []
        return [i for i in range(self.task.n_sets) if self.plays[i] == 0]

    @staticmethod
    def cost_weighted(ei: Tensor, costs: np.ndarray, alpha: float) -> Tensor:
        """``ei_i / costs_i^alpha`` (``(m,)``) by BoTorch's inverse-cost-weighted utility."""
        cooled = torch.as_tensor(costs, dtype=torch.float64) ** alpha

        def cost_of(X: Tensor) -> Tensor:
            return cooled[X[..., 0].long()].unsqueeze(-1)

        utility = InverseCostWeightedUtility(GenericDeterministicModel(cost_of, num_outputs=1))
        X = torch.arange(len(costs), dtype=torch.float64).reshape(-1, 1, 1)
        with torch.no_grad():
            return utility(X, ei.clamp_min(0.0))

    def _ei(self, i: int, X: Tensor, best: float) -> Tensor:
        mean, std = self.posterior.mean_std(self.surrogate, i, X)
        return expected_improvement(mean, std, best)

    def _max_ei(self, i: int, best: float) -> tuple[float, np.ndarray]:
        """``max_{x^i} EI_i`` and its full query ``(d,)`` (entries outside the set 0.5)."""
        ctrl = list(self.task.control_sets[i])
        Z = set_candidates(ctrl, self.acquisition_options.raw_samples, self._sobol_seed + i, self.X)
        ei = SetScores(self.task.control_sets, self.task.dim, lambda j, X: self._ei(j, X, best))
        optimizer = SetOptimizer(self.rules.n_refine, self.acquisition_options.maxiter)
        ((value, x),) = optimizer.maximize(ei, [i], [Z])
        return value, x

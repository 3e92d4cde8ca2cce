"""SADCBO, Sensitivity-Analysis-Driven Contextual BO (Martinelli, Bharti, Tiihonen, John,
Filstroff, Sloman, Rinke & Kaski, "Learning relevant contextual variables within Bayesian
optimization", UAI 2024, arXiv:2305.14120), adapted to BOCVS."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from agents.base import Action, Observation
from agents.config import FRUGAL, Computation, Rules
from agents.costs.estimates import optimistic_mean_costs
from agents.policies.model_based import ModelBasedAgent
from agents.rules.relevance import cheapest_covering_set, collapse_relevance, relevant_variables
from bocvs_env.agent_state import StateArrays, StateMeta
from bocvs_env.checks import check_positive_integers


@dataclass(frozen=True)
class SADCBORules(Rules):
    """SADCBO's rules (:class:`SADCBOAgent` documents each)."""

    threshold: float = 0.1
    warmup: int | None = None
    relevance_points: int = 3

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {self.threshold!r}")
        if self.warmup is not None and self.warmup < 0:
            raise ValueError(f"warmup must be >= 0, got {self.warmup!r}")
        check_positive_integers(relevance_points=self.relevance_points)


class SADCBOAgent(ModelBasedAgent):
    """Learn which variables matter from the posterior; pay to control only those.

    SADCBO (Martinelli et al., UAI 2024) optimizes design variables while contextual variables
    are either observed as the environment sets them or, at a cost, optimized too. In the
    authors' public code (github.com/julienmartinelli/SADCBO), a context's relevance at an
    input is the square root of the KL divergence between the full GP's predictive
    distributions at the input and at the input with that context set to 0 ("feature
    collapsing"), divided by the context's cost (1 per variable there), averaged over the best
    ``gamma`` fraction of the observed inputs by observed ``y``; the relevances are normalized
    to sum to 1 and the top-ranked contexts are kept until their cumulative share exceeds
    ``eta``. It starts in an observational phase (contexts observed, not controlled) and
    switches to intervening on the kept contexts when a stopping rule fires (the change in
    expected minimum simple regret between successive models, after Ishibashi et al. 2023,
    below a tenth of the median of its first 20 values); it queries by UCB (BoTorch's
    ``beta = 0.2``) on a second GP over the design variables and the kept contexts.

    In BOCVS every variable is a context that a control set may optimize at the set's unknown
    cost. The adaptations, each a choice this setting forces or leaves open:

    - **Relevance**: the root-mean-square change of the posterior mean when a variable is
      redrawn from its distribution (:func:`agents.rules.relevance.collapse_relevance`), not the KL
      to the input with the variable set to 0: a variable left out of the control set is drawn
      from its distribution here, so that is the collapse that matters, and it is in the units
      of ``y``. It is measured at the ``relevance_points`` best observed queries by posterior
      mean (all observations, the initial design included), recomputed at every intervening
      decision with the current GP, and not divided by a cost (costs are per set here, below).
    - **Selection**: the relevant variables are those with at least ``threshold`` times the
      largest relevance (:func:`agents.rules.relevance.relevant_variables`; all of them when every
      relevance is 0), a ratio-to-max cut instead of SADCBO's cumulative share.
    - **Cost**: costs are per set, not per variable, and unknown, so the agent plays the
      cheapest set that controls every relevant variable (or, if none does, the sets that
      cover the largest share of the squared relevance), ties to the smaller set, then the
      lower index (:func:`agents.rules.relevance.cheapest_covering_set`), by a learned cost model:
      the mean of each set's draws, with the cheapest observed mean as an optimistic prior for
      sets never played (:func:`agents.costs.estimates.optimistic_mean_costs`).
    - **Phases**: the observational phase is a fixed number of decisions, ``warmup`` (``d`` by
      default), and also every decision without data; the stopping rule is not implemented.
      It plays the smallest set, then the lower index (before any draw every set's estimate
      is alike; afterwards a set never played counts at the cheapest observed mean, so the
      phase stays on that set and does not try the others), and every other variable is drawn
      by the environment and so observed: the GP learns from them as from contexts. Relevance
      is measured only when intervening. With a ``hold`` (the default computation bounds),
      ``warmup`` counts decisions, each replayed: at budget 100 a 0.01 set's decision is 50
      plays, so ``d = 12`` warmup decisions are about 600 plays (6 units).
    - **Query**: ``argmax E[u]`` over the chosen set, ``beta = 2`` as every agent here, the
      expectation over its random variables (the paper's UCB on the joint space, with the
      uncontrolled contexts integrated out as every agent here does), in both phases; the
      played query is that maximizer polished again on all samples (:meth:`played`, with the
      default ``polish_samples``).
    - One GP keeps every variable (the ARD lengthscales let it ignore the irrelevant ones), as
      the other agents, where SADCBO keeps a full GP for relevance and a reduced one for UCB.

    The decision log has one entry per decision: ``phase`` (``"observe"``/``"intervene"``),
    ``set``, ``value`` (``max E[u]`` of the set, at the maximizer before its polish), and when
    intervening ``relevance`` and ``relevant``.

    Args:
        threshold: the ratio to the largest relevance at or above which a variable counts
            (default 0.1).
        warmup: observational decisions; ``None`` (the default) is ``d``.
        relevance_points: the best observed queries relevance is measured at (default 3).
        **model: the options of :class:`~agents.policies.model_based.ModelBasedAgent`,
            with :data:`~agents.config.FRUGAL`'s computation bounds by default.
    """

    name = "sadcbo"
    default_rules: ClassVar[SADCBORules] = SADCBORules()
    default_computation: ClassVar[Computation] = FRUGAL
    rules: SADCBORules

    def start(self) -> None:
        super().start()
        self.rounds = 0

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """Its state (:class:`~bocvs_env.agent_state.StatefulAgent`): the model-based agent's
        (:meth:`~agents.policies.model_state.SavedModelAgent.model_state`) and, in JSON as
        ``rounds``, the decisions made so far (the observational phase's place); the relevance
        is recomputed from the GP at every intervening decision."""
        arrays, meta = self.model_state()
        meta["rounds"] = self.rounds
        return arrays, meta

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state` (after :meth:`reset`).

        Raises:
            ValueError: for a state :meth:`load_model_state` refuses, or whose ``rounds`` is
                not a count of decisions.
        """
        rounds = meta.get("rounds")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0:
            raise ValueError(f"a state's rounds must be a count of decisions, got {rounds!r}")
        self.load_model_state(arrays, meta)
        self.rounds = rounds

    def decide(self, observation: Observation) -> Action:
        costs = optimistic_mean_costs(self.cost_draws)
        warmup = self.task.dim if self.rules.warmup is None else self.rules.warmup
        note: dict[str, Any]
        if self.rounds < warmup or self.y.size == 0:
            sizes = [len(s) for s in self.task.control_sets]
            i = int(min(range(self.task.n_sets), key=lambda j: (costs[j], sizes[j], j)))
            note = {"phase": "observe"}
        else:
            relevance = self.relevance()
            relevant = relevant_variables(relevance, self.rules.threshold)
            i = cheapest_covering_set(self.task.control_sets, relevance, relevant, costs)
            note = {"phase": "intervene", "relevance": relevance.tolist(), "relevant": relevant}
        value, x = self.set_maxima([i], "ucb")[i]
        self.rounds += 1
        self.log(set=i, value=value, **note)
        return {"control_set": i, "x": self.played(i, x)}

    def relevance(self) -> np.ndarray:
        """``(d,)`` feature-collapsing relevance at the best observed queries."""
        with torch.no_grad():
            mu = self.surrogate.mean(torch.as_tensor(self.X))
        best = self.X[np.argsort(-mu.numpy(), kind="stable")[: self.rules.relevance_points]]
        return collapse_relevance(self.surrogate, best, self.acquisition.samples.numpy())

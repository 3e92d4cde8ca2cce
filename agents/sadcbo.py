"""SADCBO, Sensitivity-Analysis-Driven Contextual BO (Martinelli, Bharti, Tiihonen, John,
Filstroff, Sloman, Rinke & Kaski, "Learning relevant contextual variables within Bayesian
optimization", AISTATS/UAI 2024, arXiv:2305.14120), adapted to BOCVS."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
import torch

from agents.base import Action, Observation
from agents.cost_estimates import optimistic_mean_costs
from agents.model_based import FRUGAL_COMPUTE, ModelBasedAgent
from agents.relevance import cheapest_covering_set, collapse_relevance, relevant_variables


class SADCBOAgent(ModelBasedAgent):
    """Learn which variables matter from the posterior; pay to control only those.

    SADCBO (Martinelli et al. 2024) optimizes design variables while contextual variables are
    either observed as the environment sets them or, at a cost, optimized too. It measures each
    context's relevance by sensitivity analysis of the GP posterior at specific input points
    (their "feature collapsing"), optimizes only the relevant contexts (weighing relevance
    against the cost of controlling them), switches between an observational and an
    interventional phase, and queries by UCB on the joint space.

    In BOCVS every variable is a context that a control set may optimize at the set's unknown
    cost. The adaptations, each a choice this setting forces or leaves open:

    - **Relevance**: feature collapsing at the ``relevance_points`` best observed queries (by
      posterior mean): the RMS change of the posterior mean when a variable is replaced by
      draws of its distribution (:func:`agents.relevance.collapse_relevance`). The relevant
      variables are those with at least ``threshold`` times the largest relevance
      (:func:`agents.relevance.relevant_variables`), a cut on normalized sensitivity as
      SADCBO's selection.
    - **Cost trade-off**: the paper adds a context when its relevance outweighs its cost; here
      the costs are per set, not per variable, and unknown, so the agent plays the cheapest
      set that controls every relevant variable (or, if none does, the sets that cover the
      most relevance), by a learned cost model: the mean of each set's draws, with the
      cheapest observed mean as an optimistic prior for sets never played
      (:func:`agents.cost_estimates.optimistic_mean_costs`).
    - **Phases**: SADCBO's switch from observing contexts to intervening uses an early-stopping
      bound on the regret (Makarova et al. 2022), whose threshold comes from a validation
      estimate this setting lacks. Here the observational phase is ``warmup`` rounds on the
      cheapest set by the cost model, ties to the smaller set, then the lower index (a set never
      played counts at the cheapest observed mean, so the phase stays on the first cheapest
      set; it does not try the others), in which every other variable is drawn by the environment and so observed: the
      GP learns from them as from contexts. Afterwards relevance is recomputed after every fit.
    - **Query**: ``argmax E[u]`` over the chosen set, the expectation over its random variables
      (the paper's UCB on the joint space, with the uncontrolled contexts integrated out as
      every agent here does).
    - The paper's GP is fitted to the selected contexts only; here the one GP keeps every
      variable (the ARD lengthscales let it ignore the irrelevant ones), as the other agents.

    The decision log has one entry per round: ``phase`` (``"observe"``/``"intervene"``),
    ``set``, ``value`` (the played ``max E[u]``), and when intervening ``relevance`` and
    ``relevant``.

    Args:
        threshold: the ratio to the largest relevance above which a variable counts.
        warmup: observational rounds; ``None`` is ``d``.
        relevance_points: the best observed queries relevance is measured at.
        **model: the options of :class:`~agents.model_based.ModelBasedAgent`,
            with :data:`~agents.model_based.FRUGAL_COMPUTE`'s computation bounds by default.
    """

    name = "sadcbo"
    model_defaults: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {**ModelBasedAgent.model_defaults, **FRUGAL_COMPUTE}
    )

    def __init__(
        self,
        threshold: float = 0.1,
        warmup: int | None = None,
        relevance_points: int = 3,
        **model: Any,
    ) -> None:
        super().__init__(**model)
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
        if warmup is not None and warmup < 0:
            raise ValueError(f"warmup must be >= 0, got {warmup!r}")
        if relevance_points < 1:
            raise ValueError(f"relevance_points must be >= 1, got {relevance_points!r}")
        self.threshold = threshold
        self.warmup = warmup
        self.relevance_points = relevance_points

    def start(self) -> None:
        super().start()
        self.rounds = 0

    def decide(self, observation: Observation) -> Action:
        costs = optimistic_mean_costs(self.cost_draws)
        warmup = self.task.dim if self.warmup is None else self.warmup
        note: dict[str, Any]
        if self.rounds < warmup or self.y.size == 0:
            sizes = [len(s) for s in self.task.control_sets]
            i = int(min(range(self.task.n_sets), key=lambda j: (costs[j], sizes[j], j)))
            note = {"phase": "observe"}
        else:
            relevance = self.relevance()
            relevant = relevant_variables(relevance, self.threshold)
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
        best = self.X[np.argsort(-mu.numpy(), kind="stable")[: self.relevance_points]]
        return collapse_relevance(self.surrogate, best, self.acquisition.samples.numpy())

    def params(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "warmup": self.warmup,
            "relevance_points": self.relevance_points,
            **super().params(),
        }

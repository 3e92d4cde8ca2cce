"""The explore-then-commit policy (:class:`ETCAgent`): Algorithm 1 of Hoang, Nguyen & Tran
(AAAI 2025, "ETC"), FETC and GETC, as one policy composed of parts
(:mod:`agents.policies.etc.parts`) that its rules choose
(:mod:`agents.policies.etc.rules`)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from agents.base import Action, Observation
from agents.policies.etc.computation import ETC_EXACT, ETCComputation
from agents.policies.etc.exploration import ExploreChoice
from agents.policies.etc.model import GPModelPort
from agents.policies.etc.port import Observed
from agents.policies.etc.rules import ETCRules
from agents.policies.etc.state import ETCState, Round
from agents.policies.etc.surrogates import ModelSpec
from agents.policies.model_based import ModelBasedAgent
from agents.rules.set_selection import intersect_bounds
from agents.surrogate import GPSurrogate
from bocvs_env.agent_state import StateArrays, StateMeta, part, prefixed


class ETCAgent(ModelBasedAgent):
    """Explore, then commit to the cheapest set whose bounds say it is good enough.

    **Exploration** (the exploration rule): play sets at ``x^i = argmax E[u_{t-1}]`` while the
    rule says the budget share ``explore_fraction`` allows; Algorithm 1 plays round-robin in
    whole cycles, a new cycle while the spend so far plus the cycle's estimated cost (the sum
    of the sets' observed mean costs) fits (:func:`agents.rules.set_selection.continue_exploration`).
    With Algorithm 1's bars each exploration round also records ``max_{i, x^i} E[l_{t-1}]``
    (into ``lcb_bar``, a running max) and the played set's ``max_x E[u_{t-1}]`` (into
    ``ucb_bar_i``, a running min), lines 10-11.

    **Exploitation** (the value bound, the cost bound, the query): each round forms ``S1``, the
    sets whose upper bound exceeds ``(1 - alpha)`` times the largest lower bound; ``S3``, the
    sets of ``S1`` with the smallest cost lower bound (ties kept), with ``T = budget / min_i
    c_hat_i`` (the most rounds the budget could buy at the cheapest observed mean cost, a
    stand-in for the unknown horizon); plays the set of ``S3`` with the largest upper bound.
    ``alpha`` starts at ``alpha0`` and is halved after every ``halve_every`` exploitation
    rounds (default ``d``; a round is an evaluation, or with a ``hold`` a decision and its
    replays).

    ``max_{i, x^i} E[l]`` is taken over the sets that are not strict subsets of another
    (:func:`agents.rules.set_selection.maximal_sets`): a superset's maximum is never smaller
    (exactly for the full set; for others up to the Monte Carlo error of the expectation).

    The episode's state (bars, counts, the exploration's progress) is :attr:`state`
    (:class:`~agents.policies.etc.state.ETCState`); the parts receive it with the data observed
    (:class:`~agents.policies.etc.port.Observed`) and the model port (:class:`~agents.policies.etc.model.GPModelPort`), never
    the agent.

    The decision log (:meth:`diagnostics`) has one entry per decision: ``phase``, ``set``,
    ``value`` (the played upper bound), ``lcb_bar``, and with Algorithm 1's bars ``ucb_bar``;
    in exploitation ``alpha``, ``horizon``, ``cost_lcb``, ``s3``, with the bars ``s1`` and
    ``reset``, with current bounds ``ucb_checked`` (the sets whose maximal upper bound was
    needed; ``lcb_bar`` is then this round's ``max L``); with FETC's rules ``query``, and with
    relevance ``relevant`` and ``skipped`` in exploration.

    Args:
        preset: the registered name whose rules and computation the parameters are given over
            (:data:`~agents.policies.etc.presets.PRESETS`; ``None`` is ``"etc"``, Algorithm 1).
        **params: the preset's rules (:class:`~agents.policies.etc.rules.ETCRules`,
            :class:`~agents.policies.etc.rules.FETCRules`,
            :class:`~agents.policies.etc.rules.GETCRules`), its computation
            (:class:`~agents.policies.etc.computation.ETCComputation`) and the model options of
            :class:`~agents.policies.model_based.ModelBasedAgent` (``beta = 2`` by default, as
            the paper), by name.
    """

    name = "etc"
    default_rules: ClassVar[ETCRules] = ETCRules()
    default_computation: ClassVar[ETCComputation] = ETC_EXACT
    rules: ETCRules
    computation: ETCComputation

    def __init__(self, preset: str | None = None, **params: Any) -> None:
        super().__init__(preset, **params)
        self.parts = self.rules.parts()

    def start(self) -> None:
        super().start()
        exploration = self.parts.exploration
        self.model = GPModelPort(self, self.computation.lcb_tracking)
        self.state = ETCState(
            ucb_bar=np.full(self.task.n_sets, np.inf),
            progress=exploration.start(self.observed()),
            relevance=None if exploration.relevance is None else exploration.relevance.meter(),
        )

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """Its state (:class:`~bocvs_env.agent_state.StatefulAgent`): the model-based agent's
        (:meth:`~agents.policies.model_state.SavedModelAgent.model_state`), the episode's
        :class:`~agents.policies.etc.state.ETCState` under ``etc.*`` and the model port's
        tracking of ``max E[l]`` under ``port.*``."""
        arrays, meta = self.model_state()
        etc_arrays, meta["etc"] = self.state.save_state()
        port_arrays, meta["port"] = self.model.save_state()
        arrays.update(prefixed("etc", etc_arrays))
        arrays.update(prefixed("port", port_arrays))
        return arrays, meta

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state` (after :meth:`reset`)."""
        self.load_model_state(arrays, meta)
        self.state.load_state(part(arrays, "etc"), meta["etc"])
        self.model.load_state(part(arrays, "port"), meta["port"])

    def observed(self) -> Observed:
        """What the agent has observed so far (references to its records, not copies)."""
        return Observed(self.task, self.spent, self.plays, self.cost_sums, self.cost_draws, self.y)

    def round(self) -> Round:
        """This decision's view for the parts."""
        return Round(self.state, self.observed(), self.model)

    def decide(self, observation: Observation) -> Action:
        exploration, state, round = self.parts.exploration, self.state, self.round()
        if state.exploring:
            state.exploring = exploration.keep_exploring(round)
            if not state.exploring:
                state.explore_spent = self.spent
        if not state.exploring:
            return self.commit(round)
        return self.explore_round(exploration.next_set(round), round)

    def make_surrogate(self, seed: int) -> GPSurrogate:
        """The GP of the rules' model part (:attr:`ETCParts.model
        <agents.policies.etc.parts.ETCParts>`): the surrogate options' or the authors'."""
        spec = ModelSpec(
            self.task.dim, self.surrogate_options, self.resolved_lengthscale(), self.computation
        )
        return self.parts.model.surrogate(spec, seed)

    def refit_due(self) -> bool:
        """Every play refits the model but those a late phase has frozen it for."""
        late = self.parts.late_phase
        return late is None or not late.frozen(self.state.exploring, self.observed())

    def hold_spend(self) -> float:
        """The spend a decision is held for: none in exploration by a rule that does not hold
        its decisions (:class:`~agents.policies.etc.groups.GroupedExploration`)."""
        if self.state.exploring and not self.parts.exploration.holds:
            return 0.0
        return super().hold_spend()

    def replay(self, i: int, x: np.ndarray) -> np.ndarray:
        """A held decision's next play: in exploitation, the query part's (a fresh Thompson
        query with ``distinct_replays``), else the same query."""
        if self.state.exploring:
            return x.copy()
        return self.parts.query.replay(self.model, i, x)

    def explore_round(self, choice: ExploreChoice, round: Round) -> Action:
        """One exploration round on the chosen set at its ``argmax E[u]``, or at the maximizer
        of the bound the rule chose the set by (:class:`ExploreChoice`'s ``found``), as
        :meth:`played` polishes it; with Algorithm 1's bars (the value bound ``intersects``)
        the bars take this round's bounds (lines 10-11); the choice's note adds to the log."""
        i, state = choice.set, round.state
        value, x = choice.found or self.model.set_maxima([i], "ucb")[i]
        if self.parts.value_bound.intersects:
            ucb_now = np.full(self.task.n_sets, np.nan)
            ucb_now[i] = value
            state.lcb_bar, state.ucb_bar = intersect_bounds(
                state.lcb_bar, state.ucb_bar, self.model.lcb_max(), ucb_now
            )
        state.n_explore += 1
        self.log(
            phase="explore",
            set=i,
            value=value,
            lcb_bar=state.lcb_bar,
            ucb_bar=state.ucb_bar.tolist(),
            **choice.note,
        )
        return {"control_set": i, "x": self.played(i, x)}

    def commit(self, round: Round) -> Action:
        """One exploitation decision: the model part's preparation (the authors' GP's tune),
        ``alpha`` by the tolerance, the set by the value bound, its query by the exploitation
        query; in a late phase, its random set."""
        parts = self.parts
        if parts.late_phase is not None and parts.late_phase.active(round.observed):
            late = parts.late_phase.choose(round, self.rng)
            self.log(**late.log)
            return {"control_set": late.set, "x": late.x}
        parts.model.before_commit(self.surrogate)
        alpha = parts.tolerance.alpha(round.state, round.observed)
        choice = parts.value_bound.exploit(round, alpha, parts.tolerance, parts.cost_bound)
        round.state.n_exploit += 1
        self.log(**choice.log, **parts.query.note())
        return {"control_set": choice.set, "x": parts.query.query(self.model, choice.set, choice.x)}

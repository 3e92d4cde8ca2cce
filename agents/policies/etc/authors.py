"""The parts of ETC as its authors' released code runs it (Hoang, Nguyen & Tran, AAAI 2025;
``Fsoft-AIC/BO-uCVS`` at ``7a89f69``, compared with the paper's Algorithm 1 in
docs/agents/etc-text-and-code.md): the cost bound with the current round as horizon and no
clip (:class:`RoundCostBound`), the threshold of this round's bounds at two confidence widths
(:class:`AuthorsThreshold`), exploration by remaining budget in the order ``1..m-1, 0``
(:class:`BudgetRoundRobin`), the random sets of the late rounds (:class:`LateRandomPhase`) and
the GP, fixed in exploration and tuned from its start in exploitation (:class:`AuthorsModel`).
Each is a part of :class:`~agents.policies.etc.parts.ETCParts`,
switched alone by :class:`~agents.policies.etc.rules.AuthorsRules`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from agents.costs.estimates import mean_costs
from agents.policies.etc.cost_bounds import CostBound
from agents.policies.etc.exploration import ExploreChoice
from agents.policies.etc.port import Observed
from agents.policies.etc.state import Round
from agents.policies.etc.surrogates import ModelSpec
from agents.policies.etc.tolerances import Tolerance
from agents.policies.etc.value_bounds import Commitment
from agents.rules.set_selection import full_set
from agents.surrogate import GPSurrogate


def current_round(observed: Observed) -> int:
    """The round ``t`` of the next play, counted from 1 after the initial design (the
    authors' loop index): the plays so far plus 1."""
    return int(np.sum(observed.plays)) + 1


@dataclass(frozen=True)
class RoundCostBound:
    """The authors' cost bound: ``c_hat_i - sqrt(2 ln t / n_i)`` with ``t`` the current round
    (:func:`current_round`), not clipped at 0, ``-inf`` for a set never played (row 10 of
    docs/agents/etc-text-and-code.md). The horizon the policy passes is ignored."""

    name: ClassVar[str] = "round"

    def lower(self, observed: Observed, horizon: float) -> np.ndarray:
        plays = np.asarray(observed.plays)
        width = np.sqrt(2.0 * math.log(current_round(observed)) / np.maximum(plays, 1))
        means = mean_costs(observed.cost_sums, plays)
        return np.where(plays > 0, means - width, -math.inf)


def authors_threshold(full_lcb: float | None, best_y: float, set_lcbs: Sequence[float]) -> float:
    """The authors' commit threshold ``theta``, in the units of ``y``: with a set that controls
    every variable, the larger of its ``max_x l`` (``full_lcb``) and the best observed
    ``best_y``; without one (``full_lcb`` ``None``), ``max_i max E[l_i]`` over ``set_lcbs``."""
    if full_lcb is None:
        return max(set_lcbs)
    return max(full_lcb, best_y)


def authors_choice(
    upper: Sequence[float], threshold: float, cost_lcbs: Sequence[float]
) -> tuple[int, list[int]]:
    """The set the authors' rule plays and ``S1``: ``S1 = {i : upper_i >= threshold}``; of
    ``S1`` the set of least cost bound, exact ties to the highest index; an empty ``S1`` plays
    the set of largest ``upper`` (the first of equals).

    Args:
        upper: ``(m,)`` each set's ``max E[u]``, in the units of ``y``.
        threshold: ``theta`` (:func:`authors_threshold`).
        cost_lcbs: ``(m,)`` the sets' cost bounds, in cost units.
    """
    s1 = [i for i, u in enumerate(upper) if u >= threshold]
    if not s1:
        return int(np.argmax(upper)), s1
    least = min(cost_lcbs[i] for i in s1)
    return max(i for i in s1 if cost_lcbs[i] == least), s1


@dataclass(frozen=True)
class AuthorsThreshold:
    """The authors' exploitation rule (rows 4-9, 11, 12 of docs/agents/etc-text-and-code.md):
    this round's bounds only, no running bars, no reset, no tolerance (the policy's ``alpha``
    is ignored). ``u = mu + beta_upper sigma``, ``l = mu - beta_lower sigma``; the threshold
    is :func:`authors_threshold`, the set :func:`authors_choice`, the query that set's
    maximizer of ``E[u]``."""

    name: ClassVar[str] = "authors"
    beta_upper: float = 1.96
    beta_lower: float = 0.3
    intersects: ClassVar[bool] = False

    def exploit(
        self, round: Round, alpha: float, tolerance: Tolerance, cost_bound: CostBound
    ) -> Commitment:
        observed, model = round.observed, round.model
        task = observed.task
        sets = list(range(task.n_sets))
        full = full_set(task.control_sets, task.dim)
        lower = model.beta_maxima(sets if full is None else [full], "lcb", self.beta_lower)
        theta = authors_threshold(
            None if full is None else lower[full][0],
            float(np.max(observed.y)) if observed.y.size else -math.inf,
            [v for v, _ in lower.values()],
        )
        upper = model.beta_maxima(sets, "ucb", self.beta_upper)
        t = current_round(observed)
        lcbs = cost_bound.lower(observed, float(t))
        i, s1 = authors_choice([upper[k][0] for k in sets], theta, lcbs.tolist())
        log = {
            "phase": "exploit",
            "set": i,
            "value": upper[i][0],
            "threshold": theta,
            "s1": s1,
            "round": t,
            "cost_lcb": lcbs.tolist(),
        }
        return Commitment(i, upper[i][1], log)


@dataclass(frozen=True)
class BudgetRoundRobin:
    """The authors' exploration (rows 1-3): set ``t mod m`` in round ``t = 1, 2, ...``, that is
    ``1, ..., m-1, 0``, while the remaining budget before the play is at least
    ``(1 - explore_fraction)`` of the budget; checked before every play, so it stops
    mid-cycle."""

    name: ClassVar[str] = "budget"
    explore_fraction: float = 0.6
    relevance: ClassVar[None] = None
    holds: ClassVar[bool] = True

    def start(self, observed: Observed) -> None:
        return None

    def keep_exploring(self, round: Round) -> bool:
        budget = round.observed.task.budget
        return budget - round.observed.spent >= (1.0 - self.explore_fraction) * budget

    def next_set(self, round: Round) -> ExploreChoice:
        return ExploreChoice((round.state.n_explore + 1) % round.observed.task.n_sets)


@dataclass(frozen=True)
class LateRandomPhase:
    """The authors' late phase (row 13): once exploration has ended, from round
    ``after_round`` on, a uniformly random set (from the agent's seeded generator) at its
    ``argmax E[mu + beta sigma]`` on the model of round ``after_round - 1``, which no later
    play updates. Where exploration runs past that round, the model keeps the data up to the
    last exploration play (the authors' keeps it up to the one before)."""

    after_round: int = 450
    beta: float = 2.0

    def frozen(self, exploring: bool, observed: Observed) -> bool:
        """Whether the play just recorded in ``observed`` (of an exploration decision, with
        ``exploring``) leaves the model as it is: once exploration has ended, the play of
        round ``after_round - 1`` and every later one."""
        return not exploring and int(np.sum(observed.plays)) >= self.after_round - 1

    def active(self, observed: Observed) -> bool:
        """Whether this exploitation decision belongs to the late phase."""
        return current_round(observed) >= self.after_round

    def choose(self, round: Round, rng: np.random.Generator) -> Commitment:
        """This round's random set and its query."""
        i = int(rng.integers(round.observed.task.n_sets))
        value, x = round.model.beta_maxima([i], "ucb", self.beta)[i]
        log = {"phase": "late", "set": i, "value": value, "round": current_round(round.observed)}
        return Commitment(i, x, log)


@dataclass(frozen=True)
class AuthorsModel:
    """The authors' GP (row 14 of docs/agents/etc-text-and-code.md; their ``main.py:93-101,
    321``, ``core/gp.py:27-56``, ``core/optimization.py:134-135, 142-143, 161-163, 222-224``):
    an RBF kernel with one lengthscale per input, all ``lengthscale`` at the start, output
    scale and noise variance from the surrogate options (1 and ``1e-4`` by default, the
    authors'), a zero mean and raw ``y``. It is a restarted
    :class:`~agents.surrogate.GPSurrogate`: not tuned in exploration; before every
    exploitation decision (not the late phase's) ``steps`` Adam steps at ``lr`` from that
    start on all data (:class:`~agents.surrogate.fitting.RestartedAdamFitter`), as the
    authors' loop refits from the initial values each round.

    Args:
        steps: the Adam steps per exploitation decision.
        lr: Adam's learning rate.
        lengthscale: the start of every input's lengthscale where the surrogate options give
            none (the authors pass 0.2 on every problem).
    """

    name: ClassVar[str] = "authors"
    steps: int = 10
    lr: float = 0.1
    lengthscale: float = 0.2

    def surrogate(self, spec: ModelSpec, seed: int) -> GPSurrogate:
        """An episode's GP on ``spec.dim`` inputs; ``seed`` as the surrogate's. The start's
        lengthscale is the options' if given, else :attr:`lengthscale` (the resolved one and
        the computation's refits do not act: the GP is never refitted, only tuned)."""
        options = spec.options
        given = options.lengthscale
        return GPSurrogate(
            spec.dim,
            mode="restarted",
            lengthscale=self.lengthscale if given is None else given,
            noise=options.noise,
            outputscale=options.outputscale,
            seed=seed,
            tune_steps=self.steps,
            tune_lr=self.lr,
        )

    def before_commit(self, surrogate: GPSurrogate) -> None:
        """``steps`` Adam steps from the start on all data (:meth:`GPSurrogate.tune`)."""
        surrogate.tune()

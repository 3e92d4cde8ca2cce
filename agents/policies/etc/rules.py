"""The rules of the explore-then-commit policy: Algorithm 1's (:class:`ETCRules`), FETC's
(:class:`FETCRules`), GETC's (:class:`GETCRules`) and the authors' code's
(:class:`AuthorsRules`), and the one place each builds the policy's parts (their ``parts()``).

An option that chooses a part is the part's class, a :class:`~agents.choice.Choice` of the
classes it may choose (``FETCRules(cost_bound=HoeffdingCostBound)``). It is also set from the
class's name, the plain value a sweep file's ``agent_params`` gives and every run's
``params()`` records (``cost_bound="hoeffding"``). ``parts()`` builds the chosen classes with
the rules' other options (:func:`~agents.choice.build_part`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from agents.choice import Choice, build_part
from agents.config import Rules
from agents.policies.etc.authors import (
    AuthorsModel,
    AuthorsThreshold,
    BudgetRoundRobin,
    LateRandomPhase,
    RoundCostBound,
)
from agents.policies.etc.cost_bounds import BernsteinCostBound, CostBound, HoeffdingCostBound
from agents.policies.etc.exploration import BalancedCycles, Exploration, RoundRobin, SpendBalanced
from agents.policies.etc.groups import GroupedExploration
from agents.policies.etc.parts import ETCParts
from agents.policies.etc.queries import ExploitQuery, ThompsonQuery, UCBQuery
from agents.policies.etc.relevance import RelevanceRule
from agents.policies.etc.surrogates import ModelPart, TextModel
from agents.policies.etc.tolerances import RangeTolerance, RelativeTolerance, Tolerance
from agents.policies.etc.value_bounds import (
    AveragedBounds,
    IntersectedBounds,
    SetValueBounds,
    ValueBound,
)
from bocvs_env.checks import (
    check_optional_positive_integers,
    check_positive_finite,
    check_positive_integers,
    integer,
)


def check_spend_rules(spend_exponent: float, cost_range: float | None) -> None:
    """Refuse a spend exponent outside ``[0, 1]`` and a cost range that is not positive and
    finite (FETC's and GETC's rules share both options)."""
    if not 0.0 <= spend_exponent <= 1.0:
        raise ValueError(f"spend_exponent must be in [0, 1], got {spend_exponent!r}")
    if cost_range is not None and not (math.isfinite(cost_range) and cost_range > 0):
        raise ValueError(f"cost_range must be positive and finite, got {cost_range!r}")


@dataclass(frozen=True)
class ETCRules(Rules):
    """Algorithm 1's rules.

    Args:
        explore_fraction: the share of the budget exploration may spend (the paper: 60%).
        alpha0: the tolerance at the start of exploitation (the paper: 0.1).
        halve_every: exploitation rounds (decisions, with a ``hold``) between halvings of
            ``alpha``; ``None`` is ``d``, as the paper.
    """

    explore_fraction: float = 0.6
    alpha0: float = 0.1
    halve_every: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.explore_fraction <= 1.0:
            raise ValueError(f"explore_fraction must be in [0, 1], got {self.explore_fraction!r}")
        if not 0.0 <= self.alpha0 < 1.0:
            raise ValueError(f"alpha0 must be in [0, 1), got {self.alpha0!r}")
        check_optional_positive_integers(halve_every=self.halve_every)

    def parts(self) -> ETCParts:
        """The policy's parts: Algorithm 1's."""
        return ETCParts(
            RoundRobin(self.explore_fraction),
            HoeffdingCostBound(),
            IntersectedBounds(),
            UCBQuery(logged=False),
            RelativeTolerance(self.alpha0, self.halve_every),
        )


@dataclass(frozen=True)
class FETCRules(ETCRules):
    """ETC's rules and FETC's five switches, each with ETC's behaviour as its other value
    (:data:`ETC_SWITCHES`); :meth:`parts` builds the parts they choose. A switch that chooses a
    part is the part's class or its name (module docstring).

    Args:
        allocation: :class:`~agents.policies.etc.exploration.SpendBalanced` (``"spend"``) or
            :class:`~agents.policies.etc.exploration.BalancedCycles` (``"count"``: Algorithm
            1's round-robin in whole cycles; :class:`~agents.policies.etc.exploration.RoundRobin`
            where no relevance rule skips sets and the bounds are intersected).
        spend_exponent: ``p`` of the target shares ``n_i ∝ c_hat_i^(-p)`` (0: counts, 1:
            spend), used with ``"spend"``.
        cost_bound: :class:`~agents.policies.etc.cost_bounds.BernsteinCostBound`
            (``"bernstein"``, :func:`agents.costs.estimates.bernstein_cost_lcb`) or
            :class:`~agents.policies.etc.cost_bounds.HoeffdingCostBound` (``"hoeffding"``,
            Algorithm 1's ``sqrt(2 log T / n)``).
        cost_range: the known length of a cost's support for the Bernstein bound; ``None``
            plugs in each set's observed range (see :func:`agents.costs.estimates.bernstein_width`).
        value_bounds: :class:`~agents.policies.etc.value_bounds.SetValueBounds`
            (``"integral"``): ``S1`` from this round's bounds of each set's value ``g_i``;
            :class:`~agents.policies.etc.value_bounds.AveragedBounds` (``"current"``): this
            round's bounds of ``f`` averaged over the random inputs, ``max E[u]`` and
            ``max E[l]``; :class:`~agents.policies.etc.value_bounds.IntersectedBounds`
            (``"intersected"``): Algorithm 1's running bars. Both current kinds log
            ``ucb_checked`` in place of ``s1``, ``ucb_bar`` and ``reset``.
        relevance: skip redundant sets in exploration
            (:class:`~agents.policies.etc.relevance.RelevanceRule`).
        relevance_threshold: the ratio to the largest relevance above which a variable counts.
        relevance_min_data: observations before relevance is trusted; ``None`` is ``2 d``.
        relevance_points: the quasi-random inputs (drawn from the variables' distributions)
            relevance is averaged over.
        relevance_growth: the relevance is measured again once the GP's training set (at most
            ``max_data`` points) has grown by this factor since the last measure (``>= 1``; 1
            measures it at every exploration play).
        exploit_query: :class:`~agents.policies.etc.queries.ThompsonQuery` (``"ts"``, Thompson
            sampling on the committed set) or :class:`~agents.policies.etc.queries.UCBQuery`
            (``"ucb"``, the maximizer of the bound that admitted the set).
        n_refine: with ``SetValueBounds``, the best screened candidates per set whose bound is
            refined by L-BFGS-B (as :class:`~agents.policies.cost_ei.CostCooledEIAgent`'s).
    """

    allocation: Choice[Exploration] = Choice(SpendBalanced, BalancedCycles)
    spend_exponent: float = 0.5
    cost_bound: Choice[CostBound] = Choice(BernsteinCostBound, HoeffdingCostBound)
    cost_range: float | None = None
    value_bounds: Choice[ValueBound] = Choice(SetValueBounds, AveragedBounds, IntersectedBounds)
    relevance: bool = True
    relevance_threshold: float = 0.1
    relevance_min_data: int | None = None
    relevance_points: int = 32
    relevance_growth: float = 1.25
    exploit_query: Choice[ExploitQuery] = Choice(ThompsonQuery, UCBQuery)
    n_refine: int = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        check_spend_rules(self.spend_exponent, self.cost_range)
        if not 0.0 <= self.relevance_threshold <= 1.0:
            raise ValueError(
                f"relevance_threshold must be in [0, 1], got {self.relevance_threshold!r}"
            )
        check_optional_positive_integers(relevance_min_data=self.relevance_min_data)
        if not self.relevance_growth >= 1.0:
            raise ValueError(f"relevance_growth must be >= 1, got {self.relevance_growth!r}")
        check_positive_integers(relevance_points=self.relevance_points, n_refine=self.n_refine)

    def relevance_rule(self) -> RelevanceRule | None:
        """The rule that skips redundant sets in exploration, with ``relevance``."""
        if not self.relevance:
            return None
        return RelevanceRule(
            self.relevance_threshold,
            self.relevance_min_data,
            self.relevance_points,
            self.relevance_growth,
        )

    def parts(self) -> ETCParts:
        """The parts the switches choose, built with the rules' options."""
        value_bound = build_part(self.value_bounds, n_refine=self.n_refine)
        relevance = self.relevance_rule()
        exploration = build_part(
            self.allocation,
            explore_fraction=self.explore_fraction,
            exponent=self.spend_exponent,
            relevance=relevance,
        )
        if isinstance(exploration, BalancedCycles) and relevance is None and value_bound.intersects:
            # Algorithm 1's round-robin by decision, so that FETC with ETC's switches is ETC
            # (held decisions included; by play count they differ).
            exploration = RoundRobin(self.explore_fraction)
        return ETCParts(
            exploration,
            build_part(self.cost_bound, cost_range=self.cost_range),
            value_bound,
            build_part(self.exploit_query),
            RelativeTolerance(self.alpha0, self.halve_every),
        )


#: The switches that turn every FETC component off, as Algorithm 1's parts: FETC with these is
#: ETC (Algorithm 1) with the same model options (with
#: :data:`~agents.policies.etc.computation.ETC_EXACT_SETTINGS` too, the ``etc`` preset), up to
#: its decision log, which names the exploitation query.
ETC_SWITCHES: Mapping[str, Any] = MappingProxyType(
    {
        "allocation": BalancedCycles,
        "cost_bound": HoeffdingCostBound,
        "value_bounds": IntersectedBounds,
        "relevance": False,
        "exploit_query": UCBQuery,
    }
)

#: The rules of FETC with every component switched off: ETC's rules.
ETC_RULES = FETCRules(**ETC_SWITCHES)


@dataclass(frozen=True)
class GETCRules(ETCRules):
    """GETC's rules (docs/agents/getc.md): FETC's empirical-Bernstein cost bounds, bounds of
    each set's value and Thompson-sampling queries, with exploration by groups of equally sized
    sets, a tolerance on the range of ``y`` halved per spend, and distinct queries in a held
    decision. Each change has a switch whose other value is FETC's (or Algorithm 1's), for the
    ablation.

    A switch that chooses a part is the part's class or its name (module docstring).

    Args:
        exploration: :class:`~agents.policies.etc.groups.GroupedExploration` (``"groups"``)
            or FETC's :class:`~agents.policies.etc.exploration.SpendBalanced` (``"spend"``).
        rounds_per_group: the most exploration rounds per group (ETC-50's 50).
        positional_size: the group size where every set has the same size (ETC-50's 3).
        eliminate: in exploration, skip sets whose ``max U_i`` is below the largest
            ``max E[l]``.
        tolerance: :class:`~agents.policies.etc.tolerances.RangeTolerance` (``"range"``) or
            Algorithm 1's :class:`~agents.policies.etc.tolerances.RelativeTolerance`
            (``"relative"``).
        halve_spend: with ``RangeTolerance``, the share of the budget spent in exploitation per
            halving of ``alpha``.
        distinct_replays: each play of a held decision is a fresh Thompson query, not a replay.
        spend_exponent: with ``SpendBalanced``, FETC's ``p``.
        cost_range: the Bernstein bound's known cost range (``None``: each set's observed).
        n_refine: the screened candidates per set whose value bound is refined by L-BFGS-B
            (in exploration's choice of a set, and in exploitation's ``S1``).
    """

    exploration: Choice[Exploration] = Choice(GroupedExploration, SpendBalanced)
    rounds_per_group: int = 50
    positional_size: int = 3
    eliminate: bool = True
    tolerance: Choice[Tolerance] = Choice(RangeTolerance, RelativeTolerance)
    halve_spend: float = 0.1
    distinct_replays: bool = True
    spend_exponent: float = 0.5
    cost_range: float | None = None
    n_refine: int = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        check_positive_integers(
            rounds_per_group=self.rounds_per_group,
            positional_size=self.positional_size,
            n_refine=self.n_refine,
        )
        if not 0.0 < self.halve_spend <= 1.0:
            raise ValueError(f"halve_spend must be in (0, 1], got {self.halve_spend!r}")
        check_spend_rules(self.spend_exponent, self.cost_range)

    def parts(self) -> ETCParts:
        """The parts the switches choose, built with the rules' options."""
        exploration = build_part(
            self.exploration,
            explore_fraction=self.explore_fraction,
            rounds_per_group=self.rounds_per_group,
            positional_size=self.positional_size,
            eliminate=self.eliminate,
            n_refine=self.n_refine,
            exponent=self.spend_exponent,
        )
        tolerance = build_part(
            self.tolerance,
            alpha0=self.alpha0,
            halve_spend=self.halve_spend,
            halve_every=self.halve_every,
        )
        return ETCParts(
            exploration,
            BernsteinCostBound(self.cost_range),
            SetValueBounds(self.n_refine),
            ThompsonQuery(self.distinct_replays),
            tolerance,
        )


@dataclass(frozen=True)
class AuthorsRules(ETCRules):
    """ETC as its authors' released code runs it (docs/agents/etc-text-and-code.md), one switch
    per ported part, each with Algorithm 1's behaviour (:class:`ETCRules`) as its other value.
    ``alpha0`` and ``halve_every`` act only with ``threshold=IntersectedBounds`` (the
    authors' threshold has no tolerance). A switch that chooses a part is the part's class or
    its name (module docstring).

    Args:
        exploration: :class:`~agents.policies.etc.authors.BudgetRoundRobin` (``"budget"``:
            order ``1..m-1, 0``, stop by remaining budget before every play) or
            :class:`~agents.policies.etc.exploration.RoundRobin` (``"cycles"``, Algorithm 1's
            whole cycles).
        cost_bound: :class:`~agents.policies.etc.authors.RoundCostBound` (``"round"``) or
            :class:`~agents.policies.etc.cost_bounds.HoeffdingCostBound` (``"hoeffding"``,
            Algorithm 1's, clipped, ``T = C / min c_hat``).
        threshold: :class:`~agents.policies.etc.authors.AuthorsThreshold` (``"authors"``) or
            :class:`~agents.policies.etc.value_bounds.IntersectedBounds` (``"intersected"``,
            Algorithm 1's running bars with its tolerance).
        beta_upper: the width of the authors' exploitation upper bound.
        beta_lower: the width of the authors' lower bound.
        late_round: the round from which exploitation plays random sets on a model no longer
            updated (:class:`~agents.policies.etc.authors.LateRandomPhase`); ``None``: never,
            as Algorithm 1.
        late_beta: the width of the late phase's upper bound, its query's.
        model: :class:`~agents.policies.etc.authors.AuthorsModel` (``"authors"``: lengthscales
            starting at ``lengthscale``, 0.2 if not given, with ``noise`` and ``outputscale``;
            not tuned in exploration, ``model_steps`` Adam steps at ``model_lr`` from that
            start before every exploitation decision; the surrogate options' mode and refit
            options do not act) or :class:`~agents.policies.etc.surrogates.TextModel`
            (``"text"``: the surrogate options' model, ``etc``'s: BoTorch's ``SingleTaskGP``
            fitted by MAP).
        model_steps: the authors' model's Adam steps per exploitation decision.
        model_lr: its Adam learning rate.
    """

    exploration: Choice[Exploration] = Choice(BudgetRoundRobin, RoundRobin)
    cost_bound: Choice[CostBound] = Choice(RoundCostBound, HoeffdingCostBound)
    threshold: Choice[ValueBound] = Choice(AuthorsThreshold, IntersectedBounds)
    beta_upper: float = 1.96
    beta_lower: float = 0.3
    late_round: int | None = 450
    late_beta: float = 2.0
    model: Choice[ModelPart] = Choice(AuthorsModel, TextModel)
    model_steps: int = 10
    model_lr: float = 0.1

    def __post_init__(self) -> None:
        super().__post_init__()
        integer(self.model_steps, "model_steps", minimum=0)
        check_positive_finite(model_lr=self.model_lr)
        check_optional_positive_integers(late_round=self.late_round)
        widths = (self.beta_upper, self.beta_lower, self.late_beta)
        for name, beta in zip(("beta_upper", "beta_lower", "late_beta"), widths, strict=True):
            if not (math.isfinite(beta) and beta >= 0):
                raise ValueError(f"{name} must be finite and >= 0, got {beta!r}")

    def parts(self) -> ETCParts:
        """The parts the switches choose, built with the rules' options."""
        value_bound = build_part(
            self.threshold, beta_upper=self.beta_upper, beta_lower=self.beta_lower
        )
        exploration = build_part(self.exploration, explore_fraction=self.explore_fraction)
        tolerance = RelativeTolerance(self.alpha0, self.halve_every)
        late = None if self.late_round is None else LateRandomPhase(self.late_round, self.late_beta)
        model = build_part(self.model, steps=self.model_steps, lr=self.model_lr)
        return ETCParts(
            exploration,
            build_part(self.cost_bound),
            value_bound,
            UCBQuery(),
            tolerance,
            late,
            model,
        )

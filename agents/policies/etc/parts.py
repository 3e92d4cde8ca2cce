"""The parts one explore-then-commit policy is composed of, chosen by its rules
(:meth:`agents.policies.etc.rules.ETCRules.parts`, the one place they are chosen).

Algorithm 1 of Hoang, Nguyen & Tran (AAAI 2025, "ETC"), FETC and GETC differ in five parts:

- the **exploration rule** (:mod:`~agents.policies.etc.exploration`,
  :mod:`~agents.policies.etc.groups`): when exploration stops and which set it plays next;
- the **cost bound** (:mod:`~agents.policies.etc.cost_bounds`): the optimistic cost of each
  set in exploitation;
- the **value bound** (:mod:`~agents.policies.etc.value_bounds`): how exploitation finds the
  acceptable sets ``S1`` and the cheapest of them, ``S3``;
- the **exploitation query** (:mod:`~agents.policies.etc.queries`): the query played on the
  committed set;
- the **tolerance** (:mod:`~agents.policies.etc.tolerances`): how far below the largest lower
  bound an acceptable set may be;
- optionally a **late phase** (:class:`~agents.policies.etc.authors.LateRandomPhase`, the
  authors' code's): from a given round, random sets on a model no longer updated;
- the **model** (:mod:`~agents.policies.etc.surrogates`): the GP an episode runs on, the
  surrogate options' (:class:`~agents.policies.etc.surrogates.TextModel`) or the authors'
  code's (:class:`~agents.policies.etc.authors.AuthorsModel`).

Each part receives a :class:`~agents.policies.etc.state.Round` (the episode's state, the
data observed, the model port), never the agent. A part a rules option may choose names itself
once, by its class variable ``name``: the option's plain value (:class:`agents.choice.Choice`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.policies.etc.authors import LateRandomPhase
from agents.policies.etc.cost_bounds import CostBound
from agents.policies.etc.exploration import Exploration
from agents.policies.etc.queries import ExploitQuery
from agents.policies.etc.surrogates import ModelPart, TextModel
from agents.policies.etc.tolerances import Tolerance
from agents.policies.etc.value_bounds import ValueBound


@dataclass(frozen=True)
class ETCParts:
    """The parts of one explore-then-commit policy (module docstring)."""

    exploration: Exploration
    cost_bound: CostBound
    value_bound: ValueBound
    query: ExploitQuery
    tolerance: Tolerance
    late_phase: LateRandomPhase | None = None
    model: ModelPart = field(default_factory=TextModel)

"""Options that choose a part: the part's class, set from the class or from its name, recorded
by its name, and refused with a one-line error listing the names of the classes it may be."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, fields, replace
from typing import ClassVar

import pytest

from agents import make_agent
from agents.base import BaseAgent
from agents.choice import Choice, build_part, part_name
from agents.config import Rules, as_params
from agents.policies.cvs import CVSRules, KnownCosts, RunningMeanCosts
from agents.policies.etc import PRESETS, AuthorsRules, ETCAgent, FETCRules
from agents.policies.etc.authors import AuthorsModel
from agents.policies.etc.cost_bounds import BernsteinCostBound, HoeffdingCostBound
from agents.policies.etc.exploration import BalancedCycles, RoundRobin, SpendBalanced
from agents.policies.etc.surrogates import TextModel


def test_a_choice_is_set_from_the_class_or_its_name_and_read_as_the_class() -> None:
    by_class = FETCRules(cost_bound=HoeffdingCostBound)
    by_name = FETCRules(cost_bound="hoeffding")
    assert by_class == by_name and by_name.cost_bound is HoeffdingCostBound
    assert FETCRules().cost_bound is BernsteinCostBound  # the default
    assert replace(by_name, cost_range=2.0).cost_bound is HoeffdingCostBound
    assert as_params(by_name)["cost_bound"] == "hoeffding"
    assert isinstance(by_name.parts().cost_bound, HoeffdingCostBound)


def test_an_unknown_choice_is_refused_naming_the_option_the_value_and_the_names() -> None:
    message = r"^allocation must be one of \('spend', 'count'\), got 'greedy'$"
    with pytest.raises(ValueError, match=message):
        FETCRules(allocation="greedy")
    with pytest.raises(ValueError, match=r"^allocation must be one of \('spend', 'count'\), got"):
        FETCRules(allocation=RoundRobin)  # a part, but not one this option chooses
    with pytest.raises(ValueError, match="cost_bound must be one of"):
        make_agent("fetc", cost_bound="chernoff")


def test_a_sweep_files_plain_values_build_the_agent_and_its_params_give_them_back() -> None:
    agent = make_agent("fetc", allocation="count", value_bounds="current", exploit_query="ucb")
    assert isinstance(agent, ETCAgent)
    params = agent.params()
    assert (params["allocation"], params["value_bounds"], params["exploit_query"]) == (
        "count",
        "current",
        "ucb",
    )
    again = make_agent("fetc", **params)
    assert isinstance(again, BaseAgent) and again.params() == params


def test_ucb_cvs_cost_source_is_its_class_too() -> None:
    estimated = CVSRules(cost_source="estimated")
    assert estimated.cost_source is RunningMeanCosts and isinstance(
        estimated.parts(), RunningMeanCosts
    )
    assert as_params(estimated)["cost_source"] == "estimated"
    known = CVSRules(cost_source=KnownCosts, costs=(1.0, 2.0))
    assert known.parts() == KnownCosts((1.0, 2.0)) and as_params(known)["cost_source"] == "true"
    with pytest.raises(ValueError, match=r"^cost_source must be one of \('true', 'estimated'\)"):
        CVSRules(cost_source="guessed")


def test_the_authors_rules_model_is_its_class_and_builds_the_part() -> None:
    text = AuthorsRules(model="text")
    assert text == AuthorsRules(model=TextModel) and text.model is TextModel
    assert as_params(text)["model"] == "text" and isinstance(text.parts().model, TextModel)
    authors = AuthorsRules(model_steps=3, model_lr=0.5).parts().model
    assert authors == AuthorsModel(steps=3, lr=0.5)
    with pytest.raises(ValueError, match=r"^model must be one of \('authors', 'text'\), got 'gp'$"):
        AuthorsRules(model="gp")


def test_every_part_a_choice_offers_names_itself_and_one_name_is_one_part_of_a_kind() -> None:
    # a kind is the Choice's annotation: "authors" is a threshold and a model, one of each
    parts: dict[tuple[str, object], set[type]] = {}
    for preset in PRESETS.values():
        for f in fields(preset.rules):
            choice = inspect.getattr_static(type(preset.rules), f.name)
            if isinstance(choice, Choice):
                for name, part in choice.by_name.items():
                    assert part_name(part) == name
                    parts.setdefault((name, f.type), set()).add(part)
    assert parts and all(len(classes) == 1 for classes in parts.values()), parts


def test_a_choice_refuses_classes_without_a_name_or_sharing_one() -> None:
    @dataclass(frozen=True)
    class Unnamed:
        pass

    @dataclass(frozen=True)
    class Named:
        name: ClassVar[str] = "spend"

    with pytest.raises(TypeError, match="must name itself"):
        Choice(Unnamed)
    with pytest.raises(TypeError, match="share a name"):
        Choice(SpendBalanced, Named)

    @dataclass(frozen=True)
    class Own(Rules):
        exploration: Choice[SpendBalanced] = Choice(SpendBalanced, BalancedCycles)

    assert Own("count").exploration is BalancedCycles


def test_a_part_is_built_with_the_options_that_are_its_fields() -> None:
    options = {"explore_fraction": 0.5, "exponent": 0.7, "rounds_per_group": 9}
    assert build_part(SpendBalanced, **options) == SpendBalanced(0.5, 0.7)
    # the fewest plays first whatever the spend exponent: not an option of BalancedCycles
    assert build_part(BalancedCycles, **options) == BalancedCycles(0.5)
    assert build_part(HoeffdingCostBound, cost_range=1.0) == HoeffdingCostBound()

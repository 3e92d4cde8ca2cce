"""Maximizing a score of one set's variables (agents.set_search)."""

from __future__ import annotations

import pytest
import torch

from agents.cost_ei import CostCooledEIAgent
from agents.fetc import FETCAgent
from agents.set_search import maximize_on_set


def test_maximizes_over_the_set_and_leaves_the_other_variables_at_the_centre() -> None:
    target = torch.tensor([0.3, 0.0, 0.7], dtype=torch.float64)
    calls: list[torch.Tensor] = []

    def score(X: torch.Tensor) -> torch.Tensor:
        calls.append(X.detach().clone())
        return -((X[:, [0, 2]] - target[[0, 2]]) ** 2).sum(-1)

    candidates = torch.tensor([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]], dtype=torch.float64)
    value, x = maximize_on_set(score, 3, [0, 2], candidates, n_refine=1, maxiter=50)
    assert value > -1e-10 and abs(x[0] - 0.3) < 1e-5 and abs(x[2] - 0.7) < 1e-5
    assert x[1] == 0.5 and all(bool((c[:, 1] == 0.5).all()) for c in calls)
    assert calls[0].shape == (3, 3)  # every candidate scored once, then one refined


def test_keeps_the_best_candidate_when_refinement_cannot_improve() -> None:
    def score(X: torch.Tensor) -> torch.Tensor:
        return X[:, 0] * 0.0 + (X[:, 0] > 0.75).double()  # flat: no gradient to follow

    candidates = torch.tensor([[0.2], [0.8]], dtype=torch.float64)
    value, x = maximize_on_set(score, 2, [0], candidates, n_refine=2, maxiter=10)
    assert value == 1.0 and x[0] == 0.8


@pytest.mark.parametrize("agent", [CostCooledEIAgent, FETCAgent])
@pytest.mark.parametrize("n_refine", [0, -1])
def test_agents_refuse_an_n_refine_that_is_not_a_positive_integer(
    agent: type, n_refine: object
) -> None:
    with pytest.raises(ValueError, match="n_refine must be a positive integer"):
        agent(n_refine=n_refine)


@pytest.mark.parametrize("agent", [CostCooledEIAgent, FETCAgent])
@pytest.mark.parametrize("n_refine", [1.5, "2"])
def test_agents_refuse_an_n_refine_that_is_not_an_integer(agent: type, n_refine: object) -> None:
    with pytest.raises(TypeError, match="n_refine must be an integer"):
        agent(n_refine=n_refine)

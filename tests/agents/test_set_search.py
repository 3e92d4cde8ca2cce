"""The deprecated agents.set_search: a warning, and the one optimizer's search."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.acquisition import SetOptimizer, SetScores
from agents.policies.cost_ei import CostCooledEIAgent
from agents.policies.etc import FETCAgent
from agents.set_search import maximize_on_set


def test_maximize_on_set_warns_and_is_the_set_optimizers_search() -> None:
    target = torch.tensor([0.3, 0.0, 0.7], dtype=torch.float64)

    def score(X: torch.Tensor) -> torch.Tensor:
        return -((X[:, [0, 2]] - target[[0, 2]]) ** 2).sum(-1)

    candidates = torch.tensor([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]], dtype=torch.float64)
    with pytest.warns(DeprecationWarning, match="SetOptimizer"):
        value, x = maximize_on_set(score, 3, [0, 2], candidates, n_refine=2, maxiter=50)
    scores = SetScores([[0, 2]], 3, lambda _, X: score(X))
    ((want, want_x),) = SetOptimizer(2, 50).maximize(scores, [0], [candidates])
    assert value == want and np.array_equal(x, want_x)
    assert value > -1e-10 and x[1] == 0.5


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

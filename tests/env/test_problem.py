from typing import Any

import pytest
import torch
from botorch.test_functions import Branin

from bocvs_env.problems import (
    CallableObjective,
    GaussianCost,
    Problem,
    TruncatedNormal,
    make_problem,
)
from bocvs_env.problems.registry import PROBLEMS


def _problem(**overrides) -> Problem:
    kwargs: dict[str, Any] = dict(
        objective=CallableObjective(lambda X: X.sum(-1), dim=3, lower_bound=0.0),
        control_sets=[[0], [1, 2]],
        distributions=[TruncatedNormal(0.02)] * 3,
        cost_model=GaussianCost([0.1, 1.0]),
        budget=10.0,
    )
    kwargs.update(overrides)
    return Problem(**kwargs)


def test_valid_problem_and_its_public_task() -> None:
    p = _problem(control_sets=[[2, 1], [0]])
    assert p.control_sets == ((1, 2), (0,))
    task = p.task()
    assert task.dim == 3 and task.n_sets == 2 and task.budget == 10.0
    assert task.free_variables(0) == (0,)
    assert not hasattr(task, "objective") and not hasattr(task, "cost_model")


def test_the_reference_lengthscale_is_problem_metadata_in_the_public_task() -> None:
    """The reference codes' GP lengthscale (0.2 on plant and airfoil, 0.1 elsewhere) comes with
    the built-in problem's registry entry, and any problem passes its own to the task."""
    assert {n: info.reference_lengthscale for n, info in PROBLEMS.items()} == {
        n: 0.2 if n in ("plant", "airfoil") else 0.1 for n in PROBLEMS
    }
    assert make_problem("hartmann3").task().reference_lengthscale == 0.1
    assert _problem(reference_lengthscale=0.3).task().reference_lengthscale == 0.3


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"control_sets": []}, "at least one control set"),
        ({"control_sets": [[0], []]}, "control set 1 is empty"),
        ({"control_sets": [[0, 0]]}, "repeats a variable"),
        ({"control_sets": [[0], [5]]}, r"outside \[0, 3\)"),
        ({"control_sets": [[0, 1], [1, 0]]}, "duplicates control set 0"),
        ({"budget": 0.0}, "budget must be positive"),
        ({"budget": -5.0}, "budget must be positive"),
        ({"budget": float("nan")}, "budget must be a finite number"),
        ({"noise_std": -1.0}, "noise_std"),
        ({"n_initial": -1}, "n_initial"),
        ({"distributions": [TruncatedNormal(0.02)] * 2}, "one distribution per variable"),
        ({"cost_model": GaussianCost([0.1])}, "1 means for 2 control sets"),
        ({"reference_lengthscale": 0.0}, "reference_lengthscale must be positive"),
    ],
)
def test_bad_problems_are_rejected(overrides, message) -> None:
    with pytest.raises(ValueError, match=message):
        _problem(**overrides)


def test_callable_objective_validation() -> None:
    with pytest.raises(TypeError, match="callable"):
        CallableObjective(3, dim=2, lower_bound=0.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shape"):
        CallableObjective(lambda X: X, dim=2, lower_bound=0.0)
    with pytest.raises(ValueError, match="non-finite"):
        CallableObjective(lambda X: X.sum(-1) / 0.0, dim=2, lower_bound=0.0)
    with pytest.raises(ValueError, match="lower_bound"):
        CallableObjective(lambda X: X.sum(-1), dim=2, lower_bound=float("nan"))


def test_callable_objective_is_shifted_by_its_lower_bound() -> None:
    f = CallableObjective(lambda X: X.sum(-1, keepdim=True) - 2.0, dim=2, lower_bound=-2.0)
    assert torch.allclose(
        f(torch.zeros(3, 2, dtype=torch.float64)), torch.zeros(3, dtype=torch.float64)
    )


def test_from_botorch_maps_cube_to_bounds_and_maximizes() -> None:
    branin = Branin()
    f = CallableObjective.from_botorch(branin, lower_bound=-310.0)
    x_opt = torch.tensor([[(torch.pi + 5) / 15, 2.275 / 15]], dtype=torch.float64)
    assert f(x_opt).item() == pytest.approx(310.0 - 0.397887, abs=1e-5)
    assert f.optimal_value == pytest.approx(310.0 - 0.397887, abs=1e-5)


def test_make_problem_options() -> None:
    p = make_problem("hartmann3", cost_set="expensive", variance=0.08, budget=7.0)
    assert p.cost_model.means.tolist() == [0.6, 0.6, 0.6, 0.8, 0.8, 0.8, 1.0]
    assert abs(p.distributions[0].variance - 0.08) < 1e-9
    assert p.config is not None
    assert p.budget == 7.0 and p.config["budget"] == 7.0
    assert make_problem("hartmann6_12d").budget == 100.0
    with pytest.raises(ValueError, match="unknown problem"):
        make_problem("nope")
    with pytest.raises(ValueError, match="budget must be positive"):
        make_problem("hartmann3", budget=-1.0)

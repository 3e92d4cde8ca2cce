"""The built-in problems by name, and :func:`make_problem` that assembles one from options."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bocvs_env.checks import real
from bocvs_env.problems.costs import CostModel, cost_model_from_name

if TYPE_CHECKING:  # imported where used: the CLI reads PROBLEMS without loading torch
    from bocvs_env.problems.objective import Objective
    from bocvs_env.problems.problem import Problem

SETS_12D: tuple[tuple[int, ...], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (9, 10, 11),
    (0, 1, 2, 3, 4, 5),
    (6, 7, 8, 9, 10, 11),
    tuple(range(12)),
)
SETS_3D: tuple[tuple[int, ...], ...] = ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2))
SETS_PLANT: tuple[tuple[int, ...], ...] = (
    (0, 1),
    (2, 3),
    (3, 4),
    (0, 1, 2),
    (1, 2, 3),
    (2, 3, 4),
    (0, 1, 2, 3, 4),
)
SETS_AIRFOIL: tuple[tuple[int, ...], ...] = ((3, 4), (1, 4), (0, 3), (1, 2), (2, 4), (0, 1), (2, 3))


@dataclass(frozen=True)
class ProblemInfo:
    """A built-in problem.

    Attributes:
        name: the key of :data:`PROBLEMS`.
        env_name: the ``<Problem>`` part of the registered id ``bocvs/<Problem>-v1``.
        objective: ``"module:function"`` of a factory returning the :class:`Objective`; it takes
            the problem's objective options (``data_dir``, ``cache``, ``function_seed``,
            ``lengthscale``, ``n_features``: those its signature has) as keywords.
        control_sets: the papers' control sets, in cost order.
        default_budget: the papers' budget.
        needs_data: whether the objective reads files from a data directory.
        description: what the problem is, in a few words (the README's and ``bocvs run
            --help``'s listing, :func:`bocvs_env.registration.problem_listing`).
        reference_lengthscale: the fixed GP lengthscale of the papers' reference codes on this
            problem (0.1, the project's specification, where they do not differ).
    """

    name: str
    env_name: str
    objective: str
    control_sets: tuple[tuple[int, ...], ...]
    default_budget: float = 100.0
    needs_data: bool = False
    description: str = ""
    reference_lengthscale: float = 0.1

    def objective_factory(self) -> Callable[..., Objective]:
        module, func = self.objective.split(":")
        return getattr(importlib.import_module(module), func)


_SYN = "bocvs_env.problems.synthetic"
PROBLEMS: dict[str, ProblemInfo] = {
    p.name: p
    for p in (
        ProblemInfo(
            "hartmann6_12d",
            "Hartmann6in12D",
            f"{_SYN}:hartmann6_12d",
            SETS_12D,
            description="Hartmann-6 on dims 0-5 of 12",
        ),
        ProblemInfo(
            "ackley6_12d",
            "Ackley6in12D",
            f"{_SYN}:ackley6_12d",
            SETS_12D,
            description="Ackley-6 on dims 0-5 of 12",
        ),
        ProblemInfo(
            "levy6_12d",
            "Levy6in12D",
            f"{_SYN}:levy6_12d",
            SETS_12D,
            description="Levy-6 on dims 0-5 of 12",
        ),
        ProblemInfo(
            "hartmann3",
            "Hartmann3",
            f"{_SYN}:hartmann3",
            SETS_3D,
            default_budget=50.0,
            description="Hartmann-3, all 7 subsets",
        ),
        ProblemInfo(
            "gp_sample",
            "GPSample",
            "bocvs_env.problems.gp_sample:gp_sample",
            SETS_3D,
            default_budget=50.0,
            description="a GP sample per `function_seed`",
        ),
        ProblemInfo(
            "plant",
            "Plant",
            "bocvs_env.problems.plant:plant",
            SETS_PLANT,
            needs_data=True,
            description="plant growth simulator",
            reference_lengthscale=0.2,
        ),
        ProblemInfo(
            "airfoil",
            "Airfoil",
            "bocvs_env.problems.airfoil:airfoil",
            SETS_AIRFOIL,
            needs_data=True,
            description="airfoil self-noise GP",
            reference_lengthscale=0.2,
        ),
    )
}


def make_problem(
    name: str,
    cost_set: str = "cheap",
    variance: float = 0.02,
    budget: float | None = None,
    noise_std: float = 0.01,
    cost_noise_std: float = 0.02,
    n_initial: int = 5,
    cost_model: CostModel | None = None,
    **objective_options: Any,
) -> Problem:
    """Build a built-in problem with the papers' defaults.

    Args:
        name: a key of :data:`PROBLEMS` (``hartmann6_12d``, ``ackley6_12d``, ``levy6_12d``,
            ``hartmann3``, ``gp_sample``, ``plant``, ``airfoil``).
        cost_set: ``cheap``, ``moderate`` or ``expensive`` (ignored when ``cost_model`` is given).
        variance: the truncated variance of every input distribution (0.02, 0.04, 0.08 in the
            papers).
        budget: total cost; the paper's default for the problem when ``None``.
        noise_std: standard deviation of the observation noise.
        cost_noise_std: standard deviation of the cost noise of the paper's rule.
        n_initial: free uniform initial points at reset.
        cost_model: a custom :class:`CostModel` with one mean per control set.
        **objective_options: ``data_dir`` (plant, airfoil), ``cache`` (airfoil),
            ``function_seed``, ``lengthscale``, ``n_features`` (gp_sample).

    Raises:
        ValueError: for an unknown problem or cost set, an option the problem does not take, or
            a value out of range; TypeError for a value of the wrong type (``budget=True``).
    """
    from bocvs_env.problems.distributions import TruncatedNormal
    from bocvs_env.problems.problem import Problem

    try:
        info = PROBLEMS[name]
    except KeyError:
        raise ValueError(f"unknown problem {name!r}; expected one of {sorted(PROBLEMS)}") from None
    factory = info.objective_factory()
    accepted = set(inspect.signature(factory).parameters)
    unknown = sorted(set(objective_options) - accepted)
    if unknown:
        raise ValueError(
            f"problem {name!r} takes no options {unknown}; its own options are "
            f"{sorted(accepted) or 'none'} besides those of make_problem"
        )
    real(variance, "variance")
    real(cost_noise_std, "cost_noise_std")
    objective = factory(**objective_options)
    costs = cost_model if cost_model is not None else cost_model_from_name(cost_set, cost_noise_std)
    config = {
        "problem": name,
        "cost_set": None if cost_model is not None else cost_set,
        "variance": variance,
        "budget": info.default_budget if budget is None else budget,
        "noise_std": noise_std,
        "cost_noise_std": cost_noise_std,
        "n_initial": n_initial,
        **{k: v for k, v in objective_options.items() if k != "data_dir"},
    }
    return Problem(
        objective=objective,
        control_sets=info.control_sets,
        distributions=tuple(TruncatedNormal(variance) for _ in range(objective.dim)),
        cost_model=costs,
        budget=config["budget"],
        noise_std=noise_std,
        n_initial=n_initial,
        name=name,
        config=config,
        reference_lengthscale=info.reference_lengthscale,
    )

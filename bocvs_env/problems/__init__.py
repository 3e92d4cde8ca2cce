"""Built-in and user-defined BOCVS problems.

The names below load on first use (:mod:`bocvs_env.lazy`), so that reading :data:`PROBLEMS`
does not import torch.
"""

from typing import TYPE_CHECKING

from bocvs_env.lazy import lazy_exports

if TYPE_CHECKING:
    from bocvs_env.problems.costs import COST_SETS, CostModel, GaussianCost, LogNormalCost
    from bocvs_env.problems.distributions import InputDistribution, TruncatedNormal, Uniform
    from bocvs_env.problems.objective import CallableObjective, Objective
    from bocvs_env.problems.problem import Problem
    from bocvs_env.problems.registry import PROBLEMS, make_problem

_MODULES = {
    "costs": ("COST_SETS", "CostModel", "GaussianCost", "LogNormalCost"),
    "distributions": ("InputDistribution", "TruncatedNormal", "Uniform"),
    "objective": ("CallableObjective", "Objective"),
    "problem": ("Problem",),
    "registry": ("PROBLEMS", "make_problem"),
}
__getattr__, __dir__ = lazy_exports(
    globals(), {n: f"{__name__}.{m}" for m, names in _MODULES.items() for n in names}
)

__all__ = [
    "COST_SETS",
    "PROBLEMS",
    "CallableObjective",
    "CostModel",
    "GaussianCost",
    "InputDistribution",
    "LogNormalCost",
    "Objective",
    "Problem",
    "TruncatedNormal",
    "Uniform",
    "make_problem",
]

"""Built-in and user-defined BOCVS problems."""

from bocvs_env.problems.costs import COST_SETS, CostModel, GaussianCost, LogNormalCost
from bocvs_env.problems.distributions import InputDistribution, TruncatedNormal, Uniform
from bocvs_env.problems.objective import CallableObjective, Objective
from bocvs_env.problems.problem import Problem
from bocvs_env.problems.registry import PROBLEMS, make_problem

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

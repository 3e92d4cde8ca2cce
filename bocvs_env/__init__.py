"""bocvs_env: Bayesian optimization with cost-varying variable subsets as a Gymnasium environment.

Importing the package registers ``bocvs/<Problem>-v0`` for every built-in problem, e.g.
``gymnasium.make("bocvs/Hartmann6in12D-v0", cost_set="moderate", variance=0.04)``.
"""

from importlib.metadata import PackageNotFoundError, version

from bocvs_env.env import BOCVSEnv, EpisodeEndedError
from bocvs_env.problems import (
    PROBLEMS,
    CallableObjective,
    GaussianCost,
    Problem,
    TruncatedNormal,
    make_problem,
)
from bocvs_env.registration import ENV_IDS, register_envs
from bocvs_env.task import Task

try:
    __version__ = version("bocvs")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

register_envs()

__all__ = [
    "ENV_IDS",
    "PROBLEMS",
    "BOCVSEnv",
    "CallableObjective",
    "EpisodeEndedError",
    "GaussianCost",
    "Problem",
    "Task",
    "TruncatedNormal",
    "make_problem",
]

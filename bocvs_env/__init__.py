"""bocvs_env: Bayesian optimization with cost-varying variable subsets as a Gymnasium environment.

Importing the package registers ``bocvs/<Problem>-v0`` for every built-in problem, e.g.
``gymnasium.make("bocvs/Hartmann6in12D-v0", cost_set="moderate", variance=0.04)``.
"""

import os
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


def _single_threaded_torch_in_forked_child() -> None:
    """A forked child of a process that ran multi-threaded torch ops deadlocks on its first
    parallel op (OpenMP's thread pool does not survive ``fork``); workers of
    ``gymnasium.make_vec(..., vectorization_mode="async")`` and SB3's ``SubprocVecEnv`` are such
    children, so they run torch on one thread, as PyTorch's own DataLoader workers do."""
    import torch

    torch.set_num_threads(1)


os.register_at_fork(after_in_child=_single_threaded_torch_in_forked_child)

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

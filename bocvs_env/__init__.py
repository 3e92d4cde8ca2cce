"""bocvs_env: Bayesian optimization with cost-varying variable subsets as a Gymnasium environment.

Importing the package registers ``bocvs/<Problem>-v1`` for every built-in problem, e.g.
``gymnasium.make("bocvs/Hartmann6in12D-v1", cost_set="moderate", variance=0.04)``. The classes
below load on first use (:mod:`bocvs_env.lazy`): importing the package, or the ``bocvs`` CLI,
does not import torch.
"""

import os
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from bocvs_env.numerics import pin_on_import

pin_on_import()  # before numpy, SciPy or torch loads (BOCVS_NUMERICS=reproducible)

from bocvs_env.lazy import lazy_exports  # noqa: E402
from bocvs_env.registration import ENV_IDS, register_envs  # noqa: E402

if TYPE_CHECKING:
    from bocvs_env.env import BOCVSEnv, EpisodeEndedError
    from bocvs_env.experiment import Experiment
    from bocvs_env.problems import (
        PROBLEMS,
        CallableObjective,
        GaussianCost,
        Problem,
        TruncatedNormal,
        make_problem,
    )
    from bocvs_env.task import Task

try:
    __version__ = version("bocvs")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

register_envs()

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "BOCVSEnv": "bocvs_env.env",
        "EpisodeEndedError": "bocvs_env.env",
        "Experiment": "bocvs_env.experiment",
        "Task": "bocvs_env.task",
        **dict.fromkeys(
            (
                "PROBLEMS",
                "CallableObjective",
                "GaussianCost",
                "Problem",
                "TruncatedNormal",
                "make_problem",
            ),
            "bocvs_env.problems",
        ),
    },
)


def _single_threaded_torch_in_forked_child() -> None:
    """A forked child of a process that ran multi-threaded torch ops deadlocks on its first
    parallel op (OpenMP's thread pool does not survive ``fork``); workers of
    ``gymnasium.make_vec(..., vectorization_mode="async")`` and SB3's ``SubprocVecEnv`` are such
    children, so they run torch on one thread, as PyTorch's own DataLoader workers do. A parent
    that never imported torch has no thread pool to lose, and its child is left alone."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


os.register_at_fork(after_in_child=_single_threaded_torch_in_forked_child)

__all__ = [
    "ENV_IDS",
    "PROBLEMS",
    "BOCVSEnv",
    "CallableObjective",
    "EpisodeEndedError",
    "Experiment",
    "GaussianCost",
    "Problem",
    "Task",
    "TruncatedNormal",
    "make_problem",
]

"""Quasi-random samples of the input distributions, shared by the environment and the agents.

The environment's goal evaluator (:mod:`bocvs_env.goal`) and the agents' expectations over the
random inputs draw them the same way, so that one seed gives both the same points; the points
depend only on the distributions, which every agent knows from the public task.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor
from torch.quasirandom import SobolEngine

from bocvs_env.problems.distributions import InputDistribution


def quasi_random_inputs(distributions: Sequence[InputDistribution], n: int, seed: int) -> Tensor:
    """``n x d`` scrambled Sobol points mapped through each variable's inverse CDF (float64).

    ``d = len(distributions)``; the same ``seed`` gives the same points (agents and the goal
    evaluator share this one construction).
    """
    sobol = SobolEngine(len(distributions), scramble=True, seed=seed)
    U = sobol.draw(n, dtype=torch.float64).numpy()
    cols = [p.icdf(U[:, l]) for l, p in enumerate(distributions)]
    return torch.from_numpy(np.stack(cols, axis=1))

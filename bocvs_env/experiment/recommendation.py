"""The recommendation: the control set and values of the best posterior expected value.

A GP (BoTorch's ``SingleTaskGP``, fitted by marginal likelihood, outcomes standardized) is fitted
to every evaluated answer's full query on ``[0, 1]^d`` and its maximized value. A candidate is a
played set ``i`` with its played values ``x^i``; its expected value is the paper's
``g_i(x^i) = E[f(x^i, X^-i)]`` over the laws of the variables it leaves to chance, estimated by
the posterior of the average of ``f`` at ``n`` quasi-random draws of them
(:func:`bocvs_env.sampling.quasi_random_inputs`): mean ``mean(mu)`` and variance
``1^T Sigma 1 / n^2``, the interval ``mean +- 1.96 sd`` (95 % under the GP). Per set, the
candidate of the largest expected value is the set's best; the best of those is the belief of
``i*`` (Tay et al., NeurIPS 2023, Section 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bocvs_env.experiment.process import Process
from bocvs_env.task import Task

#: Draws of the variables left to chance per candidate.
N_DRAWS = 64
#: The interval's half-width in posterior standard deviations (95 %).
Z = 1.96


@dataclass(frozen=True)
class Recommendation:
    """A set and values with their posterior expected outcome.

    Attributes:
        control_set: the set's index.
        set_values: the variables to set -> values, in their units.
        expected: the posterior expected ``y`` (in ``y``'s units and sign).
        low: the interval's lower end.
        high: the interval's upper end.
    """

    control_set: int
    set_values: dict[str, float]
    expected: float
    low: float
    high: float


def _fit(X: np.ndarray, y: np.ndarray) -> Any:
    import torch
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.transforms.outcome import Standardize
    from gpytorch.mlls import ExactMarginalLogLikelihood

    model = SingleTaskGP(
        torch.as_tensor(X, dtype=torch.float64),
        torch.as_tensor(y, dtype=torch.float64)[:, None],
        outcome_transform=Standardize(m=1),
    )
    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    return model


def per_set(
    history: Any, task: Task, variables: tuple[Any, ...], process: Process
) -> list[Recommendation]:
    """Each played set's best candidate, in set order (sets not played are left out); empty
    with fewer than two evaluated answers."""
    import torch

    from bocvs_env.sampling import quasi_random_inputs

    done = history[history["evaluated"]]
    if len(done) < 2:
        return []
    names = [v.name for v in variables]
    X = np.column_stack(
        [variables[l].to_unit(done[n].to_numpy(float)) for l, n in enumerate(names)]
    )
    sign = 1.0 if process.maximize else -1.0
    model = _fit(X, sign * done["y"].to_numpy(float))
    draws = quasi_random_inputs(task.distributions, N_DRAWS, 0)
    best: dict[int, Recommendation] = {}
    for row, x in zip(done.itertuples(index=False), X, strict=True):
        i = int(row.control_set)
        chosen = list(task.control_sets[i])
        points = draws.clone()
        points[:, chosen] = torch.as_tensor(x[chosen], dtype=torch.float64)
        with torch.no_grad():
            post = model.posterior(points)
            mean = float(post.mean.mean())
            sd = float(post.mvn.covariance_matrix.sum().clamp_min(0.0).sqrt()) / N_DRAWS
        if i in best and sign * best[i].expected >= mean:
            continue
        lo, hi = sorted((sign * (mean - Z * sd), sign * (mean + Z * sd)))
        values = {names[l]: float(getattr(row, names[l])) for l in chosen}
        best[i] = Recommendation(i, values, sign * mean, lo, hi)
    return [best[i] for i in sorted(best)]


def recommend(
    history: Any, task: Task, variables: tuple[Any, ...], process: Process
) -> Recommendation | None:
    """The candidate of the best posterior expected value over every played set (``None``
    with fewer than two evaluated answers)."""
    sets = per_set(history, task, variables, process)
    if not sets:
        return None
    sign = 1.0 if process.maximize else -1.0
    return max(sets, key=lambda r: sign * r.expected)

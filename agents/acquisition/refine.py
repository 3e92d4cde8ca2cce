"""The refinement steps of a maximization: screened starts, pre-refined on the screening score,
then polished on the exact expectation (:meth:`agents.acquisition.ExpectedAcquisition.maximize`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from agents.acquisition.estimator import Estimator, Part
from agents.acquisition.optimize import batch_objective, batched_lbfgsb
from agents.acquisition.screening import best_screened, distinct_best_per_owner


def polish(
    estimator: Estimator,
    query: Callable[[int, Tensor], Part],
    fallback: list[Tensor],
    points: list[np.ndarray],
    owners: list[int],
    maxiter: int,
    n_samples: int | None = None,
) -> list[tuple[float, np.ndarray]]:
    """Maximize the exact expectation from ``points`` by L-BFGS-B (in lockstep,
    :func:`~agents.acquisition.optimize.batched_lbfgsb`) and return per set the best polished
    point, or the set's ``fallback`` if that is better.

    Args:
        estimator: the expectation.
        query: ``(position, b x k)`` -> the part of the set at that position.
        fallback: per set position, one point ``1 x |set|`` (e.g. the best raw candidate).
        points: the starts, each in ``[0, 1]^{|set|}`` of the set at position ``owners[p]``;
            every position has at least one.
        owners: the set position of every start.
        maxiter: the L-BFGS-B iteration limit; 0 skips the polishing (the fallbacks are
            returned, valued).
        n_samples: polish with only the first ``n_samples`` samples (``None``: all); the
            returned values use all samples either way.

    Returns:
        Per set position: the value (units of ``y``) and the full query ``(d,)``.
    """

    def exact(parts: list[Part]) -> list[Tensor]:
        return estimator.expected(parts, n_samples)

    minus_values = [float("inf")] * len(points)  # maxiter 0: the fallbacks are the answer
    if maxiter > 0:
        objective = batch_objective(exact, query, owners)
        points, minus_values = batched_lbfgsb(objective, points, maxiter=maxiter)
    with torch.no_grad():
        if n_samples is not None and maxiter > 0:  # value the polished points with all samples
            parts = [
                query(j, torch.from_numpy(z).unsqueeze(0))
                for j, z in zip(owners, points, strict=True)
            ]
            minus_values = [-float(v[0]) for v in estimator.expected(parts)]
        fallen = estimator.expected([query(j, z) for j, z in enumerate(fallback)])
    out = []
    for j in range(len(fallback)):
        b = max((p for p in range(len(owners)) if owners[p] == j), key=lambda p: -minus_values[p])
        value, z = -minus_values[b], torch.from_numpy(points[b]).unsqueeze(0)
        if float(fallen[j][0]) > value:
            value, z = float(fallen[j][0]), fallback[j]
        out.append((value, query(j, z)[1][0].numpy()))
    return out


def refined_starts(
    estimator: Estimator,
    sets: list[int],
    idx: list[list[int]],
    raws: list[Tensor],
    query: Callable[[int, Tensor], Part],
    n_restarts: int,
    maxiter: int,
) -> tuple[list[Tensor], list[np.ndarray], list[int]]:
    """Screen the raw candidates (``raws[j]``, on the variables ``idx[j]`` of ``sets[j]``) and,
    as the estimator's :meth:`~Estimator.plan` says, pre-refine the best ``n_restarts`` of
    each set (L-BFGS-B, ``maxiter``) and keep the distinct best to polish.

    Returns:
        Per set its starts (``n_restarts x |set|``, best screened first); the points to
        polish (in ``[0, 1]^{|set|}``) and the position of each one's set in ``sets``.
    """
    plan = estimator.plan(len(sets))
    starts: dict[int, Tensor] = {}
    refined: list[np.ndarray] = []
    owners: list[int] = []  # problem -> position of its set
    screened: list[float] = []  # problem -> minus its screening score, or its rank
    for group in plan.groups:
        starts.update(best_screened(estimator, group, sets, idx, raws, n_restarts))
        mine = [j for j in group for _ in range(n_restarts)]
        points = [row.numpy().copy() for j in group for row in starts[j]]
        if plan.pre_refine:
            screen = batch_objective(estimator.screen, query, mine)
            points, values = batched_lbfgsb(screen, points, maxiter=maxiter)
        else:  # each set's starts in screening order, best first
            values = [float(rank) for _ in group for rank in range(n_restarts)]
        refined, owners, screened = refined + points, owners + mine, screened + values
    if plan.n_polish is not None:  # polish the best distinct points per set
        keep = distinct_best_per_owner(owners, refined, screened, plan.n_polish)
        refined, owners = [refined[p] for p in keep], [owners[p] for p in keep]
    return [starts[j] for j in range(len(sets))], refined, owners

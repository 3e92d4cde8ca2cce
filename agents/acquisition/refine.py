"""The refinement steps of a maximization: screened starts, pre-refined on the screening score,
then polished on the exact expectation (:meth:`agents.acquisition.ExpectedAcquisition.maximize`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from agents.acquisition.best import expected_above
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
        if n_samples is not None:  # value the polished points with all samples
            minus_values = _revalued(estimator, query, points, owners, minus_values)
    best = [
        max((p for p in range(len(owners)) if owners[p] == j), key=lambda p: -minus_values[p])
        for j in range(len(fallback))
    ]
    fallen = expected_above(
        estimator,
        [query(j, z) for j, z in enumerate(fallback)],
        [-minus_values[b] for b in best],
    )
    out = []
    for j, b in enumerate(best):
        value, z = -minus_values[b], torch.from_numpy(points[b]).unsqueeze(0)
        if float(fallen[j][0]) > value:
            value, z = float(fallen[j][0]), fallback[j]
        out.append((value, query(j, z)[1][0].numpy()))
    return out


def _revalued(
    estimator: Estimator,
    query: Callable[[int, Tensor], Part],
    points: list[np.ndarray],
    owners: list[int],
    minus_values: list[float],
) -> list[float]:
    """Minus the all-sample values of polished ``points`` (``minus_values``: on fewer
    samples), ``inf`` for those that cannot be their set's best: each set's best point on
    fewer samples is valued first, then the others whose upper bound can reach it."""
    sets = sorted(set(owners))
    members = {j: [p for p in range(len(owners)) if owners[p] == j] for j in sets}
    probes = {j: min(members[j], key=lambda p: minus_values[p]) for j in sets}

    def part(j: int, rows: list[int]) -> Part:
        return query(j, torch.from_numpy(np.stack([points[p] for p in rows])))

    out = [float("inf")] * len(points)
    first = expected_above(estimator, [part(j, [probes[j]]) for j in sets], [-np.inf] * len(sets))
    for j, v in zip(sets, first, strict=True):
        out[probes[j]] = -float(v[0])
    others = {j: [p for p in members[j] if p != probes[j]] for j in sets if len(members[j]) > 1}
    rest = expected_above(
        estimator, [part(j, rows) for j, rows in others.items()], [-out[probes[j]] for j in others]
    )
    for rows, v in zip(others.values(), rest, strict=True):
        for p, value in zip(rows, v.tolist(), strict=True):
            out[p] = -value
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

"""The refinement steps of :class:`~agents.acquisition.SetOptimizer`: screened starts,
pre-refined on the screening score, then polished on the value, each step by the one L-BFGS-B
driver (:func:`~agents.acquisition.optimize.batched_lbfgsb`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import torch
from torch import Tensor

from agents.acquisition.best import expected_above
from agents.acquisition.optimize import batch_objective, batched_lbfgsb
from agents.acquisition.screening import best_screened, distinct_best_per_owner
from agents.acquisition.set_acquisition import Part, RefinePlan, SetAcquisition

#: ``(position of a set, b x |set| values of its variables)`` -> that set's part of ``b`` queries.
Query = Callable[[int, Tensor], Part]


class Fallback(NamedTuple):
    """What a set's maximum is at least: a point and, if known, its value."""

    #: ``1 x |set|`` values of the set's variables (e.g. the best screened candidate).
    point: Tensor
    #: Its value (units of ``y``; kept on ties with a refined point), or ``None``: valued
    #: again (:func:`~agents.acquisition.best.expected_above`) and kept only if strictly better.
    value: float | None = None


def members_of(owners: Sequence[int]) -> dict[int, list[int]]:
    """Owner -> the indices of its problems, owners ascending, problems in order."""
    members: dict[int, list[int]] = {}
    for p, j in sorted(enumerate(owners), key=lambda pj: pj[1]):
        members.setdefault(j, []).append(p)
    return members


def polish(
    acquisition: SetAcquisition,
    query: Query,
    fallbacks: list[Fallback],
    points: list[np.ndarray],
    owners: list[int],
    maxiter: int,
    n_samples: int | None = None,
    batch_limit: int | None = None,
) -> list[tuple[float, np.ndarray]]:
    """Maximize the value from ``points`` by L-BFGS-B and return per set the best polished
    point (the first of equals), or the set's fallback if that is better.

    Args:
        acquisition: the value.
        query: ``(position, b x k)`` -> the part of the set at that position.
        fallbacks: per set position, its :class:`Fallback`.
        points: the starts, each in ``[0, 1]^{|set|}`` of the set at position ``owners[p]``;
            every position has at least one.
        owners: the set position of every start.
        maxiter: the L-BFGS-B iteration limit; 0 skips the polishing (the fallbacks are
            returned, valued).
        n_samples: polish with only the first ``n_samples`` samples (``None``: all); the
            returned values use all samples either way.
        batch_limit: the most starts optimized together (``None``: all).

    Returns:
        Per set position: the value (units of ``y``) and the full query ``(d,)``.
    """

    def value(parts: list[Part]) -> list[Tensor]:
        return acquisition.value(parts, n_samples)

    minus_values = [float("inf")] * len(points)  # maxiter 0: the fallbacks are the answer
    if maxiter > 0:
        objective = batch_objective(value, query, owners)
        points, minus_values = batched_lbfgsb(objective, points, maxiter, batch_limit)
        if n_samples is not None:  # value the polished points with all samples
            minus_values = _revalued(acquisition, query, points, owners, minus_values)
    best = [max(ps, key=lambda p: -minus_values[p]) for ps in members_of(owners).values()]
    found = [(-minus_values[b], torch.from_numpy(points[b]).unsqueeze(0)) for b in best]
    return [
        (value, query(j, z)[1][0].numpy())
        for j, (value, z) in enumerate(_against_fallbacks(acquisition, query, fallbacks, found))
    ]


def _against_fallbacks(
    acquisition: SetAcquisition,
    query: Query,
    fallbacks: list[Fallback],
    found: list[tuple[float, Tensor]],
) -> list[tuple[float, Tensor]]:
    """Per set position, the better of its refined ``(value, 1 x |set| point)`` and its
    fallback (:class:`Fallback` says how ties and unknown values are settled)."""
    unknown = [j for j, f in enumerate(fallbacks) if f.value is None]
    valued = expected_above(
        acquisition, [query(j, fallbacks[j].point) for j in unknown], [found[j][0] for j in unknown]
    )
    values = {j: float(v[0]) for j, v in zip(unknown, valued, strict=True)}
    out = []
    for j, ((value, z), fallback) in enumerate(zip(found, fallbacks, strict=True)):
        if fallback.value is None and values[j] > value:
            value, z = values[j], fallback.point
        elif fallback.value is not None and fallback.value >= value:
            value, z = fallback.value, fallback.point
        out.append((value, z))
    return out


def _revalued(
    acquisition: SetAcquisition,
    query: Query,
    points: list[np.ndarray],
    owners: list[int],
    minus_values: list[float],
) -> list[float]:
    """Minus the all-sample values of polished ``points`` (``minus_values``: on fewer
    samples), ``inf`` for those that cannot be their set's best: each set's best point on
    fewer samples is valued first, then the others whose upper bound can reach it."""
    members = members_of(owners)
    probes = {j: min(ps, key=lambda p: minus_values[p]) for j, ps in members.items()}

    def part(j: int, rows: list[int]) -> Part:
        return query(j, torch.from_numpy(np.stack([points[p] for p in rows])))

    out = [float("inf")] * len(points)
    first = expected_above(
        acquisition, [part(j, [p]) for j, p in probes.items()], [-np.inf] * len(probes)
    )
    for p, v in zip(probes.values(), first, strict=True):
        out[p] = -float(v[0])
    others = {j: [p for p in ps if p != probes[j]] for j, ps in members.items() if len(ps) > 1}
    rest = expected_above(
        acquisition,
        [part(j, rows) for j, rows in others.items()],
        [-out[probes[j]] for j in others],
    )
    for rows, v in zip(others.values(), rest, strict=True):
        out = _assign(out, rows, [-value for value in v.tolist()])
    return out


def _assign(values: list[float], rows: list[int], new: list[float]) -> list[float]:
    """``values`` with ``values[rows[k]] = new[k]``."""
    for p, value in zip(rows, new, strict=True):
        values[p] = value
    return values


def refined_starts(
    acquisition: SetAcquisition,
    plan: RefinePlan,
    sets: list[int],
    idx: list[list[int]],
    raws: list[Tensor],
    query: Query,
    n_restarts: int,
    maxiter: int,
) -> tuple[list[tuple[Tensor, Tensor]], list[np.ndarray], list[int]]:
    """Screen the raw candidates (``raws[j]``, on the variables ``idx[j]`` of ``sets[j]``) and, as the ``plan`` says, pre-refine the best ``n_restarts`` of each set
    (L-BFGS-B, ``maxiter``) and keep the distinct best to polish.

    Returns:
        Per set position its starts (``k x |set|``, best screened first) and their screening
        scores; the points to polish (in ``[0, 1]^{|set|}``) and the position of each one's set.
    """
    starts: dict[int, tuple[Tensor, Tensor]] = {}
    refined: list[np.ndarray] = []
    owners: list[int] = []  # problem -> position of its set
    screened: list[float] = []  # problem -> minus its screening score, or its rank
    for group in plan.groups:
        starts.update(best_screened(acquisition, group, sets, idx, raws, n_restarts))
        points, values, mine = _pre_refined(acquisition, plan, query, group, starts, maxiter)
        refined, owners, screened = refined + points, owners + mine, screened + values
    if plan.n_polish is not None:  # polish the best distinct points per set
        keep = distinct_best_per_owner(owners, refined, screened, plan.n_polish)
        refined, owners = [refined[p] for p in keep], [owners[p] for p in keep]
    return [starts[j] for j in range(len(sets))], refined, owners


def _pre_refined(
    acquisition: SetAcquisition,
    plan: RefinePlan,
    query: Query,
    group: list[int],
    starts: dict[int, tuple[Tensor, Tensor]],
    maxiter: int,
) -> tuple[list[np.ndarray], list[float], list[int]]:
    """The starts of the sets at the positions ``group``, refined on the screening score if
    the plan says so: the points, minus their scores (else their ranks in screening order,
    best first) and the position of each one's set."""
    mine = [j for j in group for _ in range(starts[j][0].shape[0])]
    points = [row.numpy().copy() for j in group for row in starts[j][0]]
    if not plan.pre_refine:
        return points, [float(rank) for j in group for rank in range(starts[j][0].shape[0])], mine
    screen = batch_objective(acquisition.screen, query, mine)
    points, values = batched_lbfgsb(screen, points, maxiter, plan.batch_limit)
    return points, values, mine

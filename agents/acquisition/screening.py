"""Screening: the raw candidates of a set, the best of them by a cheap score, and the distinct
best refined points worth polishing."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor
from torch.quasirandom import SobolEngine

from agents.acquisition.inputs import RandomInputs
from agents.acquisition.set_acquisition import SetAcquisition, Top

#: The most by which a set's raw candidates are multiplied when its expectation needs fewer
#: samples (see :func:`raw_count`).
RAW_SCALE_MAX = 8
#: Candidates scored at a time by :func:`pruned_top`.
SCREEN_CHUNK = 128
#: Refined starts closer than this (max-norm, in ``[0, 1]`` units) count as one when choosing
#: the points to polish (:func:`distinct_best`).
DISTINCT_TOLERANCE = 1e-3


def raw_count(inputs: RandomInputs, i: int, raw_samples: int) -> int:
    """The Sobol candidates screened for set ``i``: ``raw_samples`` times the factor by which
    its expectation is cheaper than one over all samples (``n_samples / S_i``), capped at
    :data:`RAW_SCALE_MAX`; a set with no random variables (``S_i = 1``) gets the most."""
    inputs.check_set(i)
    scale = inputs.n_samples // inputs.set_samples(i).shape[0]
    return raw_samples * max(1, min(RAW_SCALE_MAX, scale))


def raw_candidates(
    inputs: RandomInputs, i: int, raw_samples: int, seed: int, train_X: Tensor | None
) -> Tensor:
    """Set ``i``'s raw candidates, ``r x |set|``: :func:`raw_count` scrambled Sobol points, then
    the observed inputs ``train_X`` (``n x d``, the most recent :func:`raw_count` of them)
    restricted to the set's variables, so that the starts are never worse by the screening
    score than the best of those recent observed points (older ones are not screened)."""
    count = raw_count(inputs, i, raw_samples)
    recent = None if train_X is None else train_X[-count:]
    return set_candidates(inputs.controlled(i), count, seed, recent)


def set_candidates(
    ctrl: Sequence[int], n_sobol: int, seed: int, observed: np.ndarray | Tensor | None
) -> Tensor:
    """Candidates of one set's variables, ``(n_sobol + n) x |ctrl|``: ``n_sobol`` scrambled
    Sobol points in ``[0, 1]^|ctrl|`` (scrambled by ``seed``), then the ``n x d`` observed
    queries ``observed`` (none if ``None``) restricted to the set's variables ``ctrl``."""
    ctrl = list(ctrl)
    sobol = SobolEngine(len(ctrl), scramble=True, seed=seed)
    parts = [sobol.draw(n_sobol, dtype=torch.float64)]
    if observed is not None:
        parts.append(torch.as_tensor(observed[:, ctrl], dtype=torch.float64))
    return torch.cat(parts)


def best_screened(
    acquisition: SetAcquisition,
    group: Sequence[int],
    sets: Sequence[int],
    idx: Sequence[list[int]],
    raws: Sequence[Tensor],
    k: int,
) -> dict[int, tuple[Tensor, Tensor]]:
    """Position in ``sets`` -> the ``k`` best of that set's raw candidates (``r x |set|``, on
    its variables ``idx``; fewer if it has fewer) by the acquisition's
    :meth:`~agents.acquisition.SetAcquisition.top`, best first, for the positions in ``group``:
    the candidates themselves (``k x |set|``) and their screening scores."""
    with torch.no_grad():
        tops = acquisition.top(
            [sets[j] for j in group],
            [idx[j] for j in group],
            [raws[j] for j in group],
            min([k, *(raws[j].shape[0] for j in group)]),
        )
    return {j: (raws[j][top.indices], top.scores) for j, top in zip(group, tops, strict=True)}


def pruned_top(upper: Tensor, score: Callable[[Tensor], Tensor], k: int) -> Top:
    """The ``k`` best scores and their indices, best first, scoring only where it can matter.

    Candidates are scored in chunks in the order of ``upper``, an upper bound of every score
    (cheap: e.g. a GP's averaged mean plus the widest possible ``beta sigma``), and the rest are
    skipped once the bound falls below the ``k``-th best score. The result is the same as
    scoring every candidate.

    Args:
        upper: ``r`` upper bounds.
        score: the scores of some candidates (a ``c`` index tensor -> ``c`` scores).
        k: how many to return.
    """
    order = upper.argsort(descending=True)
    scores = torch.full_like(upper, -torch.inf)
    chunk = max(SCREEN_CHUNK, k)
    for lo in range(0, order.numel(), chunk):
        rows = order[lo : lo + chunk]
        scores[rows] = score(rows)
        if lo + chunk < order.numel():
            kth = scores.topk(k).values[-1]
            if upper[order[lo + chunk]] < kth - 1e-9 * (1.0 + kth.abs()):
                break  # no candidate left can reach the top
    best = scores.topk(k)
    return Top(best.indices, best.values)


def distinct_best(
    members: Sequence[int], points: Sequence[np.ndarray], minus_values: Sequence[float], limit: int
) -> list[int]:
    """Up to ``limit`` of ``members``, best (smallest ``minus_values``) first, skipping any point
    within :data:`DISTINCT_TOLERANCE` (max-norm) of one already taken: starts that converged to
    the same optimum would be polished to the same point."""
    taken: list[int] = []
    for p in sorted(members, key=lambda p: minus_values[p]):
        if all(np.abs(points[p] - points[q]).max() > DISTINCT_TOLERANCE for q in taken):
            taken.append(p)
            if len(taken) == limit:
                break
    return taken


def distinct_best_per_owner(
    owners: Sequence[int], points: Sequence[np.ndarray], minus_values: Sequence[float], limit: int
) -> list[int]:
    """:func:`distinct_best` of the points of each owner (e.g. a set), owners in ascending
    order: the indices into ``points`` to polish."""
    return [
        p
        for j in sorted(set(owners))
        for p in distinct_best(
            [p for p in range(len(owners)) if owners[p] == j], points, minus_values, limit
        )
    ]

"""Which variables matter, learned from the GP posterior, and which control sets that rules out.

Sensitivity by *feature collapsing* (after Martinelli et al., UAI 2024, "Learning relevant
contextual variables within Bayesian optimization", whose SADCBO measures each contextual
variable's relevance by sensitivity analysis of the posterior at specific input points, there
the KL divergence between the predictive distributions at the input and at the input with the
variable set to 0): here the relevance of variable ``l`` at a query ``x`` is the
root-mean-square change of the posterior mean when ``x_l`` is left to chance, i.e. replaced by
draws of its known distribution ``P_l``, as it is when a control set leaves ``l`` out:

    r_l(x) = sqrt( E_{X_l ~ P_l}[ (mu([x_{-l}, X_l]) - mu(x))^2 ] )   (units of y).

What leaving ``l`` out costs at ``x`` is the mean drop ``mu(x) - E[mu([x_{-l}, X_l])]``; the RMS
is at least its size and also counts the spread the variable causes (at a quadratic maximum
with a Gaussian ``P_l``, about 1.7 times the drop), so a variable that matters anywhere near
``x`` scores, whichever way it moves ``mu``. It is averaged (in squares) over a few reference
queries (FETC's: quasi-random draws of every variable from its distribution; SADCBO's: the
best observed queries by posterior mean). The set-level rules below are pure
functions of the relevance vector and the cost estimates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from agents.surrogate import GPSurrogate


def collapse_relevance(
    surrogate: GPSurrogate, points: np.ndarray, samples: np.ndarray
) -> np.ndarray:
    """Feature-collapsing relevance of every variable, ``(d,)`` in the units of ``y``.

    Args:
        surrogate: the fitted GP (its posterior mean, :meth:`~agents.surrogate.GPSurrogate.mean`).
        points: ``k x d`` reference queries.
        samples: ``s x d`` draws of every variable from its distribution (the acquisition's
            quasi-random sample).
    """
    X = torch.as_tensor(np.atleast_2d(points), dtype=torch.float64)
    Z = torch.as_tensor(samples, dtype=torch.float64)
    k, d = X.shape
    if Z.shape[-1] != d:
        raise ValueError(f"samples have {Z.shape[-1]} columns, points {d}")
    s = Z.shape[0]
    # k x d x s x d: point q with variable l replaced by sample t
    Q = X[:, None, None, :].expand(k, d, s, d).clone()
    idx = torch.arange(d)
    Q[:, idx, :, idx] = Z.T[None].expand(k, d, s).permute(1, 0, 2)
    with torch.no_grad():
        base = surrogate.mean(X)
        collapsed = surrogate.mean(Q.reshape(-1, d))
    change = collapsed.reshape(k, d, s) - base[:, None, None]
    return change.pow(2).mean(dim=(0, 2)).sqrt().numpy()


def relevant_variables(relevance: np.ndarray, threshold: float) -> list[int]:
    """The variables whose relevance is at least ``threshold`` times the largest.

    A normalized-sensitivity cut, inclusive on purpose: a variable is ruled out only when the
    posterior says it matters an order of magnitude less than the most relevant one (at the
    default 0.1), since ruling out a relevant variable costs more than keeping an inert one. If
    every relevance is 0 (nothing learned yet), every variable is returned.

    Args:
        relevance: ``(d,)`` non-negative relevances.
        threshold: the ratio to the largest relevance, in ``[0, 1]``.
    """
    r = np.asarray(relevance, np.float64)
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    if r.ndim != 1 or np.any(~np.isfinite(r)) or np.any(r < 0):
        raise ValueError("relevance must be a finite non-negative vector")
    top = float(r.max()) if r.size else 0.0
    if top <= 0.0:
        return list(range(r.size))
    return [int(i) for i in np.flatnonzero(r >= threshold * top)]


def redundant_sets(
    control_sets: Sequence[Sequence[int]], relevant: Sequence[int], costs: np.ndarray
) -> list[int]:
    """Sets that only add irrelevant variables to a strictly cheaper subset (``costs``: the
    sets' cost estimates, ``(m,)``).

    Set ``j`` is redundant if some strict subset ``i`` of it with ``costs_i < costs_j``
    controls every relevant variable that ``j`` controls: up to the irrelevant variables,
    playing ``i`` can do whatever playing ``j`` does, for less (on hartmann6 in 12-D: the full
    set, once dims 6-11 are seen to do nothing, beside dims 0-5). Only subsets count, so a set
    is never ruled out for a cheaper set that controls other variables.
    """
    rel = set(int(v) for v in relevant)
    sets = [set(s) for s in control_sets]
    costs = np.asarray(costs, np.float64)
    return [
        j
        for j, s in enumerate(sets)
        if any(
            costs[i] < costs[j] and sets[i] < s and (s & rel) <= sets[i] for i in range(len(sets))
        )
    ]


def cheapest_covering_set(
    control_sets: Sequence[Sequence[int]],
    relevance: np.ndarray,
    relevant: Sequence[int],
    costs: np.ndarray,
) -> int:
    """The cheapest set that controls every relevant variable (``relevance``: ``(d,)`` in the
    units of ``y``; ``costs``: the sets' cost estimates, ``(m,)``).

    If no set does, the sets that cover the largest share of the relevance (in squares) compete
    instead. Ties in cost go to the smaller set, then the lower index.
    """
    r2 = np.asarray(relevance, np.float64) ** 2
    costs = np.asarray(costs, np.float64)
    rel = [int(v) for v in relevant]
    covered = np.array([r2[[v for v in rel if v in set(s)]].sum() for s in control_sets])
    best = [
        int(i) for i in np.flatnonzero(covered >= covered.max() - 1e-12 * max(covered.max(), 1.0))
    ]
    return min(best, key=lambda i: (float(costs[i]), len(control_sets[i]), i))

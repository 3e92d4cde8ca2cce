"""Exact values only where they can matter: points whose upper bound
(:meth:`~agents.acquisition.SetAcquisition.upper`)
is below a value already reached are not valued, since they cannot beat it."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from agents.acquisition.set_acquisition import Part, SetAcquisition

#: A point is skipped when its upper bound is below the value to beat by more than this,
#: relative to ``1 + |value|``.
SKIP_TOLERANCE = 1e-9


def expected_above(
    acquisition: SetAcquisition, parts: Sequence[Part], floors: Sequence[float]
) -> list[Tensor]:
    """:meth:`~agents.acquisition.SetAcquisition.value` (all samples, no gradient) of the points
    that can reach their part's floor, ``-inf`` for the others.

    A row is valued unless the acquisition's :meth:`~agents.acquisition.SetAcquisition.upper`
    bound is below
    ``floors[p] - SKIP_TOLERANCE * (1 + |floors[p]|)``: so every row whose value is at least
    its floor is valued, and the first maximum of each part is unchanged wherever it is above
    the floor. All valued rows are valued in one call, each distinct row once.

    Args:
        acquisition: the value (e.g. an expectation, :class:`~agents.acquisition.Estimator`).
        parts: ``(set, b x d queries)``.
        floors: per part, the value a row must be able to reach (``-inf``: value every row).

    Returns:
        One ``b`` tensor per part (units of ``y``).
    """
    with torch.no_grad():
        bounds = acquisition.upper(parts) if any(f > -torch.inf for f in floors) else None
        keep = []
        for p, (_, X) in enumerate(parts):
            rows = torch.arange(X.shape[0])
            if bounds is not None:
                floor = floors[p]
                rows = rows[bounds[p] >= floor - SKIP_TOLERANCE * (1.0 + abs(floor))]
            keep.append(rows)
        valued = [p for p, rows in enumerate(keep) if rows.numel()]
        # a point given twice (e.g. a maximizer kept as an incumbent again) is valued once
        unique = [torch.unique(parts[p][1][keep[p]], dim=0, return_inverse=True) for p in valued]
        values = (
            acquisition.value([(parts[p][0], u) for p, (u, _) in zip(valued, unique, strict=True)])
            if valued
            else []
        )
        out = [X.new_full((X.shape[0],), -torch.inf) for _, X in parts]
        for p, (_, inverse), v in zip(valued, unique, values, strict=True):
            out[p][keep[p]] = v[inverse]
    return out

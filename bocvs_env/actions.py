"""Checking a BOCVS action: ``{"control_set": i, "x": x}`` -> ``(i, x)``.

The environment's action is ``Dict(control_set=Discrete(m), x=Box(0, 1, (d,), float64))``;
:func:`parse_action` refuses anything else with a one-line ``ValueError`` naming the problem.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch


def parse_action(action: Any, n_sets: int, dim: int) -> tuple[int, np.ndarray]:
    """The control set and query of ``action``: an int in ``0 .. n_sets - 1`` and a float64
    array of shape ``(dim,)`` in ``[0, 1]``.

    Raises:
        ValueError: if ``action`` is not a dict with exactly the keys ``control_set`` and
            ``x``, or either value is malformed (see :func:`parse_control_set`,
            :func:`parse_query`).
    """
    if not isinstance(action, dict) or set(action) != {"control_set", "x"}:
        got = sorted(map(str, action)) if isinstance(action, dict) else type(action).__name__
        raise ValueError(f"an action is a dict with keys 'control_set' and 'x', got {got}")
    return parse_control_set(action["control_set"], n_sets), parse_query(action["x"], dim)


def parse_control_set(value: Any, n_sets: int) -> int:
    """``value`` as a control-set index: one integer (not a bool) in ``0 .. n_sets - 1``; a
    Python int of any size is named as given when out of range."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        i = int(value)
    else:
        raw = _array(value)
        if raw.shape != () or not np.issubdtype(raw.dtype, np.integer):
            raise ValueError(f"control_set must be one integer, got {value!r}")
        i = int(raw)
    if not 0 <= i < n_sets:
        raise ValueError(f"unknown control set {i}: this problem has sets 0..{n_sets - 1}")
    return i


def parse_query(value: Any, dim: int) -> np.ndarray:
    """``value`` as a query: ``dim`` finite real numbers in ``[0, 1]``, as float64 ``(dim,)``;
    an out-of-range value is named unrounded."""
    try:
        raw = _array(value)
    except (ValueError, TypeError):  # ragged nested sequences
        raw = np.asarray(None)
    if raw.dtype.kind not in "iuf":
        raise ValueError(
            f"x must be {dim} real numbers (floats or integers) in [0, 1], got "
            f"{value!r} (dtype {raw.dtype})"
        )
    x = raw.astype(np.float64)
    if x.shape != (dim,):
        raise ValueError(f"x must have shape ({dim},), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"x contains NaN or infinite values: {x.tolist()}")
    outside = np.flatnonzero((x < 0.0) | (x > 1.0))
    if outside.size:
        j = int(outside[0])
        raise ValueError(f"x must lie in [0, 1]; got x[{j}] = {float(x[j])!r}")
    return x


def _array(value: Any) -> np.ndarray:
    """``value`` as a NumPy array; a torch tensor as its values (detached from autograd and
    moved to the CPU, so that one that ``requires_grad`` or lives on a GPU is taken too)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)

"""The bounds an agent takes the expectation of: ``mu + beta sigma``, ``mu - beta sigma``, ``mu``,
or a function such as a posterior sample path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from torch import Tensor

Bound = Literal["ucb", "lcb", "mean"]
#: What an expectation is taken of: a named bound or a function of ``batch_shape x d`` points.
Integrand = Bound | Callable[[Tensor], Tensor]
#: The sign of ``beta sigma`` in each bound.
_SIGNS = {"ucb": 1.0, "lcb": -1.0, "mean": 0.0}


def sign(bound: Bound) -> float:
    """The sign of ``beta sigma`` in a bound; raises ValueError for an unknown bound."""
    if bound not in _SIGNS:
        raise ValueError(f"bound must be 'ucb', 'lcb', 'mean' or a callable, got {bound!r}")
    return _SIGNS[bound]


def combine(mean: Tensor, std: Tensor, bound: Bound, beta: float) -> Tensor:
    """``mean + sign(bound) * beta * std`` (units of ``y``)."""
    s = sign(bound)
    return mean if s == 0.0 else mean + s * beta * std

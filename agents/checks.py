"""Checks of the agents' and their components' constructor arguments: each a one-line
``ValueError`` naming the argument, raised when the object is built (not at its first use)."""

from __future__ import annotations

import math
import numbers


def check_positive_finite(**values: float) -> None:
    """Refuse any of the named ``values`` that is not a finite number ``> 0``.

    Raises:
        ValueError: ``"<name> must be positive and finite, got <value>"`` for the first one.
    """
    for name, value in values.items():
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be positive and finite, got {value!r}")


def check_positive_integers(**values: object) -> None:
    """Refuse any of the named ``values`` that is not an integer ``>= 1`` (``bool`` is not).

    Raises:
        ValueError: ``"<name> must be a positive integer, got <value>"`` for the first one.
    """
    for name, value in values.items():
        integral = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if not (integral and value >= 1):  # type: ignore[operator]
            raise ValueError(f"{name} must be a positive integer, got {value!r}")

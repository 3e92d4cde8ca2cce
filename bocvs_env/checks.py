"""Checks of user-given arguments, with one-line errors that name the argument and say what was
expected. Booleans are refused where a number is expected (``budget=True`` is a mistake, not 1),
and so are strings, even numeric ones."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np


def real(value: Any, name: str) -> float:
    """``value`` as a finite float.

    Raises:
        TypeError: if it is not a real number (a bool, a string, a complex number, ...).
        ValueError: if it is not finite.
    """
    if isinstance(value, (bool, complex)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return out


def integer(value: Any, name: str, minimum: int | None = None) -> int:
    """``value`` as an int, at least ``minimum`` if given.

    Raises:
        TypeError: if it is not an integer (a bool, a float such as 1.5 or 1.0, a string, ...).
        ValueError: if it is below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    out = int(value)
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {out}")
    return out


def flag(value: Any, name: str) -> bool:
    """``value`` as a bool (``True``/``False``, NumPy's included).

    Raises:
        TypeError: for anything else (``1``, ``"yes"``, ``None``).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)

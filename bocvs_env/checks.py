"""Checks of user-given arguments, with one-line errors that name the argument and say what was
expected: a ``TypeError`` for a value of the wrong type, a ``ValueError`` for a value of the
right type out of its range. Booleans are refused where a number is expected (``budget=True``
is a mistake, not 1), and so are strings, even numeric ones.

The environment's and the agents' constructors use these alike (the agents through
:func:`check_positive_finite` and :func:`check_positive_integers`, which check several keyword
arguments at once when the object is built, not at its first use)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Set
from typing import Any

import numpy as np


def _real_number(value: Any, name: str) -> float:
    """``value`` as a float, or a ``TypeError`` if it is not a real number."""
    if isinstance(value, (bool, complex)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    return float(value)


def real(value: Any, name: str) -> float:
    """``value`` as a finite float.

    Raises:
        TypeError: if it is not a real number (a bool, a string, a complex number, ...).
        ValueError: if it is not finite.
    """
    out = _real_number(value, name)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return out


def positive(value: Any, name: str) -> float:
    """``value`` as a finite float ``> 0``.

    Raises:
        TypeError: if it is not a real number (a bool, a string, ``None``, ...).
        ValueError: ``"<name> must be positive and finite, got <value>"`` if it is not.
    """
    out = _real_number(value, name)
    if not (math.isfinite(out) and out > 0):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
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


def positive_integer(value: Any, name: str) -> int:
    """``value`` as an int ``>= 1``.

    Raises:
        TypeError: if it is not an integer (a bool, a float such as 2.5 or 2.0, a string, ...).
        ValueError: ``"<name> must be a positive integer, got <value>"`` if it is below 1.
    """
    out = integer(value, name)
    if out < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return out


def check_positive_finite(**values: Any) -> None:
    """:func:`positive` for each named value (``check_positive_finite(noise=noise, ...)``).

    Raises:
        TypeError: for the first value that is not a real number.
        ValueError: for the first that is not finite and ``> 0``.
    """
    for name, value in values.items():
        positive(value, name)


def check_positive_integers(**values: Any) -> None:
    """:func:`positive_integer` for each named value
    (``check_positive_integers(n_samples=n_samples, ...)``).

    Raises:
        TypeError: for the first value that is not an integer.
        ValueError: for the first below 1.
    """
    for name, value in values.items():
        positive_integer(value, name)


def check_optional_positive_integers(**values: Any) -> None:
    """:func:`positive_integer` for each named value that is not ``None`` (an option where
    ``None`` means "no limit" or "the default").

    Raises:
        TypeError: for the first value that is neither ``None`` nor an integer.
        ValueError: for the first below 1.
    """
    for name, value in values.items():
        if value is not None:
            positive_integer(value, name)


def flag(value: Any, name: str) -> bool:
    """``value`` as a bool (``True``/``False``, NumPy's included).

    Raises:
        TypeError: for anything else (``1``, ``"yes"``, ``None``).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def check_reset(seed: Any, options: Mapping[str, Any] | None, known: Set[str], env: str) -> None:
    """Refuse ``reset`` arguments an environment does not take: a seed that is not ``None`` or
    an integer ``>= 0`` (a bool is no seed: ``seed=True`` would act as seed 1), and options not
    in ``known`` (environment ``env``'s).

    Raises:
        TypeError: for a seed of another type.
        ValueError: for a negative seed, or naming the unknown options.
    """
    if seed is not None:
        integer(seed, "seed", minimum=0)
    unknown = sorted(map(str, set(options or {}) - set(known)))
    if unknown:
        raise ValueError(f"unknown reset options {unknown}; {env} takes {sorted(known) or 'none'}")

"""NumPy values as JSON: arrays as lists, scalars as Python numbers and booleans."""

from __future__ import annotations

import json
from typing import Any

import numpy as np


def json_default(obj: Any) -> Any:
    """``json.dumps``'s ``default``: a NumPy array as a list, a NumPy scalar as its Python value.

    Raises:
        TypeError: for anything else that JSON cannot hold.
    """
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"cannot store {type(obj).__name__} as JSON")


def plain(obj: Any) -> Any:
    """``obj`` as JSON reads it back: NumPy values converted by :func:`json_default`."""
    return json.loads(json.dumps(obj, default=json_default))

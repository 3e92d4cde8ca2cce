"""The old module paths of the agents' modules, kept for one minor version after a move.

A module that moved leaves a module at its old path whose attributes are the new module's,
read through :func:`moved_attribute` (a module ``__getattr__``, PEP 562): every name the old
path had still imports from it, with a :class:`DeprecationWarning` that names the new path.
The published runs name ``agents.fetc:FETCAgent``; the old paths go in version 0.4.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

#: The version in which the old paths go.
REMOVED_IN = "0.4"


def moved_attribute(old: str, new: str, name: str) -> Any:
    """Attribute ``name`` of module ``new``, asked for through the old module path ``old``,
    with a :class:`DeprecationWarning` attributed to the caller's line.

    Raises:
        AttributeError: naming the old module, where ``new`` has no such attribute.
    """
    module = importlib.import_module(new)
    if name.startswith("__") or not hasattr(module, name):
        raise AttributeError(f"module {old!r} has no attribute {name!r}")
    warnings.warn(
        f"{old} moved to {new}; import {name} from there ({old} goes in {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(module, name)

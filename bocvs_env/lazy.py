"""Lazy package attributes (PEP 562), so that importing a package does not import torch.

``bocvs --help`` and ``import bocvs_env`` then take a fraction of a second; torch, SciPy and
BoTorch load on first use of a name that needs them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` that import each export on first access.

    Args:
        namespace: the package's ``globals()``.
        exports: exported name -> the module that defines it.

    Returns:
        ``(__getattr__, __dir__)`` to assign in the package's ``__init__``.
    """
    package = namespace["__name__"]

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # later lookups skip this function
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *exports})

    return getattr_, dir_

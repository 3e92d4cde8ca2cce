"""Deprecated: moved to :mod:`agents.policies.cvs` (:mod:`agents.deprecation`)."""

from typing import Any

from agents.deprecation import moved_attribute


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, "agents.policies.cvs", name)

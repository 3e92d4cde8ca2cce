"""Agents by name: the ``bocvs.agents`` entry-point group, or ``"module:Class"``.

Gymnasium knows environments by id; the benchmark harness knows agents the same way, by name,
and never imports an agent package. A distribution registers its agents in its
``pyproject.toml``::

    [project.entry-points."bocvs.agents"]
    my-agent = "my_package.my_module:MyAgent"

after which ``bocvs run --agents my-agent`` and ``make_agent("my-agent")`` find it (the
built-in agents register the same way). An agent not installed as a distribution is named by
its import path, ``"my_module:MyAgent"``, with its directory on ``PYTHONPATH``. Benchmark
workers (local processes, Ray) resolve the name again, so it must be importable there too.

A name may carry a variant label, ``"etc@fast"``: the same agent, built with the parameters a
sweep gives that name, and kept apart from ``"etc"`` in the store, tables and comparisons, so
that one sweep can compare two configurations of one agent run for run.
"""

from __future__ import annotations

import importlib
import inspect
import re
from importlib.metadata import entry_points
from typing import Any

from bocvs_env.agent import Agent

#: The entry-point group through which agents register.
ENTRY_POINT_GROUP = "bocvs.agents"


def registered_agents() -> dict[str, str]:
    """Every agent registered in :data:`ENTRY_POINT_GROUP`: name -> ``"module:Class"``."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


#: A variant label: letters, digits, ``_``, ``.`` and ``-``.
_LABEL = re.compile(r"[A-Za-z0-9_.-]+")


def is_import_path(name: str) -> bool:
    """Whether ``name`` is an import path ``"module:Class"`` rather than a registered name."""
    return ":" in name


def is_builtin(name: str) -> bool:
    """Whether agent ``name`` is one of bocvs's own: registered by the ``bocvs`` distribution
    (not by another one, and not an import path)."""
    base = base_name(name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == base:
            return ep.dist is not None and ep.dist.name == "bocvs"
    return False


def base_name(name: str) -> str:
    """``name`` without its variant label: ``"etc@fast"`` -> ``"etc"``.

    Raises:
        ValueError: for an empty or malformed label (``"etc@"``, ``"etc@a b"``).
    """
    base, at, label = name.partition("@")
    if at and not _LABEL.fullmatch(label):
        raise ValueError(
            f"agent {name!r}: a variant label after '@' is letters, digits, '_', '.' or '-'"
        )
    return base


def agent_class(name: str) -> Any:
    """The class (or factory) an agent name stands for, imported now.

    Args:
        name: a name registered in :data:`ENTRY_POINT_GROUP`, or ``"module:Class"``, either
            with an optional variant label (``"etc@fast"``, :func:`base_name`).

    Raises:
        ValueError: for an unregistered name, a malformed label, or an import path that does not
            import.
    """
    base = base_name(name)
    if is_import_path(base):
        target = base
    else:
        known = registered_agents()
        if base not in known:
            raise ValueError(
                f"unknown agent {name!r}; registered: {sorted(known)} "
                "(or name one by its import path, 'module:Class')"
            )
        target = known[base]
    module_name, _, attr = target.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"agent {name!r}: cannot import {module_name!r} ({err})") from err
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent {name!r}: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    return obj


def required_params(cls: Any) -> tuple[str, ...]:
    """The keyword arguments agent class ``cls`` cannot be built without."""
    return tuple(getattr(cls, "required_params", ()))


def file_params(cls: Any) -> tuple[str, ...]:
    """The keyword parameters of agent class ``cls`` that name a file it loads as code (a saved
    model that unpickles), which the harness loads from a record only where the user allows
    (:mod:`bocvs_env.benchmark.trust`)."""
    return tuple(getattr(cls, "file_params", ()))


def privileged_params(cls: Any) -> tuple[str, ...]:
    """The privileged quantities agent class ``cls`` must be given (see :mod:`bocvs_env.agent`)."""
    return tuple(getattr(cls, "privileged_params", ()))


def accepted_params(name: str) -> set[str] | None:
    """The keyword parameters agent ``name``'s constructor takes: those its class lists by a
    ``param_names()`` class method, else those of its constructor's signature, following
    ``**kwargs`` that it passes on to its base classes' constructors; ``None`` if it takes any.

    Raises:
        ValueError: as :func:`agent_class`.
    """
    target = agent_class(name)
    listed = getattr(target, "param_names", None)
    if callable(listed):
        return set(listed())
    chain = target.__mro__ if isinstance(target, type) else (target,)
    accepted: set[str] = set()
    for owner in chain:
        init = owner.__dict__.get("__init__") if isinstance(owner, type) else owner
        if init is None or owner is object:
            continue
        params = list(inspect.signature(init).parameters.values())
        if isinstance(owner, type):
            params = params[1:]  # less self
        accepted |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            return accepted
    return None


def make_agent(name: str, **params: Any) -> Agent:
    """Build an agent by name with keyword parameters.

    Args:
        name: a registered name or ``"module:Class"``, with an optional variant label.
        **params: the agent's keyword arguments.

    Raises:
        ValueError: for an unknown name, or when a required parameter is missing.
    """
    cls = agent_class(name)
    missing = [p for p in required_params(cls) if p not in params]
    if missing:
        raise ValueError(
            f"agent {name!r} needs the parameters {missing}; pass them as keyword arguments"
        )
    agent: Agent = cls(**params)
    return agent

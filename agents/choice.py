"""Options that choose a part of a policy: the option's value is the part's class.

A policy's rules (:class:`~agents.config.Rules`) choose some of its parts by option, e.g. FETC's
cost bound. Such an option is a :class:`Choice` of part classes, each of which names itself once
(its class variable ``name``): ``FETCRules(cost_bound=HoeffdingCostBound)``. The name is the
option's plain value, the one a sweep file's ``agent_params`` and a run's ``params()`` hold
(``cost_bound="hoeffding"``): :class:`Choice` is the one boundary between the two, taking
either when the rules are built and giving the class back, and :func:`plain_value` turning the
class into its name for ``params()``. The rules' ``parts()`` build the chosen classes with
their options (:func:`build_part`).
"""

from __future__ import annotations

import inspect
from dataclasses import fields
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


def check_choice(name: str, value: Any, allowed: tuple[Any, ...]) -> None:
    """Refuse ``value`` of option ``name`` unless it is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def part_name(part: type) -> str:
    """The name ``part`` gives itself (its class variable ``name``).

    Raises:
        TypeError: for a class without a string ``name``.
    """
    name = getattr(part, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"a part class a Choice offers must name itself (name = ...): {part!r}")
    return name


class Choice(Generic[T]):
    """A frozen dataclass field (the descriptor as the field's default) whose value is one of
    the part classes ``default, *others``: set from a class or from its name, read as the class.

    Args:
        default: the option's default class.
        *others: the other classes the option may choose.

    Raises:
        ValueError: when a field is set to anything else, naming the option, the value as
            given and the names of the classes it may choose.
    """

    def __init__(self, default: type[T], *others: type[T]) -> None:
        self.by_name: dict[str, type[T]] = {part_name(p): p for p in (default, *others)}
        if len(self.by_name) != 1 + len(others):
            raise TypeError(f"two classes of a Choice share a name: {(default, *others)!r}")
        self.default = default
        self.option = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.option = name

    def __get__(self, obj: object | None, objtype: type | None = None) -> type[T]:
        """The class chosen; on the class itself, the default (the dataclass field's)."""
        if obj is None:
            return self.default
        return cast("type[T]", obj.__dict__.get(self.key, self.default))

    def __set__(self, obj: object, value: type[T] | str) -> None:
        part = self.by_name.get(value) if isinstance(value, str) else value
        if part is None or part not in self.by_name.values():
            # neither a name nor a class offered: refused, listing the names
            check_choice(self.option, value, tuple(self.by_name))
        # the rules are frozen: their __setattr__ refuses, object's stores.
        object.__setattr__(obj, self.key, part)

    @property
    def key(self) -> str:
        """Where an instance keeps its value."""
        return f"_{self.option}"


def plain_value(config: Any, name: str) -> Any:
    """The value of ``config``'s field ``name`` as ``params()`` records it: a chosen part's
    name for a :class:`Choice`, else the value itself."""
    value = getattr(config, name)
    return (
        part_name(value)
        if isinstance(inspect.getattr_static(type(config), name, None), Choice)
        else value
    )


def build_part(part: type[T], **options: Any) -> T:
    """An instance of the part class ``part`` (a dataclass) with those of ``options`` that are
    its fields: a rule passes every option that configures any class a choice offers."""
    names = {f.name for f in fields(cast(Any, part)) if f.init}
    return part(**{k: v for k, v in options.items() if k in names})

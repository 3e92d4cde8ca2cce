"""Named presets of a policy: a registered agent name is a policy class and a row of defaults.

A policy (a :class:`~agents.policies.model_based.ModelBasedAgent` subclass) is composed of
parts its rules choose; several registered names may share one policy and differ only in the
rules and computation their keyword parameters are given over. Each such name is a
:class:`Preset`; the entry points name the preset objects, and calling one builds its policy.
A policy lists its presets in its ``presets`` table (:func:`preset_table`), so that
``Policy(preset="name")`` builds the same agent as the preset itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, Protocol, TypeVar

from agents.config import AgentConfig, Computation, Rules


class PresetPolicy(Protocol):
    """A policy a preset can build: its constructor takes the preset's name and parameters
    (:class:`~agents.policies.model_based.ModelBasedAgent`'s does)."""

    def __init__(self, preset: str | None = None, **params: Any) -> None: ...


PolicyT = TypeVar("PolicyT", bound=PresetPolicy)


@dataclass(frozen=True)
class Preset(Generic[PolicyT]):
    """A registered name of a policy: ``policy`` with ``rules`` and ``computation`` as the
    defaults of its keyword parameters. Calling it builds the agent (the entry points name
    these objects); :meth:`param_names` lists the parameters it takes.

    Args:
        name: the registered name (the agent's ``name``).
        policy: the class the preset builds.
        rules: the policy's rules (a :class:`~agents.config.Rules` subclass; the rules choose
            the policy's parts).
        computation: the policy's computation (:class:`~agents.config.Computation`).
        summary: one line, what the preset is, for the documentation's agent table.
        required_params: keyword arguments the agent cannot be built without.
        privileged_params: privileged knowledge the benchmark must grant it (see
            :mod:`bocvs_env.agent`).
    """

    name: str
    policy: type[PolicyT]
    rules: Rules
    computation: Computation
    summary: str
    required_params: tuple[str, ...] = ()
    privileged_params: tuple[str, ...] = ()

    def __call__(self, **params: Any) -> PolicyT:
        return self.policy(preset=self.name, **params)

    def param_names(self) -> set[str]:
        """The keyword parameters the agent takes."""
        return AgentConfig.parameter_names(type(self.rules), type(self.computation))


def preset_table(*presets: Preset[Any]) -> Mapping[str, Preset[Any]]:
    """The read-only table ``name -> preset`` of a policy's presets."""
    return MappingProxyType({preset.name: preset for preset in presets})


def preset_named(table: Mapping[str, Preset[Any]], name: str, policy: str) -> Preset[Any]:
    """The preset called ``name`` of ``policy`` (a class name, for the error).

    Raises:
        ValueError: naming the presets there are, for a name not among them.
    """
    if not table:
        raise ValueError(f"{policy} has no presets; got preset={name!r}")
    if name not in table:
        raise ValueError(f"{policy} has no preset {name!r}; expected one of {sorted(table)}")
    return table[name]

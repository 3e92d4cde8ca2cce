"""The model part of the explore-then-commit policy: which GP an episode runs on and what it
does to it before an exploitation decision (:class:`ModelPart`). The policy's own model is the
surrogate options' (:class:`TextModel`, Algorithm 1's GP as the paper's text describes it); the
authors' code's GP is :class:`~agents.policies.etc.authors.AuthorsModel`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from agents.config import Computation, SurrogateConfig
from agents.surrogate import GPSurrogate


@dataclass(frozen=True)
class ModelSpec:
    """What a model part builds an episode's GP from.

    Args:
        dim: the GP's inputs ``d``.
        options: the agent's surrogate options.
        lengthscale: the resolved lengthscale (the options' or the task's reference value,
            in the inputs' units).
        computation: the agent's computation (its refit schedule and budget).
    """

    dim: int
    options: SurrogateConfig
    lengthscale: float
    computation: Computation


class ModelPart(Protocol):
    """The GP of one policy: built at every reset, prepared before every exploitation
    decision (not a late phase's)."""

    name: ClassVar[str]

    def surrogate(self, spec: ModelSpec, seed: int) -> GPSurrogate:
        """An episode's GP from ``spec``, ``seed`` seeding its fits."""
        ...

    def before_commit(self, surrogate: GPSurrogate) -> None:
        """What the model does before an exploitation decision."""
        ...


@dataclass(frozen=True)
class TextModel:
    """The surrogate options' GP (``etc``'s: BoTorch's ``SingleTaskGP`` fitted by MAP, refitted
    as the options and the computation say), nothing done before an exploitation decision."""

    name: ClassVar[str] = "text"

    def surrogate(self, spec: ModelSpec, seed: int) -> GPSurrogate:
        """The GP the surrogate options describe (:meth:`agents.config.SurrogateConfig.surrogate`)."""
        return spec.options.surrogate(spec.dim, spec.lengthscale, spec.computation, seed)

    def before_commit(self, surrogate: GPSurrogate) -> None:
        """Nothing: the options' refits keep the GP fitted."""
        return None

"""The model-based agents' configuration: one frozen dataclass per concern.

An agent built by name takes flat keyword arguments (a sweep's ``agent_params``); they are
split by field name into

- :class:`SurrogateConfig`: the GP surrogate (:class:`~agents.surrogate.GPSurrogate`);
- :class:`AcquisitionConfig`: the expectations ``E[.]`` and their multi-start optimizer;
- :class:`Computation`: how much the agent computes, with the presets :data:`EXACT`,
  :data:`FAST` and :data:`FRUGAL`;
- the policy's own rules, a :class:`Rules` subclass per policy.

Each dataclass checks its fields when it is built (``__post_init__``: a one-line
``ValueError`` naming the field), so a bad parameter fails before an episode starts. An agent's
``params()`` is the union of its dataclasses' fields plus ``exact``
(:meth:`AgentConfig.params`), which build the same agent again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any, ClassVar, Literal, get_args

from agents.checks import check_positive_finite, check_positive_integers
from agents.surrogate import RefitSchedule

SurrogateMode = Literal["fixed", "fitted"]


def field_names(cls: type) -> tuple[str, ...]:
    """The field names of dataclass ``cls``."""
    return tuple(f.name for f in fields(cls))


def as_params(config: Any) -> dict[str, Any]:
    """A config dataclass's fields by name, tuples as lists (JSON-able)."""
    values = {f.name: getattr(config, f.name) for f in fields(config)}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


def check_choice(name: str, value: Any, allowed: tuple[Any, ...]) -> None:
    """Refuse ``value`` of option ``name`` unless it is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


@dataclass(frozen=True)
class SurrogateConfig:
    """The GP surrogate's options (:class:`~agents.model_based.ModelBasedAgent` documents
    each)."""

    surrogate_mode: SurrogateMode = "fitted"
    lengthscale: float | None = None
    noise: float = 1e-4
    outputscale: float = 1.0
    refit_every: int = 10
    refit_factor: float = 1.25

    def __post_init__(self) -> None:
        check_choice("surrogate_mode", self.surrogate_mode, get_args(SurrogateMode))
        check_positive_integers(refit_every=self.refit_every)
        check_positive_finite(noise=self.noise, outputscale=self.outputscale)
        if self.lengthscale is not None:
            check_positive_finite(lengthscale=self.lengthscale)
        if not (math.isfinite(self.refit_factor) and self.refit_factor > 1):
            raise ValueError(f"refit_factor must be finite and > 1, got {self.refit_factor!r}")


@dataclass(frozen=True)
class AcquisitionConfig:
    """The expectations' samples and their multi-start optimizer's options
    (:class:`~agents.model_based.ModelBasedAgent` documents each)."""

    n_samples: int = 128
    raw_samples: int = 256
    n_restarts: int = 8
    maxiter: int = 100
    beta: float = 2.0
    n_incumbents: int = 3
    polish_played: bool = True

    def __post_init__(self) -> None:
        if self.beta < 0:
            raise ValueError(f"beta must be >= 0, got {self.beta!r}")
        check_positive_integers(
            n_samples=self.n_samples,
            raw_samples=self.raw_samples,
            n_restarts=self.n_restarts,
            maxiter=self.maxiter,
        )
        if self.n_incumbents < 0:
            raise ValueError(f"n_incumbents must be >= 0, got {self.n_incumbents!r}")


@dataclass(frozen=True)
class Computation:
    """How much an agent computes: its refits, its polish and its bounds on data and decisions
    (:class:`~agents.model_based.ModelBasedAgent` documents each). Presets: :data:`EXACT`,
    :data:`FAST`, :data:`FRUGAL`; ``exact=True`` applies :attr:`exact_settings` to any."""

    #: The fields ``exact=True`` sets, and their values: the computations as first implemented.
    exact_settings: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {"polish_samples": None, "refit_schedule": "every", "refit_maxiter": None}
    )

    refit_schedule: RefitSchedule = "geometric"
    polish_samples: int | None = 32
    refit_maxiter: int | None = 20
    max_data: int | None = None
    hold: float | None = None

    def __post_init__(self) -> None:
        check_choice("refit_schedule", self.refit_schedule, get_args(RefitSchedule))
        if self.polish_samples is not None:
            if not (isinstance(self.polish_samples, int) and self.polish_samples >= 1):
                raise ValueError(
                    f"polish_samples must be None or a positive integer, "
                    f"got {self.polish_samples!r}"
                )
        if self.max_data is not None and not (
            isinstance(self.max_data, int) and self.max_data >= 2
        ):
            raise ValueError(f"max_data must be None or an integer >= 2, got {self.max_data!r}")
        if self.hold is not None and not 0.0 < self.hold < 1.0:
            raise ValueError(f"hold must be None or in (0, 1), got {self.hold!r}")

    def with_options(self, exact: bool, given: Mapping[str, Any]) -> Computation:
        """This preset with the options ``given`` (field -> value) and, with ``exact``, the
        :attr:`exact_settings`.

        Raises:
            ValueError: with ``exact``, naming the options given another value than the exact
                one (``exact=True`` would silently replace it).
        """
        if not exact:
            return replace(self, **given)
        settings = self.exact_settings
        clash = sorted(k for k, v in given.items() if k in settings and v != settings[k])
        if clash:
            raise ValueError(f"exact=True sets {clash} itself; leave them out or set exact=False")
        return replace(self, **{**given, **settings})


#: The computations as first implemented: every maximizer polished on all samples, a
#: hyperparameter refit every ``refit_every`` observations, each run to convergence; all data,
#: a decision every round. The defaults of ETC, ETC-50, TS-PSQ and UCB-CVS, whose paired
#: quality check (benchmarks/README.md, "The defaults") found the fast options worse or did not
#: cover them.
EXACT = Computation(**Computation.exact_settings)

#: The fast options: maximizers polished on 32 samples (the played one again on all), refits on
#: a geometric schedule capped at 20 iterations. What they save and cost: benchmarks/README.md,
#: "Pilot: fast options", and the paired check ``benchmarks/configs/fast_quality.toml``.
FAST = Computation()

#: The fast options and the bounds of the agents that buy many cheap evaluations (FETC and its
#: ablation agents, SADCBO, cost-cooled EI): with the paper's cheap costs (0.01) and a budget of
#: 100 they make thousands of evaluations, where ETC makes 400-700. The GP takes at most 512 of
#: them (a decision then costs about what ETC's does at its largest ``n``) and a decision is
#: held for 0.5% of the budget (at most 400 decisions a run); docs/agents/fetc.md,
#: "Computation bounds".
FRUGAL = replace(FAST, max_data=512, hold=0.005)

#: :data:`EXACT`'s options that differ from :data:`FAST`, as keyword arguments
#: (``make_agent(name, **EXACT_SETTINGS)`` is ``make_agent(name, exact=True)``).
EXACT_SETTINGS: Mapping[str, Any] = Computation.exact_settings
#: :data:`FAST`'s options that differ from :data:`EXACT`, as keyword arguments.
FAST_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {k: getattr(FAST, k) for k in Computation.exact_settings}
)
#: :data:`FRUGAL`'s bounds on data and decisions, as keyword arguments.
FRUGAL_COMPUTE: Mapping[str, Any] = MappingProxyType(
    {"max_data": FRUGAL.max_data, "hold": FRUGAL.hold}
)


@dataclass(frozen=True)
class Rules:
    """The base of a policy's own rules (a policy without options has none)."""

    def check_complete(self) -> None:
        """Refuse rules that lack what the policy cannot run without (a preset may lack it:
        a parameter the agent requires, such as UCB-CVS's ``costs``)."""


@dataclass(frozen=True)
class AgentConfig:
    """A model-based agent's whole configuration, one dataclass per concern, and ``exact``."""

    surrogate: SurrogateConfig
    acquisition: AcquisitionConfig
    computation: Computation
    rules: Rules
    exact: bool = False

    @staticmethod
    def parameter_names(rules: type[Rules], computation: type[Computation]) -> set[str]:
        """The keyword parameters of an agent with these rules and computation types."""
        types = (SurrogateConfig, AcquisitionConfig, computation, rules)
        return {"exact", *(name for t in types for name in field_names(t))}

    @classmethod
    def from_params(
        cls, rules: Rules, computation: Computation, params: Mapping[str, Any]
    ) -> AgentConfig:
        """The configuration of flat keyword ``params`` over the presets ``rules`` and
        ``computation`` (a policy's defaults).

        Raises:
            TypeError: naming the parameters no part of the configuration takes.
            ValueError: as the dataclasses' checks, or ``exact`` not a bool.
        """
        unknown = sorted(set(params) - cls.parameter_names(type(rules), type(computation)))
        if unknown:
            raise TypeError(f"unexpected keyword arguments {unknown}")
        exact = params.get("exact", False)
        if not isinstance(exact, bool):
            raise ValueError(f"exact must be True or False, got {exact!r}")

        def part(t: type) -> dict[str, Any]:
            return {k: params[k] for k in field_names(t) if k in params}

        own = replace(rules, **part(type(rules)))
        own.check_complete()
        return cls(
            surrogate=SurrogateConfig(**part(SurrogateConfig)),
            acquisition=AcquisitionConfig(**part(AcquisitionConfig)),
            computation=computation.with_options(exact, part(type(computation))),
            rules=own,
            exact=exact,
        )

    def params(self) -> dict[str, Any]:
        """The flat keyword parameters that build this configuration again (JSON-able)."""
        parts = (self.rules, self.surrogate, self.acquisition, self.computation)
        return {k: v for part in parts for k, v in as_params(part).items()} | {"exact": self.exact}

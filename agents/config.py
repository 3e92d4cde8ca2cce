"""The model-based agents' configuration: one frozen dataclass per concern.

An agent built by name takes flat keyword arguments (a sweep's ``agent_params``); they are
split by field name into

- :class:`SurrogateConfig`: the GP surrogate (:class:`~agents.surrogate.GPSurrogate`);
- :class:`AcquisitionConfig`: the expectations ``E[.]`` and their multi-start optimizer;
- :class:`Computation`: how much the agent computes, with the named computations :data:`EXACT`,
  :data:`FAST` and :data:`FRUGAL`;
- the policy's own rules, a :class:`Rules` subclass per policy.

Each dataclass checks its fields when it is built (``__post_init__``: a one-line
``ValueError`` naming the field), so a bad parameter fails before an episode starts. An agent's
``params()`` is the union of its dataclasses' fields plus ``exact``
(:meth:`AgentConfig.params`), which build the same agent again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any, ClassVar, get_args

import numpy as np

from agents.choice import check_choice, plain_value
from agents.surrogate import GPSurrogate, RefitSchedule, SurrogateMode
from agents.surrogate.gp import check_refit_factor, check_refit_schedule
from bocvs_env.checks import (
    check_optional_positive_integers,
    check_positive_finite,
    check_positive_integers,
    integer,
    real,
)


def field_names(cls: type) -> tuple[str, ...]:
    """The field names of dataclass ``cls``."""
    return tuple(f.name for f in fields(cls))


def as_params(config: Any) -> dict[str, Any]:
    """A config dataclass's fields by name, tuples as lists and chosen parts by their names
    (:func:`agents.choice.plain_value`): JSON-able."""
    values = {f.name: plain_value(config, f.name) for f in fields(config)}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


@dataclass(frozen=True)
class SurrogateConfig:
    """The GP surrogate's options (:class:`~agents.surrogate.GPSurrogate`).

    Args:
        surrogate_mode: ``"fitted"`` (the default, as the AAAI paper's text describes: an ARD
            RBF kernel with BoTorch's priors, hyperparameters fitted by MAP and refitted as
            ``refit_schedule`` says) or ``"fixed"`` (the hyperparameters of the reference codes
            of Tay et al., NeurIPS 2023: ``lengthscale``, ``noise``, ``outputscale``). A fixed
            isotropic lengthscale cannot learn that an input is inert.
        lengthscale: with ``"fixed"``, the RBF lengthscale of every input (inputs in
            ``[0, 1]``); ``None`` takes the reference codes' value for the task's problem
            (:attr:`~bocvs_env.task.Task.reference_lengthscale`: 0.2 for ``plant`` and
            ``airfoil``, 0.1 otherwise).
        noise: with ``"fixed"``, the observation noise variance, in squared units of ``y``.
        outputscale: with ``"fixed"``, the kernel's prior variance of ``f``, in squared units
            of ``y``.
        refit_every: with ``"fitted"``, the fewest new observations between hyperparameter
            refits.
        refit_factor: the ``"geometric"`` refit schedule's growth factor (``> 1``): the next
            refit comes at ``max(n_fit + refit_every, refit_factor * n_fit)`` observations for
            ``n_fit`` at the last.
    """

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
        check_refit_factor(self.refit_factor)

    def surrogate(
        self, dim: int, lengthscale: float, computation: Computation, seed: int
    ) -> GPSurrogate:
        """The GP these options describe on ``dim`` inputs, with ``lengthscale`` for the
        fixed mode's (resolved: not ``None``) and the refits of ``computation``; ``seed``
        seeds its fits."""
        return GPSurrogate(
            dim,
            mode=self.surrogate_mode,
            lengthscale=lengthscale,
            noise=self.noise,
            outputscale=self.outputscale,
            refit_every=self.refit_every,
            refit_schedule=computation.refit_schedule,
            refit_factor=self.refit_factor,
            seed=seed,
            refit_maxiter=computation.refit_maxiter,
        )


@dataclass(frozen=True)
class AcquisitionConfig:
    """The expectations' samples (:class:`~agents.acquisition.ExpectedAcquisition`) and their
    multi-start optimizer's options (:class:`~agents.acquisition.SetOptimizer`).

    Args:
        n_samples: the quasi-random (scrambled Sobol) samples of the random inputs behind each
            expectation ``E[.]`` over them.
        raw_samples: the random candidate queries screened per set before the gradient-based
            search (BoTorch's ``raw_samples``).
        n_restarts: the best screened candidates per set the L-BFGS-B search starts from
            (BoTorch's ``num_restarts``; at most ``raw_samples``).
        maxiter: the most L-BFGS-B iterations per search.
        beta: the confidence width of the bounds ``u = mu + beta sigma`` and
            ``l = mu - beta sigma`` (the paper's ``beta``, 2 by default; in standard
            deviations of the posterior).
        n_incumbents: the previous maximizers per set and best observed queries every
            maximization is checked against
            (:meth:`~agents.policies.model_based.ModelBasedAgent.set_maxima`); 0 turns the
            check off.
        polish_played: with ``polish_samples``, polish the query actually played once more on
            all ``n_samples`` (:meth:`~agents.policies.model_based.ModelBasedAgent.played`), so
            that only the maximizations that compare sets use fewer.
    """

    n_samples: int = 128
    raw_samples: int = 256
    n_restarts: int = 8
    maxiter: int = 100
    beta: float = 2.0
    n_incumbents: int = 3
    polish_played: bool = True

    def __post_init__(self) -> None:
        if real(self.beta, "beta") < 0:
            raise ValueError(f"beta must be >= 0, got {self.beta!r}")
        check_positive_integers(
            n_samples=self.n_samples,
            raw_samples=self.raw_samples,
            n_restarts=self.n_restarts,
            maxiter=self.maxiter,
        )
        integer(self.n_incumbents, "n_incumbents", minimum=0)


@dataclass(frozen=True)
class Computation:
    """How much an agent computes: its refits, its polish and its bounds on data and decisions.
    Named computations: :data:`EXACT`, :data:`FAST`, :data:`FRUGAL`; ``exact=True`` applies
    :attr:`exact_settings` to any.

    Args:
        refit_schedule: ``"geometric"`` (the default: a refit once the data has grown by at
            least ``refit_every`` observations and by the factor ``refit_factor`` since the
            last, so ``O(log n)`` refits in ``n`` observations) or ``"every"`` (every
            ``refit_every`` observations, the exact setting); see
            :class:`~agents.surrogate.GPSurrogate`.
        polish_samples: polish every maximizer with only this many of the ``n_samples``
            samples and value it with all (:class:`~agents.acquisition.SetOptimizer`).
            ``None``, or any value of at least ``n_samples``, polishes with all (the exact
            setting). Fewer samples make a decision cheaper where the expectation has random
            inputs, at the cost of a less precise maximizer
            (``benchmarks/polish_samples.py`` measures how much).
        refit_maxiter: the most L-BFGS-B iterations of a warm-started hyperparameter refit
            (:class:`~agents.surrogate.fitting.MAPFitter`; the first fit is never capped);
            ``None`` runs each to convergence (the exact setting). A cap makes refits cheaper
            and their cost predictable, at the cost of hyperparameters that may stop short of
            the MAP estimate.
        max_data: the most observations the GP conditions on (*subset of data*, Rasmussen &
            Williams 2006, section 8.3.1); ``None``: all of them. Beyond it the GP takes every
            ``k``-th observation, ``k`` the smallest power of two that leaves at most
            ``max_data`` (:meth:`rows`): a choice by index alone, never by ``y``, so the
            posterior is the exact posterior given those observations and its confidence
            bounds stay valid, only wider. Each doubling of ``k`` refactors the GP, keeping its
            hyperparameters; in between, new rows extend the factor. An agent that plays sets
            of cost 0.01 makes thousands of evaluations with a budget of 100, and an exact GP
            on all of them costs ``O(n^2)`` per candidate and ``O(n^3)`` per refit.
        hold: replay each decision while the spend since it, plus the set's estimated cost,
            stays within ``hold`` times the budget (a share of the budget; ``None``: decide
            every round). A set costing less than ``hold * budget`` is then played
            ``floor(hold * budget / c)`` times per decision, at the same query (its random
            inputs drawn afresh each time), so every decision spends more than half of
            ``hold * budget`` and a run makes at most ``2 / hold`` decisions (about
            ``1 / hold`` where the costs divide ``hold * budget``) plus one per play of a
            costlier set; the decision log has one entry per decision. A hold may run past a
            phase's end by less than ``hold * budget`` (ETC's exploration budget, checked once
            per cycle of the ``m`` sets, by up to about ``m * hold * budget``), and what a
            subclass counts per decision counts decisions, not plays (ETC's exploitation
            rounds, after every ``d`` of which ``alpha`` is halved).
    """

    #: The fields ``exact=True`` sets, and their values: every maximizer polished on all
    #: samples, a refit every ``refit_every`` observations, each run to convergence.
    exact_settings: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {"polish_samples": None, "refit_schedule": "every", "refit_maxiter": None}
    )

    refit_schedule: RefitSchedule = "geometric"
    polish_samples: int | None = 32
    refit_maxiter: int | None = 20
    max_data: int | None = None
    hold: float | None = None

    def __post_init__(self) -> None:
        check_refit_schedule(self.refit_schedule)
        check_optional_positive_integers(
            polish_samples=self.polish_samples, refit_maxiter=self.refit_maxiter
        )
        if self.max_data is not None and not (
            isinstance(self.max_data, int) and self.max_data >= 2
        ):
            raise ValueError(f"max_data must be None or an integer >= 2, got {self.max_data!r}")
        if self.hold is not None and not 0.0 < real(self.hold, "hold") < 1.0:
            raise ValueError(f"hold must be None or in (0, 1), got {self.hold!r}")

    def stride(self, n: int) -> int:
        """``k``: with ``n`` observations the GP conditions on every ``k``-th, 1 without
        ``max_data``, else the smallest power of two leaving at most ``max_data``."""
        k = 1
        while self.max_data is not None and -(-n // k) > self.max_data:
            k *= 2
        return k

    def rows(self, n: int) -> np.ndarray:
        """The rows of the first ``n`` observations the GP conditions on: ``(ceil(n / k),)``
        indices, every ``k``-th of :meth:`stride`."""
        return np.arange(0, n, self.stride(n))

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


#: The exact computations: every maximizer polished on all samples, a hyperparameter refit every
#: ``refit_every`` observations, each run to convergence; all data, a decision every round. The
#: defaults of ETC, ETC-50, TS-PSQ and UCB-CVS (docs/design/computation-settings.md says why).
EXACT = Computation(**Computation.exact_settings)

#: The fast options: maximizers polished on 32 samples (the played one again on all), refits on
#: a geometric schedule capped at 20 iterations (docs/design/computation-settings.md).
FAST = Computation()

#: The fast options and the bounds of the agents that buy many cheap evaluations (FETC and its
#: ablation agents, SADCBO, cost-cooled EI): a set of cost 0.01 buys 100 evaluations per unit of
#: budget, and an exact GP on all of them costs ``O(n^3)`` per refit. The GP takes at most 512 of
#: them and a decision is held for 0.5% of the budget (at most 400 decisions a run);
#: docs/agents/fetc.md, "Computation bounds".
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
    """A model-based agent's whole configuration, one dataclass per concern, and ``exact``.

    An agent's keyword parameters are split by name into the dataclasses
    (:meth:`from_params`), over the presets of its class (its ``default_rules`` and
    ``default_computation``, or a preset's): the options not given take their values. The options are
    passed to the :class:`~agents.surrogate.GPSurrogate`,
    :class:`~agents.acquisition.ExpectedAcquisition` and
    :class:`~agents.acquisition.SetOptimizer` explicitly: they are the agents' defaults,
    where the components' own are the exact ones. The components' other options (``n_polish``,
    ``pre_refine``, ``exact_mean``, ``raw_n_samples``, ``n_features``, ``warm_start``) keep the
    components' defaults.
    """

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

    def polish_samples(self) -> int | None:
        """The acquisition's ``polish_samples``: ``None`` (all) where there are no more
        samples than that."""
        n = self.computation.polish_samples
        return None if n is None or n >= self.acquisition.n_samples else n

    def params(self) -> dict[str, Any]:
        """The flat keyword parameters that build this configuration again (JSON-able)."""
        parts = (self.rules, self.surrogate, self.acquisition, self.computation)
        return {k: v for part in parts for k, v in as_params(part).items()} | {"exact": self.exact}

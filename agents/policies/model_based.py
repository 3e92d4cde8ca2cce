"""A base class for the GP-based agents: one surrogate and one acquisition, rebuilt per episode."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
import torch
from torch import Tensor

from agents.acquisition import Bound, ExpectedAcquisition, SetOptimizer
from agents.base import Action, BaseAgent, Observation
from agents.config import (
    EXACT_SETTINGS,
    FAST,
    FAST_SETTINGS,
    FRUGAL_COMPUTE,
    AcquisitionConfig,
    AgentConfig,
    Computation,
    Rules,
    SurrogateConfig,
)
from agents.policies.model_state import SavedModelAgent
from agents.policies.presets import Preset, preset_named
from agents.rules.set_selection import full_set
from agents.surrogate import GPSurrogate, SamplePath

__all__ = ["EXACT_SETTINGS", "FAST_SETTINGS", "FRUGAL_COMPUTE", "ModelBasedAgent"]


class ModelBasedAgent(BaseAgent, SavedModelAgent):
    """Keeps a :class:`GPSurrogate` fitted to all data, an :class:`ExpectedAcquisition` and the
    :class:`SetOptimizer` that maximizes it.

    At every :meth:`reset` a fresh surrogate and acquisition are built (their seeds drawn from
    the agent's seeded generator) and fitted to the free initial design; after every evaluated
    step the surrogate is refitted to all data so far (or the subset ``max_data`` allows).
    Subclasses implement :meth:`decide`; :meth:`act` holds decisions (``hold``).

    Args:
        preset: the name of one of the class's :attr:`presets`, whose rules and computation
            the parameters are given over (the agent takes its name); ``None``: the class's
            ``default_rules`` and ``default_computation``.
        exact: ``True`` sets the computation's
            :attr:`~agents.config.Computation.exact_settings` (:data:`EXACT_SETTINGS`; ETC's
            also ``lcb_tracking``): every maximizer polished on all samples, a refit every
            ``refit_every`` observations run to convergence, a full ``max E[l]`` every round;
            it refuses any other value given for them (a sweep file has no ``None``).
        **params: the options of :class:`~agents.config.SurrogateConfig`,
            :class:`~agents.config.AcquisitionConfig`, the class's computation
            (:class:`~agents.config.Computation`) and its rules, by field name.
    """

    #: The policy's rules with their defaults (a subclass of :class:`~agents.config.Rules`).
    default_rules: ClassVar[Rules] = Rules()
    #: The policy's computation: :data:`~agents.config.FAST` here; a policy overrides it (ETC's
    #: is :data:`~agents.config.EXACT`, FETC's :data:`~agents.config.FRUGAL`).
    default_computation: ClassVar[Computation] = FAST
    #: The policy's named presets (:func:`~agents.policies.presets.preset_table`), if any.
    presets: ClassVar[Mapping[str, Preset[Any]]] = MappingProxyType({})

    def __init__(self, preset: str | None = None, **params: Any) -> None:
        super().__init__()
        rules, computation = self.default_rules, self.default_computation
        if preset is not None:
            chosen = preset_named(self.presets, preset, type(self).__name__)
            self.name, rules, computation = chosen.name, chosen.rules, chosen.computation
        self.config = AgentConfig.from_params(rules, computation, params)
        self.surrogate_options: SurrogateConfig = self.config.surrogate
        self.acquisition_options: AcquisitionConfig = self.config.acquisition
        self.computation: Computation = self.config.computation
        self.rules: Rules = self.config.rules

    @classmethod
    def param_names(cls) -> set[str]:
        """The keyword parameters the agent takes."""
        return AgentConfig.parameter_names(type(cls.default_rules), type(cls.default_computation))

    @property
    def exact(self) -> bool:
        """Whether ``exact=True`` set the computation's exact settings."""
        return self.config.exact

    def resolved_lengthscale(self) -> float:
        """The lengthscale in use: the parameter, or the task's reference value
        (:attr:`~bocvs_env.task.Task.reference_lengthscale`)."""
        if self.surrogate_options.lengthscale is not None:
            return float(self.surrogate_options.lengthscale)
        return self.task.reference_lengthscale

    def start(self) -> None:
        model_seed = int(self.rng.integers(2**31 - 1))
        self.surrogate = self.make_surrogate(model_seed)
        self.acquisition = ExpectedAcquisition(
            self.task,
            n_samples=self.acquisition_options.n_samples,
            seed=model_seed,
            raw_samples=self.acquisition_options.raw_samples,
        )
        opts = self.acquisition_options
        self.optimizer = SetOptimizer(
            n_restarts=min(opts.n_restarts, opts.raw_samples),  # at most one per candidate
            maxiter=opts.maxiter,
            polish_samples=self.config.polish_samples(),
        )
        self._maximizers: dict[int, list[np.ndarray]] = {}
        self._stride = 1
        self._held: tuple[int, np.ndarray, float] | None = None  # set, query, spent before
        self._refit()

    def make_surrogate(self, seed: int) -> GPSurrogate:
        """This episode's surrogate, ``seed`` seeding its fits: the surrogate options' (a
        policy with a model of its own overrides it)."""
        options, lengthscale = self.surrogate_options, self.resolved_lengthscale()
        return options.surrogate(self.task.dim, lengthscale, self.computation, seed)

    def act(self, observation: Observation) -> Action:
        """The held decision's action while ``hold`` allows it, else a new :meth:`decide`."""
        if self._held is not None:
            i, x, since = self._held
            c = self.cost_sums[i] / self.plays[i] if self.plays[i] else math.inf
            if self.spent - since + c <= self.hold_spend() * (1 + 1e-9):
                return {"control_set": i, "x": self.replay(i, x)}
        action = self.decide(observation)
        if self.computation.hold is not None:
            x = np.asarray(action["x"], np.float64).copy()
            self._held = (int(action["control_set"]), x, self.spent)
        return action

    @abstractmethod
    def decide(self, observation: Observation) -> Action:
        """Choose the next control set and query (a new decision; see ``hold``)."""

    def replay(self, i: int, x: np.ndarray) -> np.ndarray:
        """A held decision's next play on set ``i``: its query ``x`` (``(d,)``) again."""
        return x.copy()

    def hold_spend(self) -> float:
        """The spend a decision is held for: ``hold`` times the budget (0 without ``hold``)."""
        return 0.0 if self.computation.hold is None else self.computation.hold * self.task.budget

    def _refit(self) -> None:
        n = self.y.size
        if not n:
            return
        stride = self.computation.stride(n)
        rows = self.computation.rows(n)
        thinned = stride != self._stride
        if not thinned and stride > 1 and rows.size == self.surrogate.n_train:
            return  # the new observation is not one the GP takes
        self.surrogate.fit(self.X[rows], self.y[rows], thinned=thinned)
        self._stride = stride

    def observe(
        self,
        action: Action,
        observation: Observation,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        super().observe(action, observation, reward, terminated, truncated, info)
        if info.get("evaluated", False) and not (terminated or truncated) and self.refit_due():
            self._refit()

    def refit_due(self) -> bool:
        """The refit hook: whether the evaluated play just recorded updates the surrogate
        (always, here; a policy whose model stops learning overrides it)."""
        return True

    def set_maxima(
        self,
        sets: Sequence[int],
        bound: Bound | Callable[[Tensor], Tensor] = "ucb",
        starts: Mapping[int, np.ndarray] | None = None,
        maxiter: int | None = None,
    ) -> dict[int, tuple[float, np.ndarray]]:
        """``max_{x^i} E[bound]`` and its maximizer (a full query, ``(d,)``) for each set.

        With ``starts`` (set -> a full query, for every set in ``sets``) each set is only
        polished from its start (:meth:`SetOptimizer.polish_from`: a local search, no
        screening; at most ``maxiter`` L-BFGS-B iterations, 0: the start is only valued);
        otherwise maximized from screened candidates.

        The optimizer's result is checked against incumbents: the set's previous maximizers
        (of any bound) and the ``n_incumbents`` best observed queries. The maximum is at least
        the value at any of them, so the larger is kept. This guards against a missed optimum,
        which matters most to ETC, whose ``ucb_bar_i`` is a running minimum of these maxima:
        one missed optimum of a set's UCB lowers its bar for the rest of the episode and can
        empty ``S1``.
        """
        sets = [int(i) for i in sets]
        estimator = self.acquisition.estimator(self.surrogate, bound, self.acquisition_options.beta)
        if starts is None:
            candidates = self.acquisition.candidates(sets, self.surrogate.train_X)
            found = self.optimizer.maximize(estimator, sets, candidates)
        else:
            found = self.optimizer.polish_from(estimator, sets, [starts[i] for i in sets], maxiter)
        values = [float(v) for v, _ in found]
        better = self._better_incumbents(sets, values, bound)
        out: dict[int, tuple[float, np.ndarray]] = {}
        for i, value, (_, x) in zip(sets, values, found, strict=True):
            query = np.asarray(x, np.float64)
            if i in better:
                value, query = better[i]
            if self.acquisition_options.n_incumbents:
                kept = self._maximizers.setdefault(i, [])
                kept.append(query)
                del kept[: -self.acquisition_options.n_incumbents]
            out[i] = (value, query)
        return out

    def played(
        self, i: int, x: np.ndarray, bound: Bound | Callable[[Tensor], Tensor] = "ucb"
    ) -> np.ndarray:
        """The query to play on set ``i``: its maximizer ``x`` (a full query, ``(d,)``) of
        ``E[bound]`` from :meth:`set_maxima`, polished again on all ``n_samples`` samples when it
        was polished on fewer (``polish_samples``) and ``polish_played`` is on; else ``x``.

        One L-BFGS-B from ``x`` on one set (:meth:`SetOptimizer.polish_from`), so the
        played point is as precise as with ``polish_samples=None`` while the maximizations that
        only compare sets (bounds, filters) stay on the fewer samples. A set that controls
        every variable has no random inputs, so its samples are one query and ``x`` is kept.
        """
        full = i == full_set(self.task.control_sets, self.task.dim)
        polish = self.acquisition_options.polish_played and self.config.polish_samples()
        if full or not polish:
            return x
        estimator = self.acquisition.estimator(self.surrogate, bound, self.acquisition_options.beta)
        ((_, z),) = self.optimizer.polish_from(estimator, [i], [x], all_samples=True)
        return np.asarray(z, np.float64)

    def _better_incumbents(
        self, sets: list[int], values: list[float], bound: Bound | Callable[[Tensor], Tensor]
    ) -> dict[int, tuple[float, np.ndarray]]:
        """Set -> its best incumbent (:meth:`_incumbents`; the first of equals) and its value,
        for the sets where it beats the optimizer's ``values``; one call for all sets, valuing
        only the incumbents that can beat them
        (:meth:`~agents.acquisition.ExpectedAcquisition.expected_above`)."""
        if not self.acquisition_options.n_incumbents:
            return {}
        incumbents = {i: self._incumbents(i) for i in sets}
        checked = [p for p, i in enumerate(sets) if len(incumbents[i])]
        above = self.acquisition.expected_above(
            self.surrogate,
            [(sets[p], torch.as_tensor(incumbents[sets[p]])) for p in checked],
            [values[p] for p in checked],
            bound,
            self.acquisition_options.beta,
        )
        better = {}
        for p, v in zip(checked, above, strict=True):
            k = int(torch.argmax(v))
            if float(v[k]) > values[p]:
                better[sets[p]] = (float(v[k]), incumbents[sets[p]][k].copy())
        return better

    def _incumbents(self, i: int) -> np.ndarray:
        """``k x d`` queries worth checking for set ``i``: recent maximizers, best data."""
        stacked = np.vstack([*self._maximizers.get(i, []), self.best_observed()])
        return stacked.reshape(-1, self.task.dim)

    def best_observed(self) -> np.ndarray:
        """The ``n_incumbents`` best observed queries ``(<= n_incumbents, d)``, best ``y``
        first (of equal ``y``, the earlier first)."""
        return self.X[np.argsort(-self.y, kind="stable")[: self.acquisition_options.n_incumbents]]

    def sample_path(self) -> SamplePath:
        """One posterior sample path (``batch_shape x d -> 1 x batch_shape``), seeded from the
        agent's generator. Returned as the :class:`~agents.surrogate.SamplePath` itself, so that
        the acquisition averages it over the random inputs per feature and training point
        (:meth:`~agents.surrogate.SamplePath.averaged_over`) instead of per query and sample."""
        generator = torch.Generator().manual_seed(int(self.rng.integers(2**62)))
        return self.surrogate.sample_paths(1, generator)

    def params(self) -> dict[str, Any]:
        """The agent's keyword parameters (:meth:`agents.config.AgentConfig.params`): they
        build the same agent again."""
        return self.config.params()

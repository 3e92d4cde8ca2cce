"""The model port of the explore-then-commit policy over a model-based agent's GP
(:class:`GPModelPort`, which implements :class:`~agents.policies.etc.port.ModelPort`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from torch import Tensor

from agents.acquisition import Bound, Integrand, SetOptimizer, SetScores
from agents.acquisition.screening import set_candidates
from agents.expected_posterior import ExpectedPosterior
from agents.policies.etc.computation import LcbTracking
from agents.policies.etc.port import Maxima
from agents.policies.model_based import ModelBasedAgent
from agents.rules.relevance import collapse_relevance
from agents.rules.set_selection import maximal_sets
from agents.surrogate import SamplePath
from bocvs_env.agent_state import StateArrays, StateMeta, part


class GPModelPort:
    """The maxima the parts ask for, computed on the agent's surrogate and acquisition, and
    the tracking of ``max E[l]`` between hyperparameter refits (``lcb_tracking``).

    Args:
        agent: the model-based agent whose surrogate, acquisition and optimizer answer (one
            episode's: build a port after every reset).
        lcb_tracking: how :meth:`lcb_max` follows its maximizers between refits
            (:class:`~agents.policies.etc.computation.ETCComputation`).
    """

    def __init__(self, agent: ModelBasedAgent, lcb_tracking: LcbTracking) -> None:
        self._agent = agent
        self._tracking = lcb_tracking
        self.posterior = ExpectedPosterior(agent.task, agent.acquisition.samples)
        self._maximal = maximal_sets(agent.task.control_sets)
        # lcb_tracking's state: per maximal set its last LCB maximizer, the refit count at the
        # last full maximization and the rounds since.
        self._lcb_x: dict[int, np.ndarray] = {}
        self._lcb_refits = -1
        self._lcb_rounds = 0

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """The tracking of ``max E[l]``: each maximal set's last maximizer ``lcb_x.<set>``
        (``(d,)``), the refit count at the last full maximization and the rounds since."""
        arrays = {f"lcb_x.{i}": x.copy() for i, x in self._lcb_x.items()}
        return arrays, {"lcb_refits": self._lcb_refits, "lcb_rounds": self._lcb_rounds}

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state`.

        Raises:
            ValueError: for a maximizer of a set that is not maximal, or of the wrong shape.
        """
        d = self._agent.task.dim
        lcb_x = {int(i): np.asarray(x, np.float64).copy() for i, x in part(arrays, "lcb_x").items()}
        for i, x in lcb_x.items():
            if i not in self._maximal or x.shape != (d,):
                raise ValueError(f"a saved maximizer of set {i} of shape {x.shape}: expected a "
                                 f"maximal set of {self._maximal} and ({d},)")  # fmt: skip
        self._lcb_x = lcb_x
        self._lcb_refits, self._lcb_rounds = int(meta["lcb_refits"]), int(meta["lcb_rounds"])

    @property
    def n_train(self) -> int:
        return self._agent.surrogate.n_train

    def set_maxima(self, sets: Sequence[int], bound: Integrand = "ucb") -> Maxima:
        return self._agent.set_maxima(sets, bound)

    def beta_maxima(self, sets: Sequence[int], bound: Bound, beta: float) -> Maxima:
        """``max_{x^i} E[mu +- beta sigma]`` and its maximizer (a full query, ``(d,)``) per
        set, at ``beta`` in place of the agent's (the authors' ETC bounds at 1.96 and 0.3):
        the acquisition's screened candidates, then the optimizer, without incumbents."""
        agent, sets = self._agent, [int(i) for i in sets]
        estimator = agent.acquisition.estimator(agent.surrogate, bound, beta)
        candidates = agent.acquisition.candidates(sets, agent.surrogate.train_X)
        found = agent.optimizer.maximize(estimator, sets, candidates)
        return {
            i: (float(v), np.asarray(x, np.float64)) for i, (v, x) in zip(sets, found, strict=True)
        }

    def played(self, i: int, x: np.ndarray, bound: Integrand = "ucb") -> np.ndarray:
        return self._agent.played(i, x, bound)

    def sample_path(self) -> SamplePath:
        return self._agent.sample_path()

    def relevance(self, points: int) -> np.ndarray:
        """Feature-collapsing relevances (:func:`agents.rules.relevance.collapse_relevance`):
        ``points x d x s`` posterior means (``s``: the acquisition's samples)."""
        samples = self._agent.acquisition.samples.numpy()
        return collapse_relevance(self._agent.surrogate, samples[:points], samples)

    def lcb_max(self) -> float:
        """``max_{i, x^i} E[l_{t-1}]`` over the maximal sets
        (:func:`agents.rules.set_selection.maximal_sets`): a superset's maximum is never
        smaller. With ``lcb_tracking`` other than ``"off"``, between refits last round's
        maximizers are revalued (``"revalue"``) or polished (``"polish"``), not searched."""
        agent = self._agent
        refits = agent.surrogate.fitter.n_refits
        if (
            self._tracking != "off"
            and refits == self._lcb_refits
            and self._lcb_rounds < agent.surrogate_options.refit_every
        ):
            maxiter = 0 if self._tracking == "revalue" else None
            maxima = agent.set_maxima(self._maximal, "lcb", self._lcb_x, maxiter)
            self._lcb_rounds += 1
        else:
            maxima = agent.set_maxima(self._maximal, "lcb")
            self._lcb_refits, self._lcb_rounds = refits, 0
        self._lcb_x = {i: x for i, (_, x) in maxima.items()}
        return max(v for v, _ in maxima.values())

    def value_maxima(self, sets: Iterable[int], sign: float, n_refine: int) -> Maxima:
        """``max_{x^i} E[g_i] + sign * beta * std[g_i]`` and its full query ``(d,)`` per set
        (:class:`~agents.acquisition.SetOptimizer` on :class:`~agents.acquisition.SetScores`
        over ``raw_samples`` screened candidates and the ``n_incumbents`` best observed
        queries, the best ``n_refine`` refined by L-BFGS-B)."""
        agent = self._agent
        options = agent.acquisition_options
        best = agent.best_observed()

        def bound(i: int, X: Tensor) -> Tensor:
            mean, std = self.posterior.mean_std(agent.surrogate, i, X)
            return mean + sign * options.beta * std

        bounds = SetScores(agent.task.control_sets, agent.task.dim, bound)
        optimizer = SetOptimizer(n_refine, options.maxiter)
        out = {}
        for i in sets:
            ctrl = list(agent.task.control_sets[i])
            Z = set_candidates(ctrl, options.raw_samples, agent.acquisition.seed + i, best)
            ((value, x),) = optimizer.maximize(bounds, [i], [Z])
            out[i] = (value, x)
        return out

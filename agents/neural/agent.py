"""``neural-af``: a meta-trained neural acquisition over control sets, as a benchmark agent."""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from stable_baselines3 import PPO

from agents.neural.features import FEATURES, CandidateFeatures, FeatureConfig
from agents.neural.network import (
    PRIOR_FEATURE,
    PRIOR_WEIGHT,
    RowPolicy,
    row_logits,
    untrained_policy,
)
from bocvs_env.agent import Action, Observation
from bocvs_env.task import Task

#: The model shipped with the package (trained by ``agents/neural/train.py``'s defaults).
SHIPPED_MODEL = "neural_af.zip"


def shipped_model() -> Path:
    """The path of the model shipped with the package."""
    return Path(str(importlib.resources.files("agents.neural") / "models" / SHIPPED_MODEL))


class NeuralAFAgent:
    """Plays the (set, query) row a trained :class:`~agents.neural.network.RowPolicy` scores
    highest among the candidates of :class:`~agents.neural.features.CandidateFeatures`.

    A MetaBO-style neural acquisition function (Volpp et al., ICLR 2020) for control sets and
    unknown costs, meta-trained with PPO on a problem family's training functions
    (:mod:`agents.neural.train`); the features are standardized (``y`` by the data's spread,
    costs by their mean), so the policy transfers across functions of other scales.

    Args:
        model: a PPO model saved by the training (``model.save``), its path; ``None`` is the
            model shipped with the package (trained on the training functions of both
            families, ``GPSampleFamily`` and ``RotatedHartmann3Family``, budget 5). Loading a
            model unpickles code from it: load only files from a source you trust.
        deterministic: play the highest logit; otherwise sample the softmax with the agent's
            generator (seeded at :meth:`reset`).
        n_candidates: candidates per set. The network scores each row alone, so a model plays
            any number of rows: other problems (other numbers of sets) and other candidate
            counts than it was trained with (the shipped model: 7 sets x 8 candidates).
        name: the agent's name in records and tables.

    Raises:
        FileNotFoundError: when there is no model at ``model``.
        ValueError: when the model's rows have another number of features.
    """

    #: The saved model is a pickle: the harness loads one named in a record only if allowed.
    file_params: ClassVar[tuple[str, ...]] = ("model",)

    def __init__(
        self,
        model: str | Path | None = None,
        deterministic: bool = True,
        n_candidates: int = FeatureConfig.n_candidates,
        name: str = "neural-af",
    ) -> None:
        path = shipped_model() if model is None else Path(model)
        if not path.is_file():
            raise FileNotFoundError(f"no saved neural-af model at {str(path)!r}")
        self.model = None if model is None else str(path)
        self.ppo = PPO.load(path, device="cpu")
        if not isinstance(self.ppo.policy, RowPolicy):
            raise TypeError(f"{path} holds a {type(self.ppo.policy).__name__}, not a RowPolicy")
        self.policy: RowPolicy = self.ppo.policy
        rows = tuple(self.policy.observation_space.shape or ())[1:]
        if rows != (len(FEATURES),):
            raise ValueError(
                f"{path} observes rows of shape {rows}, but the features give rows of "
                f"{len(FEATURES)} (a model of another version of agents.neural.features)"
            )
        self._play(deterministic, n_candidates, name)

    def _play(self, deterministic: bool, n_candidates: int, name: str) -> None:
        self.deterministic = deterministic
        self.config = FeatureConfig(n_candidates=n_candidates)
        self.name = name

    def reset(
        self, task: Task, observation: Observation, info: dict[str, Any], seed: int | None = None
    ) -> None:
        self.task = task
        self.rng = np.random.default_rng(seed)
        self.features = CandidateFeatures(task, self.config)
        self.features.reset(info, seed=int(self.rng.integers(2**31 - 1)))

    def act(self, observation: Observation) -> Action:
        rows, queries = self.features.rows()
        logits = row_logits(self.policy, rows)
        if self.deterministic:
            row = int(np.argmax(logits))
        else:
            p = np.exp(logits - logits.max())
            row = int(self.rng.choice(p.size, p=p / p.sum()))
        return {"control_set": int(self.features.set_of_row[row]), "x": queries[row].copy()}

    def observe(
        self,
        action: Action,
        observation: Observation,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        self.features.update(observation, info)

    def params(self) -> dict[str, Any]:
        """The agent's parameters, for provenance (JSON-able)."""
        return {
            "model": self.model,
            "deterministic": self.deterministic,
            "n_candidates": self.config.n_candidates,
        }


class NeuralAFPriorAgent(NeuralAFAgent):
    """``neural-af-prior``: the network as training starts it, so that what training adds can
    be measured.

    The same candidates and features as :class:`NeuralAFAgent` and the same
    :class:`~agents.neural.network.RowPolicy`, untrained
    (:func:`~agents.neural.network.untrained_policy`): the actor's MLP outputs zero, so each
    row's logit is ``prior_weight`` times its ``ucb_gap`` feature and the agent plays the
    best UCB (``beta = 1``) among the candidates, GP-UCB over them (Srinivas et al., ICML
    2010). No model file is read.

    Args:
        deterministic: play the highest logit; otherwise sample the softmax.
        n_candidates: candidates per set.
        prior_weight: the logits' scale (``> 0``; only the sampled softmax depends on it).
        name: the agent's name in records and tables.
    """

    file_params: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        deterministic: bool = True,
        n_candidates: int = FeatureConfig.n_candidates,
        prior_weight: float = PRIOR_WEIGHT,
        name: str = "neural-af-prior",
    ) -> None:
        if not prior_weight > 0:
            raise ValueError(f"prior_weight must be > 0, got {prior_weight!r}")
        self.model = None
        self.prior_weight = float(prior_weight)
        self.policy = untrained_policy(
            len(FEATURES), FEATURES.index(PRIOR_FEATURE), self.prior_weight
        )
        self._play(deterministic, n_candidates, name)

    def params(self) -> dict[str, Any]:
        """The agent's parameters, for provenance (JSON-able)."""
        return {
            "deterministic": self.deterministic,
            "n_candidates": self.config.n_candidates,
            "prior_weight": self.prior_weight,
        }

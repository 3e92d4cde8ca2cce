"""A trained Stable-Baselines3 policy as an :class:`~bocvs_env.agent.Agent`.

The policy was trained on an environment wrapped by :func:`bocvs_env.wrappers.wrap_sb3`; the
adapter applies the same observation transform (:class:`~bocvs_env.wrappers.HistoryFeatures`)
and action mapping (:func:`~bocvs_env.wrappers.flat_to_action`) around the plain environment,
so the policy runs in :func:`~bocvs_env.evaluation.run_episode` and in the benchmark, next to
ETC and the baselines, on exactly the data it saw in training.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from bocvs_env.agent import Action, Observation
from bocvs_env.task import Task
from bocvs_env.wrappers import HistoryFeatures, flat_to_action


class SB3Agent:
    """Acts with a trained SB3 model (``model.predict``) through the SB3 wrappers' transforms.

    Args:
        model: a trained SB3 algorithm (``stable_baselines3.PPO`` etc.) or the path of one saved
            with ``model.save(path)``. Loading a saved model unpickles code from it: load only
            files from a source you trust.
        algo: the SB3 class name used to load ``model`` from a path (``"PPO"``, ``"SAC"``, ...).
        deterministic: act with the policy's mode; otherwise sample it, with torch draws seeded
            from the agent's own generator (seeded at :meth:`reset`), leaving torch's global
            generator untouched.
        name: the agent's name in records and tables.

    Raises:
        FileNotFoundError: when ``model`` is a path with no saved model there.
        ValueError: at :meth:`reset`, when the model's observation or action shape does not fit
            the task (it was trained on a problem of another size).
    """

    #: A trained model cannot be made up: the benchmark's sweeps must give its path.
    required_params: ClassVar[tuple[str, ...]] = ("model",)
    #: The saved model is a pickle: the harness loads one named in a record only if allowed.
    file_params: ClassVar[tuple[str, ...]] = ("model",)

    def __init__(
        self,
        model: Any,
        algo: str = "PPO",
        deterministic: bool = True,
        name: str = "sb3",
    ) -> None:
        if isinstance(model, (str, Path)):
            self.source = str(model)
            if not any(Path(p).is_file() for p in (self.source, self.source + ".zip")):
                raise FileNotFoundError(f"no saved SB3 model at {self.source!r} (nor with .zip)")
            cls = getattr(importlib.import_module("stable_baselines3"), algo)
            model = cls.load(self.source, device="cpu")
        else:
            self.source = type(model).__name__
        if not hasattr(model, "predict"):
            raise TypeError(f"model must be an SB3 algorithm or a path, got {type(model).__name__}")
        self.model = model
        self.algo = algo
        self.deterministic = deterministic
        self.name = name

    def reset(
        self, task: Task, observation: Observation, info: dict[str, Any], seed: int | None = None
    ) -> None:
        self.task = task
        self.rng = np.random.default_rng(seed)
        self.features = HistoryFeatures(task)
        want_obs = self.features.space.shape
        want_act = (task.n_sets + task.dim,)
        if self.model.observation_space.shape != want_obs:
            raise ValueError(
                f"the model observes shape {self.model.observation_space.shape}, but this task "
                f"gives {want_obs} (m={task.n_sets}, d={task.dim})"
            )
        if self.model.action_space.shape != want_act:
            raise ValueError(
                f"the model acts with shape {self.model.action_space.shape}, this task needs "
                f"{want_act}"
            )
        self.features.reset(info)

    def act(self, observation: Observation) -> Action:
        features = self.features.vector()
        if self.deterministic:
            flat, _ = self.model.predict(features, deterministic=True)
        else:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(int(self.rng.integers(2**63)))
                flat, _ = self.model.predict(features, deterministic=False)
        return flat_to_action(flat, self.task.n_sets, self.task.dim)

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
        """The adapter's parameters, for provenance (JSON-able)."""
        return {"model": self.source, "algo": self.algo, "deterministic": self.deterministic}

"""The training environment: a BOCVS environment seen through :class:`CandidateFeatures`.

SB3's PPO takes a ``Box`` observation and a ``Discrete`` action. :class:`CandidateEnv` gives it
the ``N x F`` candidate rows of :mod:`agents.neural.features` (``N = m * n_candidates``) and
maps the action, a row index, to the environment's action: that row's control set and query.
It lives with the agents because the features need the agents' GP surrogate (the environment
package never imports ``agents``).
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents.neural.features import CandidateFeatures, FeatureConfig
from bocvs_env.env import public_info, unwrap_bocvs


class CandidateEnv(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Observation: the candidate rows; action: ``Discrete(N)``, the row to play.

    The features see only public data: the reset and step ``info`` pass through
    :func:`bocvs_env.evaluation.public_info` before they reach them. The reward is the training
    signal MetaBO uses on its training functions, the true progress: the increase of the best
    expected value ``g_i(x)`` of the queries played (read from ``info["privileged"]``, so the
    environment must be made with ``privileged_info=True``), counted from the mean ``y`` of the
    initial design and divided by its standard deviation (public; 0 and 1 without a design or
    spread), so that functions of different levels and scales weigh alike: an episode's return
    is its best ``g`` standardized by the initial design (0 if it never plays above the
    design's mean), and a high return is a low final simple regret. Counting from the design's
    mean rather than 0 keeps the function's level, which the standardized features cannot
    show, out of the return the critic must predict.

    Args:
        env: a BOCVS environment (possibly wrapped), with ``privileged_info=True``.
        config: the features' settings.

    Raises:
        ValueError: at :meth:`step`, when the environment gives no privileged ``g``.
    """

    def __init__(self, env: gym.Env, config: FeatureConfig | None = None) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, config=config)
        gym.Wrapper.__init__(self, env)
        self.task = unwrap_bocvs(env).task
        self.features = CandidateFeatures(self.task, config)
        self.observation_space = self.features.space
        self.action_space = spaces.Discrete(self.features.space.shape[0])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        _, info = self.env.reset(seed=seed, options=options)
        feature_seed = int(unwrap_bocvs(self.env).np_random.integers(2**31 - 1))
        self.features.reset(public_info(info), seed=feature_seed)
        y0 = np.asarray(info.get("initial_y", []), np.float64)
        spread = float(y0.std()) if y0.size > 1 else 0.0
        self.scale = spread if spread > 1e-12 else 1.0
        self.best_g = float(y0.mean()) if y0.size else 0.0
        self.rows, self.queries = self.features.rows()
        return self.rows, info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        row = int(action)
        i = int(self.features.set_of_row[row])
        obs, _, terminated, truncated, info = self.env.step(
            {"control_set": i, "x": self.queries[row]}
        )
        reward = 0.0
        if info.get("evaluated", False):
            if "privileged" not in info:
                raise ValueError(
                    "CandidateEnv's reward needs the env made with privileged_info=True"
                )
            g = float(info["privileged"]["g"])
            reward = max(g - self.best_g, 0.0) / self.scale
            self.best_g = max(self.best_g, g)
        self.features.update(obs, public_info(info))
        if not (terminated or truncated):
            self.rows, self.queries = self.features.rows()
        return self.rows, reward, terminated, truncated, info


def make_candidate_env(
    env_id: str, config: FeatureConfig | None = None, **kwargs: Any
) -> CandidateEnv:
    """``gymnasium.make(env_id, privileged_info=True, **kwargs)`` in a :class:`CandidateEnv`."""
    return CandidateEnv(gym.make(env_id, privileged_info=True, **kwargs), config)

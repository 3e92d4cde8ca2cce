"""Wrappers that turn a BOCVS environment into a flat ``Box``-in, ``Box``-out MDP for RL libraries.

Stable-Baselines3 (and most deep-RL code) wants one ``Box`` action and one ``Box`` observation.
:class:`FlatAction` exposes the Dict action of :class:`~bocvs_env.env.BOCVSEnv` as
``Box(-1, 1, (m + d,), float32)``; :class:`HistoryObservation` replaces the last-step Dict
observation by a flat vector of episode statistics (:class:`HistoryFeatures`) that gives a
memoryless policy enough history to act. :func:`make_sb3_env` applies both to a registered id.

The mappings are plain functions and a plain class, so that :class:`agents.policies.sb3.SB3Agent` runs a
trained policy through the exact same transforms inside :func:`~bocvs_env.evaluation.run_episode`.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bocvs_env.env import unwrap_bocvs
from bocvs_env.task import Task

#: Bound of the standardized ``y`` features (clipped, as ``VecNormalize`` clips).
Y_CLIP = 10.0
#: Bound of the ``log(1 + plays)`` features (reached after about 5e8 plays of one set).
LOG_PLAYS_MAX = 20.0


def flat_action_space(n_sets: int, dim: int) -> spaces.Box:
    """``Box(-1, 1, (n_sets + dim,), float32)``: set scores, then the query scaled to ``[-1, 1]``."""
    return spaces.Box(-1.0, 1.0, (n_sets + dim,), np.float32)


def flat_to_action(flat: np.ndarray, n_sets: int, dim: int) -> dict[str, Any]:
    """Map a flat action to the environment's Dict action.

    Args:
        flat: ``(n_sets + dim,)``; entries outside ``[-1, 1]`` are clipped.
        n_sets: the number of control sets ``m``.
        dim: the input dimension ``d``.

    Returns:
        ``{"control_set": argmax(flat[:m]) (int64), "x": (clip(flat[m:], -1, 1) + 1) / 2}``,
        ``x`` of shape ``(d,)``, float64 in ``[0, 1]`` (ties in the argmax go to the lower index).
    """
    a = np.asarray(flat, dtype=np.float64).reshape(-1)
    if a.shape != (n_sets + dim,):
        raise ValueError(f"a flat action has shape ({n_sets + dim},), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"the flat action contains NaN or infinite values: {a.tolist()}")
    x = np.clip((np.clip(a[n_sets:], -1.0, 1.0) + 1.0) / 2.0, 0.0, 1.0)
    return {"control_set": np.int64(np.argmax(a[:n_sets])), "x": x}


class FlatAction(gym.ActionWrapper):
    """Expose the action as one ``Box(-1, 1, (m + d,), float32)``.

    Layout: entries ``0 .. m-1`` are scores of the control sets, the played set is their argmax;
    entries ``m .. m+d-1`` are the query, mapped affinely from ``[-1, 1]`` to ``[0, 1]``
    (``x = (a + 1) / 2``). Entries of ``x`` outside the chosen set are ignored by the
    environment, as in the Dict action. See :func:`flat_to_action`.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        task: Task = unwrap_bocvs(env).task
        self._m, self._d = task.n_sets, task.dim
        self.action_space = flat_action_space(self._m, self._d)

    def action(self, action: np.ndarray) -> dict[str, Any]:
        return flat_to_action(action, self._m, self._d)


class HistoryFeatures:
    """Per-episode statistics of a BOCVS run as one flat float32 vector (public data only).

    ``y`` values are standardized by the free initial design: ``z = (y - mean) / std`` with the
    mean and (population) standard deviation of ``info["initial_y"]`` when it has at least two
    points and a positive spread, else ``z = y``; every ``z`` feature is clipped to
    ``[-10, 10]``. With ``m`` control sets and ``d`` inputs the vector has ``4m + 4 + 2d``
    entries, in this order:

    ============================  =======================================================  ==============
    slice                         meaning                                                  bounds
    ============================  =======================================================  ==============
    ``[0, m)``                    ``log(1 + plays)`` of each set this episode              ``[0, 20]``
    ``[m, 2m)``                   mean cost paid per set (0 if never played), cost units   ``[0, budget]``
    ``[2m, 3m)``                  mean standardized ``y`` per set (0 if never played)      ``[-10, 10]``
    ``[3m, 4m)``                  one-hot of the last set played (zeros before any play)   ``[0, 1]``
    ``4m``                        best standardized ``y`` seen, initial design included    ``[-10, 10]``
    ``4m + 1``                    standardized ``y`` of the last play (0 before any)       ``[-10, 10]``
    ``4m + 2``                    cost paid for the last play (0 before any)               ``[0, budget]``
    ``4m + 3``                    remaining budget as a fraction of the budget             ``[0, 1]``
    ``[4m + 4, 4m + 4 + d)``      the last full query ``x`` (0 before any play)            ``[0, 1]``
    ``[4m + 4 + d, 4m + 4 + 2d)`` the full query of the best ``y`` seen (0.5 if none)      ``[0, 1]``
    ============================  =======================================================  ==============

    Use: :meth:`reset` with the task and the reset ``info``, :meth:`update` after every step
    with its observation and ``info``, :meth:`vector` for the features. :attr:`best_z` is the
    best standardized ``y`` so far, meaningful once :attr:`seen` is true.
    """

    def __init__(self, task: Task) -> None:
        self.n_sets, self.dim, self.budget = task.n_sets, task.dim, float(task.budget)
        m, d = self.n_sets, self.dim
        b, z = self.budget, Y_CLIP
        low = np.concatenate(
            [np.zeros(2 * m), np.full(m, -z), np.zeros(m), [-z, -z, 0.0, 0.0], np.zeros(2 * d)]
        )
        high_parts = [np.full(m, LOG_PLAYS_MAX), np.full(m, b), np.full(m, z), np.ones(m)]
        high = np.concatenate([*high_parts, [z, z, b, 1.0], np.ones(2 * d)])
        self.space = spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)
        self.reset({})

    def reset(self, info: dict[str, Any]) -> None:
        """Start an episode from the reset ``info`` (uses ``initial_x`` and ``initial_y``)."""
        m, d = self.n_sets, self.dim
        y0 = np.asarray(info.get("initial_y", np.zeros(0)), dtype=np.float64).reshape(-1)
        X0 = np.asarray(info.get("initial_x", np.zeros((0, d))), dtype=np.float64).reshape(-1, d)
        spread = float(y0.std()) if y0.size >= 2 else 0.0
        self.y_mean, self.y_std = (float(y0.mean()), spread) if spread > 1e-12 else (0.0, 1.0)
        self.plays = np.zeros(m, dtype=np.int64)
        self.cost_sums = np.zeros(m)
        self.z_sums = np.zeros(m)
        self.last_set = -1
        self.last_z = 0.0
        self.last_cost = 0.0
        self.remaining = self.budget
        self.last_x = np.zeros(d)
        if y0.size:
            k = int(np.argmax(y0))
            self.best_z, self.best_x = self._z(float(y0[k])), X0[k].copy()
        else:
            self.best_z, self.best_x = 0.0, np.full(d, 0.5)
        self.seen = bool(y0.size)

    def _z(self, y: float) -> float:
        return float(np.clip((y - self.y_mean) / self.y_std, -Y_CLIP, Y_CLIP))

    def update(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Account for one step (ignored unless ``info["evaluated"]``)."""
        if not info.get("evaluated", False):
            return
        i = int(observation["control_set"])
        z = self._z(float(observation["y"][0]))
        cost = float(observation["cost"][0])
        self.plays[i] += 1
        self.cost_sums[i] += cost
        self.z_sums[i] += z
        self.last_set, self.last_z, self.last_cost = i, z, cost
        self.remaining = float(observation["remaining_budget"][0])
        self.last_x = np.asarray(observation["x"], dtype=np.float64).copy()
        if not self.seen or z > self.best_z:
            self.best_z, self.best_x, self.seen = z, self.last_x.copy(), True

    def vector(self) -> np.ndarray:
        """The features, shape ``(4m + 4 + 2d,)``, float32, inside :attr:`space`."""
        played = np.maximum(self.plays, 1)
        one_hot = np.zeros(self.n_sets)
        if self.last_set >= 0:
            one_hot[self.last_set] = 1.0
        vec = np.concatenate(
            [
                np.minimum(np.log1p(self.plays), LOG_PLAYS_MAX),
                self.cost_sums / played,
                self.z_sums / played,
                one_hot,
                [self.best_z, self.last_z, self.last_cost],
                [min(max(self.remaining / self.budget, 0.0), 1.0)],
                self.last_x,
                self.best_x,
            ]
        )
        return np.clip(vec.astype(np.float32), self.space.low, self.space.high)


#: Rewards :class:`HistoryObservation` can give.
REWARDS = ("y", "improvement")


class HistoryObservation(gym.Wrapper):
    """Replace the Dict observation by :class:`HistoryFeatures` (a flat float32 ``Box``).

    ``terminated``, ``truncated`` and ``info`` pass through unchanged. The features are computed
    from public data only (the observations and the reset's initial design).

    Args:
        env: a BOCVS environment (possibly wrapped).
        reward: ``"y"`` passes the environment's reward through (the return is the sum of ``y``
            over the budget, which favours many cheap plays); ``"improvement"`` rewards the
            increase of the best standardized ``y`` seen (initial design included; 0 for the
            first play without one), so the return is how far the episode raised its best
            value: a simple-regret objective.
    """

    def __init__(self, env: gym.Env, reward: str = "y") -> None:
        super().__init__(env)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.reward = reward
        self.features = HistoryFeatures(unwrap_bocvs(env).task)
        self.observation_space = self.features.space

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        _, info = self.env.reset(seed=seed, options=options)
        self.features.reset(info)
        return self.features.vector(), info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        before = self.features.best_z if self.features.seen else None
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.features.update(obs, info)
        if self.reward == "improvement":
            reward = 0.0 if before is None else self.features.best_z - before
        return self.features.vector(), reward, terminated, truncated, info


def wrap_sb3(env: gym.Env, reward: str = "y") -> gym.Env:
    """Apply :class:`HistoryObservation` (with ``reward``) then :class:`FlatAction` (usable as
    SB3's ``make_vec_env(..., wrapper_class=wrap_sb3)``)."""
    return FlatAction(HistoryObservation(env, reward))


def make_sb3_env(env_id: str, reward: str = "y", **kwargs: Any) -> gym.Env:
    """``gymnasium.make(env_id, **kwargs)`` wrapped for SB3: flat ``Box`` action and observation,
    and the ``reward`` of :class:`HistoryObservation`.

    Example::

        from stable_baselines3 import PPO
        env = make_sb3_env("bocvs/Hartmann3-v1", cost_set="expensive", budget=10)
        PPO("MlpPolicy", env, seed=0).learn(2_000)
    """
    return wrap_sb3(gym.make(env_id, **kwargs), reward)

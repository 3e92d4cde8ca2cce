"""The training environment: BOCVS environments seen through :class:`CandidateFeatures`.

SB3's PPO takes a ``Box`` observation and a ``Discrete`` action. :class:`CandidateEnv` gives it
the ``N x F`` candidate rows of :mod:`agents.neural.features` (``N = m * n_candidates``) and
maps the action, a row index, to the environment's action: that row's control set and query.
Each episode plays one of several environments of the same control sets (other cost sets and
budgets: the training's task distribution, :func:`make_candidate_env`). It lives with the
agents because the features need the agents' GP surrogate (the environment package never
imports ``agents``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents.neural.features import CandidateFeatures, FeatureConfig
from agents.neural.privileged import SetValues
from bocvs_env.env import BOCVSEnv, public_info, unwrap_bocvs


def same_sets(envs: Sequence[gym.Env]) -> list[BOCVSEnv]:
    """The BOCVS environments under ``envs``, which must share their control sets."""
    bases = [unwrap_bocvs(e) for e in envs]
    if not bases:
        raise ValueError("CandidateEnv needs at least one environment, got none")
    sets = {tuple(b.task.control_sets) for b in bases}
    if len(sets) > 1:
        raise ValueError(f"the environments must share their control sets, got {sorted(sets)}")
    return bases


def setting_index(value: Any, n: int) -> int:
    """The reset option ``setting``: an index into the environments (``0 <= k < n``)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value < n:
        raise ValueError(f"setting must be an environment index in [0, {n}), got {value!r}")
    return int(value)


class CandidateEnv(gym.Env[np.ndarray, np.int64]):
    """Observation: the candidate rows; action: ``Discrete(N)``, the row to play.

    At each reset the episode's environment is drawn uniformly from ``envs`` (with this
    environment's generator, seeded by ``reset(seed=...)``); for environments that take a
    ``function_seed`` reset option (a problem family), a new function is drawn from the
    family's range every ``episodes_per_function`` episodes (and at every seeded reset), so
    that one function serves episodes of several cost sets and budgets and its construction
    is paid once. ``reset(options={"setting": k})`` plays ``envs[k]``; the other options (such
    as ``function_seed``) go to that environment's reset.

    The features see only public data: the reset and step ``info`` pass through
    :func:`bocvs_env.evaluation.public_info` before they reach them. The reward is the training
    signal MetaBO uses on its training functions, the true progress: the increase of the best
    expected value ``g_i(x)`` of the queries played (privileged,
    :class:`~agents.neural.privileged.SetValues`), counted from the mean ``y`` of the initial
    design and divided by its standard deviation (public; 0 and 1 without a design or spread),
    so that functions of different levels and scales weigh alike: an episode's return is its
    best ``g`` standardized by the initial design (0 if it never plays above the design's
    mean), and a high return is a low final simple regret.

    Args:
        envs: BOCVS environments (possibly wrapped) of the same control sets, or one.
        config: the features' settings.
        episodes_per_function: episodes played on one function of a family.
        max_evaluations: an episode is truncated after this many evaluations (``None``: only
            the budget ends it).
        value_samples: the samples of the random inputs behind the privileged ``g``
            (:class:`~agents.neural.privileged.SetValues`; ``None``: all 1024 of the recorded
            ``g``, 128: a close, 8 times cheaper estimate).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        envs: gym.Env | Sequence[gym.Env],
        config: FeatureConfig | None = None,
        episodes_per_function: int = 1,
        max_evaluations: int | None = None,
        value_samples: int | None = None,
    ) -> None:
        if episodes_per_function < 1 or (max_evaluations is not None and max_evaluations < 1):
            raise ValueError(
                f"episodes_per_function and max_evaluations must be >= 1, got "
                f"{episodes_per_function!r} and {max_evaluations!r}"
            )
        self.envs = [envs] if isinstance(envs, gym.Env) else list(envs)
        self.bases = same_sets(self.envs)
        self.config = config or FeatureConfig()
        self.episodes_per_function = episodes_per_function
        self.max_evaluations = max_evaluations
        self.features = CandidateFeatures(self.bases[0].task, self.config)
        self.observation_space = self.features.space
        self.action_space = spaces.Discrete(self.features.space.shape[0])
        self.env, self.base = self.envs[0], self.bases[0]
        self.task = self.base.task
        self._episodes = 0
        self._function_seed: int | None = None
        self.values = SetValues(value_samples)

    def _reset_options(self, seeded: bool) -> dict[str, Any]:
        """The drawn environment's reset options: a new or the current function seed."""
        if "function_seed" not in self.base.reset_options:
            return {}
        if (
            seeded
            or self._function_seed is None
            or self._episodes % self.episodes_per_function == 0
        ):
            lo, hi = getattr(self.base, "seed_range", (0, 2**31 - 1))
            self._function_seed = lo + int(self.np_random.integers(hi - lo))
        return {"function_seed": self._function_seed}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._episodes = 0
        options = dict(options or {})
        k = int(self.np_random.integers(len(self.envs)))
        k = setting_index(options.pop("setting", k), len(self.envs))
        self.env, self.base = self.envs[k], self.bases[k]
        self.task = self.base.task
        reset_options = {**self._reset_options(seed is not None), **options}
        self._episodes += 1
        _, info = self.env.reset(
            seed=int(self.np_random.integers(2**31 - 1)), options=reset_options
        )
        self.features = CandidateFeatures(self.task, self.config)
        self.features.reset(public_info(info), seed=int(self.np_random.integers(2**31 - 1)))
        y0 = np.asarray(info.get("initial_y", []), np.float64)
        spread = float(y0.std()) if y0.size > 1 else 0.0
        self.scale = spread if spread > 1e-12 else 1.0
        self.best_g = float(y0.mean()) if y0.size else 0.0
        #: The best ``g`` of the queries played this episode (units of ``f``; -inf before any).
        self.best_played = -np.inf
        self.rows, self.queries = self.features.rows()
        return self.rows, info

    def row_values(self, rows: np.ndarray) -> np.ndarray:
        """The privileged ``g`` of current candidate rows (indices, ``b``; units of ``f``),
        for a teacher at training time."""
        sets = self.features.set_of_row[rows]
        out = np.empty(sets.size)
        for i in np.unique(sets):
            out[sets == i] = self.values(self.base, int(i), self.queries[rows[sets == i]])
        return out

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        row = int(action)
        i = int(self.features.set_of_row[row])
        obs, _, terminated, truncated, info = self.env.step(
            {"control_set": i, "x": self.queries[row]}
        )
        reward = 0.0
        if info.get("evaluated", False):
            g = float(self.values(self.base, i, np.asarray(obs["x"], np.float64)[None])[0])
            reward = max(g - self.best_g, 0.0) / self.scale
            self.best_g = max(self.best_g, g)
            self.best_played = max(self.best_played, g)
        self.features.update(obs, public_info(info))
        cap = self.max_evaluations
        truncated = truncated or (cap is not None and int(self.features.plays.sum()) >= cap)
        if not (terminated or truncated):
            self.rows, self.queries = self.features.rows()
        return self.rows, reward, terminated, truncated, info


def make_candidate_env(
    env_id: str,
    config: FeatureConfig | None = None,
    cost_sets: Sequence[str] = (),
    budgets: Sequence[float] = (),
    episodes_per_function: int = 1,
    max_evaluations: int | None = None,
    value_samples: int | None = None,
    **kwargs: Any,
) -> CandidateEnv:
    """A :class:`CandidateEnv` of ``gymnasium.make(env_id, privileged_info=False, **kwargs)``,
    one environment per pair of ``cost_sets`` and ``budgets`` when given (the task
    distribution: each episode draws a pair uniformly), else the id's own or ``kwargs``'s."""
    costs: list[dict[str, Any]] = [{"cost_set": c} for c in cost_sets] or [{}]
    sizes: list[dict[str, Any]] = [{"budget": float(b)} for b in budgets] or [{}]
    pairs = [{**c, **b} for c in costs for b in sizes]
    envs = [gym.make(env_id, **{"privileged_info": False, **kwargs, **p}) for p in pairs]
    return CandidateEnv(envs, config, episodes_per_function, max_evaluations, value_samples)

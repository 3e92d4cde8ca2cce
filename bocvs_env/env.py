"""The BOCVS Gymnasium environment."""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces

from bocvs_env.actions import parse_action
from bocvs_env.budget import Ledger
from bocvs_env.checks import check_reset, flag
from bocvs_env.goal import GoalEvaluator, oracle_values
from bocvs_env.problems.distributions import InputDistribution
from bocvs_env.problems.problem import Problem
from bocvs_env.problems.registry import make_problem
from bocvs_env.task import Task

ObsType = dict[str, Any]
#: The finite stand-in for an unbounded observation (Gymnasium warns on infinite bounds).
_BIG = float(np.finfo(np.float64).max)
ActType = dict[str, Any]
#: The ``info`` entry of the values only the metrics may see (``{"g": g_{i_t}(x_t)}``).
PRIVILEGED_KEY = "privileged"


def public_info(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without the privileged entry, as an agent may see it."""
    return {k: v for k, v in info.items() if k != PRIVILEGED_KEY}


class EpisodeEndedError(RuntimeError):
    """Raised by :meth:`BOCVSEnv.step` after the episode has terminated."""


class BOCVSEnv(gym.Env[ObsType, ActType]):
    """Bayesian optimization with cost-varying variable subsets and unknown, random costs.

    ## Description
    A learner maximizes an expensive black-box ``f`` on ``[0, 1]^d`` (Hoang, Nguyen, Tran,
    AAAI 2025; Tay et al., NeurIPS 2023). Each step it picks one of ``m`` control sets and
    values for its variables; the environment draws the other variables from their known
    distributions, observes ``y = f(x) + N(0, noise_std^2)`` and charges a random cost whose
    mean the learner does not know. The episode ends when the budget cannot pay for a play.

    ## Action Space
    ``Dict(control_set=Discrete(m), x=Box(0, 1, (d,), float64))``. Entries of ``x`` outside the
    chosen set are ignored (they must still lie in ``[0, 1]``). ``control_set`` is one integer
    and ``x`` real numbers (floats or integers); booleans, strings, complex numbers and other
    keys are refused with a ``ValueError``.

    ## Observation Space
    ``Dict`` with

    * ``x``: ``Box(0, 1, (d,))``, the last full query, controlled and drawn parts together;
    * ``y``: ``Box(-max_float64, max_float64, (1,))``, its noisy observation (unbounded);
    * ``cost``: ``Box(0, budget, (1,))``, the cost paid for it (a paid cost fits the budget);
    * ``control_set``: ``Discrete(m + 1)``, the set played, ``0 .. m - 1`` as in the action,
      or ``m`` before any play ("no set played yet");
    * ``remaining_budget``: ``Box(0, budget, (1,))``, what is left to spend (Markov state).

    After reset, ``x``, ``y`` and ``cost`` are zero and ``control_set`` is ``m``.

    ## Rewards
    The observed ``y`` of an evaluated step (``f >= 0`` by construction) and 0 for the final,
    unevaluated step. In expectation the return is ``sum_t g_{i_t}(x_t)``, so maximizing it
    minimizes the paper's quality regret; the budget makes cheap sets buy more rounds.

    ## Episode End
    Terminated when a freshly drawn cost exceeds the remaining budget: that play is neither
    evaluated nor charged (``info["evaluated"] is False``), so the spend never exceeds the
    budget. The accounting is exact (:mod:`bocvs_env.budget`): a cost equal to what is left is
    paid, whatever the number of plays before it. There is no truncation. Stepping a terminated episode raises
    :class:`EpisodeEndedError`.

    ## Info
    ``cost_drawn`` (the cost drawn this step, paid only if evaluated), ``evaluated``, ``spent``,
    ``step`` (evaluations so far) and, on evaluated steps, under ``privileged``,
    ``{"g": g_i(x^i)}``, the noiseless expected value of the query, for metrics only (a fair
    agent never reads it; the final, unevaluated step has none). ``reset``'s info has ``spent``
    (0), ``step`` (0), ``initial_x`` (``n_initial x d``) and ``initial_y`` (``n_initial``), a
    free design of uniform, fully controlled points, the same for every agent given the seed.

    ## Arguments
    ``problem``: a :class:`Problem` or the name of a built-in one; with a name, the keywords of
    :func:`~bocvs_env.problems.registry.make_problem` (``cost_set``, ``variance``, ``budget``,
    ``noise_std``, ``cost_noise_std``, ``n_initial``, ``cost_model``, and the objective's
    options: ``data_dir``, ``cache``, ``function_seed``, ``lengthscale``, ``n_features``).
    ``privileged_info``: whether to compute ``info["privileged"]`` each step (a bool).
    ``render_mode``: ``"ansi"`` (returns a text summary) or ``"human"`` (prints it).

    ## Seeding
    ``reset(seed=s)`` seeds independent streams for the random inputs, the observation noise,
    each set's costs and the initial design, so the same seed and actions give the same
    trajectory, and two agents on one seed see the same cost sequence per set. A seed is an
    integer ``>= 0`` or ``None`` (not a bool); option keys beyond ``reset_options`` are refused.

    ## Version History
    * v1: the observation's ``control_set`` is ``Discrete(m + 1)`` with ``m`` for "no set played
      yet" (v0: ``Discrete(m + 1, start=-1)`` with ``-1``), so that libraries that support only
      start-0 ``Discrete`` spaces (Stable-Baselines3's ``MultiInputPolicy``) take the observation
      as is.
    * v0: initial version.
    """

    # gymnasium.Env declares ``metadata`` as an instance variable (so no ClassVar here), yet
    # gym.make reads it from the class: a class-level dict it is.
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012
    reset_options: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        problem: Problem | str = "hartmann6_12d",
        privileged_info: bool = True,
        render_mode: str | None = None,
        **problem_options: Any,
    ) -> None:
        if isinstance(problem, str):
            problem = make_problem(problem, **problem_options)
        elif problem_options:
            raise TypeError(f"options {sorted(problem_options)} need a problem name, not a Problem")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.problem = problem
        self.privileged_info = flag(privileged_info, "privileged_info")
        self.render_mode = render_mode
        d, m, budget = problem.dim, problem.n_sets, float(problem.budget)
        self.action_space = spaces.Dict(
            {
                "control_set": spaces.Discrete(m),
                "x": spaces.Box(0.0, 1.0, (d,), np.float64),
            }
        )
        self.observation_space = spaces.Dict(
            {
                "x": spaces.Box(0.0, 1.0, (d,), np.float64),
                "y": spaces.Box(-_BIG, _BIG, (1,), np.float64),
                "cost": spaces.Box(0.0, budget, (1,), np.float64),
                "control_set": spaces.Discrete(m + 1),
                "remaining_budget": spaces.Box(0.0, budget, (1,), np.float64),
            }
        )
        self._masks = np.zeros((m, d), dtype=bool)
        for i, s in enumerate(problem.control_sets):
            self._masks[i, list(s)] = True
        # Variables sharing one distribution are mapped by one vectorised inverse-CDF call.
        groups: dict[InputDistribution, list[int]] = {}
        for l, p in enumerate(problem.distributions):
            groups.setdefault(p, []).append(l)
        self._icdf_groups = [(p, np.array(idx)) for p, idx in groups.items()]
        self._started = False
        self._terminated = False
        self._ledger = Ledger(budget)
        self._steps = 0
        self._best_y = -np.inf
        self._obs = self._blank_observation()

    @property
    def task(self) -> Task:
        """The public task description (no ``f``, no cost means)."""
        return self.problem.task()

    @cached_property
    def goal(self) -> GoalEvaluator:
        """Privileged: the evaluator of ``g_i(x)`` (built on first use)."""
        return GoalEvaluator(self.problem)

    def oracle(self) -> np.ndarray:
        """Privileged: ``max_{x^i} g_i(x^i)`` per control set, shape ``(m,)`` (cached on disk)."""
        return oracle_values(self.goal)

    @property
    def remaining_budget(self) -> float:
        """The budget not yet spent, in cost units."""
        return self._ledger.remaining

    def _blank_observation(self) -> ObsType:
        return {
            "x": np.zeros(self.problem.dim),
            "y": np.zeros(1),
            "cost": np.zeros(1),
            "control_set": np.int64(self.problem.n_sets),  # no set played yet
            "remaining_budget": np.array([float(self.problem.budget)]),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        check_reset(seed, options, self.reset_options, type(self).__name__)
        super().reset(seed=seed)
        children = np.random.SeedSequence(
            [int(v) for v in self.np_random.integers(0, 2**32, size=4)]
        ).spawn(3 + self.problem.n_sets)
        self._input_rng, self._noise_rng, init_rng = (
            np.random.default_rng(c) for c in children[:3]
        )
        self._cost_rngs = [np.random.default_rng(c) for c in children[3:]]
        self._started, self._terminated = True, False
        self._ledger = Ledger(self.problem.budget)
        self._steps, self._best_y = 0, -np.inf
        self._obs = self._blank_observation()
        n0 = self.problem.n_initial
        X0 = init_rng.random((n0, self.problem.dim))
        y0 = self._evaluate(X0, init_rng)
        info = {"initial_x": X0, "initial_y": y0, "spent": 0.0, "step": 0}
        if self.render_mode == "human":
            self.render()
        return self._copy_obs(), info

    def _evaluate(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Noisy ``f`` at full queries ``X`` (``n x d``), returns ``(n,)``."""
        with torch.no_grad():
            f = self.problem.objective(torch.from_numpy(X)).numpy()
        return f + self.problem.noise_std * rng.standard_normal(X.shape[0])

    def _icdf(self, u: np.ndarray) -> np.ndarray:
        """Map uniforms ``u`` of shape ``(d,)`` through each variable's inverse CDF."""
        z = np.empty_like(u)
        for p, idx in self._icdf_groups:
            z[idx] = p.icdf(u[idx])
        return z

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._terminated:
            raise EpisodeEndedError("the episode has ended (budget spent); call reset() first")
        i, x = parse_action(action, self.problem.n_sets, self.problem.dim)
        cost = self.problem.cost_model.sample(i, self._cost_rngs[i])
        # Draw every variable's uniform each step, so the stream does not depend on the set.
        u = self._input_rng.random(self.problem.dim)
        if not self._ledger.fits(cost):
            self._terminated = True
            info: dict[str, Any] = {
                "cost_drawn": cost,
                "evaluated": False,
                "spent": self._ledger.spent,
                "step": self._steps,
            }
            if self.render_mode == "human":
                self.render()
            return self._copy_obs(), 0.0, True, False, info
        full = np.where(self._masks[i], x, self._icdf(u))
        y = float(self._evaluate(full[None], self._noise_rng)[0])
        self._ledger.pay(cost)
        self._steps += 1
        self._best_y = max(self._best_y, y)
        self._obs = {
            "x": full,
            "y": np.array([y]),
            "cost": np.array([cost]),
            "control_set": np.int64(i),
            "remaining_budget": np.array([self.remaining_budget]),
        }
        info = {
            "cost_drawn": cost,
            "evaluated": True,
            "spent": self._ledger.spent,
            "step": self._steps,
        }
        if self.privileged_info:
            info[PRIVILEGED_KEY] = {"g": self.goal.g_one(i, full)}
        if self.render_mode == "human":
            self.render()
        return self._copy_obs(), y, False, False, info

    def _copy_obs(self) -> ObsType:
        return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in self._obs.items()}

    def render(self) -> str | None:
        """A one-line text summary of the episode so far."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        o = self._obs
        text = (
            f"{self.problem.name}: step {self._steps}, spent {self._ledger.spent:.4g} of "
            f"{float(self.problem.budget):.4g}, last set {o['control_set']}, "
            f"y {float(o['y'][0]):.4g}, best y {self._best_y:.4g}"
            + (", ended" if self._terminated else "")
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text


def unwrap_bocvs(env: gym.Env) -> BOCVSEnv:
    """The :class:`BOCVSEnv` under ``env``'s wrappers (``env.unwrapped``, typed).

    Raises:
        TypeError: if the innermost environment is not a :class:`BOCVSEnv`.
    """
    base = env.unwrapped
    if not isinstance(base, BOCVSEnv):
        raise TypeError(f"expected a BOCVSEnv (possibly wrapped), got {type(base).__name__}")
    return base

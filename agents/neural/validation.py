"""Model selection for the neural acquisition on held-out training functions.

PPO's updates are noisy, and a policy that started as a good acquisition (the actor's prior,
:class:`~agents.neural.network.RowNetworks`) can get worse as it trains. :class:`KeepBest`
plays the deterministic policy (the agent's argmax) on a fixed set of validation functions,
function seeds of the family's training range that the training environments never draw,
before training and after every ``every`` steps, and keeps the weights with the highest mean
final best expected value: the lowest mean final simple regret on those functions, since a
function's ``g*`` is the same for every candidate model (no oracle is needed). The test
functions are never seen.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Sequence

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from agents.neural.network import RowPolicy, row_logits
from agents.neural.wrapper import CandidateEnv


def best_expected_value(policy: RowPolicy, env: CandidateEnv, seed: int) -> float:
    """The episode's final ``max(0, max_t g_t)`` (units of ``f``) when ``policy`` plays its
    highest logit on ``env`` reset with ``seed``; the simple regret is ``g*`` minus it."""
    rows, _ = env.reset(seed=seed)
    best, done = 0.0, False
    while not done:
        rows, _, terminated, truncated, info = env.step(int(np.argmax(row_logits(policy, rows))))
        if info.get("evaluated", False):
            best = max(best, float(info["privileged"]["g"]))
        done = terminated or truncated
    return best


def validation_score(policy: RowPolicy, envs: Sequence[CandidateEnv], n: int) -> float:
    """Mean of :func:`best_expected_value` over reset seeds ``0..n-1`` of every env (higher
    is better)."""
    return float(np.mean([best_expected_value(policy, e, s) for e in envs for s in range(n)]))


class KeepBest(BaseCallback):
    """Scores the policy on ``envs`` (:func:`validation_score`, ``n`` functions each) before
    training and whenever ``every`` more steps are done, and at the end of the training puts
    back the best-scoring weights (the earliest among ties).

    ``history``: ``(steps, score)`` of every validation, in order; ``best_steps``: the steps of
    the weights kept.
    """

    def __init__(self, envs: Sequence[CandidateEnv], n: int, every: int) -> None:
        super().__init__()
        if n < 1 or every < 1:
            raise ValueError(f"validation needs n >= 1 and every >= 1, got {n!r} and {every!r}")
        self.envs, self.n, self.every = list(envs), n, every
        self.history: list[tuple[int, float]] = []
        self.best_steps = 0
        self._best: dict[str, torch.Tensor] | None = None
        self._due = 0

    @property
    def policy(self) -> RowPolicy:
        return self.model.policy  # type: ignore[return-value]

    def _validate(self) -> None:
        score = validation_score(self.policy, self.envs, self.n)
        steps = self.num_timesteps
        self.history.append((steps, score))
        if self._best is None or score > max(s for _, s in self.history[:-1]):
            self._best = copy.deepcopy(self.policy.state_dict())
            self.best_steps = steps
        print(f"  validation at {steps} steps: mean best g {score:.4f} "
              f"(best so far at {self.best_steps})", file=sys.stderr, flush=True)  # fmt: skip
        self._due = steps + self.every

    def _on_training_start(self) -> None:
        self._validate()

    def _on_rollout_start(self) -> None:
        # Called after each update (and once before the first rollout, at step 0).
        if self.num_timesteps >= self._due:
            self._validate()

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        if self.history[-1][0] != self.num_timesteps:
            self._validate()
        assert self._best is not None
        self.policy.load_state_dict(self._best)

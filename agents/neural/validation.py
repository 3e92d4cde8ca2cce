"""Model selection for the neural acquisition on held-out training functions.

PPO's updates are noisy, and a policy that started as a good acquisition (the actor's prior,
:class:`~agents.neural.network.RowNetworks`) can get worse as it trains. :class:`KeepBest`
plays the deterministic policy (the agent's argmax) on a fixed set of validation functions,
function seeds of the family's training range that the training environments never draw,
each at every cost set and budget of the task distribution (so one function's construction
serves all its episodes), before training, after every imitation round and every ``every``
PPO steps, and keeps the weights with the highest mean final best expected value: the lowest
mean final simple regret on those episodes, since an episode's ``g*`` is the same for every
candidate model (no oracle is needed). The test functions are never seen.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from agents.neural.network import RowPolicy, row_logits
from agents.neural.wrapper import CandidateEnv


def best_expected_value(
    policy: RowPolicy, env: CandidateEnv, seed: int, options: dict[str, Any] | None = None
) -> float:
    """The episode's final ``max(0, max_t g_t)`` (units of ``f``) when ``policy`` plays its
    highest logit on ``env`` reset with ``seed`` and ``options``; the simple regret is ``g*``
    minus it."""
    rows, _ = env.reset(seed=seed, options=options)
    done = False
    while not done:
        rows, _, terminated, truncated, _ = env.step(int(np.argmax(row_logits(policy, rows))))
        done = terminated or truncated
    return max(env.best_played, 0.0)


def episodes(env: CandidateEnv, n: int) -> list[tuple[int, dict[str, Any]]]:
    """The validation episodes of ``env``: ``(seed, options)`` for each of ``n`` functions
    (the first ``n`` function seeds of a family's range; reset seeds ``0..n-1`` otherwise)
    played at each of ``env``'s settings (cost sets and budgets), function by function."""
    base = env.bases[0]
    family = "function_seed" in base.reset_options
    lo = getattr(base, "seed_range", (0, 0))[0]
    out = []
    for j in range(n):
        for k in range(len(env.envs)):
            options: dict[str, Any] = {
                "setting": k,
                **({"function_seed": lo + j} if family else {}),
            }
            out.append((j * len(env.envs) + k, options))
    return out


def validation_score(policy: RowPolicy, envs: Sequence[CandidateEnv], n: int) -> float:
    """Mean of :func:`best_expected_value` over the :func:`episodes` of every env (``n``
    functions each, every setting; higher is better)."""
    return float(
        np.mean([best_expected_value(policy, e, s, o) for e in envs for s, o in episodes(e, n)])
    )


class KeepBest(BaseCallback):
    """Scores the policy on ``envs`` (:func:`validation_score`, ``n`` functions each) before
    PPO trains and whenever ``every`` more of its steps are done, and at the end of the
    training puts back the best-scoring weights (the earliest among ties). :meth:`validate`
    also scores a policy between PPO's runs (the imitation phase); PPO's steps are counted
    from ``offset``, the steps played before it.

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
        self.offset = 0
        self._best: dict[str, torch.Tensor] | None = None
        self._due = 0

    def validate(self, policy: RowPolicy, steps: int) -> None:
        """Score ``policy`` after ``steps`` steps, and keep its weights if it is the best."""
        score = validation_score(policy, self.envs, self.n)
        self.history.append((steps, score))
        if self._best is None or score > max(s for _, s in self.history[:-1]):
            self._best = copy.deepcopy(policy.state_dict())
            self.best_steps = steps
        print(f"  validation at {steps} steps: mean best g {score:.4f} "
              f"(best so far at {self.best_steps})", file=sys.stderr, flush=True)  # fmt: skip
        self._due = steps + self.every

    def restore(self, policy: RowPolicy) -> None:
        """Put the best-scoring weights back into ``policy``."""
        assert self._best is not None
        policy.load_state_dict(self._best)

    def _validate(self) -> None:
        self.validate(self.model.policy, self.offset + self.num_timesteps)  # type: ignore[arg-type]

    def _on_training_start(self) -> None:
        self._validate()

    def _on_rollout_start(self) -> None:
        # Called after each update (and once before the first rollout, at step 0).
        if self.offset + self.num_timesteps >= self._due:
            self._validate()

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        if self.history[-1][0] != self.offset + self.num_timesteps:
            self._validate()
        self.restore(self.model.policy)  # type: ignore[arg-type]

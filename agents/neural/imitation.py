"""Imitation of a privileged teacher, the training's first phase (before PPO).

PPO from the UCB start on sparse regret rewards hardly moves the policy (NAP, Maraval et al.,
"End-to-End Meta-Bayesian Optimisation with Transformer Neural Processes", NeurIPS 2023, meet
the same difficulty and add a supervised loss). Here the supervised signal comes from a
teacher that sees what no agent can, at training time only: the true expected value ``g`` of
each set's UCB maximizer (:meth:`CandidateEnv.row_values`) and the sets' true mean costs. It
chooses the set: the UCB maximizer of the largest gain per unit cost, ``(g - best) / cost``
with ``best`` the reward's reference (:class:`~agents.neural.wrapper.CandidateEnv`), the
greedy rate of the reward; when none gains, the cheapest set's best. Choosing among the
sets' UCB maximizers rather than among all rows keeps the imitation learnable: which of the
shared pool's random candidates is truly best, the features cannot tell, while which set to
pay for they can (on 2 validation functions per family, at every setting, this teacher scored
a mean best ``g`` of 5.76 and 3.70 against 5.92 and 3.74 for the teacher over every row and
5.31 and 3.40 for the UCB start, on the GP samples and rotated Hartmann-3). The student learns it by DAgger (Ross et
al., AISTATS 2011): round ``r`` plays the teacher's row with probability ``mix ** r`` and
otherwise samples the student's softmax, every visited state is labelled with the teacher's
row, and the actor is fitted to all labels so far by cross-entropy, the critic to the
observed returns to go by squared error (so that PPO starts with a value function that
matches the actor). The student sees only its public features, so it learns what of the
teacher the features can tell.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional

from agents.neural.network import RowPolicy, row_logits
from agents.neural.wrapper import CandidateEnv


def teacher_row(env: CandidateEnv) -> int:
    """The teacher's row among ``env``'s current candidates (privileged): one set's UCB
    maximizer."""
    rows = env.features.ucb_rows
    g = env.row_values(rows)
    cost = np.asarray(env.base.problem.cost_model.means, np.float64)[env.features.set_of_row[rows]]
    gain = g - env.best_g
    if np.any(gain > 0):
        return int(rows[np.argmax(np.where(gain > 0, gain / cost, -np.inf))])
    return int(rows[np.argmax(np.where(cost == cost.min(), g, -np.inf))])


@dataclass(frozen=True)
class ImitationConfig:
    """DAgger's settings: ``rounds`` of ``steps`` environment steps (spread over the
    environments in turn), ``mix`` the teacher's share in round 0 (``mix ** r`` in round
    ``r``), ``epochs`` passes over the labels after each round in minibatches of
    ``batch_size``, Adam's ``learning_rate``, ``value_weight`` the critic loss's weight."""

    rounds: int = 4
    steps: int = 2_048
    mix: float = 0.5
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_weight: float = 0.5

    def __post_init__(self) -> None:
        if self.rounds < 0 or self.steps < 1 or self.epochs < 1 or self.batch_size < 1:
            raise ValueError(f"imitation needs rounds >= 0 and positive sizes, got {self!r}")
        if not 0.0 <= self.mix <= 1.0:
            raise ValueError(f"mix must lie in [0, 1], got {self.mix!r}")


class Labels:
    """The states visited (``N x F`` rows), the teacher's rows and the returns to go."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.labels: list[int] = []
        self.returns: list[float] = []

    def play(self, env: CandidateEnv, policy: RowPolicy, share: float, steps: int,
             rng: np.random.Generator) -> int:  # fmt: skip
        """Play whole episodes of ``env`` until ``steps`` steps are done (the last finishes);
        returns the steps played."""
        played = 0
        while played < steps:
            rows, _ = env.reset(seed=int(rng.integers(2**31 - 1)))
            rewards, done = [], False
            while not done:
                label = teacher_row(env)
                if rng.random() < share:
                    action = label
                else:
                    logits = row_logits(policy, rows)
                    p = np.exp(logits - logits.max())
                    action = int(rng.choice(p.size, p=p / p.sum()))
                self.rows.append(rows)
                self.labels.append(label)
                rows, reward, terminated, truncated, _ = env.step(action)
                rewards.append(float(reward))
                done = terminated or truncated
            self.returns += list(np.cumsum(rewards[::-1])[::-1])
            played += len(rewards)
        return played


def fit(policy: RowPolicy, labels: Labels, config: ImitationConfig, optimizer: torch.optim.Optimizer,
        rng: np.random.Generator) -> None:  # fmt: skip
    """``config.epochs`` passes of cross-entropy (actor) and squared error (critic)."""
    rows = torch.as_tensor(np.stack(labels.rows))
    targets = torch.as_tensor(labels.labels)
    returns = torch.as_tensor(labels.returns, dtype=torch.float32)
    for _ in range(config.epochs):
        order = torch.as_tensor(rng.permutation(len(targets)))
        for lo in range(0, len(order), config.batch_size):
            batch = order[lo : lo + config.batch_size]
            obs = rows[batch]
            loss = functional.cross_entropy(policy.logits(obs), targets[batch])
            values = policy.predict_values(obs).squeeze(-1)
            loss = loss + config.value_weight * functional.mse_loss(values, returns[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def imitate(
    policy: RowPolicy,
    envs: Sequence[CandidateEnv],
    config: ImitationConfig,
    seed: int,
    after_round: Callable[[int], None],
) -> int:
    """DAgger on ``envs`` (training functions); ``after_round(steps)`` is called with the
    steps played so far after every round (the training validates there). Returns the steps
    played."""
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate)
    labels, steps = Labels(), 0
    per_env = max(config.steps // len(envs), 1)
    for r in range(config.rounds):
        for env in envs:
            steps += labels.play(env, policy, config.mix**r, per_env, rng)
        policy.set_training_mode(True)
        fit(policy, labels, config, optimizer, rng)
        policy.set_training_mode(False)
        after_round(steps)
    return steps

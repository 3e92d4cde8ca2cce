"""The policy: one shared MLP scores every (control set, candidate) row; a softmax picks one.

As MetaBO's neural acquisition (Volpp et al., ICLR 2020), the actor applies one network to
each row of features independently, so the logits are a function of the row alone and
permuting the rows (sets or candidates) permutes the logits the same way: the policy does not
depend on the order of sets or candidates, and one network serves any number of rows. The
critic embeds each row with a second shared MLP and pools the embeddings (mean and max), also
order-invariant, before a linear value head.

In Stable-Baselines3 terms (its "custom policy" guide): the features extractor flattens the
``N x F`` observation, :class:`RowNetworks` is the ``mlp_extractor`` (its ``latent_pi`` is the
``N`` logits themselves) and :class:`RowPolicy` replaces the ``action_net`` (a dense layer
from all latents to all actions, which would mix rows) by the identity.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import Tensor, nn


def row_mlp(n_in: int, hidden: int, n_out: int) -> nn.Sequential:
    """``n_in -> hidden -> hidden -> n_out`` with tanh between, applied to the last axis."""
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
        nn.Linear(hidden, n_out),
    )  # fmt: skip


class RowNetworks(nn.Module):
    """The actor's row scorer and the critic's pooled row embedding.

    Args:
        n_rows: rows per observation ``N`` (``m * n_candidates``).
        n_features: features per row ``F``.
        hidden: width of both MLPs.
        prior_feature: a feature column added to each row's logit, times a learnable weight
            starting at ``prior_weight`` (``None``: none). With the ``ucb_gap`` column the
            untrained actor is GP-UCB over the candidates (a softmax of ``prior_weight`` times
            the UCB, its argmax the UCB maximizer), and training adapts it, rather than starting
            from a uniform policy.
        prior_weight: the weight's initial value.

    ``forward_actor``: ``batch x (N * F)`` -> ``batch x N`` logits; ``forward_critic``:
    ``batch x (N * F)`` -> ``batch x 2 hidden`` (mean and max of the row embeddings). Both take
    any number of rows ``N``; ``n_rows`` is the training environment's (SB3's latent size).
    """

    def __init__(
        self,
        n_rows: int,
        n_features: int,
        hidden: int = 64,
        prior_feature: int | None = None,
        prior_weight: float = 0.0,
    ) -> None:
        super().__init__()
        self.n_rows, self.n_features = n_rows, n_features
        self.actor = row_mlp(n_features, hidden, 1)
        self.prior_feature = prior_feature
        #: The learnable weight of the prior feature in each row's logit.
        self.prior_weight = nn.Parameter(torch.tensor(float(prior_weight)))
        self.critic = nn.Sequential(row_mlp(n_features, hidden, hidden), nn.Tanh())
        self.latent_dim_pi = n_rows
        self.latent_dim_vf = 2 * hidden

    @property
    def actor_output(self) -> nn.Linear:
        """The actor's output layer (one logit per row)."""
        return cast(nn.Linear, self.actor[-1])

    def _rows(self, features: Tensor) -> Tensor:
        # Any number of rows: the networks act on each row, so one model serves tasks with
        # other numbers of sets or candidates than it was trained on.
        return features.reshape(features.shape[0], -1, self.n_features)

    def forward_actor(self, features: Tensor) -> Tensor:
        rows = self._rows(features)
        logits = self.actor(rows).squeeze(-1)
        if self.prior_feature is None:
            return logits
        return logits + self.prior_weight * rows[..., self.prior_feature]

    def forward_critic(self, features: Tensor) -> Tensor:
        embedded = self.critic(self._rows(features))
        return torch.cat([embedded.mean(1), embedded.amax(1)], dim=-1)

    def forward(self, features: Tensor) -> tuple[Tensor, Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class RowPolicy(ActorCriticPolicy):
    """SB3's actor-critic with :class:`RowNetworks` and no dense ``action_net``.

    For a ``Box`` observation of shape ``(N, F)`` and a ``Discrete(N)`` action (what
    :class:`agents.neural.wrapper.CandidateEnv` gives). ``policy_kwargs``: ``hidden`` (64),
    ``prior_feature`` and ``prior_weight`` (:class:`RowNetworks`).
    The actor's output layer starts at zero, so the first policy is exactly the prior
    (``prior_weight`` times the prior feature; uniform over the rows without one) and PPO learns
    a residual to it.
    """

    def __init__(
        self,
        *args: Any,
        hidden: int = 64,
        prior_feature: int | None = None,
        prior_weight: float = 0.0,
        **kwargs: Any,
    ) -> None:
        self.hidden = hidden
        self.prior_feature = prior_feature
        self.prior_weight = prior_weight
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        n_rows, n_features = self.observation_space.shape  # type: ignore[misc]
        self.mlp_extractor = RowNetworks(  # type: ignore[assignment]
            n_rows, n_features, self.hidden, self.prior_feature, self.prior_weight
        )

    @property
    def rows(self) -> RowNetworks:
        """The row networks (SB3's ``mlp_extractor``)."""
        return cast(RowNetworks, self.mlp_extractor)

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        nn.init.zeros_(self.rows.actor_output.weight)
        nn.init.zeros_(self.rows.actor_output.bias)
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def logits(self, obs: Tensor) -> Tensor:
        """``batch x N`` logits of ``batch x N x F`` observations."""
        return self.rows.forward_actor(cast(Tensor, self.extract_features(obs)))

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {
            **super()._get_constructor_parameters(),
            "hidden": self.hidden,
            "prior_feature": self.prior_feature,
            "prior_weight": self.prior_weight,
        }


#: The training's default start (:class:`RowNetworks`' prior): the ``ucb_gap`` feature
#: (:data:`agents.neural.features.FEATURES`) with weight 1, GP-UCB over the candidates.
PRIOR_FEATURE = "ucb_gap"
PRIOR_WEIGHT = 1.0


def untrained_policy(
    n_features: int, prior_feature: int, prior_weight: float, hidden: int = 64, n_rows: int = 1
) -> RowPolicy:
    """A :class:`RowPolicy` as training starts it: the actor's MLP outputs exactly zero, so its
    logits are ``prior_weight`` times column ``prior_feature`` of each row (for any number of
    rows; ``n_rows`` only sizes its spaces). Built without touching torch's global generator
    (the hidden layers' random weights cannot change the output)."""
    box = spaces.Box(-np.inf, np.inf, (n_rows, n_features), np.float32)
    with torch.random.fork_rng(devices=[]):
        return RowPolicy(
            box,
            spaces.Discrete(n_rows),
            lambda _: 0.0,
            hidden=hidden,
            prior_feature=prior_feature,
            prior_weight=prior_weight,
        )


def row_logits(policy: RowPolicy, rows: np.ndarray) -> np.ndarray:
    """The policy's ``N`` logits for one ``N x F`` observation (no gradient)."""
    with torch.no_grad():
        obs = torch.as_tensor(rows, dtype=torch.float32)[None]
        return policy.logits(obs)[0].numpy()

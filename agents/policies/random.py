"""The random baseline: a uniformly random control set and uniformly random values."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Action, BaseAgent, Observation


class RandomAgent(BaseAgent):
    """Plays a uniformly random control set with uniform values in ``[0, 1]`` for its variables.

    Values of variables outside the set are drawn too (the environment ignores them), so the
    agent's random stream does not depend on which set it picked.
    """

    name = "random"

    def act(self, observation: Observation) -> Action:
        i = int(self.rng.integers(self.task.n_sets))
        x = self.rng.random(self.task.dim)
        return {"control_set": i, "x": x}

    def save_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Its state (:class:`~bocvs_env.agent_state.StatefulAgent`): the base bookkeeping and
        the generator's state; it keeps nothing else."""
        return self.bookkeeping_state()

    def load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Restore a state from :meth:`save_state` (after :meth:`reset`)."""
        self.load_bookkeeping_state(arrays, meta)

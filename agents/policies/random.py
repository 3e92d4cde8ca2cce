"""The random baseline: a uniformly random control set and uniformly random values."""

from __future__ import annotations

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

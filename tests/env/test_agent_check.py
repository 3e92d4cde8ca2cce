"""``bocvs_env.agent.check_agent``: a short episode that checks an agent's protocol and says
what to change."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bocvs_env.agent import AgentCheckError, check_agent


class SeededRandom:
    """Follows the protocol: a uniform set and query from a generator seeded in reset."""

    name = "seeded"

    def reset(self, task: Any, observation: Any, info: Any, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.task = task

    def act(self, observation: Any) -> dict[str, Any]:
        return {
            "control_set": int(self.rng.integers(self.task.n_sets)),
            "x": self.rng.uniform(size=self.task.dim),
        }

    def observe(self, *outcome: Any) -> None:
        pass

    def params(self) -> dict[str, Any]:
        return {"kind": "uniform"}


class Unseeded(SeededRandom):
    def reset(self, task: Any, observation: Any, info: Any, seed: int | None = None) -> None:
        super().reset(task, observation, info, None)


class OutOfRange(SeededRandom):
    def act(self, observation: Any) -> dict[str, Any]:
        return {"control_set": 0, "x": np.full(self.task.dim, 2.0)}


class WrongSet(SeededRandom):
    def act(self, observation: Any) -> dict[str, Any]:
        return {"control_set": self.task.n_sets, "x": np.zeros(self.task.dim)}


class OpaqueParams(SeededRandom):
    def params(self) -> dict[str, Any]:
        return {"model": object()}


class NoObserve:
    name = "no-observe"

    def reset(self, *args: Any, **kwargs: Any) -> None:
        pass

    def act(self, observation: Any) -> dict[str, Any]:
        return {"control_set": 0, "x": np.zeros(3)}


class RaisesInObserve(SeededRandom):
    def observe(self, *outcome: Any) -> None:
        raise KeyError("y")


def test_an_agent_that_follows_the_protocol_passes() -> None:
    check_agent(SeededRandom())
    check_agent(SeededRandom(), env_id="bocvs/Hartmann6in12D-v1", seed=3, cost_set="moderate")


@pytest.mark.parametrize(
    ("agent", "says"),
    [
        (NoObserve(), "lacks ['observe']"),
        (Unseeded(), "two episodes of seed 0 differ at step 1: draw every random number"),
        (OutOfRange(), "act() at step 1 returned an action outside the action space"),
        (WrongSet(), "unknown control set 7"),
        (OpaqueParams(), "params() must return a JSON-serializable dict"),
        (RaisesInObserve(), "observe() raised KeyError"),
    ],
)
def test_a_broken_agent_fails_with_advice_in_one_line(agent: Any, says: str) -> None:
    with pytest.raises(AgentCheckError, match=None) as err:
        check_agent(agent)
    assert says in str(err.value) and "\n" not in str(err.value)

"""Ask/tell: the evaluation loop of :func:`~bocvs_env.evaluation.run_episode` turned inside out.

``ask`` is the agent's ``act``; ``tell`` builds the observation the environment would have
built from what the operator measured, and calls the agent's ``observe``. The budget is kept
exactly as the environment keeps it (:class:`~bocvs_env.budget.Ledger`): an answer whose cost
exceeds what is left ends the experiment, unevaluated and uncharged, as the environment's final
step. Nothing here is stored: :class:`~bocvs_env.experiment.experiment.Experiment` journals
what this class computes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bocvs_env.actions import parse_action
from bocvs_env.agent import Agent
from bocvs_env.budget import Ledger
from bocvs_env.experiment.process import Process, agent_value, estimated_lower_bound


class TellError(ValueError):
    """An answer ``tell`` refuses; the message names the value. Nothing is stored."""


@dataclass(frozen=True)
class Suggestion:
    """What to run next.

    Attributes:
        number: the suggestion's number, from 1.
        control_set: the index of the set to control.
        x: the agent's query on ``[0, 1]``, shape ``(d,)`` (entries outside the set ignored).
        set_values: variable name -> the value to set, in its units.
        leave_random: the names of the variables to leave to chance and measure.
    """

    number: int
    control_set: int
    x: np.ndarray
    set_values: dict[str, float]
    leave_random: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    """What the operator told, checked.

    Attributes:
        number: the suggestion it answers.
        measured: the variables left to chance -> their measured values, in their units.
        y: the observed outcome.
        cost: the cost paid.
        evaluated: whether the budget paid for it (else the experiment ended with it).
    """

    number: int
    measured: dict[str, float]
    y: float
    cost: float
    evaluated: bool


def _finite(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TellError(f"{name} = {value!r}: must be a number")
    if not math.isfinite(float(value)):
        raise TellError(f"{name} = {value!r}: must be finite")
    return float(value)


class Loop:
    """One agent's ask/tell episode on a process, in memory.

    Args:
        process: the process (task, variables, reset).
        agent: the agent, built; it is reset here with ``seed``.
        seed: the agent's seed.
    """

    def __init__(self, process: Process, agent: Agent, seed: int) -> None:
        self.process, self.agent = process, agent
        self.task = process.task
        self.ledger = Ledger(self.task.budget)
        self.steps = 0
        self.done = False
        self.pending: Suggestion | None = None
        self.asked = 0
        self.lower_bound = process.lower_bound
        self.obs = process.reset_observation
        agent.reset(self.task, self.obs, process.reset_info, seed=seed)
        self._masks = np.zeros((self.task.n_sets, self.task.dim), dtype=bool)
        for i, s in enumerate(self.task.control_sets):
            self._masks[i, list(s)] = True

    def ask(self) -> Suggestion:
        """The pending suggestion, or the agent's next one.

        Raises:
            TellError: when the experiment is done.
        """
        if self.pending is not None:
            return self.pending
        if self.done:
            raise TellError("the experiment is done: its budget is spent")
        i, x = parse_action(self.agent.act(self.obs), self.task.n_sets, self.task.dim)
        return self.suggest(i, x)

    def suggest(self, i: int, x: np.ndarray) -> Suggestion:
        """Make set ``i`` and query ``x`` (shape ``(d,)``) the pending suggestion, without
        asking the agent: how a resumed loop follows the journal up to the agent's saved state.
        """
        chosen = self.task.control_sets[i]
        variables = self.process.variables
        self.asked += 1
        self.pending = Suggestion(
            number=self.asked,
            control_set=i,
            x=x,
            set_values={variables[l].name: float(variables[l].from_unit(x[l])) for l in chosen},
            leave_random=tuple(variables[l].name for l in self.task.free_variables(i)),
        )
        return self.pending

    def check(
        self, suggestion: Suggestion | int, measured: Mapping[str, Any], y: Any, cost: Any
    ) -> Answer:
        """The answer to the pending suggestion, checked (the loop is left as it was).

        Raises:
            TellError: when the experiment is done, no suggestion is pending, ``suggestion`` is
                not the pending one, a measured value is missing, extra or out of its bounds, or
                ``y`` or ``cost`` is not finite (or the cost is negative).
        """
        if self.done:
            raise TellError("the experiment is done: its budget is spent; nothing to tell")
        if self.pending is None:
            raise TellError("no suggestion is pending: ask first")
        number = suggestion if isinstance(suggestion, int) else suggestion.number
        if number != self.pending.number:
            raise TellError(f"suggestion {number!r} is not the pending one "
                            f"({self.pending.number}): answer the last suggestion asked")  # fmt: skip
        wanted = set(self.pending.leave_random)
        extra = sorted(set(measured) - wanted)
        if extra:
            raise TellError(f"measured {extra[0]!r}: not left to chance by this suggestion "
                            f"(measure {sorted(wanted)})")  # fmt: skip
        missing = sorted(wanted - set(measured))
        if missing:
            raise TellError(f"measured {missing[0]!r} is missing (measure {sorted(wanted)})")
        values = {}
        for var in self.process.variables:
            if var.name in wanted:
                value = _finite(measured[var.name], f"measured {var.name!r}")
                if not var.inside(value):
                    raise TellError(f"measured {var.name!r} = {measured[var.name]!r}: outside "
                                    f"its bounds [{var.low!r}, {var.high!r}]")  # fmt: skip
                values[var.name] = value
        y_value, cost_value = _finite(y, "y"), _finite(cost, "cost")
        if cost_value < 0:
            raise TellError(f"cost = {cost!r}: must be >= 0")
        evaluated = self.ledger.fits(cost_value)
        return Answer(number, values, y_value, cost_value, evaluated)

    def apply(self, answer: Answer, learn: bool = True) -> None:
        """Give ``answer`` (from :meth:`check`) to the agent as the environment's step (with
        ``learn=False`` only the loop's budget and observation follow it, for answers that a
        saved state of the agent already holds)."""
        assert self.pending is not None and answer.number == self.pending.number
        s, self.pending = self.pending, None
        action = {"control_set": s.control_set, "x": s.x}
        if not answer.evaluated:
            self.done = True
            info = {"cost_drawn": answer.cost, "evaluated": False,
                    "spent": self.ledger.spent, "step": self.steps}  # fmt: skip
            obs = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in self.obs.items()}
            self.obs = obs
            if learn:
                self.agent.observe(action, obs, 0.0, True, False, info)
            return
        free = np.zeros(self.task.dim)
        for l in self.task.free_variables(s.control_set):
            var = self.process.variables[l]
            free[l] = var.to_unit(answer.measured[var.name])
        full = np.where(self._masks[s.control_set], s.x, free)
        maximized = answer.y if self.process.maximize else -answer.y
        if self.lower_bound is None:
            self.lower_bound = estimated_lower_bound(maximized)
        value = agent_value(answer.y, self.process.maximize, self.lower_bound)
        self.ledger.pay(answer.cost)
        self.steps += 1
        self.obs = {
            "x": full,
            "y": np.array([value]),
            "cost": np.array([answer.cost]),
            "control_set": np.int64(s.control_set),
            "remaining_budget": np.array([self.ledger.remaining]),
        }
        info = {"cost_drawn": answer.cost, "evaluated": True,
                "spent": self.ledger.spent, "step": self.steps}  # fmt: skip
        if learn:
            self.agent.observe(action, self.obs, value, False, False, info)

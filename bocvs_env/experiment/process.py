"""What an experiment runs on: the task an agent is given, the variables in their units, the
reset observation, and how an answer's ``y`` becomes the value an agent maximizes.

A process comes from a problem file (:mod:`bocvs_env.experiment.problem_file`), or from a
built-in problem, for trying things: then its variables are ``x0 .. x{d-1}`` on ``[0, 1]`` and
the reset (the free initial design included) is the Gymnasium environment's with the
experiment's seed, so that ask/tell replays :func:`~bocvs_env.evaluation.run_episode`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bocvs_env.experiment.problem_file import ProblemFileError, parse_problem
from bocvs_env.experiment.variables import Variable
from bocvs_env.task import Task


@dataclass(frozen=True)
class ProblemSource:
    """A problem as the journal keeps it: a file's text and the files it names, or a built-in
    problem's name and options (data, never code).

    Attributes:
        kind: ``"file"`` or ``"builtin"``.
        name: the file's name, or the built-in problem's.
        text: the problem file's TOML text (``""`` for a built-in problem).
        attachments: the files the problem file names (CSV), path relative to it -> text.
        options: the keyword arguments of ``gymnasium.make`` for a built-in problem.
    """

    kind: str
    name: str
    text: str = ""
    attachments: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The source as JSON (keys sorted)."""
        return json.dumps(self.__dict__, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ProblemSource:
        """The inverse of :meth:`to_json`."""
        return cls(**json.loads(text))

    def digest(self) -> str:
        """The SHA-256 of :meth:`to_json`, the problem's identity."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()


def blank_observation(dim: int, n_sets: int, budget: float) -> dict[str, Any]:
    """The observation before any play, as :class:`~bocvs_env.env.BOCVSEnv` documents it."""
    return {
        "x": np.zeros(dim),
        "y": np.zeros(1),
        "cost": np.zeros(1),
        "control_set": np.int64(n_sets),
        "remaining_budget": np.array([float(budget)]),
    }


@dataclass
class Process:
    """A process ready to run.

    Attributes:
        task: the public task the agent is given.
        variables: the ``d`` variables, in the task's order.
        reset_observation: the observation an agent's episode starts from.
        reset_info: the reset's info (``initial_x`` ``n0 x d``, ``initial_y`` ``(n0,)``).
        maximize: whether larger ``y`` is better.
        lower_bound: a bound of the maximized value; ``None``: estimated from the first answer
            (:func:`agent_value`).
        agent_options: the process's settings for agents that take them (``alpha0``).
    """

    task: Task
    variables: tuple[Variable, ...]
    reset_observation: dict[str, Any]
    reset_info: dict[str, Any]
    maximize: bool = True
    lower_bound: float | None = 0.0
    agent_options: dict[str, Any] = field(default_factory=dict)


def estimated_lower_bound(first: float) -> float:
    """The lower bound when the problem file has none, from the first maximized value ``v1``:
    ``v1 - |v1|``, i.e. 0 when ``v1 >= 0`` (the paper's ``f >= 0``) and ``2 v1`` otherwise."""
    return first - abs(first)


def agent_value(y: float, maximize: bool, lower_bound: float) -> float:
    """The value an agent maximizes: ``y`` (or ``-y``) less the lower bound, so that it is
    ``>= 0`` as the paper's relative tolerance needs."""
    return (y if maximize else -y) - lower_bound


def _from_file(source: ProblemSource, seed: int) -> Process:
    def read(path: str) -> str:
        if path not in source.attachments:
            raise FileNotFoundError(2, "No such file", path)
        return source.attachments[path]

    spec = parse_problem(source.text, read, default_name=source.name.rsplit(".", 1)[0])
    task = Task(
        name=spec.name,
        dim=len(spec.variables),
        control_sets=spec.control_sets,
        distributions=spec.distributions,
        budget=spec.budget,
        n_initial=0,
    )
    empty = {"initial_x": np.zeros((0, task.dim)), "initial_y": np.zeros(0)}
    return Process(
        task=task,
        variables=spec.variables,
        reset_observation=blank_observation(task.dim, task.n_sets, task.budget),
        reset_info={**empty, "spent": 0.0, "step": 0},
        maximize=spec.maximize,
        lower_bound=spec.lower_bound,
        agent_options={} if spec.alpha is None else {"alpha0": spec.alpha},
    )


def builtin_env_id(name: str) -> str:
    """The Gymnasium id of built-in problem ``name``.

    Raises:
        ValueError: for an unknown name.
    """
    from bocvs_env.problems.registry import PROBLEMS
    from bocvs_env.registration import VERSION

    if name not in PROBLEMS:
        raise ValueError(f"problem {name!r} is neither a file nor a built-in problem "
                         f"({', '.join(sorted(PROBLEMS))})")  # fmt: skip
    return f"bocvs/{PROBLEMS[name].env_name}-v{VERSION}"


def _from_builtin(source: ProblemSource, seed: int) -> Process:
    import gymnasium as gym

    from bocvs_env.env import public_info

    env = gym.make(builtin_env_id(source.name), **source.options)
    try:
        obs, info = env.reset(seed=seed)
        task = env.unwrapped.task  # type: ignore[attr-defined]
    finally:
        env.close()
    return Process(
        task=task,
        variables=tuple(Variable(f"x{k}", 0.0, 1.0) for k in range(task.dim)),
        reset_observation=obs,
        reset_info=public_info(info),
    )


def build_process(source: ProblemSource, seed: int) -> Process:
    """The process of ``source`` for an experiment of ``seed``.

    Raises:
        ProblemFileError: for a mistake in a problem file.
        ValueError: for an unknown built-in problem or a bad option.
    """
    if source.kind == "file":
        return _from_file(source, seed)
    if source.kind == "builtin":
        return _from_builtin(source, seed)
    raise ProblemFileError(f"problem kind {source.kind!r} is neither 'file' nor 'builtin'")

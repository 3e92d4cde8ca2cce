"""The Agent protocol: the contract between a learner and the evaluation loop.

It lives on the environment side, as ``gymnasium.Env`` lives in Gymnasium: the loop
(:func:`bocvs_env.evaluation.run_episode`) and the benchmark harness depend on this contract,
never on a particular agent. One loop serves every learner::

    obs, info = env.reset(seed=seed)
    agent.reset(env.unwrapped.task, obs, info, seed=seed)
    while True:
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, reward, terminated, truncated, info)
        if terminated or truncated:
            break

In :func:`~bocvs_env.evaluation.run_episode` (and so in the benchmark) ``info`` never carries
the privileged ``"privileged"`` entry when it reaches an agent; a loop of your own, as above,
should drop it too.

Agents are named to the harness through the ``bocvs.agents`` entry-point group or as
``"module:Class"`` (:mod:`bocvs_env.agent_registration`). A class may declare, as optional
class attributes read by the registration and the harness:

- ``required_params``: keyword arguments it cannot be built without (a trained model's path);
- ``privileged_params``: privileged knowledge of the problem it must be given, by name (only
  ``"costs"``, the true mean costs, as UCB-CVS assumes them known); the benchmark harness grants
  these from the problem;
- ``file_params``: keyword arguments that name a file it loads as code (a saved model that
  unpickles); the harness loads such a file from a record (``bocvs verify``, a resumed sweep)
  only from the agent's own package or a path the user names (``--allow-model``).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from bocvs_env.task import Task

#: An observation of :class:`~bocvs_env.env.BOCVSEnv` (its ``observation_space`` documents the
#: keys).
Observation = dict[str, Any]
#: ``{"control_set": int, "x": ndarray of shape (d,)}``.
Action = dict[str, Any]


@runtime_checkable
class Agent(Protocol):
    """Anything with these four members can be run, benchmarked and compared."""

    name: str

    def reset(
        self, task: Task, observation: Observation, info: dict[str, Any], seed: int | None = None
    ) -> None:
        """Start an episode: the public task, the reset observation and info (with the free
        initial design ``initial_x``, ``initial_y``) and a seed for the agent's own randomness."""

    def act(self, observation: Observation) -> Action:
        """Return ``{"control_set": int, "x": ndarray of shape (d,)}`` for the next step."""

    def observe(
        self,
        action: Action,
        observation: Observation,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        """Learn from the step's outcome (``info["evaluated"]`` says whether it was played)."""


class AgentCheckError(ValueError):
    """An agent breaks the protocol of :class:`Agent`; the message says what to change."""


#: The members every agent has (:class:`Agent`).
MEMBERS = ("name", "reset", "act", "observe")


def check_agent(
    agent: Any, env_id: str = "bocvs/Hartmann3-v1", seed: int = 0, steps: int = 5, **env_kwargs: Any
) -> None:
    """Check that ``agent`` follows the :class:`Agent` protocol, in the spirit of
    Stable-Baselines3's ``check_env``: on a short episode of ``env_id`` (its first ``steps``
    steps) it checks the four members, that every action lies in the action space (a dict of
    a control-set index and a query ``x`` of shape ``(d,)`` in ``[0, 1]``), that the same seed
    gives the same actions (the episode is played twice, the agent reset with the seed each
    time), and that ``params()``, if the agent has it, returns a JSON-serializable dict (the
    benchmark records it with every run).

    Args:
        agent: the agent, built.
        env_id: a registered id (``bocvs_env.ENV_IDS``).
        seed: the seed of both episodes.
        steps: steps of each episode at most (it also ends when the budget is spent).
        **env_kwargs: keyword arguments of ``gymnasium.make`` (``cost_set``, ``budget``, ...).

    Raises:
        AgentCheckError: naming the first problem found and what to change, in one line.
    """
    import gymnasium as gym

    name = getattr(agent, "name", type(agent).__name__)
    _check_members(agent, name)
    env = gym.make(env_id, **env_kwargs)
    try:
        first = _played(agent, env, seed, steps)
        again = _played(agent, env, seed, steps)
    finally:
        env.close()
    if first != again:
        step = next(k for k, (a, b) in enumerate(zip(first, again, strict=False), 1) if a != b)
        raise AgentCheckError(
            f"agent {name!r}: two episodes of seed {seed} differ at step {step}: draw every "
            "random number from a generator seeded in reset (np.random.default_rng(seed)) and "
            "reset all state there, so that a seed gives one record"
        )
    _check_params(agent, name)


def _check_members(agent: Any, name: str) -> None:
    """Raise :class:`AgentCheckError` unless ``agent`` has the :data:`MEMBERS`, a str ``name``
    and callable methods."""
    missing = [m for m in MEMBERS if not hasattr(agent, m)]
    if missing:
        raise AgentCheckError(
            f"agent {name!r} lacks {missing}: an agent has a str attribute name and the methods "
            "reset, act and observe (bocvs_env.agent.Agent)"
        )
    if not isinstance(agent.name, str):
        raise AgentCheckError(
            f"agent {name!r}: name must be a str, got {type(agent.name).__name__}"
        )
    not_callable = [m for m in MEMBERS[1:] if not callable(getattr(agent, m))]
    if not_callable:
        raise AgentCheckError(f"agent {name!r}: {not_callable} must be methods")


def _check_params(agent: Any, name: str) -> None:
    """Raise :class:`AgentCheckError` if ``agent`` has a ``params()`` that fails or does not
    return a JSON-serializable dict."""
    import json

    params = getattr(agent, "params", None)
    if params is None:
        return
    try:
        value = params()
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise AgentCheckError(
            f"agent {name!r}: params() must return a JSON-serializable dict of its "
            f"settings ({type(err).__name__}: {err})"
        ) from err
    if not isinstance(value, dict):
        raise AgentCheckError(
            f"agent {name!r}: params() must return a dict, got {type(value).__name__}"
        )


def _played(agent: Any, env: Any, seed: int, steps: int) -> list[tuple[int, list[float]]]:
    """The actions ``agent`` plays in the first ``steps`` steps of an episode of ``env``,
    each checked against the action space.

    Raises:
        AgentCheckError: when a member raises or an action is malformed.
    """
    from bocvs_env.actions import parse_action
    from bocvs_env.env import public_info

    task = env.unwrapped.task
    name = agent.name

    def call(member: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(agent, member)(*args, **kwargs)
        except Exception as err:  # the agent's own code: any error is a finding
            raise AgentCheckError(
                f"agent {name!r}: {member}() raised {type(err).__name__}: {err} (see "
                f"bocvs_env.agent.Agent.{member} for its arguments)"
            ) from err

    obs, info = env.reset(seed=seed)
    call("reset", task, obs, public_info(info), seed=seed)
    played = []
    for step in range(1, steps + 1):
        action = call("act", obs)
        try:
            control_set, x = parse_action(action, task.n_sets, task.dim)
        except ValueError as err:
            raise AgentCheckError(
                f"agent {name!r}: act() at step {step} returned an action outside the action "
                f"space ({err}); return {{'control_set': int, 'x': ndarray of shape "
                f"({task.dim},) in [0, 1]}}"
            ) from err
        played.append((control_set, x.tolist()))
        obs, reward, terminated, truncated, info = env.step(action)
        call("observe", action, obs, float(reward), terminated, truncated, public_info(info))
        if terminated or truncated:
            break
    return played

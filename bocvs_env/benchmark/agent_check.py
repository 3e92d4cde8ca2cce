"""The startup check of an outside agent (:func:`bocvs_env.agent.check_agent`), in a process of
its own with a time limit: an agent that hangs in it is killed, and the sweep refuses to start
with one line, rather than hang before its first run. What the agent prints goes to stderr,
never among ``bocvs run``'s results on stdout.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
from typing import Any

from bocvs_env.benchmark.config import RunConfig

#: Seconds the startup check of one outside agent may take (it plays two episodes of at most
#: five steps; a few seconds for an agent of the paper's kind, with the process's imports).
CHECK_TIMEOUT = 300.0


def _check_child(config: dict[str, Any], env_id: str, conn: Any) -> None:
    """In the check's process: stdout onto stderr, build the agent of ``config`` as a run
    would and check it on ``env_id``; send ``None``, or the one-line reason it failed."""
    os.dup2(2, 1)
    from bocvs_env.agent import check_agent
    from bocvs_env.agent_registration import make_agent
    from bocvs_env.benchmark.runner import agent_arguments
    from bocvs_env.env import BOCVSEnv

    run = RunConfig.from_dict(config)
    try:
        kwargs = run.env_kwargs()
        kwargs.pop("problem")
        env = BOCVSEnv(**run.env_kwargs(), privileged_info=False)
        built = make_agent(run.agent, **agent_arguments(run, env))
        check_agent(built, env_id=env_id, seed=run.seed, **kwargs)
    except Exception as err:  # the agent's own errors, reported as the check's
        conn.send(" ".join(str(err).split()) or type(err).__name__)
    else:
        conn.send(None)


def check_within(config: RunConfig, env_id: str, timeout: float = CHECK_TIMEOUT) -> str | None:
    """Check the agent of ``config`` on a short episode of ``env_id`` (the run's setting) in a
    ``spawn`` process of its own, killed after ``timeout`` seconds.

    Returns:
        ``None`` if the agent passed, else the one-line reason (a hang included).
    """
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_check_child, args=(config.to_dict(), env_id, theirs))
    child.start()
    theirs.close()
    try:
        if not ours.poll(timeout):
            return (
                f"agent {config.agent!r}: its startup check (two episodes of five steps) did "
                f"not end within {timeout:g} s and was killed; does the agent hang?"
            )
        with contextlib.suppress(EOFError):  # the process died without a word
            return ours.recv()  # type: ignore[no-any-return]
        child.join()
        return f"agent {config.agent!r}: its startup check's process died (exit {child.exitcode})"
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        ours.close()

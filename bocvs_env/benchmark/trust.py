"""What a record may make the harness build: agents and model files the user allowed.

A published folder, a store and the sweeps recorded in them are data: passing them around must
never run code. Rebuilding a recorded run imports its agent's class and, for an agent that
loads a saved model (``neural-af``, ``sb3``: Stable-Baselines3 zips, which hold pickles), loads
that file, and both run code. So every path that rebuilds an agent from a record (``bocvs
verify``, ``bocvs run --store S --sweep NAME``) first checks the record against
:class:`Allowed`:

- an agent is built if it is registered through the ``bocvs.agents`` entry points (installed
  code, trusted as any installed package is), or if the user names its ``module:Class`` on the
  command line (``--allow-agent``, or ``--agents``);
- a file an agent's class lists in its ``file_params`` (:func:`file_params`) is loaded if it
  lies in the folder of the agent's own package (the models shipped with its code, as trusted as
  the code) or is a file, or lies in a folder, named on the command line (``--allow-model``).

Anything else is refused with one line naming the run, before any run starts. Sweep config
files and flags are the user's own input, not records, and are not checked.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bocvs_env.agent_registration import agent_class, base_name, file_params, is_import_path

if TYPE_CHECKING:
    from bocvs_env.benchmark.config import RunConfig, SweepConfig


@dataclass(frozen=True)
class Allowed:
    """What the user allowed on the command line, beyond the registered agents.

    Attributes:
        agents: import paths ``"module:Class"`` (variant labels left out).
        models: files, or folders of files, that recorded parameters may name (resolved).
    """

    agents: frozenset[str] = frozenset()
    models: tuple[Path, ...] = ()

    @classmethod
    def of(cls, agents: Iterable[str] = (), models: Iterable[str | Path] = ()) -> Allowed:
        """From the command line's names: agents (registered names are ignored, as they need
        no allowing) and model paths (resolved against the working directory)."""
        paths = tuple(Path(m).resolve() for m in models)
        return cls(frozenset(b for b in map(base_name, agents) if is_import_path(b)), paths)


def _shipped_folder(cls: Any) -> Path | None:
    """The folder of the package that defines ``cls`` (the files shipped with its code), or
    ``None`` for a class of a top-level module (whose folder holds anything)."""
    module = sys.modules.get(getattr(cls, "__module__", ""))
    package = getattr(module, "__package__", None)
    if not package:
        return None
    spec = importlib.util.find_spec(package)
    origin = spec.origin if spec is not None else None
    return Path(origin).resolve().parent if origin else None


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_recorded_agent(
    agent: str, params: Mapping[str, Any], where: str, allowed: Allowed
) -> None:
    """Refuse to rebuild a recorded agent the user has not allowed (see the module docstring).

    Args:
        agent: the recorded agent name (a registered name or ``"module:Class"``, maybe with a
            variant label).
        params: its recorded parameters.
        where: what the error names first: the run or the sweep.
        allowed: what the command line allows.

    Raises:
        ValueError: one line naming ``where``, the agent or the parameter, and the flag that
            would allow it.
    """
    base = base_name(agent)
    if is_import_path(base) and base not in allowed.agents:
        raise ValueError(
            f"{where}: refusing agent {agent!r}: a record names it by import path, and a record "
            f"never imports code; to run it, name it on the command line: --allow-agent {base}"
        )
    cls = agent_class(agent)  # registered or allowed: its import may run
    shipped = _shipped_folder(cls)
    for name in file_params(cls):
        value = params.get(name)
        if value is None:
            continue
        path = Path(str(value)).resolve()
        if shipped is not None and _inside(path, shipped):
            continue
        if any(_inside(path, p) for p in allowed.models):
            continue
        raise ValueError(
            f"{where}: refusing agent {agent!r}'s {name}={str(value)!r}: loading a model file "
            f"runs code (SB3 model files are pickles), and a record may name only the models "
            f"shipped with the agent; to load it, name it on the command line: "
            f"--allow-model {value}"
        )


def check_recorded_sweep(sweep: SweepConfig, allowed: Allowed) -> None:
    """:func:`check_recorded_agent` for every agent of a sweep read from a store or folder."""
    for agent in sweep.agents:
        params = sweep.agent_params.get(agent, {})
        check_recorded_agent(agent, params, f"sweep {sweep.name!r}", allowed)


def check_recorded_runs(configs: Iterable[RunConfig], allowed: Allowed) -> None:
    """:func:`check_recorded_agent` for every run of a store or folder about to be rerun."""
    for config in configs:
        where = f"run {config.label()}"
        check_recorded_agent(config.agent, config.agent_params, where, allowed)


def add_allow_options(parser: argparse.ArgumentParser) -> None:
    """The command line's ``--allow-agent`` and ``--allow-model`` (repeatable)."""
    parser.add_argument(
        "--allow-agent", action="append", default=[], metavar="MODULE:CLASS", type=_allow_agent,
        help="build this agent where a store or published folder names it by import path "
        "(a record never imports code by itself; repeatable; --agents MODULE:CLASS allows it "
        "too)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-model", action="append", default=[], metavar="PATH", type=Path,
        help="load this model file, or any file in this folder, where a recorded agent's "
        "parameters name it (else only the models shipped with the agent load; repeatable). "
        "A saved SB3 model, as neural-af and sb3 load, is a pickle: loading one runs code "
        "from it, so allow only files from a source you trust",
    )  # fmt: skip


def allowed_by(args: argparse.Namespace) -> Allowed:
    """What ``--allow-agent``, ``--agents`` and ``--allow-model`` allow."""
    return Allowed.of([*args.allow_agent, *(args.agents or [])], args.allow_model)


def _allow_agent(text: str) -> str:
    """``--allow-agent``'s argument: an import path ``module:Class``."""
    module, colon, attr = text.partition(":")
    if not (colon and module and attr):
        raise argparse.ArgumentTypeError(f"expected an import path module:Class, got {text!r}")
    return text

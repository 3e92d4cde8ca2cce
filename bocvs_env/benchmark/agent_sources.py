"""The source of an outside agent, recorded with its runs so that an edited agent never gets its
old results back in silence.

A run's key digests its configuration, the agent's name among it, not the agent's code. The
built-in agents' code is covered by the code version every run records (the commit,
:mod:`bocvs_env.benchmark.versions`); an agent named by its import path ``"module:Class"`` is
the user's own code, which a researcher edits between two identical ``bocvs run`` commands. Its
runs record the sha256 of the file of the module that defines it (:func:`agent_source`, in the
run's provenance as ``agent_source``), and before a sweep resumes, :func:`check_agent_sources`
refuses, in one line saying how to go on, when that file changed since its stored runs were
made. Only that file is digested: an edit in another module it imports goes unseen.

A run recorded without the digest (before the harness recorded it) is not checked.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from bocvs_env.agent_registration import base_name, is_import_path
from bocvs_env.benchmark.config import SweepConfig

#: The provenance field that holds an outside agent's source.
SOURCE_FIELD = "agent_source"


class HasProvenances(Protocol):
    """What :func:`check_agent_sources` reads: a result store."""

    def provenances(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]: ...


def agent_source(agent: str) -> dict[str, str] | None:
    """The source of agent ``agent`` if it is named by its import path: ``{"agent": agent,
    "file": path of the defining module, "sha256": digest of its bytes}``; ``None`` for a
    registered name, or a module without a file.

    Raises:
        ValueError: if the module cannot be found.
    """
    base = base_name(agent)
    if not is_import_path(base):
        return None
    module = base.partition(":")[0]
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as err:
        raise ValueError(f"agent {agent!r}: cannot find module {module!r} ({err})") from err
    if spec is None:
        raise ValueError(f"agent {agent!r}: cannot find module {module!r}")
    if spec.origin is None or not Path(spec.origin).is_file():
        return None
    digest = hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()
    return {"agent": agent, "file": spec.origin, "sha256": digest}


def check_agent_sources(sweep: SweepConfig, store: HasProvenances) -> None:
    """Refuse to resume a sweep's runs of an outside agent whose module changed since they were
    stored in ``store``.

    Raises:
        ValueError: in one line, naming the agent, its file, how many stored runs another
            version of it made and what to do.
    """
    now = {a: s for a in set(sweep.agents) if (s := agent_source(a)) is not None}
    if not now:
        return
    provenances = store.provenances(c.key() for c in sweep.runs() if c.agent in now)
    stale: dict[str, int] = {}
    for provenance in provenances:
        then = provenance.get(SOURCE_FIELD)
        if isinstance(then, Mapping) and then.get("agent") in now:
            agent = str(then["agent"])
            if then.get("sha256") != now[agent]["sha256"]:
                stale[agent] = stale.get(agent, 0) + 1
    if stale:
        agent, n = min(stale.items())
        raise ValueError(
            f"agent {agent!r}: {now[agent]['file']} changed since {n} of its stored runs were "
            f"made (sha256 now {now[agent]['sha256'][:12]}), and they would be reused as they "
            f"are: run the edited agent into a fresh --store, or name it apart with a new "
            f"variant label (--agents {base_name(agent)}@NEW); its old runs stay in the store"
        )

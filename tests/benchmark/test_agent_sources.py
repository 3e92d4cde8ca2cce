"""An outside agent (``module:Class``) edited between two identical ``bocvs run`` commands never
gets its old results back in silence: its runs record its module's digest, and a changed module
stops the second command in one line saying why and how to go on."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from test_third_party_agents import RUN, outside_module

from bocvs_env.benchmark.agent_sources import SOURCE_FIELD, agent_source
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.store import ResultStore


def test_an_edited_outside_agent_is_refused_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = outside_module(tmp_path / "elsewhere", "edited_agent", monkeypatch) / "edited_agent.py"
    store = tmp_path / "s.db"
    agent = "edited_agent:FirstSetAgent"
    argv = [*RUN, "--agents", agent, "--store", str(store), "--no-plot"]
    assert main(argv) == 0
    with ResultStore(store, create=False) as opened:
        (provenance,) = opened.provenances()
    assert provenance[SOURCE_FIELD]["sha256"] == hashlib.sha256(module.read_bytes()).hexdigest()
    assert main(argv) == 0  # unchanged: resumes, nothing to run
    capsys.readouterr()

    module.write_text(module.read_text().replace("value: float = 0.5", "value: float = 0.25"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(module) in err
    assert (
        "changed since 1 of its stored runs" in err and "--store" in err and f"{agent}@NEW" in err
    )
    with ResultStore(store, create=False) as opened:
        assert len(opened) == 1  # the old run is kept

    renamed = [*RUN, "--agents", f"{agent}@v2", "--store", str(store), "--no-plot"]
    assert main(renamed) == 0  # a way out the message names: the edit runs apart
    with ResultStore(store, create=False) as opened:
        assert len(opened) == 2


def test_registered_agents_are_covered_by_the_code_version_instead() -> None:
    assert agent_source("random") is None and agent_source("etc@fast") is None

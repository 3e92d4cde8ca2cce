"""Progress of ``bocvs run`` in logs: plain lines for finished runs and runs in flight."""

from __future__ import annotations

import io

import pytest

from bocvs_env.benchmark import progress
from bocvs_env.benchmark.config import RunConfig
from bocvs_env.benchmark.executors import Outcome
from bocvs_env.benchmark.progress import SweepProgress
from bocvs_env.benchmark.sweep import SweepReport


def test_lines_mode_reports_runs_in_flight_and_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "HEARTBEAT", 0.0)
    config = RunConfig("hartmann3", "cheap", 0.02, 3.0, "random", 0)
    stream = io.StringIO()
    shown = SweepProgress("s", {config.key(): config.label()}, "lines", stream)
    shown.on_start(SweepReport(total=2, skipped=1))
    shown.progress(config.key(), 1.5, 3.0)
    shown.on_outcome(Outcome(config, error="Traceback ..."))
    shown.close()
    lines = stream.getvalue().splitlines()
    assert lines == [
        "sweep 's': 2 runs, 1 already in the store, 1 to run",
        f"s: 1/2 runs; running: {config.label()} 50%",
        f"FAILED {config.label()}",
    ]


def test_quiet_mode_prints_failures_only() -> None:
    config = RunConfig("hartmann3", "cheap", 0.02, 3.0, "random", 0)
    stream = io.StringIO()
    shown = SweepProgress("s", {}, "quiet", stream)
    shown.on_start(SweepReport(total=1, skipped=0))
    shown.progress(config.key(), 1.0, 3.0)
    shown.say("recorded 0 runs")
    shown.on_outcome(Outcome(config, error="Traceback ..."))
    assert stream.getvalue() == f"FAILED {config.label()}\n"


def test_bars_mode_draws_the_sweeps_bar() -> None:
    config = RunConfig("hartmann3", "cheap", 0.02, 3.0, "random", 0)
    stream = io.StringIO()
    shown = SweepProgress("s", {config.key(): config.label()}, "bars", stream)
    shown.on_start(SweepReport(total=1, skipped=0))
    shown.progress(config.key(), 1.0, 3.0)
    shown.on_outcome(Outcome(config, error=None))
    shown.close()
    assert "s: 100%" in stream.getvalue() and "1/1" in stream.getvalue()

"""Limits and messages of ``bocvs run``: seeds, budgets and config files beyond what a sweep can
be get one line naming the value or file as given, before any store is created."""

from __future__ import annotations

from pathlib import Path

import pytest

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.config import MAX_SEEDS, SweepConfig


def _run(tmp_path: Path, *flags: str) -> list[str]:
    return ["run", "--store", str(tmp_path / "s.db"), "-q", "--no-plot", *flags]


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[-1]


@pytest.mark.parametrize(
    "seeds", ["0-99999999999", "18446744073709551616", f"{MAX_SEEDS + 1}", f"5,0-{MAX_SEEDS}"]
)
def test_more_seeds_than_a_sweep_can_run_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seeds: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(_run(tmp_path, "--problems", "hartmann3", "--seeds", seeds))
    assert exit_.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]  # argparse's usage, then the error
    assert line.startswith("bocvs run: error: argument --seeds: ")
    assert f"at most {MAX_SEEDS} per sweep, got {seeds!r}" in line
    assert not (tmp_path / "s.db").exists()


def test_the_most_seeds_allowed_are_taken() -> None:
    assert len(SweepConfig(name="s", problems=["hartmann3"], seeds=MAX_SEEDS).runs()) > 0
    with pytest.raises(ValueError, match=f"from 1 to {MAX_SEEDS}, got 18446744073709551616"):
        SweepConfig(name="s", problems=["hartmann3"], seeds=2**64)


def test_a_budget_beyond_the_limit_is_refused_before_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _run(tmp_path, "--problems", "hartmann3", "--agents", "random", "--budgets", "1e12")
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert "budget 1000000000000.0 buys" in line and "at most 1,000,000 plays" in line
    assert not (tmp_path / "s.db").exists()


def test_a_parameter_of_the_wrong_type_names_its_key_and_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text(
        'problems = ["hartmann3"]\nagents = ["ucb-cvs"]\nseeds = 1\nbudgets = [1]\n'
        '[agent_params.ucb-cvs]\nbeta = "high"\n'
    )
    assert main(_run(tmp_path, "--config", str(config))) == 2
    line = _one_error_line(capsys)
    assert "agent 'ucb-cvs': beta must be a real number, got 'high'" in line


def test_a_binary_config_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "sweep.toml"
    config.write_bytes(bytes(range(128, 256)))
    assert main(_run(tmp_path, "--config", str(config))) == 2
    assert f"sweep config {config} is not UTF-8 text" in _one_error_line(capsys)

"""A trained SB3 policy runs in a benchmark sweep (``bocvs run --config``) next to the baselines."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO

from agents.policies.sb3 import SB3Agent
from bocvs_env import BOCVSEnv
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.budget import cumulative_spend
from bocvs_env.evaluation import run_episode
from bocvs_env.wrappers import flat_to_action, make_sb3_env

BUDGET = 3.0


def sweep_toml(path: Path, model: Path | None) -> Path:
    """A sweep config of ``sb3`` and ``random`` on Hartmann-3, with ``model`` when given."""
    lines = [
        'name = "sb3"',
        'problems = ["hartmann3"]',
        f"budgets = [{BUDGET}]",
        'agents = ["sb3", "random"]',
        "seeds = 2",
    ]
    if model is not None:
        lines += ["[agent_params.sb3]", f'model = "{model.as_posix()}"']
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def ppo_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PPO trained for 256 steps on bocvs/Hartmann3-v1 through the SB3 wrappers, saved."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        env = make_sb3_env("bocvs/Hartmann3-v1", budget=BUDGET, privileged_info=False)
        model = PPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(total_timesteps=256)
    finally:
        torch.set_num_threads(threads)
    path = tmp_path_factory.mktemp("ppo") / "ppo.zip"
    model.save(path)
    return path


def test_sb3_runs_in_a_sweep_and_its_table(ppo_path: Path, tmp_path: Path, capsys) -> None:
    config, store = sweep_toml(tmp_path / "sweep.toml", ppo_path), tmp_path / "s.db"
    argv = ["--config", str(config), "--store", str(store)]
    assert main(["run", *argv, "--workers", "1", "--no-plot"]) == 0
    assert "| sb3 | 2 |" in capsys.readouterr().out
    with ResultStore(store) as opened:
        runs = [r for r in opened.runs() if r.config.agent == "sb3"]
    assert sorted(r.config.seed for r in runs) == [0, 1]
    for run in runs:
        record = run.record
        assert record.agent == "sb3"
        n = record.y.size
        assert n >= 1 and record.control_set.shape == (n,) and record.g.shape == (n,)
        assert ((record.x >= 0) & (record.x <= 1)).all()
        assert np.isfinite(record.cost).all() and cumulative_spend(record.cost)[-1] <= BUDGET
        assert run.provenance["agent_params"] == {
            "model": str(ppo_path),
            "algo": "PPO",
            "deterministic": True,
        }
    assert main(["table", *argv]) == 0
    table = capsys.readouterr().out
    assert "| sb3 | 2 |" in table and "| random | 2 |" in table


def test_the_adapter_plays_what_the_model_plays_through_the_wrappers(ppo_path: Path) -> None:
    """The benchmark's ``sb3`` agent feeds the model the features the training wrapper gave it
    and plays its actions: on one seed, the same sets and queries as the model stepping the
    SB3-wrapped environment itself."""
    model = PPO.load(ppo_path, device="cpu")
    env = make_sb3_env("bocvs/Hartmann3-v1", budget=BUDGET, privileged_info=False)
    base_env = env.unwrapped
    assert isinstance(base_env, BOCVSEnv)
    task = base_env.task
    obs, _ = env.reset(seed=5)
    played: list[dict] = []
    terminated = False
    while not terminated:
        flat, _ = model.predict(obs, deterministic=True)
        obs, _, terminated, _, info = env.step(flat)
        if info["evaluated"]:
            played.append(flat_to_action(flat, task.n_sets, task.dim))
    base = gym.make("bocvs/Hartmann3-v1", budget=BUDGET, privileged_info=False)
    record = run_episode(base, SB3Agent(ppo_path), seed=5)
    assert len(played) == record.n_evaluations >= 3
    assert record.control_set.tolist() == [a["control_set"] for a in played]
    for x, action in zip(record.x, played, strict=True):
        ctrl = list(task.control_sets[action["control_set"]])
        np.testing.assert_allclose(x[ctrl], action["x"][ctrl], rtol=0, atol=1e-12)


def test_sweep_without_a_model_fails_before_running(tmp_path: Path, capsys) -> None:
    config = sweep_toml(tmp_path / "sweep.toml", None)
    argv = ["run", "--config", str(config), "--store", str(tmp_path / "s.db"), "--no-plot"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "agent 'sb3' needs the parameters ['model']" in err
    assert "[agent_params.sb3]" in err

import gymnasium as gym
import numpy as np
import pytest
import torch

import bocvs_env  # noqa: F401  (registers the ids)
from bocvs_env.env import BOCVSEnv
from bocvs_env.problems.families import (
    FAMILIES,
    SPLITS,
    FamilyEnv,
    TransformedObjective,
    fold,
    random_rotation,
)
from bocvs_env.problems.registry import PROBLEMS
from bocvs_env.problems.synthetic import hartmann3

PROBE = torch.rand(64, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))


def _values(env: FamilyEnv) -> np.ndarray:
    base = env.unwrapped
    assert isinstance(base, BOCVSEnv)
    return base.problem.objective(PROBE).numpy()


def test_train_and_test_seed_ranges_do_not_overlap() -> None:
    (a, b), (c, d) = SPLITS["train"], SPLITS["test"]
    assert a < b <= c < d
    for env_id, (lo, hi) in (
        ("bocvs/RotatedHartmann3Family-Train-v1", SPLITS["train"]),
        ("bocvs/RotatedHartmann3Family-Test-v1", SPLITS["test"]),
    ):
        env = gym.make(env_id)
        drawn = {env.reset(seed=s)[1]["privileged"]["function_seed"] for s in range(40)}
        assert all(lo <= k < hi for k in drawn) and len(drawn) > 30


@pytest.mark.parametrize("family", ["rotated_hartmann3", "gp_sample"])
def test_same_seed_same_function_and_different_seeds_differ(family: str) -> None:
    env = FamilyEnv(family, split="test")
    _, info = env.reset(seed=3)
    first, k3 = _values(env), info["privileged"]["function_seed"]
    _, info = env.reset(seed=4)
    other, k4 = _values(env), info["privileged"]["function_seed"]
    _, info = env.reset(seed=3)
    assert info["privileged"]["function_seed"] == k3 != k4
    np.testing.assert_array_equal(_values(env), first)
    assert not np.allclose(first, other)
    fresh = FamilyEnv(family, split="test")
    fresh.reset(seed=3)
    np.testing.assert_array_equal(_values(fresh), first)  # the same in a new environment
    assert env.problem.config is not None
    assert env.problem.config["function_seed"] == k3 and env.problem.config["family"] == family


def test_unseeded_resets_draw_new_functions_and_members_share_the_rest() -> None:
    env = FamilyEnv("rotated_hartmann3", split="train", cost_set="expensive", budget=7.0)
    env.reset(seed=0)
    seeds = {env.reset()[1]["privileged"]["function_seed"] for _ in range(5)}
    assert len(seeds) == 5
    assert env.problem.budget == 7.0 and env.problem.cost_model.means[0] == 0.6
    assert env.problem.control_sets == ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2))


def test_goal_follows_the_current_function() -> None:
    env = FamilyEnv("rotated_hartmann3", split="train")
    env.reset(seed=0)
    _, _, _, _, info = env.step({"control_set": 6, "x": np.full(3, 0.3)})
    assert env.goal.problem is env.problem
    np.testing.assert_allclose(
        info["privileged"]["g"],
        float(env.problem.objective(torch.full((1, 3), 0.3, dtype=torch.float64))[0]),
    )
    env.reset(seed=1)
    assert env.goal.problem is env.problem


def test_pinned_function_seed_and_bad_options() -> None:
    env = FamilyEnv("rotated_hartmann3", split="test")
    _, info = env.reset(seed=0, options={"function_seed": 12_345})
    assert info["privileged"]["function_seed"] == 12_345
    with pytest.raises(ValueError, match="outside"):
        env.reset(seed=0, options={"function_seed": 5})
    with pytest.raises(ValueError, match="unknown family"):
        FamilyEnv("nope")
    with pytest.raises(ValueError, match="split"):
        FamilyEnv("rotated_hartmann3", split="validation")
    with pytest.raises(ValueError, match="function_seeds"):
        FamilyEnv("rotated_hartmann3", function_seeds=(5, 5))


def test_transformed_objective_stays_in_the_cube_and_nonnegative() -> None:
    base = hartmann3()
    X = torch.rand(4096, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    identity = TransformedObjective(base, np.eye(3), np.zeros(3), "same")
    torch.testing.assert_close(identity(X), base(X))
    for seed in range(5):
        f = TransformedObjective.random(base, seed, max_shift=0.5)
        assert (f(X) >= 0).all() and f.optimal_value is None
        assert f.describe()["offset"] == f.offset.tolist()
    Z = torch.linspace(-3.0, 3.0, 601, dtype=torch.float64)
    assert (fold(Z) >= 0).all() and (fold(Z) <= 1).all()
    inside = Z[(Z >= 0) & (Z <= 1)]
    torch.testing.assert_close(fold(inside), inside)
    R = random_rotation(4, np.random.default_rng(0))
    np.testing.assert_allclose(R @ R.T, np.eye(4), atol=1e-12)
    assert np.linalg.det(R) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="orthogonal"):
        TransformedObjective(base, np.ones((3, 3)), np.zeros(3), "bad")


def test_gp_family_shares_the_gp_sample_problem_settings() -> None:
    base, gp = PROBLEMS[FAMILIES["gp_sample"].base], PROBLEMS["gp_sample"]
    assert base.control_sets == gp.control_sets and base.default_budget == gp.default_budget
    env = FamilyEnv("gp_sample", split="train")
    assert env.problem.config is not None
    assert env.problem.config["problem"] == "gp_sample" and env.task.budget == gp.default_budget

"""The non-synthetic objectives: plant, airfoil (fitted and cached GP) and the GP sample."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from torch.quasirandom import SobolEngine

import bocvs_env  # noqa: F401  (registers the ids)
from bocvs_env.goal import GoalEvaluator
from bocvs_env.problems import airfoil as airfoil_module
from bocvs_env.problems.airfoil import AIRFOIL_FILE, AirfoilObjective, airfoil, fit_cache_path
from bocvs_env.problems.data import file_digest, load_npz
from bocvs_env.problems.extrema import extremes_on_cube
from bocvs_env.problems.gp_sample import RandomFourierFeatureFunction, gp_sample
from bocvs_env.problems.objective import Objective
from bocvs_env.problems.plant import PLANT_FILE, PLANT_MAX, PLANT_SHIFT, plant
from bocvs_env.problems.registry import make_problem


@pytest.fixture(scope="module")
def plant_objective(data_dir: Path) -> Objective:
    return plant(data_dir)


@pytest.fixture(scope="module")
def airfoil_objective(data_dir: Path) -> AirfoilObjective:
    """The real fit, in the session's cache (fitted once per session, a minute or more)."""
    return airfoil(data_dir)


@pytest.fixture(scope="module")
def quick_airfoil(quick_data_dir: Path) -> AirfoilObjective:
    """The objective fitted to the thinned file: the same code, fitted in seconds."""
    return airfoil(quick_data_dir)


@pytest.fixture
def small_airfoil_dir(quick_data_dir: Path, tmp_path: Path) -> Path:
    """A folder of its own with the thinned airfoil file (:func:`quick_data_dir`), for cache
    tests that change or key on the file."""
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / AIRFOIL_FILE).write_bytes((quick_data_dir / AIRFOIL_FILE).read_bytes())
    return folder


@pytest.fixture
def tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("BOCVS_CACHE_DIR", str(cache))
    return cache


def _objectives(request: pytest.FixtureRequest) -> list[Objective]:
    return [
        request.getfixturevalue("plant_objective"),
        request.getfixturevalue("quick_airfoil"),
        gp_sample(0),
    ]


def test_plant_maximum_over_the_box_is_known(data_dir: Path) -> None:
    problem = make_problem("plant", data_dir=data_dir)
    full = problem.n_sets - 1
    assert problem.control_sets[full] == (0, 1, 2, 3, 4)
    # The full set has no random variables, so g is f and a few samples suffice.
    value, _ = GoalEvaluator(problem, n_samples=4).maximize(full)
    assert value - PLANT_SHIFT == pytest.approx(PLANT_MAX, abs=1e-4)
    assert problem.objective.optimal_value == pytest.approx(PLANT_MAX + PLANT_SHIFT)


def test_plant_range_matches_its_shift_and_maximum(plant_objective: Objective) -> None:
    found = extremes_on_cube(plant_objective.raw, 5, n_raw=16384, n_starts=32, seed=1)
    assert found.min_value == pytest.approx(-1.132613, abs=1e-5)
    assert found.min_value > -PLANT_SHIFT
    assert found.max_value == pytest.approx(PLANT_MAX, abs=1e-4)  # without the known optimizer
    U = torch.rand(100_000, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert float(plant_objective(U).min()) >= 0.0


def test_all_three_are_nonnegative(request: pytest.FixtureRequest) -> None:
    U = torch.rand(50_000, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    for objective in _objectives(request):
        with torch.no_grad():
            values = objective(U[:, : objective.dim])
        assert torch.isfinite(values).all()
        assert float(values.min()) >= 0.0, objective.name
        assert objective.optimal_value is not None
        assert float(values.max()) <= objective.optimal_value + 1e-9, objective.name


def test_batched_shapes_and_gradients(request: pytest.FixtureRequest) -> None:
    gen = torch.Generator().manual_seed(2)
    for objective in _objectives(request):
        X = torch.rand(2, 3, objective.dim, dtype=torch.float64, generator=gen)
        out = objective(X)
        assert out.shape == (2, 3) and out.dtype == torch.float64
        assert torch.allclose(out[1], objective(X[1]))
        x = X[0].clone().requires_grad_(True)
        assert torch.autograd.gradcheck(objective, (x,)), objective.name


def test_plant_describe_has_the_file_digest(data_dir: Path, plant_objective: Objective) -> None:
    assert plant_objective.describe()["sha256"] == file_digest(data_dir / PLANT_FILE)


def test_missing_file_names_it_and_where_to_get_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"plant_svgp\.npz") as err:
        plant(tmp_path)
    assert str(tmp_path) in str(err.value) and "UCB-CVS" in str(err.value)
    with pytest.raises(FileNotFoundError, match=re.escape(AIRFOIL_FILE)) as err:
        airfoil(tmp_path)
    assert str(tmp_path) in str(err.value) and "dataset id 291" in str(err.value)


def _bad_plant(folder: Path, data_dir: Path, change: str) -> None:
    arrays = dict(np.load(data_dir / PLANT_FILE))
    if change == "missing":
        del arrays["q_mu"]
    elif change == "shape":
        arrays["Z"] = arrays["Z"][:, :4]
    elif change == "text":
        arrays["jitter"] = np.array("tiny")
    elif change == "nan":
        arrays["Z"] = arrays["Z"].copy()
        arrays["Z"][0, 0] = np.nan
    np.savez(folder / PLANT_FILE, **arrays)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("missing", "missing arrays"),
        ("shape", "'Z' has shape"),
        ("text", "not numeric"),
        ("nan", "non-finite"),
        ("garbage", "not a readable npz"),
    ],
)
def test_malformed_plant_file(data_dir: Path, tmp_path: Path, change: str, message: str) -> None:
    if change == "garbage":
        (tmp_path / PLANT_FILE).write_bytes(b"not a zip file")
    else:
        _bad_plant(tmp_path, data_dir, change)
    with pytest.raises(ValueError, match=message) as err:
        plant(tmp_path)
    assert PLANT_FILE in str(err.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1\t2\t3\t4\t5\n6\t7\t8\t9\t10\n", "shape"),
        ("800\t0\t0.3\t71\tabc\t126\n", "not a numeric table"),
        ("800\t0\t0.3\t71\t0.002\t126\n1000\t0\t0.3\t71\t0.002\n", "not a numeric table"),
        ("800\t0\t0.3\t71\t0.002\t126\n-5\t1\t0.2\t70\t0.003\t120\n", "must be positive"),
    ],
)
def test_malformed_airfoil_file(tmp_path: Path, tmp_cache: Path, text: str, message: str) -> None:
    (tmp_path / AIRFOIL_FILE).write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        airfoil(tmp_path)
    assert AIRFOIL_FILE in str(err.value)
    assert not tmp_cache.exists()


def test_airfoil_fit_is_cached_reused_and_keyed_by_content(
    small_airfoil_dir: Path, tmp_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = airfoil(small_airfoil_dir)
    assert first.cache_path is not None and first.cache_path.parent == tmp_cache
    assert [p.name for p in tmp_cache.iterdir()] == [first.cache_path.name]

    def no_refit(*args: object) -> None:
        raise AssertionError("refitted although the cache was valid")

    with monkeypatch.context() as patch:
        patch.setattr(airfoil_module, "fit_airfoil_gp", no_refit)
        second = airfoil(small_airfoil_dir)
    U = torch.rand(64, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    assert torch.equal(first(U), second(U)) and second.shift == first.shift
    assert second.describe() == first.describe()

    with (small_airfoil_dir / AIRFOIL_FILE).open("a") as f:
        f.write("5000\t4\t0.1\t40\t0.004\t125.0\n")
    changed = airfoil(small_airfoil_dir)
    assert changed.cache_path != first.cache_path
    assert changed.describe()["sha256"] != first.describe()["sha256"]
    assert len(list(tmp_cache.iterdir())) == 2


def test_the_fit_is_cached_per_numerics_mode(
    small_airfoil_dir: Path, tmp_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The objective is the fit, whose last bits depend on the kernels that made it: a fit made
    with the machine's kernels never stands in for a pinned one, nor the other way round."""
    monkeypatch.delenv("BOCVS_NUMERICS", raising=False)
    fast = airfoil(small_airfoil_dir)
    monkeypatch.setenv("BOCVS_NUMERICS", "reproducible")
    fits: list[int] = []
    fit = airfoil_module.fit_airfoil_gp

    def counting_fit(X: torch.Tensor, y: torch.Tensor) -> dict:
        fits.append(1)
        return fit(X, y)

    monkeypatch.setattr(airfoil_module, "fit_airfoil_gp", counting_fit)
    pinned = airfoil(small_airfoil_dir)
    assert fits == [1]  # refitted: the fast fit does not stand in
    assert fast.cache_path is not None and pinned.cache_path is not None
    v = f"-v{airfoil_module.FIT_VERSION}-"
    assert pinned.cache_path.name == fast.cache_path.name.replace(v, f"{v}reproducible-")
    monkeypatch.setenv("BOCVS_NUMERICS", "fast")
    assert airfoil(small_airfoil_dir).cache_path == fast.cache_path and fits == [1]


def test_corrupt_cache_is_refitted(small_airfoil_dir: Path, tmp_cache: Path) -> None:
    fresh = airfoil(small_airfoil_dir, cache=False)
    assert fresh.cache_path is None and not tmp_cache.exists()
    path = fit_cache_path(file_digest(small_airfoil_dir / AIRFOIL_FILE))
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00garbage")
    refitted = airfoil(small_airfoil_dir)
    assert refitted.cache_path == path
    load_npz(path, {"weights": (None,)})  # a valid file again
    U = torch.rand(64, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    assert torch.equal(refitted(U), fresh(U))  # the seeded fit is deterministic


def test_unwritable_cache_warns_and_still_works(
    small_airfoil_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BOCVS_CACHE_DIR", str(blocker / "cache"))
    with pytest.warns(UserWarning, match="could not cache the airfoil fit"):
        objective = airfoil(small_airfoil_dir)
    assert float(objective(torch.full((1, 5), 0.5, dtype=torch.float64))) >= 0.0
    assert blocker.read_text() == "not a folder"


def _reference_mean(data_dir: Path) -> Callable[[torch.Tensor], torch.Tensor]:
    ref = load_npz(
        data_dir / "airfoil_gp_reference.npz",
        {"X": (None, 5), "y": (None, 1), "lengthscale": (5,), "outputscale": (),
         "noise": (), "mean_constant": ()},
    )  # fmt: skip
    X, ls = torch.from_numpy(ref["X"]), torch.from_numpy(ref["lengthscale"])
    c, scale = float(ref["mean_constant"]), float(ref["outputscale"])

    def matern52(A: torch.Tensor) -> torch.Tensor:
        r = math.sqrt(5.0) * torch.cdist(A / ls, X / ls)
        return scale * (1.0 + r + r**2 / 3.0) * torch.exp(-r)

    K = matern52(X) + float(ref["noise"]) * torch.eye(X.shape[0], dtype=torch.float64)
    y = torch.from_numpy(ref["y"]) - c
    alpha = torch.cholesky_solve(y, torch.linalg.cholesky(K)).squeeze(-1)
    return lambda Q: c + matern52(Q) @ alpha


@pytest.mark.slow  # the fit to the whole file: a minute or more
def test_airfoil_fit_is_close_to_the_reference(
    data_dir: Path, airfoil_objective: AirfoilObjective
) -> None:
    reference = _reference_mean(data_dir)
    P = SobolEngine(5, scramble=True, seed=0).draw(4096, dtype=torch.float64)
    with torch.no_grad():
        ours, theirs = airfoil_objective.raw(P).numpy(), reference(P).numpy()
    assert np.corrcoef(ours, theirs)[0, 1] > 0.9
    assert float(airfoil_objective.fit["max_value"]) == pytest.approx(2.61, abs=0.3)
    assert float(airfoil_objective.fit["min_value"]) == pytest.approx(-3.20, abs=0.3)


def test_gp_sample_is_deterministic_per_seed() -> None:
    a, b, c = gp_sample(3), gp_sample(3), gp_sample(4)
    U = torch.rand(256, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    assert torch.equal(a(U), b(U)) and a.shift == b.shift
    assert a.optimal_value == b.optimal_value
    assert not torch.allclose(a(U), c(U))
    assert a.describe()["function_seed"] == 3
    assert {"lengthscale": 0.1, "n_features": 2048}.items() <= a.describe().items()


@pytest.mark.parametrize("seed", [0, 1])
def test_gp_sample_shift_survives_a_larger_search(seed: int) -> None:
    objective = gp_sample(seed)
    found = extremes_on_cube(objective.raw, 3, n_raw=32768, n_starts=64, seed=100 + seed)
    assert found.min_value >= -objective.shift
    assert found.min_value == pytest.approx(objective.extremes.min_value, abs=1e-6)
    assert found.max_value + objective.shift == pytest.approx(objective.optimal_value, abs=1e-6)


def test_gp_sample_has_unit_variance_and_its_lengthscale() -> None:
    """Across seeds, values have variance 1 and correlation exp(-1/2) one lengthscale apart."""
    x = torch.tensor([[0.3, 0.5, 0.5], [0.4, 0.5, 0.5]], dtype=torch.float64)
    values = torch.stack([RandomFourierFeatureFunction(s)(x) for s in range(500)])  # 500 x 2
    assert float(values.var(dim=0).mean()) == pytest.approx(1.0, abs=0.2)
    corr = float(torch.corrcoef(values.T)[0, 1])
    assert corr == pytest.approx(math.exp(-0.5), abs=0.1)


@pytest.mark.parametrize(
    ("env_id", "needs_data"),
    [("bocvs/Plant-v1", True), ("bocvs/Airfoil-v1", True), ("bocvs/GPSample-v1", False)],
)
def test_registered_ids_reset_and_step(
    env_id: str, needs_data: bool, request: pytest.FixtureRequest
) -> None:
    if needs_data:
        kwargs = {"data_dir": request.getfixturevalue("quick_data_dir")}
    else:
        kwargs = {"function_seed": 2}
    env = gym.make(env_id, **kwargs)
    _, info = env.reset(seed=0)
    assert info["initial_y"].shape == (5,)
    env.action_space.seed(0)
    _, reward, _, _, info = env.step(env.action_space.sample())
    assert np.isfinite(float(reward)) and info["evaluated"]
    assert info["privileged"]["g"] >= 0.0
    env.close()

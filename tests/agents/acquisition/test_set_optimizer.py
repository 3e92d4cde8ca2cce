"""The one optimizer over control sets (agents.acquisition.set_optimizer) and a score per set as
its acquisition (agents.acquisition.set_scores)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
import torch
from torch import Tensor

from agents.acquisition import SetOptimizer, SetScores

SETS = ((0, 2), (1,), (0, 1, 2))
TARGET = torch.tensor([0.3, 0.85, 0.7], dtype=torch.float64)


def bowl(i: int, X: Tensor) -> Tensor:
    """``-|x^i - t^i|^2`` over set ``i``'s variables: maximum 0 at the target."""
    ctrl = list(SETS[i])
    return -((X[:, ctrl] - TARGET[ctrl]) ** 2).sum(-1)


def sobol(i: int, n: int = 16) -> Tensor:
    return torch.quasirandom.SobolEngine(len(SETS[i]), scramble=True, seed=i).draw(
        n, dtype=torch.float64
    )


def test_each_set_is_maximized_over_its_own_variables() -> None:
    calls: list[Tensor] = []

    def watched(i: int, X: Tensor) -> Tensor:
        calls.append(X.detach().clone())
        return bowl(i, X)

    found = SetOptimizer(n_restarts=2, maxiter=50).maximize(
        SetScores(SETS, 3, watched), [2, 0, 1], [sobol(2), sobol(0), sobol(1)]
    )
    for i, (value, x) in zip([2, 0, 1], found, strict=True):
        ctrl, others = list(SETS[i]), [v for v in range(3) if v not in SETS[i]]
        assert value == pytest.approx(0.0, abs=1e-10)
        np.testing.assert_allclose(x[ctrl], TARGET[ctrl].numpy(), atol=1e-5)
        np.testing.assert_array_equal(x[others], 0.5)
    assert all(bool(((X >= 0) & (X <= 1)).all()) for X in calls)
    # SetScores: the candidates of a set scored in one call, then one point per evaluation
    assert [X.shape[0] for X in calls[:3]] == [16, 16, 16]
    assert {X.shape[0] for X in calls[3:]} == {1}


def reference_search(
    i: int, candidates: Tensor, n_refine: int, maxiter: int
) -> tuple[float, Tensor]:
    """A plain multi-start search, written out: score every candidate, refine the best
    ``n_refine`` one after the other by SciPy's L-BFGS-B, keep a refined point only where it is
    strictly better than the best so far (the best candidate first)."""
    ctrl = list(SETS[i])
    X = torch.full((candidates.shape[0], 3), 0.5, dtype=torch.float64)
    X[:, ctrl] = candidates
    with torch.no_grad():
        values = bowl(i, X)
    order = torch.argsort(values, descending=True)[:n_refine]
    best_value, best_x = float(values[order[0]]), X[order[0]].clone()
    for k in order.tolist():

        def negative(z: np.ndarray, k: int = k) -> tuple[float, np.ndarray]:
            x = X[k].clone()
            zt = torch.as_tensor(z, dtype=torch.float64).requires_grad_(True)
            x[ctrl] = zt
            value = bowl(i, x[None])[0]
            (grad,) = torch.autograd.grad(value, zt)
            return -float(value.detach()), -grad.numpy()

        res = scipy.optimize.minimize(
            negative,
            X[k, ctrl].numpy(),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * len(ctrl),
            options={"maxiter": maxiter},
        )
        if -float(res.fun) > best_value:
            best_value, best_x = -float(res.fun), X[k].clone()
            best_x[ctrl] = torch.as_tensor(np.clip(res.x, 0.0, 1.0), dtype=torch.float64)
    return best_value, best_x


@pytest.mark.parametrize("maxiter", [1, 3, 50])
def test_set_scores_search_is_the_plain_multi_start_search_bit_for_bit(maxiter: int) -> None:
    optimizer = SetOptimizer(n_restarts=3, maxiter=maxiter)
    for i in range(len(SETS)):
        ((value, x),) = optimizer.maximize(SetScores(SETS, 3, bowl), [i], [sobol(i)])
        want_value, want_x = reference_search(i, sobol(i), 3, maxiter)
        assert value == want_value and np.array_equal(x, want_x.numpy())


def test_the_best_candidate_is_kept_where_refinement_cannot_improve() -> None:
    def step(i: int, X: Tensor) -> Tensor:
        return X[:, 0] * 0.0 + (X[:, 0] > 0.75).double()  # flat: no gradient to follow

    candidates = torch.tensor([[0.2], [0.8]], dtype=torch.float64)
    ((value, x),) = SetOptimizer(n_restarts=2, maxiter=10).maximize(
        SetScores([[0]], 2, step), [0], [candidates]
    )
    assert value == 1.0 and x[0] == 0.8 and x[1] == 0.5


def test_fewer_candidates_than_restarts_refines_them_all() -> None:
    candidates = torch.tensor([[0.1, 0.9]], dtype=torch.float64)
    ((value, x),) = SetOptimizer(n_restarts=8).maximize(SetScores(SETS, 3, bowl), [0], [candidates])
    assert value == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_allclose(x[[0, 2]], TARGET[[0, 2]].numpy(), atol=1e-5)


def test_polish_from_searches_locally_and_never_falls_below_its_start() -> None:
    def two_peaks(i: int, X: Tensor) -> Tensor:
        z = X[:, 1]
        return torch.exp(-50 * (z - 0.2) ** 2) + 2 * torch.exp(-50 * (z - 0.8) ** 2)

    scores = SetScores(SETS, 3, two_peaks)
    ((value, x),) = SetOptimizer().polish_from(scores, [1], [np.array([0.0, 0.25, 0.0])])
    assert x[1] == pytest.approx(0.2, abs=1e-4) and value == pytest.approx(1.0, abs=1e-6)
    ((start_value, start),) = SetOptimizer().polish_from(scores, [1], [np.full(3, 0.3)], 0)
    assert start[1] == 0.3 and start_value == pytest.approx(
        float(two_peaks(1, torch.from_numpy(start)[None])[0])
    )


def test_mismatched_or_unknown_sets_are_refused() -> None:
    scores, optimizer = SetScores(SETS, 3, bowl), SetOptimizer()
    with pytest.raises(ValueError, match="one candidate set per set"):
        optimizer.maximize(scores, [0, 1], [sobol(0)])
    with pytest.raises(ValueError, match="out of range"):
        optimizer.maximize(scores, [3], [sobol(0)])
    with pytest.raises(ValueError, match="one start per set"):
        optimizer.polish_from(scores, [0, 1], [np.full(3, 0.5)])
    with pytest.raises(ValueError, match="n_restarts"):
        SetOptimizer(n_restarts=0)
    assert optimizer.maximize(scores, [], []) == []

"""Multi-start L-BFGS-B: every start its own optimizer, all evaluated together in batches.

Each start runs SciPy's public ``scipy.optimize.minimize(method="L-BFGS-B")`` on its own, so it
converges and stops on its own, with exactly the iterates it would have alone. The starts run in
threads that hand every point they need evaluated to the calling thread, which waits until every
running start has asked, then evaluates them all in one call (one posterior call, with autograd
gradients) and hands the results back: the optimizers advance in lockstep and the objective is
batched. The threads never touch torch; SciPy's L-BFGS-B is thread-safe since SciPy 1.15.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
import torch
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits
from torch import Tensor

from agents.acquisition.estimator import Part

#: ``(active problems, their points) -> [(value, gradient)]`` (see :func:`batched_lbfgsb`).
ValuesAndGrads = Callable[[list[int], list[np.ndarray]], list[tuple[float, np.ndarray]]]


def batched_lbfgsb(
    values_and_grads: ValuesAndGrads,
    x0: Sequence[np.ndarray],
    maxiter: int = 100,
    maxcor: int = 10,
    ftol: float = 2.220446049250313e-09,
    gtol: float = 1e-5,
    maxls: int = 20,
) -> tuple[list[np.ndarray], list[float]]:
    """Minimize independent problems on ``[0, 1]^k`` with one L-BFGS-B each, in lockstep.

    Args:
        values_and_grads: ``(active, X)`` -> ``[(f, grad)]``: the indices of the problems to
            evaluate (ascending), their points (``X[a]`` of shape ``(k_p,)`` for ``active[a]``),
            and their values and gradients in the same order.
        x0: the starting point of every problem, in ``[0, 1]^{k_p}``.
        maxiter: the iteration limit of every problem.
        maxcor: ``maxcor``, ``ftol``, ``gtol``, ``maxls``: as in ``scipy.optimize.minimize``
            (these defaults are SciPy's).

    Returns:
        The final point of every problem and its value there (``inf`` for a problem whose
        optimizer stopped without a value).

    Raises:
        Whatever ``values_and_grads`` raises (every optimizer is stopped first).
    """
    options = {"maxiter": maxiter, "maxcor": maxcor, "ftol": ftol, "gtol": gtol, "maxls": maxls}
    lockstep = _Lockstep(values_and_grads, [np.clip(np.asarray(x, np.float64), 0, 1) for x in x0])
    # L-BFGS-B's BLAS calls are on tiny vectors: BLAS threads only cost (much, on a busy machine)
    with threadpool_limits(limits=1, user_api="blas"):
        return lockstep.run(options)


class _Stopped(Exception):
    """Raised in an optimizer's thread when the objective failed in the calling thread."""


class _Lockstep:
    """The rendezvous of :func:`batched_lbfgsb`: optimizer threads post points, the calling
    thread evaluates them together once every running optimizer has posted one."""

    def __init__(self, values_and_grads: ValuesAndGrads, x0: list[np.ndarray]) -> None:
        self.values_and_grads = values_and_grads
        self.x = x0
        self.f = [float("inf")] * len(x0)
        self._posted = threading.Condition()
        self._pending: dict[int, np.ndarray] = {}
        self._running = len(x0)
        self._ready = [threading.Event() for _ in x0]
        self._results: list[tuple[float, np.ndarray] | None] = [None] * len(x0)
        self._errors: list[BaseException] = []

    def run(self, options: dict[str, float]) -> tuple[list[np.ndarray], list[float]]:
        threads = [
            threading.Thread(target=self._optimize, args=(p, options), daemon=True)
            for p in range(len(self.x))
        ]
        for t in threads:
            t.start()
        self._serve()
        for t in threads:
            t.join()
        if self._errors:
            raise self._errors[0]
        return [np.clip(x, 0.0, 1.0) for x in self.x], self.f

    def _serve(self) -> None:
        """Evaluate the posted points in batches until every optimizer has stopped."""
        while True:
            with self._posted:
                self._posted.wait_for(lambda: len(self._pending) == self._running)
                if self._running == 0:
                    return
                active = sorted(self._pending)
                points = [self._pending.pop(p) for p in active]
            results: list[tuple[float, np.ndarray] | None]
            try:
                results = list(self.values_and_grads(active, points))
                if len(results) != len(active):
                    raise ValueError(
                        f"values_and_grads gave {len(results)} results for {len(active)} points"
                    )
            except BaseException as err:  # stop every optimizer, then re-raise
                self._errors.append(err)
                results = [None] * len(active)
            for p, r in zip(active, results, strict=True):
                self._results[p] = r
                self._ready[p].set()

    def _evaluate(self, p: int, x: np.ndarray) -> tuple[float, np.ndarray]:
        """Problem ``p``'s objective, in its thread: post ``x`` and wait for the batch."""
        with self._posted:
            self._pending[p] = x.copy()
            if len(self._pending) == self._running:
                self._posted.notify()
        self._ready[p].wait()
        self._ready[p].clear()
        result = self._results[p]
        if result is None:
            raise _Stopped
        self.f[p] = float(result[0])
        return self.f[p], np.asarray(result[1], dtype=np.float64)

    def _optimize(self, p: int, options: dict[str, float]) -> None:
        """Problem ``p``'s L-BFGS-B, in its own thread."""
        try:
            res = minimize(
                lambda z: self._evaluate(p, z),
                self.x[p],
                jac=True,
                method="L-BFGS-B",
                bounds=[(0.0, 1.0)] * self.x[p].size,
                options=options,
            )
            self.x[p] = res.x
        except _Stopped:
            pass
        except BaseException as err:
            self._errors.append(err)
        finally:
            with self._posted:
                self._running -= 1
                if len(self._pending) == self._running:
                    self._posted.notify()


def batch_objective(
    evaluate: Callable[[list[Part]], list[Tensor]],
    query: Callable[[int, Tensor], Part],
    owners: list[int],
) -> ValuesAndGrads:
    """The :data:`ValuesAndGrads` that maximizes ``evaluate`` by minimizing its negative.

    Args:
        evaluate: ``[(set, batch x d queries)]`` -> one ``batch`` tensor of values per part.
        query: ``(owner, b x k leaf)`` -> the part of that owner's ``b`` points.
        owners: the owner (e.g. the requested set's position) of every problem; the problems of
            one owner are evaluated as one part.
    """

    def values_and_grads(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        groups: dict[int, list[int]] = {}
        for a, p in enumerate(active):
            groups.setdefault(owners[p], []).append(a)
        leaves, parts = [], []
        for j, members in groups.items():
            leaf = torch.from_numpy(np.stack([Z[a] for a in members]))
            leaves.append(leaf.requires_grad_(True))
            parts.append(query(j, leaf))
        values = evaluate(parts)
        total = torch.stack([v.sum() for v in values]).sum()
        grads: Sequence[Tensor | None] = [None] * len(leaves)
        if total.requires_grad:  # a constant (e.g. a prior without data) has none
            grads = torch.autograd.grad(total, leaves, allow_unused=True)
        out: list[tuple[float, np.ndarray]] = [(0.0, np.zeros(0))] * len(active)
        for members, v, z, g in zip(groups.values(), values, leaves, grads, strict=True):
            g = torch.zeros_like(z) if g is None else g
            for row, a in enumerate(members):
                out[a] = (-float(v[row].detach()), -g[row].numpy())
        return out

    return values_and_grads

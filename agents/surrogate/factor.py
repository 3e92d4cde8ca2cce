"""The Cholesky factor of a GP's kernel matrix, grown by block updates as data arrive."""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from bocvs_env.agent_state import array_tensor, check_consistent, tensor_array
from bocvs_env.gp_algebra import Hyperparameters, rbf, robust_cholesky


class GrowingCholesky:
    """The lower Cholesky factor of ``K + (noise + jitter) I`` over inputs that only grow, and,
    once asked for, its inverse (the precision).

    Appending ``k`` rows costs ``O(n^2 k)`` (a block update through the Schur complement) instead
    of the ``O(n^3)`` of a new factorization. A failure to factor the new block is met by the
    smallest jitter of :data:`bocvs_env.gp_algebra.JITTERS` that works (recorded per row).

    Args:
        dim: the input dimension ``d``.
    """

    def __init__(self, dim: int) -> None:
        #: The ``n x d`` inputs the factor is over.
        self.X = torch.zeros(0, dim, dtype=torch.float64)
        #: The ``n x n`` lower factor (standardized units).
        self.L = torch.zeros(0, 0, dtype=torch.float64)
        #: The ``n`` diagonal jitters added, one per row (absolute).
        self.jitter = torch.zeros(0, dtype=torch.float64)
        #: The number of factors started from scratch and of block extensions done.
        self.n_factorizations = 0
        self.n_extensions = 0
        self._W: Tensor | None = None  # (K + noise I)^{-1}, computed on first use, then extended

    def clear(self) -> None:
        """Forget every row (the next :meth:`extend` starts a new factor)."""
        self.X = self.X[:0]
        self.L = self.L.new_zeros(0, 0)
        self.jitter = self.jitter.new_zeros(0)
        self._W = None

    @property
    def precision(self) -> Tensor:
        """``(K + (noise + jitter) I)^{-1}``, ``n x n`` (standardized units).

        Computed from the factor on first use (``O(n^3)``), then extended with it by block
        updates (``O(n^2 k)`` for ``k`` new rows).
        """
        if self._W is None:
            self._W = torch.cholesky_inverse(self.L)
        return self._W

    def save_state(self) -> dict[str, np.ndarray]:
        """The factor as arrays: ``X`` (``n x d``), ``L`` (``n x n``), ``jitter`` (``n``),
        ``counts`` (factorizations, extensions) and, once computed, ``precision`` (``n x n``),
        as they are, so that :meth:`load_state` gives the same bits as the extensions did."""
        arrays = {"X": tensor_array(self.X), "L": tensor_array(self.L),
                  "jitter": tensor_array(self.jitter),
                  "counts": np.array([self.n_factorizations, self.n_extensions])}  # fmt: skip
        if self._W is not None:
            arrays["precision"] = tensor_array(self._W)  # column-major if from LAPACK
        return arrays

    def load_state(self, arrays: dict[str, np.ndarray], hyper: Hyperparameters) -> None:
        """Restore a factor from :meth:`save_state`, built under ``hyper``.

        Raises:
            ValueError: for arrays of the wrong shapes, or a factor (or precision) that is not
                that of its inputs under ``hyper``
                (:func:`~bocvs_env.agent_state.check_consistent`).
        """
        X, L, jitter = (array_tensor(arrays[k]) for k in ("X", "L", "jitter"))
        n, d = X.shape[0], self.X.shape[1]
        if X.shape != (n, d) or L.shape != (n, n) or jitter.shape != (n,):
            raise ValueError(f"a factor of shapes X {tuple(X.shape)}, L {tuple(L.shape)}, jitter "
                             f"{tuple(jitter.shape)}: expected (n, {d}), (n, n), (n,)")  # fmt: skip
        K = rbf(X, X, hyper.lengthscale, hyper.outputscale)
        K.diagonal().add_(jitter + hyper.noise)
        check_consistent("factor L L^T", L @ L.T if n else K, K, bool(torch.equal(L, L.tril())))
        W = None
        if "precision" in arrays:
            W = array_tensor(arrays["precision"])
            ok = W.shape == (n, n)
            check_consistent("precision", W if ok else K, torch.cholesky_inverse(L) if n else K, ok)
        counts = np.asarray(arrays["counts"], np.int64).reshape(2)
        self.X, self.L, self.jitter, self._W = X, L, jitter, W
        self.n_factorizations, self.n_extensions = int(counts[0]), int(counts[1])

    def extend(self, X_new: Tensor, hyper: Hyperparameters) -> None:
        """Append ``k x d`` rows in ``O(n^2 k)`` (``O(k^3)`` for the new block)."""
        n, k = self.X.shape[0], X_new.shape[0]
        K22 = rbf(X_new, X_new, hyper.lengthscale, hyper.outputscale)
        K22.diagonal().add_(hyper.noise)
        if n > 0:
            K12 = rbf(self.X, X_new, hyper.lengthscale, hyper.outputscale)
            L21t = torch.linalg.solve_triangular(self.L, K12, upper=False)  # n x k
            S = K22 - L21t.T @ L21t
            self.n_extensions += 1
        else:
            L21t = K22.new_zeros(0, k)
            S = K22
            self.n_factorizations += 1
        L22, jitter = robust_cholesky(S, hyper.outputscale)
        if self._W is not None:
            self._W = self._extended_precision(L21t, L22)
        L = torch.zeros(n + k, n + k, dtype=torch.float64)
        L[:n, :n] = self.L
        L[n:, :n] = L21t.T
        L[n:, n:] = L22
        self.L = L
        self.jitter = torch.cat([self.jitter, torch.full((k,), jitter, dtype=torch.float64)])
        self.X = torch.cat([self.X, X_new])

    def _extended_precision(self, L21t: Tensor, L22: Tensor) -> Tensor:
        """The block inverse through the Schur complement ``L22 L22^T``, given the new factor
        blocks (``n x k`` and ``k x k``); a new ``(n + k) x (n + k)`` matrix, whose top-left block is
        the old precision plus a rank-``k`` update (computed in place in the new matrix)."""
        assert self._W is not None
        n, k = L21t.shape
        V = torch.linalg.solve_triangular(self.L.T, L21t, upper=True)  # W K12, n x k
        V = torch.linalg.solve_triangular(L22, V.T, upper=False).T  # W K12 L22^-T
        L22inv = torch.linalg.solve_triangular(L22, torch.eye(k, dtype=L22.dtype), upper=False)
        corner = -V @ L22inv  # -W K12 S^-1
        W = torch.empty(n + k, n + k, dtype=torch.float64)
        W[:n, :n] = self._W
        W[:n, :n].addmm_(V, V.T)  # in place: no third n x n matrix
        W[:n, n:] = corner
        W[n:, :n] = corner.T
        W[n:, n:] = L22inv.T @ L22inv
        self._W = None  # the old precision is freed before the new factor is allocated
        return W

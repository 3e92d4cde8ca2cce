"""Posterior sample paths of an RBF GP by pathwise conditioning (Wilson et al. 2020)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from bocvs_env.gp_algebra import Hyperparameters, rbf


class SamplePath:
    """Posterior sample paths of a GP (see :func:`draw_sample_paths`).

    ``f(x) = (w^T cos(W^T x + b) + mean + k(x, X) update) * y_scale + y_shift`` for each path.

    Args:
        hyper: the hyperparameters the paths were drawn under.
        X: ``n x d`` training inputs.
        W: ``d x D`` random frequencies (already divided by the lengthscales).
        b: ``D`` random phases.
        w: ``D x n_paths`` feature weights.
        update: ``n x n_paths`` pathwise-update weights.
    """

    def __init__(
        self, hyper: Hyperparameters, X: Tensor, W: Tensor, b: Tensor, w: Tensor, update: Tensor
    ) -> None:
        self.hyper, self.X, self.W, self.b, self.w, self.update = hyper, X, W, b, w, update
        self.n_paths = int(w.shape[1])

    def prior(self, Z: Tensor) -> Tensor:
        """The prior part at ``m x d`` points: ``m x n_paths`` (standardized, zero mean)."""
        return torch.cos(Z @ self.W + self.b) @ self.w

    def __call__(self, Z: Tensor) -> Tensor:
        """Values at ``batch_shape x d`` points: ``n_paths x batch_shape`` (units of ``y``)."""
        h = self.hyper
        shape = Z.shape[:-1]
        flat = Z.reshape(shape.numel(), Z.shape[-1])
        values = self.prior(flat) + h.mean
        if self.X.shape[0] > 0:
            values = values + rbf(flat, self.X, h.lengthscale, h.outputscale) @ self.update
        values = values * h.y_scale + h.y_shift
        return values.T.reshape(self.n_paths, *shape)

    def sample_mean(self, Zr: Tensor, free: Sequence[int]) -> PathSampleMean:
        """What :meth:`averaged_over` takes from the sample rows ``Zr`` (``s x |free|``, on the
        dimensions ``free``), computed once for any number of queries: the averages over ``s``
        of the features' cosines and sines (``D`` each) and of the update's RBF factor, folded
        into the update weights (``n x n_paths``)."""
        free = list(free)
        v = Zr @ self.W[free]  # s x D
        weights = self.update
        if self.X.shape[0] > 0:
            ls = self.hyper.lengthscale
            b_mean = rbf(Zr, self.X[:, free], ls[free], 1.0).mean(0)  # n
            weights = b_mean.unsqueeze(-1) * self.update
        return PathSampleMean(torch.cos(v).mean(0), torch.sin(v).mean(0), weights)

    def averaged_over(self, Zc: Tensor, dims: Sequence[int], rows: PathSampleMean) -> Tensor:
        """The paths averaged over sample rows of the other variables, in ``O(D + n)`` a query.

        The point ``x_{qs}`` takes ``Zc[q]`` on ``dims`` and the sample row ``s`` on the other
        dimensions (together all ``d``). Both parts of a path separate: ``cos(u + v) = cos u
        cos v - sin u sin v`` for the features and the RBF product for the update, so the
        average over ``s`` is taken once per feature and training point (``rows``, from
        :meth:`sample_mean`) instead of once per query and sample; the result equals
        ``mean_s(path(x_{qs}))``.

        Args:
            Zc: ``q x |dims|`` controlled values.
            dims: their dimensions.
            rows: :meth:`sample_mean` of the sample rows on the other dimensions.

        Returns:
            ``n_paths x q`` averages in the units of ``y`` (differentiable with respect to
            ``Zc``).
        """
        h = self.hyper
        dims = list(dims)
        u = Zc @ self.W[dims] + self.b  # q x D
        values = (torch.cos(u) * rows.cos - torch.sin(u) * rows.sin) @ self.w
        values = values + h.mean
        if self.X.shape[0] > 0:
            A = rbf(Zc, self.X[:, dims], h.lengthscale[dims], h.outputscale)  # q x n
            values = values + A @ rows.weights
        return (values * h.y_scale + h.y_shift).T


@dataclass(frozen=True)
class PathSampleMean:
    """The averages of a :class:`SamplePath` over sample rows (:meth:`SamplePath.sample_mean`).

    Attributes:
        cos: ``D``: the mean cosine of each feature's phase part of the rows.
        sin: ``D``: the mean sine.
        weights: ``n x n_paths``: the update weights times each training point's mean RBF
            factor over the rows (the update itself without training points).
    """

    cos: Tensor
    sin: Tensor
    weights: Tensor


def draw_sample_paths(
    hyper: Hyperparameters,
    X: Tensor,
    y: Tensor,
    L: Tensor,
    jitter: Tensor,
    n_features: int,
    n_paths: int,
    generator: torch.Generator,
) -> SamplePath:
    """Draw posterior sample paths by pathwise conditioning (Matheron's rule).

    A path is a prior draw approximated by ``n_features`` random Fourier features of the RBF
    kernel (Rahimi and Recht 2007), updated by the data:
    ``f(x) = f0(x) + k(x, X) (K + noise I)^{-1} (y - f0(X) - e)`` with ``e ~ N(0, noise)``
    (Wilson et al., 2020, "Efficiently sampling functions from Gaussian process posteriors").

    Args:
        hyper: the GP's hyperparameters.
        X: ``n x d`` training inputs; ``y``: their ``n`` outputs (units of ``y``).
        L: the ``n x n`` lower factor of ``K + (noise + jitter) I``; ``jitter``: ``n`` per row.
        n_features: random Fourier features of the prior.
        n_paths: the number of paths.
        generator: the source of every random draw.

    Returns:
        The paths, keeping the data and hyperparameters of this call.
    """
    d, D = X.shape[1], n_features
    f64 = torch.float64
    W = torch.randn(d, D, dtype=f64, generator=generator) / hyper.lengthscale.unsqueeze(-1)
    b = 2.0 * math.pi * torch.rand(D, dtype=f64, generator=generator)
    w = torch.randn(D, n_paths, dtype=f64, generator=generator)
    w = w * math.sqrt(2.0 * hyper.outputscale / D)
    path = SamplePath(hyper, X, W, b, w, torch.zeros(0, n_paths, dtype=torch.float64))
    if X.shape[0] > 0:
        eps = torch.randn(X.shape[0], n_paths, dtype=f64, generator=generator)
        eps = eps * (hyper.noise + jitter).sqrt().unsqueeze(-1)
        resid = hyper.residual(y).unsqueeze(-1)
        path.update = torch.cholesky_solve(resid - path.prior(X) - eps, L)
    return path

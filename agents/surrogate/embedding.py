"""The kernel mean embedding of the RBF kernel against independent truncated-normal or uniform
inputs, in closed form."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor
from torch.special import ndtr

from bocvs_env.problems.distributions import InputDistribution, TruncatedNormal, Uniform


def kernel_mean_embedding(
    X: Tensor,
    lengthscale: Tensor,
    distributions: Sequence[InputDistribution],
    dims: Sequence[int],
) -> Tensor:
    """``E[F_dims(Z, x_j)]`` for every row ``x_j`` of ``X``, with ``F_dims`` the RBF factor of
    the dimensions ``dims`` (unit output scale) and ``Z_l`` independent with the given
    distributions.

    For ``N(m, s^2)`` truncated to ``[0, 1]`` and lengthscale ``l``, one dimension gives
    ``l / sqrt(s^2 + l^2) exp(-(m - c)^2 / (2 (s^2 + l^2))) (Phi((1 - m') / s') - Phi(-m' / s'))
    / Z`` with ``s'^2 = s^2 l^2 / (s^2 + l^2)``, ``m' = (m l^2 + c s^2) / (s^2 + l^2)`` and ``Z``
    the truncated mass; uniform inputs give ``l sqrt(2 pi) (Phi((1 - c) / l) - Phi(-c / l))``.

    Args:
        X: ``n x d`` points (a GP's training inputs).
        lengthscale: ``d`` RBF lengthscales.
        distributions: one distribution per dimension of ``dims``.
        dims: the dimensions integrated out.

    Returns:
        ``n`` expected factors (a product over the dimensions).

    Raises:
        TypeError: for another distribution.
    """
    out = torch.ones(X.shape[0], dtype=torch.float64)
    for dist, l in zip(distributions, dims, strict=True):
        c = X[:, l]
        ell = float(lengthscale[l])
        if isinstance(dist, TruncatedNormal):
            m, s2, l2 = dist.mean, dist.scale**2, ell**2
            sp = math.sqrt(s2 * l2 / (s2 + l2))
            mp = (m * l2 + c * s2) / (s2 + l2)
            mass = math.erf((1.0 - m) / (dist.scale * math.sqrt(2.0))) / 2.0
            mass -= math.erf(-m / (dist.scale * math.sqrt(2.0))) / 2.0
            inside = ndtr((1.0 - mp) / sp) - ndtr(-mp / sp)
            out = (
                out
                * (ell / math.sqrt(s2 + l2))
                * torch.exp(-0.5 * (m - c) ** 2 / (s2 + l2))
                * inside
                / mass
            )
        elif isinstance(dist, Uniform):
            out = out * ell * math.sqrt(2.0 * math.pi) * (ndtr((1.0 - c) / ell) - ndtr(-c / ell))
        else:
            raise TypeError(
                f"no closed-form kernel mean embedding for {type(dist).__name__}; "
                "use TruncatedNormal or Uniform inputs, or the sample average"
            )
    return out

"""Deprecated: the exact GP algebra is :mod:`bocvs_env.gp_algebra`. This module re-exports its
names for one minor version, with a ``DeprecationWarning`` on import."""

import warnings

from bocvs_env.gp_algebra import (
    JITTERS,
    Hyperparameters,
    fit_weights,
    hyperparameters_of,
    posterior_weights,
    rbf,
    robust_cholesky,
)

__all__ = [
    "JITTERS",
    "Hyperparameters",
    "fit_weights",
    "hyperparameters_of",
    "posterior_weights",
    "rbf",
    "robust_cholesky",
]

warnings.warn(
    "bocvs_env.gp is deprecated and will be removed in 0.4: import from bocvs_env.gp_algebra",
    DeprecationWarning,
    stacklevel=2,
)

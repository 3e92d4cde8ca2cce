"""The exact GP surrogate of the model-based agents (:class:`GPSurrogate`) and its parts: the
growing Cholesky factor, the BoTorch hyperparameter fit, sample paths and the closed-form kernel
mean embedding. The GP algebra itself is :mod:`bocvs_env.gp_algebra`."""

import warnings
from typing import Any

from agents.surrogate.gp import GPMode, GPSurrogate, RefitSchedule, SurrogateMode
from agents.surrogate.paths import PathSampleMean, SamplePath
from agents.surrogate.posterior import CROSS_BLOCK_ELEMENTS, MIN_VARIANCE, FactorizedPosterior

__all__ = [
    "CROSS_BLOCK_ELEMENTS",
    "MIN_VARIANCE",
    "FactorizedPosterior",
    "GPMode",
    "GPSurrogate",
    "PathSampleMean",
    "RefitSchedule",
    "SamplePath",
    "SurrogateMode",
]


def __getattr__(name: str) -> Any:
    """``CHUNK_ELEMENTS``, the old name of :data:`CROSS_BLOCK_ELEMENTS`, with a deprecation
    warning (it is removed in version 0.4)."""
    if name == "CHUNK_ELEMENTS":
        warnings.warn(
            "agents.surrogate.CHUNK_ELEMENTS is deprecated: use CROSS_BLOCK_ELEMENTS",
            DeprecationWarning,
            stacklevel=2,
        )
        return CROSS_BLOCK_ELEMENTS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

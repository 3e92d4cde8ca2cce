"""The exact GP surrogate of the model-based agents (:class:`GPSurrogate`) and its parts: the
growing Cholesky factor, the BoTorch hyperparameter fit, sample paths and the closed-form kernel
mean embedding. The GP algebra itself is :mod:`bocvs_env.gp_algebra`."""

from agents.surrogate.gp import GPSurrogate, Mode, RefitSchedule
from agents.surrogate.paths import PathSampleMean, SamplePath
from agents.surrogate.posterior import CHUNK_ELEMENTS, MIN_VARIANCE, FactorizedPosterior

__all__ = [
    "CHUNK_ELEMENTS",
    "MIN_VARIANCE",
    "FactorizedPosterior",
    "GPSurrogate",
    "Mode",
    "PathSampleMean",
    "RefitSchedule",
    "SamplePath",
]

import numpy as np
import pytest
from scipy import stats

from bocvs_env.problems.distributions import UNIFORM_VARIANCE, TruncatedNormal, Uniform


@pytest.mark.parametrize("variance", [0.02, 0.04, 0.08])
def test_truncated_variance_is_exact(variance: float) -> None:
    p = TruncatedNormal(variance)
    assert abs(p.variance - variance) < 1e-6
    # An independent computation of the same truncated normal's variance.
    a = -0.5 / p.scale
    assert abs(stats.truncnorm(a, -a, loc=0.5, scale=p.scale).var() - variance) < 1e-6


def test_icdf_maps_into_unit_interval_with_mean_half() -> None:
    p = TruncatedNormal(0.04)
    u = np.linspace(0, 1, 10001)
    z = p.icdf(u)
    assert z.min() >= 0 and z.max() <= 1
    assert np.all(np.diff(z) >= 0)
    assert abs(p.icdf(np.array(0.5)) - 0.5) < 1e-12
    samples = p.sample(np.random.default_rng(0), 200_000)
    assert abs(samples.mean() - 0.5) < 3e-3
    assert abs(samples.var() - 0.04) < 1e-3


@pytest.mark.parametrize("bad", [0.0, -0.01, UNIFORM_VARIANCE, 0.2, float("nan")])
def test_impossible_variance_is_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="target_variance"):
        TruncatedNormal(bad)


def test_uniform() -> None:
    u = Uniform()
    assert u.variance == UNIFORM_VARIANCE
    assert np.array_equal(u.icdf(np.array([0.25])), [0.25])

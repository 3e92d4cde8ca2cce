"""The argument checks of ``bocvs_env.checks``, shared by the environment and the agents: a
wrong type is a ``TypeError``, a wrong value a ``ValueError``, each naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from bocvs_env import checks


@pytest.mark.parametrize("value", [True, "1", None, 1j, [1.0]])
def test_a_positive_number_of_another_type_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError, match=r"^noise must be a real number, got "):
        checks.check_positive_finite(noise=value)


@pytest.mark.parametrize("value", [0, 0.0, -1.0, float("inf"), float("nan")])
def test_a_number_not_positive_and_finite_is_a_value_error(value: float) -> None:
    with pytest.raises(ValueError, match=r"^noise must be positive and finite, got "):
        checks.check_positive_finite(outputscale=1.0, noise=value)


@pytest.mark.parametrize("value", [2.5, 2.0, "2", True, None])
def test_a_positive_integer_of_another_type_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError, match=r"^n_samples must be an integer, got "):
        checks.check_positive_integers(n_samples=value)


@pytest.mark.parametrize("value", [0, -3, np.int64(0)])
def test_an_integer_below_one_is_a_value_error(value: int) -> None:
    with pytest.raises(ValueError, match=r"^n_samples must be a positive integer, got "):
        checks.check_positive_integers(maxiter=5, n_samples=value)


def test_an_optional_positive_integer_may_be_none_and_is_checked_otherwise() -> None:
    checks.check_optional_positive_integers(batch_limit=None, maxiter=3)
    with pytest.raises(ValueError, match=r"^maxiter must be a positive integer, got 0"):
        checks.check_optional_positive_integers(batch_limit=None, maxiter=0)
    with pytest.raises(TypeError, match=r"^maxiter must be an integer, got 1.5"):
        checks.check_optional_positive_integers(maxiter=1.5)


def test_valid_values_pass_and_come_back_as_python_numbers() -> None:
    checks.check_positive_finite(noise=1e-4, outputscale=np.float64(2.0), lengthscale=3)
    checks.check_positive_integers(n_samples=128, maxiter=np.int32(1))
    assert checks.positive(np.float32(0.5), "x") == 0.5
    assert type(checks.positive_integer(np.int64(3), "n")) is int

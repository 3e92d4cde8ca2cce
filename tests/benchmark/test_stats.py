"""The paired bootstrap interval and its verdicts (:mod:`bocvs_env.benchmark.stats`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bocvs_env.benchmark.stats import PairedInterval, paired_bootstrap


def test_constant_difference_gives_that_constant() -> None:
    iv = paired_bootstrap(np.full(5, -0.25), n_resamples=500)
    assert (iv.n, iv.mean, iv.low, iv.high) == (5, -0.25, -0.25, -0.25)
    assert iv.verdict() == "win"
    assert iv.verdict(lower_is_better=False) == "loss"


def test_interval_lies_within_the_differences_and_holds_the_mean() -> None:
    diffs = np.array([-3.0, -1.0, 0.5, 2.0, 4.0, -2.0])
    iv = paired_bootstrap(diffs, n_resamples=2000, seed=1)
    assert diffs.min() <= iv.low <= iv.mean <= iv.high <= diffs.max()
    assert iv.mean == pytest.approx(0.5 / 6)
    assert iv.verdict() == "tie"  # the interval contains 0


def test_differences_of_one_sign_win_or_lose() -> None:
    assert paired_bootstrap([-1.0, -2.0, -1.5], n_resamples=1000).verdict() == "win"
    assert paired_bootstrap([1.0, 2.0, 1.5], n_resamples=1000).verdict() == "loss"
    assert paired_bootstrap([0.0, 0.0, 0.0], n_resamples=1000).verdict() == "tie"


def test_seeded_and_reproducible() -> None:
    diffs = np.random.default_rng(0).normal(size=10)
    a = paired_bootstrap(diffs, n_resamples=300, seed=7)
    assert a == paired_bootstrap(diffs, n_resamples=300, seed=7)
    assert a != paired_bootstrap(diffs, n_resamples=300, seed=8)


def test_fewer_than_two_pairs_give_no_interval_and_a_tie() -> None:
    one = paired_bootstrap([-5.0])
    assert one.n == 1 and one.mean == -5.0 and math.isnan(one.low) and math.isnan(one.high)
    assert one.verdict() == "tie"
    none = paired_bootstrap([])
    assert none.n == 0 and math.isnan(none.mean) and none.verdict() == "tie"


@pytest.mark.parametrize(
    ("diffs", "kwargs", "match"),
    [
        ([1.0, np.nan], {}, "finite"),
        ([1.0, 2.0], {"n_resamples": 0}, "n_resamples"),
        ([1.0, 2.0], {"level": 1.0}, "level"),
    ],
)
def test_bad_input_is_named(diffs: list[float], kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        paired_bootstrap(diffs, **kwargs)


def test_verdict_reads_the_interval() -> None:
    assert PairedInterval(3, 1.0, 0.5, 1.5, 0.95).verdict() == "loss"
    assert PairedInterval(3, 1.0, 0.5, 1.5, 0.95).verdict(lower_is_better=False) == "win"
    assert PairedInterval(3, 0.0, 0.0, 1.5, 0.95).verdict() == "tie"  # 0 at the edge is inside

"""Relevance by feature collapsing and the set rules built on it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.rules.relevance import (
    cheapest_covering_set,
    collapse_relevance,
    redundant_sets,
    relevant_variables,
)
from agents.surrogate import GPSurrogate
from bocvs_env.problems.registry import SETS_12D, SETS_AIRFOIL

CHEAP = np.array([0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0])


def test_relevant_variables_is_a_cut_relative_to_the_largest() -> None:
    assert relevant_variables(np.array([1.0, 0.5, 0.05, 0.0]), 0.1) == [0, 1]
    assert relevant_variables(np.zeros(3), 0.1) == [0, 1, 2]  # nothing learned: rule none out
    with pytest.raises(ValueError, match="threshold"):
        relevant_variables(np.ones(2), 1.5)


def test_the_full_set_is_redundant_once_dims_6_to_11_are_inert() -> None:
    assert redundant_sets(SETS_12D, range(6), CHEAP) == [5, 6]  # {6..11} and the full set
    assert redundant_sets(SETS_12D, range(12), CHEAP) == []
    # {0, 3}: no cheaper subset of {0..5} holds both, but {0..5} holds the full set's
    assert redundant_sets(SETS_12D, [0, 3], CHEAP) == [5, 6]
    # a set is never ruled out for a cheaper set that is not its subset
    sets = ((0, 1), (1, 2))
    assert redundant_sets(sets, [1], np.array([0.1, 0.2])) == []


def test_cheapest_covering_set() -> None:
    relevance = np.ones(12)
    assert cheapest_covering_set(SETS_12D, relevance, [0, 1], CHEAP) == 0
    assert cheapest_covering_set(SETS_12D, relevance, [0, 4], CHEAP) == 4
    assert cheapest_covering_set(SETS_12D, relevance, [0, 7], CHEAP) == 6
    # no airfoil set covers {0, 1, 2}: the sets covering most relevance compete
    relevance5 = np.array([1.0, 1.0, 0.2, 0.0, 0.0])
    costs = np.full(7, 0.1)
    assert cheapest_covering_set(SETS_AIRFOIL, relevance5, [0, 1, 2], costs) == 5  # {0, 1}


def test_collapse_relevance_finds_the_variable_a_function_uses() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = np.sin(6 * X[:, 0])  # only x0 matters
    gp = GPSurrogate(3, mode="fixed", lengthscale=0.3)
    gp.fit(X, y)
    samples = torch.rand(64, 3, generator=torch.Generator().manual_seed(1)).numpy()
    r = collapse_relevance(gp, samples[:8], samples)
    assert r.shape == (3,)
    assert r[0] > 5 * max(r[1], r[2])
    assert relevant_variables(r, 0.1) == [0]

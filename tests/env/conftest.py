"""Fixtures for tests that run every registered id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest

from bocvs_env.problems.registry import PROBLEMS


@pytest.fixture
def id_kwargs(request: pytest.FixtureRequest) -> Callable[[str], dict[str, Any]]:
    """``gymnasium.make`` keywords a registered id needs in tests.

    The real-world problems get the data directory with the airfoil file thinned
    (:func:`quick_data_dir`; skipping without data). Problem families get
    a two-function slice of their seed range, so that repeated resets reuse memoized members
    instead of building a new function each time (the full ranges are tested in
    ``test_families.py``).
    """

    def kwargs(env_id: str) -> dict[str, Any]:
        spec = gym.spec(env_id).kwargs
        problem = spec.get("problem")
        if problem in PROBLEMS and PROBLEMS[problem].needs_data:
            return {"data_dir": request.getfixturevalue("quick_data_dir")}
        if "family" in spec:
            from bocvs_env.problems.families import SPLITS

            lo = SPLITS[spec["split"]][0]
            return {"function_seeds": (lo, lo + 2)}
        return {}

    return kwargs

"""The agents' argument checks are ``bocvs_env.checks`` (tested in tests/env/test_checks.py); the
old module ``agents.checks`` stays for one minor version as a deprecated alias."""

from __future__ import annotations

import importlib
import sys

import pytest

from bocvs_env import checks


def test_the_agents_old_module_warns_and_gives_the_same_checks() -> None:
    sys.modules.pop("agents.checks", None)
    with pytest.warns(DeprecationWarning, match=r"agents\.checks is deprecated.*bocvs_env\.checks"):
        old = importlib.import_module("agents.checks")
    assert old.check_positive_finite is checks.check_positive_finite
    assert old.check_positive_integers is checks.check_positive_integers

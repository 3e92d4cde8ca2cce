"""The packages' names load on first use: importing them does not import torch, and every
exported name still resolves (and to the object its defining module holds)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = ("bocvs_env", "bocvs_env.problems", "bocvs_env.benchmark")


def test_importing_the_packages_does_not_import_torch() -> None:
    code = f"import sys\nfor p in {PACKAGES!r}: __import__(p)\nprint('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None and name in dir(module)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = module.nope


def test_a_lazy_name_is_the_defining_modules_object() -> None:
    import bocvs_env
    from bocvs_env.env import BOCVSEnv
    from bocvs_env.problems.registry import make_problem

    assert bocvs_env.BOCVSEnv is BOCVSEnv and bocvs_env.make_problem is make_problem

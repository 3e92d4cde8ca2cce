"""Shared fixtures: the data directory and an isolated cache directory."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest


def _shipped_data() -> Path:
    """The data files shipped with the package (``bocvs_env.problems.data.SHIPPED_DIR``),
    found without importing ``bocvs_env``, so that collecting the tests does not import torch
    before pytest's header."""
    spec = importlib.util.find_spec("bocvs_env")
    assert spec is not None and spec.submodule_search_locations is not None
    return Path(next(iter(spec.submodule_search_locations))) / "problems" / "data_files"


def _data_path() -> Path:
    return Path(os.environ.get("BOCVS_DATA_DIR") or _shipped_data())


def _pin_data_dir() -> None:
    """Make ``$BOCVS_DATA_DIR`` absolute once, at the start, and refuse one that names no folder.

    A relative path (``../shared/data``, as CI sets it) would otherwise be read against whatever
    the working directory is when a test, a worker or a subprocess first looks; and a folder the
    user named but that is not there is a mistake to report, not a reason to test the shipped
    copies instead.
    """
    named = os.environ.get("BOCVS_DATA_DIR")
    if not named:
        return
    path = Path(named).resolve()
    if not path.is_dir():
        raise pytest.UsageError(
            f"BOCVS_DATA_DIR={named} is not a folder; unset it to test the data files shipped "
            "with the package (docs/data-files.md)"
        )
    os.environ["BOCVS_DATA_DIR"] = str(path)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real-world data: ``$BOCVS_DATA_DIR``, else the copies shipped with the package."""
    return _data_path()


#: The airfoil data file's name (``bocvs_env.problems.airfoil.AIRFOIL_FILE``, not imported here
#: so that collecting the tests does not import torch before pytest's header).
AIRFOIL_FILE = "airfoil_self_noise.dat"


@pytest.fixture(scope="session")
def quick_data_dir(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real-world data with the airfoil file thinned to every 10th row (151 of 1,503).

    The airfoil objective is a GP fitted to its file, once per file and cached; on the whole file
    the fit takes a minute or more, on the thinned one seconds. Tests of the environment's
    mechanics on the airfoil id (spaces, checkers, budgets, bad input) run on this folder; the
    tests of the real fit itself use :func:`data_dir` and are marked slow.
    """
    folder = tmp_path_factory.mktemp("quick-data")
    for source in data_dir.iterdir():
        if source.name == AIRFOIL_FILE:
            lines = source.read_text().splitlines()
            (folder / source.name).write_text("\n".join(lines[::10]) + "\n")
        elif source.is_file():
            (folder / source.name).symlink_to(source.resolve())
    return folder


def pytest_configure(config: pytest.Config) -> None:
    """Pin the data folder (:func:`_pin_data_dir`), and one torch/BLAS thread per pytest-xdist
    worker (``-n auto`` runs one worker per core, and more threads than cores only make them
    wait for each other); before torch is imported."""
    _pin_data_dir()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(name, "1")


def pytest_report_header() -> str:
    """Say at the start which data files the plant and airfoil tests read."""
    named = os.environ.get("BOCVS_DATA_DIR")
    return f"bocvs data: {_data_path()} ({'BOCVS_DATA_DIR' if named else 'shipped copies'})"


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One fresh oracle/model cache for the whole test session (never the user's own)."""
    os.environ["BOCVS_CACHE_DIR"] = str(tmp_path_factory.mktemp("bocvs-cache"))


@pytest.fixture(scope="session", autouse=True)
def _sb3_log_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Stable-Baselines3's logs in the session's temporary folder: without ``SB3_LOGDIR`` each
    ``learn()`` leaves a folder ``SB3-<time>`` in the system's temporary directory."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))

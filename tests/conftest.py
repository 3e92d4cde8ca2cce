"""Shared fixtures: the data directory and an isolated cache directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


#: What a skip for want of data says (the README's section tells where the files come from).
NO_DATA = (
    "set BOCVS_DATA_DIR to the folder of plant_svgp.npz and airfoil_self_noise.dat (README: Data)"
)


def _data_path() -> Path:
    return Path(os.environ.get("BOCVS_DATA_DIR", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real-world data: ``$BOCVS_DATA_DIR`` or ``../shared/data`` beside the repository."""
    path = _data_path()
    if not path.is_dir():
        pytest.skip(f"no data directory at {path}; {NO_DATA}")
    return path


def pytest_report_header() -> str:
    """Say at the start whether the plant and airfoil tests will run."""
    path = _data_path()
    if path.is_dir():
        return f"bocvs data: {path} (the plant and airfoil tests run)"
    return f"bocvs data: none at {path}; the plant and airfoil tests will skip ({NO_DATA})"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Count the tests skipped for want of data, in one line at the end."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if NO_DATA in str(r.longrepr)]
    if skipped:
        terminalreporter.write_sep(
            "=", f"{len(skipped)} plant/airfoil tests skipped without data: {NO_DATA}", yellow=True
        )


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One fresh oracle/model cache for the whole test session (never the user's own)."""
    os.environ["BOCVS_CACHE_DIR"] = str(tmp_path_factory.mktemp("bocvs-cache"))

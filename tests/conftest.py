"""Shared fixtures: the data directory and an isolated cache directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real-world data: ``$BOCVS_DATA_DIR`` or ``../shared/data`` beside the repository."""
    path = Path(os.environ.get("BOCVS_DATA_DIR", REPO.parent / "shared" / "data"))
    if not path.is_dir():
        pytest.skip(f"no data directory at {path}; set BOCVS_DATA_DIR")
    return path


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One fresh oracle/model cache for the whole test session (never the user's own)."""
    os.environ["BOCVS_CACHE_DIR"] = str(tmp_path_factory.mktemp("bocvs-cache"))

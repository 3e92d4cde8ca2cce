"""The example problem file of the docs (docs/own-process.md), in a test's folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

#: ``process.toml`` (the issue's keys, as given there) and the ``flow.csv`` it names.
DATA = Path(__file__).parent / "data"


@pytest.fixture
def process_file(tmp_path: Path) -> Path:
    """``process.toml`` and ``flow.csv`` copied into a fresh folder: the TOML's path."""
    for name in ("process.toml", "flow.csv"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path / "process.toml"

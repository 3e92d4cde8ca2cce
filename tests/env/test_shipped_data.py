"""The data files shipped with the package: where they are read from, that a named folder
overrides them, and that they are the files of the data page's sources."""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from pathlib import Path

import pytest

from bocvs_env.problems.airfoil import AIRFOIL_FILE, airfoil
from bocvs_env.problems.data import DATA_DIR_ENV, SHIPPED_DIR, SOURCES, data_file, file_digest
from bocvs_env.problems.plant import PLANT_FILE, plant

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]

#: The sha256 of each file as its source distributes it (the copies in ``../shared/data`` that
#: the project took them from); a changed copy is a changed problem.
SOURCE_DIGESTS = {
    "airfoil_self_noise.dat": "0991959f50e3f333a8baa731eedee4ade994c8f07701f7873eddf15bbf671f56",
    "plant_svgp.npz": "49fe6910d1857c9eafafb7bb18ab2709e903480b293ceee2b920a3603f6a989b",
    "airfoil_gp_reference.npz": "d0e7f00507775eab3aff4dc40ddfbea150c2dd9f3509bba5474b2abe49d314ef",
}


def test_the_shipped_copies_are_the_files_of_their_sources() -> None:
    """Each shipped file has its source's digest and, where ``BOCVS_DATA_DIR`` is set (CI sets
    it to the project's shared copy), the bytes of the file of that name there."""
    assert sorted(SOURCES) == sorted(SOURCE_DIGESTS)
    assert {name: file_digest(SHIPPED_DIR / name) for name in SOURCES} == SOURCE_DIGESTS
    named = os.environ.get(DATA_DIR_ENV)
    for name in SOURCES if named else ():
        assert (Path(str(named)) / name).read_bytes() == (SHIPPED_DIR / name).read_bytes(), name


def test_the_licences_and_attribution_ship_beside_the_files() -> None:
    readme = (SHIPPED_DIR / "README.md").read_text()
    assert all(name in readme for name in SOURCES)
    assert "CC BY 4.0" in (SHIPPED_DIR / "LICENSE-airfoil").read_text()
    assert "MIT License" in (SHIPPED_DIR / "LICENSE-UCB-CVS").read_text()


def test_the_package_data_covers_every_shipped_file() -> None:
    """``pip install .`` (not only an editable install) carries the files and their licences."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["bocvs_env"]
    package = REPO / "bocvs_env"
    shipped = [p.relative_to(package).as_posix() for p in SHIPPED_DIR.iterdir()]
    assert shipped and all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in shipped)


def test_without_a_folder_the_shipped_copies_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    assert data_file(PLANT_FILE) == SHIPPED_DIR / PLANT_FILE
    assert plant().digest == SOURCE_DIGESTS[PLANT_FILE]
    monkeypatch.setenv(DATA_DIR_ENV, "")  # an empty variable names no folder
    assert data_file(AIRFOIL_FILE) == SHIPPED_DIR / AIRFOIL_FILE


def test_a_named_folder_overrides_the_shipped_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / PLANT_FILE).write_bytes((SHIPPED_DIR / PLANT_FILE).read_bytes())
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert data_file(PLANT_FILE) == tmp_path / PLANT_FILE
    other = tmp_path / "other"
    other.mkdir()
    (other / PLANT_FILE).write_bytes((SHIPPED_DIR / PLANT_FILE).read_bytes())
    assert data_file(PLANT_FILE, other) == other / PLANT_FILE  # the argument before the variable


def test_a_named_folder_without_the_file_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never a silent fall-back to the shipped copy: the user asked for their own file."""
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path))) as err:
        plant()
    assert PLANT_FILE in str(err.value) and "UCB-CVS" in str(err.value)
    assert AIRFOIL_FILE not in str(err.value) and len(str(err.value).splitlines()) == 1
    with pytest.raises(FileNotFoundError, match="does not exist") as err:
        airfoil(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(err.value)

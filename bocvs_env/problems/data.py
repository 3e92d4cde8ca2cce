"""Reading the real-world problems' data files: the copies shipped with the package, or a
directory the user names.

The files are data, not code: the library reads them and never writes, downloads or executes
them. The package ships them (:data:`SHIPPED_DIR`, with their licences and attribution beside
them); a directory is resolved from an argument, else ``$BOCVS_DATA_DIR``, else the shipped
copies. A named directory overrides the shipped copies for every file: a file missing from it
raises :class:`FileNotFoundError` naming the file, the directory searched and where to get it
(never a silent fall-back to another copy), and a malformed one raises :class:`ValueError`
naming the file and what is wrong with it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

#: The environment variable naming the data directory when no ``data_dir`` is given.
DATA_DIR_ENV = "BOCVS_DATA_DIR"
#: The copies of the data files shipped with the package (package data, with ``README.md`` and
#: the licences of their sources).
SHIPPED_DIR = Path(__file__).resolve().parent / "data_files"

_DATA_README = "the documentation's data files page (docs/data-files.md)"
#: Where each known file comes from, for the error message of a missing file.
SOURCES: dict[str, str] = {
    "airfoil_self_noise.dat": (
        "the UCI Machine Learning Repository, Airfoil Self-Noise (dataset id 291): "
        "https://archive.ics.uci.edu/dataset/291/airfoil+self+noise (the tab-separated "
        "airfoil_self_noise.dat inside the zip, 1503 rows x 6 columns, no header)"
    ),
    "plant_svgp.npz": (
        "the plant growth model published with the UCB-CVS code of Tay et al. (NeurIPS 2023, "
        "'Bayesian Optimization with Cost-varying Variable Subsets', MIT licence), saved as an "
        "npz with arrays Z, q_mu, kernel_variance, kernel_lengthscales, jitter, bounds, "
        "data_mean, data_std"
    ),
    "airfoil_gp_reference.npz": (
        "the GP that the UCB-CVS code fitted to the UCI airfoil data, saved as an npz with arrays "
        "X, y, lengthscale, outputscale, noise, mean_constant"
    ),
}

#: An array's expected shape: ``None`` entries match any length.
Shape = tuple[int | None, ...]


def resolve_data_dir(data_dir: str | Path | None) -> Path:
    """The data directory: ``data_dir`` if given, else ``$BOCVS_DATA_DIR`` if set and not
    empty, else the shipped copies (:data:`SHIPPED_DIR`).

    Raises:
        FileNotFoundError: when the directory named (by argument or variable) does not exist.
    """
    if data_dir is None:
        data_dir = os.environ.get(DATA_DIR_ENV) or SHIPPED_DIR
    path = Path(data_dir).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"data directory {str(path)!r} does not exist or is not a folder")
    return path


def data_file(name: str, data_dir: str | Path | None = None) -> Path:
    """The path of the data file ``name`` in the resolved data directory
    (:func:`resolve_data_dir`).

    Raises:
        FileNotFoundError: naming the file, the directory searched and where to get the file.
    """
    folder = resolve_data_dir(data_dir)
    path = folder / name
    if not path.is_file():
        source = SOURCES.get(name, _DATA_README)
        raise FileNotFoundError(
            f"data file {name!r} not found in {str(folder)!r} (searched {str(path)!r}); "
            f"get it from {source} and put it in that folder, or point data_dir / "
            f"${DATA_DIR_ENV} at a folder that has it (with neither, the copies shipped with "
            f"bocvs are read)"
        )
    return path


def file_digest(path: Path) -> str:
    """The sha256 hex digest of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_array(path: Path, key: str, array: np.ndarray, shape: Shape) -> np.ndarray:
    if not np.issubdtype(array.dtype, np.number):
        raise ValueError(f"{path}: array {key!r} is not numeric (dtype {array.dtype})")
    if array.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(array.shape, shape, strict=True)
    ):
        want_str = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{path}: array {key!r} has shape {array.shape}, expected {want_str}")
    out = array.astype(np.float64)
    if not np.isfinite(out).all():
        raise ValueError(f"{path}: array {key!r} has non-finite values")
    return out


def load_npz(path: Path, shapes: dict[str, Shape]) -> dict[str, np.ndarray]:
    """Read the arrays ``shapes`` names from an npz file, checked and as float64.

    Args:
        path: the npz file.
        shapes: each required array's shape (``None`` for a free length; ``()`` for a scalar).

    Raises:
        ValueError: the file is not a readable npz, misses an array, or an array is not numeric,
            has the wrong shape or has non-finite values.
    """
    try:
        with np.load(path, allow_pickle=False) as npz:
            found = {key: npz[key] for key in shapes if key in npz.files}
            present = sorted(npz.files)
    except Exception as err:  # zip, pickle, format and OS errors of an unreadable file
        raise ValueError(f"{path}: not a readable npz file ({err})") from err
    missing = sorted(set(shapes) - set(found))
    if missing:
        raise ValueError(f"{path}: missing arrays {missing} (it has {present})")
    return {key: _check_array(path, key, found[key], shape) for key, shape in shapes.items()}


def load_table(path: Path, n_columns: int) -> np.ndarray:
    """Read a whitespace-separated numeric table without header, as ``n x n_columns`` float64.

    Raises:
        ValueError: the file has non-numeric entries, ragged rows, no rows, the wrong number of
            columns or non-finite values.
    """
    try:
        table = np.loadtxt(path, dtype=np.float64, ndmin=2)
    except ValueError as err:
        raise ValueError(f"{path}: not a numeric table ({err})") from err
    if table.shape[0] == 0:
        raise ValueError(f"{path}: the table has no rows")
    return _check_array(path, "table", table, (None, n_columns))

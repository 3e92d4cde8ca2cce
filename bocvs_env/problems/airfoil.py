"""The airfoil self-noise objective: the posterior mean of a GP fitted to the UCI data.

As the papers build it (see the data README): from ``airfoil_self_noise.dat`` take the base-10
logarithm of the frequency and the suction-side displacement thickness (columns 1 and 5), min-max
scale the five inputs to ``[0, 1]``, standardize the sound pressure level, fit a BoTorch
``SingleTaskGP`` with its defaults (an ARD RBF kernel, a constant mean, a ``Standardize``
outcome transform) by ``fit_gpytorch_mll``, and take its posterior mean as ``f`` (maximized: the
sound pressure level).

The fit runs once per data file (about a minute on two cores; 3 to 4 minutes on a heavily loaded
machine) with a fixed seed and exact Cholesky solves, and is cached in
``cache_dir()/airfoil-gp-v<FIT_VERSION>[-reproducible]-<key>.npz``, keyed by the sha256 of the
file's bytes, :data:`FIT_VERSION` and the numerics mode of the process
(:func:`bocvs_env.numerics.requested_numerics`). The objective is the fit, so its last bits are
the fit's: a fit made in a ``reproducible`` process (kernels pinned, one thread) is meant to be
the same on x86-64 machines of one CPU vendor with AVX2, while a ``fast`` process's depends on
the machine's kernels and on the threads of the process that fitted it first, and never stands
in for it. The cache holds
the hyperparameters, the training inputs and the precomputed weights
``y_std s (K + noise I)^{-1} (y - c)`` (``s`` the kernel's output scale, 1 for BoTorch's default
model), so that
``f(x) = y_mean + y_std c + k(x, X) @ weights`` is cheap, plus the range of ``f`` over the cube
that a multi-start search found at fit time. A cache file that cannot be read, or does not match,
is refitted and replaced atomically; a cache folder that cannot be written gives a warning, not
an error.

``f`` is shifted by ``AIRFOIL_MARGIN - min``, so ``f >= AIRFOIL_MARGIN`` wherever the search was
right and ``f >= 0`` unless it missed a value lower by more than the margin.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import gpytorch
import numpy as np
import torch
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from gpytorch.mlls import ExactMarginalLogLikelihood
from torch import Tensor

from bocvs_env.goal import cache_dir
from bocvs_env.gp_algebra import fit_weights, hyperparameters_of
from bocvs_env.numerics import requested_numerics
from bocvs_env.problems.data import data_file, file_digest, load_npz, load_table
from bocvs_env.problems.extrema import extremes_on_cube
from bocvs_env.problems.kernel_mean import SEKernelMean
from bocvs_env.problems.objective import Objective

AIRFOIL_FILE = "airfoil_self_noise.dat"
#: Bump when the fit changes (data preparation, model, optimizer, search), to ignore old caches.
FIT_VERSION = 1
#: The seed of the fit (its random restarts, if any) and of the search for the range of ``f``.
FIT_SEED = 0
#: Subtracted from the minimum found, in standardized units, in case the search missed lower.
AIRFOIL_MARGIN = 0.05
#: The cached arrays and their shapes (``n`` training points).
_CACHE_SHAPES: dict[str, tuple[int | None, ...]] = {
    "fit_version": (),
    "train_X": (None, 5),
    "weights": (None,),
    "lengthscale": (5,),
    "noise": (),
    "mean_constant": (),
    "y_mean": (),
    "y_std": (),
    "min_value": (),
    "argmin": (5,),
    "max_value": (),
    "argmax": (5,),
    "fit_seconds": (),
}


def prepare_airfoil_data(table: np.ndarray) -> tuple[Tensor, Tensor]:
    """The papers' inputs and output from the raw ``n x 6`` table.

    Returns:
        ``X`` (``n x 5``, in ``[0, 1]``: log10 of columns 0 and 4, then min-max scaled) and ``y``
        (``n x 1``, standardized to mean 0 and standard deviation 1), float64.

    Raises:
        ValueError: a non-positive frequency or thickness (no logarithm), or a constant input.
    """
    X = table[:, :5].copy()
    if (X[:, [0, 4]] <= 0).any():
        raise ValueError("frequency (column 1) and thickness (column 5) must be positive")
    X[:, [0, 4]] = np.log10(X[:, [0, 4]])
    lo, hi = X.min(axis=0), X.max(axis=0)
    if (hi <= lo).any():
        raise ValueError(f"inputs {np.flatnonzero(hi <= lo).tolist()} (0-based) are constant")
    y = table[:, 5:6]
    if y.std() == 0:
        raise ValueError("the sound pressure level (column 6) is constant")
    return torch.from_numpy((X - lo) / (hi - lo)), torch.from_numpy((y - y.mean()) / y.std())


def fit_airfoil_gp(X: Tensor, y: Tensor) -> dict[str, np.ndarray]:
    """Fit the ``SingleTaskGP`` and find the range of its posterior mean over the cube.

    Args:
        X: ``n x 5`` inputs in ``[0, 1]``.
        y: ``n x 1`` standardized outputs.

    Returns:
        The arrays of :data:`_CACHE_SHAPES`.

    Raises:
        RuntimeError: if the closed-form mean disagrees with BoTorch's posterior mean (a change
            of BoTorch's default model that this module does not know).
        TypeError: if BoTorch's default kernel is no longer an RBF kernel
            (:func:`bocvs_env.gp_algebra.hyperparameters_of`).
    """
    start = time.perf_counter()
    with torch.random.fork_rng(), gpytorch.settings.max_cholesky_size(100_000):
        torch.manual_seed(FIT_SEED)
        model = SingleTaskGP(X, y)
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
        model.eval()
        with torch.no_grad():
            hyper = hyperparameters_of(model)
            weights, _ = fit_weights(X, y.squeeze(-1), hyper)
            # the output scale is folded into the weights: the cache keeps no kernel variance
            mean = SEKernelMean(
                X,
                hyper.lengthscale,
                hyper.y_scale * hyper.outputscale * weights,
                offset=hyper.y_shift + hyper.y_scale * hyper.mean,
            )
            check = X[:: max(X.shape[0] // 64, 1)]
            botorch_mean = model.posterior(check).mean.squeeze(-1)
    if not torch.allclose(mean(check), botorch_mean, atol=1e-6):
        raise RuntimeError("the closed-form posterior mean disagrees with BoTorch's model")
    ext = extremes_on_cube(mean, 5, n_raw=16384, n_starts=32, seed=FIT_SEED)
    return {
        "fit_version": np.array(FIT_VERSION),
        "train_X": X.numpy(),
        "weights": mean.weights.numpy(),
        "lengthscale": hyper.lengthscale.numpy(),
        "noise": np.array(hyper.noise),
        "mean_constant": np.array(hyper.mean),
        "y_mean": np.array(hyper.y_shift),
        "y_std": np.array(hyper.y_scale),
        "min_value": np.array(ext.min_value),
        "argmin": ext.argmin.numpy(),
        "max_value": np.array(ext.max_value),
        "argmax": ext.argmax.numpy(),
        "fit_seconds": np.array(time.perf_counter() - start),
    }


def fit_cache_path(digest: str) -> Path:
    """Where the fit of the data file with sha256 ``digest`` is cached (under ``cache_dir()``) for
    the numerics mode of this process (a ``fast`` fit keeps the name it had before the modes)."""
    mode = "-reproducible" if requested_numerics() == "reproducible" else ""
    return cache_dir() / f"airfoil-gp-v{FIT_VERSION}{mode}-{digest[:24]}.npz"


def _read_cache(path: Path) -> dict[str, np.ndarray] | None:
    """The cached fit, or ``None`` when it is missing, unreadable, stale or inconsistent."""
    if not path.is_file():
        return None
    try:
        fit = load_npz(path, _CACHE_SHAPES)
    except (ValueError, OSError):
        return None
    if int(fit["fit_version"]) != FIT_VERSION or fit["weights"].shape[0] != fit["train_X"].shape[0]:
        return None
    return fit


def _write_cache(path: Path, fit: dict[str, np.ndarray]) -> None:
    """Write ``fit`` to ``path`` atomically (a temporary file in the same folder, then a rename).

    A failure leaves no partial file and warns (the fit is still used, just not cached).
    """
    tmp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz.tmp", delete=False) as tmp:
            tmp_name = tmp.name
            np.savez(tmp, allow_pickle=False, **fit)  # numeric arrays only, as load_npz reads
        os.replace(tmp_name, path)
    except OSError as err:
        if tmp_name is not None:
            Path(tmp_name).unlink(missing_ok=True)
        warnings.warn(f"could not cache the airfoil fit at {path}: {err}", stacklevel=3)


class AirfoilObjective(Objective):
    """The fitted GP's posterior mean on ``[0, 1]^5``, shifted by ``AIRFOIL_MARGIN - min``.

    Args:
        fit: the arrays of a fit (see :func:`fit_airfoil_gp`).
        digest: the sha256 of the data file, part of :meth:`describe` so caches key on it.
        cache_path: where the fit is cached (``None`` when not cached).

    :meth:`describe` also gives ``fit_sha256``, a digest of the fitted model, so that a cache
    keyed on it (the oracle's) notices a fit that differs, from another BoTorch version say.

    Attributes:
        fit: the fit's arrays (hyperparameters, ``fit_seconds``, the range found).
    """

    name = "airfoil"
    dim = 5

    def __init__(self, fit: dict[str, np.ndarray], digest: str, cache_path: Path | None) -> None:
        self.fit = fit
        self.digest = digest
        self.cache_path = cache_path
        fitted = (fit["weights"], fit["lengthscale"], fit["noise"], fit["mean_constant"])
        self.fit_digest = hashlib.sha256(b"".join(a.tobytes() for a in fitted)).hexdigest()
        self.mean = SEKernelMean(
            torch.from_numpy(fit["train_X"]),
            torch.from_numpy(fit["lengthscale"]),
            torch.from_numpy(fit["weights"]),
            offset=float(fit["y_mean"] + fit["y_std"] * fit["mean_constant"]),
        )
        self.shift = AIRFOIL_MARGIN - float(fit["min_value"])
        self.optimal_value = float(fit["max_value"]) + self.shift
        self.optimizers = torch.from_numpy(fit["argmax"])[None]  # 1 x 5

    def raw(self, X: Tensor) -> Tensor:
        """The posterior mean; ``X`` is ``batch_shape x 5`` in ``[0, 1]``, returns ``batch_shape``."""
        return self.mean(X)

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "file": AIRFOIL_FILE,
            "sha256": self.digest,
            "fit_version": FIT_VERSION,
            "fit_sha256": self.fit_digest,
        }


def airfoil(data_dir: str | Path | None = None, cache: bool = True) -> AirfoilObjective:
    """The airfoil objective from ``airfoil_self_noise.dat`` in ``data_dir``, else
    ``$BOCVS_DATA_DIR``, else the copy shipped with the package.

    Args:
        data_dir: the folder holding the data file.
        cache: reuse (and write) the fitted model in ``cache_dir()``; ``False`` always refits
            and writes nothing.

    Raises:
        FileNotFoundError: the directory or the file is missing (the message says where to get it).
        ValueError: the file is malformed (the message names the file and the problem).
    """
    path = data_file(AIRFOIL_FILE, data_dir)
    digest = file_digest(path)
    cache_path = fit_cache_path(digest) if cache else None
    fit = _read_cache(cache_path) if cache_path is not None else None
    if fit is None:
        table = load_table(path, 6)
        try:
            X, y = prepare_airfoil_data(table)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from err
        fit = fit_airfoil_gp(X, y)
        if cache_path is not None:
            _write_cache(cache_path, fit)
    return AirfoilObjective(fit, digest, cache_path)

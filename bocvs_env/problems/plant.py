"""The plant growth simulator of Tay et al. (NeurIPS 2023): a whitened sparse GP's mean.

The model (``plant_svgp.npz``, see the data README) predicts the standardized maximum leaf area
of Marchantia plants from 5 nutrient inputs: Ca, B, NH3, K and pH, each on its own range
(``bounds``); the objective maps ``[0, 1]^5`` linearly onto those ranges. The objective is the
mean of latent GP 0 of the whitened SVGP with a squared-exponential kernel ``k0``::

    f(x) = k0(x, Z) @ solve(L0.T, q_mu[:, 0]),   L0 = cholesky(k0(Z, Z) + jitter * I),

in standardized units. Its maximum over the box is 2.19412 (found again here: 2.194116). Its
minimum, found by multi-start L-BFGS-B (6 Sobol seeds, up to 65,536 points and 128 starts, all
ending at the same point), is -1.132613 at Ca = 0.005, B = 3.434, NH3 = 6.063, K = 8.987,
pH = 4.748: lower than the "about -1.027" of the data README. :data:`PLANT_SHIFT` = 1.14 sits
slightly above it, so ``f >= 0.0074``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from bocvs_env.gp_algebra import rbf, robust_cholesky
from bocvs_env.problems.data import data_file, file_digest, load_npz
from bocvs_env.problems.kernel_mean import SEKernelMean
from bocvs_env.problems.objective import Objective

PLANT_FILE = "plant_svgp.npz"
#: Added to the raw mean (whose minimum over the box is -1.132613) so that ``f >= 0``.
PLANT_SHIFT = 1.14
#: The maximum of the raw mean over the box (Tay et al.).
PLANT_MAX = 2.19412
#: Where multi-start L-BFGS-B finds it (raw value 2.194116), on the unit cube.
PLANT_ARGMAX = (0.947586, 0.981139, 0.664303, 0.224624, 0.749826)
_SHAPES: dict[str, tuple[int | None, ...]] = {
    "Z": (None, 5),
    "q_mu": (None, None),
    "kernel_variance": (None,),
    "kernel_lengthscales": (None, 5),
    "jitter": (),
    "bounds": (2, 5),
}


class PlantObjective(Objective):
    """The plant simulator's standardized mean on ``[0, 1]^5``, shifted by :data:`PLANT_SHIFT`.

    Args:
        arrays: the model's arrays (``Z`` ``n x 5`` inducing points in raw units, ``q_mu``
            ``n x k``, ``kernel_variance`` ``(k,)``, ``kernel_lengthscales`` ``k x 5``,
            ``jitter``, ``bounds`` ``2 x 5``), as read from ``plant_svgp.npz``.
        digest: the sha256 of the model file, part of :meth:`describe` so caches key on it.

    Raises:
        ValueError: when the arrays are inconsistent (sizes that disagree, a non-positive
            lengthscale, an empty box) or the kernel matrix is not positive definite.
    """

    name = "plant"
    dim = 5
    shift = PLANT_SHIFT

    def __init__(self, arrays: dict[str, np.ndarray], digest: str) -> None:
        Z, q_mu = arrays["Z"], arrays["q_mu"]
        lengthscales, bounds = arrays["kernel_lengthscales"], arrays["bounds"]
        if q_mu.shape[0] != Z.shape[0] or q_mu.shape[1] < 1:
            raise ValueError(f"q_mu has shape {q_mu.shape}, expected ({Z.shape[0]}, k >= 1)")
        if arrays["kernel_variance"].shape[0] < 1 or lengthscales.shape[0] < 1:
            raise ValueError("kernel_variance and kernel_lengthscales need an entry for GP 0")
        if (lengthscales[0] <= 0).any() or arrays["kernel_variance"][0] <= 0:
            raise ValueError("GP 0's kernel variance and lengthscales must be positive")
        if not (bounds[1] > bounds[0]).all():
            raise ValueError(f"bounds must have upper > lower in every input, got {bounds}")
        self.digest = digest
        self.optimal_value = PLANT_MAX + PLANT_SHIFT
        self.optimizers = torch.tensor([PLANT_ARGMAX], dtype=torch.float64)
        self._lower = torch.from_numpy(bounds[0])
        self._width = torch.from_numpy(bounds[1] - bounds[0])
        lengthscale = torch.from_numpy(lengthscales[0])
        variance = float(arrays["kernel_variance"][0])
        Zt = torch.from_numpy(Z)  # n x 5
        K = rbf(Zt, Zt, lengthscale, variance)
        K.diagonal().add_(float(arrays["jitter"]))
        try:
            L, extra = robust_cholesky(K, variance)
        except torch.linalg.LinAlgError:
            extra = 1.0
        if extra != 0.0:  # the model is defined by this factor: no jitter of ours
            raise ValueError("the plant model's kernel matrix k0(Z, Z) + jitter I is not PD")
        u = torch.from_numpy(q_mu[:, :1])
        weights = torch.linalg.solve_triangular(L.T, u, upper=True).squeeze(-1)  # (n,)
        self.mean = SEKernelMean(Zt, lengthscale, weights, variance)

    def raw(self, X: Tensor) -> Tensor:
        """The standardized mean; ``X`` is ``batch_shape x 5`` in ``[0, 1]``, returns ``batch_shape``."""
        return self.mean(self._lower + X * self._width)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "file": PLANT_FILE, "sha256": self.digest}


def plant(data_dir: str | Path | None = None) -> PlantObjective:
    """The plant growth objective from ``plant_svgp.npz`` in ``data_dir``, else
    ``$BOCVS_DATA_DIR``, else the copy shipped with the package.

    Raises:
        FileNotFoundError: the directory or the file is missing (the message says where to get it).
        ValueError: the file is malformed (the message names the file and the problem).
    """
    path = data_file(PLANT_FILE, data_dir)
    arrays = load_npz(path, _SHAPES)
    try:
        return PlantObjective(arrays, file_digest(path))
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from err

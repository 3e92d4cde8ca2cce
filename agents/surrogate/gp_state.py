"""The Gaussian-process surrogate's state as data (:class:`SavedGP`, a base of
:class:`~agents.surrogate.gp.GPSurrogate`): saved after an observation and loaded without a
fit, so that an agent resumed from it (:class:`~bocvs_env.agent_state.StatefulAgent`) computes
the same posterior bits as the GP that saved it."""

from __future__ import annotations

from typing import Any

import numpy as np
from torch import Tensor

from agents.surrogate.factor import GrowingCholesky
from agents.surrogate.fitting import MAPFitter, RestartedAdamFitter
from bocvs_env.agent_state import array_tensor, part, prefixed, tensor_array
from bocvs_env.gp_algebra import Hyperparameters, posterior_weights

#: The scalar hyperparameters, saved by name (:meth:`SavedGP.save_state`).
_SCALARS = ("outputscale", "noise", "mean", "y_shift", "y_scale")


class SavedGP:
    """Saves and loads the GP's data, hyperparameters, factor and fitter (the attributes below,
    set by :class:`~agents.surrogate.gp.GPSurrogate`)."""

    dim: int
    mode: str
    seed: int | None
    version: int
    hyper: Hyperparameters
    factor: GrowingCholesky
    fitter: MAPFitter | RestartedAdamFitter
    _y: Tensor
    _alpha: Tensor
    _n_at_refit: int

    def save_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The GP as data, for a GP built with the same options (:meth:`load_state`): outputs
        ``y`` (``n``), hyperparameters as named float arrays (``hyper.lengthscale``, ``d``, and
        the scalars ``hyper.<name>`` of :data:`_SCALARS`), the factor's arrays (``factor.*``,
        :meth:`~agents.surrogate.factor.GrowingCholesky.save_state`), the fitter's
        (``fitter.*``), and in JSON the refit schedule's place, the fit count and the fitter's
        counts."""
        h = self.hyper
        arrays = {"y": tensor_array(self._y), "hyper.lengthscale": tensor_array(h.lengthscale),
                  **{f"hyper.{k}": np.float64(getattr(h, k)) for k in _SCALARS},
                  **prefixed("factor", self.factor.save_state())}  # fmt: skip
        fitter_arrays, fitter_meta = self.fitter.save_state()
        arrays.update(prefixed("fitter", fitter_arrays))
        meta = {"mode": self.mode, "seed": self.seed, "version": self.version,
                "n_at_refit": self._n_at_refit, "fitter": fitter_meta}  # fmt: skip
        return arrays, meta

    def load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Restore a GP from :meth:`save_state` without a fit: the saved hyperparameters,
        factor and precision as they are, the weights recomputed from them as
        :meth:`~agents.surrogate.gp.GPSurrogate.fit` computes them, so the posterior is the
        same bits as the saved GP's.

        Raises:
            ValueError: for a state of a GP of another mode or seed, arrays of the wrong shapes,
                or a factor that is not that of its inputs under the hyperparameters.
        """
        if meta["mode"] != self.mode or meta["seed"] != self.seed:
            raise ValueError(f"a GP state of mode {meta['mode']!r} and seed {meta['seed']!r}: "
                             f"this GP's are {self.mode!r} and {self.seed!r}")  # fmt: skip
        ls = array_tensor(arrays["hyper.lengthscale"])
        if ls.shape != (self.dim,):
            raise ValueError(f"saved lengthscales of shape {tuple(ls.shape)}: expected "
                             f"({self.dim},)")  # fmt: skip
        scalars = {k: float(np.asarray(arrays[f"hyper.{k}"], np.float64)) for k in _SCALARS}
        hyper = Hyperparameters(ls, **scalars)
        y = array_tensor(arrays["y"])
        n = np.shape(arrays["factor.X"])[0]
        if y.shape != (n,):
            raise ValueError(f"saved outputs of shape {tuple(y.shape)} for {n} inputs")
        self.factor.load_state(part(arrays, "factor"), hyper)
        self.fitter.load_state(part(arrays, "fitter"), meta["fitter"])
        self.hyper, self._y = hyper, y
        self._alpha = posterior_weights(self.factor.L, y, hyper)
        self.version, self._n_at_refit = int(meta["version"]), int(meta["n_at_refit"])

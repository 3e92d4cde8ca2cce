"""The numerics mode of a run: which floating-point kernels numpy, SciPy and torch use.

These libraries choose their kernels for the CPU they run on: MKL (torch's BLAS and LAPACK)
its code path, the OpenBLAS that numpy and SciPy load its core type, torch its vectorized
kernels' instruction set, and each its number of threads. Two kinds of CPU therefore round
the same computation differently, and an optimizer's decisions (an argmax over acquisition
values) turn one different rounding into a different trace. Two modes:

- ``"fast"``: the machine's choices (nothing is set; variables the user set are left as they
  are). A run reproduces bit for bit on the same kind of machine only.
- ``"reproducible"``: every choice that varies by CPU is pinned (:data:`PINS`): MKL's
  conditional numerical reproducibility branch ``COMPATIBLE`` (the only branch besides
  ``AUTO`` that MKL documents for non-Intel processors), OpenBLAS's ``Haswell`` kernels
  (AVX2 and FMA), torch's ``avx2`` kernels, numpy's AVX2 loops (its AVX-512 ones disabled),
  and one thread for each library. A run then
  reproduces on x86-64 machines of one CPU vendor with AVX2 and FMA (Intel since 2013, AMD
  since 2015), whatever wider instruction sets they have; an Intel and an AMD machine were
  measured to give different traces (``docs/reproducibility.md``).

The variables take effect only when the libraries load (MKL and OpenBLAS read them once), so a
mode is set in a process's environment before numpy, SciPy or torch is imported:

- the benchmark's workers are started with it (:func:`numerics_env` in their environment;
  ``bocvs run --numerics``, else the sweep's own ``numerics``, else ``fast``: pinned kernels
  cost up to 2.3 times the CPU of the machine's own on the grid's heaviest runs, so
  ``reproducible`` is the mode of the sweeps that are published, which say so);
- a script runs under ``python -m bocvs_env.numerics reproducible python script.py`` (or
  ``eval "$(python -m bocvs_env.numerics reproducible)"`` to export the variables in a shell),
  or with ``BOCVS_NUMERICS=reproducible`` in its environment if it imports ``bocvs_env``
  before numpy, SciPy and torch (the package then sets the pins on import);
- :func:`use_numerics` (which ``run_episode(..., numerics=...)`` calls) sets what can still be
  set (the thread counts) and raises if a library already loaded runs other kernels.

:func:`numerics_in_force` reports the settings a process runs with; every benchmark run
records them in its provenance.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, Literal, cast, get_args

#: A numerics mode (see the module docstring).
Numerics = Literal["reproducible", "fast"]
MODES: tuple[Numerics, ...] = get_args(Numerics)
#: The environment variable that carries the mode to workers and scripts.
ENV_VAR = "BOCVS_NUMERICS"
#: The mode of a process, or of the benchmark's workers, when nothing says otherwise.
DEFAULT: Numerics = "fast"

#: The variables ``reproducible`` mode sets. Which of them change a trace on this kind of
#: machine is measured by ``benchmarks/numerics_perturbations.py`` (see
#: ``docs/reproducibility.md``).
PINS: dict[str, str] = {
    "MKL_CBWR": "COMPATIBLE",
    "OPENBLAS_CORETYPE": "Haswell",
    "ATEN_CPU_CAPABILITY": "avx2",
    # numpy's own SIMD loops (exp, log, power, ...) as on a CPU without AVX-512; the names of
    # numpy >= 2.4 and of earlier versions (a version ignores the names it does not know)
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR AVX512F AVX512CD AVX512_KNL "
    "AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
}
#: Kernel choices that other kinds of x86-64 CPU make, each as the variables that force it
#: here: what :data:`PINS` must override (the checks of ``docs/reproducibility.md``).
PERTURBATIONS: dict[str, dict[str, str]] = {
    "MKL_CBWR=AVX2": {"MKL_CBWR": "AVX2"},
    "MKL_CBWR=AVX512": {"MKL_CBWR": "AVX512"},
    "OPENBLAS_CORETYPE=Haswell": {"OPENBLAS_CORETYPE": "Haswell"},
    "OPENBLAS_CORETYPE=SkylakeX": {"OPENBLAS_CORETYPE": "SkylakeX"},
    "ATEN_CPU_CAPABILITY=avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "ATEN_CPU_CAPABILITY=default": {"ATEN_CPU_CAPABILITY": "default"},
    "NPY_DISABLE_CPU_FEATURES=X86_V4": {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"},
}
_NPY = "NPY_DISABLE_CPU_FEATURES"
#: What :func:`numerics_in_force` reports under the pins, besides the mode (numpy's target
#: under the names of numpy >= 2.4).
PINNED_SETTINGS: dict[str, Any] = {
    "mkl_cbwr": "COMPATIBLE",
    "openblas_coretype": "Haswell",
    "openblas_threads": 1,
    "cpu_capability": "AVX2",
    "numpy_simd": "X86_V3",
}


class NumericsError(RuntimeError):
    """A mode that cannot take effect in this process (a library already loaded with other
    kernels)."""


def check_mode(mode: str) -> Numerics:
    """``mode`` as a :data:`Numerics`.

    Raises:
        ValueError: for another value, naming the modes.
    """
    if mode not in MODES:
        raise ValueError(f"numerics mode must be one of {list(MODES)}, got {mode!r}")
    return cast(Numerics, mode)


def requested_numerics() -> Numerics:
    """The mode this process's environment asks for: :data:`ENV_VAR`, else :data:`DEFAULT`.

    Raises:
        ValueError: if the variable holds another value.
    """
    value = os.environ.get(ENV_VAR)
    if value is None:
        return DEFAULT
    try:
        return check_mode(value)
    except ValueError:
        raise ValueError(f"{ENV_VAR}={value!r}: expected one of {list(MODES)}") from None


def worker_numerics(asked: str | None = None, sweep: str | None = None) -> Numerics:
    """The mode of the benchmark's workers: ``asked`` (``bocvs run --numerics``), else the one
    :data:`ENV_VAR` names, else ``sweep`` (the sweep's own ``numerics``), else
    :data:`DEFAULT`.

    Raises:
        ValueError: for an unknown mode.
    """
    if asked is not None:
        return check_mode(asked)
    if ENV_VAR in os.environ or sweep is None:
        return requested_numerics()
    return check_mode(sweep)


def numerics_env(mode: Numerics) -> dict[str, str]:
    """The environment variables a process of ``mode`` is started with: :data:`ENV_VAR`, and
    for ``reproducible`` the :data:`PINS` (``fast`` sets nothing else)."""
    pins = PINS if check_mode(mode) == "reproducible" else {}
    return {ENV_VAR: mode, **pins}


def _openblas() -> list[dict[str, Any]]:
    """The OpenBLAS libraries loaded in this process (threadpoolctl's records)."""
    from threadpoolctl import threadpool_info

    return [lib for lib in threadpool_info() if lib.get("internal_api") == "openblas"]


def _conflicts(environ_before: dict[str, str]) -> list[str]:
    """What in this process already runs other kernels than the pins, in words."""
    found = []
    if "numpy" in sys.modules and environ_before.get(_NPY) != PINS[_NPY]:
        found.append(f"numpy was loaded with {_NPY} {environ_before.get(_NPY, 'unset')}")
    for lib in _openblas():
        if str(lib.get("architecture")).lower() != PINS["OPENBLAS_CORETYPE"].lower():
            found.append(f"OpenBLAS ({os.path.basename(lib['filepath'])}) runs its "
                         f"{lib.get('architecture')} kernels")  # fmt: skip
    torch = sys.modules.get("torch")
    if torch is not None:
        if environ_before.get("MKL_CBWR") != PINS["MKL_CBWR"]:
            was = environ_before.get("MKL_CBWR", "unset")
            found.append(f"torch (its MKL) was loaded with MKL_CBWR {was}")
        capability = torch.backends.cpu.get_cpu_capability()
        if capability != PINNED_SETTINGS["cpu_capability"]:
            found.append(f"torch runs its {capability} kernels")
    return found


def use_numerics(mode: Numerics) -> None:
    """Run this process in ``mode`` from now on: set its variables in ``os.environ`` (for the
    libraries not loaded yet and for child processes), and for ``reproducible`` one thread
    in torch and OpenBLAS.

    Raises:
        ValueError: for an unknown mode.
        NumericsError: for ``reproducible``, if numpy, SciPy or torch is already loaded with
            other kernels (one line, saying how to start the process instead).
    """
    before = dict(os.environ)
    os.environ.update(numerics_env(mode))
    if mode == "fast":
        return
    conflicts = _conflicts(before)
    if conflicts:
        _set({k: before.get(k) for k in numerics_env(mode)})  # an error changes nothing
        raise NumericsError(
            f"numerics 'reproducible' cannot take effect here: {'; '.join(conflicts)}; start "
            "the process in that mode (python -m bocvs_env.numerics reproducible <command>, "
            f"or {ENV_VAR}=reproducible and import bocvs_env before numpy, scipy and torch)"
        )
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    if _openblas():
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")


def use_requested_numerics() -> None:
    """:func:`use_numerics` of the mode :data:`ENV_VAR` asks for, if it is set (a worker or
    script started in a mode); nothing otherwise.

    Raises:
        ValueError: if the variable holds an unknown mode.
        NumericsError: as :func:`use_numerics`.
    """
    if ENV_VAR in os.environ:
        use_numerics(requested_numerics())


def pin_on_import() -> None:
    """Set :data:`PINS` in ``os.environ`` if :data:`ENV_VAR` asks for ``reproducible`` and
    none of numpy, SciPy and torch is loaded yet (``bocvs_env`` calls this first on import);
    otherwise leave everything as it is (:func:`use_numerics` then says what went wrong)."""
    if os.environ.get(ENV_VAR) != "reproducible":
        return
    if not any(name in sys.modules for name in ("numpy", "scipy", "torch")):
        _REPLACED_ON_IMPORT.update({k: os.environ.get(k) for k in PINS})
        os.environ.update(PINS)


#: The variables :func:`pin_on_import` replaced, with their values before (``None``: unset).
_REPLACED_ON_IMPORT: dict[str, str | None] = {}


@contextlib.contextmanager
def child_environment(mode: Numerics) -> Iterator[None]:
    """``os.environ`` as a child process of ``mode`` must start with, while inside: processes
    started inside (the local executor's workers) load their libraries under it; afterwards it
    is as before. ``fast`` children get the user's own variables back where
    :func:`pin_on_import` pinned this process."""
    wanted: dict[str, str | None] = dict(numerics_env(mode))
    if mode == "fast":
        wanted = {**_REPLACED_ON_IMPORT, **wanted}
    before = {k: os.environ.get(k) for k in wanted}
    _set(wanted)
    try:
        yield
    finally:
        _set(before)


def _set(values: dict[str, str | None]) -> None:
    """Set (or for ``None``, remove) these variables of ``os.environ``."""
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def numerics_in_force() -> dict[str, Any]:
    """The kernel settings this process runs with, as a run's provenance records them:

    - ``numerics``: the mode its environment asks for (:func:`requested_numerics`);
    - ``mkl_cbwr``: MKL's branch as set by ``MKL_CBWR`` (``""``: MKL's own choice, ``AUTO``);
    - ``openblas_coretype``: the kernels of the loaded OpenBLAS libraries (``""`` if none is
      loaded; several, comma-separated, if they differ);
    - ``openblas_threads``: their largest thread count (``None`` if none is loaded);
    - ``cpu_capability``: torch's kernels' instruction set, if torch is loaded (``None`` if
      not);
    - ``numpy_simd``: the SIMD target of numpy's float64 ``exp`` (e.g. ``X86_V4`` with AVX-512,
      ``X86_V3`` with AVX2), standing for numpy's dispatched loops (``None`` before numpy 2.4,
      whose report names no target).
    """
    libs = _openblas()
    torch = sys.modules.get("torch")
    return {
        "numerics": requested_numerics(),
        "mkl_cbwr": os.environ.get("MKL_CBWR", ""),
        "openblas_coretype": ",".join(sorted({str(lib.get("architecture")) for lib in libs})),
        "openblas_threads": max((int(lib["num_threads"]) for lib in libs), default=None),
        "cpu_capability": None if torch is None else torch.backends.cpu.get_cpu_capability(),
        "numpy_simd": _numpy_simd(),
    }


def _numpy_simd() -> str | None:
    """:func:`numerics_in_force`'s ``numpy_simd`` (numpy's public introspection)."""
    try:
        from numpy.lib.introspect import opt_func_info
    except ImportError:
        return None
    target = opt_func_info(func_name="^exp$", signature="float64").get("exp", {})
    return next((str(t["current"]) for t in target.values()), None)

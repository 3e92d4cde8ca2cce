"""What every report reads runs from: :class:`RunSource`, which a result store
(:class:`~bocvs_env.benchmark.store.ResultStore`) and a published folder
(:class:`~bocvs_env.benchmark.published.PublishedRuns`) both satisfy, so that the reports,
the run selection (:mod:`bocvs_env.benchmark.run_sources`) and ``bocvs status`` are written
once for both."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from bocvs_env.benchmark.config import SweepConfig
from bocvs_env.benchmark.selection import RunFilter
from bocvs_env.benchmark.stored_run import StoredRun


@runtime_checkable
class RunSource(Protocol):
    """Recorded runs and the sweeps that recorded them, opened for reading (a context manager
    that closes what it opened).

    Attributes:
        path: the store's file or the published folder.
    """

    path: Path

    def __enter__(self) -> RunSource: ...

    def __exit__(self, *exc: object) -> None: ...

    def __len__(self) -> int:
        """The number of recorded runs."""
        ...

    def sweeps(self) -> dict[str, SweepConfig]:
        """The recorded sweeps by name."""
        ...

    def done_keys(self) -> set[str]:
        """The configuration digests of every recorded run."""
        ...

    def runs(
        self, keys: Iterable[str] | None = None, *, where: RunFilter | None = None
    ) -> list[StoredRun]:
        """The recorded runs in the order recorded; only those whose digest is in ``keys`` and
        that ``where`` keeps, if given."""
        ...

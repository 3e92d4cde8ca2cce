"""A run read back from a result store or a published folder: its configuration, its episode
and its provenance. Its own module so that what reads runs (the code versions, the reports)
needs no part of the store that writes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bocvs_env.benchmark.config import RunConfig
from bocvs_env.evaluation import EpisodeRecord


@dataclass
class StoredRun:
    """A run read back from the store.

    Attributes:
        key: the configuration's digest.
        sweep: the sweep that recorded it.
        config: its configuration.
        record: the episode, ready for :mod:`bocvs_env.metrics`.
        provenance: versions, host, timestamps, agent parameters, git commit.
    """

    key: str
    sweep: str
    config: RunConfig
    record: EpisodeRecord
    provenance: dict[str, Any]

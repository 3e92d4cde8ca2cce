"""What the examples share: their command line and running torch on one thread.

:func:`parse_args`: one flag per field of a dataclass of settings; ``--field-name VALUE`` sets a
field (``--field-name`` alone for a bool). With ``presets``, a bool field named like a preset
(``full``, ``smoke``) picks that preset's values instead of the ``"quick"`` ones, and flags
given explicitly override them.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def parse_args(
    settings: type[T], doc: str | None, presets: Mapping[str, Mapping[str, Any]] | None = None
) -> T:
    """The command line's settings as an instance of the dataclass ``settings``."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for field in dataclasses.fields(settings):  # type: ignore[arg-type]
        flag = f"--{field.name.replace('_', '-')}"
        if field.type in (bool, "bool"):
            parser.add_argument(flag, action="store_true", default=None)
        else:
            parser.add_argument(flag, type=type(field.default), default=None)
    given = {k: v for k, v in vars(parser.parse_args()).items() if v is not None}
    presets = presets or {}
    chosen = [name for name in presets if given.get(name)]
    if len(chosen) > 1:
        parser.error(f"give at most one of {', '.join('--' + n for n in chosen)}")
    preset = presets[chosen[0]] if chosen else presets.get("quick", {})
    return settings(**{**preset, **given})


def single_threaded_torch() -> None:
    """Run torch on one thread. The examples' tensors are small (GPs on at most a few hundred
    points, 64-unit networks): torch's default pool of one thread per core costs more in start-up
    and synchronisation than it saves, and much more on a busy machine. Measured on two cores at
    load average 9: an ETC episode (hartmann6 in 12-D, budget 10) took 92 s on the default two
    threads against 13-22 s on one."""
    import torch

    torch.set_num_threads(1)

"""How ``bocvs run`` reports a sweep's progress on stderr: bars on a terminal, lines elsewhere.

- ``bars``: a tqdm bar for the sweep and one per running run (cost spent of its budget), for an
  interactive terminal.
- ``lines``: plain lines, one per finished run (``sweep: 3/12 runs, done <label> in 4.1 s``)
  and, at most every :data:`HEARTBEAT` seconds, one naming the runs in flight with their share
  of the budget spent. No cursor codes, so logs, CI output and ``| tee`` stay readable.
- ``quiet``: nothing but failures.

:func:`progress_mode` picks ``bars`` when stderr is a terminal and ``lines`` otherwise.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, TextIO

if TYPE_CHECKING:
    from tqdm import tqdm

    from bocvs_env.benchmark.executors import Outcome
    from bocvs_env.benchmark.sweep import SweepReport

Mode = Literal["bars", "lines", "quiet"]
#: Seconds between two ``lines``-mode reports of the runs in flight.
HEARTBEAT = 30.0


def progress_mode(quiet: bool, stream: TextIO | None = None) -> Mode:
    """``quiet`` if asked, ``bars`` when ``stream`` (default stderr) is a terminal, else
    ``lines``."""
    if quiet:
        return "quiet"
    return "bars" if (stream or sys.stderr).isatty() else "lines"


class SweepProgress:
    """The callbacks of :func:`~bocvs_env.benchmark.sweep.run_sweep` that report on ``stream``.

    Args:
        name: the sweep's name, first on every line.
        labels: run key -> a readable label of the run.
        mode: see the module docstring.
        stream: where reports go (``sys.stderr`` when the object is made; stdout carries the
            results).
    """

    def __init__(
        self, name: str, labels: Mapping[str, str], mode: Mode, stream: TextIO | None = None
    ) -> None:
        self.name, self.labels, self.mode = name, labels, mode
        self.stream = stream or sys.stderr
        self.done = self.total = 0
        self.spent: dict[str, tuple[float, float]] = {}  # running run's key -> spent, budget
        self.last_heartbeat = time.monotonic()
        self.main_bar: tqdm | None = None
        self.bars: dict[str, tqdm] = {}

    def _print(self, text: str) -> None:
        if self.main_bar is not None:
            self.main_bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def on_start(self, report: SweepReport) -> None:
        """The sweep's size, what the store already holds and (bars) the sweep's bar."""
        self.total, self.done = report.total, report.skipped
        if self.mode == "quiet":
            return
        self._print(
            f"sweep {self.name!r}: {report.total} runs, {report.skipped} already in the store, "
            f"{report.total - report.skipped} to run"
        )
        if self.mode == "bars":
            from tqdm import tqdm

            self.main_bar = tqdm(
                total=report.total, initial=report.skipped, desc=self.name, unit="run",
                file=self.stream,
            )  # fmt: skip

    def progress(self, key: str, spent: float, budget: float) -> None:
        """A run's cost spent so far of its budget."""
        self.spent[key] = (spent, budget)
        if self.mode == "bars":
            self._bar(key, budget).update(spent - self.bars[key].n)
        elif self.mode == "lines" and time.monotonic() - self.last_heartbeat >= HEARTBEAT:
            self.last_heartbeat = time.monotonic()
            running = ", ".join(
                f"{self.labels.get(k, k[:8])} {100 * s / b:.0f}%"
                for k, (s, b) in self.spent.items()
            )
            self._print(f"{self.name}: {self.done}/{self.total} runs; running: {running}")

    def _bar(self, key: str, budget: float) -> tqdm:
        from tqdm import tqdm

        if key not in self.bars:
            self.bars[key] = tqdm(
                total=budget, desc=self.labels.get(key, key[:8]), leave=False, delay=2.0,
                bar_format="{desc}: {percentage:3.0f}% of budget|{bar}| {elapsed}",
                file=self.stream,
            )  # fmt: skip
        return self.bars[key]

    def on_outcome(self, outcome: Outcome) -> None:
        """A run finished (recorded) or failed."""
        key = outcome.config.key()
        self.spent.pop(key, None)
        bar = self.bars.pop(key, None)
        if bar is not None:
            bar.close()
        self.done += 1
        if self.main_bar is not None:
            self.main_bar.update(1)
        label = outcome.config.label()
        if outcome.error is not None:
            self._print(f"FAILED {label}")
        elif self.mode == "lines" and outcome.result is not None:
            seconds = float(outcome.result.provenance.get("wall_s", float("nan")))
            self._print(
                f"{self.name}: {self.done}/{self.total} runs, done {label} in {seconds:.1f} s"
            )

    def close(self) -> None:
        """Close the bars (before the summary is printed)."""
        for bar in self.bars.values():
            bar.close()
        if self.main_bar is not None:
            self.main_bar.close()
            self.main_bar = None

    def say(self, text: str) -> None:
        """A line of the sweep's own (not a result), unless quiet."""
        if self.mode != "quiet":
            self._print(text)

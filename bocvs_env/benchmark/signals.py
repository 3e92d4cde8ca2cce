"""Stopping a sweep by signal: SIGTERM (``kill``, a job scheduler, ``timeout``) and SIGHUP (the
terminal closed) stop it as Ctrl-C (SIGINT) does.

Each raises :class:`Interrupted`, a :class:`KeyboardInterrupt`, in the main thread, so every
path that Ctrl-C takes is taken: the driver stops its workers, keeps the runs that finished and
says it was interrupted; workers stop their runs. The exit status is the shell's for a process
killed by that signal, ``128 + signal number``: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP
(:func:`exit_status`).

A signal that the process was started ignoring stays ignored: ``nohup`` ignores SIGHUP so that
a run outlives its terminal, and a non-interactive shell starts a job (``bocvs run ... &``)
ignoring SIGINT so that a Ctrl-C meant for the script does not reach it; such a job is stopped
with SIGTERM. (Python itself leaves SIGINT ignored in that case.)
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

#: The signals handled as Ctrl-C, besides SIGINT (which Python handles already).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """A stop signal other than SIGINT arrived.

    Attributes:
        signum: the signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    def __reduce__(self) -> tuple[type[Interrupted], tuple[int]]:
        return (Interrupted, (self.signum,))  # a worker's, sent to the driver


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


#: A signal's handler, as :func:`signal.getsignal` returns it.
Handler = Callable[[int, FrameType | None], Any] | int | None


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """While inside, :data:`STOP_SIGNALS` raise :class:`Interrupted` in this process (main
    thread only), except those it ignores; the previous handlers afterwards."""
    before: dict[signal.Signals, Handler] = {}
    for signum in STOP_SIGNALS:
        previous = signal.getsignal(signum)
        if previous is not signal.SIG_IGN:
            before[signum] = previous
            signal.signal(signum, _raise)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """``128 +`` the number of the signal that raised ``interrupt`` (SIGINT for a plain
    :class:`KeyboardInterrupt`)."""
    return 128 + getattr(interrupt, "signum", int(signal.SIGINT))


def signal_name(interrupt: KeyboardInterrupt) -> str:
    """The name of the signal that raised ``interrupt``: ``"SIGTERM"``, ``"SIGINT"``, ..."""
    return signal.Signals(exit_status(interrupt) - 128).name

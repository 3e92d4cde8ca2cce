"""SIGTERM and SIGHUP as Ctrl-C: what raises, what stays ignored, and the exit status."""

from __future__ import annotations

import os
import pickle
import signal

import pytest

from bocvs_env.benchmark.signals import (
    Interrupted,
    exit_status,
    signal_name,
    stopped_by_signals,
)


def test_sigterm_raises_interrupted_and_the_handler_is_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as err, stopped_by_signals():
        os.kill(os.getpid(), signal.SIGTERM)
    assert isinstance(err.value, KeyboardInterrupt)
    assert (exit_status(err.value), signal_name(err.value)) == (143, "SIGTERM")
    assert signal.getsignal(signal.SIGTERM) is before


def test_an_ignored_signal_stays_ignored() -> None:
    """As under ``nohup``: SIGHUP ignored at start is not turned into a stop."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stopped_by_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)  # nothing happens
    finally:
        signal.signal(signal.SIGHUP, before)


def test_exit_statuses_and_a_workers_interrupt_crosses_processes() -> None:
    assert exit_status(KeyboardInterrupt()) == 130
    assert exit_status(Interrupted(signal.SIGHUP)) == 129
    back = pickle.loads(pickle.dumps(Interrupted(signal.SIGTERM)))
    assert isinstance(back, Interrupted) and back.signum == signal.SIGTERM

"""kill -9 at random points of a scripted ask/tell loop loses nothing told, and reopening
resumes to the suggestion an uninterrupted run makes next."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bocvs_env.experiment import Experiment

#: The operator's loop, run in a subprocess: it opens the journal (creating it the first time),
#: answers every suggestion with values computed from its number, and prints each number once
#: its ``tell`` has returned (after a first line, ``ready``, once the journal is open).
LOOP = """
import sys
from pathlib import Path
from bocvs_env.experiment import Experiment

journal, problem = Path(sys.argv[1]), sys.argv[2]
exp = Experiment.open(journal) if journal.exists() else Experiment.create(
    journal, problem=problem, agent="random", seed=5)
print("ready", flush=True)
while not exp.done:
    s = exp.ask()
    frac = (s.number * 0.6180339887) % 1.0
    measured = {v.name: v.low + frac * (v.high - v.low)
                for v in exp.variables if v.name in s.leave_random}
    exp.tell(s, measured, y=frac, cost=1.0 + frac)
    print(s.number, flush=True)
exp.close()
"""

KILLS = 20


def _answers(journal: Path) -> dict[int, tuple[float, float]]:
    """The journal's answers: number -> (y, cost)."""
    with Experiment.open(journal) as exp:
        told = exp.history()
    told = told[~told["pending"]]
    return {int(r.number): (float(r.y), float(r.cost)) for r in told.itertuples()}


@pytest.mark.slow
def test_kill_9_loses_nothing_told(process_file: Path, tmp_path: Path) -> None:
    text = process_file.read_text().replace("budget = 20.0", "budget = 1200.0")
    process_file.write_text(text)
    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}

    def run(journal: Path, kill_after: float | None) -> list[int]:
        child = subprocess.Popen(
            [sys.executable, str(script), str(journal), str(process_file)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        assert child.stdout is not None
        head = ""
        if kill_after is not None:
            if kill_after >= 0:  # in the loop: that long after the journal is open
                head = child.stdout.readline()
            time.sleep(abs(kill_after))  # else while creating or replaying it
            child.send_signal(signal.SIGKILL)
        out, err = child.communicate(timeout=300)
        assert kill_after is not None or child.returncode == 0, err[-2000:]
        return [int(line) for line in (head + out).split() if line != "ready"]

    whole = tmp_path / "whole.journal"
    run(whole, None)
    with Experiment.open(whole) as exp:
        reference = exp.history()
    assert len(reference) > 500

    cols = ["number", "control_set", *(c for c in reference.columns[3:-4]), "y", "cost", "spent"]

    def finish(journal: Path) -> None:
        """Run ``journal``'s loop to its end: the uninterrupted run's history."""
        run(journal, None)
        with Experiment.open(journal) as exp:
            assert exp.history()[cols].equals(reference[cols])

    rng = random.Random(0)
    kills = in_loop = journals = 0
    journal = tmp_path / "killed-0.journal"
    while kills < KILLS:
        # Every fourth kill lands while the journal is created or replayed, the others in the
        # loop of asks and tells.
        delay = -rng.uniform(0.5, 2.5) if kills % 4 == 3 else rng.uniform(0.0, 0.25)
        told = run(journal, delay)
        kills += 1
        in_loop += bool(told)
        if not journal.exists():
            continue  # killed before the journal was linked into place: nothing was told
        answers = _answers(journal)
        assert set(told) <= set(answers)  # every tell that returned is kept
        with Experiment.open(journal) as exp:
            done = exp.done
            s = None if done else exp.ask()  # the next suggestion after reopening
        if s is None:  # the loop outran the kills (a fast machine): check it, start another
            finish(journal)
            journals += 1
            journal = tmp_path / f"killed-{journals}.journal"
            continue
        row = reference[reference["number"] == s.number].iloc[0]
        assert int(row["control_set"]) == s.control_set
        for name, value in s.set_values.items():
            assert row[name] == value
    assert in_loop >= KILLS // 2  # most kills interrupted a loop that had told something
    finish(journal)

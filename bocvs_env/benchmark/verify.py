"""Checking published runs by running them again: ``bocvs verify``.

A seeded random sample of the runs of a published folder (or store) is run again, each with its
recorded configuration (problem, cost set, variance, budget, agent and its configured
parameters, seed, problem options), by an executor whose workers run in a chosen numerics mode
(:mod:`bocvs_env.numerics`). Each rerun is compared with its published trace step by step
(:func:`first_divergence`: the set played, the cost paid and ``g``, the values a published
folder keeps), and then the published paired verdicts of the panels the sample touches are
recomputed with the reruns in place of the published runs (:func:`verdict_agreement`, with
:func:`bocvs_env.benchmark.compare.compare_runs`), to say whether a divergence changes a
conclusion.

A run reproduces bit for bit only with the kernels that made it: the published runs so far were
made in ``fast`` mode, the machine's own kernels, so a check on another kind of CPU (or in
``reproducible`` mode) reports divergences that are the kernels', not the code's; see
``docs/reproducibility.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from bocvs_env import metrics
from bocvs_env.benchmark.compare import compare_runs
from bocvs_env.benchmark.executors import Executor
from bocvs_env.benchmark.panels import Panel
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import code_version, short_commit
from bocvs_env.evaluation import EpisodeRecord

#: The per-step values compared, as :class:`EpisodeRecord` attributes (what a published folder
#: keeps of a step).
COMPARED = ("control_set", "cost", "g")


@dataclass(frozen=True)
class Check:
    """One published run and its rerun.

    Attributes:
        run: the published run.
        rerun: the rerun's record, or ``None`` if the rerun failed.
        error: the rerun's traceback if it failed, else ``None``.
        provenance: the rerun's provenance (its code version among it; empty if it failed).
    """

    run: StoredRun
    rerun: EpisodeRecord | None
    error: str | None = None
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def reason(self) -> str:
        """Why the rerun failed, in one line: the last line of its traceback (the exception
        and its message), or ``""`` if it did not fail."""
        if self.rerun is not None:
            return ""
        lines = [line for line in (self.error or "").splitlines() if line.strip()]
        return " ".join(lines[-1].split()) if lines else "no reason given"

    def versions(self) -> str:
        """The code version the run was published at and the one it was rerun at
        (:func:`~bocvs_env.benchmark.versions.code_version`), saying whether they differ
        (``""`` if the rerun failed)."""
        if self.rerun is None:
            return ""
        published, now = code_version(self.run.provenance), code_version(self.provenance)
        if published == now:
            return f"rerun at {short_commit(self.provenance)}, as published"
        return f"published at {published}, rerun at {now}: the code versions differ"

    def divergence(self) -> tuple[int, tuple[str, ...]] | None:
        """:func:`first_divergence` of the published record and the rerun (``None``:
        identical).

        Raises:
            ValueError: if the rerun failed.
        """
        if self.rerun is None:
            raise ValueError(f"{self.run.config.label()}: the rerun failed")
        return first_divergence(self.run.record, self.rerun)


def first_divergence(
    published: EpisodeRecord, rerun: EpisodeRecord
) -> tuple[int, tuple[str, ...]] | None:
    """The first step (1-based) at which two records differ, with the :data:`COMPARED` values
    that differ there (bit for bit); a step that only one record has differs in ``"steps"``.
    ``None`` if they are identical."""
    n = min(published.n_evaluations, rerun.n_evaluations)
    for k in range(n):
        fields = tuple(f for f in COMPARED if getattr(published, f)[k] != getattr(rerun, f)[k])
        if fields:
            return k + 1, fields
    if published.n_evaluations != rerun.n_evaluations:
        return n + 1, ("steps",)
    return None


def select_runs(
    runs: Sequence[StoredRun],
    n: int,
    seed: int,
    seeds: Sequence[int] | None = None,
    agents: Sequence[str] | None = None,
) -> list[StoredRun]:
    """``n`` runs drawn without replacement (``numpy.random.default_rng(seed)``) from those of
    ``runs`` whose seed is in ``seeds`` and whose agent is in ``agents`` (``None``: any), in
    their order in ``runs``.

    Raises:
        ValueError: if ``n`` < 1 or no run has those seeds and agents.
    """
    if n < 1:
        raise ValueError(f"the sample needs at least one run, got {n}")
    pool = [
        r
        for r in runs
        if (seeds is None or r.config.seed in set(seeds))
        and (agents is None or r.config.agent in set(agents))
    ]
    if not pool:
        raise ValueError(
            f"no published run has the seeds {sorted(set(seeds or []))} and agents {agents}"
        )
    picked = np.random.default_rng(seed).choice(len(pool), size=min(n, len(pool)), replace=False)
    return [pool[i] for i in sorted(picked)]


def rerun(
    sample: Sequence[StoredRun],
    executor: Executor,
    on_check: Callable[[Check], None] | None = None,
) -> list[Check]:
    """Run every run of ``sample`` again on ``executor``; the checks, in ``sample``'s order.
    ``on_check`` is called with each check as its rerun finishes."""
    published = {r.config.key(): r for r in sample}
    checks = {}
    for outcome in executor.run([r.config for r in sample]):
        key = outcome.config.key()
        result = outcome.result
        record, provenance = (result.record, result.provenance) if result else (None, {})
        checks[key] = Check(published[key], record, outcome.error, provenance)
        if on_check is not None:
            on_check(checks[key])
    return [checks[r.config.key()] for r in sample]


@dataclass(frozen=True)
class VerdictAgreement:
    """The published verdicts of the panels a sample touches, against the same verdicts with
    the sample's reruns in place of their published runs.

    Attributes:
        total: verdicts compared (each sampled run's agent against every other agent of its
            panel, per metric).
        changed: ``"panel: agent vs reference, metric: published -> rerun"`` for each verdict
            that differs.
    """

    total: int
    changed: tuple[str, ...]


def verdict_agreement(
    published: Sequence[StoredRun],
    checks: Sequence[Check],
    metric_names: Sequence[str] = ("final", "area"),
) -> VerdictAgreement:
    """Recompute, for each panel and agent of the sample's (successful) reruns, that agent's
    paired verdicts against every other agent of the panel (:func:`compare_runs` on all
    ``published`` runs of the panel), first as published and then with the reruns in place.
    """
    reruns = {c.run.key: c.rerun for c in checks if c.rerun is not None}
    touched = {(Panel.of(c.run), c.run.config.agent) for c in checks if c.rerun is not None}
    total, changed = 0, []
    for panel, agent in sorted(touched):
        runs = [r for r in published if Panel.of(r) == panel]
        swapped = [replace(r, record=reruns.get(r.key, r.record)) for r in runs]
        before = compare_runs(runs, agent, metric_names=metric_names)
        after = compare_runs(swapped, agent, metric_names=metric_names)
        for old, new in zip(before, after, strict=True):
            total += 1
            if old.verdict() != new.verdict():
                changed.append(
                    f"{panel.title()}: {agent} vs {old.reference}, {old.metric}: "
                    f"{old.verdict()} -> {new.verdict()}"
                )
    return VerdictAgreement(total, tuple(changed))


def outcome(check: Check) -> str:
    """A check's outcome in words: ``identical``, ``diverges at step k (set, ...)`` or
    ``rerun failed: <why>`` (:meth:`Check.reason`)."""
    if check.rerun is None:
        return f"rerun failed: {check.reason()}"
    found = check.divergence()
    if found is None:
        return "identical"
    step, fields = found
    return f"diverges at step {step} ({', '.join(fields)})"


def _versions_cell(check: Check) -> str:
    """The run's commit and its rerun's (:func:`short_commit`), marked where the code versions
    differ."""
    if check.rerun is None:
        return f"{short_commit(check.run.provenance)} / –"
    differ = code_version(check.run.provenance) != code_version(check.provenance)
    cell = f"{short_commit(check.run.provenance)} / {short_commit(check.provenance)}"
    return cell + (" (differ)" if differ else "")


def verify_markdown(checks: Sequence[Check], agreement: VerdictAgreement) -> str:
    """A table of the checks (one row per run: its outcome, the code versions it was published
    and rerun at, and the final simple regret published and rerun), a count, and the verdicts'
    agreement."""
    lines = [
        "| run | steps (published / rerun) | outcome | code (published / rerun) "
        "| final simple regret (published / rerun) |",
        "| --- | ---: | --- | --- | ---: |",
    ]
    for c in checks:
        pub = c.run.record
        steps = f"{pub.n_evaluations} / {c.rerun.n_evaluations if c.rerun is not None else '–'}"
        regret = f"{metrics.final_simple_regret(pub):.4g} / " + (
            f"{metrics.final_simple_regret(c.rerun):.4g}" if c.rerun is not None else "–"
        )
        said = outcome(c).replace("|", "\\|")
        lines.append(
            f"| {c.run.config.label()} | {steps} | {said} | {_versions_cell(c)} | {regret} |"
        )
    same = sum(c.rerun is not None and c.divergence() is None for c in checks)
    failed = sum(c.rerun is None for c in checks)
    lines += ["", f"{same} of {len(checks)} identical" + (f", {failed} failed" if failed else "")]
    other = sum(c.rerun is not None and "differ" in _versions_cell(c) for c in checks)
    if other:
        lines.append(f"{other} reruns at another code version than published (a divergence "
                     "there may be the code's change, not the run's)")  # fmt: skip
    agree = agreement.total - len(agreement.changed)
    lines.append(
        f"paired verdicts with the reruns in place: {agree} of {agreement.total} as published"
    )
    lines += [f"- changed: {c}" for c in agreement.changed]
    return "\n".join(lines) + "\n"

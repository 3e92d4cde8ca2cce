"""The best-agent bar (:mod:`bocvs_env.benchmark.agent_bar`, printed by ``bocvs bar``): a new
agent's runs against an archive
of another commit, paired by seed, each item of the bar measured and judged."""

from __future__ import annotations

from bench_helpers import hand_run

from bocvs_env.benchmark import agent_bar as bar
from bocvs_env.benchmark.store import StoredRun


def _runs(agent: str, g: float, cpu: float, commit: str) -> list[StoredRun]:
    """3 seeds of ``agent`` ending at ``g`` (simple regret ``1 - g``), ``cpu`` CPU-s each."""
    provenance = {"git_commit": commit * 40, "cpu_s": cpu}
    return [hand_run(agent, s, [g], provenance=provenance) for s in range(3)]


def test_each_item_of_the_bar_is_measured_on_the_paired_seeds() -> None:
    new = _runs("new", 0.9, cpu=3.0, commit="a")
    archive = _runs("etc", 0.5, cpu=1.0, commit="b") + _runs("etc-50", 0.95, cpu=1.0, commit="b")
    page = bar.bar_markdown(new, archive, "new", n_resamples=300)
    assert "Agent: Runs of aaaaaaa" in page and "Archive: Runs of bbbbbbb" in page
    row = "| hartmann3 · cheap · var 0.02 · C=10 | 0.1 | 0.5 W | 0.05 L | W L | 3.00 |"
    assert row in page  # below etc, above etc-50 (final and area), thrice etc's CPU
    assert "- NOT met: lowest mean in 0 of 1 panels (at least 12)" in page
    assert "- NOT met: significantly lower than etc in 1 panels (at least 8)" in page
    assert "- NOT met: no significant loss to any agent (not met: hartmann3 · cheap" in page
    assert "against etc-50)" in page
    assert "- NOT met: CPU per run at most 2x etc's on every panel (not met: " in page
    extras = bar.bar_markdown(new, archive, "new", extras=True, n_resamples=300)
    assert extras.rstrip().endswith("- met: no significant loss against etc")


def test_the_lowest_mean_is_counted_and_the_cpu_within_bounds_is_met() -> None:
    new = _runs("new", 0.99, cpu=1.5, commit="a")
    page = bar.bar_markdown(new, _runs("etc", 0.5, cpu=1.0, commit="b"), "new", n_resamples=300)
    assert "| 0.01 * | 0.5 W |" in page
    assert "lowest mean in 1 of 1 panels" in page
    assert "- met: CPU per run at most 2x etc's on every panel" in page
    assert "- met: on the area, no significant loss to etc, etc-50" in page

"""Which sweep, or which runs, the command line names: a preset (``--preset``), a config file
(``--config``), a sweep recorded in a store (``--sweep``), or flags (``--problems``,
``--agents``, ...), flags overriding a preset's, a file's or a record's fields
(:class:`SweepChoice`).

``bocvs run`` runs the sweep it names (:meth:`SweepChoice.sweep`). A sweep built from flags (or
a preset changed by flags) without ``--name`` is named after its definition, ``cli-<digest>``
(``quick-<digest>``), so that two such sweeps never share a name and the same flags again
resume the same sweep; with ``--name`` it must match the definition recorded under that name
(:meth:`SweepChoice.check_name`). A report reads a named sweep's runs, or with flags alone every
run matching each flag given (:meth:`SweepChoice.selection`, a
:class:`~bocvs_env.benchmark.selection.RunFilter`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bocvs_env.benchmark.config import SweepConfig, preset
from bocvs_env.benchmark.run_source import RunSource
from bocvs_env.benchmark.run_sources import recorded_sweep
from bocvs_env.benchmark.selection import RunFilter


@dataclass(frozen=True)
class SweepChoice:
    """The sweep options of a command; ``None`` for an option not given.

    Attributes:
        preset: a shipped sweep's name (:data:`~bocvs_env.benchmark.config.SWEEP_PRESETS`).
        config: a sweep config file (``.toml`` or ``.json``).
        sweep: the name of a sweep recorded in the store read.
        name: the sweep's name in the store.
        problems, cost_sets, variances, budgets, agents: the values of each axis.
        seeds: a count of seeds (``0 .. n-1``) or the seeds themselves.
    """

    preset: str | None = None
    config: Path | None = None
    sweep: str | None = None
    name: str | None = None
    problems: Sequence[str] | None = None
    cost_sets: Sequence[str] | None = None
    variances: Sequence[float] | None = None
    budgets: Sequence[float] | None = None
    agents: Sequence[str] | None = None
    seeds: int | Sequence[int] | None = None

    @property
    def from_flags(self) -> bool:
        """Whether the sweep is built from flags (or a preset and flags), not a file or a
        record."""
        return self.config is None and self.sweep is None

    def sweep_config(self, source: RunSource | None = None) -> SweepConfig | None:
        """The sweep the options describe (``--sweep`` read from ``source``), or ``None`` when
        they describe none.

        Raises:
            ValueError: more than one of a preset, a file and a record; ``--sweep`` without a
                ``source`` or not recorded there; flags without ``--problems``.
        """
        given = [s for s in (self.preset, self.config, self.sweep) if s is not None]
        if len(given) > 1:
            raise ValueError("give at most one of --preset, --config and --sweep")
        overrides = {
            "name": self.name,
            "problems": self.problems,
            "cost_sets": self.cost_sets,
            "variances": self.variances,
            "budgets": self.budgets,
            "agents": self.agents,
            "seeds": self.seeds,
        }
        if self.preset is not None:
            base = preset(self.preset)
        elif self.config is not None:
            base = SweepConfig.from_file(self.config)
        elif self.sweep is not None:
            if source is None:
                raise ValueError(f"--sweep {self.sweep} names a recorded sweep: give its store")
            base = recorded_sweep(source, self.sweep)
        elif all(v is None for v in overrides.values()):
            return None
        else:
            if self.problems is None:
                raise ValueError("a sweep from flags needs --problems (or use --preset/--config)")
            base = SweepConfig(name="cli", problems=self.problems)
        return self._named(base, base.with_overrides(**overrides))

    def _named(self, base: SweepConfig, sweep: SweepConfig) -> SweepConfig:
        """``sweep``, renamed ``<base name>-<digest>`` when built from flags without
        ``--name``."""
        if self.name is None and self.from_flags and (self.preset is None or sweep != base):
            return sweep.with_overrides(name=f"{base.name}-{sweep.digest()}")
        return sweep

    def check_name(self, sweep: SweepConfig, source: RunSource) -> None:
        """Refuse a sweep built from flags under a name that a different definition holds in
        ``source``.

        Raises:
            ValueError: naming the store and the sweep.
        """
        recorded = source.sweeps().get(sweep.name)
        if self.from_flags and recorded not in (None, sweep):
            raise ValueError(
                f"{source.path} already holds a different sweep named {sweep.name!r}; choose "
                f"another --name, or extend that one with --sweep {sweep.name} and flags"
            )

    def selection(self, source: RunSource) -> SweepConfig | RunFilter | None:
        """What a report reads from ``source``: a preset's, a config file's or a recorded
        sweep's runs (changed by flags), or, with flags alone, every run matching each flag
        given (every agent, seed, ... present by default); ``None`` for every run."""
        if any(s is not None for s in (self.preset, self.config, self.sweep)):
            return self.sweep_config(source)
        axes = (self.problems, self.cost_sets, self.variances, self.budgets, self.agents)
        seeds = self.seeds
        if all(v is None for v in axes) and seeds is None:
            return None
        if isinstance(seeds, int):
            seeds = range(seeds)
        return RunFilter.of(*axes, seeds=seeds)


def plot_folder(source: Path, chosen: SweepConfig | RunFilter | None) -> Path:
    """Where a report's plots go by default: the chosen sweep's (or filter's) folder beside the
    store or published folder ``source`` read (``all`` for every run; a sweep's name is never a
    path)."""
    return source.parent / (chosen.name if chosen is not None else "all")

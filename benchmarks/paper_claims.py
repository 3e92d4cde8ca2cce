"""The AAAI paper's experimental claims, checked on a sweep, by paired comparison over seeds.

The paper (section "Experiments") claims that

1. the proposed explore-then-commit agent (``etc``) reaches a lower simple regret for the cost
   spent than the baselines (UCB-PSQ, TS-PSQ, ETC-50, random);
2. it makes significantly more evaluations than the others once its exploitation phase starts
   (it spends no more than 60% of the budget exploring);
3. because the baselines keep evaluating the (expensive) full set, while it exploits the cheaper
   set of the relevant variables.

For every panel (problem x cost set x variance x budget) this prints the mean simple regret of
each agent at 25, 50, 60, 75 and 100% of the budget, the mean evaluations, and the share of the
spend on the target set ``i*`` and on the costliest set (the last one, cost 1: the full set except
on airfoil, whose sets all have two variables). Then a summary over the panels, per claim and
baseline (win / tie / loss and the panels with the better mean; ``docs/results.md`` quotes it),
and per claim a panel-by-baseline matrix of
``etc``'s win / tie / loss by the paired bootstrap interval of ``bocvs compare``
(:mod:`bocvs_env.benchmark.compare`; the page: ``claims.py`` beside this script): claim 1 on
the final simple regret and on the area under simple regret against cost (divided by the
budget), claim 2 on evaluations, claim 3 on the share
of the spend on the costliest set; and last the paired differences with their intervals.

``--proposed fetc`` states the same claims for another agent against every other one, with its
CPU time per run as a ratio to ``--time-reference``'s (default ``etc``; FETC's page,
``docs/agents/fetc_claims.md``).

It reads a result store or a folder written by ``bocvs publish`` (``docs/data``), and refuses
runs of several code versions unless given ``--allow-mixed-versions``. ``--baselines`` adds an
archive's sweep, so that a new agent's sweep, made at another commit, states the claims against
the archive's agents paired by seed (GETC's page, ``docs/agents/getc_claims.md``); each agent's
runs are then of one code version, and the page names each version with its agents:

    python benchmarks/paper_claims.py --data docs/data --sweep grid [--seeds 0 1]
        [--problems hartmann6_12d plant] [--resamples 10000]
    python benchmarks/paper_claims.py --store results/grid/bocvs.db --sweep grid
    python benchmarks/paper_claims.py --data docs/data --sweep getc_grid --proposed getc \
        --time-reference etc --baselines docs/data --baseline-sweep grid
"""

from __future__ import annotations

import argparse

from claims import PROPOSED, claims_markdown

from bocvs_env.benchmark.report_scripts import (
    add_baseline_arguments,
    add_source_arguments,
    print_report,
    script_baselines,
    script_runs,
)
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, RESAMPLES


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_source_arguments(p)
    p.add_argument("--seeds", type=int, nargs="+", help="only these seeds (default: all)")
    p.add_argument("--problems", nargs="+", help="only these problems (default: all)")
    p.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    p.add_argument(
        "--proposed", default=PROPOSED, help=f"the agent the claims are about ({PROPOSED})"
    )
    p.add_argument(
        "--time-reference", default=PROPOSED, help="its CPU time as a ratio to this agent's"
    )
    add_baseline_arguments(p)
    args = p.parse_args()

    def page() -> str:  # fails on a proposed agent without runs, too
        runs = script_runs(args, args.seeds, args.problems)
        runs += script_baselines(args, args.seeds, args.problems)
        return claims_markdown(
            runs, args.resamples, BOOTSTRAP_SEED, args.proposed, args.time_reference
        )

    print_report("paper_claims", page)


if __name__ == "__main__":
    main()

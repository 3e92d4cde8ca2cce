"""The decision benchmark of ``decisions.py`` for this tree and another git revision, side by
side in one invocation: whether a change made the decision at, say, n = 1,000 and 10,000 slower
or heavier.

One data set is made (``decisions.py``'s, through this tree's environment: uniform random sets
and queries on hartmann6 in 12-D); then, for each ``n`` and agent (``ucb-psq``, ``etc``), each
tree's own ``decisions.py`` decision worker runs in a fresh process on it, one thread, with that
tree first on ``PYTHONPATH``, the trees alternating round by round (``base, this`` then
``this, base``) so that a change in the machine's load falls on both. Each worker prepares the
surrogate on ``n - 1`` points (untimed) and times ``--repeats`` decisions; the report gives, per
``n`` and agent, each tree's median decision time over all its repeats, the ratio
``base / this`` (above 1: this tree is faster), the decision's peak RSS and the sets chosen.

    python benchmarks/decisions_vs.py --compare-to 03daaf0 --sizes 1000 10000 \
        --rounds 2 --repeats 2 --out benchmarks/results/decisions_vs_03daaf0.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from decisions import make_data, run_worker
from episodes import source_tree

AGENTS = ("ucb-psq", "etc")


def run_decisions(tree: Path, data: Path, n: int, agent: str, repeats: int) -> dict[str, Any]:
    """``tree``'s decision worker on the first ``n`` points of ``data``, one thread: its JSON
    report."""
    extra = ["--data", str(data), "--n", str(n), "--method", agent, "--repeats", str(repeats)]
    result = run_worker("decisions", extra, 1, tree=tree)
    if result is None:  # only a timeout gives none, and none is set
        raise RuntimeError(f"{tree}: the decision worker returned no result")
    return result


def summarize(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Median decision time and its range, peak RSS and the chosen sets over every repeat."""
    repeats = [r for report in reports for r in report["repeats"]]
    seconds = [r["seconds"] for r in repeats]
    return {
        "median_s": statistics.median(seconds),
        "min_s": min(seconds),
        "max_s": max(seconds),
        "repeats": len(seconds),
        "decision_peak_mb": max(r["decision_peak_mb"] for r in repeats),
        "sets": sorted({r["set"] for r in repeats}),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--compare-to", required=True, help="the git revision to compare with")
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    p.add_argument("--rounds", type=int, default=2, help="worker processes per tree, alternating")
    p.add_argument("--repeats", type=int, default=2, help="decisions per worker process")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, source_tree(args.compare_to) as base:
        data = Path(tmp) / "data.npz"
        make_data(max(args.sizes), data)
        trees = {"base": base, "this": Path(__file__).resolve().parents[1]}
        for n in args.sizes:
            for agent in AGENTS:
                reports: dict[str, list[dict[str, Any]]] = {"base": [], "this": []}
                loads = [os.getloadavg()[0]]
                for k in range(args.rounds):
                    for name in ("base", "this") if k % 2 == 0 else ("this", "base"):
                        reports[name].append(
                            run_decisions(trees[name], data, n, agent, args.repeats)
                        )
                        loads.append(os.getloadavg()[0])
                        print(f"n={n} {agent} {name} round {k}: "
                              f"{[round(r['seconds'], 2) for r in reports[name][-1]['repeats']]} s",
                              flush=True)  # fmt: skip
                row = {"n": n, "agent": agent, "load_1min": [min(loads), max(loads)]}
                row |= {name: summarize(r) for name, r in reports.items()}
                row["base_over_this"] = row["base"]["median_s"] / row["this"]["median_s"]
                rows.append(row)
                args.out.write_text(
                    json.dumps({"compare_to": args.compare_to, "rows": rows}, indent=1)
                )
    print(f"\n| n | agent | {args.compare_to} median s | this tree median s | ratio | "
          "peak MB (base / this) | sets (base / this) | load |")  # fmt: skip
    print("| ---: | --- | ---: | ---: | ---: | ---: | --- | --- |")
    for r in rows:
        b, t = r["base"], r["this"]
        print(f"| {r['n']} | {r['agent']} | {b['median_s']:.2f} ({b['min_s']:.2f}-{b['max_s']:.2f}) "
              f"| {t['median_s']:.2f} ({t['min_s']:.2f}-{t['max_s']:.2f}) | {r['base_over_this']:.2f} "
              f"| {b['decision_peak_mb']:.0f} / {t['decision_peak_mb']:.0f} | {b['sets']} / {t['sets']} "
              f"| {r['load_1min'][0]:.1f}-{r['load_1min'][1]:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()

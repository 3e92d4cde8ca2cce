#!/usr/bin/env bash
# Regenerates every results page of docs/ from the published runs alone: the paper's grid
# (docs/paper/), FETC's claims and ablation and GETC's claims and bar (docs/agents/), and the
# settings the paper left out (docs/extras/). No run is made; nothing but the published folder
# is read (and, for docs/paper/cost.md, the reference decisions' timings of the decision
# benchmark, benchmarks/results/decisions.json). `bocvs` is the one on PATH; to make the pages
# with another tree's code, put a `bocvs` first on PATH that runs `python -m bocvs_env.benchmark`
# with that tree on PYTHONPATH.
#
#   bash benchmarks/docs.sh [FOLDER]    (the published folder; docs/data by default)
#
# The folder is written once from the store the runs were recorded in, every sweep of it:
#   bocvs publish --store results/grid/bocvs.db --out docs/data
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-$root/docs/data}
[[ $data == /* ]] || data=$PWD/$data # a relative folder is relative to here, not to the root
cd "$root"
# a folder inside the root is named from it, as the tests name it (docs/data); others in full
data=$(python -c 'import os, sys; d, r = sys.argv[1:]; p = os.path.relpath(d, r)
print(d if p.startswith("..") else p)' "$data" "$root")
claims() { bocvs paper-claims --data "$data" --sweep "$@"; }
# page FILE COMMAND...: FILE becomes the command's output only if it succeeds (a refused
# command, e.g. runs of mixed versions, leaves the committed page as it was)
page() {
    local out=$1
    shift
    "$@" > "$out.tmp" || { rm -f "$out.tmp"; return 1; }
    mv "$out.tmp" "$out"
}

bocvs plot --data "$data" --sweep grid --out docs/paper
page docs/paper/tables.md bocvs table --data "$data" --sweep grid
page docs/paper/claims.md claims grid
page docs/agents/fetc_claims.md claims grid --proposed fetc --time-reference etc
page docs/paper/cost.md bocvs cost --data "$data" --sweep grid \
    --reference benchmarks/results/decisions.json

for sweep in grid_levy6 grid_hartmann6_expensive grid_hartmann6_variance08; do
    out=docs/extras/$sweep
    mkdir -p "$out"
    bocvs plot --data "$data" --sweep "$sweep" --out "$out"
    page "$out/tables.md" bocvs table --data "$data" --sweep "$sweep"
    page "$out/claims.md" claims "$sweep"
    page "$out/fetc_claims.md" claims "$sweep" --proposed fetc --time-reference etc
done

# Each of FETC's changes alone on top of ETC (and the rest), against ETC, seed by seed.
page docs/agents/fetc_ablation.md \
    bocvs compare --data "$data" --sweep fetc_ablation --reference etc --metrics final area
# On hartmann6 with expensive costs: Thompson sampling against UCB queries, in ETC and in FETC.
page docs/agents/fetc_expensive_queries.md \
    bocvs compare --data "$data" --sweep fetc_expensive_queries --metrics final area
# FETC's bounds of the value against its averaged bounds, on the development settings.
page docs/agents/fetc_value_bounds.md bocvs compare --data "$data" --sweep fetc_value_bounds \
    --agent fetc --metrics final area evaluations

# GETC (frozen at its own commit, its runs paired by seed with the archive's): its claims against
# every agent of the grid, and the bar of the best agent on the grid and beyond it.
page docs/agents/getc_claims.md claims getc_grid --proposed getc --time-reference etc \
    --baselines "$data" --baseline-sweep grid
bar() { bocvs bar --data "$data" --agent getc --baselines "$data" "$@"; }
page docs/agents/getc_bar.md bar --sweep getc_grid --baseline-sweep grid
for extra in levy6 hartmann6_expensive hartmann6_variance08; do
    page "docs/extras/grid_$extra/getc_bar.md" bar --sweep "getc_$extra" \
        --baseline-sweep "grid_$extra" --extras
done
# Each of GETC's changes undone alone, against GETC, seed by seed.
page docs/agents/getc_ablation.md \
    bocvs compare --data "$data" --sweep getc_ablation --reference getc --metrics final area

# ETC as its authors' code runs it (frozen at its own commit, its runs paired by seed with the
# archive's; docs/agents/etc-text-and-code.md), once each of its sweeps is published: its claims
# against every grid agent, paired by seed (with its CPU time beside ETC's), and its ablation
# against it.
published() { python -c 'import json, sys; sys.exit(sys.argv[2] not in json.load(open(sys.argv[1])))' \
    "$data/sweeps.json" "$1"; }
if published etc_authors_grid; then
    page docs/agents/etc_authors_claims.md claims etc_authors_grid --proposed etc-authors \
        --time-reference etc --baselines "$data" --baseline-sweep grid
fi
if published etc_authors_ablation; then
    page docs/agents/etc_authors_ablation.md bocvs compare --data "$data" \
        --sweep etc_authors_ablation --reference etc-authors --metrics final area target_share
fi

# Every published agent ranked against those that ran the same panels, with data profiles.
# (the page is written only once it is computed: a refused command leaves it as it was)
bocvs leaderboard --data "$data" --out docs/leaderboard.md --figure docs/leaderboard.png

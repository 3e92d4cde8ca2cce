#!/usr/bin/env bash
# Regenerates every results page of docs/ from the published runs alone (issue 14): the paper's
# grid (docs/paper/), FETC's claims and ablation (docs/agents/), and the settings the paper left
# out (docs/extras/). No run is made; nothing but the published folder is read (and, for
# docs/paper/cost.md, the reference implementations' timings, benchmarks/results/decisions.json).
#
#   bash benchmarks/docs.sh [docs/data]
#
# The folder is written once from the store the runs were recorded in, every sweep of it:
#   bocvs publish --store results/grid/bocvs.db --out docs/data
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-docs/data}
claims() { python benchmarks/paper_claims.py --data "$data" --sweep "$@"; }

bocvs plot --data "$data" --sweep grid --out docs/paper
bocvs table --data "$data" --sweep grid > docs/paper/tables.md
claims grid > docs/paper/claims.md
claims grid --proposed fetc --time-reference etc > docs/agents/fetc_claims.md
python benchmarks/paper_cost.py --data "$data" --sweep grid \
    --reference benchmarks/results/decisions.json > docs/paper/cost.md

for sweep in grid_levy6 grid_hartmann6_expensive grid_hartmann6_variance08; do
    out=docs/extras/$sweep
    mkdir -p "$out"
    bocvs plot --data "$data" --sweep "$sweep" --out "$out"
    bocvs table --data "$data" --sweep "$sweep" > "$out/tables.md"
    claims "$sweep" > "$out/claims.md"
    claims "$sweep" --proposed fetc --time-reference etc > "$out/fetc_claims.md"
done

# Each of FETC's changes alone on top of ETC (and the rest), against ETC, seed by seed.
bocvs compare --data "$data" --sweep fetc_ablation --reference etc --metrics final area \
    > docs/agents/fetc_ablation.md
# FETC's bounds of the value against its averaged bounds, on the development settings.
bocvs compare --data "$data" --sweep fetc_value_bounds --agent fetc \
    --metrics final area evaluations > docs/agents/fetc_value_bounds.md

#!/usr/bin/env bash
# The published grid, at one commit (552ba3d), carried across machines by its published runs
# (docs/data): set a machine up from them, resume the runs, publish what was made. Run it from
# main's checkout, in a Python environment where main is installed (pip install torch==2.13.0,
# then pip install -e ".[dev]"): main gives the bocvs command, the store's rebuild and the
# report code; the runs themselves import 552ba3d's code from a worktree of that commit.
#
#   bash benchmarks/final_grid.sh setup   WORK        # worktree, dependencies, oracles, store
#   bash benchmarks/final_grid.sh run     WORK DATA   # resume every sweep (DATA: BOCVS_DATA_DIR)
#   bash benchmarks/final_grid.sh publish WORK        # docs/data and every results page of docs/
#
# WORK is a folder outside the checkout (the worktree WORK/grid, the store WORK/store/bocvs.db).
# The sweeps run in this order, each resumable: grid.toml (10 seeds), the rest of
# grid_hartmann6_variance08, fetc_ablation.toml. Runs made after the last publish are lost
# with the machine: publish before a session ends.
set -euo pipefail
main=$(cd "$(dirname "$0")/.." && pwd)
commit=552ba3d
pinned=$main/benchmarks/results/archive_environment
mode=${1:?"usage: final_grid.sh setup|run|publish WORK [DATA]"}
work=${2:?"usage: final_grid.sh setup|run|publish WORK [DATA]"}
store=$work/store/bocvs.db

case $mode in
setup)
    pip install -q -r "$pinned/requirements.txt" # the grid's dependency versions
    [[ -d $work/grid ]] || git -C "$main" worktree add --detach "$work/grid" "$commit"
    mkdir -p "$work/store" "${BOCVS_CACHE_DIR:-$HOME/.cache/bocvs}"
    cp "$pinned"/oracle_cache/*.json "${BOCVS_CACHE_DIR:-$HOME/.cache/bocvs}/" # no run pays for one
    # with main's bocvs (552ba3d's restore_store takes other arguments); a store already there
    # takes only the runs it lacks
    bocvs restore --data "$main/docs/data" --store "$store"
    ;;
run)
    data=${3:?"run needs DATA, the folder of the real-world problems' data"}
    cd "$work/grid"
    export PYTHONPATH=$PWD OMP_NUM_THREADS=1 BOCVS_DATA_DIR=$data
    for sweep in grid grid_hartmann6_variance08 fetc_ablation; do
        bocvs run --config "benchmarks/configs/$sweep.toml" --store "$store" --workers 2 --no-plot
    done
    ;;
publish)
    cd "$main"
    env -u PYTHONPATH bocvs publish --store "$store" --out docs/data
    env -u PYTHONPATH bash benchmarks/docs.sh
    ;;
*)
    echo "final_grid.sh: error: unknown mode $mode (setup, run or publish)" >&2
    exit 2
    ;;
esac

"""Rebuild a result store from a published folder, so that a sweep resumes after its runs.

A long sweep that outlives its machine (the published grid ran over several sessions, on
machines that keep only what is committed) is carried by its published folder: at the end of a session
``bocvs publish`` writes the runs so far, which are committed; on the next machine this script
rebuilds a store from them and ``bocvs run`` goes on where it stopped. The rebuilt runs lack
what publishing leaves out (``x``, ``y``, the decision logs) and publish again unchanged
(:func:`bocvs_env.benchmark.published.restore_store`). It refuses to put runs of another code
version beside the store's (``--allow-mixed-versions`` to do it anyway).

    python benchmarks/store_from_published.py --data docs/data \
        --store results/grid/bocvs.db
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bocvs_env.benchmark.published import PublishedRuns, restore_store
from bocvs_env.benchmark.store import ResultStore


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="a folder written by bocvs publish")
    p.add_argument("--store", type=Path, required=True, help="the store to add the runs to")
    p.add_argument("--allow-mixed-versions", action="store_true",
                   help="add the runs even if the store's come from another code version")  # fmt: skip
    args = p.parse_args()
    try:  # a missing or tampered folder, a store that is not one or cannot be written
        source = PublishedRuns(args.data)
        with ResultStore(args.store) as store:
            added = restore_store(source, store, args.allow_mixed_versions)
            total = len(store)
    except (OSError, ValueError) as err:
        print(f"store_from_published: error: {err}", file=sys.stderr)
        sys.exit(2)
    sys.stdout.write(f"{args.store}: {added} runs added from {args.data}, {total} in all\n")


if __name__ == "__main__":
    main()

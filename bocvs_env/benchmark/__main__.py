"""``python -m bocvs_env.benchmark``: the ``bocvs`` command."""

import sys

from bocvs_env.benchmark.cli import main

if __name__ == "__main__":
    sys.exit(main())

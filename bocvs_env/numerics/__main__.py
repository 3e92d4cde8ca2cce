"""``python -m bocvs_env.numerics MODE [COMMAND ...]``: run a command in a numerics mode, or
print the mode's variables as shell ``export`` lines (see :mod:`bocvs_env.numerics`)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from bocvs_env.numerics import MODES, numerics_env


def main(argv: list[str] | None = None) -> int:
    """``python -m bocvs_env.numerics MODE [COMMAND ...]``: run ``COMMAND`` in ``MODE`` (its
    environment, then ``exec``), or without a command print the ``export`` lines of the
    mode's variables for a shell's ``eval``."""
    parser = argparse.ArgumentParser(
        prog="python -m bocvs_env.numerics",
        description="Run a command (or print the shell exports) in a numerics mode.",
    )
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command and its arguments")
    args = parser.parse_args(argv)
    env = numerics_env(args.mode)
    if not args.command:
        print("\n".join(f"export {k}={shlex.quote(v)}" for k, v in env.items()))
        return 0
    command = args.command[1:] if args.command[0] == "--" else args.command
    try:
        os.execvpe(command[0], command, {**os.environ, **env})
    except OSError as err:
        print(f"python -m bocvs_env.numerics: error: {command[0]}: {err.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main())

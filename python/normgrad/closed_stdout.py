"""A command whose reader goes away (`normgrad info | head -1`) stops quietly, as Unix tools do.

Python ignores SIGPIPE, so a write to a closed pipe raises BrokenPipeError: without this, a traceback,
and a second one when the interpreter flushes stdout at exit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

# 128 + SIGPIPE: what a shell reports for a command ended by a closed pipe (`yes | head -1`).
CLOSED_STDOUT_STATUS = 141


def run_until_stdout_closes(command: Callable[[], int]) -> int:
    """command's exit status, or CLOSED_STDOUT_STATUS without a traceback when stdout was closed."""
    try:
        try:
            return command()
        finally:  # also on argparse's SystemExit (--help, --version): the last output may be buffered
            sys.stdout.flush()
    except BrokenPipeError:
        # stdout now goes to /dev/null, so that the interpreter's flush at exit has nothing to fail on.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return CLOSED_STDOUT_STATUS

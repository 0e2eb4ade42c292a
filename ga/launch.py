"""The ``othello-ga`` script: the command line, started so that running out of memory ends in one line.

Under a small ``ulimit -v`` the interpreter can run out of memory while it
imports numpy, pandas or matplotlib, before the command line's error
policy exists; this module imports nothing but the standard library until
the command line is loaded.
"""

from __future__ import annotations

import errno
import sys

__all__ = ["main", "memory_problem"]


def memory_problem(error: BaseException) -> str | None:
    """Returns the one-line message for an error that means "out of memory", or None for any other error."""
    text = str(error)
    if not (isinstance(error, MemoryError)
            or (isinstance(error, OSError) and error.errno == errno.ENOMEM)
            or (isinstance(error, ImportError) and ("failed to map segment" in text
                                                    or "cannot allocate memory" in text.lower()))):
        return None
    try:
        import resource  # here: it may itself be what could not be loaded

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, MemoryError, OSError):
        soft = -1
    limit = "" if soft < 0 else f" (ulimit -v allows {soft // 2**20:,} MiB)"
    return f"out of memory{limit}; raise the limit, or lower the run's size (population, games)"


def main() -> int:
    """Runs the command line and returns its exit code."""
    try:
        from ga.cli import main as command_line
    except (MemoryError, ImportError, OSError) as error:
        message = memory_problem(error)
        if message is None:
            raise
        sys.stderr.write(f"othello-ga: error: {message}\n")
        return 1
    return command_line()

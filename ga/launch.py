"""The ``othello-ga`` script: the command line, started so that running out of memory ends in one line.

Under a small ``ulimit -v`` the interpreter can run out of memory while it
imports numpy, pandas or matplotlib, before the command line's error
policy exists; this module imports nothing but the standard library until
the command line is loaded.
"""

from __future__ import annotations

import errno
import sys

__all__ = ["MIN_ADDRESS_SPACE", "address_space_limit", "address_space_problem", "draws_figures", "main",
           "memory_problem"]


def memory_problem(error: BaseException) -> str | None:
    """Returns the one-line message for an error that means "out of memory", or None for any other error."""
    text = str(error)
    if not (isinstance(error, MemoryError)
            or (isinstance(error, OSError) and error.errno == errno.ENOMEM)
            or (isinstance(error, ImportError) and ("failed to map segment" in text
                                                    or "cannot allocate memory" in text.lower()))):
        return None
    soft = address_space_limit()
    limit = "" if soft is None else f" (ulimit -v allows {soft // 2**20:,} MiB)"
    return f"out of memory{limit}; raise the limit, or lower the run's size (population, games)"


#: The address space below which the tool does not start. numpy's OpenBLAS reserves buffers when it
#: loads and when it first computes, and when it cannot it prints its own message and exits; every
#: command worked at 384 MiB on the 2-core development machine, and OpenBLAS failed at 230-290 MiB.
MIN_ADDRESS_SPACE = 384 * 2**20


def address_space_limit() -> int | None:
    """Returns the bytes of address space ``ulimit -v`` allows this process (None: no limit, or unknown)."""
    try:
        import resource  # here: under a tight limit, loading it may be what fails

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, MemoryError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def address_space_problem() -> str | None:
    """Returns the one-line message when ``ulimit -v`` leaves less than :data:`MIN_ADDRESS_SPACE`, else None."""
    soft = address_space_limit()
    if soft is None or soft >= MIN_ADDRESS_SPACE:
        return None
    return (f"out of memory: othello-ga needs at least {MIN_ADDRESS_SPACE // 2**20} MiB of address space "
            f"(its numerical libraries reserve much of it), and ulimit -v allows {soft // 2**20:,} MiB; raise it")


def draws_figures(arguments: list[str]) -> bool:
    """Tells whether a command line will draw a run's figures (evolve or resume without --no-plots).

    Only a guess made before the command line is loaded, to start the
    figures' helper early: a wrong one costs a helper started for nothing,
    or started later, never a figure.
    """
    return bool(arguments) and arguments[0] in ("evolve", "resume") and not (
        {"--no-plots", "--help", "-h"} & set(arguments))


def main() -> int:
    """Runs the command line and returns its exit code."""
    problem = address_space_problem()
    if problem is not None:  # refused before numpy loads: its BLAS would fail with its own message
        sys.stderr.write(f"othello-ga: error: {problem}\n")
        return 1
    if draws_figures(sys.argv[1:]):
        from ga.analysis.plothelper import start_early  # the standard library only

        start_early()
    try:
        from ga.cli import main as command_line
    except KeyboardInterrupt:  # Ctrl-C while Python loads the command line: nothing was done yet
        sys.stderr.write("othello-ga: interrupted\n")
        return 130
    except (MemoryError, ImportError, OSError) as error:
        message = memory_problem(error)
        if message is None:
            raise
        sys.stderr.write(f"othello-ga: error: {message}\n")
        return 1
    return command_line()

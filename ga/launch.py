"""The ``othello-ga`` script: the command line, started so that running out of memory ends in one line.

Under a small ``ulimit -v`` the interpreter can run out of memory while it
imports numpy, pandas or matplotlib, before the command line's error
policy exists; this module imports nothing but the standard library until
the command line is loaded.
"""

from __future__ import annotations

import sys

from ga.memory import MIN_ADDRESS_SPACE, address_space_limit, address_space_problem, memory_problem

__all__ = ["MIN_ADDRESS_SPACE", "address_space_limit", "address_space_problem", "draws_figures", "main",
           "memory_problem"]


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

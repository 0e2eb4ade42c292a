"""The command line's one error policy.

Bad input (a config key or value, a weights file, a position, a player spec,
a path, a damaged run directory) ends with one line ``othello-ga: error: ...``
on stderr and exit code 2, with nothing written. A reader of standard output
that goes away (``| head``) ends the command quietly, exit code 141. Lost workers (a thread that
failed, a cluster gone) end with one line and exit code 1, the checkpoint
intact, as does running out of memory. Ctrl-C ends with exit code 130. ``OTHELLO_GA_DEBUG=1`` shows the
traceback instead of the line. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import click

from ga.launch import memory_problem

__all__ = [
    "EXIT_BAD_INPUT", "EXIT_BROKEN_PIPE", "EXIT_FAILED", "EXIT_INTERRUPTED", "PROG", "quiet_broken_pipe", "Command", "debugging", "exit_code", "fail",
    "one_line", "warn",
]

PROG = "othello-ga"
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
#: 128 + SIGPIPE: what a shell reports for a standard tool whose reader went away (``... | head``).
EXIT_BROKEN_PIPE = 141



def bad_input() -> tuple[type[BaseException], ...]:
    """Returns the problems a user can cause: one line and exit code 2.

    Imported here, when an error is being reported, not when the command line
    loads (``othello-ga --help`` needs none of the modules that define them).
    """
    from ga.config import ConfigError
    from ga.games.cluster import ClusterUnavailable
    from ga.rundir.layout import RunDirError
    from ga.weights import WeightsError

    return ConfigError, RunDirError, WeightsError, ClusterUnavailable, ValueError, OSError


def debugging() -> bool:
    """Returns whether ``OTHELLO_GA_DEBUG=1`` asks for tracebacks instead of one-line errors."""
    return os.environ.get("OTHELLO_GA_DEBUG") == "1"


def one_line(error: BaseException | str) -> str:
    """Returns the message of an error (or a text) on one line."""
    memory = memory_problem(error) if isinstance(error, BaseException) else None
    if memory is not None:
        return memory
    if isinstance(error, OSError) and error.strerror and error.filename is not None:
        return f"cannot write or read '{error.filename}': {error.strerror}"
    from ga.rundir.reader import printable

    text = str(error) or type(error).__name__
    return printable(" ".join(text.split()))  # what a message quotes from a file or a path is shown, not obeyed


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Prints ``othello-ga: error: <message>`` (one line) on stderr and exits with ``code``."""
    click.echo(f"{PROG}: error: {one_line(message)}", err=True)
    raise click.exceptions.Exit(code)


def warn(message: str) -> None:
    """Prints ``othello-ga: warning: <message>`` (one line) on stderr."""
    click.echo(f"{PROG}: warning: {one_line(message)}", err=True)


def exit_code(error: BaseException) -> int | None:
    """Returns the exit code of an error this policy reports in one line (None: a bug, keep the traceback)."""
    from ga.games.executor import WorkersLost

    if isinstance(error, WorkersLost) or memory_problem(error):
        return EXIT_FAILED
    if isinstance(error, bad_input()):
        return EXIT_BAD_INPUT
    return None


def quiet_broken_pipe() -> int:
    """Returns the exit code of a command whose standard output's reader went away, having made it quiet.

    As standard tools do (``evaluate ... | head``): no message, and no second
    error when Python flushes standard output at exit (it now goes nowhere).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test's stream): nothing to flush
        pass
    return EXIT_BROKEN_PIPE


def report(error: BaseException) -> NoReturn:
    """Ends the command as the policy says for ``error``; re-raises it when it is a bug or when debugging."""
    if isinstance(error, BrokenPipeError) and not debugging():
        raise click.exceptions.Exit(quiet_broken_pipe())
    code = exit_code(error)
    if code is None or debugging():
        raise error
    fail(one_line(error), code)


class Command(click.Command):
    """A command under the policy: usage errors and expected errors end in one line, whoever invokes it."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            fail(f"{error.format_message()} (see '{PROG} {ctx.info_name} --help')")

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except Exception as error:
            report(error)

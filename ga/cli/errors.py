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

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from typing import Any, NoReturn, TextIO

import click

from ga.files import StandardOutputError
from ga.memory import memory_problem

__all__ = [
    "EXIT_BAD_INPUT", "EXIT_BROKEN_PIPE", "EXIT_FAILED", "EXIT_INTERRUPTED", "PROG", "Command", "debugging",
    "exit_code", "fail", "named_stdout", "one_line", "quiet_broken_pipe", "saved", "warn",
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


#: The longest word a message shows whole: a longer one (a 5,000-character argument, a path deeper than any)
#: is shown by its ends and its length, so that the message stays a line to read.
LONGEST_WORD = 300


def one_line(error: BaseException | str) -> str:
    """Returns the message of an error (or a text) on one line."""
    memory = memory_problem(error) if isinstance(error, BaseException) else None
    if memory is not None:
        return memory
    if isinstance(error, OSError) and error.errno == errno.ENAMETOOLONG and error.filename is not None:
        name = os.fsdecode(error.filename)
        text = (f"'{name}' is too long to be a file or directory name ({len(name):,} characters; a name holds "
                f"at most {_name_max():,} bytes, a path {_path_max():,}); give a shorter one")
    elif isinstance(error, OSError) and error.strerror and error.filename is not None:
        text = f"cannot write or read '{os.fsdecode(error.filename)}': {error.strerror}"
    elif isinstance(error, UnicodeEncodeError) and _undecodable(error):
        text = (f"'{_word_at(error.object, error.start)}' holds bytes that are not UTF-8 text (a name in another "
                "encoding), and the text this writes is UTF-8; rename it")
    else:
        text = str(error) or type(error).__name__
    from ga.rundir.reader import printable

    # What a message quotes from a file or a path is shown, not obeyed; a name that is not UTF-8 is shown with its
    # bytes escaped (\xff), never refused by the terminal's encoding.
    return printable(" ".join(_clipped(word) for word in text.split()))


def _clipped(word: str) -> str:
    if len(word) <= LONGEST_WORD:
        return word
    return f"{word[:60]}...[{len(word) - 80:,} more characters]...{word[-20:]}"


def _name_max() -> int:
    try:
        return os.pathconf(".", "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _path_max() -> int:
    try:
        return os.pathconf(".", "PC_PATH_MAX")
    except (OSError, ValueError):
        return 4096


def _undecodable(error: UnicodeEncodeError) -> bool:
    """Says whether text failed to encode for the lone surrogates by which Python holds a name's bytes that are
    not UTF-8 (os.fsdecode's, from a file name or an argument in another encoding)."""
    return isinstance(error.object, str) and "\udc80" <= error.object[error.start] <= "\udcff"


def _word_at(text: str, index: int) -> str:
    """Returns the word of ``text`` around ``index`` (a path or a name), without the quotes around it."""
    start, end = index, index
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "'\"=":
        start -= 1
    while end < len(text) and not text[end].isspace() and text[end] not in "'\"":
        end += 1
    return text[start:end]


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Prints ``othello-ga: error: <message>`` (one line) on stderr and exits with ``code``."""
    click.echo(f"{PROG}: error: {one_line(message)}", err=True)
    raise click.exceptions.Exit(code)


class _NamedStdout:
    """Standard output as the commands print to it, its failures named: "cannot write to standard output: No
    space left on device" rather than "[Errno 28] ...". A reader that went away stays a BrokenPipeError, which
    ends the command quietly (exit code 141)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def _named(self, error: OSError) -> StandardOutputError:
        return StandardOutputError(f"cannot write to standard output: {error.strerror or error}")

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise self._named(error) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise self._named(error) from None

    def __getattr__(self, name: str) -> Any:  # everything else is the stream's own (encoding, fileno, buffer, ...)
        return getattr(self._stream, name)


@contextlib.contextmanager
def named_stdout() -> Iterator[None]:
    """Runs a command with its standard output's failures named (:class:`StandardOutputError`)."""
    stream = sys.stdout
    if stream is None or isinstance(stream, _NamedStdout):
        yield
        return
    sys.stdout = _NamedStdout(stream)  # type: ignore[assignment]
    try:
        yield
    finally:
        if isinstance(sys.stdout, _NamedStdout):
            sys.stdout = stream


@contextlib.contextmanager
def saved(what: str) -> Iterator[None]:
    """Adds ``what`` (what the command saved: "the run is finished and saved in ...") to a standard output
    that cannot take the command's report, so that a full device does not read as lost work."""
    try:
        yield
    except StandardOutputError as error:
        raise StandardOutputError(f"{error}; {what}") from None


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

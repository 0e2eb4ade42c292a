"""The solve command: the exact value and best moves of positions, by the endgame search."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from engine import Board
from engine.board import square_name
from engine.endgame import MOVES, EndgameSolver, Solution, check_solvable
from ga.cli.outputs import output_path
from ga.cli.errors import EXIT_INTERRUPTED, PROG, Command
from ga.files import STDOUT, FileRefused, Output, check_stdout, read_regular
from ga.ggf import GGFError, read_records

__all__ = ["CSV_COLUMNS", "MAX_EMPTIES", "read_positions", "solve"]

#: Columns of ``solve --csv``, one row per position (``move_values`` is empty unless ``--moves all``).
CSV_COLUMNS = ("position", "empties", "score", "best_moves", "move_values", "nodes", "seconds")
#: The most empty squares ``solve`` takes unless --max-empties says more: about a minute of search here.
MAX_EMPTIES = 30
#: The largest positions file read (a line of 66 characters a position: about 250,000 positions).
MAX_FILE_BYTES = 16 * 2**20
_BOARD_CHARS = frozenset("XxOo*-.")


@click.command(cls=Command, context_settings={"ignore_unknown_options": True})
@click.argument("positions", nargs=-1, required=True, metavar="POSITION_OR_FILE...")
@click.option("--moves", type=click.Choice(MOVES), default="best", show_default=True,
              help="best: the value and every best move; all: also the exact value of every move (slower).")
@click.option("--csv", "csv_path", type=click.Path(), callback=output_path, default=None,
              help="Also write one row per position to this CSV file ('-' for standard output).")
@click.option("--force", is_flag=True, help="Replace an existing --csv file.")
@click.option("--max-empties", type=click.IntRange(1, 60), default=MAX_EMPTIES, show_default=True,
              help="Refuse positions with more empty squares (the time grows about threefold per square).")
def solve(positions: tuple[str, ...], moves: str, csv_path: Path | None, force: bool, max_empties: int) -> None:
    """Solve positions exactly: the final disc difference for the side to move with perfect play, and the best moves.

    A position is 64 squares a1..h8 (X black, O white, - empty), a space and
    the side to move (X or O), quoted as one argument or given as two; a
    file holds one per line (.obf: a ';' starts a comment), and '-' reads
    them from standard input. A GGF game record (an argument or a file, one
    record a line) gives the position at its end. Empty squares of a finished game count for its
    winner, as in the published scores. One row per position, then a total.
    """
    check_stdout("solve prints its results there; give --csv FILE and redirect the rest, or leave it open")
    boards = list(_gather(positions))
    for where, board in boards:
        try:
            check_solvable(board, max_empties)
        except ValueError as error:
            hint = " (raise --max-empties to try)" if "allowed" in str(error) else ""
            raise ValueError(f"{where}: {error}{hint}") from None
    with contextlib.ExitStack() as stack:
        # The CSV's path is checked before any search; a regular file appears at the end, whole, or not at all.
        output = None if csv_path is None else stack.enter_context(Output(csv_path, force=force,
                                                                          stdout_use="give --csv a file"))
        to_stdout = output is not None and output.is_stdout
        show = (lambda line: click.echo(line, err=True)) if to_stdout else click.echo
        solver = EndgameSolver()
        solutions: list[Solution] = []
        show(_header(moves))
        for _, board in boards:
            try:
                solution = _interruptible(lambda board=board: solver.solve(board, moves))
            except KeyboardInterrupt:
                written = "" if csv_path is None else "; --csv was not written"
                click.echo(f"{PROG}: interrupted after {len(solutions)} of {len(boards)} positions{written}", err=True)
                raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
            solutions.append(solution)
            show(_row(solution, moves))
        if len(solutions) > 1:
            show(_total(solutions))
        if output is not None:
            output.write(_csv_text(solutions))
    if csv_path is not None and not to_stdout:
        click.echo(f"wrote {csv_path}")


def _gather(arguments: Sequence[str]) -> Iterator[tuple[str, Board]]:
    """Yields ``(where, board)`` for each position of the arguments: position texts, files, ``-``.

    A board of 64 squares followed by a lone side (two arguments, as an
    unquoted position arrives) is one position.
    """
    index = 0
    while index < len(arguments):
        text = arguments[index]
        if (index + 1 < len(arguments) and _looks_like_board(text.strip())
                and arguments[index + 1].strip().upper() in ("X", "O")):
            text = f"{text} {arguments[index + 1]}"
            index += 1
        index += 1
        if text == STDOUT:  # the same '-' names standard input here
            yield from read_positions(_read_stdin(), "standard input")
        elif _is_game_record(text):
            yield from _final_positions(text, "game record")
        elif _looks_like_position(text) and not os.path.lexists(text):  # a file of that name is read as a file
            yield f"position {text!r}", _board(text, f"position {text!r}")
        else:
            yield from read_positions(_read_file(text), text)


def _read_stdin() -> str:
    """Returns the positions on standard input: text of at most MAX_FILE_BYTES (an endless stream is refused
    once it holds more, not read until memory runs out)."""
    stream = sys.stdin
    if stream is None or stream.closed:
        raise ValueError("standard input is closed; give positions as arguments or a file, or pipe them to -")
    buffer = getattr(stream, "buffer", None)
    try:
        data = buffer.read(MAX_FILE_BYTES + 1) if buffer is not None else stream.read(MAX_FILE_BYTES + 1).encode()
    except OSError as error:
        raise ValueError(f"cannot read standard input: {error.strerror or error} (a directory or a closed "
                         "stream?); give positions as arguments or a file") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"standard input holds more than {MAX_FILE_BYTES // 2**20} MiB, more than a positions file "
                         "(one position a line, about 250,000 positions); give fewer positions")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise ValueError(f"standard input is not text of positions (byte {error.start} is not UTF-8)") from None


def _looks_like_board(text: str) -> bool:
    return len(text) == 64 and set(text) <= _BOARD_CHARS


def _looks_like_position(text: str) -> bool:
    """Returns whether an argument is meant as a position rather than a file: 64 characters, or board characters, first.

    A wrong one then gets the position's own message (its length, a bad
    character) rather than "no such file".
    """
    words = text.split()
    return bool(words) and (len(words[0]) == 64 or (len(words[0]) >= 16 and set(words[0]) <= _BOARD_CHARS))


def _board(text: str, where: str) -> Board:
    try:
        return Board.from_text(text)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def _is_game_record(text: str) -> bool:
    """Says whether a text is GGF game records (``(;GM[Othello]...;)``, perhaps after a game count) rather than
    position lines."""
    return re.match(r"\s*(?:[12]\s+)?\(;", text) is not None


def _final_positions(text: str, source: str) -> list[tuple[str, Board]]:
    """Returns ``(where, board)`` for the final position of each GGF record of ``text``."""
    try:
        records = read_records(text)
    except GGFError as error:
        raise ValueError(f"{source}: {error}") from None
    return [(f"{source}, game {number}", record.final_board()) for number, record in enumerate(records, start=1)]


def read_positions(text: str, source: str) -> list[tuple[str, Board]]:
    """Returns ``(where, board)`` for each position line of ``text``; ``;`` starts a comment, blank lines are skipped.
    A text of GGF game records gives the final position of each game.

    :raises ValueError: naming the source, the line and what is wrong with it.
    """
    if _is_game_record(text):
        return _final_positions(text, source)
    boards = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split(";", 1)[0].strip()
        if content:
            where = f"{source}, line {number}"
            boards.append((where, _board(content, where)))
    if not boards:
        raise ValueError(f"{source} holds no position; write one per line: 64 squares (X, O or -), a space, X or O")
    return boards


def _read_file(name: str) -> str:
    """Returns the text of a positions file, checked before it is opened: a regular file of bounded size."""
    path = Path(name)
    if path.is_dir():
        raise ValueError(f"'{name}' is a directory; name a file of positions (one per line)")
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise ValueError(
            f"'{name}' is neither a position (64 squares X, O or -, a space, X or O) nor an existing file"
        ) from None
    except FileRefused as error:
        raise ValueError(f"positions file '{name}' {error.problem}; give a file of positions, or - to read "
                         "standard input") from None
    except OSError as error:
        raise ValueError(f"cannot read '{name}': {error.strerror or error}") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark, as some editors save files
    except UnicodeDecodeError as error:
        raise ValueError(f"'{name}' is not a text file of positions (byte {error.start} is not UTF-8)") from None


def _interruptible(work: Any) -> Solution:
    """Returns ``work()`` run in a helper thread, so that Ctrl-C ends the command during a long search.

    The search runs in C without the GIL and cannot see a signal; this thread
    waits for it and can. An abandoned search ends with the process.
    """
    result: list[Solution] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as error:  # handed to the waiting thread
            failure.append(error)

    thread = threading.Thread(target=run, name="othello-ga-solve", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(0.2)
    if failure:
        raise failure[0]
    return result[0]


def _header(moves: str) -> str:
    last = "moves (exact value each)" if moves == "all" else ""
    return f"{'position':66}  {'empties':>7}  {'score':>5}  {'best':<12} {'nodes':>14} {'seconds':>9}  {last}".rstrip()


def _signed(value: int) -> str:
    return f"{value:+d}"


def _row(solution: Solution, moves: str) -> str:
    board = solution.board
    values = ""
    if moves == "all" and solution.move_values is not None:
        values = " ".join(f"{square_name(move)}:{_signed(value)}" for move, value in solution.move_values.items())
    return (f"{board.to_text():66}  {board.empty_count():>7}  {_signed(solution.score):>5}  "
            f"{solution.best_move_names:<12} {solution.nodes:>14,} {solution.seconds:>9.3f}  {values}").rstrip()


def _total(solutions: Sequence[Solution]) -> str:
    nodes = sum(s.nodes for s in solutions)
    seconds = sum(s.seconds for s in solutions)
    rate = f"  {nodes / seconds / 1e6:,.1f} M nodes/s" if seconds > 0 else ""
    label = f"total: {len(solutions)} positions"
    return f"{label:66}  {'':>7}  {'':>5}  {'':<12} {nodes:>14,} {seconds:>9.3f}{rate}"


def _csv_text(solutions: Sequence[Solution]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for solution in solutions:
        values = ("" if solution.move_values is None else
                  "|".join(f"{square_name(move)}:{_signed(value)}" for move, value in solution.move_values.items()))
        writer.writerow([solution.board.to_text(), solution.board.empty_count(), solution.score,
                         "|".join(square_name(move) for move in solution.best_moves), values, solution.nodes,
                         f"{solution.seconds:.6f}"])
    return buffer.getvalue()

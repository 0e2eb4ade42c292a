"""GGF game records: the Generic Game Format of the GGS server, which Othello GUIs exchange (NBoard's ``set game``).

A record is one line::

    (;GM[Othello]PC[othello-ga]DT[2026.01.02_03:04:05.UTC]PB[engine]PW[lr06]RE[+12.00]TI[00:00]TY[8]
    BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[E6//1.5];)

``BO`` is the start board (its size, 64 squares a1..h8 of ``*`` black, ``O``
white, ``-`` empty, and the side to move), each ``B``/``W`` a move
``MOVE[/EVAL[/TIME]]`` (``PA`` a pass), ``RE`` black's final disc difference.
Reading checks everything: the properties (an unknown one is refused, as NBoard
refuses it), the board, and every move on the board, so that a record read is a
game that can be replayed. A pass the record leaves out where the mover had
no move is put in, as Edax reads such records. This module knows the format;
it reads and writes text, never files.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.board import BLACK, PASS, START_TEXT, WHITE, Board, square_name

__all__ = ["GGFError", "GameRecord", "RecordedMove", "final_score", "format_move", "parse_move", "read_records"]

#: The properties a record may hold (the GGF definition's): anything else is refused.
PROPERTIES = ("GM", "PC", "DT", "PB", "PW", "RB", "RW", "TI", "TB", "TW", "TY", "RE", "BO", "B", "W", "KB", "KW",
              "KM", "CO")
#: What the tool writes as the place of its records.
PLACE = "othello-ga"
_PROPERTY = re.compile(r"\s*([A-Z]+)\[([^\]]*)\]")
_MOVE = re.compile(r"^\s*([A-Za-z]+[0-9]*)\s*(?:/\s*([^/]*?)\s*(?:/\s*([^/]*?)\s*)?)?$")
_GAME_TYPE = re.compile(r"^8(r\d*)?$", re.IGNORECASE)
_BLACK_CELLS, _WHITE_CELLS, _EMPTY_CELLS = "*Xx", "Oo", "-."
#: The squares as GGF writes them: A1 .. H8.
SQUARE_NAMES_UPPER = [square_name(square).upper() for square in range(64)]


class GGFError(ValueError):
    """A record that is not a game this tool can read; the message says what and where."""


@dataclass(frozen=True)
class RecordedMove:
    """One move of a record: a square (or :data:`engine.board.PASS`), with the evaluation and time written beside it."""

    square: int
    eval: float | None = None
    time: float | None = None


def parse_move(text: str) -> RecordedMove:
    """Returns the move of ``F5``, ``f5/1.25/0.3``, ``PA`` (a pass) or ``F5//2.0``.

    :raises GGFError: naming what is wrong with the text.
    """
    match = _MOVE.match(text)
    if match is None:
        raise GGFError(f"malformed move {text!r}: expected a square such as F5 or PA (a pass), "
                       "then optionally /EVAL/TIME")
    name, evaluation, seconds = match.groups()
    if name.upper() in ("PA", "PASS"):
        square = PASS
    else:
        try:
            square = SQUARE_NAMES_UPPER.index(name.upper())
        except ValueError:
            raise GGFError(f"malformed move {text!r}: {name!r} is not a square a1..h8 nor PA (a pass)") from None
    return RecordedMove(square, _number(evaluation, "evaluation", text), _number(seconds, "time", text))


def _number(text: str | None, what: str, move: str) -> float | None:
    if text is None or not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise GGFError(f"malformed move {move!r}: its {what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise GGFError(f"malformed move {move!r}: its {what} {text!r} is not a finite number")
    return value


def format_move(move: RecordedMove) -> str:
    """Returns the text of a move: ``F5``, ``PA``, ``F5/1.25``, ``F5//0.3`` or ``F5/1.25/0.3``."""
    text = "PA" if move.square == PASS else SQUARE_NAMES_UPPER[move.square]
    if move.eval is not None or move.time is not None:
        text += "/" + ("" if move.eval is None else _short(move.eval))
        if move.time is not None:
            text += "/" + _short(move.time)
    return text


def _short(value: float) -> str:
    text = repr(float(value))  # the shortest text that reads back as the same number
    return text[:-2] if text.endswith(".0") else text


def final_score(board: Board) -> int:
    """Returns black's final disc difference of a finished game, the empty squares counted for the winner."""
    diff = board.disc_diff()
    return diff + board.empty_count() * ((diff > 0) - (diff < 0))


@dataclass(frozen=True)
class GameRecord:
    """A game: the start position (Edax text), its moves (passes included), and the record's other properties.

    ``tags`` are the properties other than ``GM``, ``BO`` and the moves, in
    record order (``PB``, ``PW``, ``RE``, ...). Build one with
    :meth:`from_moves` or :func:`read_records`; both check every move.
    """

    start: str = START_TEXT
    moves: tuple[RecordedMove, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_moves(cls, moves: Sequence[int | RecordedMove], *, black: str = "?", white: str = "?",
                   start: str = START_TEXT, place: str = PLACE, date: str | None = None) -> GameRecord:
        """Returns the record of a game played from ``start`` (the standard start by default), its result filled in
        when it is over; ``date`` defaults to now.

        :raises GGFError: for a move that is not legal where it is played (a pass included).
        """
        recorded = tuple(move if isinstance(move, RecordedMove) else RecordedMove(int(move)) for move in moves)
        board = _replay(Board.from_text(start), recorded)
        result = f"{final_score(board):+.2f}" if board.is_game_over() else "?"
        tags = (("PC", _clean(place)), ("DT", date if date is not None else _now()), ("PB", _clean(black)),
                ("PW", _clean(white)), ("RE", result), ("TI", "00:00"), ("TY", "8"))
        return cls(start, recorded, tags)

    def tag(self, name: str, default: str = "") -> str:
        """Returns the value of a property (``PB``, ``RE``, ...), or ``default``."""
        return next((value for key, value in self.tags if key == name), default)

    def final_board(self) -> Board:
        """Returns the position after the last move."""
        return _replay(Board.from_text(self.start), self.moves)

    def positions(self) -> list[Board]:
        """Returns every position of the game, the start first and the final position last."""
        board = Board.from_text(self.start)
        boards = [board.copy()]
        for move in self.moves:
            board.push(move.square)
            boards.append(board.copy())
        return boards

    def to_text(self) -> str:
        """Returns the record as one line of GGF."""
        board = Board.from_text(self.start)
        side = "*" if board.turn == BLACK else "O"
        squares = self.start.split()[0].replace("X", "*")
        parts = ["(;GM[Othello]"]
        parts += [f"{key}[{_clean(value)}]" for key, value in self.tags]
        parts.append(f"BO[8 {squares} {side}]")
        for move in self.moves:
            parts.append(f"{'B' if board.turn == BLACK else 'W'}[{format_move(move)}]")
            board.push(move.square)
        parts.append(";)")
        return "".join(parts)


def _now() -> str:
    return time.strftime("%Y.%m.%d_%H:%M:%S.UTC", time.gmtime())


def _clean(value: str) -> str:
    """Returns a property's value as GGF can hold it: on one line, without brackets (the format has no escapes),
    UTF-8 text (a player named by a file whose name is in another encoding keeps those bytes written ``\\xff``)."""
    text = " ".join(str(value).split()).replace("[", "(").replace("]", ")")
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _replay(board: Board, moves: Sequence[RecordedMove]) -> Board:
    for number, move in enumerate(moves, start=1):
        try:
            _play(board, move.square)
        except ValueError as error:
            raise GGFError(f"move {number} ({format_move(move)}): {error}") from None
    return board


def _play(board: Board, square: int) -> None:
    if board.is_game_over():
        raise ValueError("the game is already over")
    if square == PASS:
        if not board.must_pass():
            raise ValueError(f"cannot pass: legal moves exist ({', '.join(map(square_name, board.legal_moves()))})")
        board.pass_turn()
    elif not board.is_legal(square):
        side = "black" if board.turn == BLACK else "white"
        legal = ", ".join(map(square_name, board.legal_moves())) or "none: pass (PA)"
        raise ValueError(f"{square_name(square)} is not a legal move of {side} (legal: {legal})")
    else:
        board.play(square)


def read_records(text: str) -> list[GameRecord]:
    """Returns the games of a GGF text: one record, or many (one a line, as game archives hold them).

    :raises GGFError: naming the record and what is wrong: a truncated record, an
        unknown property, a board that is not 8x8 Othello, an illegal move.
    """
    records = []
    rest = text.strip()
    if not rest:
        raise GGFError("no game record: a GGF record starts with '(;' and ends with ';)'")
    while rest:
        number = len(records) + 1
        # A count before a record ("1 (;...", "2 (;...") says how many games a match had: skipped, as NBoard does.
        rest = re.sub(r"^[12]\s+(?=\()", "", rest)
        if not rest.startswith("(;"):
            raise GGFError(f"record {number}: a GGF record starts with '(;', got {rest[:20]!r}")
        end = rest.find(";)", 2)
        if end < 0:
            raise GGFError(f"record {number} is truncated: no ';)' at its end")
        records.append(_parse_record(rest[2:end], number))
        rest = rest[end + 2:].strip()
    return records


def _parse_record(body: str, number: int) -> GameRecord:
    where = f"record {number}"
    position = 0
    tags: list[tuple[str, str]] = []
    start: Board | None = None
    moves: list[tuple[str, RecordedMove]] = []
    seen: set[str] = set()
    while position < len(body.rstrip()):
        match = _PROPERTY.match(body, position)
        if match is None:
            snippet = body[position:position + 20].strip()
            if "[" in snippet and "]" not in body[position:]:
                raise GGFError(f"{where} is truncated: a property is not closed by ']' ({snippet!r})")
            raise GGFError(f"{where}: expected a property NAME[VALUE], got {snippet!r}")
        name, value = match.groups()
        position = match.end()
        if name not in PROPERTIES:
            raise GGFError(f"{where}: unknown property {name}[{value}]; a GGF record holds "
                           f"{', '.join(PROPERTIES)}")
        if name in ("B", "W"):
            if start is None:
                start = Board()
            moves.append((name, parse_move(value)))
            continue
        if name in seen:
            raise GGFError(f"{where}: property {name} is given twice")
        seen.add(name)
        if moves:
            raise GGFError(f"{where}: property {name}[{value}] after the moves; the record's properties come first")
        if name == "GM":
            if value.strip().lower() != "othello":
                raise GGFError(f"{where}: GM[{value}] is not Othello")
        elif name == "BO":
            start = _parse_board(value, where)
        elif name == "TY":
            if not _GAME_TYPE.match(value.strip()):
                raise GGFError(f"{where}: game type TY[{value}] is not played here: only 8x8 Othello "
                               "(TY[8], or TY[8r...] for a random start)")
            tags.append((name, value))
        elif name in ("KB", "KW", "KM"):
            raise GGFError(f"{where}: {name}[{value}] belongs to komi games, which are not played here")
        else:
            tags.append((name, value))
    board = (start or Board()).copy()
    start_text = board.to_text()
    recorded: list[RecordedMove] = []
    for index, (colour, move) in enumerate(moves, start=1):
        mover = BLACK if colour == "B" else WHITE
        if board.turn != mover and board.must_pass() and move.square != PASS:
            recorded.append(RecordedMove(PASS))  # the pass the record left out
            board.pass_turn()
        if board.turn != mover and not board.is_game_over():
            side = "black" if board.turn == BLACK else "white"
            raise GGFError(f"{where}, move {index} ({colour}[{format_move(move)}]): {side} is to move")
        try:
            _play(board, move.square)
        except ValueError as error:
            raise GGFError(f"{where}, move {index} ({colour}[{format_move(move)}]): {error}") from None
        recorded.append(move)
    return GameRecord(start_text, tuple(recorded), tuple(tags))


def _parse_board(value: str, where: str) -> Board:
    parts = value.split()
    if not parts or parts[0] != "8":
        size = parts[0] if parts else "nothing"
        raise GGFError(f"{where}: BO[{value}] must start with the board size 8 (an 8x8 board), got {size}")
    cells = "".join(parts[1:])
    if len(cells) != 65:
        raise GGFError(f"{where}: BO has {len(cells)} characters after its size; an 8x8 board is 64 squares "
                       "(*, O or -) and then the side to move (* or O), 65 in all")
    squares, side = cells[:64], cells[64]
    text = []
    for index, cell in enumerate(squares):
        if cell in _BLACK_CELLS:
            text.append("X")
        elif cell in _WHITE_CELLS:
            text.append("O")
        elif cell in _EMPTY_CELLS:
            text.append("-")
        else:
            raise GGFError(f"{where}: BO has {cell!r} at {square_name(index)}; squares are * (black), "
                           "O (white) or - (empty)")
    if side in _BLACK_CELLS:
        turn = "X"
    elif side in _WHITE_CELLS:
        turn = "O"
    else:
        raise GGFError(f"{where}: BO ends with {side!r}; the side to move is * (black) or O (white)")
    return Board.from_text("".join(text) + " " + turn)

"""The NBoard protocol (version 2): what Othello GUIs (NBoard, and those that speak as it does) say to an engine.

One command a line comes in, one answer a line goes out, each line flushed:

- ``nboard 2`` -> ``set myname NAME``;
- ``set depth N``: the midgame depth (the exact endgame depth follows from it unless fixed) -> ``set myname NAME``;
- ``set game GGF``, ``move MOVE[/EVAL/TIME]``: the position (a record's final position, then one move more);
- ``go`` -> ``=== MOVE EVAL TIME``, after ``status``, ``nodestats`` and ``search`` lines while it thinks;
- ``hint N`` -> ``search MOVE EVAL 0 DEPTH`` for the N best moves, best first, after every round of the search;
- ``ping N`` -> ``pong N``, once every command before it is done;
- ``learn``, ``set contempt`` and anything unknown: ignored, as the protocol says.

EVAL is in discs for the side to move (:mod:`ga.nboard.search`); DEPTH is the
plies searched, ``100%`` for an exact solve.

A reader thread queues the commands; they are carried out in order. A search
(``go``, ``hint``) runs in a worker thread while the commands after it wait in
the queue; a ``ping`` (or the end of the input, or ``quit``) stops it, as the
protocol requires ("stop thinking and respond with pong"). Then, as Edax does,
an interrupted ``go`` still answers with the best move of its last whole round,
and the ``pong`` follows: a GUI takes nothing before the ``pong`` for the new
position. The stopped worker says nothing more; its search ends at the next
root move, or when the solver returns. Bad input (a malformed record, an
illegal move, a ``go`` in a finished game) is answered by a ``status`` line that
says what is wrong; the position stays the last good one.
"""

from __future__ import annotations

import collections
import queue
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from engine import PASS, Board
from engine.board import BLACK, square_name
from ga.ggf import SQUARE_NAMES_UPPER, GGFError, parse_move, read_records
from ga.nboard.search import MAX_DEPTH, Analyst, Round

__all__ = ["VERSION", "NBoardEngine", "format_eval"]

#: The protocol version this engine speaks.
VERSION = "2"


def format_eval(discs: float) -> str:
    """Returns an evaluation as the protocol writes it: discs with two decimals, no exponent, no sign for positives."""
    text = f"{discs:.2f}"
    return "0.00" if text == "-0.00" else text


def _move_text(square: int) -> str:
    return "PA" if square == PASS else SQUARE_NAMES_UPPER[square]


@dataclass
class _Search:
    """One ``go`` or ``hint`` being thought about: its worker's state, shared under the engine's output lock."""

    command: str
    wanted: int
    stop: threading.Event = field(default_factory=threading.Event)
    live: bool = True  # False once answered or abandoned: the worker says nothing more
    last: Round | None = None
    failure: BaseException | None = None
    started: float = field(default_factory=time.perf_counter)


@dataclass(frozen=True)
class _Done:
    """Put in the command queue by a worker whose search ended."""

    search: _Search


class NBoardEngine:
    """An engine speaking the NBoard protocol: commands from an iterable of lines, answers through ``write``."""

    def __init__(self, analyst: Analyst, name: str, write: Callable[[str], None]) -> None:
        self.analyst = analyst
        self.name = name
        self.board = Board()
        self._write = write
        self._output = threading.Lock()

    # ------------------------------------------------------------------ output

    def say(self, line: str) -> None:
        """Writes one line (the writer flushes it)."""
        with self._output:
            self._write(line)

    def _status(self, text: str) -> None:
        self.say(f"status {' '.join(text.split())}")

    def _myname(self) -> None:
        self.say(f"set myname {self.name}:{self.analyst.depth}")

    # ------------------------------------------------------------------ the loop

    def serve(self, lines: Iterable[str]) -> None:
        """Answers the commands of ``lines`` until they end or one is ``quit``."""
        inbox: queue.Queue[str | _Done | None] = queue.Queue()
        reader = threading.Thread(target=_read, args=(lines, inbox), name="nboard-reader", daemon=True)
        reader.start()
        waiting: collections.deque[str | None] = collections.deque()
        while True:
            item = waiting.popleft() if waiting else inbox.get()
            if isinstance(item, _Done):
                continue  # a stopped search ending: already answered
            if item is None:
                return
            command, _, argument = item.strip().partition(" ")
            argument = argument.strip()
            if command == "quit":
                return
            if command in ("go", "hint"):
                self._think(command, argument, inbox, waiting)
            else:
                self._handle(command, argument)

    def _handle(self, command: str, argument: str) -> None:
        if command == "nboard":
            if argument != VERSION:
                self._status(f"this engine speaks NBoard protocol version {VERSION}; got 'nboard {argument}'")
            self._myname()
        elif command == "set":
            what, _, value = argument.partition(" ")
            if what == "depth":
                self._set_depth(value.strip())
            elif what == "game":
                self._set_game(value.strip())
            # set contempt and other settings: ignored (the engine plays for the disc difference)
        elif command == "move":
            self._move(argument)
        elif command == "ping":
            self.say(f"pong {argument}".rstrip())
        # learn (the engine has no book) and unknown commands: ignored, as the protocol says

    def _set_depth(self, text: str) -> None:
        if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
            self._status(f"set depth needs a depth of 1 or more plies, got {text!r}; keeping depth {self.analyst.depth}")
            return
        depth = int(text)
        if depth > MAX_DEPTH:
            self._status(f"depth {depth} is deeper than this engine searches; searching {MAX_DEPTH} plies")
            depth = MAX_DEPTH
        self.analyst.depth = depth
        self._myname()

    def _set_game(self, text: str) -> None:
        try:
            records = read_records(text)
            if len(records) != 1:
                raise GGFError(f"set game takes one record, got {len(records)}")
            board = records[0].final_board()
        except GGFError as error:
            self._status(f"bad game record ({error}); keeping the position")
            return
        self.board = board

    def _move(self, text: str) -> None:
        try:
            square = parse_move(text).square
        except GGFError as error:
            self._status(f"{error}; keeping the position")
            return
        board = self.board.copy()
        if square != PASS and board.must_pass():
            board.pass_turn()  # a pass left out before the opponent's move, as Edax takes it
        problem = _illegal(board, square)
        if problem:
            self._status(f"illegal move {text}: {problem}; keeping the position")
            return
        board.push(square)
        self.board = board

    # ------------------------------------------------------------------ thinking

    def _think(self, command: str, argument: str, inbox: queue.Queue[str | _Done | None],
               waiting: collections.deque[str | None]) -> None:
        if command == "hint":
            wanted = self._wanted(argument)
            if wanted is None:
                return
        else:
            wanted = 1
        if self.board.is_game_over():
            self._status(f"the game is over ({_score(self.board)}); no move to {'play' if command == 'go' else 'rate'}")
            return
        search = _Search(command, wanted)
        end = self.analyst.end
        self._status(f"thinking: depth {self.analyst.depth}, "
                     + (f"exact from {end} empty squares" if end else "no exact endgame"))
        worker = threading.Thread(target=self._work, args=(search, self.board.copy(), inbox), name="nboard-search",
                                  daemon=True)
        worker.start()
        while True:
            item = inbox.get()
            if isinstance(item, _Done):
                if item.search is search:
                    break
                continue  # an earlier, stopped search ending
            waiting.append(item)
            if item is None or _stops(item):
                break  # answered now with what the search has; the worker stops at its next root move
        with self._output:
            search.live = False
            search.stop.set()
        if search.failure is not None:
            self._status(f"the search failed: {search.failure}")
        elif command == "go" and search.last is not None:
            best = search.last.best
            self.say(f"=== {_move_text(best.square)} {format_eval(best.discs)} "
                     f"{time.perf_counter() - search.started:.1f}")
        self._status("waiting")

    def _wanted(self, argument: str) -> int | None:
        if not argument:
            return 64  # every move, as Edax gives them
        if not re.fullmatch(r"[0-9]+", argument) or int(argument) < 1:
            self._status(f"hint needs a number of moves of 1 or more, got {argument!r}")
            return None
        return int(argument)

    def _work(self, search: _Search, board: Board, inbox: queue.Queue[str | _Done | None]) -> None:
        def report(found: Round) -> None:
            with self._output:
                if not search.live:
                    return
                search.last = found
                self._write(f"nodestats {found.nodes} {found.seconds:.2f}")
                for move in found.moves:
                    self._write(f"search {_move_text(move.square)} {format_eval(move.discs)} 0 {found.depth_text}")
                if search.command == "go":
                    best = found.best
                    self._write(f"status depth {found.depth_text}: {_move_text(best.square)} {format_eval(best.discs)}")

        try:
            self.analyst.think(board, search.wanted, search.stop, report)
        except BrokenPipeError:  # the GUI went away: the main thread ends the engine at its next line
            pass
        except Exception as error:  # a bug: said in a status line and on stderr, and the engine goes on
            search.failure = error
            traceback.print_exc(file=sys.stderr)
        inbox.put(_Done(search))


def _stops(line: str) -> bool:
    """Says whether a command interrupts a search: ping (the GUI is about to change the position) and quit."""
    return line.split(" ", 1)[0].strip() in ("ping", "quit")


def _read(lines: Iterable[str], inbox: queue.Queue[str | _Done | None]) -> None:
    try:
        for line in lines:
            inbox.put(line.rstrip("\r\n"))
    finally:
        inbox.put(None)  # the end of the input


def _illegal(board: Board, square: int) -> str:
    """Returns why ``square`` (or a pass) cannot be played on ``board``, or ""."""
    if board.is_game_over():
        return f"the game is over ({_score(board)})"
    if square == PASS:
        if board.must_pass():
            return ""
        return f"cannot pass with legal moves ({', '.join(map(square_name, board.legal_moves()))})"
    if board.is_legal(square):
        return ""
    side = "black" if board.turn == BLACK else "white"
    return f"{side} to move has {', '.join(map(square_name, board.legal_moves()))}"


def _score(board: Board) -> str:
    return f"black {board.disc_count(BLACK)}, white {board.disc_count(1 - BLACK)}"

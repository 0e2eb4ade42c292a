"""What the engine thinks of a position: its best moves and their values in discs, for the side to move.

The midgame is searched by iterative deepening, one ply more each round, each
root move valued by the evaluation's own alpha-beta search
(:func:`engine._players.move_value`, which releases the GIL): the best move of
the last round is tried first, and a move only needs its exact value when it
can be among the moves asked for, so the others are searched against a floor.
A round ends with a :class:`Round` handed to the caller. From a number of empty
squares on (:func:`endgame_depth`) the position is solved exactly instead
(:class:`engine.endgame.EndgameSolver`). A search stops between two root moves
when asked, keeping the last whole round.

An evaluation's values are in its own units (a sum of weights). They are given
in discs by the evaluation's :class:`DiscScale`: the least-squares slope,
through the origin, of the final disc difference on the value, fitted on the
positions of self-play games of the evaluation when the engine starts (a
value times the slope is, on average, the disc difference that the games went
on to end with from positions of that value). A value the search found to be a finished game is that game's
disc difference, and an exact solve gives the exact final disc difference.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine import BLACK, PASS, Board, Player, record_game
from engine._players import FINISHED_GAME_SCALE, move_value
from engine.endgame import EndgameSolver
from engine.kinds import KINDS
from ga.games.seeds import derive_seed
from ga.ggf import final_score

__all__ = ["CALIBRATION_GAMES", "DEFAULT_DEPTH", "MAX_AUTO_END", "MAX_DEPTH", "Analyst", "DiscScale", "MoveValue",
           "Round", "calibrate", "endgame_depth", "fit_disc_scale"]

#: The deepest midgame search (the alpha-beta player's own limit).
MAX_DEPTH = KINDS["alphabeta"].max_depth
#: The midgame depth when nothing sets one.
DEFAULT_DEPTH = 6
#: The most empty squares solved exactly when the depth chooses (each one more multiplies the solver's time by 2 to 4).
MAX_AUTO_END = 20
#: Self-play games the disc scale is fitted on, and the random moves that make them differ.
CALIBRATION_GAMES = 200
CALIBRATION_EPS = 0.1
#: Builds the evaluation's player: ``make(kind, depth, eps)``.
PlayerFactory = Callable[[str, int, float], Player]


def endgame_depth(depth: int) -> int:
    """Returns the empty squares from which a midgame depth of ``depth`` solves exactly: twice the depth, as Edax
    does at its levels up to 10, and at most :data:`MAX_AUTO_END`."""
    return min(2 * depth, MAX_AUTO_END)


@dataclass(frozen=True)
class DiscScale:
    """Discs per unit of an evaluation's value."""

    slope: float

    def discs(self, value: float) -> float:
        """Returns the disc difference a value stands for."""
        return value * self.slope


def fit_disc_scale(samples: Iterable[tuple[float, float]]) -> DiscScale:
    """Returns the scale fitted on ``(value, final disc difference)`` samples, both for the side to move: the
    least-squares slope through the origin (0 when every value is 0)."""
    product = square = 0.0
    for value, outcome in samples:
        product += value * outcome
        square += value * value
    return DiscScale(product / square if square > 0 else 0.0)


def calibrate(player: Player, games: int = CALIBRATION_GAMES, seed: int = 0) -> DiscScale:
    """Returns the disc scale of ``player``'s evaluation, fitted on every position of ``games`` self-play games of
    ``player`` (a one-ply player with random moves, so that the games differ; the same games for the same seed)."""
    samples = []
    for game in range(games):
        board = Board()
        seen: list[tuple[float, int]] = []
        for square in record_game(player, player, derive_seed(seed, game)):
            if square != PASS:
                seen.append((player.value(board.player, board.opponent, board.turn), board.turn))
            board.push(square)
        black = final_score(board)
        samples += [(value, black if turn == BLACK else -black) for value, turn in seen]
    return fit_disc_scale(samples)


@dataclass(frozen=True)
class MoveValue:
    """A root move and its value in discs for the side to move (exact: solved, the final disc difference with perfect
    play)."""

    square: int
    discs: float
    exact: bool


@dataclass(frozen=True)
class Round:
    """A finished round of a search: the best moves, best first, and what it took."""

    depth: int  # plies searched; for an exact solve, the empty squares
    exact: bool
    moves: tuple[MoveValue, ...]
    nodes: int  # positions visited since the search began
    seconds: float  # since the search began

    @property
    def depth_text(self) -> str:
        """Returns the depth as NBoard shows it: the plies, or ``100%`` for a solve."""
        return "100%" if self.exact else str(self.depth)

    @property
    def best(self) -> MoveValue:
        """Returns the best move."""
        return self.moves[0]


class Analyst:
    """Searches positions with one evaluation, at a midgame depth and an exact endgame depth that can change."""

    def __init__(self, make: PlayerFactory, depth: int = DEFAULT_DEPTH, end: int | None = None,
                 scale: DiscScale | None = None) -> None:
        self._make = make
        self._players: dict[int, Player] = {}
        self._lock = threading.Lock()  # players are built by whichever search first needs one
        self.depth = depth
        self.fixed_end = end
        self.scale = scale if scale is not None else calibrate(make("nhand_custom", 1, CALIBRATION_EPS))

    @property
    def end(self) -> int:
        """Returns the empty squares from which positions are solved exactly (0: never)."""
        return self.fixed_end if self.fixed_end is not None else endgame_depth(self.depth)

    def player(self, depth: int) -> Player:
        """Returns the alpha-beta player of the evaluation at ``depth``."""
        with self._lock:
            if depth not in self._players:
                self._players[depth] = self._make("alphabeta", depth, 0.0)
            return self._players[depth]

    def think(self, board: Board, wanted: int, stop: threading.Event, report: Callable[[Round], None]) -> Round | None:
        """Searches ``board`` for its ``wanted`` best moves; hands each finished round to ``report`` and returns the
        last (None when stopped before the first round ended).

        A side that must pass has one move, the pass, valued by searching the
        opponent's position.

        :raises ValueError: if the game is over.
        """
        if board.is_game_over():
            raise ValueError("the game is over")
        started = time.perf_counter()
        if board.must_pass():
            passed = board.copy()
            passed.pass_turn()

            def as_pass(found: Round) -> Round:
                return Round(found.depth, found.exact, (MoveValue(PASS, -found.best.discs, found.exact),),
                             found.nodes, found.seconds)

            inner = self.think(passed, 1, stop, lambda found: report(as_pass(found)))
            return None if inner is None else as_pass(inner)
        if self.end and board.empty_count() <= self.end:
            return self._solve(board, wanted, started, report)
        return self._deepen(board, wanted, stop, started, report)

    def _solve(self, board: Board, wanted: int, started: float, report: Callable[[Round], None]) -> Round:
        solution = EndgameSolver().solve(board, "best" if wanted == 1 else "all")
        if solution.move_values is None:
            values = [(solution.score, solution.best_moves[0])]
        else:
            values = [(value, square) for square, value in solution.move_values.items()]
        found = Round(board.empty_count(), True,
                      tuple(MoveValue(square, float(value), True) for value, square in values[:wanted]),
                      solution.nodes, time.perf_counter() - started)
        report(found)
        return found

    def _deepen(self, board: Board, wanted: int, stop: threading.Event, started: float,
                report: Callable[[Round], None]) -> Round | None:
        order: Sequence[int] = board.legal_moves()
        last: Round | None = None
        nodes = 0
        for depth in range(1, self.depth + 1):
            player = self.player(depth)
            valued: list[tuple[float, int]] = []  # (value, square) of the moves valued exactly, best first
            bounded: list[int] = []
            for square in order:
                if stop.is_set():
                    return last
                floor = valued[wanted - 1][0] if len(valued) >= wanted else -float("inf")
                value, visited = move_value(player, board.player, board.opponent, square, floor, board.turn)
                nodes += visited
                if value > floor:
                    at = next((i for i, (known, _) in enumerate(valued) if value > known), len(valued))
                    valued.insert(at, (value, square))  # after the equal values found earlier: ties keep order
                else:
                    bounded.append(square)
            order = [square for _, square in valued] + bounded
            moves = tuple(MoveValue(square, self._discs(value), False) for value, square in valued[:wanted])
            last = Round(depth, False, moves, nodes, time.perf_counter() - started)
            report(last)
        return last

    def _discs(self, value: float) -> float:
        if abs(value) >= FINISHED_GAME_SCALE:  # a game the search saw end: its disc difference (empties not counted)
            return value / FINISHED_GAME_SCALE
        return self.scale.discs(value)

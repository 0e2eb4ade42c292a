"""Exact endgame values of positions: the Python face of the endgame search (engine/_endgame.pyx).

>>> from engine import Board
>>> solution = EndgameSolver(table_bits=10).solve(
...     Board.from_text("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO- X"))
>>> solution.score, [square_name(m) for m in solution.best_moves]
(64, ['h8'])
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine._endgame import Endgame
from engine.board import BLACK, Board, square_name
from engine.evaluation import EVALUATIONS, FEATURES, Evaluation

__all__ = ["MOVES", "TABLE_BITS", "EndgameSolver", "Solution", "check_solvable"]

#: The solver's transposition table: 2**TABLE_BITS slots of 24 bytes (48 MiB).
TABLE_BITS = 21
#: What a solution reports of the moves: the best ones, or the exact value of every move.
MOVES = ("best", "all")


@dataclass(frozen=True)
class Solution:
    """The exact value of a position for the side to move, with perfect play by both sides."""

    board: Board
    score: int  # the final disc difference for the side to move, empty squares to the winner
    best_moves: tuple[int, ...]  # every move of that value, ascending; () when the side to move cannot move
    move_values: dict[int, int] | None  # each legal move's exact value, best first (moves="all"), else None
    nodes: int  # positions the search visited
    seconds: float  # wall time of the search

    @property
    def best_move_names(self) -> str:
        """Returns the best moves as ``g8|a5`` (``pass`` when the side to move must pass, ``-`` when the game is over)."""
        if self.best_moves:
            return "|".join(square_name(move) for move in self.best_moves)
        return "-" if self.board.is_game_over() else "pass"


def check_solvable(board: Board, max_empties: int = 60) -> None:
    """Raises unless ``board`` is a position to solve with at most ``max_empties`` empty squares.

    :raises ValueError: for a side without discs (no game reaches it but a
        finished one, which there is nothing to solve in), or too many empty squares.
    """
    for color, name in ((BLACK, "black"), (1 - BLACK, "white")):
        if not board.disc_count(color):
            raise ValueError(f"{name} has no discs (and so no moves); a position to solve needs discs of both colours")
    empties = board.empty_count()
    if empties > 60:
        raise ValueError(f"{empties} empty squares: no game has more than 60 (it starts with 4 discs)")
    if empties > max_empties:
        raise ValueError(
            f"{empties} empty squares, more than the {max_empties} allowed (each empty square more multiplies "
            f"the time by about 2 to 4)"
        )


class EndgameSolver:
    """Solves positions exactly, one at a time, with a transposition table of its own.

    The table is cleared before each position, so a position's node count
    does not depend on the positions solved before it. Far from the end (15
    empty squares or more) the moves are ordered by a shallow search with
    ``order_by`` (the built-in ``engine`` evaluation unless told otherwise;
    None: the opponent's fewest replies first alone): the values never depend
    on it, the positions searched do (docs/search.md).
    """

    def __init__(self, table_bits: int = TABLE_BITS, order_by: Evaluation | None = EVALUATIONS["engine"]) -> None:
        self._endgame = Endgame(table_bits)
        if order_by is not None:
            # The first table's squares and feature weights (a pattern network is left out: the order needs speed).
            weights = order_by.weights_of(0)
            self._endgame.order_by(order_by.squares[:64], [weights.get(name, 0.0) for name in FEATURES])

    def solve(self, board: Board, moves: str = "best") -> Solution:
        """Returns the :class:`Solution` of ``board``: its value and best moves, or (``moves="all"``) every move's value.

        :raises ValueError: for an unknown ``moves`` or a position :func:`check_solvable` refuses.
        """
        if moves not in MOVES:
            raise ValueError(f"moves must be one of {', '.join(MOVES)}, got {moves!r}")
        check_solvable(board)
        started = time.perf_counter()
        if moves == "best":
            score, best, nodes = self._endgame.solve(board.player, board.opponent)
            values = None
            best_moves = tuple(square for square in range(64) if best >> square & 1)
        else:
            by_move, nodes = self._endgame.move_values(board.player, board.opponent)
            if by_move:
                score = max(by_move.values())
                values = dict(sorted(by_move.items(), key=lambda item: (-item[1], item[0])))
                best_moves = tuple(sorted(move for move, value in by_move.items() if value == score))
            else:
                score, nodes = self._endgame.value(board.player, board.opponent)
                values, best_moves = {}, ()
        return Solution(board.copy(), score, best_moves, values, nodes, time.perf_counter() - started)

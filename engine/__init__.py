"""Cython bitboard Othello engine: the fitness function of othello-ga.

>>> from engine import Board, perft
>>> perft(Board(), 4)
244
"""

from engine import _bitboard
from engine._endgame import Interrupted, in_engine_work, stop_work
from engine._players import Player, play_game, play_match, record_game
from engine.board import BLACK, PASS, SQUARE_NAMES, WHITE, Board, parse_square, square_name
from engine.players import PlayerSpec, build_player, parse_spec
from engine.tables import TABLES

__all__ = [
    "BLACK", "PASS", "SQUARE_NAMES", "TABLES", "WHITE", "Board", "Interrupted", "Player", "PlayerSpec",
    "build_player", "parse_spec", "parse_square", "perft", "play_game", "play_match",
    "in_engine_work", "record_game", "square_name", "stop_work",
]


def perft(board: Board, depth: int) -> int:
    """Returns the number of leaves ``depth`` plies below ``board``.

    A forced pass counts as a ply and a finished game as one leaf.
    """
    return _bitboard.perft(board.player, board.opponent, depth)

"""The naive pure-Python yardstick of `bench` plays real Othello."""

from __future__ import annotations

import random

from engine import BLACK, Board, naive
from engine._bitboard import flips as get_flips


def _cells(board: Board) -> list[int]:
    return [1 if board.black >> s & 1 else 2 if board.white >> s & 1 else 0 for s in range(64)]


def test_naive_moves_and_flips_match_the_engine_over_random_games() -> None:
    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        board = Board()
        while not board.is_game_over():
            colour = 1 if board.turn == BLACK else 2
            cells = _cells(board)
            assert naive.legal_moves(cells, colour) == board.legal_moves()
            for square in board.legal_moves():
                flipped = sum(1 << s for s in naive.flips(cells, square, colour))
                assert flipped == get_flips(square, board.player, board.opponent)
                checked += 1
            if board.must_pass():
                board.pass_turn()
            else:
                board.play(rng.choice(board.legal_moves()))
    assert checked > 1000


def test_naive_games_end_with_a_plausible_disc_difference() -> None:
    diffs = [naive.play_game(None, seed) for seed in range(20)]
    assert all(-64 <= d <= 64 for d in diffs)
    assert len(set(diffs)) > 5  # seeds give different games
    assert naive.play_game(None, 3) == naive.play_game(None, 3)

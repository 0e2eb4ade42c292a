"""Perft: leaf counts of the game tree, the engine against known counts and the reference.

A forced pass counts as one ply and a finished game as one leaf. On a
mismatch the assertion message lists the per-move "divide" of both sides, so
the faulty subtree can be followed down.
"""
from __future__ import annotations

import pytest

import reference as ref
from engine import PASS, Board, perft

# From the start position (black to move), depths 1..11.
START_PERFT = {
    1: 4,
    2: 12,
    3: 56,
    4: 244,
    5: 1396,
    6: 8200,
    7: 55092,
    8: 390216,
    9: 3005288,
    10: 24571284,
    11: 212258800,
}

# (position text, depth, leaves), counted by the reference. The positions come
# from seeded random playouts: mid-game ones, end-game ones whose trees hold
# passes and finished games, and one where the side to move must pass.
POSITION_PERFT = [
    ("----------X--------XO-----XOO-----OXO----O-X----O--XO----------- X", 5, 42214),
    ("-------X------X--XXXXX----OXXX--OOOOXO----OOOX-----XX------X---- X", 5, 164708),
    ("--O-O-----OOOO--XXO-OOOO-OXXOO--OXXXOO--X-X-OX-----XXOX-------OX X", 5, 239422),
    ("--OOO-O-OOOOOO-X-OXXOOOXXXXOXXXXOXXOXX---O-OX---O-OOOX-----OOXX- X", 5, 71916),
    ("---------O---O----OOOO-O-XXOXOOX--OXXOX---O-XXX---OXX-X-----X-X- O", 5, 239796),
    ("-O--OO----OOOO---XOXOXX--XXOOXXX-X-OXOXOOOXOOX-O---XX--O--O-XX-- O", 5, 158578),
    ("O-X---O-XXXX-O--XXXXOOOOXXXOXXXOXXXXXOOOXXXXOOOOO-XOOOOO--OOOOOO O", 6, 6604),
    ("OOOO-O--X-OOXO---OOXXXXXOOXOXO--OXOXXXO-XXXXOOOOXXOOXXO-XXXXXXXO O", 6, 21630),
    ("-XO-O-X-X-OOXXXOXXOXXOXXX-XXOXOOXX-XXXOOOOOOXXOX--XXXOXX--XXXXXX O", 6, 37897),
    ("--OOO----X-O------XX-------XX------XX-------X------------------- X", 5, 359),
]


def divide_report(board: Board, depth: int) -> str:
    """Returns the engine's and the reference's per-move counts side by side."""
    position = ref.parse_text(board.to_text())
    expected = ref.divide(position, depth)
    lines = [f"divide of {board.to_text()} at depth {depth} (move: engine / reference)"]
    for move, count in expected.items():
        child = board.copy()
        child.push(move)
        name = "pass" if move == PASS else ref.square_name(move)
        lines.append(f"  {name}: {perft(child, depth - 1)} / {count}")
    return "\n".join(lines)


def check_perft(board: Board, depth: int, expected: int) -> None:
    actual = perft(board, depth)
    if actual != expected:
        pytest.fail(f"perft {actual} != {expected}\n{divide_report(board, depth)}")


@pytest.mark.parametrize("depth", range(1, 10))
def test_perft_from_start(depth: int) -> None:
    check_perft(Board(), depth, START_PERFT[depth])


@pytest.mark.slow
@pytest.mark.parametrize("depth", [10, 11])
def test_perft_from_start_deep(depth: int) -> None:
    check_perft(Board(), depth, START_PERFT[depth])


def test_perft_depth_zero_is_one_leaf() -> None:
    assert perft(Board(), 0) == 1


@pytest.mark.parametrize("depth", range(1, 6))
def test_reference_perft_from_start(depth: int) -> None:
    # The oracle must itself reproduce the published counts.
    assert ref.perft(ref.start_position(), depth) == START_PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [6, 7])
def test_reference_perft_from_start_deep(depth: int) -> None:
    assert ref.perft(ref.start_position(), depth) == START_PERFT[depth]


@pytest.mark.parametrize(("text", "depth", "leaves"), POSITION_PERFT)
def test_perft_of_positions(text: str, depth: int, leaves: int) -> None:
    check_perft(Board.from_text(text), depth, leaves)


@pytest.mark.parametrize(("text", "depth", "leaves"), POSITION_PERFT)
def test_perft_of_positions_below_table_depth_matches_reference(
    text: str, depth: int, leaves: int
) -> None:
    # Re-derives the table one ply shallower (cheap), and checks the engine there too.
    position = ref.parse_text(text)
    expected = ref.perft(position, depth - 2)
    check_perft(Board.from_text(text), depth - 2, expected)


@pytest.mark.slow
@pytest.mark.parametrize(("text", "depth", "leaves"), POSITION_PERFT)
def test_reference_perft_of_positions(text: str, depth: int, leaves: int) -> None:
    assert ref.perft(ref.parse_text(text), depth) == leaves


def test_perft_of_random_positions_matches_reference() -> None:
    for seed in range(40):
        game = ref.random_game(seed)
        # Mid-game and the last plies, where passes and game ends appear.
        for position in (game[len(game) // 2], game[-8] if len(game) > 8 else game[0]):
            board = Board.from_text(ref.to_text(position))
            for depth in (1, 2, 3):
                check_perft(board, depth, ref.perft(position, depth))


def test_perft_of_finished_game_is_one_leaf_at_any_depth() -> None:
    # Black a1 and white h8 only: neither side can ever move.
    text = "X" + "-" * 62 + "O X"
    for depth in range(0, 6):
        assert perft(Board.from_text(text), depth) == 1


def test_perft_counts_a_forced_pass_as_a_ply() -> None:
    # White to move has no move (a1 X, b1 O); black then has c1 only, which ends the game.
    text = "XO" + "-" * 62 + " O"
    board = Board.from_text(text)
    assert perft(board, 1) == 1  # the pass
    assert perft(board, 2) == 1  # c1
    assert perft(board, 5) == 1  # the game is over after c1
    assert ref.perft(ref.parse_text(text), 2) == 1

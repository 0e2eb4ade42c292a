"""Move generation and flips: the bitboard core against the square-walking reference.

Every position of 170 seeded random games (over 10,000 positions, passes and
finished games included) is checked move by move, then unreachable positions
with random disjoint masks, which reach the edge patterns (wrap-around across
the a/h files) that games seldom produce.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from engine import Board
from engine._bitboard import (
    _mixed_pair_on_rank, _portable_all_flipped, _portable_flips, _portable_moves, all_flipped, popcount,
)
from engine._bitboard import flips as get_flips, moves as get_moves

GAME_SEEDS = range(170)
FULL = (1 << 64) - 1


def game_positions() -> list[ref.Position]:
    return list(ref.iter_game_positions(GAME_SEEDS))


def check_core(player: int, opponent: int) -> None:
    """Compares get_moves (both versions), and get_flips on every empty square, with the reference.

    Occupied squares have their own test below, so that a fault there does not
    hide the rest.
    """
    expected = dict(ref.moves_with_flips(player, opponent))
    moves = get_moves(player, opponent)
    assert moves == ref.mask_of(list(expected)), (
        f"get_moves of player={player:#018x} opponent={opponent:#018x}: "
        f"{[ref.square_name(s) for s in ref.squares_of(moves)]} != "
        f"{[ref.square_name(s) for s in expected]}"
    )
    # The fallback for CPUs without SSE2 is not what runs here: check it too.
    assert _portable_moves(player, opponent) == moves, f"portable moves of {player:#x}, {opponent:#x}"
    # Every move's flips at once, per direction: each (move, flipped disc) pair
    # lies in exactly one direction's mask, so the masks' sizes add up to the
    # moves' flip counts (the scoring of the last look-ahead ply relies on it).
    per_direction = all_flipped(player, opponent)
    assert _portable_all_flipped(player, opponent) == per_direction, f"portable all_flipped of {player:#x}, {opponent:#x}"
    union = 0
    for mask in per_direction:
        union |= mask
    assert union == ref.mask_of([d for f in expected.values() for d in ref.squares_of(f)])
    assert sum(popcount(mask) for mask in per_direction) == sum(popcount(f) for f in expected.values())
    # The search's quick proof that the game goes on: exactly the mixed pairs on a rank, and never wrong.
    proof = _mixed_pair_on_rank(player, opponent)
    assert proof == mixed_pair_on_rank(player, opponent), f"mixed pair on a rank of {player:#x}, {opponent:#x}"
    assert not proof or moves or ref.moves_of(opponent, player), f"{player:#x}, {opponent:#x} has no move"
    for square in ref.squares_of(~(player | opponent) & FULL):
        flipped = get_flips(square, player, opponent)
        assert _portable_flips(square, player, opponent) == flipped, f"portable flips of {square}, {player:#x}, {opponent:#x}"
        assert flipped == expected.get(square, 0), (
            f"get_flips({ref.square_name(square)}) of player={player:#018x} "
            f"opponent={opponent:#018x}: {flipped:#x} != {expected.get(square, 0):#x}"
        )


def mixed_pair_on_rank(player: int, opponent: int) -> bool:
    """Whether an empty square has, beside it on its rank, a disc and then a disc of the other colour."""
    def colour(file_index: int, rank_index: int) -> str:
        bit = 1 << ref.square_at(file_index, rank_index)
        return "X" if player & bit else "O" if opponent & bit else "-"

    for rank_index in range(8):
        line = "".join(colour(file_index, rank_index) for file_index in range(8))
        for pattern in ("-XO", "-OX", "XO-", "OX-"):
            if pattern in line:
                return True
    return False


def test_mixed_pair_on_rank_hand_built() -> None:
    def masks(*rows: str) -> tuple[int, int]:
        text = "".join(rows).ljust(64, "-")
        return (ref.mask_of([s for s, c in enumerate(text) if c == "X"]),
                ref.mask_of([s for s, c in enumerate(text) if c == "O"]))

    assert _mixed_pair_on_rank(*masks("-XO-----"))  # O moves on a1, flipping b1
    assert _mixed_pair_on_rank(*masks("-----XO-"))  # X moves on h1, flipping g1
    assert _mixed_pair_on_rank(*masks("------OX"))  # X moves on f1, flipping g1
    # Moves that exist, but not beside a mixed pair on a rank: the proof says nothing.
    assert not _mixed_pair_on_rank(*masks("-----OOX"))  # X moves on e1 along a run of two
    assert get_moves(*masks("-----OOX")) == 1 << 4
    assert not _mixed_pair_on_rank(*masks("-X------", "-O------"))  # X moves on b3: a file, not a rank
    # Discs of one colour are no pair, nor are h1 and a2, which a shift by one joins across the edge.
    assert not _mixed_pair_on_rank(*masks("-XX-----"))
    assert not _mixed_pair_on_rank(*masks("-------X", "O-------"))
    assert not _mixed_pair_on_rank(0, 0) and not _mixed_pair_on_rank(FULL, 0)


def test_enough_game_positions() -> None:
    positions = game_positions()
    assert len(positions) >= 10_000
    assert sum(ref.must_pass(p) for p in positions) > 0
    assert sum(ref.is_game_over(p) for p in positions) == len(GAME_SEEDS)


def test_core_matches_reference_on_game_positions() -> None:
    for position in game_positions():
        check_core(position.player, position.opponent)
        # The side not to move too: that is how passes and game ends are found.
        check_core(position.opponent, position.player)


def test_board_matches_reference_on_game_positions() -> None:
    for position in game_positions():
        text = ref.to_text(position)
        board = Board.from_text(text)
        moves = ref.legal_moves(position)
        assert board.legal_moves() == list(moves), text
        assert board.is_game_over() == ref.is_game_over(position), text
        assert board.disc_diff() == ref.disc_diff(position), text
        for move in moves:
            child = board.copy()
            child.play(move)
            assert child.to_text() == ref.to_text(ref.play(position, move)), (text, move)
        if ref.must_pass(position):
            board.pass_turn()
            assert board.to_text() == ref.to_text(ref.pass_turn(position)), text


@pytest.mark.parametrize("density", [0.1, 0.3, 0.5, 0.7, 0.85, 0.95, 1.0])
def test_core_matches_reference_on_random_masks(density: float) -> None:
    rng = random.Random(f"masks-{density}")
    for _ in range(700):
        player, opponent = ref.random_masks(rng, density)
        check_core(player, opponent)


@settings(max_examples=1000)
@given(st.integers(0, FULL), st.integers(0, FULL), st.integers(0, FULL))
def test_core_matches_reference_on_arbitrary_masks(player: int, opponent: int, empty: int) -> None:
    # Any disjoint pair is a valid input, reachable or not; ``empty`` thins the board.
    player &= ~empty
    opponent &= ~(player | empty)
    check_core(player, opponent)


def test_lone_disc_lines_in_every_direction() -> None:
    # A player disc with a run of opponent discs then an empty square, in each
    # direction from each square: exactly the run flips, and nothing wraps.
    for origin in range(64):
        rank, file = divmod(origin, 8)
        for rank_step, file_step in ref.DIRECTIONS:
            for length in range(1, 7):
                run = [
                    ref.square_at(file + k * file_step, rank + k * rank_step)
                    for k in range(1, length + 1)
                    if 0 <= file + k * file_step < 8 and 0 <= rank + k * rank_step < 8
                ]
                end_file, end_rank = file + (length + 1) * file_step, rank + (length + 1) * rank_step
                if len(run) < length or not (0 <= end_file < 8 and 0 <= end_rank < 8):
                    continue
                player, opponent = 1 << origin, ref.mask_of(run)
                target = ref.square_at(end_file, end_rank)
                assert get_moves(player, opponent) == 1 << target
                assert get_flips(target, player, opponent) == opponent
                check_core(player, opponent)


@pytest.mark.parametrize(
    ("player_square", "opponent_square", "empty_square"),
    [
        # Each line runs empty -> opponent on the a or h file -> the square a
        # bit shift would reach by wrapping to the other edge, where the player sits.
        ("h1", "a2", "b2"),  # west: a2 - 1 is h1
        ("a2", "h1", "g1"),  # east: h1 + 1 is a2
        ("h3", "a3", "b2"),  # north-west: a3 + 7 is h3
        ("a6", "h6", "g7"),  # south-east: h6 - 7 is a6
        ("a5", "h3", "g2"),  # north-east: h3 + 9 is a5
        ("h4", "a6", "b7"),  # south-west: a6 - 9 is h4
    ],
)
def test_no_wrap_across_the_board_edge(
    player_square: str, opponent_square: str, empty_square: str
) -> None:
    player = 1 << _square(player_square)
    opponent = 1 << _square(opponent_square)
    assert get_moves(player, opponent) >> _square(empty_square) & 1 == 0
    assert get_flips(_square(empty_square), player, opponent) == 0
    check_core(player, opponent)


def _square(name: str) -> int:
    return ref.FILE_NAMES.index(name[0]) + 8 * ref.RANK_NAMES.index(name[1])


def test_flips_of_occupied_square_is_zero() -> None:
    # An occupied square is never a legal move, so it flips nothing, even
    # where a run of opponent discs next to it ends on a player disc.
    failures = []
    for position in game_positions()[::10]:
        for player, opponent in ((position.player, position.opponent),
                                 (position.opponent, position.player)):
            for square in ref.squares_of(player | opponent):
                flipped = get_flips(square, player, opponent)
                if flipped:
                    failures.append((ref.to_text(position), ref.square_name(square), flipped))
    assert not failures, f"{len(failures)} occupied squares flip discs, e.g. {failures[:3]}"


def test_flips_of_occupied_square_is_zero_hand_built() -> None:
    # Black to move on d6, which white holds: d5 (white) is flanked by d4 (black).
    text = "-" * 18 + "X" + "-" * 8 + "XX" + "-" * 6 + "OX" + "-" * 6 + "OX" + "-" * 19 + " X"
    board = Board.from_text(text)
    assert ref.flips(43, board.black, board.white) == 0
    assert get_flips(43, board.black, board.white) == 0


def test_start_position_moves() -> None:
    board = Board()
    assert get_moves(board.black, board.white) == ref.mask_of([19, 26, 37, 44])
    assert get_flips(19, board.black, board.white) == 1 << 27  # d3 flips d4


@settings(max_examples=300)
@given(st.integers(0, FULL))
def test_popcount(mask: int) -> None:
    assert popcount(mask) == bin(mask).count("1") == ref.count(mask)

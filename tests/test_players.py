"""Players: each kind's defining behaviour on hand-built positions, and the
scores of every kind against the reference recursions on seeded random positions.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from engine import PASS, Board, Player, parse_spec, parse_square

EMPTY_ROW = "--------"
# Black to move: e1 flips three discs and leaves white one reply; e5 flips one
# and leaves white none.
FLIP_MOST = ["XOOO----", EMPTY_ROW, "--X-----", "---O----"] + [EMPTY_ROW] * 4
# Black to move: a1 (a corner), c4 and e5 each flip one disc.
CORNER = [EMPTY_ROW, "-O------", "--X-----", "---OX---"] + [EMPTY_ROW] * 4
# Black to move: c1 flips b1 and b2 and wipes white out; c3 flips b2 only.
WIPE_OUT = ["XO------", "-O------", "X-------"] + [EMPTY_ROW] * 5
# The opening after f5, white to move (parallel f4, perpendicular f6, diagonal d6).
AFTER_F5 = "---------------------------OX------XXX-------------------------- O"
# White to move without a move (a1 black, b1 white); black can play c1.
WHITE_MUST_PASS = "XO" + "-" * 62 + " O"

CORNER_TABLE = tuple(10.0 if square in (0, 7, 56, 63) else 1.0 for square in range(64))


def board_of(rows: list[str], side: str) -> Board:
    """Returns the board of 8 rows written rank 1 first, a..h left to right."""
    return Board.from_text("".join(rows) + " " + side)


def position_of(board: Board) -> ref.Position:
    return ref.parse_text(board.to_text())


def squares(*names: str) -> set[int]:
    return {parse_square(name) for name in names}


def chosen(player: Player, board: Board, seeds: Sequence[int] = range(20)) -> Counter[int]:
    return Counter(player.choose(board, seed) for seed in seeds)


# --- defining behaviours -------------------------------------------------------------


def test_nhand_1_takes_the_move_flipping_most() -> None:
    board = board_of(FLIP_MOST, "X")
    assert ref.best_moves("nhand", ref.player_scores("nhand", position_of(board))) == squares("e1")
    assert Player("nhand", 1).scores(board) == {parse_square("e1"): 5.0, parse_square("e5"): 1.0}
    assert chosen(Player("nhand", 1), board) == {parse_square("e1"): 20}


def test_nleast_1_leaves_the_fewest_replies() -> None:
    board = board_of(FLIP_MOST, "X")
    assert Player("nleast", 1).scores(board) == {parse_square("e1"): 1, parse_square("e5"): 0}
    assert chosen(Player("nleast", 1), board) == {parse_square("e5"): 20}


def test_nleast_and_nmost_in_the_opening() -> None:
    # White's f6 leaves black 4 replies (f4 and d6 leave 5) and gives white the
    # most moves on its next turn; two turns on, d6 leaves black the fewest
    # replies and f4 gives white the most moves.
    board = Board.from_text(AFTER_F5)
    position = position_of(board)
    for kind, depth, best in [("nleast", 1, "f6"), ("nmost", 1, "f6"), ("nleast", 2, "d6"), ("nmost", 2, "f4")]:
        expected = ref.player_scores(kind, position, depth)
        assert ref.best_moves(kind, expected) == squares(best), (kind, depth)
        assert Player(kind, depth).scores(board) == pytest.approx(expected, rel=1e-9)
        assert chosen(Player(kind, depth), board) == {parse_square(best): 20}, (kind, depth)
    assert Player("nleast", 1).scores(board) == {
        parse_square("f4"): 5, parse_square("d6"): 5, parse_square("f6"): 4
    }


@pytest.mark.parametrize("kind", ["nhand_custom", "wpc", "alphabeta"])
def test_corner_heavy_table_takes_the_corner(kind: str) -> None:
    board = board_of(CORNER, "X")
    assert chosen(Player(kind, 1, CORNER_TABLE), board) == {parse_square("a1"): 20}
    assert chosen(Player(kind, 2, CORNER_TABLE), board) == {parse_square("a1"): 20}


def test_random_tie_break_is_reproducible_and_varies() -> None:
    # nhand:1 scores a1, c4 and e5 alike (+3 discs): the seed decides.
    board = board_of(CORNER, "X")
    player = Player("nhand", 1)
    assert set(player.scores(board).values()) == {3.0}
    counts = chosen(player, board, range(300))
    assert set(counts) == squares("a1", "c4", "e5")
    assert min(counts.values()) > 60  # roughly uniform, not merely possible
    for seed in range(50):
        assert player.choose(board, seed) == player.choose(board, seed)


def test_ties_up_to_rounding_are_ties() -> None:
    # From CORNER with these weights a1 scores 0.7 + 0.1 (b2 turns black) and
    # c4 scores 0.9 - 0.1 (b2 stays white): equal in exact arithmetic, not in
    # floating point (0.7999999999999999 and 0.8). e5 is bad.
    board = board_of(CORNER, "X")
    weights = [0.0] * 64
    for name, weight in [("a1", 0.7), ("b2", 0.1), ("c4", 0.9), ("e5", -5.0)]:
        weights[parse_square(name)] = weight
    player = Player("nhand_custom", 1, weights)
    scores = player.scores(board)
    assert scores[parse_square("a1")] == pytest.approx(scores[parse_square("c4")], rel=1e-12)
    assert set(chosen(player, board, range(100))) == squares("a1", "c4")


def test_start_position_ties_under_nhand() -> None:
    board = Board()
    counts = chosen(Player("nhand", 1), board, range(200))
    assert set(counts) == set(board.legal_moves())


def test_random_player_plays_every_legal_move() -> None:
    board = Board()
    player = Player("random")
    counts = chosen(player, board, range(400))
    assert set(counts) == set(board.legal_moves())
    assert min(counts.values()) > 60
    assert [player.choose(board, seed) for seed in range(30)] == [
        player.choose(board, seed) for seed in range(30)
    ]


def test_phase_tables_switch_at_phase_move() -> None:
    # Table 0 likes corners, table 1 hates them. The moves from CORNER lead to
    # positions with 5 discs, move number 1.
    board = board_of(CORNER, "X")
    likes = [10.0 if s in (0, 7, 56, 63) else 1.0 for s in range(64)]
    hates = [-10.0 if s in (0, 7, 56, 63) else 1.0 for s in range(64)]
    early = Player("nhand_custom", 1, likes + hates, phase_move=2)  # move 1 < 2: table 0
    late = Player("nhand_custom", 1, likes + hates, phase_move=1)  # move 1 >= 1: table 1
    assert chosen(early, board) == {parse_square("a1"): 20}
    assert parse_square("a1") not in chosen(late, board)
    for player in (early, late):
        expected = ref.player_scores("nhand_custom", position_of(board), 1, likes + hates, player.phase_move)
        assert player.scores(board) == pytest.approx(expected, rel=1e-9)


def test_alphabeta_2_sees_a_winning_finish() -> None:
    # c1 wipes white out but sits on a hated square; c3 is loved.
    board = board_of(WIPE_OUT, "X")
    weights = [0.0] * 64
    weights[parse_square("c1")], weights[parse_square("c3")] = -100.0, 100.0
    scores = Player("alphabeta", 2, weights).scores(board)
    assert scores[parse_square("c1")] == 5 * 1e6
    assert chosen(Player("alphabeta", 2, weights), board) == {parse_square("c1"): 20}


def test_alphabeta_1_scores_a_finished_game_as_a_win() -> None:
    # The same at depth 1: the position after c1 is a finished game, worth
    # (final disc difference) * 1e6 whatever the remaining depth.
    board = board_of(WIPE_OUT, "X")
    weights = [0.0] * 64
    weights[parse_square("c1")], weights[parse_square("c3")] = -100.0, 100.0
    expected = ref.player_scores("alphabeta", position_of(board), 1, weights)
    assert expected[parse_square("c1")] == 5 * 1e6
    assert Player("alphabeta", 1, weights).scores(board) == pytest.approx(expected, rel=1e-9)


def test_nhand_stops_at_a_pass() -> None:
    # After e5, white must pass: nhand:3 scores e5 by the position right after it.
    board = board_of(FLIP_MOST, "X")
    position = position_of(board)
    assert ref.must_pass(ref.play(position, parse_square("e5")))
    for depth in (1, 2, 3):
        scores = Player("nhand", depth).scores(board)
        assert scores[parse_square("e5")] == 1.0
        assert scores == pytest.approx(ref.player_scores("nhand", position, depth), rel=1e-9)


@pytest.mark.parametrize(
    ("kind", "weights"),
    [("random", None), ("nhand", None), ("nhand_custom", CORNER_TABLE), ("nleast", None),
     ("nmost", None), ("alphabeta", CORNER_TABLE)],
)
def test_a_player_without_a_move_passes(kind: str, weights: tuple[float, ...] | None) -> None:
    board = Board.from_text(WHITE_MUST_PASS)
    player = Player(kind, 2 if kind != "random" else 1, weights)
    assert player.choose(board, 0) == PASS
    if kind != "random":
        assert player.scores(board) == {}


def test_eps_one_plays_uniformly_at_random() -> None:
    board = board_of(FLIP_MOST, "X")
    assert chosen(Player("nhand", 1, eps=0.0), board, range(100)) == {parse_square("e1"): 100}
    counts = chosen(Player("nhand", 1, eps=1.0), board, range(200))
    assert set(counts) == squares("e1", "e5")
    assert min(counts.values()) > 60


def test_eps_half_mixes() -> None:
    board = board_of(FLIP_MOST, "X")
    counts = chosen(Player("nhand", 1, eps=0.5), board, range(400))
    # e1 is played when greedy (1/2) or by the random half (1/4): about 3/4.
    assert 0.6 < counts[parse_square("e1")] / 400 < 0.9


def test_random_player_has_no_scores() -> None:
    with pytest.raises(ValueError):
        Player("random").scores(Board())


# --- scores against the reference on random positions -----------------------------------


@lru_cache(maxsize=None)
def scored_positions() -> tuple[ref.Position, ...]:
    """Returns 300 seeded random positions spread over the whole game (passes and ends included).

    Every case scores a prefix of the same list, so the reference's memoised
    move generator serves them all.
    """
    rng = random.Random("scored-positions")
    return tuple(ref.random_position(rng.randrange(10**9), rng.randrange(61)) for _ in range(300))


def random_positions(count: int) -> tuple[ref.Position, ...]:
    return scored_positions()[:count]


def random_weights(size: int, salt: str) -> list[float]:
    rng = random.Random(f"weights-{salt}")
    return [rng.uniform(-1.0, 1.0) for _ in range(size)]


# (kind, depth, weights size or 0, phase_move, positions)
SCORE_CASES = [
    ("nhand", 1, 0, 40, 300),
    ("nhand", 2, 0, 40, 300),
    ("nhand", 3, 0, 40, 20),
    ("nhand_custom", 1, 64, 40, 300),
    ("nhand_custom", 2, 64, 40, 300),
    ("nhand_custom", 2, 128, 30, 300),
    ("wpc", 1, 128, 20, 300),
    ("nleast", 1, 0, 40, 300),
    ("nleast", 2, 0, 40, 30),
    ("nmost", 1, 0, 40, 300),
    ("nmost", 2, 0, 40, 8),
    ("alphabeta", 1, 64, 40, 300),
    ("alphabeta", 2, 64, 40, 300),
    ("alphabeta", 2, 128, 35, 300),
    ("alphabeta", 3, 64, 40, 30),
]
SLOW_SCORE_CASES = [
    ("nhand", 3, 0, 40, 150),
    ("nleast", 2, 0, 40, 300),
    ("nmost", 2, 0, 40, 60),
    ("nleast", 3, 0, 40, 8),
    ("nhand_custom", 3, 128, 45, 100),
    ("alphabeta", 3, 64, 40, 300),
    ("alphabeta", 4, 128, 50, 40),
]


def check_scores(kind: str, depth: int, size: int, phase_move: int, count: int) -> None:
    salt = f"{kind}-{depth}-{size}"
    weights = random_weights(size, salt) if size else None
    player = Player(kind, depth, weights, phase_move=phase_move)
    failures = []
    for index, position in enumerate(random_positions(count)):
        board = Board.from_text(ref.to_text(position))
        expected = ref.player_scores(kind, position, depth, weights, phase_move)
        actual = player.scores(board)
        if actual != pytest.approx(expected, rel=1e-9, abs=1e-9):
            failures.append(f"{ref.to_text(position)}: engine {actual} != reference {expected}")
            continue
        move = player.choose(board, index)
        if move not in ref.best_moves(kind, expected):
            failures.append(f"{ref.to_text(position)}: chose {move}, scores {expected}")
    assert not failures, f"{len(failures)}/{count} positions differ, e.g.\n" + "\n".join(failures[:3])


@pytest.mark.parametrize(("kind", "depth", "size", "phase_move", "count"), SCORE_CASES)
def test_scores_match_reference(kind: str, depth: int, size: int, phase_move: int, count: int) -> None:
    check_scores(kind, depth, size, phase_move, count)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "depth", "size", "phase_move", "count"), SLOW_SCORE_CASES)
def test_scores_match_reference_deep(kind: str, depth: int, size: int, phase_move: int, count: int) -> None:
    check_scores(kind, depth, size, phase_move, count)


def test_wpc_is_nhand_custom() -> None:
    weights = random_weights(64, "alias")
    for position in random_positions(30):
        board = Board.from_text(ref.to_text(position))
        assert Player("wpc", 2, weights).scores(board) == Player("nhand_custom", 2, weights).scores(board)


def test_nhand_is_nhand_custom_with_unit_weights() -> None:
    for position in random_positions(30):
        board = Board.from_text(ref.to_text(position))
        assert Player("nhand", 2).scores(board) == pytest.approx(
            Player("nhand_custom", 2, [1.0] * 64).scores(board), rel=1e-12
        )


def rank_by_rank_sum(mask: int, table: Sequence[float]) -> float:
    """The weighted sum of ``mask`` exactly as the engine adds it: a rank's weights from its highest
    square down, then the ranks from rank 0 up, each sum starting at 0.0."""
    total = 0.0
    for rank in range(8):
        rank_sum = 0.0
        for square in reversed([s for s in ref.squares_of(mask) if s // 8 == rank]):
            rank_sum += table[square]
        total += rank_sum
    return total


# Weights of many magnitudes, so that the order of the additions shows in the last bits.
WEIGHTS = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_subnormal=False).map(
    lambda w: w / 10 ** (abs(int(w)) % 7)
)


@settings(max_examples=60, deadline=None)
@given(weights=st.lists(WEIGHTS, min_size=128, max_size=128), phase_move=st.integers(1, 59),
       first=st.integers(0, 299))
def test_one_ply_scores_are_the_exact_rank_by_rank_sums(weights: list[float], phase_move: int, first: int) -> None:
    # Not approximately: the alpha-beta search's exact values, and so its games, rest on this double.
    player = Player("nhand_custom", 1, weights, phase_move=phase_move)
    opening, late = ref.weight_tables(weights)
    for position in scored_positions()[first:first + 10]:
        scores = player.scores(Board.from_text(ref.to_text(position)))
        for square in ref.legal_moves(position):
            child = ref.play(position, square)
            table = opening if ref.move_number(child) < phase_move else late
            mine, theirs = (child.black, child.white) if position.turn == ref.BLACK else (child.white, child.black)
            assert scores[square] == rank_by_rank_sum(mine, table) - rank_by_rank_sum(theirs, table)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_unit_weights_popcount_path_equals_the_table_path(depth: int) -> None:
    # All-ones tables are scored by popcount; any other constant goes through
    # the weight tables. Disc sums are exact integers, so the two agree exactly
    # (and games under nhand are unchanged by the shortcut).
    for position in random_positions(60 if depth < 3 else 15):
        board = Board.from_text(ref.to_text(position))
        ones = Player("nhand_custom", depth, [1.0] * 64).scores(board)
        twos = Player("nhand_custom", depth, [2.0] * 64).scores(board)
        assert twos == {square: 2.0 * score for square, score in ones.items()}
        assert ones == Player("nhand", depth).scores(board)


def test_an_option_given_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="option eps is given twice"):
        parse_spec("nhand:1,eps=0.1,eps=0.2")
    with pytest.raises(ValueError, match="option phase is given twice"):
        parse_spec("wpc:1@lr06,phase=30,eps=0.1,phase=31")


# ---------------------------------------------------------------- a table's scale decides no move


def scaled_games(kind: str, depth: int, table: Sequence[float], scale: float, opponent: Player) -> list[list[int]]:
    """Returns the moves of a few games of ``kind:depth`` on ``table`` times ``scale`` (eps 0.1, so that its draws
    of the generator are part of what must not change) against ``opponent``, alternating colours."""
    from engine._players import record_game

    player = Player(kind, depth, [w * scale for w in table], eps=0.1)
    return [record_game(player, opponent, seed) if seed % 2 else record_game(opponent, player, seed)
            for seed in range(6)]


@settings(max_examples=25, deadline=None)
@given(exponent=st.integers(-12, 3), mantissa=st.floats(1.0, 9.99),
       case=st.sampled_from([("nhand_custom", 1, "lr06", "random"), ("nhand_custom", 1, "heuristic", "nhand:1"),
                             ("alphabeta", 2, "sjk11", "alphabeta:2@classic")]))
def test_any_positive_scaling_of_a_table_plays_the_same_moves(exponent: int, mantissa: float,
                                                               case: tuple[str, int, str, str]) -> None:
    # A positive scale keeps every comparison of weighted sums, so it must keep every move and every tie: the tie
    # tolerance is relative to the table's scale (an absolute one made lr06 at 1e-10 play as the random mover).
    from engine import TABLES, build_player

    kind, depth, name, rival = case
    opponent = build_player(rival)
    expected = scaled_games(kind, depth, TABLES[name], 1.0, opponent)
    assert scaled_games(kind, depth, TABLES[name], mantissa * 10.0**exponent, opponent) == expected


@pytest.mark.parametrize("scale", [1e-10, 1e-300, 2.0**-1000, 1e4])
def test_a_table_scaled_to_the_edges_of_its_range_plays_as_itself(scale: float) -> None:
    from engine import TABLES

    opponent = Player("random")
    assert scaled_games("nhand_custom", 1, TABLES["lr06"], scale, opponent) == \
        scaled_games("nhand_custom", 1, TABLES["lr06"], 1.0, opponent)

"""The rules on hand-built positions: passes, game ends, text, squares, errors."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from engine import BLACK, PASS, WHITE, Board, parse_square, square_name

START_TEXT = "---------------------------OX------XO--------------------------- X"
# The shortest game: black wipes white out on the ninth ply.
WIPE_OUT_GAME = ["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"]


def board_of(rows: list[str], side: str) -> Board:
    """Returns the board of 8 rows written rank 1 first, a..h left to right."""
    assert len(rows) == 8 and all(len(row) == 8 for row in rows)
    return Board.from_text("".join(rows) + " " + side)


EMPTY_ROW = "--------"


# --- start and squares -----------------------------------------------------------


def test_start_position() -> None:
    board = Board()
    assert board.to_text() == START_TEXT
    assert board.turn == BLACK == 0 and WHITE == 1
    assert board.black == (1 << 28) | (1 << 35)  # e4, d5
    assert board.white == (1 << 27) | (1 << 36)  # d4, e5
    assert board.legal_moves() == [19, 26, 37, 44]  # d3, c4, f5, e6
    assert board.disc_count(BLACK) == board.disc_count(WHITE) == 2
    assert board.disc_diff() == 0
    assert not board.is_game_over()


def test_first_move_flips_one_disc() -> None:
    board = Board()
    board.play(parse_square("d3"))
    assert board.to_text() == "-------------------X-------XX------XO--------------------------- O"
    assert board.turn == WHITE
    assert board.legal_moves() == [parse_square(name) for name in ("c3", "e3", "c5")]


@pytest.mark.parametrize(
    ("name", "square"), [("a1", 0), ("h1", 7), ("d3", 19), ("a8", 56), ("h8", 63), ("e5", 36)]
)
def test_square_names(name: str, square: int) -> None:
    assert parse_square(name) == square
    assert square_name(square) == name


def test_square_names_round_trip() -> None:
    for square in range(64):
        assert parse_square(square_name(square)) == square
        assert square_name(square) == ref.square_name(square)


@pytest.mark.parametrize("name", ["i9", "", "d0", "a9", "i1", "z3", "d33", "3d", "d", "pass", " "])
def test_bad_square_names(name: str) -> None:
    with pytest.raises(ValueError, match="square"):
        parse_square(name)


@pytest.mark.parametrize("square", [-1, 64, 100])
def test_square_name_out_of_range(square: int) -> None:
    with pytest.raises(ValueError):
        square_name(square)


# --- passes and game ends ----------------------------------------------------------


def test_forced_pass() -> None:
    # a1 black, b1 white, white to move: b1 can flank nothing, black can play c1.
    board = board_of(["XO------"] + [EMPTY_ROW] * 7, "O")
    assert board.legal_moves() == []
    assert not board.is_game_over()
    with pytest.raises(ValueError):
        board.play(parse_square("c1"))
    board.pass_turn()
    assert board.turn == BLACK
    assert board.legal_moves() == [parse_square("c1")]
    assert ref.must_pass(ref.parse_text("XO" + "-" * 62 + " O"))


def test_wipe_out_ends_the_game() -> None:
    board = board_of(["XO------"] + [EMPTY_ROW] * 7, "X")
    board.play(parse_square("c1"))
    assert board.white == 0
    assert board.is_game_over()
    assert board.legal_moves() == []
    assert board.disc_diff() == 3
    assert (board.disc_count(BLACK), board.disc_count(WHITE)) == (3, 0)


def test_shortest_game_is_a_wipe_out() -> None:
    board = Board()
    position = ref.start_position()
    for name in WIPE_OUT_GAME:
        assert not board.is_game_over()
        board.play(parse_square(name))
        position = ref.play(position, parse_square(name))
    assert board.to_text() == ref.to_text(position)
    assert board.is_game_over() and ref.is_game_over(position)
    assert board.white == 0 and board.disc_diff() == 13


def test_game_over_with_empty_squares() -> None:
    # Black a1, white h8: neither disc can flank the other.
    board = board_of(["X-------"] + [EMPTY_ROW] * 6 + ["-------O"], "X")
    assert board.is_game_over()
    assert board.legal_moves() == []
    assert board.disc_diff() == 0


def test_game_over_with_blocked_empty_squares() -> None:
    # Full but for a1; white's only disc, c8, is on no line through a1, so
    # neither side can flank anything from a1.
    rows = ["-XXXXXXX"] + ["XXXXXXXX"] * 6 + ["XXOXXXXX"]
    for side in "XO":
        board = board_of(rows, side)
        assert board.legal_moves() == []
        assert board.is_game_over()
        assert board.disc_diff() == 62 - 1


def test_full_board_is_game_over() -> None:
    rng = random.Random(7)
    for _ in range(20):
        text = "".join(rng.choice("XO") for _ in range(64)) + " " + rng.choice("XO")
        board = Board.from_text(text)
        assert board.is_game_over() and board.legal_moves() == []
        assert board.disc_count(BLACK) + board.disc_count(WHITE) == 64
        assert board.disc_diff() == text[:64].count("X") - text[:64].count("O")


def test_random_games_end_like_the_reference() -> None:
    for seed in range(30):
        board = Board()
        for position in ref.random_game(seed)[1:]:
            move = _move_between(ref.parse_text(board.to_text()), position)
            if move == PASS:
                board.pass_turn()
            else:
                board.play(move)
            assert board.to_text() == ref.to_text(position)
        assert board.is_game_over()


# --- errors --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a1", "d4", "e5", "d6", "h8", "c3"])
def test_illegal_move_names_the_square(name: str) -> None:
    board = Board()
    before = board.to_text()
    with pytest.raises(ValueError, match=f"illegal move {name}"):
        board.play(parse_square(name))
    assert board.to_text() == before


def test_pass_with_a_legal_move_raises() -> None:
    board = Board()
    with pytest.raises(ValueError):
        board.pass_turn()
    with pytest.raises(ValueError):
        board.push(PASS)
    assert board.to_text() == START_TEXT


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("-" * 63 + " X", "64"),  # too short
        ("-" * 65 + " X", "64"),  # too long
        ("", None),
        (START_TEXT[:64], None),  # no side to move
        (START_TEXT[:64] + " Z", "side"),
        (START_TEXT[:64] + " B", "side"),
        (START_TEXT[:20] + "Z" + START_TEXT[21:], "character"),
        (START_TEXT[:20] + "1" + START_TEXT[21:], "character"),
        (START_TEXT[:20] + "W" + START_TEXT[21:], "character"),
    ],
)
def test_bad_text(text: str, problem: str | None) -> None:
    with pytest.raises(ValueError, match=problem):
        Board.from_text(text)


# --- text, str, repr ------------------------------------------------------------------


@settings(max_examples=300)
@given(st.text(alphabet="XO-", min_size=64, max_size=64), st.sampled_from("XO"))
def test_text_round_trip(squares: str, side: str) -> None:
    text = squares + " " + side
    board = Board.from_text(text)
    assert board.to_text() == text
    assert Board.from_text(board.to_text()).to_text() == text
    position = ref.parse_text(text)
    assert (board.black, board.white, board.turn) == tuple(position)


def test_text_round_trip_of_game_positions() -> None:
    for seed in range(20):
        for position in ref.random_game(seed):
            text = ref.to_text(position)
            board = Board.from_text(text)
            assert board.to_text() == text
            assert ref.parse_text(board.to_text()) == position


def test_repr_is_a_constructor_call() -> None:
    board = Board()
    board.play(parse_square("f5"))
    assert repr(board) == f"Board('{board.to_text()}')"
    assert eval(repr(board), {"Board": Board}).to_text() == board.to_text()


def test_str_is_a_labelled_grid() -> None:
    board = Board()
    board.play(parse_square("f5"))
    lines = str(board).splitlines()
    assert any(all(f in line for f in "abcdefgh") for line in lines)
    rank_rows = [line for line in lines if line[:1] in "12345678" and line[:1]]
    assert [row[0] for row in rank_rows] == list("12345678")
    assert sum(row[1:].count("X") for row in rank_rows) == board.disc_count(BLACK) == 4
    assert sum(row[1:].count("O") for row in rank_rows) == board.disc_count(WHITE) == 1
    assert "X" in rank_rows[4][1:] and "O" not in rank_rows[4][1:]  # rank 5: d5 e5 f5 black


# --- push, pop, copy --------------------------------------------------------------------


def test_push_pop_restores_every_position() -> None:
    for seed in range(10):
        game = ref.random_game(seed)
        board = Board()
        for position, following in zip(game, game[1:]):
            move = _move_between(position, following)
            board.push(move)
            assert board.to_text() == ref.to_text(following)
        for position in reversed(game[:-1]):
            board.pop()
            assert board.to_text() == ref.to_text(position)


def _move_between(position: ref.Position, following: ref.Position) -> int:
    if not ref.legal_moves(position):
        return PASS
    (move,) = [m for m in ref.legal_moves(position) if ref.play(position, m) == following]
    return move


def test_copy_is_independent() -> None:
    board = Board()
    copy = board.copy()
    copy.play(parse_square("d3"))
    assert board.to_text() == START_TEXT
    assert copy.to_text() != START_TEXT

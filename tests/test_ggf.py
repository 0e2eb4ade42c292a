"""GGF game records: hand-built records read as the games they are, every bad record refused by name, round trips.

The independent board is tests/reference.py: a record's moves are replayed
there and its final position compared with the one the reader computed.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import PASS, Board
from engine.board import parse_square
from ga.ggf import GGFError, GameRecord, RecordedMove, final_score, format_move, parse_move, read_records

import reference

# NBoard's own example session sends this record (the protocol document's "set game").
NBOARD_EXAMPLE = ("(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]"
                  "BO[8 ---------------------------O*------*O--------------------------- *]"
                  "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)")
START_ROWS = "-------- -------- -------- ---O*--- ---*O--- -------- -------- --------"


def replayed(start: str, moves: list[str]) -> reference.Position:
    """Plays the moves (square names, PA for a pass) on the reference board."""
    position = reference.parse_text(start)
    for move in moves:
        position = reference.play(position, PASS if move == "PA" else parse_square(move))
    return position


def test_nboards_example_record_is_the_game_it_records() -> None:
    [record] = read_records(NBOARD_EXAMPLE)
    expected = replayed(reference.START_TEXT, ["f5", "f6", "d3", "c5", "e6", "f7", "e7", "f4"])
    assert record.final_board().to_text() == reference.to_text(expected)
    assert record.tag("PB") == "./mEdax" and record.tag("PW") == "chris" and record.tag("RE") == "?"
    assert [move.square for move in record.moves] == [parse_square(m) for m in ("f5", "f6", "d3", "c5", "e6", "f7",
                                                                                 "e7", "f4")]
    assert record.to_text() == NBOARD_EXAMPLE  # what was read is written back as it was


def test_a_start_board_of_its_own_with_white_to_move_and_rows_apart() -> None:
    # A board no game reaches from the start, white to move, written in GGS's rows of 8.
    rows = "-------- -------- -------- ---O*--- ---**O-- ---O---- -------- --------"
    record_text = f"(;GM[Othello]PB[a]PW[b]TY[8]BO[8 {rows} O]W[D3]B[C3];)"
    [record] = read_records(record_text)
    start = "".join(rows.split()).replace("*", "X") + " O"
    assert record.start == start
    assert record.final_board().to_text() == reference.to_text(replayed(start, ["d3", "c3"]))
    assert read_records(record.to_text()) == [record]


def test_a_pass_written_or_left_out_is_the_same_game() -> None:
    before = next(p for p in reference.iter_game_positions(range(1000)) if reference.must_pass(p))
    start = reference.to_text(before)
    reply = reference.legal_moves(reference.pass_turn(before))[0]
    mover, other = ("B", "W") if before.turn == 0 else ("W", "B")
    rows = start.split()[0].replace("X", "*")
    side = "*" if before.turn == 0 else "O"
    name = format_move(RecordedMove(reply))
    written = read_records(f"(;GM[Othello]BO[8 {rows} {side}]{mover}[PA]{other}[{name}];)")[0]
    left_out = read_records(f"(;GM[Othello]BO[8 {rows} {side}]{other}[{name}];)")[0]
    assert [move.square for move in written.moves] == [PASS, reply] == [move.square for move in left_out.moves]
    assert written.final_board().to_text() == reference.to_text(reference.play(reference.pass_turn(before), reply))
    assert left_out.final_board() == written.final_board()


def test_moves_carry_their_evaluation_and_time() -> None:
    assert parse_move("f5/-1.00/0.5") == RecordedMove(parse_square("f5"), -1.0, 0.5)
    assert parse_move("F5//2") == RecordedMove(parse_square("f5"), None, 2.0)
    assert parse_move("pa") == parse_move("PASS") == RecordedMove(PASS)
    assert format_move(RecordedMove(parse_square("f5"), 1.25, 0.3)) == "F5/1.25/0.3"
    assert format_move(RecordedMove(parse_square("f5"), None, 2.0)) == "F5//2"
    [record] = read_records(f"(;GM[Othello]BO[8 {START_ROWS} *]B[f5/1.5/3];)")
    assert record.moves == (RecordedMove(parse_square("f5"), 1.5, 3.0),)


@pytest.mark.parametrize(("text", "message"), [
    (f"(;GM[Othello]BO[8 {START_ROWS[:-1]} *];)", "64 characters after its size"),
    (f"(;GM[Othello]BO[8 {START_ROWS}- *];)", "66 characters after its size"),
    (f"(;GM[Othello]BO[10 {START_ROWS} *];)", "board size 8"),
    (f"(;GM[Othello]BO[8 {START_ROWS.replace('O', 'Q', 1)} *];)", "'Q' at d4"),
    (f"(;GM[Othello]BO[8 {START_ROWS} X]B[A1];)", "a1 is not a legal move of black"),
    ("(;GM[Othello]B[F5]W[F5];)", "f5 is not a legal move of white"),
    ("(;GM[Othello]B[F5]B[D6];)", "white is to move"),
    ("(;GM[Othello]B[PA];)", "cannot pass: legal moves exist"),
    ("(;GM[Othello]B[Z9];)", "'Z9' is not a square"),
    ("(;GM[Othello]B[F5/x];)", "evaluation 'x' is not a number"),
    ("(;GM[Othello]XX[1]B[F5];)", "unknown property XX[1]"),
    ("(;GM[Othello]PB[a]PB[b];)", "PB is given twice"),
    ("(;GM[Chess];)", "GM[Chess] is not Othello"),
    ("(;GM[Othello]TY[10];)", "TY[10] is not played here"),
    ("(;GM[Othello]KM[0];)", "komi games"),
    ("(;GM[Othello]B[F5]PB[late];)", "after the moves"),
    ("(;GM[Othello]B[F5]W[F6]", "truncated: no ';)'"),
    ("(;GM[Othello]PB[no end;)", "truncated: a property is not closed by ']'"),
    ("(;GM[Othello] junk;)", "expected a property NAME[VALUE], got 'junk'"),
    ("GM[Othello];)", "starts with '(;'"),
    ("", "no game record"),
])
def test_a_bad_record_is_refused_naming_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(GGFError, match=re.escape(message)):
        read_records(text)


def test_a_game_archive_holds_one_record_a_line() -> None:
    first = GameRecord.from_moves([parse_square("f5")], black="a", white="b", date="2026.01.01_00:00:00.UTC")
    second = GameRecord.from_moves([parse_square("d3"), parse_square("c3")], date="2026.01.01_00:00:00.UTC")
    assert read_records(f"1 {first.to_text()}\n{second.to_text()}\n") == [first, second]


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=80))
def test_a_game_written_and_read_is_the_same_game(seed: int, plies: int) -> None:
    """Round trip: a random game (passes included) written as GGF reads back as the same record, and ends where the
    reference board ends."""
    positions = reference.random_game(seed)[:plies + 1]
    moves = [_move_between(before, after) for before, after in zip(positions, positions[1:])]
    record = GameRecord.from_moves(moves, black="black", white="white", date="2026.01.01_00:00:00.UTC")
    [again] = read_records(record.to_text())
    assert again == record
    assert again.to_text() == record.to_text()
    assert again.final_board().to_text() == reference.to_text(positions[-1])
    assert [board.to_text() for board in again.positions()] == [reference.to_text(p) for p in positions]
    if reference.is_game_over(positions[-1]):
        assert again.tag("RE") == f"{reference.final_score(positions[-1]) * (1 if positions[-1].turn == 0 else -1):+.2f}"
    else:
        assert again.tag("RE") == "?"


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(min_value=0, max_value=1e6))
def test_a_moves_evaluation_and_time_read_back_as_the_same_numbers(evaluation: float, seconds: float) -> None:
    move = RecordedMove(parse_square("c4"), evaluation, seconds)
    assert parse_move(format_move(move)) == move


def test_the_final_score_counts_empty_squares_for_the_winner() -> None:
    won = Board.from_text("X" * 10 + "-" * 54 + " O")
    assert won.is_game_over() and final_score(won) == 64
    drawn = Board.from_text("XO" + "-" * 62 + " X")
    assert final_score(drawn) == 0


def test_values_that_would_break_a_record_are_written_safely() -> None:
    record = GameRecord.from_moves([], black="a]b[c", white="two\nlines")
    [again] = read_records(record.to_text())
    assert again.tag("PB") == "a)b(c" and again.tag("PW") == "two lines"


def _move_between(before: reference.Position, after: reference.Position) -> int:
    if (before.black | before.white) == (after.black | after.white):
        return PASS
    return ((after.black | after.white) & ~(before.black | before.white)).bit_length() - 1


# ---------------------------------------------------------------- where the commands write and read records


def test_a_whole_game_played_in_the_terminal_is_recorded_passes_included() -> None:
    from test_cli import scripted_human

    from engine import BLACK, Player
    from ga.cli.play import play_human

    for seed in range(6):
        said: list[str] = []
        moves: list[int] = []
        board = play_human(Player("random"), BLACK, seed, ask=scripted_human(said), say=said.append, moves_played=moves)
        record = GameRecord.from_moves(moves)
        assert record.final_board() == board and board.is_game_over()
        assert record.tag("RE") == f"{final_score(board):+.2f}"
        replay = reference.start_position()
        for square in moves:
            replay = reference.play(replay, square)
        assert reference.to_text(replay) == board.to_text()


@pytest.mark.shows("play --save", "play --force")
def test_play_saves_the_game_as_a_record_and_replaces_one_only_with_force(tmp_path) -> None:
    from click.testing import CliRunner

    from ga.cli import cli

    path = tmp_path / "game.ggf"
    result = CliRunner().invoke(cli, ["play", "random", "--seed", "1", "--save", str(path)], input="d3\nquit\n")
    assert result.exit_code == 0, result.output
    reply = next(line for line in result.output.splitlines() if line.startswith("The computer plays"))
    [record] = read_records(path.read_text())
    assert [move.square for move in record.moves] == [parse_square("d3"), parse_square(reply.split()[-1].rstrip("."))]
    assert record.tag("PB") == "you" and record.tag("PW") == "random" and record.tag("RE") == "?"
    assert f"wrote {path}" in result.output
    before = path.read_text()
    again = CliRunner().invoke(cli, ["play", "random", "--seed", "1", "--save", str(path)], input="c4\nquit\n")
    assert again.exit_code == 2 and "already exists; pass --force" in again.output
    assert path.read_text() == before
    forced = CliRunner().invoke(cli, ["play", "random", "--white", "--seed", "1", "--save", str(path), "--force"],
                                input="quit\n")
    assert forced.exit_code == 0
    [record] = read_records(path.read_text())
    assert record.tag("PB") == "random" and record.tag("PW") == "you" and len(record.moves) == 1


@pytest.mark.shows("evaluate --save-games")
def test_evaluate_saves_every_game_it_played(tmp_path) -> None:
    """Each record is a legal game (the reader replays it) that ends as the game played: the wins, draws and losses
    counted from the records are the table's."""
    from click.testing import CliRunner

    from ga.cli import cli

    path = tmp_path / "games.ggf"
    result = CliRunner().invoke(cli, ["evaluate", "heuristic", "--vs", "random", "--vs", "nhand:1", "--games", "6",
                                      "--workers", "1", "--save-games", str(path)])
    assert result.exit_code == 0, result.output
    records = read_records(path.read_text())
    assert len(records) == 12
    for opponent, games in (("random", records[:6]), ("nhand:1", records[6:])):
        outcomes = []
        for index, record in enumerate(games):
            evaluated_black = index % 2 == 0  # game i: the evaluated player is black when i is even
            assert (record.tag("PW") if evaluated_black else record.tag("PB")) == opponent
            board = record.final_board()
            assert board.is_game_over() and record.tag("RE") == f"{final_score(board):+.2f}"
            diff = board.disc_diff() if evaluated_black else -board.disc_diff()
            outcomes.append((diff > 0, diff == 0, diff < 0))
        row = next(line for line in result.output.splitlines() if line.startswith(opponent + " "))
        wins, draws, losses = (int(word) for word in row.split()[2:5])
        assert (wins, draws, losses) == tuple(sum(column) for column in zip(*outcomes))
    ladder = tmp_path / "ladder.ggf"
    result = CliRunner().invoke(cli, ["evaluate", "heuristic", "--protocol", "ladder", "--vs", "wpc:1@lr06",
                                      "--depths", "1,2", "--games", "2", "--workers", "1", "--save-games", str(ladder)])
    assert result.exit_code == 0, result.output
    assert [r.tag("PW") for r in read_records(ladder.read_text())[::2]] == ["alphabeta:1@lr06,eps=0.1",
                                                                           "alphabeta:2@lr06,eps=0.1"]


def test_solve_reads_a_records_final_position(tmp_path) -> None:
    from click.testing import CliRunner

    from ga.cli import cli

    games = []
    for seed in (3, 4):
        positions = reference.random_game(seed)
        cut = next(i for i, p in enumerate(positions) if 64 - reference.count(p.black | p.white) == 9)
        moves = [_move_between(a, b) for a, b in zip(positions[:cut], positions[1:cut + 1])]
        games.append((GameRecord.from_moves(moves, date="2026.01.01_00:00:00.UTC"), positions[cut]))
    path = tmp_path / "games.ggf"
    path.write_text("".join(record.to_text() + "\n" for record, _ in games))
    result = CliRunner().invoke(cli, ["solve", str(path)])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()[1:3]]
    for row, (_, position) in zip(rows, games):
        assert " ".join(row[:2]) == reference.to_text(position)
        assert int(row[3]) == reference.exact_value(position)
    single = CliRunner().invoke(cli, ["solve", games[0][0].to_text()])
    assert single.exit_code == 0 and single.output.splitlines()[1].split()[:2] == rows[0][:2]
    bad = CliRunner().invoke(cli, ["solve", "(;GM[Othello]B[A1];)"])
    assert bad.exit_code == 2
    assert bad.output.strip() == ("othello-ga: error: game record: record 1, move 1 (B[A1]): a1 is not a legal move "
                                  "of black (legal: d3, c4, f5, e6)")

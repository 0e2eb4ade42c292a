"""The NBoard engine: its search, a scripted session checked on the reference board, a whole game between two
engine processes through a referee, bad input, and a search a ping interrupts.

The independent board is tests/reference.py: every move an engine answers is
checked there, and the exact values it reports in the endgame are the
reference solver's.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from engine import PASS, TABLES, Board, Player, build_player, parse_spec
from engine.board import parse_square, square_name
from ga.ggf import GameRecord, read_records
from ga.nboard.protocol import NBoardEngine, format_eval
from ga.nboard.search import Analyst, DiscScale, MoveValue, Round, endgame_depth, fit_disc_scale

import reference

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120.0  # seconds an answer may take before the test fails (never reached by a working engine)


# ---------------------------------------------------------------- helpers


def factory(spec_text: str, weights: object = None) -> Callable[[str, int, float], Player]:
    spec = parse_spec(spec_text)
    return lambda kind, depth, eps: build_player(dataclasses.replace(spec, kind=kind, depth=depth, eps=eps, end=0),
                                                 weights)


def moves_to(positions: Sequence[reference.Position]) -> list[int]:
    """Returns the moves (PASS for a pass) between consecutive reference positions."""
    moves = []
    for before, after in zip(positions, positions[1:]):
        added = (after.black | after.white) & ~(before.black | before.white)
        moves.append(PASS if not added else added.bit_length() - 1)
    return moves


def name(square: int) -> str:
    return "PA" if square == PASS else square_name(square).upper()


def square_of(text: str) -> int:
    return PASS if text.upper() == "PA" else parse_square(text)


def record_of(positions: Sequence[reference.Position], start: str = reference.START_TEXT) -> str:
    return GameRecord.from_moves(moves_to(positions), black="b", white="w", start=start,
                                 date="2026.01.01_00:00:00.UTC").to_text()


def searches(lines: Sequence[str]) -> list[tuple[int, float, str]]:
    """Returns the (square, eval, depth) of every search line."""
    found = []
    for line in lines:
        words = line.split()
        if words[0] == "search":
            assert words[3] == "0"  # the games field: no book
            found.append((square_of(words[1]), float(words[2]), words[4]))
    return found


def last_round(lines: Sequence[str]) -> list[tuple[int, float, str]]:
    found = searches(lines)
    depth = found[-1][2]
    tail = []
    for entry in reversed(found):
        if entry[2] != depth:
            break
        tail.append(entry)
    return tail[::-1]


class Session:
    """An engine driven line by line: in this process (a thread serving a queue) or as a process (the command)."""

    def __init__(self, args: Sequence[str] | None = None, analyst: Analyst | None = None) -> None:
        self.answers: queue.Queue[str | None] = queue.Queue()
        if analyst is not None:
            self.commands: queue.Queue[str | None] = queue.Queue()
            engine = NBoardEngine(analyst, "othello-ga:test", self.answers.put)  # lines out as the command's are
            self.thread = threading.Thread(target=engine.serve, args=(iter(self.commands.get, None),), daemon=True)
            self.thread.start()
            self.process = None
        else:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
            self.process = subprocess.Popen([sys.executable, "-m", "ga.cli", "nboard", *(args or [])],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            text=True, bufsize=1, env=env, cwd=ROOT)
            threading.Thread(target=self._read, daemon=True).start()
        self.pings = 0

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(line.rstrip("\n"))
        self.answers.put(None)

    def send(self, *lines: str) -> None:
        for line in lines:
            if self.process is None:
                self.commands.put(line)
            else:
                assert self.process.stdin is not None
                self.process.stdin.write(line + "\n")
                self.process.stdin.flush()

    def until(self, prefix: str) -> list[str]:
        """Returns the lines answered up to and including the first that starts with ``prefix``."""
        lines = []
        while True:
            line = self.answers.get(timeout=WAIT)
            assert line is not None, f"the engine ended before {prefix!r}; it said {lines}"
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def sync(self) -> list[str]:
        """Sends a ping; returns what was answered before its pong."""
        self.pings += 1
        self.send(f"ping {self.pings}")
        lines = self.until(f"pong {self.pings}")
        assert lines[-1] == f"pong {self.pings}"
        return lines[:-1]

    def close(self) -> int | None:
        self.send("quit")
        if self.process is None:
            self.thread.join(WAIT)
            assert not self.thread.is_alive()
            return None
        code = self.process.wait(WAIT)
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()
        return code


@pytest.fixture(scope="module")
def engine_analyst() -> Analyst:
    return Analyst(factory("alphabeta:1@engine"), depth=2)


# ---------------------------------------------------------------- the search


def test_the_disc_scale_is_the_least_squares_slope_through_the_origin() -> None:
    assert fit_disc_scale([(1.0, 3.0), (2.0, 6.0), (-1.0, -3.0)]).slope == pytest.approx(3.0)
    # y = 2v + noise with mean 0: sum(v y) / sum(v v)
    samples = [(1.0, 2.5), (2.0, 3.5), (-1.0, -2.0)]
    assert fit_disc_scale(samples).slope == pytest.approx((2.5 + 7.0 + 2.0) / 6.0)
    assert fit_disc_scale([(0.0, 5.0)]).slope == 0.0
    assert DiscScale(0.5).discs(-8.0) == -4.0


def test_evaluations_in_other_units_report_the_same_discs() -> None:
    """A table and the same table times 10 play the same moves and are given the same values in discs: the scale,
    fitted on each evaluation's own games, takes its units away."""
    table = np.array(TABLES["lr06"])
    board = Board.from_text(reference.to_text(reference.random_position(3, 20)))
    rounds = []
    for weights in (table, table * 10):
        analyst = Analyst(factory("alphabeta:1", weights), depth=3, end=0)
        rounds.append(analyst.think(board, 4, threading.Event(), lambda found: None))
    assert [m.square for m in rounds[0].moves] == [m.square for m in rounds[1].moves]
    assert [m.discs for m in rounds[0].moves] == pytest.approx([m.discs for m in rounds[1].moves], rel=1e-9)


def test_a_round_ranks_the_moves_by_the_players_own_values() -> None:
    board = Board.from_text(reference.to_text(reference.random_position(5, 24)))
    analyst = Analyst(factory("alphabeta:1@lr06"), depth=3, end=0, scale=DiscScale(2.0))
    reported: list[Round] = []
    found = analyst.think(board, 64, threading.Event(), reported.append)
    assert [r.depth for r in reported] == [1, 2, 3] and found is reported[-1]
    scores = build_player("alphabeta:3@lr06").scores(board)
    assert {m.square for m in found.moves} == set(scores)
    assert [m.discs for m in found.moves] == sorted((2.0 * v for v in scores.values()), reverse=True)
    top = analyst.think(board, 2, threading.Event(), lambda _: None)
    assert [m.discs for m in top.moves] == [m.discs for m in found.moves[:2]]


def test_the_endgame_is_solved_exactly_from_twice_the_depth() -> None:
    position = reference.random_game(11)[-11]  # 10 or so empty squares before the end
    while reference.must_pass(position) or reference.is_game_over(position):
        position = reference.random_game(11)[-12]
    board = Board.from_text(reference.to_text(position))
    empties = board.empty_count()
    analyst = Analyst(factory("alphabeta:1@lr06"), depth=(empties + 1) // 2, scale=DiscScale(1.0))
    assert analyst.end == endgame_depth(analyst.depth) >= empties
    found = analyst.think(board, 64, threading.Event(), lambda _: None)
    exact = reference.exact_move_values(position)
    assert found.exact and found.depth_text == "100%"
    assert {m.square: m.discs for m in found.moves} == {square: float(v) for square, v in exact.items()}
    assert [m.discs for m in found.moves] == sorted(map(float, exact.values()), reverse=True)
    assert endgame_depth(4) == 8 and endgame_depth(12) == 20


def test_a_side_that_must_pass_has_one_move_the_pass() -> None:
    position = next(p for p in reference.iter_game_positions(range(3000))
                    if reference.must_pass(p) and 64 - reference.count(p.black | p.white) <= 10)
    board = Board.from_text(reference.to_text(position))
    analyst = Analyst(factory("alphabeta:1@lr06"), depth=2, end=60, scale=DiscScale(1.0))
    found = analyst.think(board, 3, threading.Event(), lambda _: None)
    best_reply = max(reference.exact_move_values(reference.pass_turn(position)).values())
    assert found.moves == (MoveValue(PASS, -float(best_reply), True),)


def test_a_search_asked_to_stop_keeps_its_last_whole_round() -> None:
    board = Board()
    stop = threading.Event()
    reported: list[Round] = []

    def report(found: Round) -> None:
        reported.append(found)
        if found.depth == 2:
            stop.set()

    found = Analyst(factory("alphabeta:1@lr06"), depth=8, end=0, scale=DiscScale(1.0)).think(board, 1, stop, report)
    assert [r.depth for r in reported] == [1, 2] and found is reported[-1]


# ---------------------------------------------------------------- the protocol, in this process


def test_a_scripted_session_on_a_start_board_of_its_own(engine_analyst: Analyst) -> None:
    """Every command, checked on the reference board: a start board that is not the standard one, moves, a pass, the
    end of the game."""
    session = Session(analyst=engine_analyst)
    session.send("nboard 2")
    assert session.until("set myname") == ["set myname othello-ga:test:2"]
    session.send("set depth 3")
    assert session.until("set myname") == ["set myname othello-ga:test:3"]
    assert session.sync() == []
    # A start of its own: the position after 8 random plies, white to move if so it fell, then 6 more moves.
    game = reference.random_game(7)
    start = game[8]
    record = record_of(game[8:15], start=reference.to_text(start))
    position = game[14]
    session.send(f"set game {record}", "learn", "set contempt 0", "an unknown command")
    assert session.sync() == []  # nothing to say to any of them
    session.send("go")
    lines = session.until("===")
    _, move, evaluation, seconds = lines[-1].split()
    assert square_of(move) in reference.legal_moves(position)
    assert float(evaluation) == pytest.approx(float(format_eval(float(evaluation)))) and float(seconds) >= 0
    assert any(line.startswith("status") for line in lines) and any(line.startswith("nodestats") for line in lines)
    assert [depth for _, _, depth in searches(lines)] == ["1", "2", "3"]
    assert searches(lines)[-1][:2] == (square_of(move), float(evaluation))
    assert session.sync() == ["status waiting"]
    session.send("hint 3")
    final = last_round(session.until("status waiting"))
    assert len(final) == 3 and len({square for square, _, _ in final}) == 3
    assert {square for square, _, _ in final} <= set(reference.legal_moves(position))
    assert [value for _, value, _ in final] == sorted((value for _, value, _ in final), reverse=True)
    # The position did not change: go and hint only think.
    session.send("hint 64")
    final = last_round(session.until("status waiting"))
    assert {square for square, _, _ in final} == set(reference.legal_moves(position))
    assert [value for _, value, _ in final] == sorted((value for _, value, _ in final), reverse=True)
    # Moves with their evaluation and time, up to a position where a side must pass.
    passing_game = next(seed for seed in range(1000) if any(reference.must_pass(p) for p in reference.random_game(seed)))
    game = reference.random_game(passing_game)
    at = next(i for i, p in enumerate(game) if reference.must_pass(p))
    session.send(f"set game {record_of(game[:at - 1])}")
    for before, after in zip(game[at - 2:at], game[at - 1:at + 1]):
        session.send(f"move {name(moves_to([before, after])[0])}/0.50/1.2")
    assert session.sync() == []
    session.send("go")
    assert session.until("===")[-1].split()[1] == "PA"
    assert session.sync() == ["status waiting"]
    session.send("move PA")
    session.send("hint 64")
    final = last_round(session.until("status waiting"))
    assert {square for square, _, _ in final} == set(reference.legal_moves(reference.pass_turn(game[at])))
    # The end of the game: the position before the last move (a game always ends by a move), then that move.
    session.send(f"set game {record_of(game[:-1])}", f"move {name(moves_to(game[-2:])[0])}")
    assert session.sync() == []
    session.send("go", "hint 2", "move PA")
    said = session.sync()
    assert len(said) == 3 and all(line.startswith(start) for line, start in zip(said, (
        "status the game is over", "status the game is over", "status illegal move PA: the game is over")))
    assert reference.is_game_over(game[-1])
    session.close()


def test_bad_input_is_answered_by_a_status_line_and_the_position_is_kept(engine_analyst: Analyst) -> None:
    session = Session(analyst=engine_analyst)
    session.send("nboard 2", "set depth 2")
    assert session.sync()[-1] == "set myname othello-ga:test:2"
    game = reference.random_game(21)
    position = game[10]
    session.send(f"set game {record_of(game[:11])}")
    assert session.sync() == []
    good = record_of(game[:11])
    illegal = next(s for s in range(64) if not (position.black | position.white) >> s & 1
                   and s not in reference.legal_moves(position))
    colour = "B" if position.turn == reference.BLACK else "W"
    bad = {
        "a wrong board length": good.replace("BO[8 -", "BO[8 "),
        "an illegal move": good.replace(";)", f"{colour}[{name(illegal)}];)"),
        "an unknown property": good.replace("PB[", "XY[1]PB["),
        "a truncated record": good[:-2],
    }
    answers = {}
    for what, text in bad.items():
        session.send(f"set game {text}")
        answers[what] = session.sync()
    assert all(len(lines) == 1 and lines[0].startswith("status bad game record") for lines in answers.values()), answers
    assert "squares" in answers["a wrong board length"][0] and "not a legal move" in answers["an illegal move"][0]
    assert "unknown property XY" in answers["an unknown property"][0] and "truncated" in answers["a truncated record"][0]
    for command, expected in ((f"move {name(illegal)}", "status illegal move"), ("move PA", "status illegal move"),
                              ("move X", "status malformed move"), ("set depth deep", "status set depth needs"),
                              ("set depth ²", "status set depth needs"), ("hint none", "status hint needs"),
                              ("hint 0", "status hint needs"), ("nboard 1", "status this engine speaks")):
        session.send(command)
        lines = session.sync()
        assert lines[0].startswith(expected) and len(lines) == (2 if command.startswith("nboard") else 1), lines
    session.send("set depth 20")
    assert session.sync() == ["status depth 20 is deeper than this engine searches; searching 12 plies",
                              "set myname othello-ga:test:12"]
    session.send("set depth 2")
    assert session.sync() == ["set myname othello-ga:test:2"]
    session.send("hint 64")  # the position is the last good one
    final = last_round(session.until("status waiting"))
    assert {square for square, _, _ in final} == set(reference.legal_moves(position))
    over = game[-1]
    session.send(f"set game {record_of(game)}", "go")
    lines = session.sync()
    assert reference.is_game_over(over) and len(lines) == 1 and lines[0].startswith("status the game is over")
    session.send(f"move {name(0)}")
    assert session.sync()[0].startswith("status illegal move A1: the game is over")
    session.close()


class _Endless(Analyst):
    """A search that reports one round and then never ends by itself: only a stop ends it."""

    def __init__(self) -> None:
        super().__init__(factory("alphabeta:1@lr06"), depth=12, end=0, scale=DiscScale(1.0))
        self.stopped = threading.Event()

    def think(self, board: Board, wanted: int, stop: threading.Event, report: Callable[[Round], None]) -> Round:
        found = Round(1, False, (MoveValue(board.legal_moves()[0], 1.5, False),), 10, 0.0)
        report(found)
        stop.wait()
        self.stopped.set()
        report(Round(2, False, (MoveValue(board.legal_moves()[-1], 9.0, False),), 20, 0.0))  # too late: not said
        return found


def test_a_ping_interrupts_a_search_and_the_answers_stay_in_order() -> None:
    analyst = _Endless()
    session = Session(analyst=analyst)
    session.send("go")
    first = session.until("search")
    assert first[-1] == f"search {name(Board().legal_moves()[0])} 1.50 0 1"
    session.send("move F5", "ping 7")  # the move waits for the search; the ping stops it
    lines = session.until("pong 7")
    assert lines[0] == "status depth 1: D3 1.50" and lines[1].startswith("=== D3 1.50 ")
    assert lines[2:] == ["status waiting", "pong 7"]
    assert analyst.stopped.wait(WAIT)
    session.send("ping 8")
    assert session.until("pong 8") == ["pong 8"]  # nothing from the stopped search, and the move was played
    session.send("hint 64")
    assert session.until("search")[-1].startswith("search ")
    session.send("ping 9")
    assert session.until("pong 9")[-2:] == ["status waiting", "pong 9"]
    session.close()


def test_the_end_of_the_input_ends_the_engine_even_while_it_thinks() -> None:
    analyst = _Endless()
    engine = NBoardEngine(analyst, "othello-ga:test", lambda line: None)
    done = threading.Event()

    def serve() -> None:
        engine.serve(iter(["nboard 2", "go"]))
        done.set()

    threading.Thread(target=serve, daemon=True).start()
    assert done.wait(WAIT) and analyst.stopped.wait(WAIT)


# ---------------------------------------------------------------- the command, as a GUI starts it


@pytest.mark.shows("nboard --depth")
def test_depth_is_the_midgame_depth_until_the_gui_sets_one() -> None:
    deepest = {}
    for depth in (2, 3):
        session = Session(["lr06", "--depth", str(depth)])
        session.send("nboard 2")
        assert session.until("set myname") == [f"set myname othello-ga:lr06:{depth}"]
        session.send("go")
        deepest[depth] = [d for _, _, d in searches(session.until("==="))]
        session.send("set depth 4", "go")
        deepest[(depth, 4)] = [d for _, _, d in searches(session.until("==="))]
        assert session.close() == 0
    assert deepest[2] == ["1", "2"] and deepest[3] == ["1", "2", "3"]
    assert deepest[(2, 4)] == deepest[(3, 4)] == ["1", "2", "3", "4"]


@pytest.mark.shows("nboard --end")
def test_end_fixes_where_the_exact_endgame_starts() -> None:
    game = reference.random_game(31)
    position = next(p for p in game if 64 - reference.count(p.black | p.white) == 10 and reference.legal_moves(p))
    at = game.index(position)
    exact = reference.exact_move_values(position)
    answers = {}
    for args, depth in ((["--end", "10"], 1), (["--end", "9"], 12), ([], 5), ([], 4)):
        session = Session(["alphabeta:2@lr06", *args])
        session.send(f"set depth {depth}", f"set game {record_of(game[:at + 1])}", "hint 64")
        answers[(tuple(args), depth)] = last_round(session.until("status waiting"))
        assert session.close() == 0
    for key in ((("--end", "10"), 1), ((), 5)):  # fixed at 10; twice the depth 5
        assert {square: value for square, value, _ in answers[key]} == {s: float(v) for s, v in exact.items()}
        assert {depth for _, _, depth in answers[key]} == {"100%"}
    assert {depth for _, _, depth in answers[(("--end", "9"), 12)]} == {"12"}
    assert {depth for _, _, depth in answers[((), 4)]} == {"4"}  # twice 4 is 8, below the 10 empty squares


def test_a_spec_brings_its_depth_and_end_and_bad_evaluations_are_refused(tmp_path: Path) -> None:
    session = Session(["alphabeta:3@lr06,end=14"])
    session.send("nboard 2")
    assert session.until("set myname") == ["set myname othello-ga:lr06:3"]
    session.send("go")
    assert session.until("status thinking") == ["status thinking: depth 3, exact from 14 empty squares"]
    assert session.close() == 0
    for evaluation, message in (("random", "random has no evaluation"), ("lr06,eps=0.1", "leave eps out"),
                                (str(tmp_path / "missing.csv"), "does not exist")):
        result = subprocess.run([sys.executable, "-m", "ga.cli", "nboard", evaluation], input="", text=True,
                                capture_output=True, cwd=ROOT, timeout=WAIT,
                                env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                    filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.startswith("othello-ga: error: ") and message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_a_ping_stops_a_deep_search_of_the_command_and_is_answered_after_it() -> None:
    """The real command and search: a ping sent with a deep go is answered after whatever the go had to say, and
    nothing of the stopped search comes after the pong."""
    session = Session(["lr06", "--depth", "12", "--end", "0"])
    session.send(f"set game {record_of(reference.random_game(41)[:20])}", "go", "ping 1")
    lines = session.until("pong 1")
    assert lines[0] == "status thinking: depth 12, no exact endgame"
    assert lines[-2:] == ["status waiting", "pong 1"]
    assert sum(line.startswith("===") for line in lines) <= 1
    session.send("ping 2")
    assert session.until("pong 2") == ["pong 2"]
    assert session.close() == 0


def test_a_whole_game_between_two_engines_through_a_referee() -> None:
    """Two engine processes, each with its own evaluation, play a game; the referee checks every move on the
    reference board and tells both engines every move, as a GUI does."""
    engines = [Session(["engine", "--depth", "2"]), Session(["lr06", "--depth", "3"])]
    for engine in engines:
        engine.send("nboard 2")
        engine.until("set myname")
        engine.send(f"set game {record_of([reference.start_position()])}")
        assert engine.sync() == []
    position = reference.start_position()
    moves = []
    while not reference.is_game_over(position):
        mover = engines[position.turn]
        mover.send("go")
        answer = mover.until("===")[-1].split()
        square = square_of(answer[1])
        if reference.must_pass(position):
            assert square == PASS
        else:
            assert square in reference.legal_moves(position), (answer, reference.to_text(position))
        float(answer[2])  # an evaluation, in discs
        position = reference.play(position, square)
        moves.append(square)
        for engine in engines:
            engine.send(f"move {answer[1]}/{answer[2]}/{answer[3]}")
            assert engine.sync() in ([], ["status waiting"])
    for engine in engines:
        engine.send("go")
        said = engine.sync()
        assert len(said) == 1 and said[0].startswith("status the game is over")
        assert engine.close() == 0
    record = GameRecord.from_moves(moves, black="engine", white="lr06")
    assert record.final_board().to_text() == reference.to_text(position)
    assert read_records(record.to_text())[0].tag("RE") == f"{reference.final_score(position) * (1 if position.turn == 0 else -1):+.2f}"

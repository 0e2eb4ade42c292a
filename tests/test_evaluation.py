"""Tests for ga.analysis.evaluation: seeds, colours, workers, protocols and agreement with the literature."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import ga.analysis.evaluation
from engine import TABLES, build_player, play_match
from ga.config import config_from_dict, config_to_toml
from ga.analysis.evaluation import (
    EU_LABEL,
    LEAGUE_OPPONENT,
    evaluate_player,
    protocol_opponents,
    training_overlap,
)
from ga.games.seeds import game_seeds, random_tables
from ga.analysis.stats import MatchSummary
from ga.weights import format_weights

# Scores measured by an independent implementation (40,000 games each). League:
# the table as wpc:1 against wpc:1@heuristic, both with eps 0.1, both colours.
LEAGUE_REFERENCE = {
    "heuristic": 0.499,
    "lr06": 0.546,
    "sjk11": 0.481,
    "classic": 0.383,
    "disc": 0.195,
}
LEAGUE_RANDOM_MOVER = 0.192
# The table as wpc:1 (eps 0) against a uniform random mover, both colours.
VS_RANDOM_REFERENCE = {"lr06": 0.895, "sjk11": 0.907, "heuristic": 0.796}
REFERENCE_GAMES = 40_000


def within_reference(summary: MatchSummary, expected: float, z: float) -> bool:
    """Returns whether our score and the reference differ by less than ``z`` combined standard errors."""
    ours = summary.score
    standard_error = math.sqrt(
        ours * (1 - ours) / summary.games + expected * (1 - expected) / REFERENCE_GAMES
    )
    return abs(ours - expected) < z * standard_error


# ---------------------------------------------------------------- seeds


def test_game_seeds_extend_without_changing_the_start() -> None:
    assert np.array_equal(game_seeds(3, 2, 10), game_seeds(3, 2, 100)[:10])
    assert game_seeds(3, 2, 10).dtype == np.uint64


def test_game_seeds_differ_across_games_opponents_and_seeds() -> None:
    seeds = np.concatenate(
        [game_seeds(seed, opponent, 500) for seed in (0, 1) for opponent in (0, 1, 2)]
    )
    assert len(np.unique(seeds)) == len(seeds)


@pytest.mark.parametrize("seed, opponent", [(-1, 0), (2**64, 0), (0, -1)])
def test_game_seeds_reject_out_of_range(seed: int, opponent: int) -> None:
    with pytest.raises(ValueError):
        game_seeds(seed, opponent, 3)


def test_random_tables_are_uniform_and_seeded() -> None:
    tables = random_tables(5, 200)
    assert tables.shape == (200, 64)
    assert tables.min() >= -1 and tables.max() < 1
    assert abs(tables.mean()) < 0.02
    assert np.array_equal(tables, random_tables(5, 200))
    assert not np.array_equal(tables, random_tables(6, 200))


# ---------------------------------------------------------------- plain protocol


def test_self_play_scores_one_half() -> None:
    (summary,) = evaluate_player("wpc:1@heuristic", ["wpc:1@heuristic"], 4000, eps=0.1, seed=11)
    low, high = summary.interval
    assert low <= 0.5 <= high
    assert summary.games == 4000


def test_results_are_deterministic_and_independent_of_workers() -> None:
    opponents = ["random", "nhand:1", "wpc:1@classic,eps=0.05"]
    first = evaluate_player("wpc:1@sjk11", opponents, 301, seed=42, workers=1)
    assert evaluate_player("wpc:1@sjk11", opponents, 301, seed=42, workers=1) == first
    assert evaluate_player("wpc:1@sjk11", opponents, 301, seed=42, workers=2) == first
    assert evaluate_player("wpc:1@sjk11", opponents, 301, seed=42, workers=5) == first
    assert evaluate_player("wpc:1@sjk11", opponents, 301, seed=43, workers=2) != first


def test_games_alternate_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    plans = []
    play_here = ga.analysis.evaluation.play_here

    def recording(batch, workers, *pieces):  # type: ignore[no-untyped-def]
        plans.append(batch.plan)
        return play_here(batch, workers, *pieces)

    monkeypatch.setattr(ga.analysis.evaluation, "play_here", recording)
    evaluate_player("nhand:1", ["random", "nmost:1"], 1001, seed=3, workers=3)
    colours = np.concatenate([plan.colours for plan in plans])
    seeds = np.concatenate([plan.seeds for plan in plans])
    assert len(colours) == 2 * 1001
    # Per opponent: game i has colour i % 2, so black and white differ by at most one game.
    per_opponent = colours.reshape(2, 1001)
    assert (per_opponent == np.arange(1001) % 2).all()
    assert set(seeds[:1001]) == set(game_seeds(3, 0, 1001))
    assert set(seeds[1001:]) == set(game_seeds(3, 1, 1001))


def test_summary_matches_the_games_played_by_hand() -> None:
    games = 200
    (summary,) = evaluate_player("wpc:1@lr06", ["nhand:1"], games, seed=9)
    disc_diffs = play_match(
        build_player("wpc:1@lr06"), build_player("nhand:1"), game_seeds(9, 0, games), np.arange(games) % 2
    )
    assert summary == MatchSummary.from_disc_diffs("nhand:1", disc_diffs.tolist())
    assert summary.games == summary.wins + summary.draws + summary.losses == games
    low, high = summary.interval
    assert low <= summary.score <= high
    elo_low, elo_high = summary.elo_interval
    assert elo_low <= summary.elo <= elo_high


def test_a_weights_array_plays_as_wpc_1() -> None:
    by_array = evaluate_player(np.array(TABLES["lr06"]), ["random", "nhand:1"], 100, seed=1)
    by_spec = evaluate_player("wpc:1@lr06", ["random", "nhand:1"], 100, seed=1)
    assert by_array == by_spec


def test_a_weights_file_in_a_spec(tmp_path: Path) -> None:
    path = tmp_path / "lr06.csv"
    path.write_text(format_weights(TABLES["lr06"], "csv"))
    by_file = evaluate_player(f"wpc:1@{path}", [f"wpc:1@{path}"], 50, seed=1)
    by_name = evaluate_player("wpc:1@lr06", ["wpc:1@lr06"], 50, seed=1)
    assert [summary.wins for summary in by_file] == [summary.wins for summary in by_name]


def test_eps_overrides_both_players_and_shows_in_the_label() -> None:
    (summary,) = evaluate_player("wpc:1@lr06", ["nhand:1"], 50, eps=0.25)
    assert summary.opponent == "nhand:1,eps=0.25"
    (summary,) = evaluate_player("wpc:1@lr06", ["random"], 50, eps=0.25)
    assert summary.opponent == "random"
    (summary,) = evaluate_player("wpc:1@lr06", ["nhand:1"], 50)
    assert summary.opponent == "nhand:1"


@pytest.mark.parametrize(
    "player, opponents, games, options",
    [
        ("wpc:1@lr06", ["random"], 0, {}),
        ("wpc:1@lr06", ["random"], 10, {"workers": 0}),
        ("wpc:1@lr06", ["random"], 10, {"seed": -1}),
        ("wpc:1@lr06", ["random"], 10, {"eps": 1.5}),
        ("wpc:1@lr06", ["random"], 10, {"protocol": "swiss"}),
        ("wpc:1@lr06", [], 10, {}),
        ("wpc:1@lr06", ["chess:2"], 10, {}),
        ("wpc:1@lr06", ["human"], 10, {}),
        ("wpc:1", ["random"], 10, {}),
        ("human", ["random"], 10, {}),
        (np.ones(63), ["random"], 10, {}),
        (np.full(64, np.nan), ["random"], 10, {}),
    ],
)
def test_bad_arguments_raise_value_error(
    player: object, opponents: list[str], games: int, options: dict[str, object]
) -> None:
    with pytest.raises(ValueError):
        evaluate_player(player, opponents, games, **options)  # type: ignore[arg-type]


# ---------------------------------------------------------------- protocols


def test_protocol_opponents() -> None:
    assert protocol_opponents("league", []) == [LEAGUE_OPPONENT]
    assert protocol_opponents("league", ["random"]) == ["random"]
    assert protocol_opponents("plain", ["random"]) == ["random"]
    assert protocol_opponents("eu", []) == []
    with pytest.raises(ValueError, match="eu protocol"):
        protocol_opponents("eu", ["random"])


def test_league_protocol_defaults_to_heuristic_with_exploration() -> None:
    (summary,) = evaluate_player(TABLES["lr06"], [], 100, protocol="league")
    assert summary.opponent == "wpc:1@heuristic,eps=0.1"
    assert evaluate_player(TABLES["lr06"], [], 100, protocol="league") == evaluate_player(
        "wpc:1@lr06,eps=0.1", ["wpc:1@heuristic,eps=0.1"], 100
    )


def test_league_protocol_lr06_beats_classic() -> None:
    (summary,) = evaluate_player("wpc:1@lr06", ["wpc:1@classic"], 3000, protocol="league", seed=4)
    assert summary.interval[0] > 0.5


@pytest.mark.parametrize(
    "player, opponents, eps",
    [("alphabeta:3@lr06", [], None), ("wpc:1@lr06", ["nhand:2"], None), ("wpc:1@lr06", [], 0.2)],
)
def test_league_protocol_rejects_deeper_players_and_other_eps(
    player: str, opponents: list[str], eps: float | None
) -> None:
    with pytest.raises(ValueError, match="league protocol"):
        evaluate_player(player, opponents, 10, protocol="league", eps=eps)


def test_eu_protocol_plays_each_random_table_twice() -> None:
    (summary,) = evaluate_player(TABLES["lr06"], [], 60, protocol="eu", seed=2)
    assert summary.opponent == EU_LABEL
    assert summary.games == 120
    assert summary.score > 0.6  # a good table beats most random tables
    assert evaluate_player(TABLES["lr06"], [], 60, protocol="eu", seed=2, workers=3) == [summary]
    assert evaluate_player(TABLES["lr06"], [], 60, protocol="eu", seed=3) != [summary]


def test_eu_protocol_of_a_random_table_is_about_one_half() -> None:
    (summary,) = evaluate_player(random_tables(99, 1)[0], [], 500, protocol="eu", seed=1)
    assert 0.2 < summary.score < 0.8


def test_eu_protocol_rejects_opponents_and_eps() -> None:
    with pytest.raises(ValueError, match="eu protocol"):
        evaluate_player("wpc:1@lr06", ["random"], 10, protocol="eu")
    with pytest.raises(ValueError, match="eu protocol"):
        evaluate_player("wpc:1@lr06", [], 10, protocol="eu", eps=0.1)


# ---------------------------------------------------------------- training overlap


def test_training_overlap_from_a_config_and_a_run_dir(tmp_path: Path) -> None:
    weights = tmp_path / "w.csv"
    weights.write_text(format_weights(TABLES["classic"], "csv"))
    config = config_from_dict(
        {"fitness": {"opponents": ["random", "nhand:2", "wpc:1@heuristic", f"wpc:1@{weights}"]}}
    )
    opponents = [
        "random", "nhand:1", "nhand:2,eps=0.1", "nhand_custom:1@heuristic", "wpc:1@lr06",
        f"wpc:1@{weights}", "alphabeta:2@heuristic",
    ]
    expected = ["random", "nhand:2,eps=0.1", "nhand_custom:1@heuristic", f"wpc:1@{weights}"]
    assert training_overlap(config, opponents) == expected
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.toml").write_text(config_to_toml(config))
    assert training_overlap(tmp_path / "run", opponents) == expected


# ---------------------------------------------------------------- agreement with the literature


@pytest.mark.parametrize("table, expected", LEAGUE_REFERENCE.items())
def test_league_scores_agree_roughly(table: str, expected: float) -> None:
    (summary,) = evaluate_player(f"wpc:1@{table}", [], 4000, protocol="league", seed=1, workers=2)
    assert abs(summary.score - expected) < 0.04


@pytest.mark.parametrize("table, expected", VS_RANDOM_REFERENCE.items())
def test_scores_against_a_random_mover_agree_roughly(table: str, expected: float) -> None:
    (summary,) = evaluate_player(f"wpc:1@{table}", ["random"], 4000, seed=1, workers=2)
    assert abs(summary.score - expected) < 0.03


@pytest.mark.slow
@pytest.mark.parametrize(
    "player, expected",
    [
        *[(f"wpc:1@{table}", score) for table, score in LEAGUE_REFERENCE.items()],
        ("random", LEAGUE_RANDOM_MOVER),
    ],
)
def test_league_scores_agree_within_the_intervals(player: str, expected: float) -> None:
    (summary,) = evaluate_player(player, [], REFERENCE_GAMES, protocol="league", seed=1, workers=2)
    assert within_reference(summary, expected, z=3.0), summary


@pytest.mark.slow
@pytest.mark.parametrize("table, expected", VS_RANDOM_REFERENCE.items())
def test_scores_against_a_random_mover_agree_within_the_intervals(table: str, expected: float) -> None:
    (summary,) = evaluate_player(f"wpc:1@{table}", ["random"], REFERENCE_GAMES, seed=1, workers=2)
    assert within_reference(summary, expected, z=3.0), summary


# --- the depth ladder ---------------------------------------------------------------------------------


def test_a_ladder_cell_is_the_games_played_by_hand() -> None:
    from engine import Player, TABLES as BUILT_IN

    table = np.array(BUILT_IN["reference"])
    summaries = evaluate_player(table, ["lr06", "sjk11"], 30, protocol="ladder", depths=[1, 3], seed=4, workers=2)
    assert [s.opponent for s in summaries] == ["alphabeta:1@lr06,eps=0.1", "alphabeta:3@lr06,eps=0.1",
                                                "alphabeta:1@sjk11,eps=0.1", "alphabeta:3@sjk11,eps=0.1"]
    for k, (name, depth) in enumerate([("lr06", 1), ("lr06", 3), ("sjk11", 1), ("sjk11", 3)]):
        me = Player("alphabeta", depth, table, 0.1)
        rival = Player("alphabeta", depth, np.array(BUILT_IN[name]), 0.1)
        diffs = play_match(me, rival, game_seeds(4, k, 30), np.arange(30) % 2)
        assert summaries[k] == MatchSummary.from_disc_diffs(summaries[k].opponent, diffs.tolist())


def test_the_ladder_defaults_to_the_published_tables_at_depths_1_to_4() -> None:
    summaries = evaluate_player("wpc:1@classic", [], 2, protocol="ladder")
    assert [s.opponent for s in summaries] == [f"alphabeta:{d}@{t},eps=0.1" for t in
                                                ("heuristic", "lr06", "sjk11", "classic") for d in (1, 2, 3, 4)]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"player_spec": "nhand:2", "opponents": [], "protocol": "ladder"}, "plays a weights table"),
    ({"player_spec": "lr06", "opponents": ["random"], "protocol": "ladder"}, "tables against tables"),
    ({"player_spec": "lr06", "opponents": [], "protocol": "ladder", "depths": [13]}, "between 1 and 12"),
    ({"player_spec": "lr06", "opponents": [], "protocol": "league", "depths": [2]}, "ladder protocol"),
    ({"player_spec": "lr06", "opponents": [], "protocol": "ladder", "eps": 0.2}, "eps = 0.1"),
])
def test_bad_ladder_requests_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_player(games=2, **kwargs)


def test_a_bare_table_name_is_its_one_ply_player() -> None:
    (named,) = evaluate_player("lr06", ["heuristic"], 40, seed=2)
    (spelled,) = evaluate_player("wpc:1@lr06", ["wpc:1@heuristic"], 40, seed=2)
    assert (named.wins, named.draws, named.losses) == (spelled.wins, spelled.draws, spelled.losses)


class Heard(ga.analysis.evaluation.EvaluationProgress):
    """Records what an evaluation tells as it plays."""

    in_pieces = True

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []
        self.games = 0

    def start(self, rows, games):  # type: ignore[no-untyped-def]
        self.events.append(("start", (list(rows), games)))

    def played(self, games):  # type: ignore[no-untyped-def]
        self.games += games
        self.events.append(("played", self.games))

    def row(self, summary):  # type: ignore[no-untyped-def]
        self.events.append(("row", (summary.opponent, self.games)))


@pytest.mark.parametrize("protocol", ["plain", "ladder", "eu"])
def test_an_evaluation_tells_its_games_as_they_are_played_and_each_row_when_complete(protocol: str) -> None:
    # A 16,000-game ladder sat silent until its last game.
    opponents = {"plain": ["random", "nhand:1"], "ladder": ["wpc:1@heuristic"], "eu": []}[protocol]
    games = {"plain": 1000, "ladder": 300, "eu": 500}[protocol]
    heard, records = Heard(), []
    summaries = evaluate_player("wpc:1@lr06", opponents, games, seed=4, workers=2, protocol=protocol,
                                depths=(1, 2) if protocol == "ladder" else (), progress=heard, records=records)
    assert summaries == evaluate_player("wpc:1@lr06", opponents, games, seed=4, workers=1, protocol=protocol,
                                        depths=(1, 2) if protocol == "ladder" else ())  # in pieces or not
    kind, (rows, total) = heard.events[0]
    per_row = games * (2 if protocol == "eu" else 1)
    assert kind == "start" and rows == [s.opponent for s in summaries] and total == 2 * per_row * len(rows)
    assert heard.games == total and len(records) == per_row * len(rows)
    told = [value for kind, value in heard.events if kind == "row"]
    # Each row the moment its games are played and recorded (twice its games: played, then replayed), not later.
    assert told == [(row, 2 * per_row * (k + 1)) for k, row in enumerate(rows)]
    steps = [value for kind, value in heard.events if kind == "played"]
    assert len(steps) > 2 * len(rows) or per_row <= ga.analysis.evaluation._LEAST_PIECE  # in pieces


def test_evaluate_prints_each_row_before_the_next_opponent_s_games(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import ga.games.executor
    from ga.cli import main

    printed_before: list[str] = []
    play_batch = ga.games.executor.play_batch

    def watching(batch, *args, **kwargs):  # type: ignore[no-untyped-def]
        if int(batch.plan.opponent[0]) == 1 and not printed_before:  # the second opponent's first games
            printed_before.append(capsys.readouterr().out)
        return play_batch(batch, *args, **kwargs)

    monkeypatch.setattr(ga.games.executor, "play_batch", watching)
    assert main(["evaluate", "lr06", "--vs", "random", "--vs", "nhand:1", "--games", "600", "--workers", "1"]) == 0
    (before,) = printed_before
    assert before.splitlines()[-1].startswith("random ") and "nhand:1" not in before
    assert capsys.readouterr().out.splitlines()[-1].startswith("nhand:1 ")


def test_evaluate_draws_a_bar_of_its_games_on_a_terminal_and_none_elsewhere() -> None:
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "ga.cli", "evaluate", "lr06", "--vs", "random", "--games", "3000"]
    environment = {**os.environ, "PYTHONPATH": str(root)}
    piped = subprocess.run(command, capture_output=True, text=True, cwd=root, env=environment, timeout=60)
    assert piped.returncode == 0 and piped.stderr == ""  # a log or a pipe gets the table alone
    main, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal of 100 columns
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=terminal, text=True, cwd=root, env=environment)
    os.close(terminal)
    screen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        screen += chunk
    out, _ = process.communicate(timeout=60)
    os.close(main)
    assert process.returncode == 0
    assert out == piped.stdout  # the table, whole, on standard output alone
    assert b"games, " in screen and b"/3,000 games" in screen and b"%|" in screen


def test_a_bare_table_opponent_plays_as_the_evaluated_player_and_a_mismatch_is_named(
        capsys: pytest.CaptureFixture[str]) -> None:
    # `evaluate RUN_DIR --vs paip` played the run's alphabeta:1,end=8 player against a 1-ply paip without the
    # endgame, and said nothing.
    from ga.analysis.evaluation import like_for_like
    from ga.cli import main

    run = Path(__file__).resolve().parent.parent / "results" / "reference" / "engine"
    evaluated = f"alphabeta:1@{run / 'best_evaluation.json'},end=8"
    assert like_for_like(evaluated, ["paip", "heuristic", "random", "alphabeta:1@paip,end=8"]) == (
        ["alphabeta:1@paip,end=8", "alphabeta:1@heuristic,end=8", "random", "alphabeta:1@paip,end=8"], [])
    played, (warning,) = like_for_like(evaluated, ["wpc:1@paip"])
    assert played == ["wpc:1@paip"] and warning == (
        "opponent 'wpc:1@paip' looks 1 ply ahead and solves no endgame, the evaluated player looks 1 ply ahead and "
        "solves the last 8 empty squares: the score is not like for like (--vs alphabeta:1@paip,end=8 plays it "
        "alike, as a bare --vs paip does)")
    assert like_for_like(np.zeros(64), ["paip"]) == (["paip"], [])  # a table plays 1 ply, as a bare name does
    assert main(["evaluate", str(run), "--vs", "paip", "--vs", "wpc:1@paip", "--games", "40", "--eps", "0.1",
                 "--seed", "2", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    rows = out.splitlines()[3:]
    expected = evaluate_player(evaluated, ["alphabeta:1@paip,end=8", "wpc:1@paip"], 40, eps=0.1, seed=2)
    for line, summary in zip(rows, expected):
        assert line.split()[:6] == [summary.opponent, "40", str(summary.wins), str(summary.draws),
                                    str(summary.losses), f"{summary.score:.3f}"]
    assert rows[0].startswith("alphabeta:1@paip,eps=0.1,end=8 ")
    assert err == f"othello-ga: warning: {warning}\n"


def test_an_evaluation_nobody_listens_to_plays_in_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    # A study's scoring hears nothing: its games are played as one batch, as before progress was told.
    import ga.games.executor

    calls = []
    play_batch = ga.games.executor.play_batch

    def counting(batch, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(batch.plan))
        return play_batch(batch, *args, **kwargs)

    monkeypatch.setattr(ga.games.executor, "play_batch", counting)
    quiet = evaluate_player("wpc:1@lr06", ["random", "nhand:1"], 1000, seed=4)
    assert calls == [2000]
    heard = Heard()
    assert evaluate_player("wpc:1@lr06", ["random", "nhand:1"], 1000, seed=4, progress=heard) == quiet
    assert len(calls) > 2 and sum(calls) == 4000

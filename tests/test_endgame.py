"""The exact endgame: values equal to the plain pure-Python solver, best moves, stable discs, and players with end=N.

The oracle is ``reference.exact_value``: fail-hard alpha-beta to the end of
the game in square order, with the rules walked square by square. An engine
value ``v`` is checked by asking the reference for the value inside the
window (v - 1, v + 1): a fail-hard search returns ``v`` there exactly when the
true value is ``v``, and costs far less than a full window.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import TABLES, Board, Player, parse_spec, record_game
from engine._endgame import Endgame, final, last_flip_count
from engine._players import FEATURE_CODES
from engine.endgame import EndgameSolver
from engine.evaluation import EVALUATIONS, FEATURES
from engine._players import play_plan, search_match
from engine._stability import stable

import reference as ref

FFO = Path(__file__).resolve().parents[2] / "shared" / "ffo" / "ffo-1-79.csv"


def empties_of(position: ref.Position) -> int:
    return 64 - ref.count(position.black | position.white)


def game_positions(seeds: range, empties: range) -> list[ref.Position]:
    """Returns the positions of random games with a number of empty squares in ``empties``, passes included."""
    return [p for seed in seeds for p in ref.random_game(seed) if empties_of(p) in empties]


def scattered_positions(count: int, seed: int, most_empties: int) -> list[ref.Position]:
    """Returns random unreachable positions with 1..most_empties empty squares: passes and wipe-outs abound."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        empty = set(rng.sample(range(64), rng.randint(1, most_empties)))
        share = rng.random()
        black = white = 0
        for square in range(64):
            if square not in empty:
                if rng.random() < share:
                    black |= 1 << square
                else:
                    white |= 1 << square
        positions.append(ref.Position(black, white, rng.randint(0, 1)))
    return positions


def check_value(solver: Endgame, position: ref.Position) -> int:
    value, _ = solver.value(position.player, position.opponent)
    assert ref.exact_value(position, value - 1, value + 1) == value, ref.to_text(position)
    return value


# --- the rules the search stands on ---------------------------------------------------------------

def test_a_finished_games_empty_squares_go_to_its_winner() -> None:
    rng = random.Random(1)
    for _ in range(2000):
        player, opponent = ref.random_masks(rng, rng.random())
        position = ref.Position(player, opponent, 0)
        assert final(player, opponent) == ref.final_score(position)
    assert final(0b111, 0b1) == 64 - 2  # 3 - 1 with 60 empty squares for the winner
    assert final(0b1, 0b10) == 0
    assert final(0, 0b1) == -64


@given(st.integers(0, 63), st.integers(0, 2**64 - 1))
def test_the_last_squares_flips_come_from_four_lines(square: int, player: int) -> None:
    player &= ~(1 << square)
    opponent = (2**64 - 1) ^ player ^ (1 << square)
    assert last_flip_count(square, player) == ref.count(ref.flips(square, player, opponent))


# --- exact values ---------------------------------------------------------------------------------

@pytest.mark.parametrize("games", [pytest.param(120, id="120"), pytest.param(1000, id="1000", marks=pytest.mark.slow)])
def test_values_equal_the_plain_solver_on_game_positions(games: int) -> None:
    solver = Endgame(16)
    positions = game_positions(range(games), range(0, 9))
    assert len(positions) > 8 * games
    values = [check_value(solver, p) for p in positions]
    assert len(set(values)) > 30  # wins, losses and draws by many margins


@pytest.mark.parametrize("count", [pytest.param(600, id="600"), pytest.param(5000, id="5000", marks=pytest.mark.slow)])
def test_values_equal_the_plain_solver_with_passes_and_wipe_outs(count: int) -> None:
    solver = Endgame(16)
    positions = scattered_positions(count, 2, 8)
    passes = sum(bool(ref.must_pass(p)) for p in positions)
    over = sum(ref.is_game_over(p) for p in positions)
    values = [check_value(solver, p) for p in positions]
    assert passes > count // 30 and over > count // 30
    assert 64 in values and -64 in values


@pytest.mark.parametrize(("empties", "games"), [(10, 20), pytest.param(11, 3, marks=pytest.mark.slow),
                                                pytest.param(12, 2, marks=pytest.mark.slow)])
def test_values_equal_the_plain_solver_deeper(empties: int, games: int) -> None:
    solver = Endgame(16)
    positions = [p for p in game_positions(range(1000, 1000 + games), range(empties, empties + 1))]
    assert positions
    for position in positions:
        check_value(solver, position)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize(("empties", "games"), [(10, 700), (11, 300), (12, 120)])
def test_many_more_values_equal_the_plain_solver(empties: int, games: int) -> None:
    # The plain solver takes about 0.2, 0.7 and 2.4 s a game position at 10, 11 and 12 empties: about 10 min.
    solver = Endgame(18)
    for position in game_positions(range(5000, 5000 + games), range(empties, empties + 1)):
        check_value(solver, position)
    for position in scattered_positions(300, empties, empties):
        check_value(solver, position)


def test_without_a_table_the_values_are_the_same() -> None:
    with_table, without = Endgame(12), Endgame(0)
    for position in game_positions(range(60), range(8, 13)):
        assert with_table.value(position.player, position.opponent)[0] == \
            without.value(position.player, position.opponent)[0]


@given(st.integers(0, 10_000), st.integers(-66, 66), st.integers(1, 40))
def test_a_window_gives_the_exact_value_inside_it_and_a_bound_outside(seed: int, alpha: int, width: int) -> None:
    position = scattered_positions(1, seed, 10)[0]
    solver = Endgame(10)
    truth = solver.value(position.player, position.opponent)[0]
    beta = alpha + width
    value, _ = solver.value(position.player, position.opponent, alpha, beta)
    if alpha < truth < beta:
        assert value == truth
    elif truth <= alpha:
        assert truth <= value <= alpha
    else:
        assert beta <= value <= truth


# --- best moves -----------------------------------------------------------------------------------

def test_best_moves_are_every_move_of_the_best_value() -> None:
    solver = Endgame(16)
    ties = 0
    for position in game_positions(range(60), range(1, 9)):
        values = ref.exact_move_values(position)
        value, best, _ = solver.solve(position.player, position.opponent)
        if not values:
            assert best == 0
            assert ref.exact_value(position, value - 1, value + 1) == value
            continue
        top = max(values.values())
        assert value == top
        assert {s for s in range(64) if best >> s & 1} == {m for m, v in values.items() if v == top}
        ties += bin(best).count("1") > 1
    assert ties > 20


def test_move_values_are_each_moves_exact_value() -> None:
    solver = Endgame(16)
    for position in game_positions(range(40), range(6, 9)):
        values, _ = solver.move_values(position.player, position.opponent)
        assert values == ref.exact_move_values(position)


def test_overlapping_squares_are_refused() -> None:
    with pytest.raises(ValueError, match="share squares"):
        Endgame(4).solve(0b11, 0b10)


# --- stable discs ---------------------------------------------------------------------------------

def test_stable_discs_never_flip_in_random_playouts() -> None:
    rng = random.Random(7)
    seen = 0
    for seed in range(100):
        for position in ref.random_game(seed)[20::6]:
            kept = stable(position.player, position.opponent)
            seen += bin(kept).count("1")
            owner = position.turn
            for _ in range(6):
                current = position
                while not ref.is_game_over(current):
                    moves = ref.legal_moves(current)
                    current = ref.play(current, rng.choice(moves)) if moves else ref.pass_turn(current)
                    discs = current.black if owner == ref.BLACK else current.white
                    assert kept & discs == kept, ref.to_text(position)
    assert seen > 700


def test_stable_discs_by_hand() -> None:
    full = 2**64 - 1
    assert stable(0, 0) == 0
    assert stable(1, 0) == 1  # a corner
    assert stable(full, 0) == full  # a full board
    checker = 0x55AA55AA55AA55AA
    assert stable(checker, full ^ checker) == checker  # a full board: every line full
    # a1-c1 black, d1 white, the rest of rank 1 empty: a1..c1 are stable, d1 is not (black can take e1).
    assert stable(0b0111, 0b1000) == 0b0111
    assert stable(0b1000, 0b0111) == 0
    # b1 alone is not stable: a1 and c1 are empty.
    assert stable(0b10, 0) == 0


# --- players that solve the endgame ---------------------------------------------------------------

def endgame_positions() -> list[ref.Position]:
    return [p for p in game_positions(range(200, 260), range(1, 10)) if ref.legal_moves(p)]


def test_a_player_with_end_plays_a_best_move() -> None:
    for kind, depth, table in (("alphabeta", 2, TABLES["lr06"]), ("nhand_custom", 1, TABLES["heuristic"]),
                               ("nhand", 1, None), ("nleast", 1, None)):
        player = Player(kind, depth, table, end=10)
        for index, position in enumerate(endgame_positions()[:50]):
            board = Board.from_text(ref.to_text(position))
            values = ref.exact_move_values(position)
            assert values[player.choose(board, index)] == max(values.values())


def test_ties_are_drawn_among_the_best_moves_only() -> None:
    player = Player("alphabeta", 1, TABLES["lr06"], end=12)
    drawn = 0
    for position in endgame_positions():
        values = ref.exact_move_values(position)
        best = {m for m, v in values.items() if v == max(values.values())}
        if len(best) < 2:
            continue
        board = Board.from_text(ref.to_text(position))
        chosen = {player.choose(board, seed) for seed in range(40)}
        assert chosen == best
        drawn += 1
        if drawn == 10:
            break
    assert drawn == 10


def test_end_zero_is_todays_player() -> None:
    rng = np.random.default_rng(3)
    for trial in range(40):
        table = rng.uniform(-1, 1, 64)
        seed = int(rng.integers(2**63))
        today = record_game(Player("alphabeta", 3, table, 0.1), Player("nhand_custom", 1, TABLES["lr06"], 0.1), seed)
        zero = record_game(Player("alphabeta", 3, table, 0.1, end=0), Player("nhand_custom", 1, TABLES["lr06"], 0.1),
                           seed)
        assert today == zero


def test_end_changes_the_endgame_and_only_the_endgame() -> None:
    differ = 0
    for seed in range(60):
        plain = record_game(Player("alphabeta", 2, TABLES["lr06"]), Player("random"), seed)
        solving = record_game(Player("alphabeta", 2, TABLES["lr06"], end=10), Player("random"), seed)
        # The same moves until ten empty squares are left, black to move there (plies counted with passes).
        board = Board()
        for ply, (a, b) in enumerate(zip(plain, solving)):
            if 64 - bin(board.black | board.white).count("1") <= 10:
                break
            assert a == b, (seed, ply)
            board.push(a)
        differ += plain != solving
    assert differ > 10


def test_the_same_seed_gives_the_same_game() -> None:
    first = Player("alphabeta", 3, TABLES["lr06"], 0.05, end=14)
    second = Player("nhand_custom", 1, TABLES["heuristic"], 0.1, end=8)
    games = [record_game(first, second, seed) for seed in range(20)]
    assert games == [record_game(first, second, seed) for seed in range(20)]
    assert len({tuple(game) for game in games}) == 20


def test_eps_draws_its_random_move_before_the_endgame() -> None:
    for seed in range(20):
        assert record_game(Player("alphabeta", 2, TABLES["lr06"], 1.0, end=20), Player("random"), seed) == \
            record_game(Player("alphabeta", 2, TABLES["lr06"], 1.0), Player("random"), seed)


def test_a_solving_player_wins_more_endgames() -> None:
    seeds = np.arange(400, dtype=np.uint64)
    plain, _ = search_match(Player("alphabeta", 2, TABLES["lr06"]), Player("alphabeta", 2, TABLES["lr06"], 0.05),
                            seeds)
    solving, nodes = search_match(Player("alphabeta", 2, TABLES["lr06"], end=12),
                                  Player("alphabeta", 2, TABLES["lr06"], 0.05), seeds)
    assert np.mean(solving) > np.mean(plain)
    assert nodes > 0


def test_a_plan_plays_the_players_endgame() -> None:
    seeds = np.arange(30, dtype=np.uint64)
    tables = np.array([TABLES["lr06"], TABLES["heuristic"]])
    rival = Player("nhand_custom", 1, TABLES["sjk11"], 0.1)
    result = play_plan("alphabeta", 2, 0.0, 40, tables, [rival], np.arange(30) % 2, np.zeros(30), np.full(30, -1),
                       seeds, np.arange(30) % 2, end=10)
    for game in range(30):
        me = Player("alphabeta", 2, tables[game % 2], end=10)
        expected = search_match(me, rival, seeds[game:game + 1], [game % 2])[0][0]
        assert result[game] == expected


def test_a_player_with_end_pickles_with_it() -> None:
    import pickle

    player = Player("alphabeta", 2, TABLES["lr06"], 0.1, end=12)
    copy = pickle.loads(pickle.dumps(player))
    assert (copy.end, repr(copy)) == (12, repr(player))
    assert record_game(copy, Player("random"), 5) == record_game(player, Player("random"), 5)


def test_specs_take_end() -> None:
    spec = parse_spec("alphabeta:4@lr06,end=12")
    assert spec.end == 12 and str(spec) == "alphabeta:4@lr06,end=12"
    assert parse_spec("wpc:1@lr06,eps=0.1,end=0").end == 0
    for bad, message in (("random,end=4", "takes no end"), ("alphabeta:2@lr06,end=61", "0..60"),
                         ("alphabeta:2@lr06,end=-1", "0..60"), ("alphabeta:2@lr06,end=4,end=5", "twice")):
        with pytest.raises(ValueError, match=message):
            parse_spec(bad)
    with pytest.raises(ValueError, match="takes no end"):
        Player("random", end=3)


# --- the FFO endgame test set ---------------------------------------------------------------------

def ffo_rows(first: int, last: int) -> list[dict[str, str]]:
    if not FFO.exists():
        pytest.skip(f"the FFO positions are not at {FFO}")
    with FFO.open() as handle:
        return [row for row in csv.DictReader(handle) if first <= int(row["number"]) <= last]


def check_ffo(row: dict[str, str], solver: EndgameSolver) -> None:
    solution = solver.solve(Board.from_text(f"{row['board']} {row['to_move']}"))
    assert solution.score == int(row["best_score"]), row["number"]
    assert set(solution.best_move_names.upper().split("|")) == set(row["best_moves"].split("|")), row["number"]


@pytest.mark.parametrize("number", range(1, 22))
def test_the_first_ffo_positions_are_solved_as_published(number: int) -> None:
    check_ffo(ffo_rows(number, number)[0], EndgameSolver(table_bits=20))


@pytest.mark.slow  # about a minute
@pytest.mark.parametrize("number", range(22, 45))
def test_ffo_positions_22_to_44_are_solved_as_published(number: int) -> None:
    check_ffo(ffo_rows(number, number)[0], EndgameSolver())


# --- the order far from the end -------------------------------------------------------------------

def ordered(table_bits: int = 16) -> Endgame:
    engine = EVALUATIONS["engine"]
    weights = engine.weights_of(0)
    solver = Endgame(table_bits)
    solver.order_by(engine.squares, [weights.get(name, 0.0) for name in FEATURES])
    return solver


def test_the_feature_weights_of_an_order_are_in_the_engines_feature_order() -> None:
    # Endgame.order_by takes them by position: the engine's Feature codes must be FEATURES' indices.
    assert FEATURE_CODES == {name: index for index, name in enumerate(FEATURES)}


def test_the_evaluation_order_changes_the_positions_searched_never_the_values_or_best_moves() -> None:
    plain, by_evaluation = Endgame(16), ordered()
    changed = 0
    positions = game_positions(range(7000, 7012), range(15, 18))
    assert len(positions) >= 30
    for position in positions:
        value, best, nodes = plain.solve(position.player, position.opponent)
        value_o, best_o, nodes_o = by_evaluation.solve(position.player, position.opponent)
        assert (value_o, best_o) == (value, best), ref.to_text(position)
        assert by_evaluation.value(position.player, position.opponent, value - 1, value + 1)[0] == value
        changed += nodes_o != nodes
    assert changed > len(positions) // 2  # the order took effect from 15 empty squares


def test_below_15_empty_squares_the_evaluation_order_searches_the_same_positions() -> None:
    plain, by_evaluation = Endgame(16), ordered()
    for position in game_positions(range(7100, 7105), range(12, 15)):
        assert by_evaluation.solve(position.player, position.opponent) == plain.solve(position.player, position.opponent)


def test_an_order_is_set_off_by_none_and_refuses_wrong_lengths() -> None:
    position = game_positions(range(7200, 7201), range(16, 17))[0]
    solver = ordered()
    solver.order_by(None, [])
    assert solver.solve(position.player, position.opponent) == Endgame(16).solve(position.player, position.opponent)
    with pytest.raises(ValueError, match="64 square weights and 6 feature weights, got 63 and 6"):
        solver.order_by([0.0] * 63, [0.0] * 6)
    with pytest.raises(ValueError, match="got 64 and 5"):
        solver.order_by([0.0] * 64, [0.0] * 5)
    with pytest.raises(ValueError, match="finite"):
        solver.order_by([0.0] * 63 + [float("nan")], [0.0] * 6)
    # Weights far beyond any evaluation's still order (the key is bounded), and the values stay exact.
    solver.order_by([1e300] * 64, [-1e300] * 6)
    assert solver.solve(position.player, position.opponent)[:2] == Endgame(16).solve(position.player,
                                                                                      position.opponent)[:2]


def test_the_solver_orders_by_the_engine_evaluation_unless_told_otherwise() -> None:
    board = Board.from_text(ref.to_text(game_positions(range(7300, 7301), range(17, 18))[0]))
    default, plain = EndgameSolver(table_bits=16).solve(board), EndgameSolver(16, order_by=None).solve(board)
    assert (default.score, default.best_moves) == (plain.score, plain.best_moves)
    assert default.nodes != plain.nodes


def test_a_configs_player_solves_its_endgame_and_its_games_show_it(tmp_path: Path) -> None:
    from ga.config import ConfigError, config_from_dict
    from ga.evolution.fitness import player_args
    from ga.evolution.run import evolve
    from ga.games.executor import Batch, play
    from ga.games.plan import GamePlan

    def config(player: str) -> dict:
        return {"experiment": {"name": "endgame", "seed": 3, "generations": 2},
                "population": {"size": 6, "parents": 2},
                "fitness": {"player": player, "opponents": ["random"], "games_per_opponent": 4},
                "compute": {"workers": 1}}

    solving = config_from_dict(config("alphabeta:1,end=10"))
    assert player_args(solving) == ("alphabeta", 1, 0.0, 40, 10, ())
    with pytest.raises(ConfigError, match="end=N is the one option"):
        config_from_dict(config("alphabeta:1,eps=0.1"))
    # The batch's table player is the spec's: the same disc differences as a Player with end=10.
    tables = np.array([TABLES["lr06"]])
    plan = GamePlan(individual=np.zeros(20, np.int32), opponent=np.zeros(20, np.int32),
                    member=np.full(20, -1, np.int32), seeds=np.arange(20, dtype=np.uint64),
                    colours=(np.arange(20) % 2).astype(np.uint8))
    diffs = play(Batch(player_args(solving), tables, ["random"], plan))
    me = Player("alphabeta", 1, TABLES["lr06"], end=10)
    assert diffs.tolist() == search_match(me, Player("random"), np.arange(20, dtype=np.uint64))[0].tolist()
    assert diffs.tolist() != search_match(Player("alphabeta", 1, TABLES["lr06"]), Player("random"),
                                          np.arange(20, dtype=np.uint64))[0].tolist()
    result = evolve(solving, out=tmp_path / "run")
    assert "end=10" in (Path(result.run_dir) / "config.toml").read_text()

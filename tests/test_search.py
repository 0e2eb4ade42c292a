"""The fast alpha-beta search plays exactly as the plain search, move by move, ties included.

The oracle is the hidden kind ``alphabeta_plain``: plain fail-hard negamax,
no ordering, a full window for every root move (engine/_players.pyx keeps it
beside the fast search). Every game below is played by both and compared
move by move; root values are compared bit for bit.
"""
from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine import TABLES, Board, Player, parse_spec, record_game
from engine._players import _above, play_plan, search_match
from engine.kinds import KINDS, SPEC_KINDS

from reference import Position, alphabeta_scores

PUBLISHED = ["heuristic", "classic", "lr06", "sjk11", "disc", "reference"]


def pair(depth: int, first: np.ndarray, second: np.ndarray, eps: float, phase: int, kind: str) -> tuple[Player, Player]:
    return (Player(kind, depth, first, eps, phase), Player(kind, max(1, depth - 1), second, eps, phase))


def tables_for(trial: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random tables, published ones, two-phase tables and tables full of ties, in turn."""
    kind = trial % 4
    if kind == 0:
        return rng.uniform(-1, 1, 64), rng.uniform(-1, 1, 64)
    if kind == 1:
        names = rng.choice(PUBLISHED, size=2)
        return np.array(TABLES[names[0]]), np.array(TABLES[names[1]])
    if kind == 2:
        return rng.uniform(-1, 1, 128), np.concatenate([np.array(TABLES["lr06"]), np.array(TABLES["heuristic"])])
    # Decimal tables with many equal weights: ties everywhere, the hardest case for exactness.
    return np.round(rng.uniform(-1, 1, 64), 1), np.array(TABLES["heuristic"])


@pytest.mark.parametrize(("depth", "pairings"), [(1, 1500), (2, 1500), (3, 1000), (4, 400), (5, 60)])
def test_games_are_the_plain_searchs_move_by_move(depth: int, pairings: int) -> None:
    rng = np.random.default_rng(100 + depth)
    for trial in range(pairings):
        first, second = tables_for(trial, rng)
        eps = 0.1 if trial % 3 else 0.0
        phase = int(rng.integers(1, 60))
        seed = int(rng.integers(2**63))
        fast = record_game(*pair(depth, first, second, eps, phase, "alphabeta"), seed)
        plain = record_game(*pair(depth, first, second, eps, phase, "alphabeta_plain"), seed)
        assert fast == plain, (depth, trial, seed)


@pytest.mark.slow  # a few minutes: deeper and many more games
@pytest.mark.parametrize(("depth", "pairings"), [(2, 5000), (3, 3000), (4, 1000), (5, 300), (6, 60)])
def test_many_more_games_are_the_plain_searchs(depth: int, pairings: int) -> None:
    rng = np.random.default_rng(200 + depth)
    for trial in range(pairings):
        first, second = tables_for(trial, rng)
        eps = 0.1 if trial % 2 else 0.0
        phase = int(rng.integers(1, 60))
        seed = int(rng.integers(2**63))
        assert record_game(*pair(depth, first, second, eps, phase, "alphabeta"), seed) == \
            record_game(*pair(depth, first, second, eps, phase, "alphabeta_plain"), seed), (depth, trial, seed)


def positions(count: int, seed: int) -> list[Board]:
    """Positions reached by random play from the start (some near the end, where searches meet finished games)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        board = Board()
        for _ in range(int(rng.integers(0, 58))):
            if board.is_game_over():
                break
            if board.must_pass():
                board.pass_turn()
                continue
            moves = board.legal_moves()
            board.play(moves[int(rng.integers(len(moves)))])
        if not board.is_game_over() and board.legal_moves():
            found.append(board)
    return found


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_root_values_are_the_plain_searchs_bit_for_bit(depth: int) -> None:
    rng = np.random.default_rng(depth)
    for index, board in enumerate(positions(40, 7 * depth)):
        table = rng.uniform(-1, 1, 128) if index % 3 == 0 else np.array(TABLES[PUBLISHED[index % len(PUBLISHED)]])
        fast = Player("alphabeta", depth, table, phase_move=30).scores(board)
        plain = Player("alphabeta_plain", depth, table, phase_move=30).scores(board)
        assert fast == plain  # the same doubles, not merely close


def test_root_values_match_the_pure_python_reference() -> None:
    table = np.array(TABLES["lr06"])
    for board in positions(6, 3):
        scores = Player("alphabeta", 3, table).scores(board)
        expected = alphabeta_scores(Position(board.black, board.white, board.turn), 3, table, 40)
        assert scores.keys() == expected.keys()
        for square, value in expected.items():
            assert scores[square] == pytest.approx(value, rel=1e-12, abs=1e-9)


def test_exact_ties_are_drawn_as_the_plain_search_draws_them() -> None:
    # The start position under the all-ones table: the four moves tie at every depth, so the choice
    # (and the generator's state after it) is all in the tie draws.
    disc = np.ones(64)
    board = Board()
    for depth in (1, 2, 3, 4, 5):
        fast = Player("alphabeta", depth, disc)
        plain = Player("alphabeta_plain", depth, disc)
        assert len(set(fast.scores(board).values())) == 1
        chosen = {fast.choose(board, seed) for seed in range(64)}
        assert chosen == {19, 26, 37, 44}  # every tie gets chosen under some seed
        assert [fast.choose(board, seed) for seed in range(64)] == [plain.choose(board, seed) for seed in range(64)]


def test_the_fast_search_visits_fewer_positions_for_the_same_games() -> None:
    table = np.array(TABLES["heuristic"])
    seeds = np.arange(6, dtype=np.uint64)
    fast, fast_nodes = search_match(Player("alphabeta", 4, table, 0.1), Player("alphabeta", 4, table, 0.1), seeds)
    plain, plain_nodes = search_match(Player("alphabeta_plain", 4, table, 0.1),
                                      Player("alphabeta_plain", 4, table, 0.1), seeds)
    assert np.array_equal(fast, plain)
    assert 0 < fast_nodes < plain_nodes


def test_a_plan_of_searching_players_plays_the_same_games() -> None:
    rng = np.random.default_rng(5)
    tables = rng.uniform(-1, 1, (3, 64))
    opponent = Player("alphabeta_plain", 2, np.array(TABLES["classic"]), 0.1)
    games = 12
    individual = np.repeat(np.arange(3, dtype=np.int32), 4)
    seeds = rng.integers(0, 2**63, games, dtype=np.uint64)
    colours = (np.arange(games) % 2).astype(np.uint8)
    diffs = play_plan("alphabeta", 3, 0.1, 40, tables, [opponent], individual, np.zeros(games, np.int32),
                      np.full(games, -1, np.int32), seeds, colours)
    for i in range(games):
        me = Player("alphabeta_plain", 3, tables[individual[i]], 0.1)
        black, white = (me, opponent) if colours[i] == 0 else (opponent, me)
        expected = search_match(black, white, seeds[i:i + 1], np.zeros(1, np.uint8))[0][0]
        assert diffs[i] == (expected if colours[i] == 0 else -expected)


def test_the_plain_search_is_a_hidden_kind() -> None:
    assert KINDS["alphabeta_plain"].hidden
    assert "alphabeta_plain" not in SPEC_KINDS
    with pytest.raises(ValueError, match="unknown player kind"):
        parse_spec("alphabeta_plain:2@heuristic")


def test_a_plan_with_a_depth_per_game_plays_each_game_at_its_depth() -> None:
    rng = np.random.default_rng(8)
    tables = rng.uniform(-1, 1, (2, 64))
    games = 24
    individual = (np.arange(games) % 2).astype(np.int32)
    member = (1 - individual).astype(np.int32)  # the two tables play each other ...
    depths = (1 + np.arange(games) % 4).astype(np.int32)  # ... at depths 1-4, both at the game's depth
    seeds = rng.integers(0, 2**63, games, dtype=np.uint64)
    colours = ((np.arange(games) // 2) % 2).astype(np.uint8)
    mixed = play_plan("alphabeta", 1, 0.1, 40, tables, [None], individual, np.zeros(games, np.int32), member,
                      seeds, colours, depths=depths)
    for depth in range(1, 5):
        at = depths == depth
        alone = play_plan("alphabeta", depth, 0.1, 40, tables, [None], individual[at], np.zeros(at.sum(), np.int32),
                          member[at], seeds[at], colours[at])
        assert np.array_equal(mixed[at], alone)
    with pytest.raises(ValueError, match="depths must be in 1..12"):
        play_plan("alphabeta", 1, 0.0, 40, tables, [None], individual, np.zeros(games, np.int32), member, seeds,
                  colours, depths=np.full(games, 13))


def test_a_plan_with_a_first_player_plays_it_against_tables_and_opponents() -> None:
    rng = np.random.default_rng(9)
    first = Player("nhand", 2, eps=0.1)  # not a table player: the first player of evaluations may be anything
    tables = rng.uniform(-1, 1, (3, 64))
    opponents = [Player("random"), None]
    games = 18
    opponent = (np.arange(games) % 2).astype(np.int32)  # random, then a member table, in turn
    member = np.where(opponent == 1, np.arange(games) % 3, -1).astype(np.int32)
    seeds = rng.integers(0, 2**63, games, dtype=np.uint64)
    colours = ((np.arange(games) // 2) % 2).astype(np.uint8)
    diffs = play_plan("nhand_custom", 1, 0.0, 40, tables, opponents, np.zeros(games, np.int32), opponent, member,
                      seeds, colours, first=first)
    for i in range(games):
        rival = opponents[opponent[i]] or Player("nhand_custom", 1, tables[member[i]])
        black, white = (first, rival) if colours[i] == 0 else (rival, first)
        expected = search_match(black, white, seeds[i:i + 1], np.zeros(1, np.uint8))[0][0]
        assert diffs[i] == (expected if colours[i] == 0 else -expected)


def test_the_table_of_kinds_and_the_engines_enum_agree() -> None:
    from engine._players import ENUM_CODES, KINDS as ENGINE_KINDS

    engine_kinds = {name for name, kind in KINDS.items() if kind.code is not None}
    assert set(ENUM_CODES) == engine_kinds
    for name in engine_kinds:
        assert KINDS[name].code == ENUM_CODES[name] == ENGINE_KINDS[name], name


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)


@given(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True))
@example(0.0)
@example(-0.0)
@example(-5e-324)
@example(5e-324)
@example(-math.inf)
@example(math.inf)
@example(1.7976931348623157e308)
@example(-2.2250738585072014e-308)
def test_null_window_edge_is_nextafter(value: float) -> None:
    # The search's null windows [alpha, above(alpha)] must be libm's, bit for bit, or a value could fall between.
    expected = math.nextafter(value, math.inf)
    got = _above(value)
    assert (math.isnan(got) and math.isnan(expected)) or _bits(got) == _bits(expected), (value, got, expected)


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_a_root_moves_value_is_the_players_score_bit_for_bit(depth: int) -> None:
    """move_value (the GIL released, a table of its own) values each root move as Player.scores does; with a
    floor, a value above it is the same exact value and one at or below it is a bound at or below the floor."""
    from engine._players import move_value

    rng = np.random.default_rng(depth)
    for trial, board in enumerate(_positions(12, rng)):
        first, _ = tables_for(trial, rng)
        player = Player("alphabeta", depth, first, phase_move=30)
        scores = player.scores(board)
        for square, score in scores.items():
            value, nodes = move_value(player, board.player, board.opponent, square)
            assert value == score and nodes >= 1
        ordered = sorted(scores.values())
        floor = ordered[len(ordered) // 2]
        for square, score in scores.items():
            value, _ = move_value(player, board.player, board.opponent, square, floor)
            if score > floor:
                assert value == score
            else:
                assert value <= floor


def test_move_value_refuses_what_it_cannot_search() -> None:
    from engine._players import move_value

    board = Board()
    with pytest.raises(ValueError, match="alphabeta player"):
        move_value(Player("nhand_custom", 2, TABLES["lr06"]), board.player, board.opponent, 19)
    with pytest.raises(ValueError, match="not a legal move"):
        move_value(Player("alphabeta", 2, TABLES["lr06"]), board.player, board.opponent, 0)
    with pytest.raises(ValueError, match="share squares"):
        move_value(Player("alphabeta", 2, TABLES["lr06"]), 1, 1, 19)


def _positions(count: int, rng: np.random.Generator) -> list[Board]:
    """Positions along random games, some deep enough that a search sees games end."""
    boards = []
    while len(boards) < count:
        board = Board()
        plies = int(rng.integers(4, 58))
        for _ in range(plies):
            if board.is_game_over():
                break
            if board.must_pass():
                board.pass_turn()
                continue
            moves = board.legal_moves()
            board.play(int(moves[rng.integers(len(moves))]))
        if board.legal_moves():
            boards.append(board)
    return boards

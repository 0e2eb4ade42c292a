"""Evaluation features: each by value against the pure-Python reference, players that weigh them, the file format.

The features are counts "mine minus theirs" (engine/_features.pxd); the
reference walks the board square by square (tests/reference.py). Players
with features are checked against the reference's look-ahead and negamax
with the same evaluation, and the fast search against the plain one, move
by move.
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import TABLES, Board, Player, build_player, parse_spec, record_game
from engine._players import FEATURE_CODES, _feature, play_plan
from engine.evaluation import DOCUMENT_FORMAT, EVALUATIONS, FEATURES, Evaluation, FeatureError

import reference as ref


def positions(games: int, scattered: int) -> list[ref.Position]:
    rng = random.Random(5)
    found = [p for seed in range(games) for p in ref.random_game(seed)]
    found += [ref.Position(*ref.random_masks(rng, rng.random()), rng.randint(0, 1)) for _ in range(scattered)]
    return found


def test_the_features_are_the_engines() -> None:
    assert tuple(FEATURE_CODES) == FEATURES
    assert sorted(FEATURE_CODES.values()) == list(range(len(FEATURES)))


@pytest.mark.parametrize("name", FEATURES)
def test_each_feature_equals_the_reference(name: str) -> None:
    seen = set()
    for position in positions(50, 600):
        value = _feature(name, position.player, position.opponent)
        assert value == ref.feature(name, position.player, position.opponent), (name, ref.to_text(position))
        seen.add(value)
    assert len(seen) > 2  # the feature varies over these positions


def random_evaluation(rng: np.random.Generator, features: tuple[str, ...], tables: int) -> Evaluation:
    return Evaluation(tuple(rng.uniform(-1, 1, 64 * tables)), features, tuple(rng.uniform(-1, 1, len(features) * tables)),
                      phase_move=int(rng.integers(20, 45)))


@pytest.mark.parametrize("kind", ["nhand_custom", "alphabeta"])
def test_players_with_features_score_as_the_reference(kind: str) -> None:
    rng = np.random.default_rng(7)
    boards = [p for p in positions(12, 0) if ref.legal_moves(p)][::5]
    for index, position in enumerate(boards[:60]):
        features = tuple(rng.choice(FEATURES, size=int(rng.integers(1, 4)), replace=False))
        evaluation = random_evaluation(rng, features, 1 + index % 2)
        depth = 1 + index % 2
        player = build_player(parse_spec(f"{'wpc' if kind == 'nhand_custom' else kind}:{depth}"), evaluation)
        scores = player.scores(Board.from_text(ref.to_text(position)))
        expected = ref.player_scores(kind, position, depth, evaluation, evaluation.phase_move)
        assert scores.keys() == expected.keys()
        for move, score in scores.items():
            assert score == pytest.approx(expected[move], rel=1e-9, abs=1e-9), (kind, index, move)


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_the_fast_search_with_features_plays_the_plain_searchs_games(depth: int) -> None:
    rng = np.random.default_rng(depth)
    for trial in range(60 if depth < 4 else 20):
        features = tuple(rng.choice(FEATURES, size=int(rng.integers(1, 5)), replace=False))
        first = random_evaluation(rng, features, 1 + trial % 2)
        second = EVALUATIONS["paip"]
        seed = int(rng.integers(2**63))
        games = []
        for kind in ("alphabeta", "alphabeta_plain"):
            a = Player(kind, depth, first.vector(), 0.1, first.phase_move, features=first.features)
            b = Player(kind, max(1, depth - 1), second.vector(), 0.1, features=second.features)
            games.append(record_game(a, b, seed))
        assert games[0] == games[1], (depth, trial)


def test_a_table_is_an_evaluation_without_features() -> None:
    table = Evaluation(tuple(TABLES["lr06"]))
    assert np.array_equal(table.vector(), np.array(TABLES["lr06"]))
    for seed in range(10):
        assert record_game(build_player("alphabeta:2", table), Player("random"), seed) == \
            record_game(Player("alphabeta", 2, TABLES["lr06"]), Player("random"), seed)


def test_zero_feature_weights_play_as_the_table() -> None:
    evaluation = Evaluation(tuple(TABLES["heuristic"]), ("mobility", "parity"), (0.0, 0.0))
    for seed in range(10):
        assert record_game(build_player("alphabeta:3", evaluation), Player("random"), seed) == \
            record_game(Player("alphabeta", 3, TABLES["heuristic"]), Player("random"), seed)


def test_a_plan_plays_evaluations_with_features() -> None:
    rng = np.random.default_rng(11)
    features = ("mobility", "frontier")
    evaluations = [random_evaluation(rng, features, 1) for _ in range(3)]
    tables = np.array([e.vector() for e in evaluations])
    rival = build_player("paip")
    seeds = np.arange(12, dtype=np.uint64)
    result = play_plan("alphabeta", 2, 0.0, 40, tables, [rival], np.arange(12) % 3, np.zeros(12), np.full(12, -1),
                       seeds, np.arange(12) % 2, features=features)
    for game in range(12):
        me = build_player("alphabeta:2", evaluations[game % 3])
        black, white = (me, rival) if game % 2 == 0 else (rival, me)
        from engine import play_game
        diff = play_game(black, white, int(seeds[game]))
        assert result[game] == (diff if game % 2 == 0 else -diff)
    with pytest.raises(ValueError, match="66 or 132 columns"):
        play_plan("alphabeta", 2, 0.0, 40, np.zeros((1, 64)), [rival], [0], [0], [-1], [1], [0], features=features)


def test_paip_is_norvigs_table_with_its_corner_terms() -> None:
    paip = EVALUATIONS["paip"]
    assert (paip.squares[0], paip.squares[9], paip.squares[1], paip.squares[27]) == (120, -40, -20, 3)
    # A taken corner makes the X- and C-squares next to it worth 5 (Norvig's modified weighted squares).
    board = ref.parse_text("XO------X-------" + "-" * 48 + " X")  # black a1 and a2, white b1
    value = ref.evaluate(board, ref.BLACK, paip)
    mobility = ref.feature("mobility", board.black, board.white)
    assert value == (120 + 5) - 5 + 10 * mobility
    assert parse_spec("paip").table == "paip" and parse_spec("alphabeta:3@paip,end=8").end == 8


# --- the file format ---------------------------------------------------------------------------------

@given(st.integers(0, 2**32), st.lists(st.sampled_from(FEATURES), unique=True, max_size=6), st.integers(1, 2),
       st.integers(0, 60))
def test_documents_round_trip(seed: int, features: list[str], tables: int, end: int) -> None:
    rng = np.random.default_rng(seed)
    evaluation = Evaluation(tuple(rng.uniform(-9, 9, 64 * tables)), tuple(features),
                            tuple(rng.uniform(-9, 9, len(features) * tables)), int(rng.integers(1, 60)), end)
    text = json.dumps(evaluation.to_document())
    again = Evaluation.from_document(json.loads(text))
    assert again == evaluation if tables == 2 else again == Evaluation(
        evaluation.squares, evaluation.features, evaluation.feature_weights, 40, end)
    assert Evaluation.from_vector(evaluation.vector(), features, evaluation.phase_move, end) == evaluation


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "weights"}, "'format' must be"),
    ({"version": 3}, "'version' 3"),
    ({"squares": [[1] * 63]}, "'squares' must be"),
    ({"features": {"mobility": [1, 2]}}, "one weight per table"),
    ({"features": {"wealth": [1]}}, "unknown feature 'wealth'"),
    ({"features": {"mobility": ["x"]}}, "not a number"),
    ({"end": 61}, "end must be in 0..60"),
    ({"colour": "red"}, "unknown field 'colour'"),
])
def test_bad_documents_name_the_field(change: dict, message: str) -> None:
    document = Evaluation(tuple(TABLES["lr06"]), ("mobility",), (0.5,)).to_document() | change
    with pytest.raises(FeatureError, match=message):
        Evaluation.from_document(document)
    assert DOCUMENT_FORMAT == "othello-ga evaluation"


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_both_sides_mobility_in_one_pass_is_the_move_counts(player: int, opponent: int) -> None:
    from engine._bitboard import moves, popcount
    from engine._features import _mobility

    opponent &= ~player
    assert _mobility(player, opponent) == popcount(moves(player, opponent)) - popcount(moves(opponent, player))


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.floats(-100, 100), st.floats(-100, 100))
def test_the_avx2_path_gives_the_portable_paths_values_to_the_bit(player: int, opponent: int, mobility: float,
                                                                    frontier: float) -> None:
    from engine._features import _avx2_mobility, _mobility, _mobility_frontier_sums

    opponent &= ~player
    if _avx2_mobility(player, opponent) is None:
        pytest.skip("this CPU has no AVX2: the portable path is the only one")
    assert _avx2_mobility(player, opponent) == _mobility(player, opponent)
    portable, avx2 = _mobility_frontier_sums(mobility, frontier, player, opponent)
    assert avx2 == portable  # the same sums in the same order: a player's moves do not depend on the CPU


def test_the_avx2_path_counts_moves_in_every_direction_on_real_positions() -> None:
    from engine._features import _avx2_mobility

    if _avx2_mobility(0, 0) is None:
        pytest.skip("this CPU has no AVX2: the portable path is the only one")
    for position in positions(30, 300):
        for mover, other in ((position.player, position.opponent), (position.opponent, position.player)):
            assert _avx2_mobility(mover, other) == ref.feature("mobility", mover, other), ref.to_text(position)


def test_a_players_value_is_its_evaluation() -> None:
    rng = np.random.default_rng(3)
    for index, position in enumerate(positions(10, 200)[::3]):
        evaluation = random_evaluation(rng, tuple(rng.choice(FEATURES, size=3, replace=False)), 1 + index % 2)
        player = build_player("wpc:1", evaluation)
        expected = ref.evaluate(position, position.turn, evaluation, evaluation.phase_move)
        assert player.value(position.player, position.opponent) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    with pytest.raises(ValueError, match="no evaluation"):
        Player("random").value(1, 2)

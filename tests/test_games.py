"""Whole games in C: recorded games replay legally, matches agree with single
games, seeds decide everything, and bad player arguments are refused.
"""
from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest

import reference as ref
from engine import PASS, Player, play_game, play_match, record_game
from engine._players import SharedPlan


def random_weights(size: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(-1.0, 1.0) for _ in range(size)]


def players() -> dict[str, Player]:
    return {
        "random": Player("random"),
        "nhand:1": Player("nhand", 1),
        "nhand:2": Player("nhand", 2),
        "wpc:1": Player("nhand_custom", 1, random_weights(64, 1)),
        "wpc:2-phase": Player("nhand_custom", 2, random_weights(128, 2), phase_move=30),
        "nleast:1": Player("nleast", 1),
        "nmost:1": Player("nmost", 1),
        "alphabeta:2": Player("alphabeta", 2, random_weights(64, 3)),
        "alphabeta:3-eps": Player("alphabeta", 3, random_weights(64, 4), eps=0.2),
        "nhand:1-eps1": Player("nhand", 1, eps=1.0),
    }


PAIRINGS = [
    ("random", "random"),
    ("nhand:1", "random"),
    ("random", "nhand:2"),
    ("wpc:1", "nleast:1"),
    ("nmost:1", "wpc:2-phase"),
    ("alphabeta:2", "nhand:1"),
    ("alphabeta:3-eps", "alphabeta:2"),
    ("nhand:1-eps1", "nleast:1"),
]


def replay(moves: list[int]) -> ref.Position:
    """Returns the final position of a recorded game, checking every move with the reference."""
    position = ref.start_position()
    for ply, move in enumerate(moves):
        assert not ref.is_game_over(position), f"move {ply} after the game ended"
        if move == PASS:
            assert ref.must_pass(position), f"pass at ply {ply} with moves {ref.legal_moves(position)}"
        else:
            assert move in ref.legal_moves(position), f"illegal move {move} at ply {ply}"
        position = ref.play(position, move)
    return position


@pytest.mark.parametrize(("black", "white"), PAIRINGS)
def test_recorded_games_replay_legally(black: str, white: str) -> None:
    table = players()
    for seed in range(25):
        moves = record_game(table[black], table[white], seed)
        final = replay(moves)
        assert ref.is_game_over(final), "the record stops before the game is over"
        assert play_game(table[black], table[white], seed) == ref.disc_diff(final)


def test_records_hold_forced_passes() -> None:
    table = players()
    records = [record_game(table["random"], table["random"], seed) for seed in range(300)]
    assert any(PASS in moves for moves in records)
    for moves in records:
        # Two passes in a row would end the game; they are never recorded.
        assert all(not (a == PASS and b == PASS) for a, b in zip(moves, moves[1:]))
        assert moves[-1] != PASS


def test_records_hold_one_move_per_placed_disc() -> None:
    table = players()
    for seed in range(200):
        moves = record_game(table["nhand:1"], table["nhand:1"], seed)
        final = replay(moves)
        assert len([m for m in moves if m != PASS]) == ref.count(final.black | final.white) - 4


def test_same_seed_same_game() -> None:
    table = players()
    for black, white in PAIRINGS:
        for seed in (0, 1, 2**63 + 5, 2**64 - 1):
            first = record_game(table[black], table[white], seed)
            assert record_game(table[black], table[white], seed) == first
            assert play_game(table[black], table[white], seed) == play_game(table[black], table[white], seed)


def test_seeds_change_games() -> None:
    table = players()
    # Players with ties (or randomness) only: a tie-free pair plays one game whatever the seed.
    for black, white in [("random", "random"), ("nhand:1", "nhand:1"), ("alphabeta:2", "random")]:
        games = {tuple(record_game(table[black], table[white], seed)) for seed in range(20)}
        assert len(games) > 10, (black, white)


def test_fresh_players_with_same_arguments_play_the_same_games() -> None:
    first, second = players(), players()
    for black, white in PAIRINGS:
        for seed in range(5):
            assert record_game(first[black], first[white], seed) == record_game(
                second[black], second[white], seed
            )


def test_pickled_players_play_the_same_games() -> None:
    table = players()
    for name, player in table.items():
        copy = pickle.loads(pickle.dumps(player))
        opponent = table["random"]
        for seed in range(5):
            assert record_game(copy, opponent, seed) == record_game(player, opponent, seed), name


def test_play_match_alternates_colours_by_default() -> None:
    table = players()
    first, second = table["wpc:1"], table["nleast:1"]
    seeds = list(range(100, 130))
    diffs = play_match(first, second, seeds)
    assert isinstance(diffs, np.ndarray) and np.issubdtype(diffs.dtype, np.integer)
    expected = [
        play_game(first, second, seed) if i % 2 == 0 else -play_game(second, first, seed)
        for i, seed in enumerate(seeds)
    ]
    assert diffs.tolist() == expected


def test_play_match_with_colours() -> None:
    table = players()
    first, second = table["alphabeta:2"], table["nhand:2"]
    rng = random.Random(3)
    seeds = [rng.randrange(2**64) for _ in range(30)]
    colours = [rng.randrange(2) for _ in range(30)]
    diffs = play_match(first, second, np.array(seeds, dtype=np.uint64), np.array(colours))
    expected = [
        play_game(first, second, seed) if colour == 0 else -play_game(second, first, seed)
        for seed, colour in zip(seeds, colours)
    ]
    assert diffs.tolist() == expected
    assert play_match(first, second, seeds, [0] * 30).tolist() == [
        play_game(first, second, seed) for seed in seeds
    ]
    assert play_match(first, second, seeds, [1] * 30).tolist() == [
        -play_game(second, first, seed) for seed in seeds
    ]


def test_play_match_of_no_seeds_is_empty() -> None:
    table = players()
    assert len(play_match(table["random"], table["random"], [])) == 0


def test_disc_differences_are_plausible() -> None:
    table = players()
    diffs = play_match(table["random"], table["random"], range(500))
    assert np.all(np.abs(diffs) <= 64)
    assert 0.3 < np.mean(diffs > 0) < 0.7


def test_greedy_beats_random() -> None:
    # A sanity check on the players' direction: a corner-aware table beats
    # random play clearly (the games are fixed by the seeds, so no flakiness).
    from engine import TABLES

    table_player = Player("alphabeta", 2, TABLES["heuristic"])
    diffs = play_match(table_player, Player("random"), range(200))
    assert np.mean(diffs > 0) > 0.65


def test_eps_one_player_plays_legal_random_games() -> None:
    table = players()
    wild = Player("alphabeta", 3, random_weights(64, 9), eps=1.0)
    records = [record_game(wild, table["random"], seed) for seed in range(50)]
    for moves in records:
        assert ref.is_game_over(replay(moves))
    # Its first moves vary like a random player's.
    assert {moves[0] for moves in records} == set(ref.legal_moves(ref.start_position()))


# --- bad arguments ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "problem"),
    [
        (("minimax",), {}, "kind"),
        (("",), {}, "kind"),
        (("nhand", 0), {}, "depth"),
        (("nleast", -1), {}, "depth"),
        (("alphabeta", 0, [0.0] * 64), {}, "depth"),
        (("nhand", 1), {"eps": -0.1}, "eps"),
        (("nhand", 1), {"eps": 1.5}, "eps"),
        (("nhand", 1), {"eps": math.nan}, "eps"),
        (("nhand_custom", 1, [0.0] * 63), {}, "64"),
        (("nhand_custom", 1, [0.0] * 65), {}, "64"),
        (("alphabeta", 2, [0.0] * 127), {}, "64"),
        (("alphabeta", 2, [0.0] * 129), {}, "64"),
        (("nhand_custom", 1, [0.0] * 63 + [math.nan]), {}, "NaN|finite"),
        (("alphabeta", 1, [0.0] * 63 + [math.inf]), {}, "inf|finite"),
        (("wpc", 1, [-math.inf] + [0.0] * 127), {}, "inf|finite"),
    ],
)
def test_bad_player_arguments(args: tuple, kwargs: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Player(*args, **kwargs)


def test_play_match_rejects_mismatched_colours() -> None:
    table = players()
    with pytest.raises(ValueError):
        play_match(table["random"], table["random"], [1, 2, 3], [0, 1])


# --- plans of many games: bad arguments ---------------------------------------------------------------


def _plan_args(**changes: object) -> dict[str, object]:
    args: dict[str, object] = dict(
        kind="nhand_custom", depth=1, eps=0.0, phase_move=40, tables=np.zeros((2, 64)),
        opponents=[Player("random"), None], individual=np.array([0, 1], np.int32),
        opponent=np.array([0, 1], np.int32), member=np.array([-1, 0], np.int32),
        seeds=np.array([1, 2], np.uint64), colours=np.array([0, 1], np.uint8),
    )
    args.update(changes)
    return args


@pytest.mark.parametrize(("changes", "message"), [
    ({"kind": "random"}, "weighted player kind"),
    ({"tables": np.zeros((2, 63))}, "64 or 128 columns"),
    ({"tables": np.full((2, 64), np.nan)}, "finite"),
    ({"seeds": np.array([1], np.uint64)}, "entries for 1 seeds"),
    ({"individual": np.array([0, 2], np.int32)}, "individual indices"),
    ({"opponent": np.array([0, 2], np.int32)}, "opponent indices"),
    ({"colours": np.array([0, 2], np.uint8)}, "colours must be 0"),
    ({"member": np.array([-1, 2], np.int32)}, "member indices"),  # game 1 is against a member
    ({"individual": np.array([-1, 0], np.int32)}, "individual indices"),
    ({"opponent": np.array([-1, 1], np.int32)}, "opponent indices"),
    ({"member": np.array([-1, -1], np.int32)}, "member indices"),
    ({"eps": 1.5}, "eps must be in"),
    ({"depth": 0}, "depth must be >= 1"),
    ({"phase_move": 60}, "phase_move must be in"),
    ({"depths": np.array([1, 0], np.int32)}, "depths must be in"),
    ({"depths": np.array([1], np.int32)}, "depths has 1 entries"),
    # several faults: the first of individual, opponent, colours, member is named
    ({"individual": np.array([0, 5], np.int32), "colours": np.array([3, 0], np.uint8)}, "individual indices"),
    ({"opponent": np.array([7, 1], np.int32), "colours": np.array([3, 0], np.uint8)}, "opponent indices"),
    ({"colours": np.array([0, 3], np.uint8), "member": np.array([-1, 9], np.int32)}, "colours must be 0"),
])
def test_a_bad_plan_is_refused_before_any_game(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SharedPlan(**_plan_args(**changes))


def test_a_member_index_is_not_checked_where_a_fixed_opponent_plays() -> None:
    plan = SharedPlan(**_plan_args(member=np.array([99, 1], np.int32)))  # game 0 is against random
    assert plan.play() == 2
    assert plan.result.shape == (2,)

"""Fitness by games: seeds, who plays whom (the game plan), scores, and playing a batch."""
from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import product
from typing import Any

import numpy as np
import pytest

import ga.games.executor

from engine import Player, build_player, play_match
from engine._players import SharedPlan
from ga.config import Config, config_from_dict
from ga.evolution.fitness import generation_random_tables, opponent_labels, player_args, plan_generation
from ga.games.executor import Batch, opponent_costs, play, play_batch, play_share, shared_plan
from ga.games.plan import HALL_OF_FAME, POPULATION, RANDOM_TABLE, GamePlan, split
from ga.games.scoring import score, scores
from ga.games.seeds import derive_seed, derive_seeds

PLAYER = ("nhand_custom", 1, 0.0, 40, 0, ())


def make_config(seed: int = 3, size: int = 8, **fitness_keys: object) -> Config:
    return config_from_dict({
        "experiment": {"seed": seed},
        "population": {"size": size, "parents": 2, "genome": "full"},
        "selection": {"tournament_size": 2},
        "fitness": {"opponents": ["random", "nhand:1", "nmost:1"]} | fitness_keys,
    })


def population_tables(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, (n, 64))


def games_of(plan: GamePlan, individual: int) -> GamePlan:
    return plan.subset(plan.individual == individual)


def labels_of(plan: GamePlan, config: Config) -> list[str]:
    labels = opponent_labels(config)
    return [labels[j] for j in plan.opponent.tolist()]


# --- seeds ----------------------------------------------------------------------------------


def test_derive_seed_is_a_deterministic_64_bit_hash() -> None:
    assert derive_seed(2021, 4, 7, 1, 0) == derive_seed(2021, 4, 7, 1, 0)
    for keys in [(0,), (1, 2), (2**64 - 1, 5), (123456789, 2, 999)]:
        seed = derive_seed(*keys)
        assert isinstance(seed, int) and 0 <= seed < 2**64


def test_derive_seed_differs_for_different_keys() -> None:
    keys = [(s, stream, g, i) for s, stream, g, i in product(range(4), range(1, 6), range(8), range(9))]
    seeds = {derive_seed(*k) for k in keys}
    assert len(seeds) == len(keys)
    # Order and length matter.
    assert derive_seed(1, 2) != derive_seed(2, 1)
    assert derive_seed(0) != derive_seed(0, 0)
    assert derive_seed(5) != derive_seed(5, 0)


def test_derive_seed_is_derive_seeds_on_any_integers() -> None:
    rng = np.random.default_rng(11)
    for _ in range(300):
        keys = [int(k) for k in rng.integers(-(2**63), 2**63, size=rng.integers(1, 7), dtype=np.int64)]
        keys[0] += int(rng.integers(0, 2)) << 64  # wider than 64 bits: reduced mod 2**64 by both
        arrays = [np.array([k & (2**64 - 1)], dtype=np.uint64) for k in keys]  # hashed on arrays, not as ints
        assert derive_seed(*keys) == int(derive_seeds(*arrays)[0])
        cut = int(rng.integers(0, len(keys) + 1))  # some leading keys as Python integers, the rest arrays
        assert derive_seed(*keys) == int(derive_seeds(*(k & (2**64 - 1) for k in keys[:cut]), *arrays[cut:])[0])


def test_derive_seeds_broadcasts_like_derive_seed() -> None:
    who = np.arange(1, 6)[:, None]
    opponent = np.arange(3)[None, :]
    seeds = derive_seeds(7, 4, 2, who, opponent)
    assert seeds.shape == (5, 3) and seeds.dtype == np.uint64
    for i, j in product(range(5), range(3)):
        assert int(seeds[i, j]) == derive_seed(7, 4, 2, i + 1, j)


def test_game_seeds_are_distinct_and_deterministic() -> None:
    config = make_config(size=32, draw="all", games_per_opponent=50, coevolution=3, hall_of_fame_games=2)
    plans = [plan_generation(config, generation, 32, champions=4) for generation in range(3)]
    seeds = np.concatenate([plan.seeds for plan in plans])
    assert seeds.dtype == np.uint64
    assert len(seeds) == 3 * 32 * (3 * 50 + 3 + 2)
    assert len(np.unique(seeds)) == len(seeds)
    again = plan_generation(config, 1, 32, champions=4)
    assert np.array_equal(again.seeds, plans[1].seeds)


# --- planning a generation ------------------------------------------------------------------


def test_plan_groups_each_individuals_games_and_has_one_entry_per_game() -> None:
    config = make_config(draw="all", games_per_opponent=2, coevolution=1, hall_of_fame_games=1)
    plan = plan_generation(config, 3, 8, champions=2)
    assert len(plan) == 8 * (3 * 2 + 1 + 1)
    for name in ("individual", "opponent", "member", "seeds", "colours"):
        assert len(getattr(plan, name)) == len(plan), name
    assert plan.individual.tolist() == sorted(plan.individual.tolist())
    assert np.bincount(plan.individual).tolist() == [8] * 8


@pytest.mark.shows("fitness.opponents", "fitness.draw")
def test_draw_one_gives_one_opponent_with_the_configured_probabilities() -> None:
    config = config_from_dict({
        "experiment": {"seed": 9},
        "population": {"size": 32, "parents": 16},
        "fitness": {"opponents": [{"spec": "random", "weight": 6.0}, {"spec": "nhand:1", "weight": 3.0},
                                  {"spec": "nmost:1", "weight": 1.0}], "draw": "one", "games_per_opponent": 2},
    })
    counts: Counter[str] = Counter()
    generations = 200
    for generation in range(generations):
        plan = plan_generation(config, generation, 32)
        assert len(plan) == 32 * 2
        for i in range(32):
            labels = set(labels_of(games_of(plan, i), config))
            assert len(labels) == 1  # both games against the one drawn opponent
            counts[labels.pop()] += 1
    total = 32 * generations
    for label, probability in [("random", 0.6), ("nhand:1", 0.3), ("nmost:1", 0.1)]:
        sd = (probability * (1 - probability) / total) ** 0.5
        assert abs(counts[label] / total - probability) < 5 * sd, label


def test_draw_one_differs_between_individuals_and_generations() -> None:
    config = make_config(draw="one")
    rows = [tuple(labels_of(plan_generation(config, g, 8), config)) for g in range(10)]
    assert any(len(set(row)) > 1 for row in rows)
    assert len(set(rows)) > 1


@pytest.mark.shows("fitness.draw")
def test_draw_all_gives_every_opponent_in_order() -> None:
    config = make_config(draw="all", games_per_opponent=3)
    plan = plan_generation(config, 0, 8)
    for i in range(8):
        games = games_of(plan, i)
        assert labels_of(games, config) == ["random"] * 3 + ["nhand:1"] * 3 + ["nmost:1"] * 3
        assert (games.member == -1).all()


@pytest.mark.parametrize(("colours", "expected"), [
    ("black", [0, 0, 0, 0]), ("white", [1, 1, 1, 1]), ("both", [0, 1, 0, 1]),
])
@pytest.mark.shows("fitness.colours", "fitness.games_per_opponent")
def test_colours_and_games_per_opponent(colours: str, expected: list[int]) -> None:
    config = make_config(draw="all", games_per_opponent=4, colours=colours)
    plan = plan_generation(config, 2, 8)
    for i in range(8):
        games = games_of(plan, i)
        for j in range(3):
            assert games.colours[games.opponent == j].tolist() == expected


@pytest.mark.parametrize("games_per_opponent", [1, 3, 5])
@pytest.mark.parametrize("draw", ["one", "all"])
def test_both_colours_alternate_the_first_game_when_the_count_is_odd(games_per_opponent: int, draw: str) -> None:
    """Odd counts: the first game's colour alternates across individuals, opponents and generations."""
    config = make_config(draw=draw, games_per_opponent=games_per_opponent, colours="both")
    columns = 3 if draw == "all" else 1
    black = 0
    for generation in range(4):
        plan = plan_generation(config, generation, 8)
        for i in range(8):
            games = games_of(plan, i).colours.reshape(columns, games_per_opponent)
            for j in range(columns):
                first = (generation + j + i) % 2
                assert games[j].tolist() == [(first + k) % 2 for k in range(games_per_opponent)]
        black += int((plan.colours == 0).sum())
    assert black * 2 == 4 * 8 * columns * games_per_opponent  # exactly half the games as black


def test_both_colours_under_common_random_numbers_give_every_individual_the_same_colours() -> None:
    config = make_config(draw="all", games_per_opponent=1, colours="both", common_random_numbers=True)
    for generation in range(3):
        plan = plan_generation(config, generation, 8)
        rows = [games_of(plan, i) for i in range(8)]
        assert all(r.colours.tolist() == rows[0].colours.tolist() and r.seeds.tolist() == rows[0].seeds.tolist()
                   for r in rows)
        assert rows[0].colours.tolist() == [(generation + j) % 2 for j in range(3)]


@pytest.mark.shows("experiment.seed")
def test_plan_is_a_function_of_seed_and_generation() -> None:
    def flat(plan: GamePlan) -> list[list[int]]:
        return [plan.individual.tolist(), plan.opponent.tolist(), plan.seeds.tolist(), plan.colours.tolist()]

    first = flat(plan_generation(make_config(seed=5, draw="one", games_per_opponent=2), 4, 8))
    again = flat(plan_generation(make_config(seed=5, draw="one", games_per_opponent=2), 4, 8))
    other_seed = flat(plan_generation(make_config(seed=6, draw="one", games_per_opponent=2), 4, 8))
    other_generation = flat(plan_generation(make_config(seed=5, draw="one", games_per_opponent=2), 5, 8))
    assert first == again
    assert first != other_seed and first != other_generation


@pytest.mark.shows("fitness.common_random_numbers")
@pytest.mark.parametrize("draw", ["one", "all"])
def test_common_random_numbers_share_opponents_and_seeds_within_a_generation(draw: str) -> None:
    config = make_config(draw=draw, games_per_opponent=3, common_random_numbers=True)
    per_generation = []
    for generation in range(6):
        plan = plan_generation(config, generation, 8)
        signatures = set()
        for i in range(8):
            games = games_of(plan, i)
            signatures.add((tuple(games.opponent.tolist()), tuple(games.seeds.tolist()), tuple(games.colours.tolist())))
        assert len(signatures) == 1  # every individual plays the same games
        per_generation.append(signatures.pop())
    assert len(set(per_generation)) == 6  # but each generation plays new ones
    if draw == "one":
        assert len({signature[0][0] for signature in per_generation}) > 1  # and the opponent is redrawn


def test_without_common_random_numbers_individuals_get_their_own_seeds() -> None:
    config = make_config(draw="all", games_per_opponent=3)
    plan = plan_generation(config, 0, 8)
    assert len(np.unique(plan.seeds)) == len(plan)


@pytest.mark.shows("fitness.coevolution")
def test_coevolution_adds_population_games_never_against_itself() -> None:
    config = make_config(draw="one", coevolution=3)
    population = opponent_labels(config).index(POPULATION)
    for generation in range(20):
        plan = plan_generation(config, generation, 8)
        opponents_seen = set()
        for i in range(8):
            games = games_of(plan, i)
            members = games.subset(games.opponent == population)
            assert len(games) == 4 and len(members) == 3
            assert ((members.member >= 0) & (members.member < 8)).all()
            assert (members.member != i).all()
            assert members.colours.tolist() == [0, 1, 0]
            assert (games.member[games.opponent != population] == -1).all()
            opponents_seen.update(members.member.tolist())
        assert len(opponents_seen) > 1


def test_coevolution_with_two_individuals_always_pairs_them() -> None:
    config = config_from_dict({
        "population": {"size": 2, "parents": 2},
        "selection": {"tournament_size": 2},
        "fitness": {"opponents": ["random"], "coevolution": 4},
    })
    plan = plan_generation(config, 0, 2)
    population = opponent_labels(config).index(POPULATION)
    for i in range(2):
        games = games_of(plan, i)
        assert games.member[games.opponent == population].tolist() == [1 - i] * 4


@pytest.mark.shows("fitness.hall_of_fame_games")
def test_hall_of_fame_games_play_the_champions() -> None:
    config = make_config(draw="one", hall_of_fame_games=2)
    hall_of_fame = opponent_labels(config).index(HALL_OF_FAME)
    assert len(plan_generation(config, 0, 8, champions=0)) == 8
    plan = plan_generation(config, 1, 8, champions=3)
    for i in range(8):
        games = games_of(plan, i)
        champions = games.subset(games.opponent == hall_of_fame)
        assert len(champions) == 2
        assert ((champions.member >= 8) & (champions.member < 11)).all()  # rows after the population
        assert champions.colours.tolist() == [0, 1]


@pytest.mark.shows("fitness.random_table_games")
def test_random_table_games_play_the_same_fresh_tables_for_everyone() -> None:
    config = make_config(draw="one", hall_of_fame_games=2, random_table_games=4)
    label = opponent_labels(config).index(RANDOM_TABLE)
    plan = plan_generation(config, 1, 8, champions=3)
    for i in range(8):
        games = games_of(plan, i)
        tables = games.subset(games.opponent == label)
        assert tables.member.tolist() == [11, 12, 13, 14]  # rows after the population and the champions
        assert tables.colours.tolist() == [0, 1, 0, 1]
    assert len(plan) == 8 * (1 + 2 + 4)
    no_champions = plan_generation(config, 1, 8, champions=0)
    assert len(no_champions) == 8 * (1 + 4) and set(no_champions.member[no_champions.opponent == label]) == {8, 9, 10, 11}
    first, again, second = (generation_random_tables(config, g) for g in (1, 1, 2))
    assert first.shape == (4, 64) and np.array_equal(first, again)
    assert not np.array_equal(first, second)  # fresh every generation
    assert (first >= -1).all() and (first < 1).all() and first.std() > 0.4  # U(-1, 1)
    assert not np.array_equal(first, generation_random_tables(make_config(seed=4, random_table_games=4), 1))


def test_random_tables_of_a_phase_genome_play_one_table_all_game() -> None:
    config = config_from_dict({
        "population": {"size": 4, "parents": 2, "genome": "phase"},
        "selection": {"tournament_size": 2},
        "fitness": {"random_table_games": 2},
    })
    tables = generation_random_tables(config, 0)
    assert tables.shape == (2, 128) and np.array_equal(tables[:, :64], tables[:, 64:])


def test_random_table_games_score_what_the_engine_plays() -> None:
    from ga.evolution.fitness import evaluate_generation
    from ga.evolution.toolbox import build_toolbox

    config = make_config(size=3, draw="one", random_table_games=6, eps=0.0)
    toolbox = build_toolbox(config)
    population = toolbox.population(n=3)
    result = evaluate_generation(population, 5, config, [], (map, 1, True))
    label = opponent_labels(config).index(RANDOM_TABLE)
    tables = generation_random_tables(config, 5)
    plan = plan_generation(config, 5, 3)
    for i, individual in enumerate(population):
        games = games_of(plan, i).subset(games_of(plan, i).opponent == label)
        me = Player("nhand_custom", 1, np.asarray(individual, dtype=np.float64))
        diffs = np.concatenate([
            play_match(me, Player("nhand_custom", 1, tables[m - 3]), [s], [c])
            for m, s, c in zip(games.member.tolist(), games.seeds.tolist(), games.colours.tolist())
        ])
        log = result.game_log
        logged = log.disc_diffs[(log.individual == i) & (log.opponent == label)]
        assert logged.tolist() == diffs.tolist()
    assert result.record[f"win_rate_vs_{RANDOM_TABLE}"] >= 0


def test_without_hall_of_fame_games_the_champions_take_no_rows_and_change_no_game() -> None:
    from ga.evolution.fitness import evaluate_generation
    from ga.evolution.toolbox import build_toolbox, individuals

    config = make_config(size=3, draw="one", random_table_games=4, eps=0.0)
    genes = [list(ind) for ind in build_toolbox(config).population(n=3)]
    label = opponent_labels(config).index(RANDOM_TABLE)
    plan = plan_generation(config, 2, 3, champions=5)
    assert set(plan.member[plan.opponent == label].tolist()) == {3, 4, 5, 6}  # right after the population
    champions = np.random.default_rng(1).uniform(-1, 1, size=(5, 64)).tolist()
    alone = evaluate_generation(individuals(genes, [None] * 3, [0] * 3), 2, config, [], (map, 1, True))
    beside = evaluate_generation(individuals(genes, [None] * 3, [0] * 3), 2, config, champions, (map, 1, True))
    assert beside.diffs.tolist() == alone.diffs.tolist()
    assert np.array_equal(beside.plan.member, alone.plan.member)


def test_opponent_labels() -> None:
    assert opponent_labels(make_config()) == ["random", "nhand:1", "nmost:1"]
    assert opponent_labels(make_config(coevolution=1, hall_of_fame_games=1, random_table_games=2)) == [
        "random", "nhand:1", "nmost:1", POPULATION, HALL_OF_FAME, RANDOM_TABLE]


# --- splitting among workers ---------------------------------------------------------------------


@pytest.mark.parametrize("parts", [1, 2, 3, 5, 8, 20])
def test_split_partitions_the_plan_into_runs_of_similar_size(parts: int) -> None:
    config = make_config(draw="one", games_per_opponent=3, coevolution=2)
    plan = plan_generation(config, 1, 8)
    pieces = split(plan, parts)
    joined = GamePlan.concatenate(pieces)
    for name in ("individual", "opponent", "member", "seeds", "colours"):
        assert np.array_equal(getattr(joined, name), getattr(plan, name)), name
    assert len(pieces) == min(parts, 8)  # at most one run per individual
    assert max(len(p) for p in pieces) - min(len(p) for p in pieces) <= 1  # equal costs: equal counts


def test_split_of_a_subset_of_individuals() -> None:
    plan = plan_generation(make_config(draw="all"), 0, 8)
    plan = plan.subset(np.isin(plan.individual, [2, 5, 6]))
    pieces = split(plan, 5)
    assert np.array_equal(GamePlan.concatenate(pieces).seeds, plan.seeds)
    assert len(pieces) == 3  # three individuals
    assert max(len(p) for p in pieces) - min(len(p) for p in pieces) <= 1


def test_split_by_cost_balances_the_cost_not_the_game_count() -> None:
    # Individual i plays 10 games against opponent (i % 2); opponent 1 costs nine times opponent 0.
    individual = np.repeat(np.arange(8, dtype=np.int32), 10)
    opponent = (individual % 2).astype(np.int32)
    plan = GamePlan(individual, opponent, np.full(80, -1, np.int32), np.arange(80, dtype=np.uint64),
                    np.zeros(80, np.uint8))
    costs = np.array([1.0, 9.0])
    pieces = split(plan, 2, costs)
    assert np.array_equal(GamePlan.concatenate(pieces).seeds, plan.seeds)
    totals = [costs[piece.opponent].sum() for piece in pieces]
    assert totals == [200.0, 200.0]
    by_count = split(plan, 2)
    assert [len(piece) for piece in by_count] == [40, 40]
    assert [costs[piece.opponent].sum() for piece in by_count] == [200.0, 200.0]  # here both agree
    skewed = plan.subset(np.argsort(opponent, kind="stable"))  # cheap individuals first
    skewed = GamePlan(np.repeat(np.arange(8, dtype=np.int32), 10), skewed.opponent, skewed.member,
                      skewed.seeds, skewed.colours)
    assert [costs[piece.opponent].sum() for piece in split(skewed, 2)] == [40.0, 360.0]
    balanced = [costs[piece.opponent].sum() for piece in split(skewed, 2, costs)]
    assert max(balanced) <= 209.0  # one game (9) off the ideal 200 at most, cutting inside an individual


def test_opponent_costs_cover_every_label_including_the_population() -> None:
    # Timings are not asserted (only that each label was played): they only place batch boundaries.
    config = make_config(draw="all", coevolution=2)
    labels = opponent_labels(config)
    assert POPULATION in labels
    costs = opponent_costs(player_args(config), labels, 64, games=4)
    assert costs.shape == (len(labels),) and np.all(np.isfinite(costs)) and np.all(costs > 0)


# --- scores ---------------------------------------------------------------------------------


def test_win_rate_counts_a_draw_as_half() -> None:
    assert score(np.array([10, -4, 0, 2]), "win_rate") == pytest.approx(2.5 / 4)
    assert score(np.array([0, 0]), "win_rate") == 0.5
    assert score(np.array([-64]), "win_rate") == 0.0
    assert score(np.array([1, 1, 1]), "win_rate") == 1.0


def test_disc_diff_is_the_mean_disc_difference() -> None:
    assert score(np.array([10, -4, 0, 2]), "disc_diff") == pytest.approx(2.0)
    assert score(np.array([-64, 0], dtype=np.int32), "disc_diff") == -32.0


def test_score_of_no_games_is_zero() -> None:
    assert score(np.zeros(0, dtype=np.int32), "win_rate") == 0.0
    assert score(np.zeros(0, dtype=np.int32), "disc_diff") == 0.0


@pytest.mark.parametrize("kind", ["win_rate", "disc_diff"])
def test_scores_per_individual_equal_score_of_its_games(kind: str) -> None:
    individual = np.array([0, 0, 0, 2, 2, 3], dtype=np.int32)
    diffs = np.array([4, 0, -2, 64, -64, 0], dtype=np.int32)
    values = scores(individual, diffs, 5, kind)
    assert values.shape == (5,)
    for i in (0, 2, 3):
        assert values[i] == pytest.approx(score(diffs[individual == i], kind))
    assert np.isnan(values[1]) and np.isnan(values[4])  # no games


# --- playing a batch --------------------------------------------------------------------------------


def test_evaluate_equals_play_match_for_every_game() -> None:
    config = make_config(draw="all", games_per_opponent=4, colours="both", coevolution=2, hall_of_fame_games=2)
    tables = population_tables(8 + 2, seed=4)  # 8 individuals, then 2 champions
    labels = opponent_labels(config)
    plan = plan_generation(config, 1, 8, champions=2)
    diffs = play(Batch(PLAYER, tables, labels, plan))
    assert diffs.shape == (len(plan),)
    assert np.all(np.abs(diffs) <= 64)
    for g in range(len(plan)):
        me = Player("nhand_custom", 1, tuple(tables[plan.individual[g]]))
        label = labels[plan.opponent[g]]
        if label in (POPULATION, HALL_OF_FAME):
            opponent = Player("nhand_custom", 1, tuple(tables[plan.member[g]]))
        else:
            opponent = build_player(label)
        expected = play_match(me, opponent, plan.seeds[g:g + 1], plan.colours[g:g + 1])
        assert diffs[g] == expected[0], (g, label)


def test_evaluate_uses_eps_and_phase_move_of_the_player() -> None:
    config = make_config(draw="all", games_per_opponent=6, colours="both", coevolution=1)
    tables = np.random.default_rng(8).uniform(-1, 1, (8, 128))
    labels = opponent_labels(config)
    plan = plan_generation(config, 0, 8)
    diffs = play(Batch(("nhand_custom", 2, 0.1, 30, 0, ()), tables, labels, plan))
    for g in range(0, len(plan), 5):
        me = Player("nhand_custom", 2, tuple(tables[plan.individual[g]]), 0.1, 30)
        label = labels[plan.opponent[g]]
        opponent = (Player("nhand_custom", 2, tuple(tables[plan.member[g]]), 0.1, 30) if label == POPULATION
                    else build_player(label))
        assert diffs[g] == play_match(me, opponent, plan.seeds[g:g + 1], plan.colours[g:g + 1])[0]


def test_evaluate_of_split_batches_equals_evaluate_of_the_whole_plan() -> None:
    config = make_config(draw="one", games_per_opponent=5, coevolution=1)
    tables = population_tables(8, seed=5)
    labels = opponent_labels(config)
    plan = plan_generation(config, 2, 8)
    whole = play(Batch(PLAYER, tables, labels, plan))
    pieces = np.concatenate([play(Batch(PLAYER, tables, labels, part)) for part in split(plan, 3)])
    assert np.array_equal(whole, pieces)


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_threads_sharing_a_plan_play_every_game_once_as_evaluate_does(threads: int) -> None:
    config = make_config(draw="all", games_per_opponent=6, colours="both", coevolution=3)
    tables = population_tables(8, seed=7)
    labels = opponent_labels(config)
    plan = plan_generation(config, 4, 8)
    batch = Batch(PLAYER, tables, labels, plan)
    games = shared_plan(batch)
    with ThreadPoolExecutor(threads) as executor:
        played = list(executor.map(play_share, [games] * threads))
    assert sum(played) == len(plan)  # each game taken by exactly one thread
    assert np.array_equal(games.result, play(batch))
    assert play_share(games) == 0  # nothing left to play


@pytest.mark.parametrize("threads", [2, 8])
def test_threads_that_race_for_the_same_players_play_the_games_of_players_built_in_advance(threads: int) -> None:
    # A shared plan builds each (table, depth) player in the first thread whose game needs it; here every
    # game needs one of the same four, so threads meet players that another thread is still building.
    rng = np.random.default_rng(12)
    tables = rng.uniform(-1, 1, size=(2, 64))
    games = 4000
    individual = rng.integers(0, 2, games).astype(np.int32)
    member = (1 - individual).astype(np.int32)
    depths = rng.integers(1, 3, games).astype(np.int32)
    seeds, colours = np.arange(games, dtype=np.uint64), (np.arange(games) % 2).astype(np.uint8)
    arguments = (tables, [None], individual, np.zeros(games, np.int32), member, seeds, colours, depths)
    plan = SharedPlan("alphabeta", 1, 0.1, 40, *arguments)
    with ThreadPoolExecutor(threads) as executor:
        assert sum(executor.map(play_share, [plan] * threads)) == games
    players = {(row, depth): Player("alphabeta", depth, tables[row], 0.1) for row in (0, 1) for depth in (1, 2)}
    expected = [play_match(players[individual[g], depths[g]], players[member[g], depths[g]],
                           seeds[g:g + 1], colours[g:g + 1])[0] for g in range(games)]
    assert np.array_equal(plan.result, expected)


@pytest.mark.parametrize(("parts", "shared"), [(1, False), (3, False), (2, True), (5, True)])
def test_play_batch_gives_the_results_of_evaluate_shared_or_split(parts: int, shared: bool) -> None:
    config = make_config(draw="one", games_per_opponent=5, coevolution=2)
    tables = population_tables(8, seed=5)
    batch = Batch(PLAYER, tables, opponent_labels(config), plan_generation(config, 3, 8))
    calls: list[int] = []
    with ThreadPoolExecutor(2) as executor:
        diffs = play_batch(batch, executor.map, parts, shared=shared, while_playing=lambda: calls.append(1))
    assert np.array_equal(diffs, play(batch))
    empty = Batch(PLAYER, tables, batch.labels, batch.plan.subset(np.zeros(len(batch.plan), bool)))
    assert play_batch(empty, map, parts, shared=shared, while_playing=lambda: calls.append(2)).size == 0
    assert calls == [1, 2]  # once per call, with or without games


def test_the_calling_thread_plays_the_games_the_workers_leave() -> None:
    config = make_config(draw="all", games_per_opponent=4, colours="both")
    tables = population_tables(8, seed=3)
    batch = Batch(PLAYER, tables, opponent_labels(config), plan_generation(config, 1, 8))
    shares: list[int] = []

    def idle_workers(function: Any, items: list[Any], *more: list[Any]) -> list[Any]:
        shares.append(len(items))  # parts - 1 workers, none of which plays here
        return []

    diffs = play_batch(batch, idle_workers, 3, shared=True)
    assert shares == [2]
    assert np.array_equal(diffs, play(batch))


@pytest.mark.parametrize("workers", [2, 3])
def test_the_pool_threads_are_playing_before_the_calling_thread_does_its_own_work(
        workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # A pool thread needs the GIL to start its games; the calling thread's work would hold it.
    config = make_config(draw="all", games_per_opponent=64, colours="both")
    batch = Batch(PLAYER, population_tables(8, seed=4), opponent_labels(config), plan_generation(config, 1, 8))
    playing: list[int] = []
    share = ga.games.executor.play_share

    def recording(games: Any) -> int:
        playing.append(threading.get_ident())
        return share(games)

    monkeypatch.setattr(ga.games.executor, "play_share", recording)
    seen: list[int] = []
    with ThreadPoolExecutor(workers - 1) as pool:
        play_batch(batch, pool.map, workers, shared=True)  # a pool's new thread runs at once; a run's are waiting
        playing.clear()
        diffs = play_batch(batch, pool.map, workers, shared=True, while_playing=lambda: seen.append(len(playing)))
    assert seen == [workers - 1]
    assert threading.get_ident() not in playing
    assert np.array_equal(diffs, play(batch))


def test_a_shared_plan_plays_at_most_the_games_asked_for() -> None:
    config = make_config(draw="all", games_per_opponent=3, colours="both")
    batch = Batch(PLAYER, population_tables(4, seed=9), opponent_labels(config), plan_generation(config, 0, 4))
    games = shared_plan(batch)
    counts = [games.play(7), games.play(0), games.play(7)]
    assert counts == [7, 0, 7]
    rest = games.play()
    assert sum(counts) + rest == len(batch.plan)
    assert games.play(5) == 0
    assert np.array_equal(games.result, play(batch))


def test_evaluate_depends_on_the_weights() -> None:
    config = make_config(draw="all", games_per_opponent=20, colours="both")
    tables = population_tables(8, seed=5)
    labels = opponent_labels(config)
    plan = plan_generation(config, 0, 8)
    first = play(Batch(PLAYER, tables, labels, plan))
    again = play(Batch(PLAYER, tables.copy(), labels, plan))
    other = play(Batch(PLAYER, -tables, labels, plan))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


# --- games spread over depths ------------------------------------------------------------------------


def depth_config(**fitness_keys: object) -> Config:
    return config_from_dict({
        "experiment": {"seed": 5},
        "population": {"size": 4, "parents": 2, "genome": "full"},
        "selection": {"tournament_size": 2},
        "fitness": {"player": "alphabeta:2", "depths": [1, 2, 3], "draw": "all", "games_per_opponent": 3,
                    "colours": "both", "opponents": ["alphabeta:2@classic,eps=0.1", "nhand:1"]} | fitness_keys,
    })


@pytest.mark.shows("fitness.depths")
def test_depths_cycle_over_each_individuals_games_and_searching_opponents_follow() -> None:
    config = depth_config(coevolution=2)
    labels = opponent_labels(config)
    assert labels == ["alphabeta:1@classic,eps=0.1", "alphabeta:2@classic,eps=0.1", "alphabeta:3@classic,eps=0.1",
                      "nhand:1", POPULATION]
    plan = plan_generation(config, 0, 4)
    for i in range(4):
        games = games_of(plan, i)
        assert games.depth.tolist() == [1, 2, 3, 1, 2, 3, 1, 2]  # 3 + 3 fixed games, 2 population games
        for label, depth in zip(labels_of(games, config), games.depth.tolist()):
            if label.startswith("alphabeta"):
                assert label.startswith(f"alphabeta:{depth}@")  # the searching opponent at the game's depth


def test_games_spread_over_depths_are_the_games_played_by_hand() -> None:
    config = depth_config()
    labels = opponent_labels(config)
    plan = plan_generation(config, 2, 4)
    tables = population_tables(4, seed=3)
    diffs = play(Batch(player_args(config), tables, labels, plan))
    for k in range(len(plan)):
        me = Player("alphabeta", int(plan.depth[k]), tables[plan.individual[k]])
        rival = build_player(labels[plan.opponent[k]])
        first, second = (me, rival) if plan.colours[k] == 0 else (rival, me)
        expected = play_match(first, second, plan.seeds[k:k + 1], [0])[0]
        assert diffs[k] == (expected if plan.colours[k] == 0 else -expected), k


def test_without_depths_nothing_changes() -> None:
    plain = make_config()
    assert plan_generation(plain, 1, 8).depth is None
    assert "depths" not in str(opponent_labels(plain))


def test_scores_of_groups_without_games_are_nan_without_a_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's divide-by-zero warning would fail the test
        values = scores(np.array([0, 0, 2]), np.array([4, -2, 0]), 4, "disc_diff")
    assert values[0] == 1.0 and values[2] == 0.0 and np.isnan(values[1]) and np.isnan(values[3])

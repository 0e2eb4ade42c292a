"""The final tournament that picks a run's best table."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ga.evolution.run
from engine import TABLES
from ga.evolution import tournament
from ga.config import ConfigError, config_from_dict
from ga.evolution.run import evolve
from ga.games.plan import GamePlan
from ga.weights import load_weights
from runs import assert_same_run
from test_evolve import tiny, tiny_config

HEURISTIC = np.array(TABLES["heuristic"])


def tournament_config(games: int = 4, opponents: tuple[str, ...] = ("nhand:1", "wpc:1@classic")) -> Any:
    return tiny_config(fitness={"opponents": list(opponents), "eps": 0.1}, final={"games": games})


def test_candidates_are_population_mean_and_champions_without_duplicates() -> None:
    population = [[0.1] * 64, [0.3] * 64, [0.1] * 64]
    champions = [[0.5] * 64, [0.3] * 64, [0.7] * 64]  # oldest first; [0.3] is also in the population
    found = tournament.gather_candidates(population, [4, 5, 6], champions, "full")
    firsts = [float(row[0]) for row in found.tables]
    assert firsts == pytest.approx([0.1, 0.3, np.mean([0.1, 0.3, 0.1]), 0.5, 0.7])
    assert found.source == ["population", "population", "mean", "champion", "champion"]
    assert found.born == [4, 5, -1, -1, -1]
    assert found.index == [0, 1, 0, 2, 0]  # champion age: 0 = the last generation's


def test_candidates_expand_symmetric_genomes() -> None:
    genes = np.random.default_rng(0).uniform(-1, 1, size=(3, 10))
    found = tournament.gather_candidates(genes, [0, 0, 0], [], "sym8")
    assert found.tables.shape == (4, 64)
    board = found.tables.reshape(-1, 8, 8)
    assert np.allclose(board, board.transpose(0, 2, 1))
    assert np.allclose(board, board[:, ::-1, :])


@pytest.mark.shows("final.games")
@pytest.mark.parametrize("count", [1, 2, 5])
def test_plan_has_each_pairing_the_configured_number_of_games(count: int) -> None:
    config = tournament_config(games=3)
    plan = tournament.plan_tournament(config, count)
    fixed = len(tournament.tournament_labels(config)) - 1
    assert fixed == 2
    pairs: dict[tuple[int, int], list[int]] = {}
    for i, opponent, member, colour in zip(plan.individual, plan.opponent, plan.member, plan.colours):
        key = (int(i), int(opponent)) if opponent < fixed else (int(i), fixed + int(member))
        if opponent == fixed:
            assert member > i  # each pair once, from its lower candidate
        else:
            assert member == -1
        pairs.setdefault(key, []).append(int(colour))
    expected = {(i, k) for i in range(count) for k in range(fixed)} | {
        (i, fixed + j) for i in range(count) for j in range(i + 1, count)}
    assert set(pairs) == expected
    assert all(colours == [0, 1, 0] for colours in pairs.values())
    assert len(set(plan.seeds.tolist())) == len(plan)
    assert np.all(np.diff(plan.individual) >= 0)  # grouped by first player, as split() needs


def test_plan_is_a_function_of_the_seed() -> None:
    a = tournament.plan_tournament(tournament_config(), 4)
    b = tournament.plan_tournament(tournament_config(), 4)
    c = tournament.plan_tournament(tiny_config(experiment={"seed": 9}, final={"games": 4},
                                               fitness={"opponents": ["nhand:1", "wpc:1@classic"]}), 4)
    assert np.array_equal(a.seeds, b.seeds)
    assert not np.array_equal(a.seeds, c.seeds)


def test_scores_count_round_robin_games_for_both_players() -> None:
    # Candidates 0, 1, 2; one fixed opponent (label 0), label 1 = the candidates; one game per pairing.
    plan = GamePlan(
        individual=np.array([0, 0, 0, 1, 1, 2], dtype=np.int32),
        opponent=np.array([0, 1, 1, 0, 1, 0], dtype=np.int32),
        member=np.array([-1, 1, 2, -1, 2, -1], dtype=np.int32),
        seeds=np.arange(6, dtype=np.uint64),
        colours=np.zeros(6, dtype=np.uint8),
    )
    # 0 beats the fixed one, draws 1, loses to 2; 1 loses to fixed, beats 2; 2 beats fixed.
    diffs = np.array([10, 0, -4, -2, 6, 8])
    rates = tournament.tournament_scores(plan, diffs, 3, fixed=1)
    assert rates["vs_training"].tolist() == [1.0, 0.0, 1.0]
    assert rates["round_robin"].tolist() == [0.25, 0.75, 0.5]
    assert rates["score"].tolist() == [0.625, 0.375, 0.75]
    only_robin = tournament.tournament_scores(plan.subset(plan.opponent == 1), diffs[plan.opponent == 1], 3, fixed=0)
    assert only_robin["score"].tolist() == [0.25, 0.75, 0.5]


def test_a_strong_table_wins_the_tournament_against_weak_ones() -> None:
    rng = np.random.default_rng(5)
    weak = [-HEURISTIC, np.ones(64), *rng.uniform(-1, 1, size=(3, 64))]
    candidates = tournament.Candidates(np.array([*weak[:2], HEURISTIC, *weak[2:]]),
                                       ["population"] * 6, list(range(6)), [0] * 6)
    rows, games = tournament.run_tournament(tournament_config(games=40), candidates, (map, 1, True))
    assert rows[0]["index"] == 2 and np.array_equal(rows[0]["weights"], HEURISTIC)
    assert rows[-1]["index"] == 0  # the reversed table loses to everything
    assert games == 6 * 2 * 40 + 15 * 40
    assert [row["rank"] for row in rows] == list(range(1, 7))
    assert all(0 <= row["score"] <= 1 for row in rows)


def test_ranking_does_not_depend_on_batches() -> None:
    rng = np.random.default_rng(1)
    candidates = tournament.Candidates(rng.uniform(-1, 1, size=(7, 64)), ["population"] * 7, list(range(7)), [0] * 7)
    one, _ = tournament.run_tournament(tournament_config(), candidates, (map, 1, False))
    several, _ = tournament.run_tournament(tournament_config(), candidates, (map, 5, False))
    assert [(r["index"], r["score"]) for r in one] == [(r["index"], r["score"]) for r in several]


def test_a_run_with_a_final_tournament_writes_final_csv_and_takes_its_winner(tmp_path: Path) -> None:
    result = evolve(tournament_config(), out=tmp_path / "run")
    with open(tmp_path / "run" / "final.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:7] == ["rank", "source", "index", "born", "score", "vs_training", "round_robin"]
    assert len(rows[0]) == 7 + 64
    assert [row[0] for row in rows[1:]] == [str(i) for i in range(1, len(rows))]
    assert {row[1] for row in rows[1:]} <= set(tournament.SOURCES)
    assert "mean" in {row[1] for row in rows[1:]}
    scores = [float(row[4]) for row in rows[1:]]
    assert scores == sorted(scores, reverse=True)
    best = load_weights(tmp_path / "run" / "best_weights.csv")
    assert np.allclose(best, [float(w) for w in rows[1][7:]])
    import json
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["final_games"] > 0
    assert result.finished


@pytest.mark.shows("final.games")
def test_without_final_games_there_is_no_final_csv(tmp_path: Path) -> None:
    evolve(tiny_config(), out=tmp_path / "run")
    assert not (tmp_path / "run" / "final.csv").exists()


def test_final_tournament_is_reproducible_across_workers(tmp_path: Path) -> None:
    config = tournament_config()
    evolve(config, out=tmp_path / "one", workers=1)
    evolve(config, out=tmp_path / "two", workers=2)
    assert_same_run(tmp_path / "one", tmp_path / "two")


def test_resume_after_the_last_generation_replays_the_same_tournament(tmp_path: Path) -> None:
    config = tournament_config()
    evolve(config, out=tmp_path / "whole")
    evolve(config, out=tmp_path / "parts", generations=2)
    ga.evolution.run.resume(tmp_path / "parts", generations=3)
    assert_same_run(tmp_path / "whole", tmp_path / "parts")


@pytest.mark.parametrize("value", [-1, 1.5, "8", True])
def test_bad_final_games_is_refused(value: Any) -> None:
    with pytest.raises(ConfigError, match="final.games"):
        config_from_dict(tiny(final={"games": value}))


def test_the_second_player_of_a_round_robin_game_scores_one_minus_the_first_players_points() -> None:
    # Candidate 2 is the second player of both of its games and loses both: its round robin is 0, not 1.
    plan = GamePlan(
        individual=np.array([0, 1], dtype=np.int32),
        opponent=np.array([0, 0], dtype=np.int32),
        member=np.array([2, 2], dtype=np.int32),
        seeds=np.arange(2, dtype=np.uint64),
        colours=np.zeros(2, dtype=np.uint8),
    )
    rates = tournament.tournament_scores(plan, np.array([12, 4]), 3, fixed=0)
    assert rates["round_robin"].tolist() == [1.0, 1.0, 0.0]

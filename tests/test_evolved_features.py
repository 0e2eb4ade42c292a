"""Runs that evolve feature weights beside the squares: genomes, run files, resume, refinement, players of the result."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from engine import Player, build_player, play_match
from engine.evaluation import Evaluation
from ga.cli import cli
from ga.config import ConfigError, config_from_dict, config_to_toml
from ga.evolution import fitness
from ga.evolution.genome import contract, expand, expand_many, genome_length, table_length
from ga.evolution.run import evolve, resume
from ga.games.executor import Batch, play
from ga.games.plan import GamePlan
from ga.rundir.layout import BEST, BEST_EVALUATION, MEAN_EVALUATION, POPULATION
from ga.rundir.resolve import resolve_weights
from ga.weights import load_evaluation

from runs import assert_same_run


def small(**changes: Any) -> dict[str, Any]:
    data = {
        "experiment": {"name": "features", "seed": 5, "generations": 3},
        "population": {"size": 6, "parents": 4, "features": ["mobility", "frontier"]},
        "selection": {"method": "tournament", "tournament_size": 2, "elitism": 1},
        "fitness": {"player": "alphabeta:1,end=6", "opponents": ["nhand:1", "paip"], "games_per_opponent": 4,
                    "colours": "both"},
        "compute": {"workers": 1},
    }
    for section, keys in changes.items():
        data[section] = data.get(section, {}) | keys
    return data


@pytest.mark.parametrize(("genome", "squares"), [("full", 64), ("sym8", 10), ("sym4", 20), ("phase", 128)])
def test_feature_genes_follow_the_squares_genes(genome: str, squares: int) -> None:
    tables = 2 if genome == "phase" else 1
    assert genome_length(genome, 3) == squares + 3 * tables
    assert table_length(genome, 3) == (64 + 3) * tables
    genes = np.arange(genome_length(genome, 3), dtype=np.float64)
    vector = expand(genes, genome, 3)
    assert vector.size == table_length(genome, 3)
    assert list(vector[64 * tables:]) == list(genes[squares:])  # the feature weights, table by table
    assert np.array_equal(expand_many(genes[None, :], genome, 3)[0], vector)
    assert np.array_equal(expand(contract(vector, genome, 3), genome, 3), vector)
    assert np.array_equal(expand(genes[:squares], genome), expand(genes, genome, 3)[:64 * tables])  # as before


def test_a_batch_plays_each_individual_with_its_features() -> None:
    config = config_from_dict(small())
    rng = np.random.default_rng(1)
    tables = rng.uniform(-1, 1, size=(2, 66))
    plan = GamePlan(individual=np.array([0, 0, 1, 1], np.int32), opponent=np.array([0, 1, 0, 1], np.int32),
                    member=np.full(4, -1, np.int32), seeds=np.arange(4, dtype=np.uint64),
                    colours=np.array([0, 1, 1, 0], np.uint8))
    diffs = play(Batch(fitness.player_args(config), tables, fitness.opponent_labels(config), plan))
    for game in range(4):
        me = Player("alphabeta", 1, tables[game // 2], 0.0, end=6, features=("mobility", "frontier"))
        rival = build_player(["nhand:1", "paip"][game % 2])
        assert diffs[game] == play_match(me, rival, [game], [plan.colours[game]])[0]


@pytest.mark.shows("population.features")
def test_a_run_with_features_writes_evaluation_files_and_resumes_to_the_same(tmp_path: Path) -> None:
    config = config_from_dict(small())
    whole = evolve(config, out=tmp_path / "whole")
    run = Path(whole.run_dir)
    assert not (run / BEST).exists() and (run / BEST_EVALUATION).exists() and (run / MEAN_EVALUATION).exists()
    best = load_evaluation(run / BEST_EVALUATION)
    assert best.features == ("mobility", "frontier") and best.end == 6 and len(best.squares) == 64
    assert json.loads((run / BEST_EVALUATION).read_text())["features"].keys() == {"mobility", "frontier"}
    header = (run / POPULATION).read_text().splitlines()[0].split(",")
    assert header[-2:] == ["mobility", "frontier"] and len(header) == 66
    assert "features = [" in (run / "config.toml").read_text()
    # Stopped after one generation, then resumed: the same files.
    short = evolve(config_from_dict(small(experiment={"generations": 1})), out=tmp_path / "resumed")
    resume(short.run_dir, generations=3)
    assert_same_run(Path(short.run_dir), run)


def test_a_table_only_run_writes_its_config_as_before(tmp_path: Path) -> None:
    config = config_from_dict(small(population={"features": []}))
    assert not [line for line in config_to_toml(config).splitlines() if line.startswith("features")]
    run = Path(evolve(config, out=tmp_path / "run").run_dir)
    assert (run / BEST).exists() and not (run / BEST_EVALUATION).exists()


@pytest.mark.shows("evaluate --end")
def test_the_evolved_evaluation_plays_from_the_run_and_from_its_file(tmp_path: Path) -> None:
    run = Path(evolve(config_from_dict(small()), out=tmp_path / "run").run_dir)
    evaluation, description = resolve_weights(str(run))
    assert isinstance(evaluation, Evaluation) and description.endswith(BEST_EVALUATION)
    from_file = build_player(f"alphabeta:2@{run / BEST_EVALUATION}", load_weights=load_evaluation)
    direct = Player("alphabeta", 2, evaluation.vector(), features=evaluation.features)
    seeds = np.arange(6, dtype=np.uint64)
    assert np.array_equal(play_match(from_file, build_player("heuristic"), seeds),
                          play_match(direct, build_player("heuristic"), seeds))
    result = CliRunner().invoke(cli, ["evaluate", str(run), "--protocol", "ladder", "--depths", "1", "--games", "4",
                                      "--vs", "paip", "--end", "6", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "alphabeta:1@paip,eps=0.1,end=6" in result.output
    shown = CliRunner().invoke(cli, ["show", str(run)])
    assert shown.exit_code == 0, shown.output
    assert "mobility" in shown.output and "frontier" in shown.output


def test_a_refined_run_with_features_refines_its_feature_weights(tmp_path: Path) -> None:
    config = config_from_dict(small(population={"genome": "sym8"}, refine={
        "generations": 2, "restarts": 1, "candidates": 4, "games": 20, "opponents": ["wpc:1@classic"]}))
    run = Path(evolve(config, out=tmp_path / "run").run_dir)
    refined, ga_best = load_evaluation(run / BEST_EVALUATION), load_evaluation(run / "ga_best_evaluation.json")
    assert refined.features == ga_best.features == ("mobility", "frontier")
    assert refined.feature_weights != ga_best.feature_weights


@pytest.mark.parametrize(("features", "message"), [
    (["mobilty"], "did you mean 'mobility'"),
    (["parity", "parity"], "given twice"),
    ("mobility", "array of feature names"),
])
def test_bad_features_name_the_key(features: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=r"population\.features.*" + message):
        config_from_dict(small(population={"features": features}))

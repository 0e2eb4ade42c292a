"""Settings shown to take effect by value, where no other test already did.

Each test checks what its setting does against an independent oracle: the
engine's own games, exact counts, or a distribution within its bounds.
"""

from __future__ import annotations

import importlib
import json
import random
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from deap import creator

import ga.analysis.bench
import ga.evolution.refine
import ga.games.executor
from engine import Player, build_player, play_match
from engine.tables import TABLES
from ga.analysis.summary import summarize_run
from ga.cli import cli, main
from ga.config import config_from_dict
from ga.evolution.fitness import evaluate_generation, opponent_labels, plan_generation
from ga.evolution.run import evolve
from ga.evolution.toolbox import build_toolbox
from ga.games.executor import game_map
from ga.games.seeds import game_seeds
from ga.weights import load_weights
from runs import with_changes

SMALL: dict[str, dict[str, Any]] = {
    "experiment": {"name": "small", "seed": 4, "generations": 2},
    "population": {"size": 8, "parents": 4},
    "selection": {"method": "tournament", "tournament_size": 2, "elitism": 0},
    "fitness": {"opponents": ["random", "nhand:1"], "draw": "all", "games_per_opponent": 4, "colours": "both"},
    "compute": {"workers": 1},
}


def small(**sections: dict[str, Any]) -> dict[str, Any]:
    return with_changes(SMALL, **sections)


def write_toml(path: Path, data: dict[str, Any]) -> Path:
    import tomli_w

    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


# --- [experiment] ---------------------------------------------------------------------------------


@pytest.mark.shows("experiment.name", "experiment.description")
def test_a_run_is_named_and_described_by_its_experiment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = evolve(config_from_dict(small(experiment={"name": "alpha", "description": "two words\nand more"})))
    run_dir = Path(result.run_dir).resolve()
    assert run_dir.parent == tmp_path.resolve() / "results" and run_dir.name.startswith("alpha-")
    assert json.loads((run_dir / "manifest.json").read_text())["experiment"] == "alpha"
    summary = summarize_run(run_dir)
    assert "  experiment    alpha" in summary
    assert "  description   two words and more" in summary  # one line, whatever the file holds
    bare = evolve(config_from_dict(small()), out=tmp_path / "bare")
    assert "description" not in summarize_run(bare.run_dir)


# --- [population] ---------------------------------------------------------------------------------


@pytest.mark.shows("population.init_low", "population.init_high")
def test_the_first_population_is_uniform_in_the_initial_range(tmp_path: Path) -> None:
    config = config_from_dict(small(experiment={"generations": 1}, population={"size": 32, "parents": 16,
                                                                                 "init_low": 2.0, "init_high": 3.0}))
    evolve(config, out=tmp_path / "run")
    genes = pd.read_csv(tmp_path / "run" / "population.csv").filter(regex="^[a-h][1-8]$").to_numpy()
    assert genes.shape == (32, 64)  # one generation: no breeding, the population as drawn
    assert genes.min() >= 2.0 and genes.max() < 3.0
    # 2,048 draws of U(2, 3): the mean within 5 standard errors of 2.5, every tenth of the range hit.
    assert abs(genes.mean() - 2.5) < 5 * (1 / np.sqrt(12)) / np.sqrt(genes.size)
    assert len(np.unique(np.floor((genes - 2.0) * 10))) == 10


# --- [crossover] ----------------------------------------------------------------------------------


def _parents(toolbox: Any, first: float, second: float) -> tuple[Any, Any]:
    return creator.Individual([first] * 64), creator.Individual([second] * 64)


@pytest.mark.shows("crossover.gene_probability")
@pytest.mark.parametrize("probability", [0.1, 0.5])
def test_uniform_crossover_swaps_its_share_of_genes(probability: float) -> None:
    config = config_from_dict(small(crossover={"method": "uniform", "gene_probability": probability}))
    toolbox = build_toolbox(config)
    random.seed(1)
    swapped = 0
    for _ in range(200):
        child, _ = toolbox.mate(*_parents(toolbox, 0.0, 1.0))
        swapped += sum(1 for gene in child if gene == 1.0)
    trials = 200 * 64
    assert abs(swapped / trials - probability) < 5 * np.sqrt(probability * (1 - probability) / trials)


@pytest.mark.shows("crossover.alpha", "crossover.method")
@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_blend_crossover_draws_within_alpha_beyond_the_parents(alpha: float) -> None:
    config = config_from_dict(small(crossover={"method": "blend", "alpha": alpha}))
    toolbox = build_toolbox(config)
    random.seed(2)
    genes = np.array([list(child) for _ in range(100) for child in toolbox.mate(*_parents(toolbox, 0.0, 1.0))])
    # Blend (BLX-alpha): each gene uniform in [min - alpha d, max + alpha d] with d the parents' distance.
    assert genes.min() >= -alpha - 1e-12 and genes.max() <= 1 + alpha + 1e-12
    assert genes.min() < -alpha + 0.05 and genes.max() > 1 + alpha - 0.05  # the whole interval is used
    assert abs(genes.mean() - 0.5) < 0.02


# --- [fitness] ------------------------------------------------------------------------------------


def _first_generation(config: Any) -> tuple[list[Any], Any]:
    """Returns a random first population, evaluated, and its games."""
    toolbox = build_toolbox(config)
    random.seed(3)
    population = [toolbox.individual() for _ in range(8)]
    with game_map(1) as games:
        generation = evaluate_generation(population, 0, config, [], games)
    return population, generation.game_log


@pytest.mark.shows("fitness.player", "fitness.eps")
def test_the_individual_plays_as_the_configured_player_with_its_eps() -> None:
    config = config_from_dict(small(fitness={"player": "alphabeta:2", "eps": 0.25, "games_per_opponent": 2}))
    population, log = _first_generation(config)
    labels = opponent_labels(config)
    for k in range(len(log.individual)):
        me = Player("alphabeta", 2, tuple(population[log.individual[k]]), eps=0.25)
        opponent = build_player(labels[log.opponent[k]])
        expected = play_match(me, opponent, log.seeds[k:k + 1], log.colours[k:k + 1])[0]
        assert log.disc_diffs[k] == expected


@pytest.mark.shows("fitness.score")
@pytest.mark.parametrize("score", ["win_rate", "disc_diff"])
def test_fitness_is_the_configured_score_of_the_individuals_games(score: str) -> None:
    config = config_from_dict(small(fitness={"score": score}))
    population, log = _first_generation(config)
    for i, individual in enumerate(population):
        diffs = np.asarray(log.disc_diffs)[np.asarray(log.individual) == i]
        expected = diffs.mean() if score == "disc_diff" else ((diffs > 0).sum() + 0.5 * (diffs == 0).sum()) / diffs.size
        assert individual.fitness.values[0] == pytest.approx(expected)


# --- [compute] and --workers ----------------------------------------------------------------------


def _threads_that_play(monkeypatch: pytest.MonkeyPatch) -> set[int]:
    """Records the threads that play games of shared plans (pool threads and the calling thread)."""
    seen: set[int] = set()
    share = ga.games.executor.play_share

    def recording(games: Any) -> int:
        seen.add(threading.get_ident())
        return share(games)

    monkeypatch.setattr(ga.games.executor, "play_share", recording)
    return seen


@pytest.mark.shows("compute.workers")
@pytest.mark.parametrize("workers", [1, 2])
def test_workers_is_the_number_of_threads_that_play(workers: int, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _threads_that_play(monkeypatch)
    # 2,048 games a generation: enough to be shared whatever a game costs.
    config = config_from_dict(small(fitness={"games_per_opponent": 128}, compute={"workers": workers}))
    evolve(config, out=tmp_path / "run")
    pool_threads = seen - {threading.get_ident()}
    assert len(pool_threads) == workers - 1  # the pool has workers - 1 threads; this thread plays too


@pytest.mark.shows("evolve --workers", "resume --workers")
def test_the_workers_option_sets_the_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _threads_that_play(monkeypatch)
    config = write_toml(tmp_path / "exp.toml", small(fitness={"games_per_opponent": 128}))
    assert main(["evolve", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-plots",
                 "--workers", "2"]) == 0
    assert len(seen - {threading.get_ident()}) == 1  # the config says 1; the option wins
    seen.clear()
    assert main(["resume", str(tmp_path / "run"), "--generations", "3", "--quiet", "--no-plots",
                 "--workers", "1"]) == 0
    assert seen == set()  # one worker: every game in the calling thread, no shared plan handed out


# --- [refine] -------------------------------------------------------------------------------------


@pytest.mark.shows("refine.generations", "refine.candidates", "refine.sigma")
def test_the_refinement_runs_its_generations_of_candidates_drawn_at_sigma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[np.ndarray] = []
    scores = ga.evolution.refine.panel_scores

    def recording(refine: Any, tables: Any, *args: Any, **kwargs: Any) -> Any:
        drawn.append(np.array(tables))
        return scores(refine, tables, *args, **kwargs)

    monkeypatch.setattr(ga.evolution.refine, "panel_scores", recording)
    data = small(experiment={"generations": 2, "held_out_claim": True}, fitness={"opponents": ["nhand:1"]},
                 population={"genome": "sym8"})
    data["refine"] = {"generations": 3, "restarts": 1, "candidates": 40, "sigma": 0.3, "games": 8,
                      "opponents": ["wpc:1@classic"]}
    evolve(config_from_dict(data), out=tmp_path / "run")
    assert len(drawn) == 3 and all(tables.shape == (40, 64) for tables in drawn)
    assert len(pd.read_csv(tmp_path / "run" / "refine.csv")) == 3
    # CMA-ES starts with an isotropic Gaussian of width sigma around the GA's table.
    start = load_weights(tmp_path / "run" / "ga_best_weights.csv")
    deviations = (drawn[0] - start).ravel()
    assert abs(deviations.mean()) < 0.1
    assert 0.8 * 0.3 < deviations.std() < 1.2 * 0.3


# --- command options ------------------------------------------------------------------------------


@pytest.mark.shows("evolve --quiet", "evolve --plots", "resume --quiet", "resume --plots")
def test_quiet_hides_the_progress_and_plots_draws_the_figures(tmp_path: Path) -> None:
    config = write_toml(tmp_path / "exp.toml", small())
    runner = CliRunner()
    loud = runner.invoke(cli, ["evolve", str(config), "--out", str(tmp_path / "a"), "--no-plots"])
    assert loud.exit_code == 0, loud.output
    assert "GA" in loud.stderr and "game" in loud.stderr  # the progress bar, labelled with its stage
    assert not (tmp_path / "a" / "plots").exists()
    quiet = runner.invoke(cli, ["evolve", str(config), "--out", str(tmp_path / "b"), "--quiet", "--plots"])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == ""
    assert {p.name for p in (tmp_path / "b" / "plots").iterdir()} >= {"win_rate.png", "fitness.png",
                                                                        "best_weights.png"}
    resumed = runner.invoke(cli, ["resume", str(tmp_path / "a"), "--generations", "3", "--quiet", "--plots"])
    assert resumed.exit_code == 0 and resumed.stderr == ""
    assert (tmp_path / "a" / "plots" / "win_rate.png").is_file()
    again = runner.invoke(cli, ["resume", str(tmp_path / "b"), "--generations", "3", "--no-plots"])
    assert again.exit_code == 0 and "GA" in again.stderr


@pytest.mark.shows("evaluate --vs", "evaluate --games", "evaluate --seed", "evaluate --eps")
def test_evaluate_plays_the_games_its_options_describe() -> None:
    result = CliRunner().invoke(cli, ["evaluate", "lr06", "--vs", "nhand:1", "--games", "40", "--seed", "7",
                                      "--eps", "0.3"])
    assert result.exit_code == 0, result.output
    (row,) = [line.split() for line in result.stdout.splitlines() if line.startswith("nhand:1")]
    # The oracle: the engine's games, game i with its seed and the evaluated player black when i is even.
    me = Player("nhand_custom", 1, TABLES["lr06"], eps=0.3)
    opponent = Player("nhand", 1, eps=0.3)
    diffs = play_match(me, opponent, game_seeds(7, 0, 40), (np.arange(40) % 2).astype(np.uint8))
    assert row[1:5] == ["40", str((diffs > 0).sum()), str((diffs == 0).sum()), str((diffs < 0).sum())]


@pytest.mark.shows("evaluate --workers")
def test_evaluate_workers_is_the_number_of_threads_that_play(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _threads_that_play(monkeypatch)
    result = CliRunner().invoke(cli, ["evaluate", "lr06", "--vs", "random", "--games", "4000", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert len(seen - {threading.get_ident()}) == 1


@pytest.mark.shows("evaluate --depths")
def test_the_ladder_plays_the_depths_asked_for() -> None:
    result = CliRunner().invoke(cli, ["evaluate", "lr06", "--vs", "sjk11", "--protocol", "ladder", "--depths", "1,3",
                                      "--games", "20", "--seed", "2"])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("alphabeta:")]
    assert [row[0] for row in rows] == ["alphabeta:1@sjk11,eps=0.1", "alphabeta:3@sjk11,eps=0.1"]
    me = Player("alphabeta", 3, TABLES["lr06"], eps=0.1)
    opponent = Player("alphabeta", 3, TABLES["sjk11"], eps=0.1)
    diffs = play_match(me, opponent, game_seeds(2, 1, 20), (np.arange(20) % 2).astype(np.uint8))
    assert rows[1][1:5] == ["20", str((diffs > 0).sum()), str((diffs == 0).sum()), str((diffs < 0).sum())]


@pytest.mark.shows("evaluate --csv", "evaluate --force")
def test_evaluate_csv_holds_the_printed_rows_and_is_replaced_only_with_force(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    args = ["evaluate", "heuristic", "--vs", "random", "--vs", "nmost:1", "--games", "30", "--csv", str(path)]
    runner = CliRunner()
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    frame = pd.read_csv(path)
    assert frame["opponent"].tolist() == ["random", "nmost:1"] and frame["games"].tolist() == [30, 30]
    for _, line in frame.iterrows():
        (printed,) = [row.split() for row in first.stdout.splitlines() if row.startswith(line["opponent"] + " ")]
        assert printed[2:5] == [str(line["wins"]), str(line["draws"]), str(line["losses"])]
    before = path.read_bytes()
    refused = runner.invoke(cli, [*args[:-2], "--seed", "5", "--csv", str(path)])
    assert refused.exit_code == 2 and path.read_bytes() == before
    forced = runner.invoke(cli, [*args[:-2], "--seed", "5", "--csv", str(path), "--force"])
    assert forced.exit_code == 0 and path.read_bytes() != before and pd.read_csv(path)["seed"].tolist() == [5, 5]


@pytest.mark.shows("export --name")
def test_export_names_the_c_and_python_variable() -> None:
    runner = CliRunner()
    c_text = runner.invoke(cli, ["export", "lr06", "--format", "c", "--name", "MY_TABLE"]).stdout
    assert "MY_TABLE[64]" in c_text
    python_text = runner.invoke(cli, ["export", "lr06", "--format", "python", "--name", "my_table"]).stdout
    namespace: dict[str, Any] = {}
    exec(compile(python_text, "<export>", "exec"), namespace)  # noqa: S102 - our own output, in a test
    assert list(namespace["my_table"]) == list(TABLES["lr06"])


@pytest.mark.shows("compare --output", "compare --format")
def test_compare_writes_the_figure_where_and_as_asked(tmp_path: Path) -> None:
    evolve(config_from_dict(small()), out=tmp_path / "run")
    target = tmp_path / "figures" / "both.svg"
    target.parent.mkdir()
    result = CliRunner().invoke(cli, ["compare", str(tmp_path / "run"), str(tmp_path / "run"), "-o", str(target),
                                      "--format", "svg"])
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert not (tmp_path / "results").exists()


@pytest.mark.shows("bench --quick", "bench --repeat")
def test_bench_passes_its_sizes_and_repeats_to_every_measurement(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[bool, int]] = []

    def measure(quick: bool = False, repeat: int = 5, groups: Any = (), ffo: Any = None, network: Any = None) -> Any:
        asked.append((quick, repeat))
        return iter(())

    monkeypatch.setattr(ga.analysis.bench, "measure", measure)
    monkeypatch.setattr(importlib.import_module("ga.cli.bench"), "_loop_experiment", lambda: None)
    monkeypatch.setattr(importlib.import_module("ga.cli.bench"), "_network_loop_experiment", lambda: None)
    assert CliRunner().invoke(cli, ["bench", "--quick", "--repeat", "3"]).exit_code == 0
    assert CliRunner().invoke(cli, ["bench"]).exit_code == 0
    assert asked == [(True, 3), (False, 5)]
    monkeypatch.undo()
    measured = ga.analysis.bench.perft_rate(5, repeat=3)
    assert len(measured.runs) == 3  # the repeats are the runs the median is taken over


@pytest.mark.shows("play --seed", "play --black")
def test_play_seeds_the_computers_choices_and_black_moves_first() -> None:
    def reply(*options: str) -> str:
        result = CliRunner().invoke(cli, ["play", "random", *options], input="d3\n")
        assert result.exit_code == 0, result.output
        assert "You play black" in result.output
        assert result.output.index("Your move: ") < result.output.index("The computer plays")  # black moves first
        return result.output.split("The computer plays", 1)[1].split()[0].rstrip(".")

    replies = {seed: reply("--black", "--seed", str(seed)) for seed in range(12)}
    assert all(reply("--seed", str(seed)) == move for seed, move in list(replies.items())[:3])  # same seed, same game
    assert set(replies.values()) == {"c3", "e3", "c5"}  # the random mover's three answers to d3, each seen

"""The refinement stage: CMA-ES from the run's best table on a held-in panel, with restarts."""
from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import Player, play_match
from ga.evolution import refine
from ga.config import ConfigError, RefineConfig, config_from_dict
from ga.evolution import stages
from ga.evolution.run import evolve, planned_games, resume, stages_left
from ga.evolution.stages import StagePlan
from ga.evolution.genome import expand
from ga.analysis.stats import MatchSummary
from ga.weights import load_weights
from runs import assert_same_run, generations_without_timings
from test_resume import SignalAfter

ROOT = Path(__file__).resolve().parent.parent


def tiny(**refine_keys: Any) -> dict[str, Any]:
    """A tiny sym8 experiment refined for 3 generations against one opponent, 2 restarts and random tables."""
    return {
        "experiment": {"name": "tiny", "seed": 3, "generations": 3, "held_out_claim": True},
        "population": {"size": 6, "parents": 4, "genome": "sym8"},
        "selection": {"method": "tournament", "tournament_size": 2, "elitism": 1},
        "fitness": {"opponents": ["nhand:1"], "draw": "all", "games_per_opponent": 2, "colours": "both"},
        "compute": {"workers": 1},
        "refine": {"generations": 3, "restarts": 2, "candidates": 4, "games": 40,
                   "opponents": ["wpc:1@classic"]} | refine_keys,
    }


@pytest.fixture(scope="module")
def refined(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("refined") / "run"
    assert evolve(config_from_dict(tiny()), out=run_dir).finished
    return run_dir


# --- config ---------------------------------------------------------------------------------------


def test_refine_keys_parse_and_default_to_off() -> None:
    assert config_from_dict({}).refine == RefineConfig()
    assert RefineConfig().generations == 0
    config = config_from_dict(tiny(sigma=0.2, weight_random_tables=0.0))
    assert config.refine.sigma == 0.2 and config.refine.opponents == ("wpc:1@classic",)


@pytest.mark.parametrize("keys, message", [
    ({"opponents": ["wpc:1@lr06"]}, "refine.opponents[0]': opponent 'wpc:1@lr06' plays as held-out 'lr06' (by name)"),
    ({"opponents": ["random"]}, "plays as held-out 'random' (the random mover)"),
    ({"opponents": []}, "'refine.opponents' must list at least one player spec"),
    ({"restarts": 0}, "'refine.restarts' must be at least 1"),
    ({"weight_opponents": 0.0, "weight_restarts": 0.0, "weight_random_tables": 0.0}, "must not all be 0"),
    ({"sigmaa": 0.1}, "did you mean 'refine.sigma'"),
    ({"candidates": 1}, "'refine.candidates' must be between 2 and 1000, got 1"),
    ({"average_last": 4}, "'refine.average_last' must be at most refine.generations (3), got 4"),
    ({"average_last": 0}, "'refine.average_last' must be"),
    ({"opponents": "wpc:1@classic"}, "'refine.opponents' must be an array of player specs"),
])
def test_bad_refine_keys_are_named(keys: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=None) as error:
        config_from_dict(tiny(**keys))
    assert message in str(error.value)


def test_phase_genome_cannot_be_refined() -> None:
    data = tiny()
    data["population"]["genome"] = "phase"
    with pytest.raises(ConfigError, match="refinement plays 64-weight tables"):
        config_from_dict(data)


# --- the panel ------------------------------------------------------------------------------------


def panel_for(config: Any) -> refine.Panel:
    tables = [np.linspace(-1, 1, 64), np.cos(np.arange(64))]
    return refine.Panel.build(config.refine, tables)


@pytest.mark.shows("refine.games", "refine.eps", "refine.opponents")
def test_a_generation_plays_new_games_the_same_for_every_candidate() -> None:
    config = config_from_dict(tiny(games=300))
    panel = panel_for(config)
    first = refine.generation_tasks(config.refine, panel, 3, 0)
    again = refine.generation_tasks(config.refine, panel, 3, 0)
    later = refine.generation_tasks(config.refine, panel, 3, 1)
    seeds = [np.concatenate([t[3] for t in tasks]) for tasks in (first, again, later)]
    assert np.array_equal(seeds[0], seeds[1]) and not np.array_equal(seeds[0], seeds[2])
    games = {group: sum(len(t[3]) for t in first if t[0] == group) for group in refine.GROUPS}
    # 300 games against the one opponent, 150 against each restart, 150 random tables twice.
    assert games == {"opponents": 300, "restarts": 300, "random_tables": 300}
    assert all(len(t[3]) % 2 == 0 for t in first)  # every slice alternates colours
    tables = [tuple(t[2].weights) for t in first if t[0] == "random_tables"]
    assert len(set(tables)) == 150 and all(t[2].eps == 0.0 for t in first if t[0] == "random_tables")
    assert all(t[2].eps == config.refine.eps for t in first if t[0] != "random_tables")


@pytest.mark.shows("refine.weight_restarts")
def test_a_group_without_weight_is_not_played() -> None:
    config = config_from_dict(tiny(weight_restarts=0.0))
    tasks = refine.generation_tasks(config.refine, panel_for(config), 3, 0)
    assert {t[0] for t in tasks} == {"opponents", "random_tables"}


@pytest.mark.shows("refine.eps", "refine.weight_opponents", "refine.weight_restarts", "refine.weight_random_tables")
def test_panel_scores_are_the_scores_of_the_games_played() -> None:
    config = config_from_dict(tiny(games=60, eps=0.2))
    tasks = refine.generation_tasks(config.refine, panel_for(config), 5, 2)
    tables = [np.cos(np.arange(64) * 0.3), np.sin(np.arange(64))]
    scores = refine.panel_scores(config.refine, tables, tasks, workers=1)
    assert np.array_equal(scores, refine.panel_scores(config.refine, tables, tasks, workers=2))
    for row, table in enumerate(tables):
        for column, group in enumerate(refine.GROUPS):
            # The learner plays at the panel's eps, except against random tables (eps 0, as in expected utility).
            learner = Player("nhand_custom", 1, table, 0.0 if group == "random_tables" else 0.2)
            diffs = np.concatenate([play_match(learner, t[2], t[3], (np.arange(len(t[3])) % 2).astype(np.uint8))
                                    for t in tasks if t[0] == group])
            assert scores[row, column] == MatchSummary.from_disc_diffs(group, diffs.tolist()).score
    weighted = (scores[:, 0] * 1 + scores[:, 1] * 1 + scores[:, 2] * 2) / 4
    assert np.allclose(refine.combined(config.refine, scores), weighted)


def test_restart_seeds_are_distinct_and_derived_from_the_run_seed() -> None:
    seeds = [refine.restart_seed(7, k) for k in range(1, 9)]
    assert len(set(seeds)) == 8 and 7 not in seeds
    assert seeds == [refine.restart_seed(7, k) for k in range(1, 9)]
    assert refine.restart_seed(8, 1) != seeds[0]


# --- the stage in a run ---------------------------------------------------------------------------


def test_a_refined_run_keeps_the_gas_table_and_writes_the_centroid(refined: Path, tmp_path: Path) -> None:
    plain = tiny()
    del plain["refine"]
    evolve(config_from_dict(plain), out=tmp_path / "plain")
    # The GA part is the same run: its best table is kept in ga_best_weights.csv.
    assert (refined / "ga_best_weights.csv").read_bytes() == (tmp_path / "plain" / "best_weights.csv").read_bytes()
    rows = generations_without_timings(refined, "refine.csv")
    assert [row[0] for row in rows[1:]] == ["0", "1", "2"]
    header = rows[0]
    last = dict(zip(header, rows[-1]))
    genes = [float(last[f"centroid_{i}"]) for i in range(10)]
    assert np.array_equal(load_weights(refined / "best_weights.csv"), expand(genes, "sym8"))
    assert not np.allclose(load_weights(refined / "best_weights.csv"), load_weights(refined / "ga_best_weights.csv"))
    saved = json.loads((refined / "manifest.json").read_text())
    assert saved["status"] == "finished" and saved["refine_generations"] == 3
    assert saved["refine_games"] == sum(int(dict(zip(header, row))["games"]) for row in rows[1:])


@pytest.mark.shows("refine.average_last")
def test_the_refined_table_is_the_mean_centroid_of_the_last_generations(refined: Path, tmp_path: Path) -> None:
    evolve(config_from_dict(tiny(average_last=2)), out=tmp_path / "averaged")
    rows = generations_without_timings(tmp_path / "averaged", "refine.csv")
    # The same search (the key changes only what is kept of it) ...
    assert rows == generations_without_timings(refined, "refine.csv")
    centroids = np.array([[float(dict(zip(rows[0], row))[f"centroid_{i}"]) for i in range(10)] for row in rows[1:]])
    averaged = load_weights(tmp_path / "averaged" / "best_weights.csv")
    # ... and the result is the mean of the last two centroids, not the final one.
    assert np.array_equal(averaged, expand(centroids[-2:].mean(axis=0).tolist(), "sym8"))
    assert not np.allclose(averaged, load_weights(refined / "best_weights.csv"))


def test_the_figures_name_the_centroid_the_run_kept(refined: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from ga.analysis import plots

    evolve(config_from_dict(tiny(average_last=2)), out=tmp_path / "averaged")
    titles: list[str] = []
    legends: list[str] = []
    weights_figure, refine_figure = plots.plot_weights, plots._refine_figure

    def record_title(table: Any, path: Path, title: str, **keys: Any) -> Any:
        titles.append(title)
        return weights_figure(table, path, title=title, **keys)

    def record_legend(*args: Any) -> Any:
        figure = refine_figure(*args)
        legends.extend(text.get_text() for text in figure.axes[0].get_legend().get_texts())
        legends.extend(text.get_text() for text in figure.axes[0].texts)
        return figure

    monkeypatch.setattr(plots, "plot_weights", record_title)
    monkeypatch.setattr(plots, "_refine_figure", record_legend)
    for run_dir, kept in ((refined, "CMA-ES's final centroid"),
                          (tmp_path / "averaged", "CMA-ES's mean centroid of its last 2 generations")):
        titles.clear()
        legends.clear()
        plots.plot_run(run_dir, tmp_path / f"plots-{run_dir.name}", figures=["best_weights", "refine"])
        assert f"The refined table ({kept}): " in titles[0]
        assert any(text.startswith(f"kept: {kept}, which no generation plays") for text in legends)
        # Each line says what it is: the weighted mean of the candidates, the best candidate, its group scores.
        assert legends[:3] == ["the candidates' mean panel score (weighted: opponents 1, restarts 1, random tables 2)",
                               "the best candidate's panel score", "the best candidate's score vs opponents"]


@pytest.mark.shows("refine.restarts")
def test_restarts_are_runs_of_the_experiment_with_derived_seeds(refined: Path) -> None:
    for k in (1, 2):
        saved = config_from_dict(__import__("tomllib").loads((refined / "restarts" / str(k) / "config.toml").read_text()))
        assert saved.experiment.seed == refine.restart_seed(3, k)
        assert saved.refine.generations == 0 and saved.experiment.generations == 3
        assert json.loads((refined / "restarts" / str(k) / "manifest.json").read_text())["status"] == "finished"


def test_a_refined_run_is_reproducible_with_any_number_of_workers(refined: Path, tmp_path: Path) -> None:
    evolve(config_from_dict(tiny()), out=tmp_path / "again", workers=2)
    assert_same_run(tmp_path / "again", refined)
    for k in (1, 2):
        assert_same_run(tmp_path / "again" / "restarts" / str(k), refined / "restarts" / str(k))


@pytest.mark.parametrize("stop_at", [0, 1])
def test_an_interrupted_refinement_resumes_to_the_same_files(refined: Path, tmp_path: Path, stop_at: int) -> None:
    run_dir = tmp_path / "run"
    stopper = SignalAfter(stop_at, signal.SIGINT)
    seen: list[int] = []

    def bar(stage: Any) -> Any:
        # Restarts' bars count the GA's generations (3); the refinement's is the last one asked for.
        seen.append(stage.total)
        return stopper if len(seen) == 4 else SignalAfter(-1, signal.SIGINT)

    original = stopper.update
    stopper.update = lambda record: original({"generation": len(refine_rows(run_dir)) - 1})  # type: ignore[method-assign]
    result = evolve(config_from_dict(tiny()), out=run_dir, progress=bar)
    assert not result.finished
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "interrupted"
    assert len(refine_rows(run_dir)) == stop_at + 1
    assert resume(run_dir).finished
    assert_same_run(run_dir, refined)


def test_a_stopped_refinement_says_how_many_generations_are_done_and_its_stages_left(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    seen: list[int] = []

    def bar(stage: Any) -> Any:  # the GA, its restarts, then the refinement (stopped after its generation 1)
        seen.append(stage.total)
        stopper = SignalAfter(1 if len(seen) == 4 else -1, signal.SIGINT)
        steps = iter(range(stage.total))
        update = stopper.update
        stopper.update = lambda record: update({"generation": next(steps)})  # type: ignore[method-assign]
        return stopper

    config = config_from_dict(tiny())
    result = evolve(config, out=run_dir, progress=bar)
    assert not result.finished and result.stopped_in == "refinement, 2 of 3 generations done"
    games = stages.refine_generation_games(config.refine)
    assert stages_left(config, run_dir, 3) == [StagePlan("refinement", stages.REFINEMENT, games)]
    # A GA extended past its end starts every stage after it again (restarts too: they run to the new length).
    longer = stages_left(config_from_dict(tiny() | {"experiment": tiny()["experiment"] | {"generations": 4}}),
                         run_dir, 3)
    assert [stage.label for stage in longer] == ["GA", "restart 1/2", "restart 2/2", "refinement"]
    assert longer[-1].games == 3 * games


def test_the_stages_of_a_new_run_and_what_a_game_of_each_costs() -> None:
    data = tiny()
    data["final"] = {"games": 2}
    config = config_from_dict(data)
    plan = stages_left(config, Path("/nonexistent/run"))
    per_generation = 6 * 2  # 6 individuals, one opponent, 2 games
    tournament = stages.tournament_games(config)
    # 6 individuals, their mean and a champion of each of the 3 generations: a round robin, and the opponent.
    assert tournament == 2 * (10 * 9 // 2 + 10 * 1)
    assert plan == [
        StagePlan("GA", stages.GENERATIONS, 3 * per_generation),
        StagePlan("final tournament", stages.TOURNAMENT, tournament),
        StagePlan("restart 1/2", stages.GENERATIONS, 3 * per_generation),
        StagePlan("restart 1/2, final tournament", stages.TOURNAMENT, tournament),
        StagePlan("restart 2/2", stages.GENERATIONS, 3 * per_generation),
        StagePlan("restart 2/2, final tournament", stages.TOURNAMENT, tournament),
        StagePlan("refinement", stages.REFINEMENT, 3 * 4 * 40 * 3),
    ]
    assert sum(stage.games for stage in plan) == sum(planned_games(config).values())
    costs = stages.sample_costs(config)
    assert set(costs) == {stages.GENERATIONS, stages.TOURNAMENT, stages.REFINEMENT}
    assert all(0 < cost < 1 for cost in costs.values())


def test_resuming_a_finished_refined_run_says_so_and_writes_nothing(refined: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from ga.cli import main

    run_dir = tmp_path / "run"
    shutil.copytree(refined, run_dir)
    before = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in run_dir.rglob("*") if path.is_file()}
    assert main(["resume", str(run_dir)]) == 0
    captured = capsys.readouterr()
    assert captured.out == (f"'{run_dir}' is finished (3 of 3 generations done, and every stage after them): "
                            f"nothing to resume, nothing written. To extend it: othello-ga resume {run_dir} "
                            "--generations N, with N more than 3\n")
    assert captured.err == ""  # no bar, no figures: nothing ran
    after = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in run_dir.rglob("*") if path.is_file()}
    assert after == before


def refine_rows(run_dir: Path) -> list[list[str]]:
    path = run_dir / "refine.csv"
    return generations_without_timings(run_dir, "refine.csv")[1:] if path.exists() else []


def test_an_interrupted_restart_resumes_to_the_same_files(refined: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    calls: list[int] = []

    def bar(stage: Any) -> Any:
        calls.append(stage.total)
        return SignalAfter(0 if len(calls) == 2 else -1, signal.SIGINT)  # the first restart, after generation 0

    result = evolve(config_from_dict(tiny()), out=run_dir, progress=bar)
    assert not result.finished and not (run_dir / "refine.csv").exists()
    assert resume(run_dir).finished
    assert_same_run(run_dir, refined)
    for k in (1, 2):
        assert_same_run(run_dir / "restarts" / str(k), refined / "restarts" / str(k))


def test_the_refined_table_scores_better_on_the_panel_than_the_start(tmp_path: Path) -> None:
    # A weak start (a 1-generation GA) against random tables only: CMA-ES must move towards stronger tables.
    data = tiny(generations=12, candidates=8, games=200, sigma=0.3, weight_opponents=0.0, weight_restarts=0.0,
                restarts=0, opponents=[])
    data["experiment"]["generations"] = 1
    config = config_from_dict(data)
    evolve(config, out=tmp_path / "run")
    tasks = refine.generation_tasks(config.refine, refine.Panel.build(config.refine, []), 99, 0)
    tasks = [t for t in tasks] + refine.generation_tasks(config.refine, refine.Panel.build(config.refine, []), 99, 1)
    start, final = (load_weights(tmp_path / "run" / name) for name in ("ga_best_weights.csv", "best_weights.csv"))
    before, after = refine.panel_scores(config.refine, [start, final], tasks, workers=2)[:, 2]
    assert after > before + 0.05, (before, after)


def test_evaluate_counts_the_panel_as_training() -> None:
    from ga.analysis.evaluation import trained_on_random_tables, training_overlap

    data = tiny(opponents=["wpc:1@heuristic"])
    data["experiment"]["held_out_claim"] = False  # heuristic is held out: allowed only without the claim
    config = config_from_dict(data)
    assert training_overlap(config, ["wpc:1@heuristic", "wpc:1@classic"]) == ["wpc:1@heuristic"]
    assert trained_on_random_tables(config)
    assert not trained_on_random_tables(config_from_dict(tiny(weight_random_tables=0.0)))
    off = tiny()
    off["refine"]["generations"] = 0
    assert training_overlap(config_from_dict(off | {"experiment": data["experiment"]}), ["wpc:1@classic"]) == []
    assert not trained_on_random_tables(config_from_dict(off))


def test_plots_and_summary_show_the_refinement(refined: Path, tmp_path: Path) -> None:
    from ga.analysis.plots import RUN_FIGURES, plot_run
    from ga.analysis.summary import summarize_run

    written = plot_run(refined, tmp_path / "plots")
    assert [path.stem for path in written] == [*RUN_FIGURES, "ga_best_weights", "refine"]
    plain = tiny()
    del plain["refine"]
    evolve(config_from_dict(plain), out=tmp_path / "plain")
    with pytest.warns(UserWarning, match=r"has no \[refine\]\); skipping refine"):
        assert plot_run(tmp_path / "plain", tmp_path / "plain-plots", figures=["refine"]) == []
    assert "refine" not in [path.stem for path in plot_run(tmp_path / "plain", tmp_path / "all-plots")]
    text = summarize_run(refined)
    games = json.loads((refined / "manifest.json").read_text())["refine_games"]
    assert f"refinement    3 CMA-ES generations, {games:,} games" in text
    assert "ga_best_weights.csv" in text and "refine.csv" in text
    assert "refinement" not in summarize_run(tmp_path / "plain")


def test_evaluate_warns_that_a_refined_run_trained_on_its_panel(refined: Path) -> None:
    from click.testing import CliRunner

    from ga.cli.evaluate import evaluate

    runner = CliRunner()
    eu = runner.invoke(evaluate, [str(refined), "--protocol", "eu", "--games", "10", "--workers", "1"])
    assert eu.exit_code == 0, eu.output
    assert "trained against random U(-1, 1) tables (fitness.random_table_games or the [refine] panel)" in eu.stderr
    classic = runner.invoke(evaluate, [str(refined), "--vs", "wpc:1@classic", "--games", "10", "--workers", "1"])
    assert classic.exit_code == 0, classic.output
    assert "'wpc:1@classic' was a training opponent" in classic.stderr


def test_export_gives_the_table_before_the_refinement(refined: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ga.cli.export import export
    from ga.weights import parse_weights

    runner = CliRunner()
    before = runner.invoke(export, [str(refined), "--format", "csv", "--which", "ga_best"])
    assert before.exit_code == 0, before.output
    assert np.array_equal(parse_weights(before.stdout, "csv"), load_weights(refined / "ga_best_weights.csv"))
    plain = tiny()
    del plain["refine"]
    evolve(config_from_dict(plain), out=tmp_path / "plain")
    missing = runner.invoke(export, [str(tmp_path / "plain"), "--format", "csv", "--which", "ga_best"])
    assert missing.exit_code == 2
    assert "has no ga_best_weights.csv (it has no [refine] stage, or has not finished it); use --which best" in missing.output
    reference = runner.invoke(export, ["reference", "--format", "csv", "--which", "ga_best"])
    assert reference.exit_code == 2 and "use --which strong or --which seed2021" in reference.output


def test_the_plot_helper_draws_the_refine_figure_too(refined: Path, tmp_path: Path) -> None:
    import shutil

    from ga.analysis.plothelper import PlotHelper
    from ga.analysis.plots import RUN_FIGURES

    run_dir = tmp_path / "run"
    shutil.copytree(refined, run_dir, ignore=shutil.ignore_patterns("plots"))
    with PlotHelper() as helper:
        written = helper.draw(run_dir)
    assert [path.stem for path in written] == [*RUN_FIGURES, "ga_best_weights", "refine"]
    assert (run_dir / "plots" / "refine.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_searching_run_refines_at_its_depths_against_opponents_at_the_same_depth() -> None:
    data = tiny(games=40, eps=0.1)
    data["fitness"] = {"player": "alphabeta:1", "depths": [1, 3], "opponents": ["alphabeta:2@classic,eps=0.1"]}
    data["refine"]["opponents"] = ["alphabeta:2@classic,eps=0.1"]
    config = config_from_dict(data)
    assert refine.refine_depths(config) == (1, 3)
    panel = refine.Panel.build(config.refine, [np.linspace(-1, 1, 64)], refine.refine_depths(config))
    tasks = refine.generation_tasks(config.refine, panel, 3, 0)
    for group, _, player, seeds, depth in tasks:
        assert depth in (1, 3)
        assert player.kind == "alphabeta" and player.depth == depth  # classic, the restart and random tables alike
        assert player.eps == (0.0 if group == "random_tables" else 0.1)
    tables = [np.cos(np.arange(64) * 0.3)]
    scores = refine.panel_scores(config.refine, tables, tasks, workers=2)
    for column, group in enumerate(refine.GROUPS):
        diffs = np.concatenate([
            play_match(Player("alphabeta", t[4], tables[0], 0.0 if group == "random_tables" else 0.1), t[2], t[3],
                       (np.arange(len(t[3])) % 2).astype(np.uint8))
            for t in tasks if t[0] == group])
        assert scores[0, column] == MatchSummary.from_disc_diffs(group, diffs.tolist()).score


@pytest.mark.shows("refine.depths")
def test_a_searching_run_refines_at_the_depths_refine_depths_names() -> None:
    data = tiny(games=40, eps=0.1, depths=[1])
    data["fitness"] = {"player": "alphabeta:1", "depths": [1, 3], "opponents": ["alphabeta:2@classic,eps=0.1"]}
    data["refine"]["opponents"] = ["alphabeta:2@classic,eps=0.1"]
    config = config_from_dict(data)
    assert refine.refine_depths(config) == (1,)
    panel = refine.Panel.build(config.refine, [np.linspace(-1, 1, 64)], refine.refine_depths(config))
    tasks = refine.generation_tasks(config.refine, panel, 3, 0)
    assert {(t[4], t[2].depth) for t in tasks} == {(1, 1)}  # every game at depth 1, the opponents too
    data["refine"]["depths"] = []
    assert refine.refine_depths(config_from_dict(data)) == (1, 3)  # empty: the run's own


@pytest.mark.parametrize(("player", "depths", "message"), [
    ("nhand_custom:1", [1], "'refine.depths' sets the depths a searching player is refined at"),
    ("alphabeta:1", [0], "'refine.depths[0]' must be between 1 and 12, got 0"),
    ("alphabeta:1", [2, 13], "'refine.depths[1]' must be between 1 and 12, got 13"),
])
def test_refine_depths_are_checked(player: str, depths: list[int], message: str) -> None:
    data = tiny(depths=depths)
    data["fitness"] = {"player": player, "opponents": ["nhand:1"]}
    with pytest.raises(ConfigError, match=re.escape(message)):
        config_from_dict(data)


def test_a_one_ply_run_refines_at_one_ply() -> None:
    assert refine.refine_depths(config_from_dict(tiny())) == ()


@pytest.mark.parametrize("genome", ["sym8", "phase"])
def test_what_a_game_costs_is_sampled_with_the_features_an_evaluation_evolves(genome: str) -> None:
    # The sample tables carry one column per feature (per phase): the engine refuses tables of squares alone.
    data = tiny()
    del data["refine"]  # the refinement plays tables of squares alone
    data["final"] = {"games": 2}
    data["population"] = data["population"] | {"genome": genome, "features": ["mobility", "parity"]}
    costs = stages.sample_costs(config_from_dict(data))
    assert set(costs) == {stages.GENERATIONS, stages.TOURNAMENT}
    assert all(0 < cost < 1 for cost in costs.values())


def test_show_counts_every_stage_s_games_as_evolve_does(tmp_path: Path) -> None:
    # show said 2,110,848 games for strong.toml (its GA's), evolve 46,076,424 (every stage's): one number now,
    # and show names what it covers.
    import tomli_w

    from ga.analysis.summary import summarize_run

    config = tmp_path / "refined.toml"
    config.write_text(tomli_w.dumps(tiny()))
    out = tmp_path / "run"
    process = subprocess.run([sys.executable, "-m", "ga.cli", "evolve", str(config), "--out", str(out), "--quiet",
                              "--no-plots"], capture_output=True, text=True, cwd=ROOT, check=True)
    played = int(re.search(r"\), ([\d,]+) games; results in", process.stdout).group(1).replace(",", ""))
    (line,) = [line for line in summarize_run(out).splitlines() if line.startswith("  games played")]
    manifest = json.loads((out / "manifest.json").read_text())
    restarts = sum(json.loads((path / "manifest.json").read_text())["games_played"]
                   + json.loads((path / "manifest.json").read_text()).get("final_games", 0)
                   for path in (out / "restarts").iterdir())
    stages = [("GA", manifest["games_played"]), *([("final tournament", manifest["final_games"])]
                                                    if "final_games" in manifest else []),
              ("restarts", restarts), ("refinement", manifest["refine_games"])]
    assert line == f"  games played  {played:,} in all (" + ", ".join(f"{k} {v:,}" for k, v in stages) + ")"
    assert sum(v for _, v in stages) == played

"""Evolution end to end: tiny runs, the files they write and their reproducibility."""
from __future__ import annotations

import copy
import csv
import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import tomli_w
from deap import creator

import ga.games.executor
from engine import Player, build_player, play_match
from ga.config import Config, ConfigError, config_from_dict, load_config
from ga.evolution.run import check_plan, evolve, memory_limit
from ga.evolution.toolbox import breed, build_toolbox, clone
from ga.evolution.fitness import opponent_labels
import io

from hypothesis import given, strategies as st

from ga.rundir.layout import GAME_COLUMNS, RunDirError, generation_columns, weight_columns
from ga.rundir.writer import GameLog
from runs import assert_same_run, reproducible_state, with_changes

RUN_FILES = {
    "config.toml", "generations.csv", "games.csv", "population.csv", "best_weights.csv",
    "mean_weights.csv", "hall_of_fame.csv", "manifest.json", "checkpoint.json", ".lock",
}
# Files that must be byte-identical between two runs of the same experiment
# (generations.csv too, once its timing columns are dropped).


def tiny(**sections: dict[str, Any]) -> dict[str, Any]:
    """Returns a tiny experiment (8 individuals, 3 generations, 32 games a generation) with changes."""
    return with_changes({
        "experiment": {"name": "tiny", "seed": 1, "generations": 3},
        "population": {"size": 8, "parents": 4},
        "selection": {"method": "tournament", "tournament_size": 2, "elitism": 1},
        "fitness": {"opponents": ["random", "nhand:1"], "draw": "all", "games_per_opponent": 2, "colours": "both"},
        "compute": {"workers": 1},
    }, **sections)


def tiny_config(**sections: dict[str, Any]) -> Config:
    return config_from_dict(tiny(**sections))


def read_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]








def load_table(path: Path) -> np.ndarray:
    return np.loadtxt(path, delimiter=",", comments="#", ndmin=2)


# --- the files of a run -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, Path, Any]:
    config = tiny_config(
        experiment={"generations": 4},
        fitness={"coevolution": 1, "hall_of_fame_games": 1, "hall_of_fame_size": 3},
    )
    run_dir = tmp_path_factory.mktemp("evolve") / "run"
    result = evolve(config, out=run_dir)
    return config, run_dir, result


def test_run_writes_every_file(finished_run: tuple[Config, Path, Any]) -> None:
    _, run_dir, result = finished_run
    assert {p.name for p in run_dir.iterdir()} == RUN_FILES
    assert result.finished and result.generations_done == 4
    assert result.run_dir == run_dir


def test_generations_csv_schema_and_totals(finished_run: tuple[Config, Path, Any]) -> None:
    config, run_dir, _ = finished_run
    frame = pd.read_csv(run_dir / "generations.csv")
    labels = opponent_labels(config)
    assert labels == ["random", "nhand:1", "population", "hall_of_fame"]
    assert list(frame.columns) == generation_columns(labels)
    assert frame["generation"].tolist() == [0, 1, 2, 3]
    assert (frame["wins"] + frame["draws"] + frame["losses"] == frame["games"]).all()
    np.testing.assert_allclose(frame["win_rate"], (frame["wins"] + frame["draws"] / 2) / frame["games"])
    # Generation 0 has no champions yet: 8 x (4 + 1) games, then 8 x (4 + 1 + 1).
    assert frame["games"].tolist() == [40, 48, 48, 48]
    assert np.isnan(frame.loc[0, "win_rate_vs_hall_of_fame"])
    assert frame.loc[1:, "win_rate_vs_hall_of_fame"].notna().all()
    assert (frame["fitness_min"] <= frame["fitness_mean"]).all() and (frame["fitness_mean"] <= frame["fitness_max"]).all()
    assert (frame["diversity"] > 0).all()


def test_games_csv_schema_and_agreement_with_generations_csv(finished_run: tuple[Config, Path, Any]) -> None:
    config, run_dir, _ = finished_run
    generations = pd.read_csv(run_dir / "generations.csv")
    header, _ = read_rows(run_dir / "games.csv")
    assert header == GAME_COLUMNS == ["generation", "individual", "opponent", "colour", "seed", "disc_diff"]
    games = pd.read_csv(run_dir / "games.csv", dtype={"seed": str})
    assert len(games) == generations["games"].sum()
    assert games.groupby("generation").size().tolist() == generations["games"].tolist()
    assert set(games["colour"]) == {"black", "white"}
    assert set(games["opponent"]) == set(opponent_labels(config))
    assert games["individual"].between(0, 7).all()
    assert games["disc_diff"].between(-64, 64).all()
    assert all(0 <= int(seed) < 2**64 for seed in games["seed"])
    for generation, played in games.groupby("generation"):
        row = generations.loc[generation]
        diffs = played["disc_diff"]
        assert (int((diffs > 0).sum()), int((diffs == 0).sum()), int((diffs < 0).sum())) == (
            row["wins"], row["draws"], row["losses"])
        for label, versus in played.groupby("opponent"):
            rate = ((versus["disc_diff"] > 0).sum() + 0.5 * (versus["disc_diff"] == 0).sum()) / len(versus)
            assert rate == pytest.approx(row[f"win_rate_vs_{label}"])
        # Every individual is re-evaluated (reevaluate_elites defaults to true): its fitness is its win rate.
        per_individual = played.groupby("individual")["disc_diff"].apply(
            lambda d: ((d > 0).sum() + 0.5 * (d == 0).sum()) / len(d))
        assert len(per_individual) == 8
        assert per_individual.mean() == pytest.approx(row["fitness_mean"])
        assert per_individual.max() == pytest.approx(row["fitness_max"])
        assert per_individual.min() == pytest.approx(row["fitness_min"])


def test_games_csv_rows_replay_from_the_final_population(finished_run: tuple[Config, Path, Any]) -> None:
    # The last generation's individuals are population.csv's rows: each game against a fixed
    # opponent, replayed from its seed and colour, gives the recorded disc difference.
    _, run_dir, _ = finished_run
    population = np.array(read_rows(run_dir / "population.csv")[1], dtype=np.float64)
    games = pd.read_csv(run_dir / "games.csv", dtype={"seed": str})
    last = games[(games["generation"] == 3) & games["opponent"].isin(["random", "nhand:1"])]
    assert len(last) == 8 * 4
    for row in last.itertuples():
        me = Player("nhand_custom", 1, tuple(population[row.individual]))
        colour = {"black": 0, "white": 1}[row.colour]
        (diff,) = play_match(me, build_player(row.opponent), np.array([int(row.seed)], dtype=np.uint64), [colour])
        assert diff == row.disc_diff


@given(labels=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=4),
       games=st.integers(0, 30), seed=st.integers(0, 2**32 - 1))
def test_game_log_text_is_what_csv_writer_writes(labels: list[str], games: int, seed: int) -> None:
    # Labels are player specs and weights paths: commas, quotes and newlines must be quoted as csv does.
    rng = np.random.default_rng(seed)
    log = GameLog(rng.integers(0, 10**6), rng.integers(0, 500, games), rng.integers(0, len(labels), games), labels,
                  rng.integers(0, 2, games).astype(np.uint8), rng.integers(0, 2**64, games, dtype=np.uint64),
                  rng.integers(-64, 65, games).astype(np.int32))
    expected = io.StringIO()
    csv.writer(expected, lineterminator="\n").writerows(
        (log.generation, i, labels[o], ("black", "white")[c], s, d) for i, o, c, s, d in zip(
            log.individual.tolist(), log.opponent.tolist(), log.colours.tolist(), log.seeds.tolist(),
            log.disc_diffs.tolist()))
    assert log.csv_text() == expected.getvalue()


@pytest.mark.parametrize("colours", ["black", "white"])
def test_games_csv_colour_is_the_individuals_colour(tmp_path: Path, colours: str) -> None:
    evolve(tiny_config(experiment={"generations": 1}, fitness={"colours": colours}), out=tmp_path / "run")
    games = pd.read_csv(tmp_path / "run" / "games.csv")
    assert set(games["colour"]) == {colours}


def test_weight_files(finished_run: tuple[Config, Path, Any]) -> None:
    _, run_dir, _ = finished_run
    header, rows = read_rows(run_dir / "population.csv")
    assert header == weight_columns(64) and header[:3] == ["a1", "b1", "c1"] and header[-1] == "h8"
    population = np.array(rows, dtype=np.float64)
    assert population.shape == (8, 64)
    best = load_table(run_dir / "best_weights.csv")
    mean = load_table(run_dir / "mean_weights.csv")
    assert best.shape == (8, 8) and mean.shape == (8, 8)
    np.testing.assert_allclose(mean.ravel(), population.mean(axis=0), rtol=0, atol=1e-15)
    # The best is the first individual of the highest fitness in the last generation.
    games = pd.read_csv(run_dir / "games.csv")
    last = games[games["generation"] == games["generation"].max()]
    fitness = last.groupby("individual")["disc_diff"].apply(lambda d: ((d > 0).sum() + 0.5 * (d == 0).sum()) / len(d))
    assert np.array_equal(best.ravel(), population[int(np.argmax(fitness.to_numpy()))])


def test_hall_of_fame_manifest_checkpoint_and_config(finished_run: tuple[Config, Path, Any]) -> None:
    config, run_dir, result = finished_run
    header, rows = read_rows(run_dir / "hall_of_fame.csv")
    assert header == ["rank", "generation", "fitness"] + weight_columns(64)
    assert 1 <= len(rows) <= 3
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    fitness = [float(r[2]) for r in rows]
    assert fitness == sorted(fitness, reverse=True)
    generations = pd.read_csv(run_dir / "generations.csv")
    assert fitness[0] == generations["best_fitness"].iloc[-1]
    assert len({tuple(r[3:]) for r in rows}) == len(rows)  # no duplicates

    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["finished"]
    assert manifest["generations_done"] == manifest["generations_planned"] == 4
    assert manifest["games_played"] == generations["games"].sum()
    assert manifest["seed"] == 1 and manifest["experiment"] == "tiny"

    checkpoint = json.loads((run_dir / "checkpoint.json").read_text())
    assert checkpoint["generation"] == 3
    assert checkpoint["games_played"] == generations["games"].sum()

    assert load_config(run_dir / "config.toml") == config


def test_manifest_versions_are_the_installed_packages(finished_run: tuple[Config, Path, Any],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    from ga.rundir import manifest as manifest_module

    _, run_dir, _ = finished_run
    saved = json.loads((run_dir / "manifest.json").read_text())["versions"]
    assert set(saved) == {"python", "othello-ga", "deap", "numpy", "cython", "pandas", "matplotlib"}
    for package, version in saved.items():
        if package == "python":
            continue
        try:
            assert version == metadata.version(package)  # what importlib.metadata reads from the whole file
        except metadata.PackageNotFoundError:  # cython, say, where it was only needed to build
            assert version == "not installed"
    real = metadata.distribution
    monkeypatch.setattr(manifest_module.metadata, "distribution",
                        lambda name: real("no-such-package-here") if name == "pandas" else real(name))
    assert manifest_module.versions()["pandas"] == "not installed"


@pytest.mark.parametrize(("text", "expected"), [
    ("Metadata-Version: 2.1\nName: deap\nversion: 1.2\n\nVersion: 9\n", "1.2"),  # any case; never the body
    ("Metadata-Version: 2.1\nName: deap\nSummary: a: b\nVersion:  3.0rc1 \n", "3.0rc1"),
    ("Name: deap\n\nVersion: 9\n", "7.7"),  # none in the headers: what importlib.metadata says
])
def test_a_version_is_read_from_the_metadata_headers(text: str, expected: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from ga.rundir import manifest as manifest_module

    class Distribution:
        version = "7.7"

        def read_text(self, name: str) -> str | None:
            return text if name == "METADATA" else None

    monkeypatch.setattr(manifest_module.metadata, "distribution", lambda name: Distribution())
    assert manifest_module.versions()["deap"] == expected


def test_logbook_frame_matches_generations_csv(finished_run: tuple[Config, Path, Any]) -> None:
    _, run_dir, result = finished_run
    frame = result.logbook_frame()
    assert isinstance(frame, pd.DataFrame)
    written = pd.read_csv(run_dir / "generations.csv")
    assert list(frame.columns) == list(written.columns)
    pd.testing.assert_frame_equal(frame, written, check_dtype=False)
    assert len(result.population) == 8
    assert 1 <= len(result.hall_of_fame) <= 3


# --- the Python API ----------------------------------------------------------------------------


def test_evolve_from_a_toml_path_with_overrides(tmp_path: Path) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(tomli_w.dumps(tiny()))
    out = tmp_path / "out"
    result = evolve(str(path), out=str(out), seed=5, generations=2)
    frame = result.logbook_frame()
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == 2 and frame["generation"].tolist() == [0, 1]
    assert result.run_dir == out
    saved = load_config(out / "config.toml")
    assert saved.experiment.seed == 5 and saved.experiment.generations == 2
    assert saved.experiment.name == "tiny"


def test_evolve_without_out_writes_under_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = evolve(tiny_config(experiment={"generations": 1}))
    assert result.run_dir.parent == Path("results")
    assert result.run_dir.name.startswith("tiny-")
    assert (tmp_path / result.run_dir / "population.csv").is_file()
    second = evolve(tiny_config(experiment={"generations": 1}))
    assert second.run_dir != result.run_dir


def test_output_directory_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "run"
    evolve(tiny_config(), out=out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(RunDirError, match="already exists"):
        evolve(tiny_config(experiment={"seed": 2}), out=out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.write_text("mine\n")
    with pytest.raises(RunDirError):
        evolve(tiny_config(), out=out)
    assert out.read_text() == "mine\n"


def test_an_empty_existing_directory_can_be_used(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    assert evolve(tiny_config(experiment={"generations": 1}), out=out).finished
    assert (out / "population.csv").is_file()


# --- reproducibility ----------------------------------------------------------------------------


def test_same_seed_gives_identical_files(tmp_path: Path) -> None:
    config = tiny_config(fitness={"draw": "one", "coevolution": 1})
    evolve(config, out=tmp_path / "a")
    evolve(config, out=tmp_path / "b")
    assert_same_run(tmp_path / "a", tmp_path / "b")


def test_different_seed_gives_different_files(tmp_path: Path) -> None:
    evolve(tiny_config(), out=tmp_path / "a")
    evolve(tiny_config(experiment={"seed": 2}), out=tmp_path / "b")
    a, b = reproducible_state(tmp_path / "a"), reproducible_state(tmp_path / "b")
    for name in a:
        assert a[name] != b[name], name


def test_one_worker_and_a_pool_of_two_give_identical_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tiny_config(fitness={"coevolution": 1, "hall_of_fame_games": 1, "random_table_games": 2})
    evolve(config, out=tmp_path / "one", workers=1)
    pools = []
    real_executor = ga.games.executor.ThreadPoolExecutor

    def executor(*args: Any, **kwargs: Any) -> Any:
        pools.append(args[0] if args else kwargs.get("max_workers"))
        return real_executor(*args, **kwargs)

    monkeypatch.setattr(ga.games.executor, "ThreadPoolExecutor", executor)
    evolve(config, out=tmp_path / "two", workers=2)
    assert pools == [1]  # the games really ran in two threads: this one and a pool of one
    assert_same_run(tmp_path / "one", tmp_path / "two")


# --- elitism --------------------------------------------------------------------------------------


@pytest.mark.shows("selection.elitism", "selection.reevaluate_elites")
def test_elitism_with_reevaluation_keeps_the_best_and_replays_it(tmp_path: Path) -> None:
    data = tiny(selection={"elitism": 1, "reevaluate_elites": True})
    evolve(config_from_dict(data), out=tmp_path / "short", generations=3)
    evolve(config_from_dict(data), out=tmp_path / "long", generations=4)
    best = load_table(tmp_path / "short" / "best_weights.csv").ravel()
    _, rows = read_rows(tmp_path / "long" / "population.csv")
    assert np.array_equal(np.array(rows[0], dtype=np.float64), best)  # the elite comes first
    games = pd.read_csv(tmp_path / "long" / "games.csv")
    elite_games = games[(games["generation"] == 3) & (games["individual"] == 0)]
    assert len(elite_games) == 4  # the elite played again: its fitness is fresh
    assert games.groupby("generation").size().tolist() == [32, 32, 32, 32]


@pytest.mark.shows("selection.elitism", "selection.reevaluate_elites")
def test_elitism_without_reevaluation_keeps_elite_fitness(tmp_path: Path) -> None:
    config = tiny_config(experiment={"generations": 5}, selection={"elitism": 2, "reevaluate_elites": False})
    evolve(config, out=tmp_path / "run")
    games = pd.read_csv(tmp_path / "run" / "games.csv")
    assert games.groupby("generation").size().tolist() == [32, 24, 24, 24, 24]
    assert not ((games["generation"] > 0) & (games["individual"] < 2)).any()
    generations = pd.read_csv(tmp_path / "run" / "generations.csv")
    maxima = generations["fitness_max"].tolist()
    assert maxima == sorted(maxima)  # the elites' scores carry over, so the maximum cannot drop
    assert generations["games"].tolist() == [32, 24, 24, 24, 24]


# --- other layouts -----------------------------------------------------------------------------------


@pytest.mark.shows("population.genome")
def test_phase_genome_writes_128_weights(tmp_path: Path) -> None:
    evolve(tiny_config(population={"genome": "phase", "phase_move": 20}, experiment={"generations": 2}),
           out=tmp_path / "run")
    header, rows = read_rows(tmp_path / "run" / "population.csv")
    assert header == weight_columns(128) and header[0] == "p0_a1" and header[64] == "p1_a1"
    assert np.array(rows, dtype=np.float64).shape == (8, 128)
    assert load_table(tmp_path / "run" / "best_weights.csv").shape == (16, 8)


@pytest.mark.shows("population.genome")
def test_sym8_genome_writes_symmetric_tables(tmp_path: Path) -> None:
    evolve(tiny_config(population={"genome": "sym8"}, experiment={"generations": 2}), out=tmp_path / "run")
    _, rows = read_rows(tmp_path / "run" / "population.csv")
    population = np.array(rows, dtype=np.float64)
    assert population.shape == (8, 64)
    for table in population.reshape(-1, 8, 8):
        assert np.array_equal(table, table.T) and np.array_equal(table, np.fliplr(table))
    assert len(set(population[0].tolist())) == 10


@pytest.mark.shows("output.games_csv")
def test_without_games_csv(tmp_path: Path) -> None:
    evolve(tiny_config(output={"games_csv": False}), out=tmp_path / "run")
    names = {p.name for p in (tmp_path / "run").iterdir()}
    assert names == RUN_FILES - {"games.csv"}
    assert len(pd.read_csv(tmp_path / "run" / "generations.csv")) == 3


@pytest.mark.parametrize("selection", [
    {"method": "adjacent-pairs"}, {"method": "best"}, {"method": "roulette"}, {"method": "stochastic-universal"},
])
def test_every_selection_method_runs(tmp_path: Path, selection: dict[str, Any]) -> None:
    config = tiny_config(experiment={"generations": 2}, selection=selection,
                         crossover={"method": "blend"}, mutation={"method": "gaussian"})
    result = evolve(config, out=tmp_path / "run")
    assert result.finished
    population = np.array(read_rows(tmp_path / "run" / "population.csv")[1], dtype=np.float64)
    assert population.min() >= -1.0 and population.max() <= 1.0


def test_roulette_selection_breeds_when_every_individual_scored_zero() -> None:
    # A generation that lost every game (common early on against a strong opponent) has fitness 0 throughout.
    config = tiny_config(selection={"method": "roulette"})
    toolbox = build_toolbox(config)
    population = [creator.Individual([float(i)] * 64) for i in range(8)]
    for ind in population:
        ind.fitness.values = (0.0,)
    random.seed(0)
    assert len(breed(population, toolbox, config)) == 8


@pytest.mark.parametrize("method", ["roulette", "stochastic-universal"])
def test_fitness_proportional_selection_is_refused_with_disc_diff(method: str) -> None:
    with pytest.raises(ConfigError, match="selection.method"):
        tiny_config(selection={"method": method}, fitness={"score": "disc_diff"})


def test_clone_copies_genes_fitness_and_birth_and_shares_nothing_mutable() -> None:
    original = creator.Individual([0.25, -0.5, 1.0])
    original.fitness.values = (0.75,)
    original.born = 4
    copy = clone(original)
    assert copy == original and copy is not original
    assert copy.fitness.valid and copy.fitness.values == (0.75,) and copy.fitness == original.fitness
    assert copy.born == 4 and isinstance(copy.fitness, creator.FitnessMax)
    copy[0] = 9.0
    del copy.fitness.values
    assert original[0] == 0.25 and original.fitness.values == (0.75,)
    unevaluated = creator.Individual([1.0])
    assert not clone(unevaluated).fitness.valid


# --- by value: the champion archive and the diversity column --------------------------------------------


def checkpoints_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **sections: dict[str, Any]) -> tuple[list, Path]:
    """Runs ``tiny`` with a checkpoint every generation and returns the checkpoints written, in order."""
    import ga.rundir.writer

    written: list = []
    write = ga.rundir.writer.RunWriter.write_checkpoint

    def record(self: Any, checkpoint: Any) -> None:
        written.append(copy.deepcopy(checkpoint))
        write(self, checkpoint)

    monkeypatch.setattr(ga.rundir.writer.RunWriter, "write_checkpoint", record)
    run_dir = tmp_path / "run"
    evolve(tiny_config(output={"checkpoint_seconds": 0.0}, **sections), out=run_dir)
    return written, run_dir


@pytest.mark.shows("fitness.hall_of_fame_size")
def test_the_champion_archive_keeps_the_newest_champions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written, _ = checkpoints_of(tmp_path, monkeypatch, experiment={"generations": 6},
                                fitness={"hall_of_fame_size": 2})
    best = []
    for checkpoint in written:
        fittest = max(range(len(checkpoint.fitness)), key=lambda i: (checkpoint.fitness[i], -i))
        best.append(checkpoint.population[fittest])
        assert np.array_equal(checkpoint.champions, np.array(best[-2:]))  # the last two generations' best


def test_diversity_is_the_mean_over_genes_of_the_spread_across_individuals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written, run_dir = checkpoints_of(tmp_path, monkeypatch)
    header, rows = read_rows(run_dir / "generations.csv")
    column = header.index("diversity")
    for checkpoint, row in zip(written, rows):
        expected = float(np.mean(np.std(checkpoint.population, axis=0)))  # across individuals, per gene
        assert float(row[column]) == pytest.approx(expected, rel=1e-12)
        assert float(row[column]) != pytest.approx(float(np.mean(np.std(checkpoint.population, axis=1))))


def test_both_colours_play_half_the_games_as_white_at_one_game_per_opponent(tmp_path: Path) -> None:
    config = tiny_config(fitness={"opponents": ["random", "nhand:2"], "colours": "both", "games_per_opponent": 1})
    evolve(config, out=tmp_path / "run", workers=1)
    games = pd.read_csv(tmp_path / "run" / "games.csv")
    counts = games["colour"].value_counts()
    assert counts["black"] == counts["white"] == len(games) // 2


def _plan_config(**sections: dict[str, Any]) -> Config:
    return config_from_dict(with_changes({"population": {"size": 32, "parents": 16}, "fitness": {"opponents": ["random"]}},
                                         **sections))


@pytest.mark.parametrize(("sections", "key"), [
    ({"fitness": {"games_per_opponent": 10**6}}, "fitness.games_per_opponent"),
    ({"fitness": {"hall_of_fame_games": 10**6}}, "fitness.hall_of_fame_games"),
    ({"population": {"size": 10**6, "parents": 2}}, "population.size"),
    ({"refine": {"generations": 1, "games": 10**7, "opponents": ["random"], "weight_restarts": 0}}, "refine.games"),
])
def test_a_plan_too_big_for_the_memory_names_the_key_to_lower(sections: dict[str, Any], key: str) -> None:
    config = _plan_config(**sections)
    with pytest.raises(ConfigError, match=rf"config key '{key}' = .* need about .* and this machine has 1.0 GiB"):
        check_plan(config, 2**30)
    check_plan(config, 2**50)  # the same plan fits a machine with enough memory


def test_a_generation_s_memory_is_counted_by_its_games() -> None:
    # 32 individuals x 16,000 games x 256 bytes = 125 MiB, plus the tables: fits 256 MiB, not 250 MiB (half is kept free).
    config = _plan_config(fitness={"games_per_opponent": 16_000})
    check_plan(config, 256 * 2**20)
    with pytest.raises(ConfigError, match="fitness.games_per_opponent"):
        check_plan(config, 250 * 2**20)


def test_every_shipped_experiment_fits_a_small_machine() -> None:
    from ga.study.schema import load_study

    for path in sorted((Path(__file__).parent.parent / "experiments").glob("*.toml")):
        is_study = "[study]" in path.read_text(encoding="utf-8")  # a study: each of its configs
        for config in [c.config for c in load_study(path).configs] if is_study else [load_config(path)]:
            check_plan(config, 2 * 2**30)


def test_the_memory_limit_follows_ulimit_v(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    assert memory_limit() > 0
    monkeypatch.setattr(resource, "getrlimit", lambda _: (3 * 2**30, resource.RLIM_INFINITY))
    assert memory_limit() == min(3 * 2**30, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))

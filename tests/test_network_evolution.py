"""Evolving pattern networks ([patterns], [td]): genomes and engine rows, operators, the methods (GA, CMA-ES, the
TD step), runs that reproduce and resume, their files and commands, and the input they refuse."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
from click.testing import CliRunner

from engine import build_player, parse_spec, play_match
from engine._learning import TDLearner
from engine.patterns import tuple_set
from ga.cli import cli
from ga.config import Config, ConfigError, config_from_dict, config_to_dict, config_to_toml, load_config, network_of
from ga.evolution import fitness
from ga.evolution.genome import GenomeLayout, expand
from ga.evolution.methods import NetworkCMA
from ga.evolution.run import check_plan, evolve, resume
from ga.evolution.strategies import strategy_from_state
from ga.evolution.td import TDStep
from ga.evolution.toolbox import breed_networks, build_toolbox, initial_genes, network_individual, vary_networks
from ga.evolution.operators import cx_tuples
from ga.games.executor import Batch, play
from ga.games.seeds import Stream, derive_seed
from ga.rundir.checkpoint import read_checkpoint
from ga.rundir.writer import TableForm
from ga.weights import load_evaluation

from runs import assert_same_run

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "experiments" / "patterns-quick.toml"


def quick(**sections: dict[str, Any]) -> Config:
    """Returns experiments/patterns-quick.toml with the keys of ``sections`` changed."""
    data = config_to_dict(load_config(QUICK))
    for name, values in sections.items():
        data[name] = data.get(name, {}) | values
    return config_from_dict(data)


def cma(method: str = "sep-cma-es", **sections: dict[str, Any]) -> Config:
    """Returns the quick experiment evolved by CMA-ES (no elites, no TD step, a sample it accepts)."""
    return quick(**({"patterns": {"method": method}, "td": {"games": 0}, "selection": {"elitism": 0},
                     "population": {"size": 20, "parents": 10}} | sections))


def shorter(config: Config, generations: int) -> Config:
    return attrs.evolve(config, experiment=attrs.evolve(config.experiment, generations=generations))


def read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# --- genomes, rows, and what the engine plays ----------------------------------------------------------------


@pytest.mark.shows("patterns.sets", "patterns.squares")
@pytest.mark.parametrize(("sets", "squares", "genome", "features"), [
    (["all-2"], False, "full", ()), (["all-3", "2x2"], False, "full", ("mobility",)),
    (["all-2"], True, "sym8", ("parity",)), (["2x2"], True, "phase", ("mobility", "frontier")),
])
def test_the_genome_is_the_squares_when_evolved_the_features_then_the_network(
        sets: list[str], squares: bool, genome: str, features: tuple[str, ...]) -> None:
    config = quick(patterns={"sets": sets, "squares": squares}, population={"genome": genome, "features": features})
    layout = GenomeLayout.of(config)
    network = tuple_set(sets)
    square_genes = {"full": 64, "sym8": 10, "phase": 128}[genome] if squares else 0
    tables = 2 if squares and genome == "phase" else 1
    assert layout.length == square_genes + len(features) * tables + network.n_weights
    assert list(layout.units) == [n for n in (square_genes, len(features) * tables) if n] + [
        t.weights.size for t in network.tuples]
    genes = np.arange(1.0, layout.length + 1)
    row = layout.expand(genes)
    assert row.size == (64 + len(features)) * tables + network.n_weights
    assert np.array_equal(row[-network.n_weights:], genes[-network.n_weights:])  # the network's weights, in order
    head = genes[:layout.length - network.n_weights]
    if squares:
        assert np.array_equal(row[:row.size - network.n_weights], expand(head, genome, len(features)))
    else:
        assert not row[:64].any() and np.array_equal(row[64:64 + len(features)], head)
    assert np.array_equal(layout.contract(row), genes)
    assert np.array_equal(layout.expand_many(np.vstack([genes, -genes]))[1], -row)


@pytest.mark.shows("patterns.sets", "patterns.phases", "patterns.colours")
@pytest.mark.parametrize(("phases", "colours"), [([60], "invert"), ([60, 30], "invert"), ([60], "negate")])
def test_a_batch_plays_each_row_as_the_evaluation_of_its_squares_features_and_network(
        phases: list[int], colours: str) -> None:
    config = quick(patterns={"sets": ["all-2", "2x2"], "phases": phases, "colours": colours, "squares": True},
                   population={"features": ["mobility"]}, td={"games": 0})
    layout, form = GenomeLayout.of(config), TableForm.of(config)
    assert form.network is not None and form.network.phases == tuple(phases) and form.network.colours == colours
    rng = np.random.default_rng(2)
    genes = initial_genes(config, layout, 3, rng)
    genes[:, layout.network_genes] = rng.normal(0, 0.3, (3, layout.network))
    rows = layout.expand_many(genes)
    plan = fitness.GamePlan(individual=np.array([0, 1, 2, 0, 1, 2], np.int32),
                            opponent=np.array([0, 0, 0, 1, 1, 1], np.int32),
                            member=np.array([-1, -1, -1, 1, 2, 0], np.int32),
                            seeds=np.arange(6, dtype=np.uint64), colours=np.array([0, 1, 0, 1, 0, 1], np.uint8))
    batch = Batch(fitness.player_args(config), rows, ["random", "population"], plan,
                  layout=fitness.network_layout(config))
    diffs = play(batch)
    spec = parse_spec("nhand_custom:1,eps=0.1")
    players = [build_player(spec, weights=form.evaluation(row)) for row in rows]
    for game in range(6):
        rival = build_player("random") if game < 3 else players[plan.member[game]]
        expected = play_match(players[plan.individual[game]], rival, [plan.seeds[game]], [plan.colours[game]])[0]
        assert diffs[game] == expected
    # The phases and the colours are the network's: the same weights read otherwise play other games.
    other = quick(patterns={"sets": ["all-2", "2x2"], "phases": [60, 20] if len(phases) > 1 else [60],
                            "colours": "invert" if colours == "negate" else "negate", "squares": True},
                  population={"features": ["mobility"]}, td={"games": 0})
    if len(phases) == 1 and colours == "invert":
        return
    many = fitness.GamePlan(individual=np.zeros(40, np.int32), opponent=np.zeros(40, np.int32),
                            member=np.full(40, -1, np.int32), seeds=np.arange(40, dtype=np.uint64),
                            colours=(np.arange(40) % 2).astype(np.uint8))
    assert not np.array_equal(
        play(Batch(fitness.player_args(config), rows, ["nhand:1"], many, layout=fitness.network_layout(config))),
        play(Batch(fitness.player_args(other), rows, ["nhand:1"], many, layout=fitness.network_layout(other))))


@pytest.mark.shows("patterns.init")
@pytest.mark.parametrize("init", [0.0, 0.01, 0.5])
def test_first_genes_are_uniform_in_the_init_range(init: float) -> None:
    config = quick(patterns={"init": init, "squares": True}, population={"init_low": -0.25, "init_high": 0.75})
    layout = GenomeLayout.of(config)
    genes = initial_genes(config, layout, 50, np.random.default_rng(1))
    network, squares = genes[:, layout.network_genes], genes[:, :64]
    if init == 0.0:
        assert not network.any()
    else:
        assert np.abs(network).max() <= init and np.abs(network).max() > 0.99 * init
        assert abs(network.mean()) < 0.02 * init and network.std() == pytest.approx(init / np.sqrt(3), rel=0.02)
    assert squares.min() >= -0.25 and squares.max() <= 0.75 and squares.mean() == pytest.approx(0.25, abs=0.02)


@pytest.mark.shows("patterns.sigma", "patterns.bound", "mutation.gene_probability")
def test_a_network_mutates_by_gaussian_steps_of_sigma_with_the_gene_probability_clipped_to_the_bound() -> None:
    config = quick(patterns={"sigma": 0.02, "bound": 1.0}, mutation={"gene_probability": 0.25})
    layout = GenomeLayout.of(config)
    rows = np.zeros((200, layout.length))
    vary_networks(rows, config, layout, np.random.default_rng(3))
    moved = rows != 0
    assert moved.mean() == pytest.approx(0.25, abs=0.01)
    assert rows[moved].std() == pytest.approx(0.02, rel=0.02) and abs(rows[moved].mean()) < 0.001
    wide = quick(patterns={"sigma": 5.0, "bound": 0.5, "init": 0.1}, mutation={"gene_probability": 1.0})
    rows = np.zeros((20, layout.length))
    vary_networks(rows, wide, layout, np.random.default_rng(4))
    assert np.abs(rows).max() == 0.5 and (np.abs(rows) == 0.5).mean() > 0.8  # most steps of 5 end at the bound


@pytest.mark.shows("crossover.method", "crossover.gene_probability")
def test_the_tuple_crossover_takes_each_tuples_whole_table_from_either_parent() -> None:
    config = quick(patterns={"sets": ["all-3", "2x2"], "phases": [60, 30]})
    layout = GenomeLayout.of(config)
    first, second = np.ones((400, layout.length)), np.full((400, layout.length), 2.0)
    children = cx_tuples(first, second, layout.units, 0.3, np.random.default_rng(5))
    bounds = np.cumsum([0, *layout.units])
    parts = np.array([[child[a:b].min() == child[a:b].max() for a, b in zip(bounds, bounds[1:])] for child in children])
    assert parts.all()  # every tuple's table (both phases) whole from one parent
    from_second = np.array([[child[a] == 2.0 for a in bounds[:-1]] for child in children])
    assert from_second.mean() == pytest.approx(0.3, abs=0.02)
    assert np.array_equal(cx_tuples(first, second, layout.units, 0.0, np.random.default_rng(5)), first)
    # In breeding: two parents, no mutation: each child's every table is one parent's.
    bred_config = quick(population={"size": 12, "parents": 2}, mutation={"gene_probability": 0.0},
                        selection={"elitism": 0, "method": "best"})
    rng = np.random.default_rng(6)
    parents = [network_individual(g) for g in rng.uniform(-1, 1, (12, GenomeLayout.of(bred_config).length))]
    for value, individual in enumerate(parents):
        individual.fitness.values = (float(value),)
    children = breed_networks(parents, build_toolbox(bred_config), bred_config, GenomeLayout.of(bred_config), rng)
    chosen = {bytes(p.tobytes()) for p in parents}
    network = tuple_set(["all-2"])
    bounds = np.cumsum([0, *[t.weights.size for t in network.tuples]])
    mixed = 0
    for child in children:
        sources = set()
        for a, b in zip(bounds, bounds[1:]):
            owners = [i for i, p in enumerate(parents) if np.array_equal(p[a:b], child[a:b])]
            assert owners
            sources.update(owners)
        mixed += len(sources) > 1
        assert bytes(child.tobytes()) in chosen or len(sources) > 1
    assert mixed >= len(children) // 2  # crossed children take tables from both parents


def test_table_only_runs_write_what_they_always_wrote(tmp_path: Path) -> None:
    config = load_config(ROOT / "experiments" / "quick.toml")
    text = config_to_toml(config)
    assert "[patterns]" not in text and "[td]" not in text
    assert GenomeLayout.of(config) == GenomeLayout("full", 0)


# --- the methods ---------------------------------------------------------------------------------------------


@pytest.mark.shows("patterns.method")
@pytest.mark.parametrize("method", ["cma-es", "sep-cma-es"])
def test_cma_es_samples_each_generation_from_the_distribution_the_last_ones_fitness_moved(
        tmp_path: Path, method: str) -> None:
    config = cma(method)
    two = Path(evolve(shorter(config, 2), out=tmp_path / "two").run_dir)
    three = Path(evolve(shorter(config, 3), out=tmp_path / "three").run_dir)
    saved, after = read_checkpoint(two), read_checkpoint(three)
    state = saved.strategy
    assert state["kind"] == method and (state["lambda"], state["mu"]) == (20, 10)
    assert ("C" in state) == (method == "cma-es") and ("diagC" in state) == (method == "sep-cma-es")
    # Generation 2 by hand: the strategy that sampled generation 1, told its fitness, samples from Stream.SAMPLES.
    strategy = strategy_from_state(state)
    strategy.tell(saved.population, np.array(saved.fitness))  # the network's genes: scale 1
    samples = strategy.generate(np.random.default_rng(derive_seed(config.experiment.seed, Stream.SAMPLES, 2)))
    assert np.array_equal(np.clip(samples, -config.patterns.bound, config.patterns.bound), after.population)
    assert read_checkpoint(three).strategy["updates"] == 2
    # The mean evaluation is the centroid the last generation's fitness moves the distribution to.
    strategy = strategy_from_state(after.strategy)
    strategy.tell(after.population, np.array(after.fitness))
    mean = load_evaluation(three / "mean_evaluation.json").patterns
    assert np.allclose(mean.vector(), np.clip(strategy.centroid, -1, 1), rtol=0, atol=1e-15)


@pytest.mark.parametrize(("change", "fragment"), [
    ({"kind": "cma-es"}, "it is a cma-es of 288 genes"),
    ({"centroid": np.zeros(5), "pc": np.zeros(5), "ps": np.zeros(5), "diagC": np.ones(5)}, "of 5 genes"),
    ({"lambda": 30}, "sampling 30"),
    ({"sigma": -1.0}, "'strategy.sigma' must be a positive number"),
])
def test_a_checkpoint_whose_strategy_does_not_fit_the_run_is_named_before_anything_is_written(
        tmp_path: Path, change: dict, fragment: str) -> None:
    from ga.rundir.checkpoint import checkpoint_text
    from ga.rundir.layout import RunDirError

    run = Path(evolve(shorter(cma(), 2), out=tmp_path / "run").run_dir)
    checkpoint = read_checkpoint(run)
    state = dict(checkpoint.strategy) | change
    if change.get("kind") == "cma-es":
        state = {key: value for key, value in state.items() if key != "diagC"} | {"C": np.eye(288)}
    checkpoint.strategy = state
    (run / "checkpoint.json").write_text(checkpoint_text(checkpoint))
    before = {path.name: path.read_bytes() for path in run.iterdir() if path.is_file()}
    with pytest.raises(RunDirError, match="the checkpoint's CMA-ES strategy cannot be continued: .*" +
                       fragment.replace("(", r"\(").replace(")", r"\)")):
        resume(run, generations=3)
    assert {path.name: path.read_bytes() for path in run.iterdir() if path.is_file() and path.name != ".lock"} == {
        name: data for name, data in before.items() if name != ".lock"}


def test_the_gas_checkpoint_holds_no_strategy_and_its_generations_are_bred(tmp_path: Path) -> None:
    run = Path(evolve(quick(td={"games": 0}), out=tmp_path / "ga").run_dir)
    assert read_checkpoint(run).strategy == {}
    assert '"strategy"' not in (run / "checkpoint.json").read_text()


def test_cma_es_scales_squares_steps_by_the_mutations_sigma() -> None:
    config = cma(patterns={"method": "sep-cma-es", "squares": True, "sigma": 0.01},
                 mutation={"sigma": 0.3, "low": -5.0, "high": 5.0})
    method = NetworkCMA(config, build_toolbox(config), GenomeLayout.of(config))
    population = np.array(method.first())
    centroid = method.strategy.centroid * method.scale
    steps = population - centroid
    assert steps[:, :64].std() == pytest.approx(0.3, rel=0.1)
    assert steps[:, 64:].std() == pytest.approx(0.01, rel=0.05)


@pytest.mark.shows("td.games", "td.alpha", "td.eps")
@pytest.mark.parametrize(("games", "alpha", "eps"), [(3, 0.001, 0.1), (5, 0.01, 0.0), (2, 0.002, 0.5)])
def test_the_td_step_trains_each_individual_about_to_be_played_on_its_own_seed(
        games: int, alpha: float, eps: float) -> None:
    config = quick(td={"games": games, "alpha": alpha, "eps": eps}, patterns={"squares": True})
    layout = GenomeLayout.of(config)
    genes = initial_genes(config, layout, 6, np.random.default_rng(7))
    population = [network_individual(g) for g in genes]
    population[2].fitness.values = (0.5,)  # an elite that keeps its fitness is not played, nor trained
    played = TDStep(config, layout, workers=2)(population, 4)
    assert played == 5 * games
    network = network_of(config.patterns)
    learner = TDLearner([t.copies for t in network.tuples], network.phases)
    for index, individual in enumerate(population):
        expected = genes[index].copy()
        if index != 2:
            weights = expected[layout.network_genes]
            learner.train(weights, games, derive_seed(config.experiment.seed, Stream.TD, 4, index), alpha, eps)
            expected[layout.network_genes] = np.clip(weights, -1, 1)
        assert np.array_equal(individual, expected)  # the squares untouched, the network learnt
    assert not np.array_equal(population[0], genes[0])


def test_a_run_with_td_counts_its_games_and_learns_from_them(tmp_path: Path) -> None:
    run = Path(evolve(quick(td={"games": 4}), out=tmp_path / "td").run_dir)
    rows = read_rows(run / "generations.csv")
    assert [int(r["td_games"]) for r in rows] == [12 * 4] * 6
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["games_played"] == sum(int(r["games"]) + int(r["td_games"]) for r in rows)
    without = Path(evolve(quick(td={"games": 0}), out=tmp_path / "none").run_dir)
    assert "td_games" not in read_rows(without / "generations.csv")[0]
    assert fitness.games_per_generation(quick(td={"games": 4})) == fitness.games_per_generation(
        quick(td={"games": 0})) + 12 * 4


# --- runs: reproducible, resumable, on any number of workers --------------------------------------------------


@pytest.mark.parametrize("config", [
    quick(), cma("sep-cma-es", final={"games": 2}), cma("cma-es"),
    quick(patterns={"squares": True, "phases": [60, 30]}, population={"features": ["mobility"], "genome": "sym8"},
          fitness={"random_table_games": 2}, final={"games": 2}),
], ids=["ga-td", "sep-cma-es", "cma-es", "squares-features-phases"])
def test_a_network_run_resumed_after_k_generations_is_the_run_that_never_stopped(tmp_path: Path,
                                                                                config: Config) -> None:
    whole = Path(evolve(config, out=tmp_path / "whole").run_dir)
    part = Path(evolve(shorter(config, 3), out=tmp_path / "part").run_dir)
    resume(part, generations=6)
    assert_same_run(whole, part)
    assert (whole / "checkpoint.json").read_bytes() != b""
    again = Path(evolve(config, out=tmp_path / "again").run_dir)
    assert_same_run(whole, again)  # same config and seed: the same files


def test_the_number_of_workers_changes_no_file(tmp_path: Path) -> None:
    config = quick(td={"games": 6}, fitness={"random_table_games": 2})
    one = Path(evolve(config, out=tmp_path / "one").run_dir)
    two = Path(evolve(config, out=tmp_path / "two", workers=2).run_dir)
    assert_same_run(one, two)


@pytest.mark.shows("fitness.coevolution")
@pytest.mark.parametrize("method", ["ga", "sep-cma-es"])
def test_each_member_plays_its_own_network_the_runs_games_replayed(tmp_path: Path, method: str) -> None:
    """The last generation's games against the random mover and against other members (coevolution: a GA's
    individuals, CMA-ES's candidates), replayed by players of the evaluations the checkpoint's genes make: the
    rows the run gave the engine are those evaluations."""
    config = quick() if method == "ga" else cma(method)
    size = config.population.size
    run = Path(evolve(config, out=tmp_path / "run").run_dir)
    checkpoint = read_checkpoint(run)
    layout, form = GenomeLayout.of(config), TableForm.of(config)
    spec = parse_spec("nhand_custom:1,eps=0.1")
    players = [build_player(spec, weights=form.evaluation(layout.expand(genes))) for genes in checkpoint.population]
    last = checkpoint.generation
    plan = fitness.plan_generation(config, last, size, min(last, config.fitness.hall_of_fame_size))
    labels = fitness.opponent_labels(config)
    games = [row for row in read_rows(run / "games.csv") if int(row["generation"]) == last]
    assert len(games) == len(plan)
    checked = 0
    for index, row in enumerate(games):
        label = labels[plan.opponent[index]]
        if label == "hall_of_fame":
            continue
        rival = build_player("random") if label == "random" else players[plan.member[index]]
        colour = 0 if row["colour"] == "black" else 1
        assert int(row["seed"]) == int(plan.seeds[index]) and int(row["individual"]) == plan.individual[index]
        diff = play_match(players[int(row["individual"])], rival, [int(row["seed"])], [colour])[0]
        assert diff == int(row["disc_diff"])
        checked += 1
    assert checked >= size * 4


@pytest.mark.parametrize("method", ["ga", "sep-cma-es"])
def test_sigkill_then_resume_gives_the_files_of_the_run_that_never_stopped(tmp_path: Path, method: str) -> None:
    changes: dict[str, dict[str, Any]] = {"experiment": {"generations": 40}, "output": {"checkpoint_seconds": 0.0}}
    config = quick(**changes) if method == "ga" else cma(method, **changes)
    data = config_to_dict(config)
    path = tmp_path / "net.toml"
    path.write_text(config_to_toml(config_from_dict(data)))
    reference = Path(evolve(load_config(path), out=tmp_path / "reference").run_dir)
    run_dir = tmp_path / "run"
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "ga.cli", "evolve", str(path), "--out", str(run_dir),
                                "--quiet", "--no-plots"], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=environment)
    try:
        import time
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            if (run_dir / "checkpoint.json").exists() and (run_dir / "generations.csv").read_text().count("\n") > 3:
                break
            time.sleep(0.005)
    finally:
        process.kill()  # SIGKILL: no handler, no cleanup
        process.communicate()
    assert process.returncode == -signal.SIGKILL
    resumed = subprocess.run([sys.executable, "-m", "ga.cli", "resume", str(run_dir), "--quiet", "--no-plots"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120, env=environment)
    assert resumed.returncode == 0, resumed.stderr
    assert_same_run(reference, run_dir)


def test_the_opponents_costs_are_measured_on_rows_with_their_network() -> None:
    config = quick()
    costs = fitness.executor.opponent_costs(fitness.player_args(config), fitness.opponent_labels(config),
                                            GenomeLayout.of(config).width, fitness.network_layout(config), games=4)
    assert costs.shape == (3,) and (costs > 0).all()


# --- the run's files and the commands that read them ----------------------------------------------------------


@pytest.fixture(scope="module")
def network_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = quick(population={"features": ["mobility"]}, final={"games": 2})
    return Path(evolve(config, out=tmp_path_factory.mktemp("network") / "run").run_dir)


def test_a_network_run_keeps_its_networks_in_evaluation_files_and_the_checkpoint_only(network_run: Path) -> None:
    names = {path.name for path in network_run.iterdir()}
    assert {"best_evaluation.json", "mean_evaluation.json"} <= names and "best_weights.csv" not in names
    document = json.loads((network_run / "best_evaluation.json").read_text())
    assert document["version"] == 2 and document["patterns"]["phases"] == [60]
    best = load_evaluation(network_run / "best_evaluation.json")
    assert best.patterns.n_weights == 288 and not any(best.squares) and best.features == ("mobility",)
    final = read_rows(network_run / "final.csv")
    assert list(final[0])[-1] == "mobility" and len(final[0]) == 8
    winner = final[0]
    assert float(winner["mobility"]) == best.feature_weights[0]
    population = read_rows(network_run / "population.csv")
    assert list(population[0]) == ["individual", "fitness", "born", "mobility"] and len(population) == 12
    checkpoint = read_checkpoint(network_run)
    assert [float(r["fitness"]) for r in population] == checkpoint.fitness
    assert [float(r["mobility"]) for r in population] == checkpoint.population[:, 0].tolist()
    hall = read_rows(network_run / "hall_of_fame.csv")
    assert list(hall[0]) == ["rank", "generation", "fitness", "mobility"]
    assert checkpoint.population.shape == (12, 1 + 288) and checkpoint.champions.shape[1] == 64 + 1 + 288
    header = (network_run / "generations.csv").read_text().splitlines()[0]
    assert "a1" not in header.split(",")


def test_show_plot_export_and_evaluate_work_on_a_network_run(network_run: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(cli, ["show", str(network_run)])
    assert shown.exit_code == 0, shown.output
    assert "tuple sets      all-2: 32 tuples, 240 copies, 288 weights" in shown.output
    assert "phases          1" in shown.output and "squares         not evolved" in shown.output
    assert "mobility" in shown.output and "missing" not in shown.output
    plotted = runner.invoke(cli, ["plot", str(network_run)])
    assert plotted.exit_code == 0, plotted.output
    plots = network_run / "plots"
    assert not (plots / "best_weights.png").exists() and (plots / "win_rate.png").exists()
    assert "not drawn for this run" in plotted.output
    out = tmp_path / "best.json"
    exported = runner.invoke(cli, ["export", str(network_run), "--format", "json", "-o", str(out)])
    assert exported.exit_code == 0, exported.output
    assert load_evaluation(out) == load_evaluation(network_run / "best_evaluation.json")
    evaluated = runner.invoke(cli, ["evaluate", str(network_run), "--vs", "heuristic", "--games", "6",
                                    "--workers", "1"])
    assert evaluated.exit_code == 0, evaluated.output
    assert "heuristic" in evaluated.output


def test_a_run_with_squares_draws_their_heatmaps(tmp_path: Path) -> None:
    run = Path(evolve(quick(patterns={"squares": True}, td={"games": 0}, experiment={"generations": 2}),
                      out=tmp_path / "run").run_dir)
    result = CliRunner().invoke(cli, ["plot", str(run)])
    assert result.exit_code == 0, result.output
    assert (run / "plots" / "best_weights.png").exists()
    assert any(load_evaluation(run / "best_evaluation.json").squares)


# --- bad input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("changes", "fragment"), [
    ({"patterns": {"sets": ["all-5"]}}, "config key 'patterns.sets[0]' names an unknown tuple set 'all-5' (did you"),
    ({"patterns": {"sets": ["all-2", "all-2"]}}, "'patterns.sets[1]' repeats tuple set 'all-2'"),
    ({"patterns": {"phases": [60, 40, 40]}}, "'patterns.phases' lists the empty squares"),
    ({"crossover": {"method": "one-point"}}, "config key 'crossover.method' = 'one-point' cuts a pattern network"),
    ({"crossover": {"method": "blend"}}, "set crossover.method = \"tuples\""),
    ({"patterns": {"method": "cma-es"}, "td": {"games": 0}, "selection": {"elitism": 0}},
     "config key 'population.size' must be at least 20 for cma-es (its sample for 288 weights"),
    ({"patterns": {"method": "sep-cma-es"}, "population": {"size": 24}, "selection": {"elitism": 0}},
     "config key 'td.games': the TD step trains the GA's individuals"),
    ({"patterns": {"method": "sep-cma-es"}, "population": {"size": 24}, "td": {"games": 0}},
     "config key 'selection.elitism': sep-cma-es samples every candidate anew"),
    ({"patterns": {"colours": "negate"}}, "config key 'td.games': TD learning takes an invert network"),
    ({"patterns": {"init": 2.0}}, "config key 'patterns.init' must be at most patterns.bound"),
    ({"patterns": {"bound": 5000.0}}, "config key 'patterns.bound' = 5000.0 lets the network's 240 copies reach"),
    ({"population": {"genome": "sym8"}}, "config key 'population.genome' = 'sym8' ties square weights"),
    ({"refine": {"generations": 2}}, "config key 'refine.generations': the refinement tunes tables"),
])
def test_a_config_that_does_not_fit_a_network_is_refused_naming_the_key(changes: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as raised:
        quick(**changes)
    assert fragment in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(("data", "fragment"), [
    ({"patterns": {"phases": [60, 30]}}, "config key 'patterns.phases' describes a pattern network, but patterns.sets"),
    ({"td": {"games": 3}}, "config key 'td.games' learns a pattern network's weights, but patterns.sets is empty"),
    ({"crossover": {"method": "tuples"}}, "'tuples' crosses a pattern network's tables"),
])
def test_network_keys_without_a_network_are_refused(data: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        config_from_dict(data)


def test_a_budget_that_cannot_fit_in_memory_is_refused_before_the_run(tmp_path: Path) -> None:
    big = quick(patterns={"sets": ["engine-shapes"], "bound": 1.0}, population={"size": 2000, "parents": 10},
                td={"games": 0})
    with pytest.raises(ConfigError, match=r"config key 'population.size' = 2000 makes 2,004 networks' tables of "
                                          r"892,134 entries each \(engine-shapes\) need about 6.7 GiB"):
        check_plan(big, 8 * 2**30)
    check_plan(big, 32 * 2**30)  # fits in more memory
    full = cma("cma-es", patterns={"method": "cma-es", "sets": ["all-4", "all-3", "2x2"]}, population={"size": 30,
                                                                                                        "parents": 15})
    with pytest.raises(ConfigError, match=r"config key 'patterns.method' = 'cma-es' keeps a covariance of 3,159 x "
                                          r"3,159 genes, about 304.5 MiB of memory.*use \"sep-cma-es\""):
        check_plan(full, 512 * 2**20)


@pytest.mark.parametrize(("toml", "fragment"), [
    ('[patterns]\nsets = ["all-9"]\n', "config key 'patterns.sets[0]' names an unknown tuple set 'all-9'"),
    ('[patterns]\nsets = ["all-2"]\n', "config key 'crossover.method' is not set, and its default 'one-point' cuts"),
    ('[patterns]\nsets = ["all-2"]\nmethod = "cma-es"\n[population]\nsize = 10\nparents = 5\n',
     "config key 'population.size' must be at least 20 for cma-es"),
    ('[patterns]\nsets = ["all-2"]\nmethod = "sep-cma-es"\n[td]\ngames = 2\n', "config key 'td.games'"),
    ('[patterns]\nsets = ["engine-shapes"]\n[crossover]\nmethod = "tuples"\n[population]\nsize = 100000\n'
     'parents = 16\n', "config key 'population.size' = 100000 makes"),
])
def test_the_command_line_refuses_it_in_one_line_with_exit_2_and_writes_nothing(
        tmp_path: Path, toml: str, fragment: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[fitness]\nopponents = ["random"]\n' + toml)
    completed = subprocess.run([sys.executable, "-m", "ga.cli", "evolve", str(path), "--out", str(tmp_path / "run"),
                                "--quiet", "--no-plots"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("othello-ga: error: ") and fragment in lines[0], completed.stderr
    assert not (tmp_path / "run").exists()


# --- the loop's cost (bench --only loop) ----------------------------------------------------------------------


def test_the_network_loop_rows_compare_what_later_generations_cost_the_run_and_the_engine() -> None:
    from ga.analysis.bench import NETWORK_LOOP_TARGET, network_loop_overhead, network_loop_ratio

    # 100 generations: the run 12.0 CPU s, one generation 1.0 s; the engine 10.3 s, its generation 0 0.1 s.
    def run(generations: int) -> tuple[float, int]:
        return (12.0 if generations == 100 else 1.0), 0

    def engine(generations: int) -> tuple[float, int]:
        return (10.3, 10_000) if generations == 100 else (0.1, 100)

    rows = network_loop_overhead("n", run, engine, 100, repeat=2)
    by_name = {m.name: m for m in rows}
    assert by_name["n: whole run, 100 generations (CPU)"].target == pytest.approx(1.0 + NETWORK_LOOP_TARGET * 10.2)
    assert by_name["n: 10,000 games, engine (CPU)"].detail == "1030 us a game"
    # Later generations: 11.0 s of the run for 10.2 s of engine, 9,900 games: 80.8 us a game outside, 7.8%.
    assert network_loop_ratio(rows) == ("network run, each generation after the first: 80.8 us a game outside the "
                                        "engine, 7.8% of the engine's 1030 us (target 10%: met)")
    assert by_name["n: whole run, 100 generations (CPU)"].meets_target is True
    slow = network_loop_overhead("n", lambda g: ((13.0 if g == 100 else 1.0), 0), engine, 100, repeat=1)
    assert network_loop_ratio(slow).endswith("(target 10%: NOT met)")
    assert network_loop_ratio(network_loop_overhead("n", run, engine, 100, 1, judge=False)).endswith(
        "(not judged at --quick's sizes)")


def test_the_benchs_engine_work_is_the_runs_games_and_td_games(tmp_path: Path) -> None:
    from ga.cli.bench import _network_loop_work

    run, engine = _network_loop_work(QUICK, tmp_path)
    config = load_config(QUICK)
    _, games = engine(3)
    planned = sum(len(fitness.plan_generation(config, g, 12, min(g, 4))) for g in range(3))
    assert games == planned + 3 * 12 * config.td.games
    cpu, _ = run(2)
    assert cpu > 0 and (tmp_path / "network0" / "checkpoint.json").exists()
    assert not (tmp_path / "network0" / "plots").exists()

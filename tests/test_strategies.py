"""CMA-ES strategies (ga/evolution/strategies.py): the separable one against a slow reading and against DEAP's at
n = 1, both against a noisy problem, and their saved states continuing to the same samples."""
from __future__ import annotations

import json

import numpy as np
import pytest
from deap import cma, creator

from ga.evolution.strategies import FullStrategy, SeparableStrategy, strategy_from_state
from ga.rundir.checkpoint import Checkpoint, checkpoint_text, read_checkpoint

from reference import sep_cma_es_update


def noisy_sphere(samples: np.ndarray, rng: np.random.Generator, centre: float = 0.3) -> np.ndarray:
    """Returns the fitness (higher is better) of a shifted ellipsoid, with a little noise, as games give."""
    scales = np.linspace(1.0, 4.0, samples.shape[1])
    return -((scales * (samples - centre)) ** 2).sum(axis=1) + rng.normal(0.0, 1e-4, samples.shape[0])


def test_the_separable_update_is_the_slow_readings() -> None:
    rng = np.random.default_rng(3)
    strategy = SeparableStrategy(rng.uniform(-1, 1, 7), 0.4, 10, 4)
    slow = {"mean": strategy.centroid.tolist(), "sigma": strategy.sigma, "pc": [0.0] * 7, "ps": [0.0] * 7,
            "variances": [1.0] * 7, "updates": 0, "mu": 4}
    for _ in range(25):
        samples = strategy.generate(rng)
        fitness = noisy_sphere(samples, rng)
        fitness[3] = fitness[5]  # a tie: ranked in order, as DEAP's stable sort ranks it
        strategy.tell(samples, fitness)
        sep_cma_es_update(slow, samples.tolist(), fitness.tolist())
        assert strategy.centroid == pytest.approx(slow["mean"], rel=1e-12, abs=1e-15)
        assert strategy.diagC == pytest.approx(slow["variances"], rel=1e-12)
        assert strategy.sigma == pytest.approx(slow["sigma"], rel=1e-12)
    assert strategy.update_count == slow["updates"] == 25


def test_in_one_dimension_the_separable_strategy_is_deaps() -> None:
    # (n + 2) / 3 = 1: the separable learning rates are DEAP's, and a diagonal of one is the whole covariance.
    full, separable = FullStrategy(np.array([0.8]), 0.5, 12, 5), SeparableStrategy(np.array([0.8]), 0.5, 12, 5)
    first, second, noise = np.random.default_rng(9), np.random.default_rng(9), np.random.default_rng(1)
    for _ in range(40):
        a, b = full.generate(first), separable.generate(second)
        assert a == pytest.approx(b, rel=1e-12)
        fitness = noisy_sphere(a, noise)
        full.tell(a, fitness)
        separable.tell(a, fitness)
        assert full.centroid == pytest.approx(separable.centroid, rel=1e-10)
        assert full.sigma == pytest.approx(separable.sigma, rel=1e-10)
        assert full.strategy.C[0, 0] == pytest.approx(separable.diagC[0], rel=1e-10)


def test_full_strategy_is_deaps_own_update() -> None:
    """The full strategy's update is DEAP's cma.Strategy's (the refinement's, with libm's exp), on its samples."""
    ours = FullStrategy(np.zeros(5), 0.3, 8, 4)
    deap_strategy = cma.Strategy(centroid=np.zeros(5), sigma=0.3, lambda_=8, mu=4)
    rng, noise = np.random.default_rng(2), np.random.default_rng(4)
    for _ in range(10):
        samples = ours.generate(rng)
        fitness = noisy_sphere(samples, noise)
        ours.tell(samples, fitness)
        population = [creator.StrategySample(row) for row in samples]
        for individual, value in zip(population, fitness):
            individual.fitness = creator.StrategyFitness((value,))
        deap_strategy.update(population)
        assert ours.centroid == pytest.approx(deap_strategy.centroid, rel=1e-12)
        assert ours.strategy.C == pytest.approx(deap_strategy.C, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("kind", [FullStrategy, SeparableStrategy])
def test_each_strategy_finds_the_optimum_of_a_noisy_ellipsoid(kind: type) -> None:
    rng = np.random.default_rng(5)
    strategy = kind(np.zeros(20), 0.2, 14, 7)
    start = float(noisy_sphere(strategy.centroid[None, :], rng)[0])
    for _ in range(150):
        samples = strategy.generate(rng)
        strategy.tell(samples, noisy_sphere(samples, rng))
    assert np.abs(strategy.centroid - 0.3).max() < 0.05
    assert -float(noisy_sphere(strategy.centroid[None, :], rng)[0]) < -start / 100


@pytest.mark.parametrize("kind", [FullStrategy, SeparableStrategy])
def test_a_saved_state_continues_to_the_same_samples_through_a_checkpoint(kind: type, tmp_path) -> None:
    rng = np.random.default_rng(6)
    strategy = kind(rng.uniform(-1, 1, 6), 0.1, 9, 3)
    for _ in range(5):
        samples = strategy.generate(rng)
        strategy.tell(samples, noisy_sphere(samples, rng))
    checkpoint = Checkpoint(0, np.zeros((2, 6)), [0.0, 0.0], [0, 0], np.zeros((0, 6)), [], [], np.zeros((0, 70)), 0,
                            0.0, {}, {"population.size": 2}, {}, strategy.state())
    (tmp_path / "checkpoint.json").write_text(checkpoint_text(checkpoint))
    saved = read_checkpoint(tmp_path).strategy
    assert json.loads((tmp_path / "checkpoint.json").read_text())["strategy"]["kind"] == kind.kind
    continued = strategy_from_state(saved)
    for _ in range(5):
        seed = int(rng.integers(1 << 30))
        a, b = strategy.generate(np.random.default_rng(seed)), continued.generate(np.random.default_rng(seed))
        assert np.array_equal(a, b)
        fitness = noisy_sphere(a, rng)
        strategy.tell(a, fitness)
        continued.tell(b, fitness)
    assert np.array_equal(strategy.centroid, continued.centroid) and strategy.sigma == continued.sigma


def test_a_gas_checkpoint_holds_no_strategy(tmp_path) -> None:
    checkpoint = Checkpoint(0, np.zeros((2, 3)), [0.0, 0.0], [0, 0], np.zeros((0, 3)), [], [], np.zeros((0, 64)), 0,
                            0.0, {}, {"population.size": 2}, {})
    assert '"strategy"' not in checkpoint_text(checkpoint)


@pytest.mark.parametrize(("change", "message"), [
    ({"kind": "pso"}, "unknown kind 'pso'"),
    ({"diagC": np.ones(3)}, "shape"),
    ({"diagC": np.array([1.0, -1.0, 1.0, 1.0])}, "variances above 0"),
    ({"sigma": 0.0}, "positive number"),
    ({"mu": 12}, "between 1 and"),
    ({"centroid": np.array([0.0, np.nan, 0.0, 0.0])}, "finite"),
    ({"updates": -1}, "count"),
])
def test_a_damaged_state_is_named(change: dict, message: str) -> None:
    state = SeparableStrategy(np.zeros(4), 0.1, 6, 3).state() | change
    with pytest.raises(ValueError, match=message):
        strategy_from_state(state)


@pytest.mark.parametrize(("matrix", "message"), [
    (np.array([[1.0, 0.5], [0.2, 1.0]]), "symmetric"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "eigenvalues above 0"),
])
def test_a_full_state_needs_a_covariance_matrix(matrix: np.ndarray, message: str) -> None:
    state = FullStrategy(np.zeros(2), 0.1, 6, 3).state() | {"C": matrix}
    with pytest.raises(ValueError, match=message):
        strategy_from_state(state)

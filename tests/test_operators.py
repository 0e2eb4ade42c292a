"""Variation and selection operators, and breeding one generation from another."""
from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from deap import creator

import ga.evolution.toolbox  # noqa: F401  (creates creator.Individual)
from ga.evolution import operators
from ga.config import Config, config_from_dict
from ga.evolution.toolbox import breed, build_toolbox


def individual(genes: list[float], fitness: float | None = None) -> creator.Individual:
    ind = creator.Individual(genes)
    if fitness is not None:
        ind.fitness.values = (fitness,)
    return ind


# --- one-point crossover ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_cx_one_point_takes_each_side_of_the_drawn_cut_from_one_parent(seed: int) -> None:
    a = [float(i) for i in range(64)]
    b = [float(100 + i) for i in range(64)]
    random.seed(seed)
    cut = random.randrange(64)
    random.seed(seed)
    ind1, ind2 = individual(a), individual(b)
    result = operators.cx_one_point(ind1, ind2)
    assert result[0] is ind1 and result[1] is ind2
    assert list(ind1) == a[:cut] + b[cut:]
    assert list(ind2) == b[:cut] + a[cut:]


def test_cx_one_point_cut_can_be_zero_and_then_swaps_the_parents() -> None:
    seed = next(s for s in range(10_000) if random.Random(s).randrange(64) == 0)
    a, b = [1.0] * 64, [2.0] * 64
    ind1, ind2 = individual(a), individual(b)
    random.seed(seed)
    operators.cx_one_point(ind1, ind2)
    assert list(ind1) == b and list(ind2) == a


def test_cx_one_point_draws_every_cut_position() -> None:
    random.seed(3)
    cuts = set()
    for _ in range(3000):
        ind1, ind2 = individual([0.0] * 8), individual([1.0] * 8)
        operators.cx_one_point(ind1, ind2)
        cuts.add(list(ind1).index(1.0))
    assert cuts == set(range(8))


# --- reset mutation -------------------------------------------------------------------------


def test_mut_reset_rate_is_binomial_and_values_stay_in_range() -> None:
    random.seed(11)
    low, high, p = -0.5, 0.25, 0.03
    sentinel = 5.0  # outside [low, high]: a reset gene is always recognisable
    n_individuals, length = 2000, 64
    reset = 0
    for _ in range(n_individuals):
        ind = individual([sentinel] * length)
        (mutated,) = operators.mut_reset(ind, indpb=p, low=low, high=high)
        assert mutated is ind and len(ind) == length
        changed = [gene for gene in ind if gene != sentinel]
        assert all(low <= gene <= high for gene in changed)
        reset += len(changed)
    n = n_individuals * length
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    assert mean - 4 * sd <= reset <= mean + 4 * sd


def _mut_reset_reference(genes: list[float], indpb: float, low: float, high: float) -> list[float]:
    """The reset as first written: a function call for each gap between reset genes (the shipped runs' draws)."""
    def gap() -> int:
        return 0 if indpb >= 1.0 else int(math.log(1.0 - random.random()) / math.log1p(-indpb))

    if indpb <= 0.0:
        return genes
    i = gap()
    while i < len(genes):
        genes[i] = random.uniform(low, high)
        i += 1 + gap()
    return genes


@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 1e-9, 0.03, 0.15, 0.5, 0.999, 1.0]),
       st.integers(1, 128))
def test_mut_reset_draws_as_the_reference(seed: int, indpb: float, length: int) -> None:
    random.seed(seed)
    expected = _mut_reset_reference([5.0] * length, indpb, -1.0, 1.0)
    after_reference = random.getstate()
    random.seed(seed)
    (mutated,) = operators.mut_reset(individual([5.0] * length), indpb=indpb, low=-1.0, high=1.0)
    assert list(mutated) == expected
    assert random.getstate() == after_reference  # the same draws, so every later draw of a run is the same


@given(st.integers(0, 2**32 - 1), st.integers(2, 70), st.integers(1, 40))
@example(1, 21, 40)
@example(1, 22, 40)  # either side of CPython's switch of method
def test_distinct_pair_draws_what_random_sample_draws(seed: int, n: int, pairs: int) -> None:
    random.seed(seed)
    expected = [tuple(random.sample(range(n), 2)) for _ in range(pairs)]
    after = random.getstate()
    random.seed(seed)
    assert [operators.distinct_pair(n) for _ in range(pairs)] == expected
    assert random.getstate() == after


@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, -3.0, float("nan")]) | st.floats(allow_nan=True),
                max_size=40), st.integers(0, 45))
def test_sel_best_picks_what_deap_s_sel_best_picks(values: list[float], k: int) -> None:
    from deap import tools

    population = [creator.Individual([float(i)]) for i in range(len(values))]
    for ind, value in zip(population, values):
        ind.fitness.values = (value,)
    assert [id(ind) for ind in operators.sel_best(population, k)] == [
        id(ind) for ind in tools.selBest(population, k)]


@given(st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=70))
def test_fitness_statistics_are_deap_s_statistics_of_numpy_s_functions(values: list[float]) -> None:
    from deap import tools

    from ga.evolution.toolbox import fitness_statistics

    population = [creator.Individual([0.0]) for _ in values]
    for ind, value in zip(population, values):
        ind.fitness.values = (value,)
    stats = tools.Statistics(key=lambda ind: ind.fitness.values[0])
    for name, function in (("fitness_min", np.min), ("fitness_mean", np.mean), ("fitness_max", np.max),
                           ("fitness_std", np.std)):
        stats.register(name, function)
    expected = stats.compile(population)
    found = fitness_statistics(population)
    assert list(found) == list(expected)
    assert all(repr(float(found[key])) == repr(float(expected[key])) for key in expected)  # the same digits


def test_an_unevaluated_copy_has_the_genes_and_birth_and_no_fitness() -> None:
    from ga.evolution.toolbox import unevaluated_copy

    parent = creator.Individual([0.25, -1.0, 0.5])
    parent.fitness.values = (0.75,)
    parent.born = 7
    child = unevaluated_copy(parent)
    assert child == parent and child is not parent and type(child) is type(parent)
    assert child.born == 7 and not child.fitness.valid and parent.fitness.values == (0.75,)
    child[0] = 9.0
    child.fitness.values = (0.1,)
    assert parent[0] == 0.25 and parent.fitness.values == (0.75,)  # nothing shared


def test_mut_reset_with_probability_zero_and_one() -> None:
    random.seed(1)
    ind = individual([5.0] * 64)
    operators.mut_reset(ind, indpb=0.0, low=-1.0, high=1.0)
    assert list(ind) == [5.0] * 64
    operators.mut_reset(ind, indpb=1.0, low=-1.0, high=1.0)
    assert all(-1.0 <= gene <= 1.0 for gene in ind)
    assert len(set(ind)) == 64  # uniform draws, not one value


def test_clip_keeps_genes_in_range() -> None:
    ind = individual([-3.0, -1.0, 0.5, 1.0, 7.0])
    assert operators.clip(ind, -1.0, 1.0) is ind
    assert list(ind) == [-1.0, -1.0, 0.5, 1.0, 1.0]


# --- adjacent-pairs selection --------------------------------------------------------------


def test_sel_adjacent_pairs_picks_the_fitter_of_each_pair_and_the_second_on_ties() -> None:
    fitnesses = [0.1, 0.9, 0.8, 0.2, 0.5, 0.5, -1.0, -2.0]
    population = [individual([float(i)], f) for i, f in enumerate(fitnesses)]
    winners = operators.sel_adjacent_pairs(population, 4)
    assert [w is population[i] for w, i in zip(winners, [1, 2, 5, 6])] == [True] * 4


def test_sel_adjacent_pairs_compares_only_within_fixed_pairs() -> None:
    # The pairs are fixed by position: the best two in one pair means only one survives.
    population = [individual([float(i)], f) for i, f in enumerate([1.0, 0.99, 0.0, 0.1])]
    winners = operators.sel_adjacent_pairs(population, 2)
    assert winners[0] is population[0] and winners[1] is population[3]


@pytest.mark.parametrize(("size", "k"), [(5, 2), (7, 3), (6, 2), (6, 4)])
def test_sel_adjacent_pairs_rejects_odd_populations_and_wrong_k(size: int, k: int) -> None:
    population = [individual([float(i)], float(i)) for i in range(size)]
    with pytest.raises(ValueError, match=rf"needs an even population and k = half of it, got {size} and {k}"):
        operators.sel_adjacent_pairs(population, k)


# --- breeding ---------------------------------------------------------------------------------


def small_config(**sections: dict) -> Config:
    data = {
        "population": {"size": 10, "parents": 5},
        "selection": {"method": "tournament", "tournament_size": 2},
        "compute": {"workers": 1},
    }
    for name, values in sections.items():
        data[name] = data.get(name, {}) | values
    return config_from_dict(data)


def constant_population(size: int, length: int = 64) -> list:
    # Individual i is the constant vector i (fitness i): parents are told apart by value.
    return [individual([float(i)] * length, float(i)) for i in range(size)]


@pytest.mark.shows("population.size", "selection.elitism")
def test_breed_makes_population_size_individuals_elites_first() -> None:
    config = small_config(selection={"elitism": 3, "reevaluate_elites": False})
    toolbox = build_toolbox(config)
    random.seed(5)
    population = constant_population(10)
    offspring = breed(population, toolbox, config)
    assert len(offspring) == 10
    elites, children = offspring[:3], offspring[3:]
    assert [list(e) for e in elites] == [[9.0] * 64, [8.0] * 64, [7.0] * 64]
    assert [e.fitness.values for e in elites] == [(9.0,), (8.0,), (7.0,)]
    assert all(e is not p for e in elites for p in population)  # copies, not the parents themselves
    assert not any(child.fitness.valid for child in children)
    # The parents are unchanged by breeding.
    assert [list(p) for p in population] == [[float(i)] * 64 for i in range(10)]


def test_breed_deletes_elite_fitness_when_reevaluating() -> None:
    config = small_config(selection={"elitism": 2, "reevaluate_elites": True})
    toolbox = build_toolbox(config)
    random.seed(5)
    offspring = breed(constant_population(10), toolbox, config)
    assert [list(e) for e in offspring[:2]] == [[9.0] * 64, [8.0] * 64]
    assert not any(ind.fitness.valid for ind in offspring)


@pytest.mark.shows("population.parents", "selection.method")
def test_breed_mates_two_distinct_parents() -> None:
    # Adjacent pairs select 5 distinct individuals; uniform crossover of two
    # different constant vectors gives a child with both values (all one value
    # with probability 2**-63 per child), so a child with one value means its
    # two parents were the same individual.
    config = small_config(
        population={"size": 10, "parents": 5},
        selection={"method": "adjacent-pairs", "elitism": 0},
        crossover={"method": "uniform", "probability": 1.0, "gene_probability": 0.5},
        mutation={"gene_probability": 0.0},
    )
    toolbox = build_toolbox(config)
    mates: list[tuple[float, float]] = []
    mate = toolbox.mate

    def recording_mate(first: Any, second: Any) -> tuple[Any, Any]:
        mates.append((first[0], second[0]))  # constant vectors: gene 0 names the parent
        return mate(first, second)

    toolbox.register("mate", recording_mate)
    winners = {1.0, 3.0, 5.0, 7.0, 9.0}  # the second of each pair is fitter
    for seed in range(30):
        random.seed(seed)
        offspring = breed(constant_population(10), toolbox, config)
        assert len(offspring) == 10
        for child in offspring:
            values = set(child)
            assert len(values) == 2, "a child of one parent with itself"
            assert values <= winners
    assert len(mates) == 30 * 10
    assert all(first != second for first, second in mates)


@pytest.mark.shows("crossover.probability", "mutation.gene_probability")
def test_breed_without_crossover_or_mutation_copies_selected_parents() -> None:
    config = small_config(
        selection={"method": "adjacent-pairs", "elitism": 0},
        crossover={"probability": 0.0},
        mutation={"gene_probability": 0.0},
    )
    toolbox = build_toolbox(config)
    random.seed(2)
    offspring = breed(constant_population(10), toolbox, config)
    assert {child[0] for child in offspring} <= {1.0, 3.0, 5.0, 7.0, 9.0}
    assert all(len(set(child)) == 1 for child in offspring)


@pytest.mark.shows("mutation.low", "mutation.high")
def test_breed_gaussian_mutation_is_clipped_to_the_mutation_range() -> None:
    config = small_config(mutation={"method": "gaussian", "sigma": 5.0, "gene_probability": 1.0, "low": -1.0, "high": 1.0})
    toolbox = build_toolbox(config)
    random.seed(8)
    population = [individual([0.0] * 64, float(i)) for i in range(10)]
    offspring = breed(population, toolbox, config)
    genes = [g for child in offspring for g in child]
    assert all(-1.0 <= g <= 1.0 for g in genes)
    assert any(g in (-1.0, 1.0) for g in genes)  # sigma 5: many genes hit the bounds


def test_breed_is_a_function_of_the_random_state() -> None:
    config = small_config(selection={"elitism": 1})
    toolbox = build_toolbox(config)
    population = [individual([random.Random(i).uniform(-1, 1) for _ in range(64)], float(i % 4)) for i in range(10)]
    random.seed(42)
    first = [list(ind) for ind in breed(population, toolbox, config)]
    random.seed(42)
    second = [list(ind) for ind in breed(population, toolbox, config)]
    random.seed(43)
    third = [list(ind) for ind in breed(population, toolbox, config)]
    assert first == second
    assert first != third


# --- by value: selection pressure and the Gaussian step --------------------------------------------------


@pytest.mark.shows("selection.tournament_size", "selection.method")
@pytest.mark.parametrize("size", [2, 3, 5])
def test_tournament_selection_picks_the_best_as_often_as_its_size_says(size: int) -> None:
    # With k contestants drawn with replacement from n, the best wins a draw with probability 1 - ((n-1)/n)^k.
    n, draws = 10, 20_000
    toolbox = build_toolbox(small_config(selection={"tournament_size": size}))
    population = constant_population(n)
    random.seed(5)
    picks = [toolbox.select(population, 1)[0].fitness.values[0] for _ in range(draws)]
    expected = 1 - ((n - 1) / n) ** size
    share = picks.count(float(n - 1)) / draws
    assert abs(share - expected) < 4 * math.sqrt(expected * (1 - expected) / draws)


@pytest.mark.shows("mutation.method", "mutation.gene_probability", "mutation.sigma")
def test_gaussian_mutation_moves_its_share_of_genes_by_sigma() -> None:
    # sigma 0.02 and gene_probability 0.3: 30% of genes move, by steps of standard deviation 0.02.
    config = small_config(mutation={"method": "gaussian", "sigma": 0.02, "gene_probability": 0.3,
                                    "low": -10.0, "high": 10.0})
    toolbox = build_toolbox(config)
    random.seed(6)
    steps = []
    moved = 0
    for _ in range(200):
        child = individual([0.0] * 64, 0.0)
        toolbox.mutate(child)
        moved += sum(1 for gene in child if gene != 0.0)
        steps += [gene for gene in child if gene != 0.0]
    share = moved / (200 * 64)
    assert abs(share - 0.3) < 4 * math.sqrt(0.3 * 0.7 / (200 * 64))
    assert 0.018 < float(np.std(steps)) < 0.022


# --- each method a config names, by value -----------------------------------------------------


@pytest.mark.shows("selection.method")
def test_best_selection_takes_the_k_fittest() -> None:
    toolbox = build_toolbox(small_config(selection={"method": "best"}))
    population = [individual([float(i)], float((i * 7) % 10)) for i in range(10)]
    chosen = toolbox.select(population, 4)
    assert sorted(ind.fitness.values[0] for ind in chosen) == [6.0, 7.0, 8.0, 9.0]


@pytest.mark.shows("selection.method")
def test_roulette_selection_is_proportional_even_when_the_fitness_sum_is_below_one() -> None:
    toolbox = build_toolbox(small_config(selection={"method": "roulette"}))
    population = [individual([float(i)], 0.5 if i == 0 else 0.0) for i in range(10)]  # sum 0.5
    random.seed(7)
    assert all(ind[0] == 0.0 for _ in range(50) for ind in toolbox.select(population, 5))
    zeros = [individual([float(i)], 0.0) for i in range(10)]  # sum 0: a uniform pick instead of none
    picked = {ind[0] for _ in range(50) for ind in toolbox.select(zeros, 5)}
    assert len(picked) == 10


@pytest.mark.shows("crossover.method")
def test_two_point_crossover_swaps_one_inner_segment() -> None:
    toolbox = build_toolbox(small_config(crossover={"method": "two-point"}))
    random.seed(3)
    segments = set()
    for _ in range(300):
        child, other = toolbox.mate(individual([0.0] * 64), individual([1.0] * 64))
        changes = [k for k in range(1, 64) if child[k] != child[k - 1]]
        assert len(changes) <= 2 and child[0] == 0.0  # 0..0 1..1 0..0: one segment from the other parent
        assert [a + b for a, b in zip(child, other)] == [1.0] * 64
        segments.add(len(changes))
    assert segments == {1, 2}  # both cuts inside, and the second at the end


@pytest.mark.shows("crossover.method")
def test_no_crossover_leaves_both_parents_as_they_were() -> None:
    config = small_config(crossover={"method": "none", "probability": 1.0}, mutation={"gene_probability": 0.0},
                          selection={"method": "tournament", "tournament_size": 2, "elitism": 0})
    toolbox = build_toolbox(config)
    first, second = individual([0.0] * 64), individual([1.0] * 64)
    assert toolbox.mate(first, second) == (first, second) and set(first) == {0.0} and set(second) == {1.0}
    random.seed(4)
    assert all(len(set(child)) == 1 for child in breed(constant_population(10), toolbox, config))


@pytest.mark.shows("mutation.method", "mutation.low", "mutation.high")
def test_reset_mutation_redraws_genes_uniformly_in_its_range() -> None:
    toolbox = build_toolbox(small_config(mutation={"method": "reset", "gene_probability": 1.0, "low": 5.0,
                                                   "high": 6.0}))
    random.seed(5)
    genes = np.array([list(toolbox.mutate(individual([0.0] * 64))[0]) for _ in range(50)]).ravel()
    assert genes.min() >= 5.0 and genes.max() <= 6.0 and abs(genes.mean() - 5.5) < 0.03


@pytest.mark.shows("mutation.method", "mutation.sigma")
def test_gaussian_mutation_is_centred_on_the_gene() -> None:
    toolbox = build_toolbox(small_config(mutation={"method": "gaussian", "gene_probability": 1.0, "sigma": 0.1}))
    random.seed(6)
    steps = np.array([list(toolbox.mutate(individual([0.0] * 64))[0]) for _ in range(50)]).ravel()
    assert abs(steps.mean()) < 5 * 0.1 / np.sqrt(steps.size) and abs(steps.std() - 0.1) < 0.01


@pytest.mark.shows("crossover.alpha", "mutation.low", "mutation.high")
def test_breeding_with_blend_crossover_keeps_children_in_the_mutation_range() -> None:
    config = small_config(crossover={"method": "blend", "alpha": 0.5}, mutation={"gene_probability": 0.0,
                                                                                 "low": -1.0, "high": 1.0},
                          selection={"method": "tournament", "tournament_size": 2, "elitism": 0})
    toolbox = build_toolbox(config)
    population = [individual([-1.0 if i % 2 else 1.0] * 64, float(i)) for i in range(10)]
    random.seed(8)
    genes = np.array([list(child) for _ in range(20) for child in breed(population, toolbox, config)])
    assert genes.min() == -1.0 and genes.max() == 1.0  # blend reaches past both parents, and is clipped


def test_reset_mutation_hits_every_position_at_its_rate() -> None:
    random.seed(9)
    hits = np.zeros(64)
    trials = 3000
    for _ in range(trials):
        mutated = operators.mut_reset(individual([0.0] * 64), 0.1, 1.0, 2.0)[0]
        hits += np.array(mutated) != 0.0
    bound = 5 * np.sqrt(0.1 * 0.9 / trials)
    assert np.all(np.abs(hits / trials - 0.1) < bound)  # the first and the last genes included



@pytest.mark.shows("selection.method")
def test_stochastic_universal_sampling_picks_equal_fitness_evenly_and_roulette_does_not() -> None:
    population = [individual([float(i)], 1.0) for i in range(10)]
    random.seed(11)
    sus = build_toolbox(small_config(selection={"method": "stochastic-universal"}))
    # One spin with ten evenly spaced pointers: with equal fitness, every individual exactly once.
    assert all(sorted(ind[0] for ind in sus.select(population, 10)) == [float(i) for i in range(10)]
               for _ in range(50))
    roulette = build_toolbox(small_config(selection={"method": "roulette"}))
    # Ten independent spins: some individual is picked twice in almost every draw (1 - 10!/10^10).
    assert sum(len({ind[0] for ind in roulette.select(population, 10)}) < 10 for _ in range(50)) >= 45


"""The DEAP side of an experiment: individuals, the toolbox of operators, and breeding.

DEAP's operators draw from the module-level ``random``: the loop reseeds it
from (run seed, generation) before breeding, so a generation depends only on
the run seed and the previous population.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from deap import base, creator, tools

from ga.config import Config
from ga.evolution import operators
from ga.evolution.genome import GenomeLayout, gene_matrix, genome_length

__all__ = ["HallOfFame", "breed", "breed_networks", "build_toolbox", "clone", "fitness_statistics", "individuals",
           "initial_genes", "network_individual", "same_genes", "unevaluated_copy"]

if not hasattr(creator, "FitnessMax"):
    creator.create("FitnessMax", base.Fitness, weights=(1.0,))
if not hasattr(creator, "Individual"):
    # Lists, not numpy arrays: DEAP's slice-swapping crossovers silently
    # duplicate genes on arrays.
    creator.create("Individual", list, fitness=creator.FitnessMax, born=0)
if not hasattr(creator, "NetworkIndividual"):
    # A network's genome (thousands of genes): a numpy array, varied by numpy (operators' rows), as DEAP's
    # creator makes individuals of numpy arrays.
    creator.create("NetworkIndividual", np.ndarray, fitness=creator.FitnessMax, born=0)


def network_individual(genes: Any, born: int = 0) -> Any:
    """Returns a network's individual: a copy of ``genes`` with no fitness, born in generation ``born``."""
    individual = np.array(genes, dtype=np.float64).view(creator.NetworkIndividual)
    individual.fitness = creator.FitnessMax.__new__(creator.FitnessMax)  # as unevaluated_copy makes it
    individual.born = born
    return individual


def same_genes(first: Any, second: Any) -> bool:
    """Says whether two individuals have the same genes (the hall of fame keeps one of equals)."""
    if isinstance(first, np.ndarray):
        return bool(np.array_equal(first, second))
    return list(first) == list(second)


def unevaluated_copy(individual: Any) -> Any:
    """Returns a copy of an individual's genes and birth generation with no fitness (a child to be evaluated)."""
    if isinstance(individual, np.ndarray):
        return network_individual(individual, individual.born)
    copy = creator.Individual.__new__(creator.Individual)
    list.__init__(copy, individual)
    # What FitnessMax() makes, without its __init__ (no values: the class's empty wvalues): this runs
    # for every child of every generation.
    copy.fitness = creator.FitnessMax.__new__(creator.FitnessMax)
    copy.born = individual.born
    return copy


def clone(individual: Any) -> Any:
    """Returns a copy of an individual with its fitness (``deepcopy`` is far slower on 64 floats)."""
    copy = unevaluated_copy(individual)
    copy.fitness.wvalues = individual.fitness.wvalues  # a tuple: safe to share
    return copy


class HallOfFame(tools.HallOfFame):
    """DEAP's hall of fame, keeping :func:`clone`'s copies rather than ``deepcopy``'s (the same genes and fitness)."""

    def insert(self, item: Any) -> None:
        item = clone(item)
        i = bisect.bisect_right(self.keys, item.fitness)
        self.items.insert(len(self) - i, item)
        self.keys.insert(i, item.fitness)


def individuals(genes: Sequence[Sequence[float]], values: Sequence[float | None], born: Sequence[int],
                arrays: bool = False) -> list[Any]:
    """Returns DEAP individuals with these genes, fitness values (None: not evaluated) and birth generations
    (``arrays``: a network's, numpy arrays)."""
    made = []
    for gene_list, value, generation in zip(genes, values, born):
        ind = network_individual(gene_list) if arrays else creator.Individual(float(g) for g in gene_list)
        if value is not None:
            ind.fitness.values = (value,)
        ind.born = generation
        made.append(ind)
    return made


def build_toolbox(config: Config) -> base.Toolbox:
    """Returns the DEAP toolbox of an experiment: population, mate, mutate, select."""
    pop, sel, cx, mut = config.population, config.selection, config.crossover, config.mutation
    toolbox = base.Toolbox()
    toolbox.register("clone", clone)
    toolbox.register("gene", random.uniform, pop.init_low, pop.init_high)
    toolbox.register("individual", tools.initRepeat, creator.Individual, toolbox.gene, genome_length(pop.genome, len(pop.features)))
    toolbox.register("population", tools.initRepeat, list, toolbox.individual)
    if sel.method == "adjacent-pairs":
        toolbox.register("select", operators.sel_adjacent_pairs)
    elif sel.method == "tournament":
        toolbox.register("select", tools.selTournament, tournsize=sel.tournament_size)
    elif sel.method == "best":
        toolbox.register("select", operators.sel_best)
    elif sel.method == "roulette":
        toolbox.register("select", operators.sel_fitness_proportional, method=tools.selRoulette)
    else:
        toolbox.register("select", operators.sel_fitness_proportional,
                         method=tools.selStochasticUniversalSampling)
    if cx.method == "one-point":
        toolbox.register("mate", operators.cx_one_point)
    elif cx.method == "two-point":
        toolbox.register("mate", tools.cxTwoPoint)
    elif cx.method == "uniform":
        toolbox.register("mate", tools.cxUniform, indpb=cx.gene_probability)
    elif cx.method == "blend":
        toolbox.register("mate", tools.cxBlend, alpha=cx.alpha)
    else:
        toolbox.register("mate", lambda a, b: (a, b))
    if mut.method == "reset":
        toolbox.register("mutate", operators.mut_reset, indpb=mut.gene_probability, low=mut.low, high=mut.high)
    else:
        toolbox.register("mutate", tools.mutGaussian, mu=0.0, sigma=mut.sigma, indpb=mut.gene_probability)
    return toolbox


def breed(population: list[Any], toolbox: base.Toolbox, config: Config) -> list[Any]:
    """Returns the next generation: elites, then children of two distinct selected parents.

    As in the blog, each child is the first offspring of one crossover of two
    distinct parents, then mutated. Children have no fitness; elites keep
    theirs unless ``selection.reevaluate_elites`` (fitness is noisy: a lucky
    score must not survive forever).
    """
    sel, cx, mut = config.selection, config.crossover, config.mutation
    # (A sort of the whole population even for none: the blog's runs keep no elites.)
    elites = [toolbox.clone(ind) for ind in operators.sel_best(population, sel.elitism)] if sel.elitism else []
    if sel.reevaluate_elites:
        for elite in elites:
            del elite.fitness.values
    parents = toolbox.select(population, config.population.parents)
    children = []
    # Looked up once: this loop runs for every child of every generation.
    mate, mutate, crossing, draw, count = toolbox.mate, toolbox.mutate, cx.probability, random.random, len(parents)
    clipped = cx.method == "blend" or mut.method == "gaussian"
    for _ in range(config.population.size - sel.elitism):
        first, second = operators.distinct_pair(count)
        # The second offspring is thrown away: a plain copy of its genes is all the crossover needs.
        child, other = unevaluated_copy(parents[first]), list(parents[second])
        if draw() < crossing:
            mate(child, other)
        mutate(child)
        if clipped:
            operators.clip(child, mut.low, mut.high)
        children.append(child)
    return elites + children


def initial_genes(config: Config, layout: GenomeLayout, count: int, rng: np.random.Generator) -> np.ndarray:
    """Returns ``count`` rows of a network genome's first genes: the squares' and features' uniform in
    [population.init_low, population.init_high], the network's in [-patterns.init, patterns.init]."""
    pop = config.population
    head = layout.length - layout.network
    genes = np.empty((count, layout.length), dtype=np.float64)
    genes[:, :head] = rng.uniform(pop.init_low, pop.init_high, size=(count, head))
    init = config.patterns.init
    genes[:, head:] = rng.uniform(-init, init, size=(count, layout.network)) if init else 0.0
    return genes


def vary_networks(children: np.ndarray, config: Config, layout: GenomeLayout, rng: np.random.Generator) -> None:
    """Mutates rows of network genes in place: the squares' and features' genes as [mutation] says, each
    network weight with probability mutation.gene_probability by N(0, patterns.sigma), clipped to
    +-patterns.bound."""
    mut, patterns = config.mutation, config.patterns
    head = children[:, :layout.length - layout.network]
    if head.shape[1]:
        if mut.method == "reset":
            operators.mut_reset_rows(head, mut.gene_probability, mut.low, mut.high, rng)
        else:
            operators.mut_gaussian_rows(head, mut.gene_probability, mut.sigma, rng)
            np.clip(head, mut.low, mut.high, out=head)
    network = children[:, layout.network_genes]
    operators.mut_gaussian_rows(network, mut.gene_probability, patterns.sigma, rng)
    np.clip(network, -patterns.bound, patterns.bound, out=network)


def breed_networks(population: list[Any], toolbox: base.Toolbox, config: Config, layout: GenomeLayout,
                   rng: np.random.Generator) -> list[Any]:
    """Returns the next generation of a network's GA: elites, then children of two distinct selected parents.

    As :func:`breed`: selection, the pairs and whether each is crossed draw
    from ``random``; the crossover (``tuples``: each tuple's table whole from
    either parent) and the mutation (:func:`vary_networks`) draw from ``rng``,
    on every child's genes at once.
    """
    sel, cx = config.selection, config.crossover
    elites = [toolbox.clone(ind) for ind in operators.sel_best(population, sel.elitism)] if sel.elitism else []
    if sel.reevaluate_elites:
        for elite in elites:
            del elite.fitness.values
    parents = toolbox.select(population, config.population.parents)
    count, draw = config.population.size - sel.elitism, random.random
    firsts, seconds, crossed = [], [], []
    for _ in range(count):
        first, second = operators.distinct_pair(len(parents))
        firsts.append(first)
        seconds.append(second)
        crossed.append(draw() < cx.probability)
    genes = gene_matrix(parents)
    children = genes[firsts]
    rows = np.flatnonzero(crossed)
    if cx.method == "tuples" and rows.size:
        children[rows] = operators.cx_tuples(children[rows], genes[np.asarray(seconds)[rows]], layout.units,
                                             cx.gene_probability, rng)
    vary_networks(children, config, layout, rng)
    return elites + [network_individual(row, parents[first].born) for row, first in zip(children, firsts)]


def fitness_statistics(population: Sequence[Any]) -> dict[str, np.float64]:
    """Returns the minimum, mean, maximum and standard deviation of a population's fitness.

    The numbers of a ``deap.tools.Statistics`` registering ``np.min``, ``np.mean``,
    ``np.max`` and ``np.std`` (which each turn the values into this array
    again: a quarter of the time, every generation).
    """
    values = np.fromiter((ind.fitness.values[0] for ind in population), np.float64, len(population))
    return {"fitness_min": values.min(), "fitness_mean": values.mean(), "fitness_max": values.max(),
            "fitness_std": values.std()}


def diversity(genes: np.ndarray) -> float:
    """Returns the mean over genes of the standard deviation across individuals (rows)."""
    return float(genes.std(axis=0).mean())

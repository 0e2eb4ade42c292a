"""Variation and selection operators that DEAP does not ship.

They follow DEAP's contract: they draw from the module-level ``random`` (the
evolution loop reseeds it from the run seed every generation), change
individuals in place and return a tuple.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

import numpy as np

Individual = Any  # a deap creator Individual: a list of floats with .fitness


def sel_adjacent_pairs(individuals: Sequence[Individual], k: int) -> list[Individual]:
    """Returns the winners of the fixed pairs (0, 1), (2, 3), ... (the 2021 blog's tournament).

    The higher fitness wins; a tie goes to the second of the pair. ``k`` must be
    half the population.
    """
    if len(individuals) % 2 or k != len(individuals) // 2:
        raise ValueError(f"adjacent-pairs selection needs an even population and k = half of it, got {len(individuals)} and {k}")
    winners = []
    for first, second in zip(individuals[::2], individuals[1::2]):
        winners.append(first if first.fitness.values[0] > second.fitness.values[0] else second)
    return winners


def sel_best(individuals: Sequence[Individual], k: int) -> list[Individual]:
    """Returns what ``deap.tools.selBest(individuals, k)`` returns, sorting on the fitness tuples themselves.

    selBest sorts on the fitness objects, whose ``<`` is a Python method
    comparing their ``wvalues``; sorting on the ``wvalues`` compares the same
    tuples with no call between, so the order (ties included: both sorts are
    stable) is the same, five times faster. It runs twice a generation.
    """
    return sorted(individuals, key=_WVALUES, reverse=True)[:k]


_WVALUES = attrgetter("fitness.wvalues")


def sel_fitness_proportional(individuals: Sequence[Individual], k: int, method: Callable[..., list[Individual]]) -> list[Individual]:
    """Returns ``method(individuals, k)`` (DEAP's roulette or SUS), or a uniform pick when all fitness is 0.

    DEAP's fitness-proportional selections pick nobody when the fitness sum is
    0, which happens early against a strong opponent.
    """
    if sum(ind.fitness.values[0] for ind in individuals) <= 0:
        return [random.choice(individuals) for _ in range(k)]
    return method(individuals, k)


def distinct_pair(n: int) -> tuple[int, int]:
    """Returns ``random.sample(range(n), 2)`` as a tuple, drawing exactly what it draws, three times faster.

    CPython's ``sample`` takes the second from the ``n - 1`` left when ``n`` is
    at most 21 (its small-population branch), and otherwise redraws until the
    second differs; both draw with ``randrange``'s generator. In line rather
    than ``sample``: it runs for every child of every generation.
    """
    randrange = random.randrange
    first = randrange(n)
    if n <= 21:
        second = randrange(n - 1)
        return first, second if second != first else n - 1
    second = randrange(n)
    while second == first:
        second = randrange(n)
    return first, second


def cx_one_point(ind1: Individual, ind2: Individual) -> tuple[Individual, Individual]:
    """Swaps the genes from a cut point drawn uniformly over all positions on.

    Unlike ``deap.tools.cxOnePoint`` the cut may be 0 (the blog's
    ``rand() % 64``): then the children are the parents swapped.
    """
    cut = random.randrange(len(ind1))
    ind1[cut:], ind2[cut:] = ind2[cut:], ind1[cut:]
    return ind1, ind2


def mut_reset(individual: Individual, indpb: float, low: float, high: float) -> tuple[Individual]:
    """Resets each gene with probability ``indpb`` to a uniform draw in [low, high].

    The gaps between reset genes are drawn from their geometric distribution,
    which is the same per-gene Bernoulli process with a few draws instead of
    one per gene.
    """
    if indpb <= 0.0:
        return (individual,)
    if indpb >= 1.0:
        for i in range(len(individual)):
            individual[i] = random.uniform(low, high)
        return (individual,)
    # Genes skipped before the next reset: P(gap >= k) = (1 - indpb) ** k. In line, not a function:
    # this runs for every child of every generation.
    log_keep, draw, log, size = math.log1p(-indpb), random.random, math.log, len(individual)
    i = int(log(1.0 - draw()) / log_keep)
    while i < size:
        individual[i] = random.uniform(low, high)
        i += 1 + int(log(1.0 - draw()) / log_keep)
    return (individual,)


def clip(individual: Individual, low: float, high: float) -> Individual:
    """Clips every gene into [low, high] in place."""
    for i, gene in enumerate(individual):
        individual[i] = min(max(gene, low), high)
    return individual


# --- a population of networks: rows of genes, changed by numpy ------------------------------------
#
# A network's genome has thousands of genes: drawn gene by gene in Python its variation would cost more than
# its games. These operators take the rows of many children at once and draw from a numpy generator (the loop
# seeds it from the run seed and the generation, as it seeds ``random``).


def cx_tuples(first: np.ndarray, second: np.ndarray, units: np.ndarray, probability: float,
              rng: np.random.Generator) -> np.ndarray:
    """Returns children (rows) that take each unit of genes whole from ``second`` with ``probability``, else
    from ``first``: a unit is a tuple's table with all its phases, the squares' genes, or the features' genes
    (:attr:`ga.evolution.genome.GenomeLayout.units`), so that no table is cut."""
    take = rng.random((first.shape[0], units.size)) < probability
    return np.where(np.repeat(take, units, axis=1), second, first)


def mut_gaussian_rows(rows: np.ndarray, probability: float, sigma: float, rng: np.random.Generator) -> None:
    """Adds N(0, sigma) to each gene of ``rows`` with ``probability`` (in place; row by row, gene by gene)."""
    mutated = rng.random(rows.shape) < probability
    rows[mutated] += rng.normal(0.0, sigma, int(np.count_nonzero(mutated)))


def mut_reset_rows(rows: np.ndarray, probability: float, low: float, high: float, rng: np.random.Generator) -> None:
    """Redraws each gene of ``rows`` with ``probability`` uniformly in [low, high] (in place)."""
    mutated = rng.random(rows.shape) < probability
    rows[mutated] = rng.uniform(low, high, int(np.count_nonzero(mutated)))

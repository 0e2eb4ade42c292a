"""How a run's population is made and varied: the GA of tables, the GA of networks, or CMA-ES ([patterns] method).

The generation loop (:mod:`ga.evolution.loop`) asks its method for the
first population, then for each next one from the last (evaluated), and for
what its checkpoints must hold to continue. Every draw is seeded from the
run seed and the generation, so that a resumed run makes the same
generations as one that never stopped:

- :class:`TableGA`: DEAP's operators on lists of genes, drawing from
  Python's ``random`` (the tables' GA, exactly as it always was);
- :class:`NetworkGA`: the same selection, then crossover by whole tuples and
  Gaussian mutation on numpy rows (thousands of genes), and the optional TD
  step (:mod:`ga.evolution.td`);
- :class:`NetworkCMA`: CMA-ES (DEAP's full covariance, or the separable
  variant: :mod:`ga.evolution.strategies`) sampling each generation from the
  distribution the last one's fitness updated. Its samples live in a space
  where every gene has the same scale: a network weight is its sample, a
  square's or feature's its sample times mutation.sigma / patterns.sigma (so
  the first steps are patterns.sigma and mutation.sigma); each is clipped to
  its bounds, and the update reads the clipped samples.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from deap import base

from ga.config import CMA_METHODS, Config
from ga.evolution.genome import GenomeLayout, gene_matrix
from ga.evolution.strategies import FullStrategy, SeparableStrategy, strategy_from_state
from ga.evolution.td import TDStep
from ga.evolution.toolbox import breed, breed_networks, individuals, initial_genes
from ga.games.seeds import GLOBAL_GENERATORS, Stream, derive_seed
from ga.rundir.checkpoint import Checkpoint
from ga.rundir.layout import RunDirError

__all__ = ["Method", "NetworkCMA", "NetworkGA", "TableGA", "checked_strategy", "method_of"]


class TableGA:
    """The GA of tables (squares and features): DEAP's toolbox on lists of genes."""

    def __init__(self, config: Config, toolbox: base.Toolbox, layout: GenomeLayout) -> None:
        self.config, self.toolbox, self.layout = config, toolbox, layout
        self.seed = config.experiment.seed
        self.td_games = 0  # TD self-play games the last population's making played

    def first(self) -> list[Any]:
        """Returns generation 0."""
        with GLOBAL_GENERATORS:
            random.seed(derive_seed(self.seed, Stream.INIT))
            return self.toolbox.population(n=self.config.population.size)

    def next(self, population: list[Any], generation: int) -> list[Any]:
        """Returns generation ``generation`` bred from the last one (evaluated)."""
        with GLOBAL_GENERATORS:
            random.seed(derive_seed(self.seed, Stream.VARIATION, generation))
            return breed(population, self.toolbox, self.config)

    def restore(self, checkpoint: Checkpoint) -> list[Any]:
        """Returns the population a checkpoint saved (and takes up whatever else the method saved with it)."""
        return individuals(checkpoint.population, checkpoint.fitness, checkpoint.born)

    def state(self) -> dict[str, Any]:
        """Returns what the checkpoint of the current generation must hold besides the population (nothing)."""
        return {}

    def mean(self, population: Sequence[Any]) -> np.ndarray | None:
        """Returns the genes of the run's mean table, or None for the mean of the population's tables."""
        return None


class NetworkGA(TableGA):
    """The GA of a pattern network: selection as the tables', crossover by whole tuples and Gaussian mutation on
    numpy rows, then the TD step when [td] asks for one."""

    def __init__(self, config: Config, toolbox: base.Toolbox, layout: GenomeLayout, workers: int) -> None:
        super().__init__(config, toolbox, layout)
        self.td = TDStep(config, layout, workers) if config.td.games else None

    def _learn(self, population: list[Any], generation: int) -> list[Any]:
        self.td_games = self.td(population, generation) if self.td is not None else 0
        return population

    def first(self) -> list[Any]:
        rng = np.random.default_rng(derive_seed(self.seed, Stream.INIT))
        genes = initial_genes(self.config, self.layout, self.config.population.size, rng)
        return self._learn(individuals(genes, [None] * len(genes), [0] * len(genes), arrays=True), 0)

    def next(self, population: list[Any], generation: int) -> list[Any]:
        # Selection and pairing draw from random, as the tables' GA does; the rows' variation from numpy.
        rng = np.random.default_rng(derive_seed(self.seed, Stream.VARIATION, generation, 1))
        with GLOBAL_GENERATORS:
            random.seed(derive_seed(self.seed, Stream.VARIATION, generation))
            children = breed_networks(population, self.toolbox, self.config, self.layout, rng)
        return self._learn(children, generation)

    def restore(self, checkpoint: Checkpoint) -> list[Any]:
        return individuals(checkpoint.population, checkpoint.fitness, checkpoint.born, arrays=True)


class NetworkCMA(TableGA):
    """CMA-ES over a network's genome (see the module's docstring): lambda = population.size samples a
    generation, mu = population.parents of them update the distribution."""

    def __init__(self, config: Config, toolbox: base.Toolbox, layout: GenomeLayout) -> None:
        super().__init__(config, toolbox, layout)
        mutation, patterns = config.mutation, config.patterns
        head = layout.length - layout.network
        self.scale = np.ones(layout.length)
        self.scale[:head] = mutation.sigma / patterns.sigma
        self.low = np.full(layout.length, -patterns.bound)
        self.high = np.full(layout.length, patterns.bound)
        self.low[:head], self.high[:head] = mutation.low, mutation.high
        self.kind = FullStrategy if patterns.method == "cma-es" else SeparableStrategy
        self.strategy: FullStrategy | SeparableStrategy | None = None
        self._state: dict[str, Any] = {}

    def _sample(self, generation: int) -> list[Any]:
        assert self.strategy is not None
        self._state = self.strategy.state()  # the strategy that sampled this generation: its checkpoint's
        rng = np.random.default_rng(derive_seed(self.seed, Stream.SAMPLES, generation))
        genes = np.clip(self.strategy.generate(rng) * self.scale, self.low, self.high)
        return individuals(genes, [None] * len(genes), [generation] * len(genes), arrays=True)

    def first(self) -> list[Any]:
        rng = np.random.default_rng(derive_seed(self.seed, Stream.INIT))
        start = initial_genes(self.config, self.layout, 1, rng)[0]
        population = self.config.population
        self.strategy = self.kind(start / self.scale, self.config.patterns.sigma, population.size, population.parents)
        return self._sample(0)

    def _told(self, strategy: FullStrategy | SeparableStrategy, population: Sequence[Any]) -> None:
        fitness = np.array([individual.fitness.values[0] for individual in population])
        strategy.tell(gene_matrix(population) / self.scale, fitness)

    def next(self, population: list[Any], generation: int) -> list[Any]:
        assert self.strategy is not None
        self._told(self.strategy, population)
        return self._sample(generation)

    def restore(self, checkpoint: Checkpoint) -> list[Any]:
        self.strategy = checked_strategy(self.config, checkpoint.strategy)
        self._state = checkpoint.strategy
        return individuals(checkpoint.population, checkpoint.fitness, checkpoint.born, arrays=True)

    def state(self) -> dict[str, Any]:
        return self._state

    def mean(self, population: Sequence[Any]) -> np.ndarray | None:
        """Returns the centroid the last generation's fitness moves the distribution to: CMA-ES's estimate of the
        optimum (clipped to the bounds)."""
        strategy = strategy_from_state(self._state)
        self._told(strategy, population)
        return np.clip(strategy.centroid * self.scale, self.low, self.high)


Method = TableGA | NetworkGA | NetworkCMA


def checked_strategy(config: Config, state: dict[str, Any]) -> FullStrategy | SeparableStrategy | None:
    """Returns the CMA-ES strategy a checkpoint of a run of ``config`` holds (None for the GA, which holds none).

    :raises RunDirError: if it is missing, damaged, or not a strategy of this run (its kind, genes, sample).
    """
    if config.patterns.method not in CMA_METHODS or not config.patterns.sets:
        if state:
            raise RunDirError("the checkpoint holds a CMA-ES strategy, but this run evolves by the GA; the run "
                              "directory is damaged")
        return None
    try:
        strategy = strategy_from_state(state)
        length = GenomeLayout.of(config).length
        if state["kind"] != config.patterns.method or state["centroid"].size != length or \
                (state["lambda"], state["mu"]) != (config.population.size, config.population.parents):
            raise ValueError(f"it is a {state['kind']} of {state['centroid'].size} genes sampling "
                             f"{state['lambda']} (mu {state['mu']}), not this run's")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise RunDirError(f"the checkpoint's CMA-ES strategy cannot be continued: {error}; the run directory is "
                          "damaged") from None
    return strategy


def method_of(config: Config, toolbox: base.Toolbox, workers: int) -> Method:
    """Returns the method of a run's config."""
    layout = GenomeLayout.of(config)
    if not layout.network:
        return TableGA(config, toolbox, layout)
    if config.patterns.method in CMA_METHODS:
        return NetworkCMA(config, toolbox, layout)
    return NetworkGA(config, toolbox, layout, workers)

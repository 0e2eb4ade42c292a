"""Genomes: how an individual's genes become weight tables.

- ``full``: 64 genes, one per square.
- ``sym8``: 10 genes, one per class of squares under all 8 symmetries of the board.
- ``sym4``: 20 genes, tied under the symmetries that keep the start position
  (identity, transpose, anti-transpose, 180-degree rotation).
- ``phase``: 128 genes, two full tables (the first before ``phase_move``).

With ``features`` (population.features) each genome has one more gene per
feature (two with ``phase``: one per table) after the squares' genes, and
the weights it stands for are the engine's evaluation vector: the squares,
then the feature weights, table by table (engine.evaluation.Evaluation).

With a pattern network ([patterns], :class:`GenomeLayout`) the genome ends in
the network's weights (engine.patterns.PatternNetwork.vector's order: tuple
by tuple, each tuple's phases one after another), and its squares' genes are
there only when the squares are evolved beside it; the engine's row is then
the 64 squares (zeros when not evolved), the feature weights and the
network's weights (engine._players.SharedPlan with a ``layout``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import chain
from typing import Any

import numpy as np

from engine.patterns import PatternNetwork
from ga.config import network_of

Symmetry = Callable[[int, int], tuple[int, int]]

# (file, rank) -> (file, rank); a1 is (0, 0).
_START_KEEPING: tuple[Symmetry, ...] = (
    lambda f, r: (f, r),
    lambda f, r: (r, f),  # transpose: the a1-h8 diagonal
    lambda f, r: (7 - r, 7 - f),  # anti-transpose: the a8-h1 diagonal
    lambda f, r: (7 - f, 7 - r),  # 180-degree rotation
)
_MIRRORS: tuple[Symmetry, ...] = (
    lambda f, r: (7 - f, r),
    lambda f, r: (f, 7 - r),
    lambda f, r: (7 - r, f),  # quarter turns
    lambda f, r: (r, 7 - f),
)
SYMMETRIES = {"sym8": _START_KEEPING + _MIRRORS, "sym4": _START_KEEPING}


@cache
def square_classes(genome: str) -> tuple[int, ...]:
    """Returns, for each square, the index of its gene under a symmetric genome.

    Genes are numbered by the lowest square of each class, in ascending order.
    """
    symmetries = SYMMETRIES[genome]
    first_square = []
    for square in range(64):
        f, r = square % 8, square // 8
        first_square.append(min(s[1] * 8 + s[0] for s in (sym(f, r) for sym in symmetries)))
    ordered = sorted(set(first_square))
    return tuple(ordered.index(first) for first in first_square)


def _tables(genome: str) -> int:
    return 2 if genome == "phase" else 1


def square_genes(genome: str) -> int:
    """Returns the number of genes of the squares (the feature genes follow them)."""
    if genome == "full":
        return 64
    if genome == "phase":
        return 128
    return max(square_classes(genome)) + 1


def genome_length(genome: str, features: int = 0) -> int:
    """Returns the number of genes of an individual with ``features`` evolved feature weights."""
    return square_genes(genome) + features * _tables(genome)


def table_length(genome: str, features: int = 0) -> int:
    """Returns the number of weights an individual stands for: 64 (128 for ``phase``), and its feature weights."""
    return (64 + features) * _tables(genome)


def _gene_index(genome: str, features: int) -> np.ndarray:
    """Returns, for each weight an individual stands for, the index of its gene."""
    squares = np.arange(square_genes(genome)) if genome in ("full", "phase") else np.array(square_classes(genome))
    return np.concatenate([squares, square_genes(genome) + np.arange(features * _tables(genome))]).astype(np.intp)


def expand(genes: Sequence[float], genome: str, features: int = 0) -> np.ndarray:
    """Returns the weights (64, or 128 for ``phase``, then the feature weights) an individual's genes stand for."""
    values = np.asarray(genes, dtype=np.float64)
    if values.size != genome_length(genome, features):
        raise ValueError(f"a {genome} genome has {genome_length(genome, features)} genes, got {values.size}")
    if genome in ("full", "phase"):
        return values.copy()
    return values[_gene_index(genome, features)]


def gene_matrix(population: Sequence[Sequence[float]]) -> np.ndarray:
    """Returns the genes of a population, one row per individual (what ``np.array`` makes, faster).

    ``np.array`` reads a list of lists (DEAP individuals) element by element
    through the sequence protocol; one pass over the chained genes takes two
    thirds of its time, and this runs every generation. A network's
    individuals are arrays already: stacked.
    """
    if len(population) and isinstance(population[0], np.ndarray):
        return np.array([np.asarray(individual) for individual in population], dtype=np.float64)
    width = len(population[0]) if len(population) else 0
    genes = np.fromiter(chain.from_iterable(population), np.float64, len(population) * width)
    return genes.reshape(len(population), width)


def expand_many(genes: np.ndarray, genome: str, features: int = 0) -> np.ndarray:
    """Returns the weight tables of a population (one row of genes per individual)."""
    if genes.shape[1] != genome_length(genome, features):
        raise ValueError(f"a {genome} genome has {genome_length(genome, features)} genes, got {genes.shape[1]}")
    if genome in ("full", "phase"):
        return genes.copy()
    return genes[:, _gene_index(genome, features)]


def contract(weights: Sequence[float], genome: str, features: int = 0) -> np.ndarray:
    """Returns genes for ``weights``: the mean over each class of tied squares, then the feature weights."""
    table = np.asarray(weights, dtype=np.float64)
    if genome in ("full", "phase"):
        return table.copy()
    classes = np.array(square_classes(genome))
    counts = np.bincount(classes)
    return np.concatenate([np.bincount(classes, weights=table[:64]) / counts, table[64:64 + features]])


@dataclass(frozen=True)
class GenomeLayout:
    """What an individual's genes are: the squares' (by ``genome``, when evolved), the features', then a pattern
    network's weights, and how they become the row of weights the engine plays.

    Without a network it is the table genome of the functions above, to the bit.
    """

    genome: str = "full"  # population.genome: how the square genes map to squares
    features: int = 0  # population.features: feature weights evolved (one per table)
    squares: bool = True  # whether the squares are evolved (a network's run may leave them at 0)
    tuples: tuple[int, ...] = ()  # a network's weights per tuple (every phase), in the vector's order; () = none

    @classmethod
    def of(cls, config: Any) -> GenomeLayout:
        """Returns the genome of an experiment (a ga.config.Config)."""
        network = network_of(config.patterns)
        features = len(config.population.features)
        if network is None:
            return cls(config.population.genome, features)
        return cls(config.population.genome, features, config.patterns.squares, network_tuples(network))

    @property
    def network(self) -> int:
        """The network's weights (0 without one)."""
        return sum(self.tuples)

    @property
    def tables(self) -> int:
        """Tables of squares and features: 2 for the phase genome, else 1."""
        return _tables(self.genome) if self.squares else 1

    @property
    def square_genes(self) -> int:
        """Genes of the squares (0 when a network's run leaves them at 0)."""
        return square_genes(self.genome) if self.squares else 0

    @property
    def feature_genes(self) -> int:
        """Genes of the feature weights, after the squares'."""
        return self.features * self.tables

    @property
    def length(self) -> int:
        """Genes of an individual."""
        return self.square_genes + self.feature_genes + self.network

    @property
    def width(self) -> int:
        """Weights of an engine row: the squares (64 a table), the features (one a table), the network."""
        return (64 + self.features) * self.tables + self.network

    @property
    def network_genes(self) -> slice:
        """Where the network's weights lie in the genes (and at the end of a row)."""
        return slice(self.length - self.network, self.length)

    @cached_property
    def units(self) -> np.ndarray:
        """Returns the sizes of the parts a tuple crossover takes whole: the squares' genes, the features' genes,
        then each tuple's table (every phase), in gene order (empty parts left out)."""
        parts = [self.square_genes, self.feature_genes, *self.tuples]
        return np.array([size for size in parts if size], dtype=np.intp)

    def expand(self, genes: Sequence[float]) -> np.ndarray:
        """Returns the engine row of one individual's genes."""
        values = np.asarray(genes, dtype=np.float64)
        return self.expand_many(values.reshape(1, -1))[0]

    def expand_many(self, genes: np.ndarray) -> np.ndarray:
        """Returns the engine rows of a population (one row of genes per individual)."""
        if not self.network:
            return expand_many(genes, self.genome, self.features)
        if genes.shape[1] != self.length:
            raise ValueError(f"a genome of a network has {self.length} genes, got {genes.shape[1]}")
        head = self.square_genes + self.feature_genes
        rows = np.empty((genes.shape[0], self.width), dtype=np.float64)
        if self.squares:
            rows[:, :self.width - self.network] = expand_many(genes[:, :head], self.genome, self.features)
        else:
            rows[:, :64] = 0.0
            rows[:, 64:64 + self.features] = genes[:, :head]
        rows[:, self.width - self.network:] = genes[:, head:]
        return rows

    def contract(self, row: Sequence[float]) -> np.ndarray:
        """Returns genes for an engine row (the mean over tied squares; the squares dropped when not evolved)."""
        values = np.asarray(row, dtype=np.float64)
        if not self.network:
            return contract(values, self.genome, self.features)
        head = values[:self.width - self.network]
        squares = contract(head, self.genome, self.features) if self.squares else head[64 * self.tables:]
        return np.concatenate([squares, values[self.width - self.network:]])


def network_tuples(network: PatternNetwork) -> tuple[int, ...]:
    """Returns the weights of each tuple of a network (every phase): the parts of its vector, in order."""
    return tuple(int(ntuple.weights.size) for ntuple in network.tuples)

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import chain

import numpy as np

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
    thirds of its time, and this runs every generation.
    """
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

"""Genomes: genes to weight tables under the board's symmetries.

The symmetries are written here independently of ga.evolution.genome, on the 8x8 grid
(row = rank - 1, column = file), with numpy's rotations and transposes.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ga.evolution.genome import contract, expand, gene_matrix, genome_length

Grid = np.ndarray
GridSymmetry = Callable[[Grid], Grid]

TRANSPOSE: GridSymmetry = lambda g: g.T  # a1-h8 diagonal
ANTI_TRANSPOSE: GridSymmetry = lambda g: np.rot90(g, 2).T  # a8-h1 diagonal
ROTATE_180: GridSymmetry = lambda g: np.rot90(g, 2)
START_KEEPING = {"transpose": TRANSPOSE, "anti-transpose": ANTI_TRANSPOSE, "rotate 180": ROTATE_180}
OTHERS = {
    "mirror files": np.fliplr,
    "mirror ranks": np.flipud,
    "rotate 90": lambda g: np.rot90(g, 1),
    "rotate 270": lambda g: np.rot90(g, 3),
}
ALL_EIGHT = {"identity": lambda g: g} | START_KEEPING | OTHERS


def grid(table: np.ndarray) -> Grid:
    return np.asarray(table).reshape(8, 8)


def random_genes(genome: str, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, genome_length(genome))


@pytest.mark.parametrize(("genome", "length"), [("full", 64), ("sym8", 10), ("sym4", 20), ("phase", 128)])
def test_genome_length(genome: str, length: int) -> None:
    assert genome_length(genome) == length


def test_start_keeping_symmetries_keep_the_start_position() -> None:
    # Sanity check of this file's symmetries: d4 and e5 white, d5 and e4 black.
    start = np.zeros((8, 8))
    start[3, 3] = start[4, 4] = 1  # d4, e5
    start[4, 3] = start[3, 4] = -1  # d5, e4
    for name, symmetry in START_KEEPING.items():
        assert np.array_equal(symmetry(start), start), name
    for name, symmetry in OTHERS.items():
        assert not np.array_equal(symmetry(start), start), name


@pytest.mark.parametrize("seed", range(5))
def test_sym8_table_is_invariant_under_all_eight_symmetries(seed: int) -> None:
    table = grid(expand(random_genes("sym8", seed), "sym8"))
    for name, symmetry in ALL_EIGHT.items():
        assert np.array_equal(symmetry(table), table), name


@pytest.mark.parametrize("seed", range(5))
def test_sym4_table_is_invariant_under_the_start_keeping_symmetries_only(seed: int) -> None:
    table = grid(expand(random_genes("sym4", seed), "sym4"))
    for name, symmetry in START_KEEPING.items():
        assert np.array_equal(symmetry(table), table), name
    for name, symmetry in OTHERS.items():
        assert not np.array_equal(symmetry(table), table), name


@pytest.mark.parametrize(("genome", "classes"), [("sym8", 10), ("sym4", 20)])
def test_symmetric_genomes_use_every_gene_as_one_class_of_squares(genome: str, classes: int) -> None:
    # Distinct genes give exactly `classes` distinct weights; each gene i is used.
    genes = np.arange(classes, dtype=np.float64)
    table = expand(genes, genome)
    assert table.shape == (64,)
    assert set(table.tolist()) == set(genes.tolist())


def test_sym8_classes_of_known_squares() -> None:
    table = expand(np.arange(10, dtype=np.float64), "sym8")
    corners = [0, 7, 56, 63]  # a1 h1 a8 h8
    x_squares = [9, 14, 49, 54]  # b2 g2 b7 g7
    centre = [27, 28, 35, 36]  # d4 e4 d5 e5
    for group in (corners, x_squares, centre):
        assert len({table[s] for s in group}) == 1
    assert len({table[0], table[9], table[27]}) == 3
    assert table[0] == 0.0  # genes are numbered by the lowest square of their class: a1 first


def test_sym4_separates_the_start_position_colours() -> None:
    # d4/e5 (white at the start) and d5/e4 (black) are different classes under sym4, one under sym8.
    table4 = expand(np.arange(20, dtype=np.float64), "sym4")
    table8 = expand(np.arange(10, dtype=np.float64), "sym8")
    d4, e4, d5, e5 = 27, 28, 35, 36
    assert table4[d4] == table4[e5] and table4[e4] == table4[d5]
    assert table4[d4] != table4[e4]
    assert table8[d4] == table8[e4]


@pytest.mark.parametrize("genome", ["full", "sym8", "sym4", "phase"])
@given(seed=st.integers(0, 2**32 - 1))
def test_contract_inverts_expand(genome: str, seed: int) -> None:
    genes = random_genes(genome, seed)
    np.testing.assert_allclose(contract(expand(genes, genome), genome), genes, rtol=0, atol=1e-15)


@pytest.mark.parametrize("genome", ["sym8", "sym4"])
def test_contract_averages_each_class(genome: str) -> None:
    table = np.random.default_rng(0).uniform(-1, 1, 64)
    genes = contract(table, genome)
    expanded = expand(genes, genome)
    # Each square's weight became the mean of its class.
    for value in set(expanded.tolist()):
        members = expanded == value
        assert table[members].mean() == pytest.approx(value)


def test_full_and_phase_pass_genes_through() -> None:
    genes = random_genes("phase", 1)
    weights = expand(genes, "phase")
    assert weights.shape == (128,)
    assert np.array_equal(weights, genes)
    weights[0] = 99.0
    assert genes[0] != 99.0  # a copy, not a view
    full = random_genes("full", 2)
    assert np.array_equal(expand(full, "full"), full)
    assert np.array_equal(expand(list(full), "full"), full)


@pytest.mark.parametrize(("genome", "length"), [("full", 63), ("full", 128), ("sym8", 20), ("sym4", 10), ("phase", 64), ("sym8", 0)])
def test_expand_rejects_a_wrong_number_of_genes(genome: str, length: int) -> None:
    with pytest.raises(ValueError, match=genome):
        expand([0.0] * length, genome)


@given(st.integers(0, 6), st.integers(1, 9), st.data())
def test_gene_matrix_is_the_array_of_the_individuals(size: int, width: int, data: st.DataObject) -> None:
    from ga.evolution.toolbox import individuals

    genes = data.draw(st.lists(st.lists(st.floats(allow_nan=False), min_size=width, max_size=width),
                               min_size=size, max_size=size))
    population = individuals(genes, [None] * size, [0] * size)
    matrix = gene_matrix(population)
    assert matrix.dtype == np.float64 and matrix.shape == (size, width if size else 0)
    assert np.array_equal(matrix, np.array(genes, dtype=np.float64).reshape(size, width if size else 0))

"""A naive pure-Python Othello: the yardstick ``othello-ga bench`` compares against.

A board is a list of 64 cells (0 empty, 1 black, 2 white); moves are found by
walking the eight directions square by square, as a first implementation would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def start() -> list[int]:
    """Returns the start position."""
    cells = [0] * 64
    cells[27] = cells[36] = 2  # d4, e5 white
    cells[28] = cells[35] = 1  # e4, d5 black
    return cells


def flips(cells: Sequence[int], square: int, colour: int) -> list[int]:
    """Returns the squares ``colour`` flips by playing ``square``."""
    if cells[square]:
        return []
    opponent = 3 - colour
    flipped = []
    rank, file = divmod(square, 8)
    for dr, df in DIRECTIONS:
        run = []
        r, f = rank + dr, file + df
        while 0 <= r < 8 and 0 <= f < 8 and cells[r * 8 + f] == opponent:
            run.append(r * 8 + f)
            r, f = r + dr, f + df
        if run and 0 <= r < 8 and 0 <= f < 8 and cells[r * 8 + f] == colour:
            flipped.extend(run)
    return flipped


def legal_moves(cells: Sequence[int], colour: int) -> list[int]:
    """Returns ``colour``'s legal moves."""
    return [square for square in range(64) if flips(cells, square, colour)]


def weighted_move(cells: list[int], colour: int, moves: list[int], weights: Sequence[float], rng: random.Random) -> int:
    """Returns the move with the best weighted score one ply ahead (random tie-break)."""
    best, choices = float("-inf"), []
    for square in moves:
        after = list(cells)
        for flipped in flips(cells, square, colour) + [square]:
            after[flipped] = colour
        score = sum(w if c == colour else -w for c, w in zip(after, weights) if c)
        if score > best:
            best, choices = score, [square]
        elif score == best:
            choices.append(square)
    return rng.choice(choices)


def play_game(weights: Sequence[float] | None, seed: int) -> int:
    """Plays black (1-ply on ``weights``, or random when None) against a random white.

    Returns black's discs minus white's.
    """
    rng = random.Random(seed)
    cells, colour, passes = start(), 1, 0
    while passes < 2:
        moves = legal_moves(cells, colour)
        if not moves:
            passes += 1
        else:
            passes = 0
            if weights is not None and colour == 1:
                square = weighted_move(cells, colour, moves, weights, rng)
            else:
                square = rng.choice(moves)
            for flipped in flips(cells, square, colour) + [square]:
                cells[flipped] = colour
        colour = 3 - colour
    return cells.count(1) - cells.count(2)

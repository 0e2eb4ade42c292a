"""Scores of games from their disc differences: a win is 1, a draw 1/2, a loss 0."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["mean_by", "points", "score", "scores"]


def points(disc_diffs: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
    """Returns each game's points for the player whose disc differences these are."""
    return (disc_diffs > 0) + 0.5 * (disc_diffs == 0)


def mean_by(group: np.ndarray, values: np.ndarray, size: int) -> npt.NDArray[np.float64]:
    """Returns the mean of ``values`` in each group ``0 .. size - 1`` (NaN for a group without values)."""
    count = np.bincount(group, minlength=size).astype(np.float64)
    total = np.bincount(group, weights=values, minlength=size)
    # np.divide with where: np.errstate would cost more than the division.
    return np.divide(total, count, out=np.full(size, np.nan), where=count > 0)


def scores(group: np.ndarray, disc_diffs: np.ndarray, size: int, kind: str) -> npt.NDArray[np.float64]:
    """Returns each group's score: win rate (draw = 1/2) or mean disc difference (NaN without games)."""
    values = disc_diffs if kind == "disc_diff" else points(disc_diffs)
    return mean_by(group, values, size)


def score(disc_diffs: np.ndarray, kind: str) -> float:
    """Returns the score of games: win rate (draw = 1/2) or mean disc difference (0 without games)."""
    if disc_diffs.size == 0:
        return 0.0
    return float(scores(np.zeros(disc_diffs.size, dtype=np.intp), disc_diffs, 1, kind)[0])

"""Match statistics: scores, Wilson intervals and Elo differences.

Pure functions of game counts (and of a few runs' scores); a draw counts as
half a win everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MatchSummary",
    "elo_difference",
    "elo_interval",
    "mean_interval",
    "score",
    "wilson_interval",
]


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Returns the Wilson score interval ``(low, high)`` for ``successes`` out of ``n``.

    ``successes`` may be fractional (wins plus half the draws). With no trials
    nothing is known, so the interval is ``(0.0, 1.0)``.

    >>> tuple(round(bound, 4) for bound in wilson_interval(7, 10))
    (0.3968, 0.8922)

    :raises ValueError: if ``n < 0``, ``z <= 0`` or ``successes`` is outside ``[0, n]``.
    """
    if n < 0:
        raise ValueError(f"number of trials must be >= 0, got {n}")
    if not z > 0:
        raise ValueError(f"z must be > 0, got {z}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, {n}], got {successes}")
    if n == 0:
        return 0.0, 1.0
    proportion = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (proportion + z2 / (2 * n)) / denominator
    half_width = z * math.sqrt(proportion * (1 - proportion) / n + z2 / (4 * n * n)) / denominator
    # The bounds are exactly 0 and 1 at the extremes; pin them so rounding noise
    # does not turn a perfect score into a finite Elo bound.
    low = 0.0 if successes == 0 else max(0.0, centre - half_width)
    high = 1.0 if successes == n else min(1.0, centre + half_width)
    return low, high


def score(wins: int, draws: int, losses: int) -> float:
    """Returns the score fraction ``(wins + draws / 2) / games``; NaN when no games were played.

    >>> score(6, 2, 2)
    0.7

    :raises ValueError: if a count is negative.
    """
    _check_counts(wins, draws, losses)
    games = wins + draws + losses
    if games == 0:
        return math.nan
    return (wins + draws / 2) / games


def elo_difference(score: float) -> float:
    """Returns the Elo difference ``400 * log10(s / (1 - s))`` implied by a score fraction.

    A score of 1 gives ``+inf``, 0 gives ``-inf`` and NaN gives NaN.

    >>> round(elo_difference(0.75), 2)
    190.85

    :raises ValueError: if ``score`` is outside ``[0, 1]``.
    """
    if math.isnan(score):
        return math.nan
    if not 0 <= score <= 1:
        raise ValueError(f"score must lie in [0, 1], got {score}")
    if score == 1:
        return math.inf
    if score == 0:
        return -math.inf
    return 400 * math.log10(score / (1 - score))


def elo_interval(
    wins: int, draws: int, losses: int, z: float = 1.96
) -> tuple[float, float, float]:
    """Returns ``(elo, low, high)``: the Elo difference and the Wilson interval mapped to Elo.

    With no games the result is ``(nan, -inf, inf)``.

    :raises ValueError: if a count is negative.
    """
    _check_counts(wins, draws, losses)
    games = wins + draws + losses
    low, high = wilson_interval(wins + draws / 2, games, z)
    return (
        elo_difference(score(wins, draws, losses)),
        elo_difference(low),
        elo_difference(high),
    )


@dataclass(frozen=True)
class MatchSummary:
    """Results of an evolved individual (or population) against one opponent."""

    opponent: str  # player spec, e.g. "random" or "nhand:2"
    games: int
    wins: int
    draws: int
    losses: int

    def __post_init__(self) -> None:
        _check_counts(self.wins, self.draws, self.losses)
        if self.games != self.wins + self.draws + self.losses:
            raise ValueError(
                f"games ({self.games}) must equal wins + draws + losses "
                f"({self.wins} + {self.draws} + {self.losses})"
            )

    @classmethod
    def from_disc_diffs(cls, opponent: str, disc_diffs: Iterable[float]) -> MatchSummary:
        """Builds a summary from final disc differences (> 0 win, 0 draw, < 0 loss)."""
        wins = draws = losses = 0
        for disc_diff in disc_diffs:
            if disc_diff > 0:
                wins += 1
            elif disc_diff < 0:
                losses += 1
            elif disc_diff == 0:
                draws += 1
            else:
                raise ValueError(f"disc_diff must be a number, got {disc_diff!r}")
        return cls(opponent, wins + draws + losses, wins, draws, losses)

    @property
    def score(self) -> float:
        """Returns the score fraction (draw = 1/2); NaN without games."""
        return score(self.wins, self.draws, self.losses)

    @property
    def interval(self) -> tuple[float, float]:
        """Returns the 95% Wilson interval ``(low, high)`` of the score."""
        return wilson_interval(self.wins + self.draws / 2, self.games)

    @property
    def elo(self) -> float:
        """Returns the Elo difference implied by the score."""
        return elo_difference(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """Returns the 95% interval ``(low, high)`` of the Elo difference."""
        _, low, high = elo_interval(self.wins, self.draws, self.losses)
        return low, high

    def __str__(self) -> str:
        low, high = self.elo_interval
        return (
            f"{self.opponent}: +{self.wins} ={self.draws} -{self.losses} "
            f"score {self.score:.3f}, Elo {self.elo:+.0f} [{low:+.0f}, {high:+.0f}]"
        )


def _check_counts(wins: int, draws: int, losses: int) -> None:
    """Raises ValueError if any game count is negative."""
    for label, count in (("wins", wins), ("draws", draws), ("losses", losses)):
        if count < 0:
            raise ValueError(f"{label} must be >= 0, got {count}")


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """Returns the mean of a few runs' scores and the half-width of its 95% t interval.

    Runs with different seeds are the unit here (a lever's effect varies more
    between seeds than within a run's evaluation), so the quantile is Student's
    t with n - 1 degrees of freedom (4.303 for three runs).
    """
    from scipy import stats  # here: most commands never need scipy

    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        raise ValueError("mean_interval needs at least one value")
    if data.size == 1:
        return float(data[0]), float("nan")
    quantile = float(stats.t.ppf(0.975, data.size - 1))
    return float(data.mean()), float(quantile * data.std(ddof=1) / np.sqrt(data.size))

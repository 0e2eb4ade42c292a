"""A plan of many games as flat arrays, one entry per game.

The table players of a plan are rows of a weights matrix (a population, a
tournament's candidates); each game sets one of them against an opponent,
which is either a fixed player (one of the plan's opponent labels) or another
row of the matrix (a member: coevolution, champions, random tables).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["HALL_OF_FAME", "MEMBER_LABELS", "POPULATION", "RANDOM_TABLE", "GamePlan", "colour_pattern", "split"]

POPULATION = "population"  # label of games against other members (coevolution)
HALL_OF_FAME = "hall_of_fame"  # label of games against earlier champions
RANDOM_TABLE = "random_tables"  # label of games against a generation's random tables
#: Labels whose opponent is another row of the plan's tables, not a fixed player.
MEMBER_LABELS = (POPULATION, HALL_OF_FAME, RANDOM_TABLE)


def colour_pattern(colours: str, count: int) -> npt.NDArray[np.uint8]:
    """Returns 0 (the table player plays black) / 1 (white) for each of ``count`` games."""
    if colours == "black":
        return np.zeros(count, dtype=np.uint8)
    if colours == "white":
        return np.ones(count, dtype=np.uint8)
    return (np.arange(count) % 2).astype(np.uint8)


@dataclass
class GamePlan:
    """Games, one entry per game, grouped by table player."""

    individual: np.ndarray  # int32: the player's row in the tables
    opponent: np.ndarray  # int32: index into the plan's opponent labels
    member: np.ndarray  # int32: for member games, the opponent's row in the tables (else -1)
    seeds: np.ndarray  # uint64
    colours: np.ndarray  # uint8: 0 = the table player plays black
    depth: np.ndarray | None = None  # int32: the table players' search depth in each game (None: their own)

    def __len__(self) -> int:
        return int(self.seeds.size)

    def subset(self, games: np.ndarray | slice) -> GamePlan:
        """Returns the plan of the selected games (a boolean mask, indices or a slice)."""
        return GamePlan(self.individual[games], self.opponent[games], self.member[games],
                        self.seeds[games], self.colours[games], None if self.depth is None else self.depth[games])

    @staticmethod
    def concatenate(plans: Sequence[GamePlan]) -> GamePlan:
        """Returns the plans one after the other (with depths if any of them has some)."""
        fields = ("individual", "opponent", "member", "seeds", "colours")
        depths = [p.depth for p in plans]
        if any(d is None for d in depths) and not all(d is None for d in depths):
            raise ValueError("plans with and without depths per game cannot be joined")
        depth = None if not plans or depths[0] is None else np.concatenate(depths)
        return GamePlan(*(np.concatenate([getattr(p, f) for p in plans]) for f in fields), depth)


def split(plan: GamePlan, parts: int, costs: np.ndarray | None = None) -> list[GamePlan]:
    """Splits a plan into at most ``parts`` consecutive runs of games with similar total cost.

    ``costs`` holds the cost of a game against each opponent label (default:
    all equal, so runs get similar game counts). Only the cut points depend
    on it: the games and their results do not (each game has its own seed and
    the results are joined in plan order). A cut may fall inside an
    individual's games, so runs differ by at most about one game's cost; the
    runs are capped at the number of individuals in the plan (each is a
    cluster task with a scheduling cost of its own).
    """
    if len(plan) == 0:
        return [plan]
    parts = max(1, min(parts, len(np.unique(plan.individual))))
    weight = np.ones(len(plan)) if costs is None else np.asarray(costs, dtype=np.float64)[plan.opponent]
    cumulative = np.concatenate([[0.0], np.cumsum(weight)])  # cost of the games before each index
    targets = np.arange(1, parts) * cumulative[-1] / parts
    at = np.searchsorted(cumulative, targets)  # the first game with at least the target's cost before it
    cuts = np.unique(np.concatenate([[0], at, [len(plan)]]))
    return [plan.subset(slice(a, b)) for a, b in zip(cuts[:-1], cuts[1:])]

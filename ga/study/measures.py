"""The held-out measures a study scores each run's table with, and the scoring itself.

A measure is one call of :func:`ga.analysis.evaluation.evaluate_player`: a
protocol (league, plain, eu, ladder), its opponents, its games and its seed.
It gives one score per opponent (and per depth in the ladder), each a column
of the study's table (:meth:`Measure.columns`). The same seed gives the same
games, so a table's score does not depend on the run or the machine that
asks for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs
import numpy.typing as npt

from engine import parse_spec
from engine.kinds import KINDS
from ga.analysis.evaluation import LADDER_DEPTHS, MAX_GAMES, PROTOCOLS, evaluate_player, protocol_opponents
from ga.analysis.stats import MatchSummary

__all__ = ["TABLES", "Measure", "columns", "measure_problem", "score"]

#: The tables of a run a measure can score: best_weights.csv or mean_weights.csv.
TABLES = ("best", "mean")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@attrs.frozen
class Measure:
    """One held-out measure: what is played, how many games, from which seed, with which of the run's tables."""

    name: str = attrs.field(default="", metadata={"doc": "the column of its score (a letter, then letters, digits, _)"})
    protocol: str = attrs.field(default="league", metadata={"doc": "league, plain, eu or ladder"})
    opponents: tuple[str, ...] = attrs.field(default=(), metadata={"doc": "player specs (league: heuristic)"})
    games: int = attrs.field(default=1000, metadata={"doc": "games per opponent (eu: random tables, two games each)"})
    seed: int = attrs.field(default=0, metadata={"doc": "the evaluation's seed"})
    table: str = attrs.field(default="best", metadata={"doc": "the run's table: best or mean"})
    depths: tuple[int, ...] = attrs.field(default=(), metadata={"doc": "ladder: the search depths (1-4)"})

    def opponents_played(self) -> list[str]:
        """Returns the opponents the protocol plays (its defaults when none are given)."""
        return protocol_opponents(self.protocol, self.opponents)

    def columns(self) -> list[str]:
        """Returns the names of its scores: the measure's name alone when it gives one."""
        if self.protocol == "eu":
            return [self.name]
        opponents = [_short(opponent) for opponent in self.opponents_played()]
        if self.protocol == "ladder":
            depths = self.depths or LADDER_DEPTHS
            return [f"{self.name}_{opponent}_d{depth}" for opponent in opponents for depth in depths]
        return [self.name] if len(opponents) == 1 else [f"{self.name}_{opponent}" for opponent in opponents]


def _short(spec: str) -> str:
    """Returns an opponent's name in a column: its table's name, or its spec with other characters as _."""
    parsed = parse_spec(spec)
    text = parsed.table if parsed.table is not None and "/" not in parsed.table else spec
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def measure_problem(measure: Measure) -> tuple[str, str] | None:
    """Returns ``(key, problem)`` of the first thing wrong with a measure (key relative to it), or None."""
    if not _NAME.fullmatch(measure.name):
        return "name", f"must be a letter then letters, digits or _, got {measure.name!r}"
    if measure.protocol not in PROTOCOLS:
        return "protocol", f"unknown value {measure.protocol!r}; expected one of {', '.join(PROTOCOLS)}"
    if measure.table not in TABLES:
        return "table", f"unknown value {measure.table!r}; expected one of {', '.join(TABLES)}"
    if not 1 <= measure.games <= MAX_GAMES:
        return "games", f"must be between 1 and {MAX_GAMES:,}, got {measure.games}"
    if not 0 <= measure.seed < 2**63:
        return "seed", f"must be between 0 and 2**63 - 1, got {measure.seed}"
    for index, opponent in enumerate(measure.opponents):
        try:
            parsed = parse_spec(opponent)
        except ValueError as error:
            return f"opponents[{index}]", str(error)
        if measure.protocol == "league" and parsed.depth != 1:
            return f"opponents[{index}]", f"the league protocol plays 1-ply players; {opponent!r} looks {parsed.depth} ahead"
        if measure.protocol == "ladder" and parsed.table is None:
            return f"opponents[{index}]", f"the ladder plays tables against tables; {opponent!r} has none"
    try:
        measure.opponents_played()
    except ValueError as error:
        return "opponents", str(error)
    if measure.depths and measure.protocol != "ladder":
        return "depths", f"apply to the ladder protocol, not to {measure.protocol!r}; remove them"
    cap = KINDS["alphabeta"].max_depth
    for index, depth in enumerate(measure.depths):
        if not 1 <= depth <= cap:
            return f"depths[{index}]", f"must be between 1 and {cap}, got {depth}"
    return None


def score(weights: npt.ArrayLike, measure: Measure, workers: int = 1) -> dict[str, MatchSummary]:
    """Plays a measure with a table and returns its summaries by column (:meth:`Measure.columns`)."""
    summaries = evaluate_player(weights, list(measure.opponents), measure.games, seed=measure.seed, workers=workers,
                                protocol=measure.protocol, depths=measure.depths)
    return dict(zip(measure.columns(), summaries, strict=True))


def columns(measures: Sequence[Measure]) -> list[str]:
    """Returns the score columns of several measures, in order."""
    return [column for measure in measures for column in measure.columns()]

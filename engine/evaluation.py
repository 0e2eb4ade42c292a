"""Evaluations: square weights, the weights of features beside them, and a pattern network, as the engine plays them.

An evaluation scores a position for the side to move as the sum of the
weights of its discs' squares, less the opponent's, plus each feature (a
count "mine minus theirs", engine/_features.pxd) times its weight, plus the
value of its pattern network if it has one (engine/patterns.py). With two
tables the second applies from move ``phase_move`` on (discs on the board
minus 4), squares and features alike; a network has phases of its own. A
table of 64 (or 128) weights is an evaluation without features, played
exactly as before there were features.

>>> paip = EVALUATIONS["paip"]
>>> paip.features, paip.feature_weights
(('mobility', 'corner_x', 'corner_c'), (10.0, 45.0, 25.0))
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.patterns import COLOURS, DIGITS, NTuple, PatternError, PatternNetwork
from engine.tables import WEIGHT_LIMIT

__all__ = ["DOCUMENT_FORMAT", "EVALUATIONS", "FEATURES", "Evaluation", "FeatureError"]

#: The features an evaluation may weigh, in their canonical order (engine/_features.pxd defines each).
FEATURES = ("mobility", "frontier", "stability", "parity", "corner_x", "corner_c")
#: The ``format`` field of an evaluation file (JSON; docs/results.md#evaluation-files).
DOCUMENT_FORMAT = "othello-ga evaluation"
#: The version written: 1 for an evaluation without a pattern network (as before networks: the files runs
#: write stay the same), 2 with one; both are read.
DOCUMENT_VERSION = 1
PATTERNS_VERSION = 2


class FeatureError(ValueError):
    """An evaluation that cannot be: unknown or repeated features, wrong counts, numbers that are not finite."""


@dataclass(frozen=True)
class Evaluation:
    """Square weights (64, or 128 for two phases) and feature weights (one per feature and phase)."""

    squares: tuple[float, ...]
    features: tuple[str, ...] = ()
    feature_weights: tuple[float, ...] = ()  # table 0's weights of ``features``, then table 1's
    phase_move: int = 40  # the move from which the second table applies (two tables only)
    end: int = 0  # the empty squares from which it was trained to solve the endgame exactly (0: never)
    source: str = field(default="", compare=False)  # where it came from, for messages and exports
    patterns: PatternNetwork | None = None  # a pattern network weighed beside the squares and features

    def __post_init__(self) -> None:
        if len(self.squares) not in (64, 128):
            raise FeatureError(f"an evaluation has 64 or 128 square weights, got {len(self.squares)}")
        unknown = [name for name in self.features if name not in FEATURES]
        if unknown:
            raise FeatureError(f"unknown feature {unknown[0]!r}; the features are {', '.join(FEATURES)}")
        if len(set(self.features)) != len(self.features):
            raise FeatureError(f"features must not repeat, got {', '.join(self.features)}")
        if len(self.feature_weights) != len(self.features) * self.n_tables:
            raise FeatureError(f"{len(self.features)} features with {self.n_tables} table(s) need "
                               f"{len(self.features) * self.n_tables} feature weights, got {len(self.feature_weights)}")
        if not all(math.isfinite(w) for w in (*self.squares, *self.feature_weights)):
            raise FeatureError("an evaluation's weights must be finite numbers (found NaN or inf)")
        # Bounded as a table's squares are: beyond, a position's value can overflow (mobility 1.7e308 and
        # frontier -1.7e308 made it NaN) and a finished game no longer outweighs every position's score.
        for index, weight in enumerate(self.feature_weights):
            if abs(weight) > WEIGHT_LIMIT:
                name = self.features[index % len(self.features)]
                raise FeatureError(f"weight {weight:g} of feature {name!r} is beyond +-{WEIGHT_LIMIT:g}, the range in "
                                   "which a finished game outweighs any position's score; scale the evaluation down "
                                   "(only the ratios of the weights matter)")
        for index, weight in enumerate(self.squares):
            if abs(weight) > WEIGHT_LIMIT:
                square = "abcdefgh"[index % 64 % 8] + str(index % 64 // 8 + 1)
                raise FeatureError(f"weight {weight:g} at {square} is beyond +-{WEIGHT_LIMIT:g}, the range in which a "
                                   "finished game outweighs any position's score; scale the evaluation down (only "
                                   "the ratios of the weights matter)")
        if not 1 <= self.phase_move <= 59:
            raise FeatureError(f"phase_move must be in 1..59, got {self.phase_move}")
        if not 0 <= self.end <= 60:
            raise FeatureError(f"end must be in 0..60 empty squares, got {self.end}")

    @property
    def n_tables(self) -> int:
        """Returns 1, or 2 for an evaluation with a table per phase."""
        return len(self.squares) // 64

    @property
    def is_table(self) -> bool:
        """Says whether the evaluation is a table of square weights alone (no features, no network)."""
        return not self.features and self.patterns is None

    def vector(self) -> npt.NDArray[np.float64]:
        """Returns the numbers the engine's players take: the squares, then the feature weights."""
        return np.array(self.squares + self.feature_weights, dtype=np.float64)

    def weights_of(self, table: int) -> dict[str, float]:
        """Returns each feature's weight in table ``table`` (0, or 1 for the second phase)."""
        count = len(self.features)
        return dict(zip(self.features, self.feature_weights[table * count:(table + 1) * count]))

    @classmethod
    def from_vector(cls, vector: Sequence[float], features: Sequence[str] = (), phase_move: int = 40, end: int = 0,
                    source: str = "") -> Evaluation:
        """Returns the evaluation of an engine vector (:meth:`vector`) with these features."""
        values = [float(v) for v in np.asarray(vector, dtype=np.float64).ravel()]
        count = len(features)
        n_tables = len(values) // (64 + count) if count or len(values) in (64, 128) else 0
        if n_tables not in (1, 2) or len(values) != n_tables * (64 + count):
            raise FeatureError(f"an evaluation with {count} features has {64 + count} or {2 * (64 + count)} "
                               f"numbers, got {len(values)}")
        return cls(tuple(values[:64 * n_tables]), tuple(features), tuple(values[64 * n_tables:]), phase_move, end,
                   source)

    def to_document(self) -> dict[str, Any]:
        """Returns the evaluation as the JSON document of an evaluation file (version 2 with a network)."""
        document: dict[str, Any] = {
            "format": DOCUMENT_FORMAT,
            "version": DOCUMENT_VERSION if self.patterns is None else PATTERNS_VERSION,
            "layout": "a1..h8 row-major",
            "squares": [list(self.squares[64 * t:64 * (t + 1)]) for t in range(self.n_tables)],
            "features": {name: [self.weights_of(t)[name] for t in range(self.n_tables)] for name in self.features},
            "end": self.end,
        }
        if self.n_tables == 2:
            document["phase_move"] = self.phase_move
        if self.patterns is not None:
            network = self.patterns
            document["patterns"] = {
                "colours": network.colours,
                "digits": DIGITS,
                "phases": list(network.phases),
                "tuples": [{"copies": [list(copy) for copy in ntuple.copies], "weights": ntuple.weights.tolist()}
                           for ntuple in network.tuples],
            }
        if self.source:
            document["source"] = self.source
        return document

    @classmethod
    def from_document(cls, document: Mapping[str, Any], source: str = "") -> Evaluation:
        """Returns the evaluation of a JSON document (:meth:`to_document`).

        :raises FeatureError: naming the field that is wrong.
        """
        if document.get("format") != DOCUMENT_FORMAT:
            raise FeatureError(f"'format' must be {DOCUMENT_FORMAT!r}, got {document.get('format')!r}")
        version = document.get("version")
        if type(version) is not int or version not in (DOCUMENT_VERSION, PATTERNS_VERSION):  # 1.0 and true are no version
            raise FeatureError(f"'version' {version!r} is not one this tool reads "
                               f"({DOCUMENT_VERSION} or {PATTERNS_VERSION})")
        fields = {"format", "version", "layout", "squares", "features", "end", "phase_move", "source"}
        unknown = sorted(set(document) - fields - ({"patterns"} if version == PATTERNS_VERSION else set()))
        if unknown:
            hint = " (a pattern network needs 'version': 2)" if unknown[0] == "patterns" else ""
            raise FeatureError(f"unknown field {unknown[0]!r}{hint}")
        patterns = None
        if "patterns" in document:
            patterns = _network(document["patterns"])
        tables = document.get("squares", [[0.0] * 64] if patterns is not None else None)
        if not isinstance(tables, list) or len(tables) not in (1, 2) or not all(
                isinstance(t, list) and len(t) == 64 for t in tables):
            raise FeatureError("'squares' must be a list of 1 or 2 lists of 64 numbers (a1..h8)")
        features = document.get("features", {})
        if not isinstance(features, dict):
            raise FeatureError("'features' must be an object: feature name -> a weight per table")
        for name, weights in features.items():
            if not isinstance(weights, list) or len(weights) != len(tables):
                raise FeatureError(f"feature {name!r} needs one weight per table ({len(tables)}), got {weights!r}")
        names = tuple(features)
        squares = tuple(_number(w, "squares") for table in tables for w in table)
        weights = tuple(_number(features[name][t], f"features.{name}") for t in range(len(tables)) for name in names)
        return cls(squares, names, weights, _integer(document.get("phase_move", 40), "phase_move"),
                   _integer(document.get("end", 0), "end"), source, patterns)


def _network(value: Any) -> PatternNetwork:
    """Returns the pattern network of an evaluation file's ``patterns`` field, naming what is wrong."""
    if not isinstance(value, dict):
        raise FeatureError("'patterns' must be an object: colours, phases and tuples")
    unknown = sorted(set(value) - {"colours", "digits", "phases", "tuples"})
    if unknown:
        raise FeatureError(f"unknown field 'patterns.{unknown[0]}'")
    colours = value.get("colours", "invert")
    if colours not in COLOURS:
        raise FeatureError(f"'patterns.colours' must be one of {', '.join(COLOURS)}, got {colours!r}")
    phases = value.get("phases", [60])
    if not isinstance(phases, list) or not phases:
        raise FeatureError("'patterns.phases' must be a list of the empty squares at which each phase starts")
    phases = [_integer(p, "patterns.phases") for p in phases]
    tuples = value.get("tuples")
    if not isinstance(tuples, list) or not tuples:
        raise FeatureError("'patterns.tuples' must be a list of tuples, each with 'copies' and 'weights'")
    result = []
    for number, item in enumerate(tuples, start=1):
        where = f"patterns.tuples[{number}]"
        if not isinstance(item, dict) or set(item) != {"copies", "weights"}:
            raise FeatureError(f"'{where}' must be an object with 'copies' and 'weights'")
        copies, weights = item["copies"], item["weights"]
        if not isinstance(copies, list) or not all(isinstance(c, list) for c in copies):
            raise FeatureError(f"'{where}.copies' must be a list of lists of squares (0..63)")
        squares = [[_integer(q, f"{where}.copies") for q in copy] for copy in copies]
        if not isinstance(weights, list) or not all(isinstance(w, list) for w in weights):
            raise FeatureError(f"'{where}.weights' must hold one list of weights per phase")
        if len(weights) != len(phases):
            raise FeatureError(f"'{where}.weights' has {len(weights)} tables for {len(phases)} phases")
        numbers = [[_number(w, f"{where}.weights") for w in table] for table in weights]
        if len({len(table) for table in numbers}) > 1:
            raise FeatureError(f"'{where}.weights' has tables of different lengths")
        try:
            result.append(NTuple(tuple(tuple(copy) for copy in squares), np.array(numbers, dtype=np.float64)))
        except PatternError as error:
            raise FeatureError(f"'{where}': {error}") from None
    try:
        return PatternNetwork(tuple(result), tuple(phases), colours)
    except PatternError as error:
        raise FeatureError(f"'patterns': {error}") from None


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FeatureError(f"'{where}' holds {value!r}, not a number")
    return float(value)


def _integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FeatureError(f"'{where}' must be an integer, got {value!r}")
    return value


# Norvig, Paradigms of Artificial Intelligence Programming (1992), chapter 18: the weighted-squares
# table of the Othello program, a1 first.
PAIP_SQUARES = (
    120, -20, 20, 5, 5, 20, -20, 120,
    -20, -40, -5, -5, -5, -5, -40, -20,
    20, -5, 15, 3, 3, 15, -5, 20,
    5, -5, 3, 3, 3, 3, -5, 5,
    5, -5, 3, 3, 3, 3, -5, 5,
    20, -5, 15, 3, 3, 15, -5, 20,
    -20, -40, -5, -5, -5, -5, -40, -20,
    120, -20, 20, 5, 5, 20, -20, 120,
)

def _shipped(name: str) -> Evaluation:
    """Returns an evaluation shipped as package data (engine/data/NAME.json, an evaluation file).

    The best evaluation of a shipped run (results/reference/), copied there
    when the run is rebuilt; a test checks that it is the run's.
    """
    path = Path(__file__).parent / "data" / f"{name}.json"
    return Evaluation.from_document(json.loads(path.read_text(encoding="utf-8")), f"built-in {name}")


class _BuiltIns(Mapping[str, Evaluation]):
    """The built-in evaluations by name; a shipped one is read from its file the first time it is asked for (a
    pattern network's file is megabytes: a command that never plays it never reads it)."""

    def __init__(self, made: dict[str, Evaluation], shipped: Sequence[str]) -> None:
        self._made = dict(made)
        self._names = (*made, *shipped)

    def __getitem__(self, name: str) -> Evaluation:
        if name not in self._made:
            if name not in self._names:
                raise KeyError(name)
            self._made[name] = _shipped(name)
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names


#: Built-in evaluations with features or networks, by name (the 64-weight tables are engine.tables.TABLES).
EVALUATIONS: Mapping[str, Evaluation] = _BuiltIns(
    {
        # PAIP's modified weighted squares (an X- or C-square next to a taken corner counts 5, as the book's
        # modified-weighted-squares makes it: +45 and +25 on the table's -40 and -20) and mobility at 10 a move,
        # the kind of hand evaluation hobby engines play. A held-out yardstick: never a training opponent.
        "paip": Evaluation(tuple(float(w) for w in PAIP_SQUARES), ("mobility", "corner_x", "corner_c"),
                           (10.0, 45.0, 25.0), source="Norvig, PAIP (1992) ch. 18, with mobility"),
    },
    # Ours: "engine", the best evaluation of experiments/engine.toml (squares and six features, trained at
    # depths 1-4 solving the last 8 empty squares); "patterns", the best of experiments/patterns.toml (a
    # pattern network evolved by coevolution with a TD step).
    ("engine", "patterns"),
)

"""Pattern evaluations: n-tuple networks, as the engine plays them.

An **n-tuple** is a list of squares with a table of 3**n weights, one for
each way those squares can be filled. Its **copies** are images of the same
squares (usually its symmetric images) that share the table. A network's
value for a position is the sum over every copy of every tuple of the entry
its squares index: the first square of a copy is the most significant base-3
digit, and a square's digit is 0 when empty, 1 for the viewer's disc, 2 for
the opponent's.

**Colours.** Under ``invert`` (the default, and how every evaluation of this
project reads a board) each side reads its own discs as 1: the value is the
side's own. Under ``negate`` the network reads black's discs as 1 and its
value is black's; white's is its negation (white minimises it). Published
networks use either (engine/ntuple-players README in the data, and
docs/results.md).

**Phases.** A network may have one table per tuple and game phase; ``phases``
lists the number of empty squares at which each phase starts (60 first,
decreasing), as engines switch tables by the empty squares left.

Named **tuple sets** (:data:`TUPLE_SETS`) give the systematic networks of
the literature and the shapes of strong engines, each shape with the copies
of the board's 8 symmetries and zero weights: the genomes evolution starts
from.

>>> network = tuple_set("all-2")
>>> len(network.tuples), network.n_weights, sum(len(t.copies) for t in network.tuples)
(32, 288, 210)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from engine._patterns import GROUP_LIMIT, MAX_SQUARES, PatternLayout, PatternTables
from engine.tables import WEIGHT_LIMIT

__all__ = ["COLOURS", "DIGITS", "MAX_SQUARES", "TUPLE_SETS", "VALUE_LIMIT", "NTuple", "PatternError", "PatternNetwork",
           "compiled", "layout", "layout_of_shape", "network_reach", "network_shape", "symmetric_copies", "tuple_set"]

#: The colour conventions of a network (see the module's docstring).
COLOURS = ("invert", "negate")
#: How a table is indexed, as evaluation files say it.
DIGITS = ("a copy's squares in order are base-3 digits, the first the most significant: 0 empty, 1 a disc of "
          "the side evaluated (under negate: black's), 2 one of the other side's")
#: The largest value a network may reach: a table of 64 weights at the limit of a square's weight. A finished
#: game (a million per disc) outweighs it, as it outweighs any table.
VALUE_LIMIT = 64 * WEIGHT_LIMIT


class PatternError(ValueError):
    """A network that cannot be: squares off the board or repeated, tables of the wrong length, bad phases."""


def _image(square: int, symmetry: int) -> int:
    """Returns ``square`` under one of the board's 8 symmetries (0 is the identity)."""
    rank, file = divmod(square, 8)
    if symmetry & 4:
        rank, file = file, rank  # the a1-h8 diagonal
    if symmetry & 2:
        rank = 7 - rank
    if symmetry & 1:
        file = 7 - file
    return 8 * rank + file


def symmetric_copies(squares: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """Returns the images of a tuple under the board's 8 symmetries, each once, the tuple itself first.

    Images are ordered lists: the same squares in another order are another
    copy, so that the network's value is the same on the 8 images of any
    position whatever its table.

    >>> symmetric_copies((0, 1))
    ((0, 1), (7, 6), (56, 57), (63, 62), (0, 8), (56, 48), (7, 15), (63, 55))
    """
    images: dict[tuple[int, ...], None] = {}
    for symmetry in range(8):
        images.setdefault(tuple(_image(square, symmetry) for square in squares), None)
    return tuple(images)


@dataclass(frozen=True, eq=False)
class NTuple:
    """One tuple: its copies (each a list of n squares, a1 = 0 ... h8 = 63) and a table of 3**n weights per phase."""

    copies: tuple[tuple[int, ...], ...]
    weights: npt.NDArray[np.float64]  # shape (phases, 3**n), read-only

    def __post_init__(self) -> None:
        copies = tuple(tuple(int(square) for square in copy) for copy in self.copies)
        object.__setattr__(self, "copies", copies)
        if not copies:
            raise PatternError("a tuple needs at least one copy (a list of squares)")
        n = len(copies[0])
        if not 1 <= n <= MAX_SQUARES:
            raise PatternError(f"a tuple has 1..{MAX_SQUARES} squares, got {n}")
        for copy in copies:
            if len(copy) != n:
                raise PatternError(f"every copy of a tuple has its {n} squares, got {len(copy)}: {list(copy)}")
            if any(not 0 <= square <= 63 for square in copy):
                raise PatternError(f"squares are 0..63 (a1..h8), got {list(copy)}")
            if len(set(copy)) != n:
                raise PatternError(f"a copy repeats a square: {list(copy)}")
        weights = np.array(self.weights, dtype=np.float64)
        if weights.ndim == 1:
            weights = weights[None, :]
        if weights.ndim != 2 or weights.shape[1] != 3 ** n:
            raise PatternError(f"a tuple of {n} squares has a table of {3 ** n} weights per phase, "
                               f"got {weights.shape[-1] if weights.ndim else 0}")
        if not np.all(np.isfinite(weights)):
            raise PatternError("a tuple's weights must be finite numbers (found NaN or inf)")
        weights.setflags(write=False)
        object.__setattr__(self, "weights", weights)

    @property
    def size(self) -> int:
        """The squares of each copy (n)."""
        return len(self.copies[0])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, NTuple) and self.copies == other.copies
                and self.weights.shape == other.weights.shape and bool(np.array_equal(self.weights, other.weights)))

    def __hash__(self) -> int:
        return hash(self.copies)


@dataclass(frozen=True, eq=False)
class PatternNetwork:
    """An n-tuple network: its tuples, the empty squares at which each phase starts, its colour convention."""

    tuples: tuple[NTuple, ...]
    phases: tuple[int, ...] = (60,)
    colours: str = "invert"

    def __post_init__(self) -> None:
        object.__setattr__(self, "tuples", tuple(self.tuples))
        object.__setattr__(self, "phases", tuple(int(p) for p in self.phases))
        if not self.tuples:
            raise PatternError("a network needs at least one tuple")
        if self.colours not in COLOURS:
            raise PatternError(f"colours must be one of {', '.join(COLOURS)}, got {self.colours!r}")
        phases = self.phases
        if not phases or phases[0] != 60 or any(b >= a for a, b in zip(phases, phases[1:])) or phases[-1] < 0:
            raise PatternError(f"phases lists the empty squares at which each phase starts: 60 first, then "
                               f"decreasing to no less than 0; got {list(phases)}")
        for number, ntuple in enumerate(self.tuples):
            if ntuple.weights.shape[0] != len(phases):
                raise PatternError(f"tuple {number + 1} has {ntuple.weights.shape[0]} tables for {len(phases)} phases")
        largest = network_reach(self)
        if largest > VALUE_LIMIT:
            raise PatternError(f"the network's values reach {largest:.4g}, beyond +-{VALUE_LIMIT:g}, the range in "
                               "which a finished game outweighs any value; scale its weights down")

    @property
    def n_weights(self) -> int:
        """The weights of every table of every phase: what evolution moves."""
        return sum(ntuple.weights.size for ntuple in self.tuples)

    @property
    def n_copies(self) -> int:
        """The copies of every tuple: the entries one position's value sums."""
        return sum(len(ntuple.copies) for ntuple in self.tuples)

    def phase_of(self, empties: int) -> int:
        """Returns the phase of a position with ``empties`` empty squares."""
        return max(k for k, start in enumerate(self.phases) if empties <= start)

    def with_weights(self, vector: Sequence[float] | npt.NDArray[np.float64]) -> PatternNetwork:
        """Returns the network with the same tuples and these weights (:meth:`vector`'s order)."""
        values = np.asarray(vector, dtype=np.float64).ravel()
        if values.size != self.n_weights:
            raise PatternError(f"the network has {self.n_weights} weights, got {values.size}")
        tuples, at = [], 0
        for ntuple in self.tuples:
            size = ntuple.weights.size
            tuples.append(NTuple(ntuple.copies, values[at:at + size].reshape(ntuple.weights.shape)))
            at += size
        return PatternNetwork(tuple(tuples), self.phases, self.colours)

    def vector(self) -> npt.NDArray[np.float64]:
        """Returns every weight, tuple by tuple, each tuple's phases one after another."""
        return np.concatenate([ntuple.weights.ravel() for ntuple in self.tuples])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PatternNetwork) and self.phases == other.phases and self.colours == other.colours
                and self.tuples == other.tuples)

    def __hash__(self) -> int:
        return hash((self.tuples, self.phases, self.colours))

    @cached_property
    def _compiled(self) -> PatternTables:
        return PatternTables(layout(self), self.vector(), self)


def network_reach(network: PatternNetwork) -> float:
    """Returns the largest magnitude a network's value can reach: per phase, each copy at its table's largest."""
    return max(sum(len(t.copies) * float(np.max(np.abs(t.weights[phase]))) for t in network.tuples)
               for phase in range(len(network.phases)))


def compiled(network: PatternNetwork) -> PatternTables:
    """Returns the network compiled for the engine's players (once per network object)."""
    return network._compiled


# --- groups ----------------------------------------------------------------

def _lines() -> list[tuple[int, ...]]:
    """Returns every line of two squares or more: rows, columns, then the diagonals each way."""
    lines = [tuple(8 * rank + file for file in range(8)) for rank in range(8)]
    lines += [tuple(8 * rank + file for rank in range(8)) for file in range(8)]
    for step, first_files in ((9, range(-6, 7)), (7, range(1, 14))):
        for start in first_files:  # file - rank (step 9) or file + rank (step 7) is constant along the line
            squares = [8 * rank + file for rank in range(8) for file in range(8)
                       if (file - rank if step == 9 else file + rank) == start]
            lines.append(tuple(sorted(squares)))
    return lines


LINES = _lines()


def _line_containing(squares: frozenset[int]) -> tuple[int, ...] | None:
    """Returns the first line holding every one of ``squares`` (a row first for a single square), or None."""
    for line in LINES:
        if squares <= set(line):
            return line
    return None


def network_shape(network: PatternNetwork) -> tuple[Any, ...]:
    """Returns what a network's layout depends on: its tuples' copies, its phases and its colours (not its weights)."""
    return tuple(ntuple.copies for ntuple in network.tuples), network.phases, network.colours


@functools.lru_cache(maxsize=64)
def _layout(shape: tuple[Any, ...]) -> PatternLayout:
    copies_of, phases, colours = shape
    groups: dict[tuple[int, ...], list[tuple[int, tuple[int, ...]]]] = {}
    for number, copies in enumerate(copies_of):
        for copy in copies:
            squares = frozenset(copy)
            line = _line_containing(squares)
            key = line if line is not None else tuple(sorted(squares))
            groups.setdefault(key, []).append((number, copy))
    if len(groups) > GROUP_LIMIT:
        raise PatternError(f"the network's copies make {len(groups)} groups of squares; the engine takes at most "
                           f"{GROUP_LIMIT}")
    # Each tuple's weights in the vector: its first phase's table, then the next phase's (3**n apart).
    sizes = [len(copies[0]) for copies in copies_of]
    bases = np.cumsum([0] + [3 ** n * len(phases) for n in sizes])
    contributions, steps = [], []
    for key, members in groups.items():
        size = len(key)
        digits = (np.arange(3 ** size)[:, None] // 3 ** np.arange(size)) % 3  # digits[i, j]: key[j]'s digit in index i
        position = {square: j for j, square in enumerate(key)}
        columns = []
        for number, copy in members:
            n = len(copy)
            index = digits[:, [position[square] for square in copy]] @ (3 ** np.arange(n - 1, -1, -1))
            columns.append(bases[number] + index)
        contributions.append(np.stack(columns, axis=1))
        steps.append([3 ** sizes[number] for number, _ in members])
    masks = [sum(1 << square for square in key) for key in groups]
    phase_of = [max(k for k, start in enumerate(phases) if empties <= start) for empties in range(61)]
    return PatternLayout(masks, contributions, steps, phase_of, len(phases), colours == "negate", int(bases[-1]),
                         shape)


def layout_of_shape(shape: tuple[Any, ...]) -> PatternLayout:
    """Returns the layout of a network shape (:func:`network_shape`), made once per shape."""
    return _layout(shape)


def layout(network: PatternNetwork) -> PatternLayout:
    """Returns the engine's layout of a network's structure (its groups), made once per structure.

    A copy on a line joins the line's group; any other joins the group of its
    own squares. A group's table holds, for each content of its squares (the
    index of engine/_patterns.pxd), the sum of its copies' entries: a
    population of networks of one structure shares one layout, and each
    network's tables are summed from its weights in C.
    """
    return _layout(network_shape(network))


# --- named tuple sets --------------------------------------------------------

def _straight(length: int) -> list[tuple[int, ...]]:
    """Returns every straight tuple of ``length`` squares (along a row, a column or a diagonal), one per class of
    the board's symmetries (ordered images)."""
    shapes = []
    for line in LINES:
        if len(line) >= length:
            shapes += [line[i:i + length] for i in range(len(line) - length + 1)]
    return _classes(shapes)


def _classes(shapes: Iterable[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Returns one shape per class of the board's symmetries, in first-seen order (a class's copies are the
    shape's images; a shape whose images as sets are already taken is skipped)."""
    seen: set[frozenset[int]] = set()
    kept = []
    for shape in shapes:
        if frozenset(shape) in seen:
            continue
        kept.append(shape)
        seen.update(frozenset(image) for image in symmetric_copies(shape))
    return kept


def _block(ranks: int, files: int) -> tuple[int, ...]:
    """Returns the ranks x files block at a1, rank by rank."""
    return tuple(8 * rank + file for rank in range(ranks) for file in range(files))


_A1, _B2 = 0, 9
TUPLE_SETS: dict[str, tuple[tuple[int, ...], ...]] = {
    # The systematic sets of the literature (Jaskowski 2014; Jaskowski & Szubert 2016).
    "all-2": tuple(_straight(2)),
    "all-3": tuple(_straight(3)),
    "all-4": tuple(_straight(4)),
    "2x2": tuple(_classes(tuple(8 * r + f for r in (rank, rank + 1) for f in (file, file + 1))
                          for rank in range(7) for file in range(7))),
    # The shapes of strong engines (Logistello, Edax): an edge with its two X-squares, the corner blocks,
    # the diagonals of 4 to 8 squares, and the second to fourth rows (and columns by symmetry).
    "edge-2x": ((*range(8), _B2, 14),),
    "corner-3x3": (_block(3, 3),),
    "corner-2x5": (_block(2, 5),),
    "diagonals": tuple(tuple(sorted(8 * i + (k - i) for i in range(k + 1))) for k in range(3, 8)),
    "inner-lines": tuple(tuple(8 * rank + file for file in range(8)) for rank in (1, 2, 3)),
}
TUPLE_SETS["engine-shapes"] = tuple(shape for name in ("edge-2x", "corner-3x3", "corner-2x5", "diagonals",
                                                       "inner-lines") for shape in TUPLE_SETS[name])


def tuple_set(names: str | Sequence[str], phases: Sequence[int] = (60,), colours: str = "invert") -> PatternNetwork:
    """Returns the network of one or more named tuple sets (:data:`TUPLE_SETS`), every weight 0.

    :raises PatternError: naming an unknown set.
    """
    if isinstance(names, str):
        names = [names]
    shapes: list[tuple[int, ...]] = []
    for name in names:
        if name not in TUPLE_SETS:
            raise PatternError(f"unknown tuple set {name!r}; the sets are {', '.join(TUPLE_SETS)}")
        shapes += [shape for shape in TUPLE_SETS[name] if shape not in shapes]
    tuples = tuple(NTuple(symmetric_copies(shape), np.zeros((len(phases), 3 ** len(shape)))) for shape in shapes)
    return PatternNetwork(tuples, tuple(phases), colours)


def set_weights(names: str | Sequence[str], phases: int = 1) -> int:
    """Returns the number of weights of the named sets' network with ``phases`` phases (docs/config.md lists them)."""
    sets = [names] if isinstance(names, str) else list(names)
    return tuple_set(sets, tuple(range(60, 60 - phases, -1))).n_weights if phases >= 1 else 0

"""The player kinds: the one table that the C players, the spec parser and the config read.

Each kind's ``code`` is its value in the ``PlayerKind`` enum of
``engine/_players.pxd`` (a test checks that the two agree).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALIASES", "KINDS", "SPEC_KINDS", "TABLE_KINDS", "Kind", "canonical"]


@dataclass(frozen=True)
class Kind:
    """A kind of player."""

    name: str
    code: int | None  # the engine's PlayerKind; None: no engine player (a human)
    table: bool  # plays by a weights table (the GA can evolve it; an opponent names one with @TABLE)
    max_depth: int  # deepest look-ahead accepted; 0: takes no depth
    unit: str  # what the depth counts: "plies" or "turns"
    summary: str  # what it plays, for help texts
    hidden: bool = False  # not in the spec grammar: a debugging kind
    noun: str = ""  # what it is called in figures ("disc count", "alpha-beta")


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Kind("random", 0, False, 0, "", "a uniformly random legal move", noun="random mover"),
    Kind("nhand", 1, False, 6, "plies", "the best mean disc difference n plies ahead (the blog's board_add)",
         noun="disc count"),
    Kind("nhand_custom", 1, True, 6, "plies", "the same with a weighted sum of the squares (alias wpc)",
         noun="weighted squares"),
    Kind("nleast", 2, False, 6, "turns", "the move leaving the opponent the fewest moves at its n-th turn",
         noun="fewest replies"),
    Kind("nmost", 3, False, 6, "turns", "the move giving itself the most moves at its own n-th turn",
         noun="most moves"),
    Kind("alphabeta", 4, True, 12, "plies", "negamax with alpha-beta on the weighted sum", noun="alpha-beta"),
    Kind("alphabeta_plain", 5, True, 12, "plies", "the same, by the plain search (the oracle of tests and bench)",
         hidden=True, noun="plain alpha-beta"),
    Kind("human", None, False, 0, "", "you (only in play)", noun="you"),
)}

#: Other names of kinds.
ALIASES: dict[str, str] = {"wpc": "nhand_custom"}

#: Every kind name a spec may use, aliases included.
SPEC_KINDS: tuple[str, ...] = (*(name for name, kind in KINDS.items() if not kind.hidden), *ALIASES)

#: Kinds that play by a weights table (and that a spec may name).
TABLE_KINDS: frozenset[str] = frozenset(name for name, kind in KINDS.items() if kind.table and not kind.hidden)


def canonical(name: str) -> str:
    """Returns the kind an alias stands for (``wpc`` -> ``nhand_custom``), or ``name`` itself."""
    return ALIASES.get(name, name)

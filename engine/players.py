"""Player specs: one text syntax for players everywhere (configs, CLI).

Grammar: ``KIND[:DEPTH][@TABLE][,eps=E][,phase=N][,end=N]``, for example
``random``, ``nhand:2``, ``nleast:1``, ``wpc:1@heuristic``,
``alphabeta:4@weights.csv``, ``wpc:1@lr06,eps=0.1``, ``alphabeta:4@lr06,end=12``.

- KIND: random, nhand, nhand_custom (alias wpc), nleast, nmost, alphabeta, human.
- DEPTH: look-ahead, default 1 (plies for nhand/wpc/alphabeta, turns for nleast/nmost).
- TABLE: a built-in table name (heuristic, classic, disc, lr06, sjk11) or a
  weights file path; required by nhand_custom/wpc/alphabeta.
- A bare built-in table name (``heuristic``, ``lr06,eps=0.1``) means its 1-ply player, ``wpc:1@NAME``.
- A table that is a file path may hold commas (``wpc:1@runs/a,b/best_weights.csv,eps=0.1``): it ends
  at the first comma that starts an option (``,NAME=``).
- eps: probability of a uniformly random legal move before each move.
- phase: the move number from which a 128-weight table uses its second half.
- end: with this many empty squares or fewer, the player solves the game
  exactly and plays a move of the best final disc difference (0, the
  default: never). Any kind but random.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine._players import Player
from engine.kinds import KINDS, SPEC_KINDS, TABLE_KINDS, canonical
from engine.evaluation import EVALUATIONS, Evaluation
from engine.patterns import compiled
from engine.tables import TABLES

#: The move from which a two-phase table plays its second half when the spec gives no ``phase``.
DEFAULT_PHASE_MOVE = 40
#: Every built-in name a spec's table may take: the 64-weight tables and the evaluations with features.
BUILTIN_NAMES: tuple[str, ...] = (*TABLES, *EVALUATIONS)

_SPEC = re.compile(r"^(?P<kind>[a-z_]+)(?::(?P<depth>[^@,]*))?(?:@(?P<table>[^,]*))?(?P<options>(?:,[^,]*)*)$")
_OPTION = re.compile(r"\s*[A-Za-z_]\w*\s*=")


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec; ``table`` is a built-in name or a path, not yet loaded."""

    kind: str
    depth: int = 1
    table: str | None = None
    eps: float = 0.0
    phase_move: int | None = None  # None: not given (a table switches at move 40, an evaluation at its own)
    end: int = 0

    @property
    def table_is_builtin(self) -> bool:
        """Returns whether ``table`` names a built-in table rather than a file."""
        return self.table is not None and self.table in BUILTIN_NAMES

    def __str__(self) -> str:
        text = self.kind if self.kind != "nhand_custom" else "wpc"
        if KINDS[self.kind].max_depth:
            text += f":{self.depth}"
        if self.table is not None:
            text += f"@{self.table}"
        if self.eps:
            text += f",eps={self.eps:g}"
        if self.phase_move is not None:
            text += f",phase={self.phase_move}"
        if self.end:
            text += f",end={self.end}"
        return text


def parse_spec(text: str) -> PlayerSpec:
    """Returns the :class:`PlayerSpec` of a spec text.

    :raises ValueError: one line naming what is wrong and the expected syntax.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"empty player spec {text!r}; expected e.g. random, nhand:2 or wpc:1@heuristic")
    return _parse(text)


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> PlayerSpec:
    # Once per text: a spec is parsed again at every generation (the evolved player's, the opponents'),
    # and the result is frozen. Errors are raised again each time (a cache keeps only returns).
    name, comma, options = text.strip().partition(",")
    if name in BUILTIN_NAMES:  # a bare built-in table is its 1-ply player, as everywhere a table is named
        text = f"wpc:1@{name}{comma}{options}"
    head, at, rest = text.strip().partition("@")
    table = None
    if at and "," not in head:
        # The table is matched apart: a path may hold commas, which the grammar's options would take.
        table, options = split_table(rest)
        match = _SPEC.match(f"{head}@{'T' if table else ''}{options}")
    else:
        match = _SPEC.match(text.strip())
    if match is None:
        raise ValueError(f"malformed player spec {text!r}{_did_you_mean(text)}; expected KIND[:DEPTH][@TABLE][,eps=E], "
                         "e.g. wpc:1@heuristic,eps=0.1")
    raw_kind = match["kind"]
    if raw_kind not in SPEC_KINDS:
        raise ValueError(f"unknown player kind {raw_kind!r} in spec {text!r}{_did_you_mean(raw_kind)}; "
                         f"expected one of {', '.join(SPEC_KINDS)}")
    kind = canonical(raw_kind)
    depth = 1
    if match["depth"] is not None:
        if not KINDS[kind].max_depth:
            raise ValueError(f"player kind {kind!r} takes no depth (spec {text!r})")
        if not _is_decimal(match["depth"]):
            raise ValueError(f"depth {match['depth']!r} in spec {text!r} must be a positive integer")
        depth = int(match["depth"])
        if not 1 <= depth <= KINDS[kind].max_depth:
            raise ValueError(f"depth {depth} in spec {text!r} must be in 1..{KINDS[kind].max_depth} for {kind}")
    if table is None:
        table = match["table"]
    if table is not None:
        table = table.strip()
        if kind not in TABLE_KINDS:
            raise ValueError(f"player kind {kind!r} takes no weights table (spec {text!r})")
        if not table:
            raise ValueError(f"empty table after '@' in spec {text!r}; name one of {', '.join(BUILTIN_NAMES)} or a file")
        if not is_path(table) and table not in BUILTIN_NAMES:
            raise ValueError(
                f"unknown weights table {table!r} in spec {text!r}{_did_you_mean(table, BUILTIN_NAMES)}; "
                f"built-in tables: {', '.join(BUILTIN_NAMES)} (or give a file path)"
            )
    eps, phase_move, end = 0.0, None, 0
    given: set[str] = set()
    for option in filter(None, match["options"].split(",")):
        key, sep, value = option.partition("=")
        key = key.strip()
        if not sep or key not in ("eps", "phase", "end"):
            raise ValueError(f"unknown option {option!r} in spec {text!r}; options are eps=E, phase=N and end=N")
        if key in given:
            raise ValueError(f"option {key} is given twice in spec {text!r}; give it once")
        given.add(key)
        if key == "eps":
            try:
                eps = float(value)
            except ValueError:
                raise ValueError(f"eps {value!r} in spec {text!r} must be a number in [0, 1]") from None
            if not (math.isfinite(eps) and 0.0 <= eps <= 1.0):
                raise ValueError(f"eps {value!r} in spec {text!r} must be a number in [0, 1]")
        elif key == "phase":
            if not _is_decimal(value.strip()) or not 1 <= int(value) <= 59:
                raise ValueError(f"phase {value!r} in spec {text!r} must be a move number in 1..59")
            phase_move = int(value)  # 40 too: given, it overrides an evaluation's own switch move
        else:
            if not _is_decimal(value.strip()) or not 0 <= int(value) <= 60:
                raise ValueError(f"end {value!r} in spec {text!r} must be a number of empty squares in 0..60")
            end = int(value)
            if end and kind in ("random", "human"):
                raise ValueError(f"player kind {kind!r} takes no end (spec {text!r}); it does not search")
    return PlayerSpec(kind, depth, table, eps, phase_move, end)


def _did_you_mean(text: str, names: Sequence[str] = (*TABLES, *SPEC_KINDS)) -> str:
    """Returns "; did you mean 'lr06'?" for the table or kind nearest to the head of a mistyped spec, or "".

    The head is the text before any depth, table or option; case is ignored
    (``LR06``), and a near miss is a close spelling (``lr6``, ``nhnd``).

    >>> _did_you_mean("LR06,eps=0.1"), _did_you_mean("lr6"), _did_you_mean("xyz")
    ("; did you mean 'lr06'?", "; did you mean 'lr06'?", '')
    """
    import difflib  # here: only a mistake needs it

    head = re.split(r"[:@,]", text.strip(), maxsplit=1)[0].strip().lower()
    if not head:
        return ""
    close = [head] if head in names else difflib.get_close_matches(head, names, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close and close[0] != text.strip() else ""


def describe_spec(spec: PlayerSpec | str) -> str:
    """Returns a player in words, for figures: what it plays by, how far it looks, how often it moves at random.

    >>> describe_spec("alphabeta:2@classic,eps=0.1"), describe_spec("nhand:1,eps=0.1"), describe_spec("random")
    ('classic table, alpha-beta 2 plies, 10% random', 'disc count 1 ply ahead, 10% random', 'random mover')
    """
    if isinstance(spec, str):
        spec = parse_spec(spec)
    kind = KINDS[spec.kind]
    unit = {"plies": "ply", "turns": "turn"}.get(kind.unit, kind.unit) if spec.depth == 1 else kind.unit
    if spec.table is not None:
        table = spec.table.replace("\\", "/").rsplit("/", 1)[-1] if is_path(spec.table) else spec.table
        how = f"{spec.depth} {unit} ahead" if spec.kind == "nhand_custom" else f"{kind.noun} {spec.depth} {unit}"
        words = f"{table} table, {how}"
    elif kind.max_depth:
        words = f"{kind.noun} {spec.depth} {unit} ahead"
    else:
        words = kind.noun
    if spec.eps and spec.kind != "random":
        words += f", {spec.eps:.0%} random" if spec.eps * 100 == round(spec.eps * 100) else f", eps {spec.eps:g}"
    if spec.end:
        words += f", exact from {spec.end} empty squares"
    return words


def split_table(text: str) -> tuple[str, str]:
    """Returns the table of a spec's text after ``@``, and the options after it (``,eps=0.1,phase=30``).

    A table that is a file path may hold commas: it runs to the first comma that starts an option.

    >>> split_table("runs/a,b/best.csv,eps=0.1")
    ('runs/a,b/best.csv', ',eps=0.1')
    >>> split_table("heuristic,eps=0.1")
    ('heuristic', ',eps=0.1')
    """
    table, *segments = text.split(",")
    while segments and is_path(table.strip()) and not _OPTION.match(segments[0]):
        table += "," + segments.pop(0)
    return table, "".join("," + segment for segment in segments)


def _is_decimal(text: str) -> bool:
    # ASCII only: str.isdigit() also accepts "²" (which int() rejects) and "١" (which int() reads as 1).
    return text.isascii() and text.isdigit()


def is_path(table: str) -> bool:
    """Returns whether a table name is a weights file path (``@runs/best.csv``) rather than a built-in name (``@lr06``).

    The one rule of the project: a path has a separator or a dot; no built-in name has either.
    """
    return "/" in table or "\\" in table or "." in table


def build_player(
    spec: PlayerSpec | str,
    weights: Sequence[float] | Evaluation | None = None,
    load_weights: Callable[[str], Sequence[float] | Evaluation] | None = None,
) -> Player:
    """Returns the engine :class:`Player` of a spec.

    ``weights`` overrides the spec's table (the GA passes the individual);
    otherwise a built-in table or evaluation is used, or ``load_weights(path)``
    reads a file. An :class:`~engine.evaluation.Evaluation` brings its
    features and its pattern network, and its switch move unless the spec
    sets ``phase``.
    :raises ValueError: for a human spec, missing weights or a bad table.
    """
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if spec.kind == "human":
        raise ValueError("the human player is interactive; it has no engine player")
    if spec.kind in TABLE_KINDS and weights is None:
        if spec.table is None:
            raise ValueError(f"player {spec} needs a weights table, e.g. {spec}@heuristic")
        if spec.table_is_builtin:
            weights = TABLES[spec.table] if spec.table in TABLES else EVALUATIONS[spec.table]
        elif load_weights is None:
            raise ValueError(f"player {spec} names a weights file but no loader was given")
        else:
            weights = load_weights(spec.table)
    if spec.kind not in TABLE_KINDS:
        weights = None
    if isinstance(weights, Evaluation):
        phase_move = spec.phase_move if spec.phase_move is not None else weights.phase_move
        network = compiled(weights.patterns) if weights.patterns is not None else None
        return Player(spec.kind, spec.depth, weights.vector(), spec.eps, phase_move, spec.end, weights.features,
                      network)
    return Player(spec.kind, spec.depth, weights, spec.eps, DEFAULT_PHASE_MOVE if spec.phase_move is None
                  else spec.phase_move, spec.end)

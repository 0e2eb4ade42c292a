"""Reading and writing per-square weight tables, and evaluations that weigh features beside them.

Layout everywhere: index = square, a1 = 0, h1 = 7, a8 = 56, h8 = 63. As a table,
row ``r`` is rank ``r + 1`` (rank 1 first, at the top) and column ``c`` is file
``"abcdefgh"[c]``. A phase-dependent table holds 128 weights: the 64 used before
the switch move, then the 64 used after it.

An evaluation with features (engine/evaluation.py) is written by
:func:`format_evaluation` and :func:`evaluation_npy_bytes` in every format but
CSV, and read back by :func:`parse_evaluation` and :func:`load_evaluation`.

:func:`parse_weights` and :func:`format_weights` are pure; :func:`load_weights`,
:func:`load_evaluation` and :func:`save_weights` are the only functions that touch files.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import json
import math
import os
import re
import tokenize
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.evaluation import DOCUMENT_FORMAT, DOCUMENT_VERSION, FEATURES, PATTERNS_VERSION, Evaluation, FeatureError
from engine.patterns import PatternNetwork, network_reach
from engine.tables import WEIGHT_LIMIT
from ga.evaluation_code import (
    PHASE_NAMES,
    SQUARES,
    c_comment_text,
    format_c_evaluation,
    format_python_evaluation,
    phase_comment,
    value_sentence,
)
from ga.files import FileRefused, atomic_write, read_regular
from ga.ntuple_format import as_network, player_text

__all__ = [
    "FILE_NAMES",
    "FORMATS",
    "FORMAT_BY_SUFFIX",
    "LAYOUT",
    "LAYOUT_PHASES",
    "MAX_FILE_BYTES",
    "PLAYER_SUFFIX",
    "PHASE_NAMES",
    "WEIGHT_LIMIT",
    "range_problem",
    "same_table",
    "symmetric_images",
    "WeightsError",
    "EVALUATION_FORMATS",
    "EVALUATION_NAME",
    "evaluation_npy_bytes",
    "evaluation_text",
    "format_evaluation",
    "format_weights",
    "is_evaluation_document",
    "load_evaluation",
    "load_weights",
    "parse_evaluation",
    "npy_bytes",
    "parse_weights",
    "reading_decimals",
    "save_weights",
    "weight_text",
]

FILE_NAMES = "abcdefgh"
LAYOUT = "a1..h8 row-major"
LAYOUT_PHASES = "a1..h8 row-major, 2 phases: first 64 before the switch move"

#: Significant digits of the largest weight in a table written for reading (markdown); csv, json and npy
#: keep every digit.
READING_DIGITS = 4

#: Formats understood by :func:`parse_weights` ("npy" needs bytes).
FORMATS = ("csv", "json", "npy", "markdown", "c", "python")
#: File suffix -> format, used by :func:`load_weights` and :func:`save_weights`.
FORMAT_BY_SUFFIX = {
    ".csv": "csv",
    ".txt": "csv",
    ".json": "json",
    ".npy": "npy",
    ".md": "markdown",
    ".c": "c",
    ".h": "c",
    ".py": "python",
}

#: The most bytes a weights file may hold: a table of 128 numbers in any format, with comments, is a few KiB.
MAX_FILE_BYTES = 16 * 2**20

# Largest magnitude a C ``int`` is guaranteed to hold on the platforms we build for.
_C_INT_MAX = 2**31 - 1
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Optional C suffixes on numeric literals (1.0f, 12L, 3u); the value is unchanged.
_C_LITERAL_SUFFIX = re.compile(r"(?<=[0-9.])[fFlLuU]+\Z")


_PREDICATES = ("does ", "is ", "has ", "cannot ")


class WeightsError(ValueError):
    """Raised when a weights file or text cannot be read as a weight table."""

    def __init__(self, source: str, problem: str, fix: str = "") -> None:
        self.source = source
        self.problem = problem
        self.fix = fix
        # "weights file 'x' does not exist" reads as a sentence; other problems follow a colon.
        separator = " " if problem.startswith(_PREDICATES) else ": "
        message = f"weights file {source!r}{separator}{problem}"
        if fix:
            message += f"; {fix}"
        super().__init__(message.replace("\n", " "))

    def __reduce__(self) -> tuple[type[WeightsError], tuple[str, str, str]]:
        """Pickles by the constructor arguments, so the error survives worker processes."""
        return type(self), (self.source, self.problem, self.fix)


# ---------------------------------------------------------------- parsing


def parse_weights(
    text: str | bytes, fmt: str, source: str = "<text>"
) -> npt.NDArray[np.float64]:
    """Parses a weight table written in ``fmt`` and returns 64 or 128 float64 weights.

    ``fmt`` is one of :data:`FORMATS`; "npy" takes the file's bytes, the others
    take text. ``source`` names the input in error messages.

    >>> parse_weights(",".join(["1"] * 64), "csv")[:3]
    array([1., 1., 1.])

    :raises WeightsError: if the text is malformed, holds a non-number, NaN or
        infinity, or does not hold exactly 64 or 128 numbers.
    """
    if fmt not in FORMATS:
        raise WeightsError(source, f"unknown format {fmt!r}", f"use one of {', '.join(FORMATS)}")
    if fmt == "npy":
        if not isinstance(text, bytes):
            raise WeightsError(source, "npy weights are binary", "pass bytes or use load_weights")
        return _parse_npy(text, source)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise WeightsError(source, f"not UTF-8 text ({error.reason})", "save it as UTF-8") from None
    text = text.removeprefix("\ufeff")  # byte-order mark left by some spreadsheet exports
    parser = {
        "csv": _parse_csv,
        "json": _parse_json,
        "markdown": _parse_markdown,
        "c": _parse_c,
        "python": _parse_python,
    }[fmt]
    return parser(text, source)


def _parse_csv(text: str, source: str) -> npt.NDArray[np.float64]:
    """Parses 8 (or 16) rows of 8 numbers, or one row or column of 64 (or 128)."""
    rows: list[tuple[int, list[str]]] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        rows.append((line_number, [cell.strip() for cell in stripped.split(",")]))
    values: list[float] = []
    for line_number, cells in rows:
        for column, cell in enumerate(cells, start=1):
            values.append(_to_float(cell, source, f"line {line_number}, column {column}"))
    widths = [len(cells) for _, cells in rows]
    shape = (len(rows), widths[0] if widths else 0)
    ragged = len(set(widths)) > 1
    _check_count(len(values), source, _describe_rows(rows) if ragged else "")
    allowed = {(1, len(values)), (len(values), 1), (len(values) // 8, 8)}
    if ragged or shape not in allowed:
        raise WeightsError(
            source,
            f"expected 8 rows of 8 numbers (16 rows for 128), found {_describe_rows(rows)}",
            "write one board rank per line, rank 1 first",
        )
    return _finish(values, source)


def _parse_json(text: str, source: str) -> npt.NDArray[np.float64]:
    """Parses ``{"layout": ..., "weights": [...]}`` or a bare (possibly nested) list."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise WeightsError(
            source, f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:  # thousands of nested brackets
        raise WeightsError(source, "JSON nested too deeply", 'write {"weights": [64 numbers]}') from None
    if isinstance(document, dict):
        if "weights" not in document:
            raise WeightsError(
                source, "JSON object has no 'weights' key", 'write {"weights": [64 numbers]}'
            )
        layout = document.get("layout", LAYOUT)
        if layout not in (LAYOUT, LAYOUT_PHASES):
            raise WeightsError(
                source,
                f"unsupported layout {layout!r}",
                f"store the weights as {LAYOUT!r} (a1 = 0, h8 = 63)",
            )
        document = document["weights"]
    return _finish(_flatten_literal(document, source), source)


def _parse_markdown(text: str, source: str) -> npt.NDArray[np.float64]:
    """Parses the table(s) written by :func:`format_weights`: ``| rank | a..h |`` rows."""
    if _markdown_blocks(text)[1]:
        raise _an_evaluation(source)
    return _markdown_squares(text, source)


def _markdown_cells(line: str) -> list[str]:
    """Returns the cells of a markdown table row."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _is_markdown_separator(cells: Sequence[str]) -> bool:
    return all(re.fullmatch(r":?-+:?", cell) for cell in cells)


def _markdown_squares(text: str, source: str) -> npt.NDArray[np.float64]:
    """Returns the weights of the square grid(s): ``| rank | a..h |`` rows, with or without a header."""
    values: list[float] = []
    ranks: list[int] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped.startswith("|"):
            continue
        cells = _markdown_cells(stripped)
        if _is_markdown_separator(cells):
            continue  # separator row
        if cells[1:] == list(FILE_NAMES) and cells[0] == "":
            continue  # header row
        if len(cells) != 9:
            raise WeightsError(
                source,
                f"line {line_number}: expected a rank label and 8 numbers, found {len(cells)} cells",
                "write rows as | 1 | w_a1 | ... | w_h1 |",
            )
        expected_rank = len(ranks) % 8 + 1
        if cells[0] != str(expected_rank):
            raise WeightsError(
                source,
                f"line {line_number}: expected rank {expected_rank}, found {cells[0]!r}",
                "list ranks 1..8 from top to bottom",
            )
        ranks.append(expected_rank)
        for column, cell in zip(FILE_NAMES, cells[1:]):
            values.append(_to_float(cell, source, f"line {line_number}, file {column}"))
    if not values:
        raise WeightsError(source, "no markdown table rows found", "write | 1 | ... | rows")
    return _finish(values, source)


def _parse_c(text: str, source: str) -> npt.NDArray[np.float64]:
    """Parses the numbers between the first ``{`` and the following ``}``."""
    without_comments = _without_c_comments(text)
    if _c_document(without_comments, source) is not None:
        raise _an_evaluation(source)
    opening = without_comments.find("{")
    closing = without_comments.find("}", opening + 1)
    if opening < 0 or closing < 0:
        raise WeightsError(
            source, "no C array initializer found", "write double weights[64] = { ... };"
        )
    cells = [cell.strip() for cell in without_comments[opening + 1 : closing].split(",")]
    if cells and cells[-1] == "":
        cells.pop()  # a trailing comma is legal C
    values = [
        _to_float(_C_LITERAL_SUFFIX.sub("", cell), source, f"entry {index}")
        for index, cell in enumerate(cells)
    ]
    return _finish(values, source)


def _parse_python(text: str, source: str) -> npt.NDArray[np.float64]:
    """Parses a list literal, bare or assigned to a name (``weights = [...]``)."""
    module = _python_module(text, source)
    if _python_document(module, source) is not None:
        raise _an_evaluation(source)
    literals = [
        statement.value
        for statement in module.body
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr))
        and isinstance(statement.value, (ast.List, ast.Tuple))
    ]
    if len(literals) != 1:
        raise WeightsError(
            source,
            f"expected one list literal, found {len(literals)}",
            "write weights = [64 numbers]",
        )
    try:
        literal = ast.literal_eval(literals[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise WeightsError(
            source, "the list holds something other than number literals", "write plain numbers"
        ) from None
    return _finish(_flatten_literal(literal, source), source)


def _parse_npy(data: bytes, source: str) -> npt.NDArray[np.float64]:
    """Parses ``.npy`` bytes holding 64 or 128 numbers (any shape with that many)."""
    array = _read_npy(data, source)
    if array.dtype.names is not None and "squares" in array.dtype.names:
        raise _an_evaluation(source)
    if array.dtype.kind not in "iuf":
        raise WeightsError(source, f"expected a numeric array, found dtype {array.dtype}")
    values = array.ravel().astype(np.float64).tolist()
    for index, value in enumerate(values):
        _check_finite(value, source, f"entry {index}")
    return _finish(values, source)


def _python_module(text: str, source: str) -> ast.Module:
    """Returns the syntax tree of Python text (a weights file's or an evaluation's)."""
    try:
        # Quietly: the parser warns on stderr about text like "1if" ("invalid decimal literal").
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=source)
    except SyntaxError as error:
        raise WeightsError(source, f"invalid Python at line {error.lineno}: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError):  # a NUL byte; nesting too deep for the parser
        raise WeightsError(source, "is not a Python list literal the parser can read", "write weights = [64 numbers]") from None


def _read_npy(data: bytes, source: str) -> np.ndarray:
    """Returns the array of ``.npy`` bytes (no pickles, no archives)."""
    try:
        # numpy evaluates the header as a Python literal: a damaged header raises
        # tokenizer and type errors, or warns about Python 2 files on stderr.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # read_array, not np.load: np.load also opens zip archives (.npz) and pickles.
            array = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError, SyntaxError, TypeError, KeyError, tokenize.TokenError,
            OverflowError, MemoryError, RecursionError) as error:
        raise WeightsError(source, f"not a valid .npy file ({error})", "write it with numpy.save") from None
    if not isinstance(array, np.ndarray):
        raise WeightsError(source, f"expected a numeric array, found {type(array).__name__}")
    return array


def _flatten_literal(value: object, source: str) -> list[float]:
    """Flattens a list of numbers, or a rectangular list of rows of 8, into floats."""
    if not isinstance(value, (list, tuple)):
        raise WeightsError(source, f"expected a list of numbers, found {type(value).__name__}")
    if value and all(isinstance(row, (list, tuple)) for row in value):
        if any(len(row) != 8 for row in value):
            raise WeightsError(
                source,
                "nested rows must hold 8 numbers each",
                "write 8 rows of 8 (rank 1 first) or one flat list",
            )
        value = [cell for row in value for cell in row]
    return [_literal_to_float(cell, source, f"entry {index}") for index, cell in enumerate(value)]


def _literal_to_float(value: object, source: str, where: str) -> float:
    """Returns a JSON/Python number as a finite float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WeightsError(source, f"{where}: {value!r} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise WeightsError(source, f"{where}: {value!r} is too large for a float") from None
    return _check_finite(number, source, where)


def _to_float(cell: str, source: str, where: str) -> float:
    """Returns a text cell as a finite float."""
    try:
        number = float(cell)
    except ValueError:
        raise WeightsError(source, f"{where}: {cell!r} is not a number") from None
    return _check_finite(number, source, where)


def _check_finite(number: float, source: str, where: str) -> float:
    """Returns ``number`` if finite, else raises WeightsError."""
    if not math.isfinite(number):
        raise WeightsError(source, f"{where}: {number} is not a finite number", "weights must be finite")
    return number


def _check_count(count: int, source: str, detail: str = "") -> None:
    """Raises WeightsError unless ``count`` is 64 or 128."""
    if count not in (SQUARES, 2 * SQUARES):
        problem = f"expected {SQUARES} numbers, found {count}"
        if detail:
            problem += f" ({detail})"
        raise WeightsError(
            source, problem, "give one weight per square a1..h8 (128 for two phases)"
        )


def _describe_rows(rows: Sequence[tuple[int, Sequence[str]]]) -> str:
    """Describes row widths, e.g. "8 rows: 8, 8, 7, 8, 8, 8, 8, 8 numbers"."""
    widths = [len(cells) for _, cells in rows]
    if len(set(widths)) <= 1:
        return f"{len(rows)} rows of {widths[0] if widths else 0}"
    return f"{len(rows)} rows with " + ", ".join(map(str, widths)) + " numbers"


def _finish(values: Sequence[float], source: str) -> npt.NDArray[np.float64]:
    """Checks the count and the range and returns the values as a float64 array."""
    _check_count(len(values), source)
    table = np.array(values, dtype=np.float64)
    problem = range_problem(table)
    if problem:
        raise WeightsError(source, problem, "scale the table down (only the ratios of the weights matter)")
    return table


def range_problem(table: npt.NDArray[np.float64]) -> str | None:
    """Returns why a table is out of the playable range (:data:`WEIGHT_LIMIT`), or None if it is in it."""
    magnitude = np.abs(table)
    if magnitude.size and magnitude.max() > WEIGHT_LIMIT:
        square = int(np.argmax(magnitude))
        name = FILE_NAMES[square % 64 % 8] + str(square % 64 // 8 + 1)
        return (f"weight {table[square]:g} at {name} is beyond +-{WEIGHT_LIMIT:g}, the range in which a "
                "finished game outweighs any table score")
    return None


# ---------------------------------------------------------------- formatting


def format_weights(
    weights: npt.ArrayLike,
    fmt: str,
    *,
    scale: float | None = None,
    round_: bool = False,
    name: str = "weights",
    source: str = "",
    phase_move: int | None = None,
) -> str:
    """Returns the weight table as text in ``fmt`` (csv, json, markdown, c or python).

    ``scale`` multiplies the weights so that the largest magnitude equals it;
    ``round_`` rounds to integers (and makes the C array ``int``). Floats are
    written with ``repr`` so that :func:`parse_weights` reads them back exactly,
    but for markdown, a table for people to read: its cells share the decimals
    that give the largest weight :data:`READING_DIGITS` significant digits.
    ``name`` is the variable name in C and Python; ``source`` is recorded in
    JSON and as a comment where the format allows one, and so is ``phase_move``
    (the move from which a two-phase table's second half applies; CSV holds
    numbers only).

    >>> print(format_weights(range(64), "csv").splitlines()[1])
    8.0,9.0,10.0,11.0,12.0,13.0,14.0,15.0

    :raises ValueError: for an unknown format, a bad ``name``, a ``scale`` that is
        not a positive finite number, or weights that are not 64 or 128 finite numbers.
    """
    table = _scaled(_as_weights(weights), scale, round_)
    cells = [str(int(value)) if round_ else repr(float(value)) for value in table]
    source = " ".join(source.split())  # one line, so it fits in any comment
    if fmt == "csv":
        # Plain rows only, so that any CSV reader takes it (pd.read_csv(path, header=None)).
        lines = [",".join(cells[row * 8 : row * 8 + 8]) for row in range(len(cells) // 8)]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        numbers = [int(value) if round_ else float(value) for value in table]
        layout = LAYOUT if len(numbers) == SQUARES else LAYOUT_PHASES
        document: dict[str, object] = {"layout": layout, "weights": numbers, "source": source}
        if phase_move is not None and len(numbers) == 2 * SQUARES:
            document["phase_move"] = phase_move
        return json.dumps(document) + "\n"
    if fmt == "markdown":
        if not round_:
            decimals = reading_decimals(table, READING_DIGITS)
            cells = [weight_text(value, decimals) for value in table]
        return _format_markdown(cells, source, phase_move)
    if fmt in ("c", "python"):
        if not _C_IDENTIFIER.match(name):
            raise ValueError(f"name must be an identifier, got {name!r}")
        if fmt == "c":
            if round_ and np.abs(table).max(initial=0) > _C_INT_MAX:
                raise ValueError("rounded weights overflow a C int; pass a smaller scale")
            return _format_c(cells, name, "int" if round_ else "double", source, phase_move)
        return _format_python(cells, name, source, phase_move)
    raise ValueError(f"unknown format {fmt!r}; use one of csv, json, markdown, c, python")


def reading_decimals(weights: npt.ArrayLike, digits: int) -> int:
    """Returns the decimals that show a table's largest magnitude with ``digits`` significant digits (none for a
    table of whole numbers), so that every cell of a table read by people has the same decimals.

    >>> reading_decimals([1.1819958607306147, -0.25], 4), reading_decimals([100, -20, 5], 4)
    (3, 0)
    """
    values = np.asarray(weights, dtype=np.float64).ravel()
    finite = values[np.isfinite(values)]
    if not finite.size or np.all(finite == np.rint(finite)):
        return 0
    largest = float(np.abs(finite).max())
    return max(0, digits - 1 - math.floor(math.log10(largest)))


def weight_text(value: float, decimals: int) -> str:
    """Returns a weight with ``decimals`` decimals, never as a negative zero ("-0.00" reads as a sign that is not there).

    >>> weight_text(-0.001, 2), weight_text(-0.006, 2), weight_text(100.0, 0)
    ('0.00', '-0.01', '100')
    """
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def npy_bytes(weights: npt.ArrayLike) -> bytes:
    """Returns the weights as the bytes of a ``.npy`` file (float64, flat)."""
    buffer = io.BytesIO()
    np.save(buffer, _as_weights(weights), allow_pickle=False)
    return buffer.getvalue()


def _as_weights(weights: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Returns the weights as a flat float64 array, checking count and finiteness."""
    array = np.asarray(weights, dtype=np.float64).ravel()
    if array.size not in (SQUARES, 2 * SQUARES):
        raise ValueError(f"expected {SQUARES} or {2 * SQUARES} weights, got {array.size}")
    if not np.isfinite(array).all():
        raise ValueError("weights must be finite")
    return array


def _scaled(
    weights: npt.NDArray[np.float64], scale: float | None, round_: bool
) -> npt.NDArray[np.float64]:
    """Returns the weights scaled so the largest magnitude is ``scale``, optionally rounded."""
    if scale is not None:
        if not (math.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be a positive finite number, got {scale}")
        if scale > WEIGHT_LIMIT:  # the table written would be refused by every command that plays it
            raise ValueError(f"scale {scale:g} is beyond {WEIGHT_LIMIT:g}, the largest weight a table can be played "
                             f"with; pass a scale of at most {WEIGHT_LIMIT:g}")
        largest = np.abs(weights).max()
        if largest > 0:
            # Divide first: scale / largest overflows when largest is subnormal.
            scaled = weights / largest * scale
            tiny = np.finfo(np.float64).tiny
            lost = np.flatnonzero((np.abs(weights) >= tiny) & (np.abs(scaled) < tiny))
            if lost.size and not round_:  # below the normal doubles a weight loses digits: not the table scaled
                raise ValueError(f"scale {scale:g} makes weight {weights[lost[0]]:g} underflow (below "
                                 f"{tiny:.3g}); pass a larger scale")
            weights = scaled
    if round_:
        rounded = np.rint(weights) + 0.0  # + 0.0 turns -0.0 into 0.0
        merged = _merged_pair(weights, rounded)
        if merged is not None:
            low, high = merged
            message = (f"rounding to integers merges distinct weights ({low:g} and {high:g} both become "
                       f"{np.rint(low) + 0.0:g}); scale the table (--scale K, e.g. --scale {_suggested_scale(weights)})")
            if scale is None:
                raise ValueError(message)  # unscaled, rounding wrecks any table of small weights
            warnings.warn(message, UserWarning, stacklevel=3)  # the scale was chosen: say what it costs
        weights = rounded
    return weights


def _merged_pair(weights: npt.NDArray[np.float64], rounded: npt.NDArray[np.float64]) -> tuple[float, float] | None:
    """Returns two distinct weights that round to the same integer, or None if rounding keeps them apart."""
    first_of: dict[float, float] = {}
    for value, integer in zip(weights.tolist(), rounded.tolist()):
        seen = first_of.setdefault(integer, value)
        if seen != value:
            return (min(seen, value), max(seen, value))
    return None


def _suggested_scale(weights: npt.NDArray[np.float64]) -> int:
    """Returns a power of ten that keeps the table's distinct weights distinct once rounded."""
    for scale in (10, 100, 1000, 10_000, 100_000, 1_000_000):
        largest = np.abs(weights).max()
        scaled = weights / largest * scale if largest > 0 else weights
        if _merged_pair(scaled, np.rint(scaled)) is None:
            return scale
    return 1_000_000


def _format_markdown(cells: Sequence[str], source: str, phase_move: int | None = None) -> str:
    """Returns one markdown table per phase, rank 1 as the top row."""
    header = "| | " + " | ".join(FILE_NAMES) + " |"
    separator = "|---" * 9 + "|"
    blocks = [f"Source: {source}\n"] if source else []
    if phase_move is not None and len(cells) == 2 * SQUARES:
        blocks.append(f"The second table applies from move {phase_move} (phase_move: discs on the board minus 4).\n")
    phases = len(cells) // SQUARES
    for phase in range(phases):
        lines = [f"**{PHASE_NAMES[phase]}**\n"] if phases > 1 else []
        lines += [header, separator]
        for rank in range(8):
            start = phase * SQUARES + rank * 8
            lines.append(f"| {rank + 1} | " + " | ".join(cells[start : start + 8]) + " |")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _format_c(cells: Sequence[str], name: str, c_type: str, source: str, phase_move: int | None = None) -> str:
    """Returns a C array definition with one rank per line."""
    comment = phase_comment(len(cells), phase_move)
    if source:
        comment += f". Source: {source}"
    comment = c_comment_text(comment)
    lines = [f"/* {comment}. */", f"static const {c_type} {name}[{len(cells)}] = {{"]
    for row in range(len(cells) // 8):
        label = f"rank {row % 8 + 1}"
        if len(cells) > SQUARES:
            label += ", " + PHASE_NAMES[row // 8]
        lines.append("    " + ", ".join(cells[row * 8 : row * 8 + 8]) + f",  /* {label} */")
    lines.append("};")
    return "\n".join(lines) + "\n"


def _format_python(cells: Sequence[str], name: str, source: str, phase_move: int | None = None) -> str:
    """Returns a Python list literal assigned to ``name``, one rank per line."""
    lines = [f"# {phase_comment(len(cells), phase_move)}."]
    if source:
        lines.append(f"# Source: {source}")
    lines.append(f"{name} = [")
    for row in range(len(cells) // 8):
        if len(cells) > SQUARES and row % 8 == 0:
            lines.append(f"    # {PHASE_NAMES[row // 8]}")
        lines.append("    " + ", ".join(cells[row * 8 : row * 8 + 8]) + f",  # rank {row % 8 + 1}")
    lines.append("]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- evaluations with features
#
# An evaluation with features (engine/evaluation.py) is written in every format but CSV, and read back
# from each by building the JSON document of an evaluation file, so that one check
# (Evaluation.from_document) names what is wrong in any of them. docs/results.md#export has the layouts.

#: Formats that carry an evaluation's feature weights (CSV holds the square weights alone).
EVALUATION_FORMATS = ("json", "markdown", "npy", "c", "python")
#: The ``--name`` of an exported evaluation's C and Python when none is given.
EVALUATION_NAME = "evaluation"
# Settings of an evaluation beside its weights, as the markdown format names them.
_EVALUATION_SETTINGS = ("phase_move", "end")

_UTF8_BOM = b"\xef\xbb\xbf"

# An npy evaluation: one record per table; ``from_move`` is the move from which the record's table applies.
_NPY_FIELDS = ("squares", "from_move", "end")
def _an_evaluation(source: str) -> WeightsError:
    """Returns the error of a table reader given an evaluation with features."""
    return WeightsError(source, "holds an evaluation with features, not a table of square weights alone",
                        "give it where an evaluation is taken (a player spec's @FILE, evaluate, export, play) "
                        "or read it with load_evaluation")


def _tables(squares: Sequence[float]) -> list[list[float]]:
    """Returns flat square weights as tables of 64 (the last one short if the count is wrong)."""
    return [list(squares[start:start + SQUARES]) for start in range(0, len(squares), SQUARES)]


def _document(tables: Any, features: Any, end: Any, phase_move: Any = None, patterns: Any = None) -> dict[str, Any]:
    """Returns the JSON document of an evaluation file with these fields, for its one check."""
    document: dict[str, Any] = {
        "format": DOCUMENT_FORMAT,
        "version": DOCUMENT_VERSION if patterns is None else PATTERNS_VERSION,
        "squares": tables,
        "features": features,
        "end": end,
    }
    if phase_move is not None:
        document["phase_move"] = phase_move
    if patterns is not None:
        document["patterns"] = patterns
    return document


def _evaluation_of(document: dict[str, Any], source: str) -> Evaluation:
    """Returns the evaluation of a document, naming the field that is wrong."""
    try:
        return Evaluation.from_document(document, source)
    except FeatureError as error:
        fix = "" if "scale the evaluation down" in str(error) else f"write the fields of {DOCUMENT_FORMAT!r} (docs/results.md)"
        raise WeightsError(source, str(error), fix) from None


def _markdown_blocks(text: str) -> tuple[str, dict[str, list[tuple[int, list[str]]]]]:
    """Returns the text of the square grids and the rows (line number, cells) of the feature and setting tables.

    A table is a run of lines starting with ``|``; one whose header's first
    cell is ``feature`` or ``setting`` is taken out of the grids' text (its
    lines left blank, so that line numbers stay those of the file).
    """
    lines = text.splitlines()
    grids = list(lines)
    blocks: dict[str, list[tuple[int, list[str]]]] = {}
    index = 0
    while index < len(lines):
        start = index
        while index < len(lines) and lines[index].strip().startswith("|"):
            index += 1
        if index == start:
            index += 1
            continue
        kind = _markdown_cells(lines[start])[0].lower()
        if kind in ("feature", "setting"):
            rows = [(number + 1, _markdown_cells(lines[number])) for number in range(start, index)]
            blocks.setdefault(kind, []).extend(row for row in rows if not _is_markdown_separator(row[1]))
            grids[start:index] = [""] * (index - start)
    return "\n".join(grids), blocks


def _markdown_document(text: str, source: str) -> dict[str, Any] | None:
    """Returns the document of an evaluation written as markdown, or None if the text is a table alone."""
    if any(line.strip() == MARKDOWN_NETWORK for line in text.splitlines()):
        raise WeightsError(source, "holds a pattern network, which markdown shows for reading only",
                           "read the evaluation from its json export (othello-ga export SOURCE --format json)")
    grids, blocks = _markdown_blocks(text)
    if not blocks:
        return None
    squares = _markdown_squares(grids, source)
    tables = len(squares) // SQUARES
    features: dict[str, list[Any]] = {}
    for number, cells in blocks.get("feature", [])[1:]:  # the header first
        if len(cells) != 1 + tables:
            raise WeightsError(source, f"line {number}: expected a feature and {tables} weight(s), one per "
                               f"table, found {len(cells)} cells", "write rows as | mobility | 0.5 |")
        name = cells[0]
        if name in features:
            raise WeightsError(source, f"line {number}: feature {name!r} is listed twice", "list each feature once")
        features[name] = [_to_float(cell, source, f"line {number}, feature {name}") for cell in cells[1:]]
    settings: dict[str, int] = {}
    for number, cells in blocks.get("setting", [])[1:]:
        if len(cells) != 2 or cells[0] not in _EVALUATION_SETTINGS or cells[0] in settings:
            raise WeightsError(source, f"line {number}: expected one of the settings "
                               f"{', '.join(_EVALUATION_SETTINGS)} (each once) and its value, found {' | '.join(cells)!r}",
                               "write rows as | end | 0 |")
        settings[cells[0]] = _to_integer(cells[1], source, f"line {number}, setting {cells[0]}")
    return _document(_tables(squares.tolist()), features, settings.get("end", 0), settings.get("phase_move"))


def _to_integer(cell: str, source: str, where: str) -> int:
    """Returns a text cell as an integer."""
    try:
        return int(cell)
    except ValueError:
        raise WeightsError(source, f"{where}: {cell!r} is not a whole number") from None


def _npy_document(data: bytes, source: str) -> dict[str, Any] | None:
    """Returns the document of an evaluation written as a structured ``.npy``, or None for an array of weights."""
    array = _read_npy(data, source)
    names = array.dtype.names
    if names is None:
        return None
    fix = "write it with othello-ga export --format npy"
    if "squares" not in names or array.dtype["squares"].shape != (SQUARES,):
        raise WeightsError(source, f"a structured array with no field 'squares' of {SQUARES} weights", fix)
    unknown = [name for name in names if name not in _NPY_FIELDS and name not in FEATURES]
    if unknown:
        raise WeightsError(source, f"unknown field {unknown[0]!r}; the fields are "
                           f"{', '.join(_NPY_FIELDS)} and the features ({', '.join(FEATURES)})", fix)
    if array.ndim != 1 or len(array) not in (1, 2):
        raise WeightsError(source, f"expected one record per table (1 or 2), found shape {array.shape}", fix)
    if any(array.dtype[name].base.kind not in "iuf" for name in names):
        raise WeightsError(source, "every field must hold numbers", fix)
    moves = array["from_move"].tolist() if "from_move" in names else [0]
    ends = array["end"].tolist() if "end" in names else [0]
    if moves[0] != 0 or len(set(ends)) != 1:
        raise WeightsError(source, f"'from_move' must be 0 in the first record (found {moves[0]}) and 'end' the "
                           f"same in each (found {', '.join(map(str, ends))})", fix)
    squares = array["squares"].astype(np.float64).ravel().tolist()
    for index, value in enumerate(squares):
        _check_finite(value, source, f"squares entry {index}")
    features = {name: array[name].astype(np.float64).tolist() for name in names if name in FEATURES}
    return _document(_tables(squares), features, _whole(ends[0]), _whole(moves[1]) if len(moves) == 2 else None)


def _whole(value: float) -> float | int:
    """Returns an integral number as an int (a move or an end stored as a float), anything else as it is."""
    return int(value) if float(value).is_integer() else value


def _without_c_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)


# The declarations an evaluation's C holds (ga.evaluation_code.format_c_evaluation): arrays of weights and the settings' macros.
_C_ARRAY = re.compile(r"static\s+const\s+(?:double|int)\s+(\w+)\s*\[\s*\d*\s*\]\s*=\s*\{([^{}]*)\}")
_C_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\S+)[ \t]*$", re.MULTILINE)


def _c_document(text: str, source: str) -> dict[str, Any] | None:
    """Returns the document of an evaluation written as C (comments taken out), or None for a table's array."""
    arrays = dict(_C_ARRAY.findall(text))
    macros = dict(_C_MACRO.findall(text))
    prefix = next((name.removesuffix("_squares") for name in arrays
                   if name.endswith("_squares") and f"{name.removesuffix('_squares').upper()}_END" in macros), None)
    if prefix is None:
        return None

    def numbers(name: str) -> list[float]:
        cells = [cell.strip() for cell in arrays[name].split(",")]
        if cells and cells[-1] == "":
            cells.pop()  # a trailing comma is legal C
        return [_to_float(_C_LITERAL_SUFFIX.sub("", cell), source, f"{name} entry {index}")
                for index, cell in enumerate(cells)]

    features = {name.removeprefix(f"{prefix}_").removesuffix("_weight"): numbers(name) for name in arrays
                if name.startswith(f"{prefix}_") and name.endswith("_weight")}
    upper = prefix.upper()
    phase_move = macros.get(f"{upper}_PHASE_MOVE")
    patterns = None
    if f"{upper}_TUPLES" in macros:
        patterns = _c_network(arrays, macros, prefix, source, numbers)
    return _document(_tables(numbers(f"{prefix}_squares")), features,
                     _to_integer(macros[f"{upper}_END"], source, f"{upper}_END"),
                     None if phase_move is None else _to_integer(phase_move, source, f"{upper}_PHASE_MOVE"), patterns)


def _c_network(arrays: dict[str, str], macros: dict[str, str], prefix: str, source: str,
               numbers: Any) -> dict[str, Any]:
    """Returns the ``patterns`` field of an evaluation's C (ga.evaluation_code's layout of a network)."""
    upper = prefix.upper()
    fields = ("phase_starts", "tuple_size", "tuple_copies", "copy_squares", "tuple_weights")
    missing = [field for field in fields if f"{prefix}_{field}" not in arrays]
    if missing or f"{upper}_NEGATE" not in macros:
        raise WeightsError(source, f"its pattern network lacks {prefix}_{missing[0] if missing else 'NEGATE'}",
                           "write it with othello-ga export --format c")

    def whole(field: str) -> list[int]:
        cells = [cell.strip() for cell in arrays[f"{prefix}_{field}"].split(",")]
        if cells and cells[-1] == "":
            cells.pop()  # a trailing comma is legal C
        return [_to_integer(cell, source, f"{prefix}_{field} entry {index}") for index, cell in enumerate(cells)]

    phases, sizes, copies, squares = (whole(field) for field in fields[:4])
    weights = numbers(f"{prefix}_tuple_weights")
    if len(sizes) != len(copies) or any(not 1 <= size <= 10 for size in sizes) or any(c < 1 for c in copies) \
            or sum(s * c for s, c in zip(sizes, copies)) != len(squares) \
            or sum(3 ** s for s in sizes) * len(phases) != len(weights):
        raise WeightsError(source, "its pattern network's arrays do not agree in length",
                           "write it with othello-ga export --format c")
    tuples, at_square, at_weight = [], 0, 0
    for size, count in zip(sizes, copies):
        listed = [squares[at_square + k * size:at_square + (k + 1) * size] for k in range(count)]
        at_square += size * count
        tables = [weights[at_weight + k * 3 ** size:at_weight + (k + 1) * 3 ** size] for k in range(len(phases))]
        at_weight += 3 ** size * len(phases)
        tuples.append({"copies": listed, "weights": tables})
    negate = _to_integer(macros[f"{upper}_NEGATE"], source, f"{upper}_NEGATE")
    return {"colours": "negate" if negate else "invert", "phases": phases, "tuples": tuples}


def _python_document(module: ast.Module, source: str) -> dict[str, Any] | None:
    """Returns the document of an evaluation written as Python, or None for a table's list."""
    values = {statement.targets[0].id: statement.value for statement in module.body
              if isinstance(statement, ast.Assign) and len(statement.targets) == 1
              and isinstance(statement.targets[0], ast.Name)}
    prefix = next((name.removesuffix("_squares") for name in values
                   if name.endswith("_squares") and f"{name.removesuffix('_squares')}_features" in values), None)
    if prefix is None:
        return None

    def literal(field: str) -> Any:
        name = f"{prefix}_{field}"
        if name not in values:
            return None
        try:
            return ast.literal_eval(values[name])
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise WeightsError(source, f"{name} holds something other than literals", "write plain numbers") from None

    end = literal("end")
    if end is None:
        raise WeightsError(source, f"{prefix}_end is missing", f"write {prefix}_end = 0")
    return _document(literal("squares"), literal("features"), end, literal("phase_move"), literal("patterns"))


def _evaluation_export(data: str | bytes, fmt: str, source: str) -> Evaluation | None:
    """Returns the evaluation written in ``data`` (``fmt``, any of :data:`EVALUATION_FORMATS`), or None for a table.

    :raises WeightsError: for an evaluation that is malformed.
    """
    if fmt == "json":
        raw = data.encode("utf-8") if isinstance(data, str) else data
        raw = raw.removeprefix(_UTF8_BOM)  # a byte-order mark, as some editors save JSON: the same document
        return parse_evaluation(raw, source) if is_evaluation_document(raw) else None
    if fmt == "npy":
        if not isinstance(data, bytes):
            raise WeightsError(source, "npy evaluations are binary", "pass bytes or use load_evaluation")
        document = _npy_document(data, source)
    else:
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError:
                return None  # load_weights names it
        text = data.removeprefix("\ufeff")
        if fmt == "markdown":
            document = _markdown_document(text, source)
        elif fmt == "c":
            document = _c_document(_without_c_comments(text), source)
        elif fmt == "python":
            document = _python_document(_python_module(text, source), source)
        else:
            return None
    return None if document is None else _evaluation_of(document, source)


def _scaled_evaluation(evaluation: Evaluation, scale: float | None, round_: bool) -> Evaluation:
    """Returns the evaluation with every weight, squares, features and network alike, scaled and rounded as a
    table's.

    One factor for all: the largest magnitude of any weight becomes ``scale``,
    and the evaluation orders positions as before.
    """
    network = evaluation.patterns
    own = np.array(evaluation.squares + evaluation.feature_weights, dtype=np.float64)
    numbers = _scaled(np.concatenate([own, network.vector()]) if network is not None else own, scale, round_)
    count, features = len(evaluation.squares), len(evaluation.feature_weights)
    return dataclasses.replace(
        evaluation, squares=tuple(numbers[:count].tolist()),
        feature_weights=tuple(numbers[count:count + features].tolist()),
        patterns=network.with_weights(numbers[count + features:]) if network is not None else None)


def format_evaluation(
    evaluation: Evaluation,
    fmt: str,
    *,
    scale: float | None = None,
    round_: bool = False,
    name: str = EVALUATION_NAME,
    source: str | None = None,
) -> str:
    """Returns an evaluation with features or a pattern network as text in ``fmt`` (json, markdown, c, python
    or player).

    ``json`` is the evaluation file (docs/results.md#evaluation-files);
    ``markdown`` the square grid(s), a table of feature weights, one of the
    settings, and the network's tables for reading; ``c`` and ``python`` code
    that computes the whole evaluation from two bitboards; ``player`` the
    published networks' format (ga/ntuple_format.py: the squares as
    1-tuples, no features). Each but markdown with a network reads back with
    :func:`load_evaluation` (or :func:`parse_evaluation`; a ``player`` file
    by ga.ntuple_format.read_player, its colours given). ``scale`` and
    ``round_`` apply to every weight with one factor (:func:`format_weights`'s
    rule over squares, features and network together); ``name`` prefixes the
    C and Python names; ``source`` (by default the evaluation's) is recorded.

    :raises ValueError: for csv (it holds squares alone), npy (binary:
        :func:`evaluation_npy_bytes`), a bad ``name`` or ``scale``.
    """
    if fmt == "player":
        return player_text(as_network(_scaled_evaluation(evaluation, scale, round_)))
    if fmt not in EVALUATION_FORMATS:
        features = ", ".join(evaluation.features) or "none"
        raise ValueError(f"an evaluation with features ({features}) cannot be written as {fmt}, which holds the "
                         f"square weights alone; export it as {', '.join(EVALUATION_FORMATS[:-1])} or "
                         f"{EVALUATION_FORMATS[-1]}")
    if fmt == "npy":
        raise ValueError("npy is binary: use evaluation_npy_bytes")
    if fmt in ("c", "python") and not _C_IDENTIFIER.match(name):
        raise ValueError(f"name must be an identifier, got {name!r}")
    scaled = _scaled_evaluation(evaluation, scale, round_)
    source = " ".join((evaluation.source if source is None else source).split())  # one line, for any comment

    def text(value: float) -> str:
        return str(int(value)) if round_ else repr(float(value))

    cells = [text(value) for value in scaled.squares + scaled.feature_weights]
    squares, weights = cells[:len(scaled.squares)], cells[len(scaled.squares):]
    network = scaled.patterns
    network_cells = [text(value) for value in network.vector()] if network is not None else []
    if fmt == "json":
        document = dataclasses.replace(scaled, source=source).to_document()
        if round_:
            document["squares"] = [[int(w) for w in table] for table in document["squares"]]
            document["features"] = {feature: [int(w) for w in ws] for feature, ws in document["features"].items()}
            for item in document.get("patterns", {}).get("tuples", []):
                item["weights"] = [[int(w) for w in table] for table in item["weights"]]
        return json.dumps(document, indent=2) + "\n"
    if fmt == "markdown":
        if not round_:  # a table to read, as a table's markdown: squares and feature weights each on their scale
            squares = [weight_text(v, reading_decimals(scaled.squares, READING_DIGITS)) for v in scaled.squares]
            weights = [weight_text(v, reading_decimals(scaled.feature_weights, READING_DIGITS))
                       for v in scaled.feature_weights]
            if network is not None:
                network_cells = [weight_text(v, reading_decimals(network.vector(), READING_DIGITS))
                                 for v in network.vector()]
        return _format_markdown_evaluation(scaled, squares, weights, source, network_cells)
    if fmt == "c":
        largest = max(np.abs(scaled.vector()).max(initial=0.0), 1.0)
        # Any value is at most 64 weights of the squares and a count of at most 64 per feature times its weight,
        # and the network's largest value.
        reach = largest * SQUARES * (1 + len(scaled.features)) + (network_reach(network) if network else 0.0)
        if round_ and reach > _C_INT_MAX:
            raise ValueError("the rounded evaluation's values overflow a C int; pass a smaller scale")
        return format_c_evaluation(scaled, squares, weights, name, "int" if round_ else "double", source,
                                   network_cells)
    return format_python_evaluation(scaled, squares, weights, name, source, network_cells)


def evaluation_npy_bytes(evaluation: Evaluation, *, scale: float | None = None, round_: bool = False) -> bytes:
    """Returns an evaluation as the bytes of a structured ``.npy`` file: one record per table.

    Each record holds ``squares`` (64 float64, a1 first), one float64 field
    per feature (its weight in that table), ``from_move`` (the move from which
    the table applies: 0, then ``phase_move``) and ``end``. ``numpy.load``
    reads it without pickles; :func:`load_evaluation` reads it back.
    """
    if evaluation.patterns is not None:
        raise ValueError("npy holds square and feature weights, not a pattern network; export the evaluation as "
                         "json, c, python or player (the published networks' format)")
    scaled = _scaled_evaluation(evaluation, scale, round_)
    dtype = np.dtype([("squares", "<f8", (SQUARES,)), *((feature, "<f8") for feature in scaled.features),
                      ("from_move", "<i8"), ("end", "<i8")])
    records = np.zeros(scaled.n_tables, dtype=dtype)
    for table in range(scaled.n_tables):
        records["squares"][table] = scaled.squares[table * SQUARES:(table + 1) * SQUARES]
        for feature, weight in scaled.weights_of(table).items():
            records[feature][table] = weight
        records["from_move"][table] = scaled.phase_move if table else 0
    records["end"] = scaled.end
    buffer = io.BytesIO()
    np.save(buffer, records, allow_pickle=False)
    return buffer.getvalue()


def _format_markdown_evaluation(evaluation: Evaluation, squares: Sequence[str], weights: Sequence[str],
                                source: str, network_cells: Sequence[str] = ()) -> str:
    """Returns the grid(s) of :func:`_format_markdown`, then the feature weights and the settings as tables."""
    two = evaluation.n_tables == 2
    grids = _format_markdown(squares, source, evaluation.phase_move if two else None)
    columns = list(PHASE_NAMES) if two else ["weight"]
    count = len(evaluation.features)
    lines = [f"**Features**: {value_sentence(evaluation, 'the side evaluated')}.\n",
             "| feature | " + " | ".join(columns) + " |", "|---" * (1 + len(columns)) + "|"]
    for index, feature in enumerate(evaluation.features):
        lines.append(f"| {feature} | " + " | ".join(weights[t * count + index] for t in range(evaluation.n_tables))
                     + " |")
    settings = ({"phase_move": evaluation.phase_move} if two else {}) | {"end": evaluation.end}
    said = ("`phase_move`, the move from which the second table applies (discs on the board minus 4); " if two
            else "")
    lines += ["", f"**Settings**: {said}`end`, the empty squares from which it was trained with the endgame solved "
              "exactly (0: never).\n", "| setting | value |", "|---|---|"]
    lines += [f"| {setting} | {value} |" for setting, value in settings.items()]
    if evaluation.patterns is not None:
        lines += _markdown_network(evaluation.patterns, network_cells)
    return grids + "\n" + "\n".join(lines) + "\n"


#: The heading of a network in markdown: what follows it is for reading, and is not read back.
MARKDOWN_NETWORK = "## Pattern network"
# A square's digit in a table's index, as the markdown shows it: empty, the side evaluated's disc, the other's.
_DIGIT_MARKS = ("-", "x", "o")


def _markdown_network(network: PatternNetwork, cells: Sequence[str]) -> list[str]:
    """Returns a network as markdown for reading: each tuple's copies, then its weight for each content."""
    own = "black's disc (white's value is the negation)" if network.colours == "negate" else "a disc of the side evaluated"
    phases = len(network.phases)
    lines = ["", MARKDOWN_NETWORK, "",
             f"Colours: `{network.colours}`. Each tuple's weight is read at the index its squares make, written "
             f"here square by square in the order of the copy: `-` empty, `x` {own}, `o` the other side's. "
             "The value adds the weight of every copy. This section is for reading: the json export reads back.",
             ""]
    if phases > 1:
        lines.append(f"Phases start at {', '.join(map(str, network.phases))} empty squares.")
    at = 0
    columns = [f"from {start} empty" for start in network.phases] if phases > 1 else ["weight"]
    for number, ntuple in enumerate(network.tuples, start=1):
        n = ntuple.size
        copies = "; ".join(" ".join(FILE_NAMES[q % 8] + str(q // 8 + 1) for q in copy) for copy in ntuple.copies)
        lines += ["", f"### Tuple {number}: {n} squares, {len(ntuple.copies)} copies", "", f"Copies: {copies}.", "",
                  "| squares | " + " | ".join(columns) + " |", "|---" * (1 + len(columns)) + "|"]
        size = 3 ** n
        for index in range(size):
            marks = "".join(_DIGIT_MARKS[(index // 3 ** (n - 1 - j)) % 3] for j in range(n))
            lines.append(f"| `{marks}` | " + " | ".join(cells[at + phase * size + index] for phase in range(phases))
                         + " |")
        at += size * phases
    return lines


# ---------------------------------------------------------------- files


def load_weights(path: str | os.PathLike[str], fmt: str | None = None) -> npt.NDArray[np.float64]:
    """Reads a weights file; the format comes from the suffix unless ``fmt`` is given.

    :raises WeightsError: if the file is missing, unreadable, of unknown suffix
        or malformed.
    """
    path = Path(path)
    source = str(path)
    if not os.path.lexists(path):
        raise WeightsError(source, "does not exist", "check the path")
    if path.is_dir():
        raise WeightsError(source, "is a directory", "name a weights file in it (e.g. best_weights.csv); where a "
                                                     "run is accepted (evaluate, export, play), give the run directory alone")
    fmt = fmt or _format_from_suffix(path)
    try:
        data = read_regular(path, MAX_FILE_BYTES)  # checked before it is opened: a FIFO is never waited on
    except FileRefused as error:
        raise WeightsError(source, error.problem, "give the path of a weights file") from None
    except FileNotFoundError:
        raise WeightsError(source, "does not exist", "check the path (a link that points nowhere?)") from None
    except OSError as error:
        raise WeightsError(source, f"cannot be read ({error.strerror})") from None
    return parse_weights(data, fmt, source)


def is_evaluation_document(data: bytes) -> bool:
    """Returns whether a file's bytes are an evaluation file (JSON whose ``format`` is the evaluation format's)."""
    data = data.removeprefix(_UTF8_BOM)
    if not data.lstrip().startswith(b"{"):
        return False
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        # Not JSON; or JSON that Python does not read (an integer of 4,301 digits): an evaluation if it says so,
        # for parse_evaluation to name what is wrong.
        return not isinstance(error, json.JSONDecodeError) and DOCUMENT_FORMAT.encode() in data
    return isinstance(document, dict) and document.get("format") == DOCUMENT_FORMAT


def parse_evaluation(data: str | bytes, source: str = "<text>", fmt: str = "json") -> Evaluation:
    """Returns the evaluation of an evaluation file's text (docs/results.md#evaluation-files), or of an
    evaluation exported in ``fmt`` (markdown, c or python text; npy bytes; :func:`format_evaluation`).

    :raises WeightsError: naming the field that is wrong, or for a table without features in ``fmt``.
    """
    if fmt != "json":
        if fmt not in EVALUATION_FORMATS:
            raise WeightsError(source, f"unknown evaluation format {fmt!r}", f"use one of {', '.join(EVALUATION_FORMATS)}")
        evaluation = _evaluation_export(data, fmt, source)
        if evaluation is None:
            raise WeightsError(source, f"holds no evaluation in {fmt}", "read a table of square weights with load_weights")
        return evaluation
    try:
        document = json.loads(data.removeprefix(_UTF8_BOM) if isinstance(data, bytes) else data.removeprefix("\ufeff"))
    except ValueError as error:  # not JSON, not UTF-8, or an integer of more digits than Python reads
        if "digits" in str(error) and not isinstance(error, json.JSONDecodeError):
            raise WeightsError(source, "holds an integer of more than 4,300 digits, which is no weight") from None
        raise WeightsError(source, f"is not an evaluation file: {error}") from None
    except RecursionError:
        raise WeightsError(source, "JSON nested too deeply") from None
    if not isinstance(document, dict):
        raise WeightsError(source, "is not an evaluation file: not a JSON object")
    return _evaluation_of(document, source)


def evaluation_text(evaluation: Evaluation) -> str:
    """Returns an evaluation file's text: its JSON document, indented, with a final newline."""
    return json.dumps(evaluation.to_document(), indent=2) + "\n"


def load_evaluation(path: str | os.PathLike[str], fmt: str | None = None) -> Evaluation:
    """Reads an evaluation file, an evaluation exported in any format but CSV, or a weights table in any
    format (an evaluation without features); the format comes from the suffix unless ``fmt`` is given.

    Where a player is built from a file, this is its loader: a table plays as
    it always did, an evaluation file brings its features.

    :raises WeightsError: if the file is missing, unreadable or malformed.
    """
    path = Path(path)
    if (fmt or FORMAT_BY_SUFFIX.get(path.suffix.lower())) in EVALUATION_FORMATS and os.path.lexists(path) \
            and not path.is_dir():
        try:
            data = read_regular(path, MAX_FILE_BYTES)
        except (FileRefused, OSError):
            data = b""  # load_weights names the problem
        if data:
            evaluation = _evaluation_export(data, fmt or FORMAT_BY_SUFFIX[path.suffix.lower()], str(path))
            if evaluation is not None:
                return evaluation
    return Evaluation(tuple(float(w) for w in load_weights(path, fmt)), source=str(path))


def save_weights(
    path: str | os.PathLike[str],
    weights: npt.ArrayLike,
    fmt: str | None = None,
    *,
    overwrite: bool = False,
    scale: float | None = None,
    round_: bool = False,
    name: str = "weights",
    source: str = "",
    phase_move: int | None = None,
) -> Path:
    """Writes the weights atomically and returns the path written.

    The format comes from the suffix unless ``fmt`` is given; the keyword
    arguments are those of :func:`format_weights` ("npy" ignores them). The
    file appears complete or not at all: a temporary file in the same directory
    is renamed into place.

    :raises FileExistsError: if ``path`` exists and ``overwrite`` is false.
    """
    path = Path(path)
    fmt = fmt or _format_from_suffix(path)
    if fmt == "npy":
        payload = npy_bytes(weights)
    else:
        payload = format_weights(
            weights, fmt, scale=scale, round_=round_, name=name, source=source, phase_move=phase_move
        ).encode("utf-8")
    if not overwrite and path.exists():
        raise _exists_error(path)
    try:
        atomic_write(path, payload, overwrite=overwrite, fsync=True)
    except FileExistsError:
        raise _exists_error(path) from None
    return path


def _exists_error(path: Path) -> FileExistsError:
    """Returns the error raised when refusing to overwrite ``path``."""
    return FileExistsError(
        f"weights file {str(path)!r} already exists; pass overwrite=True to replace it"
    )


#: The suffix of the published n-tuple networks' files (ga/ntuple_format.py).
PLAYER_SUFFIX = ".player"


def _format_from_suffix(path: Path) -> str:
    """Returns the format implied by the file suffix."""
    if path.suffix.lower() == PLAYER_SUFFIX:
        # Which side the network's "black" is for white is not in the file: the user says it once, on import.
        raise WeightsError(str(path), "is a published n-tuple network, whose colour convention the file does not "
                           "hold", f"import it once: othello-ga export {path} --colours invert|negate --format json "
                           f"-o {path.with_suffix('.json').name}, then use the .json")
    try:
        return FORMAT_BY_SUFFIX[path.suffix.lower()]
    except KeyError:
        raise WeightsError(
            str(path),
            f"has unknown suffix {path.suffix!r}",
            "use one of " + " ".join(FORMAT_BY_SUFFIX) + " or pass fmt",
        ) from None


def symmetric_images(weights: npt.ArrayLike) -> list[npt.NDArray[np.float64]]:
    """Returns the 8 images of a 64-weight table under the board's symmetries (rotations and reflections)."""
    grid = np.asarray(weights, dtype=np.float64).reshape(8, 8)
    images = []
    for turned in (grid, grid.T):  # a reflection, then the four rotations of each
        for quarter_turns in range(4):
            images.append(np.rot90(turned, quarter_turns).ravel())
    return images


def same_table(first: npt.ArrayLike, second: npt.ArrayLike, tolerance: float = 1e-9) -> bool:
    """Returns whether two tables play alike: equal up to a positive scale and a symmetry of the board.

    A positive scale keeps every comparison of weighted sums, and so every move;
    a symmetry of the board is the same table seen from another corner. Tables of
    two phases (128 weights) are alike when both halves are alike under one scale
    and symmetry. ``tolerance`` is relative to the largest weight.
    """
    a = np.asarray(first, dtype=np.float64).reshape(-1, 64)
    b = np.asarray(second, dtype=np.float64).reshape(-1, 64)
    if a.shape != b.shape:
        if a.shape[0] == 1 and b.shape[0] == 2:
            a = np.vstack([a, a])  # one table for the whole game is a two-phase table of equal halves
        elif a.shape[0] == 2 and b.shape[0] == 1:
            b = np.vstack([b, b])
        else:
            return False
    largest_a, largest_b = float(np.abs(a).max()), float(np.abs(b).max())
    if largest_a == 0.0 or largest_b == 0.0:
        return largest_a == largest_b
    a, b = a / largest_a, b / largest_b
    images = [np.stack(halves) for halves in zip(*(symmetric_images(half) for half in b))]
    return any(np.allclose(a, image, rtol=0.0, atol=tolerance) for image in images)


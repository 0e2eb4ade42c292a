"""The text format of the published n-tuple networks (the Othello League's, as the Poznan "cevo" framework
reads them): read into an engine :class:`~engine.patterns.PatternNetwork`, and written back.

The format (braces are separators only): T, the number of tuples; then for
each tuple its length n, its number of copies S, the S copies (n board
locations each, 0 = a1 ... 63 = h8) and its 3**n weights. A location's digit
is 0 for a white disc, 1 for an empty square, 2 for a black disc, the first
location the most significant; the value is black's. Which side is "black"
for white is not in the file: the framework's loader sets it per network,
``invert`` (white swaps every disc's colour and plays as black) or ``negate``
(white minimises black's value). It is therefore part of what a user says
when importing a network (``export FILE.player --colours ...``).

The engine's digits are 0 empty, 1 the viewer's disc (black's under
negate), 2 the other's (engine/patterns.py): a table is read into that order
and written back out of it, so that a network read and written again holds
the very numbers it held.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engine.evaluation import Evaluation
from engine.patterns import COLOURS, MAX_SQUARES, NTuple, PatternError, PatternNetwork
from ga.files import FileRefused, read_regular

__all__ = ["MAX_PLAYER_BYTES", "NtupleFormatError", "as_network", "parse_player", "player_text", "read_player"]

#: The largest network file read: well above any published one (the largest, 147 KB) and a network of
#: twenty 10-square tuples written out (25 MB).
MAX_PLAYER_BYTES = 64 * 2**20
# The file's digit of each of the engine's digits: empty is 1, the viewer's (black's) disc 2, the other's 0.
_FILE_DIGIT = (1, 2, 0)


class NtupleFormatError(ValueError):
    """A network file that cannot be read: one line naming the file, the place and the fix."""

    def __init__(self, source: str, problem: str, fix: str = "") -> None:
        message = f"network file '{source}': {problem}"
        super().__init__(message + (f"; {fix}" if fix else ""))
        self.source, self.problem, self.fix = source, problem, fix

    def __reduce__(self) -> tuple[type[NtupleFormatError], tuple[str, str, str]]:
        return type(self), (self.source, self.problem, self.fix)


def _file_order(n: int) -> npt.NDArray[np.intp]:
    """Returns, for each engine index of an n-tuple, the file's index of the same contents."""
    index = np.arange(3 ** n)
    file_index = np.zeros(3 ** n, dtype=np.intp)
    for j in range(n):  # j = 0 is the most significant digit in both
        digit = (index // 3 ** (n - 1 - j)) % 3
        file_index = file_index * 3 + np.take(_FILE_DIGIT, digit)
    return file_index


class _Tokens:
    """The file's numbers in order, braces dropped, with the place of each for messages."""

    def __init__(self, text: str, source: str) -> None:
        self.items = text.replace("{", " ").replace("}", " ").split()
        self.at = 0
        self.source = source

    def integer(self, what: str, low: int, high: int) -> int:
        token = self._next(what)
        if not (token.isascii() and token.lstrip("-").isdigit()) or len(token) > 12:
            raise NtupleFormatError(self.source, f"{what} must be a whole number, got {token[:40]!r}",
                                    "check the file is a published n-tuple network")
        value = int(token)
        if not low <= value <= high:
            raise NtupleFormatError(self.source, f"{what} must be in {low}..{high}, got {value}")
        return value

    def weight(self, what: str) -> float:
        token = self._next(what)
        try:
            value = float(token) if len(token) <= 64 else math.nan
        except ValueError:
            raise NtupleFormatError(self.source, f"{what} is not a number: {token[:40]!r}") from None
        if not math.isfinite(value):
            raise NtupleFormatError(self.source, f"{what} must be a finite number, got {token[:40]!r}")
        return value

    def _next(self, what: str) -> str:
        if self.at >= len(self.items):
            raise NtupleFormatError(self.source, f"ends before {what}", "the file is cut short or a count is wrong")
        self.at += 1
        return self.items[self.at - 1]


def parse_player(text: str | bytes, colours: str, source: str = "<text>") -> PatternNetwork:
    """Returns the network of a published network file's text, with its colour convention.

    :raises NtupleFormatError: naming the place that is wrong.
    """
    if colours not in COLOURS:
        raise NtupleFormatError(source, f"unknown colours {colours!r}", f"use one of {', '.join(COLOURS)}")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise NtupleFormatError(source, "is not text (not UTF-8)", "give a published n-tuple network") from None
    tokens = _Tokens(text, source)
    count = tokens.integer("the number of tuples", 1, 100_000)
    tuples = []
    for number in range(1, count + 1):
        where = f"tuple {number}"
        n = tokens.integer(f"{where}'s length", 1, MAX_SQUARES)
        copies = tokens.integer(f"{where}'s number of copies", 1, 1024)
        locations = []
        for copy in range(1, copies + 1):
            squares = [tokens.integer(f"{where}, copy {copy}, location {k + 1}", 0, 63) for k in range(n)]
            if len(set(squares)) != n:
                raise NtupleFormatError(source, f"{where}, copy {copy} repeats a location: {squares}",
                                        "each copy lists distinct squares")
            locations.append(tuple(squares))
        table = np.array([tokens.weight(f"{where}'s weight {k + 1} of {3 ** n}") for k in range(3 ** n)])
        tuples.append(NTuple(tuple(locations), table[_file_order(n)][None, :]))
    if tokens.at != len(tokens.items):
        raise NtupleFormatError(source, f"holds more numbers after its {count} tuples ({tokens.items[tokens.at][:40]!r} "
                                        "first)", "the number of tuples or a tuple's count is wrong")
    try:
        return PatternNetwork(tuple(tuples), (60,), colours)
    except PatternError as error:
        raise NtupleFormatError(source, str(error)) from None


def read_player(path: str | os.PathLike[str], colours: str) -> PatternNetwork:
    """Reads a published network file (see :func:`parse_player`)."""
    source = os.fspath(path)
    if Path(path).is_dir():
        raise NtupleFormatError(source, "is a directory", "name a .player file")
    try:
        data = read_regular(path, MAX_PLAYER_BYTES)
    except FileRefused as error:
        raise NtupleFormatError(source, error.problem.replace("such a file", "a network"),
                                "give the path of a published n-tuple network") from None
    except FileNotFoundError:
        raise NtupleFormatError(source, "does not exist", "check the path") from None
    except OSError as error:
        raise NtupleFormatError(source, f"cannot be read ({error.strerror})") from None
    return parse_player(data, colours, source)


def player_text(network: PatternNetwork) -> str:
    """Returns a network in the published text format (its colour convention is not part of the file).

    :raises ValueError: for a network with phases (the format has one table per tuple).
    """
    if len(network.phases) != 1:
        raise ValueError(f"the published format holds one table per tuple; this network has "
                         f"{len(network.phases)} phases (export it as json)")
    lines = [f"{{ {len(network.tuples)}"]
    for ntuple in network.tuples:
        n = ntuple.size
        lines.append(f"  {{ {n} {len(ntuple.copies)}")
        lines += [f"    {{ {' '.join(str(square) for square in copy)} }}" for copy in ntuple.copies]
        table = np.empty(3 ** n)
        table[_file_order(n)] = ntuple.weights[0]
        lines += ["", f"    {{ {' '.join(repr(float(w)) for w in table)} }}", "  }"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def as_network(evaluation: Evaluation) -> PatternNetwork:
    """Returns an evaluation as one network the published format holds: its pattern network, and its square
    weights (if any is not 0) as 64 1-tuples (a square's weight for the side evaluated's disc, its negation for
    the other side's), in every phase of the network.

    :raises ValueError: for what the format cannot hold: features, two square tables, or squares beside a
        "negate" network (the squares are each side's own, the network black's).
    """
    if evaluation.features:
        raise ValueError(f"the published format holds n-tuples only; the features ({', '.join(evaluation.features)}) "
                         "have no place in it: export the evaluation as json, c or python")
    if evaluation.n_tables == 2:
        raise ValueError("the published format has no switch move for two square tables: export the evaluation as "
                         "json, c or python")
    network = evaluation.patterns
    tuples = list(network.tuples) if network is not None else []
    phases = network.phases if network is not None else (60,)
    colours = network.colours if network is not None else "invert"
    if any(evaluation.squares):
        if colours == "negate":
            raise ValueError("the square weights are each side's own and the network is black's (negate): one file "
                             "cannot hold both; export the evaluation as json, c or python")
        tuples = [NTuple(((square,),), np.tile([0.0, weight, -weight], (len(phases), 1)))
                  for square, weight in enumerate(evaluation.squares)] + tuples
    if not tuples:
        raise ValueError("the evaluation weighs nothing the published format holds")
    return PatternNetwork(tuple(tuples), phases, colours)

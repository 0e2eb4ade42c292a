"""C and Python that compute an evaluation with features and a pattern network from two bitboards, as the
export writes them.

The generated code is self-contained (C99 with standard headers; Python
with no imports) and computes exactly the engine's features
(engine/_features.pxd) and the network's sum over its tuples' copies
(engine/patterns.py); tests/test_export_evaluations.py and
tests/test_patterns.py compile the C and run the Python against the
engine's values. ga.weights chooses the format and the numbers' text; this
module writes the code around them.
"""

from __future__ import annotations

import string
import textwrap
from collections.abc import Sequence

from engine.evaluation import Evaluation
from engine.patterns import PatternNetwork

__all__ = ["FEATURE_MEANINGS", "PHASE_NAMES", "SQUARES", "c_comment_text", "format_c_evaluation",
           "format_python_evaluation", "phase_comment", "value_sentence"]

SQUARES = 64


def c_comment_text(text: str) -> str:
    """Returns text (a source's path, a description) safe inside a C block comment: ``*/`` would end it, and ``/*``
    inside it is an error under ``gcc -Wall -Werror`` ("/*" within comment)."""
    return text.replace("/*", "/ *").replace("*/", "* /")
PHASE_NAMES = ("before the switch move", "after the switch move")

# Each feature's definition, one line, said beside its weight in the code formats.
FEATURE_MEANINGS = {
    "mobility": "my legal moves minus the opponent's",
    "frontier": "my discs next to an empty square minus the opponent's",
    "stability": "my stable discs (never flipped) minus the opponent's",
    "parity": "+1 when the number of empty squares is odd, -1 when even, 0 on a full board",
    "corner_x": "my discs on X-squares next to an occupied corner minus the opponent's",
    "corner_c": "my discs on C-squares next to an occupied corner minus the opponent's",
}


def phase_comment(count: int, phase_move: int | None = None) -> str:
    """Returns the layout sentence shared by the commented formats."""
    text = "index = square, a1 = 0, h1 = 7, a8 = 56, h8 = 63; one rank per line, rank 1 first"
    if count == 2 * SQUARES:
        switch = "the switch move" if phase_move is None else (
            f"move {phase_move} (phase_move: discs on the board minus 4)")
        text += f"; the first {SQUARES} weights apply before {switch}, the rest from it on"
    return text


def value_sentence(evaluation: Evaluation, side: str = "the side whose discs are `player`") -> str:
    """Returns what an evaluation's value is, for the comments of every format."""
    text = (f"the value for {side}: the square weights of its discs less the opponent's, plus each feature "
            "(a count, mine minus theirs) times its weight")
    if evaluation.n_tables == 2:
        text += (f"; the second table and its feature weights apply from move {evaluation.phase_move} on "
                 "(move: discs on the board minus 4, as othello-ga counts)")
    return text


def _diagonal_masks() -> list[int]:
    """Returns the 15 diagonals of the a1-h8 direction (file - rank constant), then the 15 of h1-a8."""
    masks = []
    for on_diagonal in (lambda file, rank, d: file - rank == d - 7, lambda file, rank, d: file + rank == d):
        for d in range(15):
            masks.append(sum(1 << (8 * rank + file) for rank in range(8) for file in range(8)
                             if on_diagonal(file, rank, d)))
    return masks


def _network_sentence(network: PatternNetwork) -> str:
    """Returns what a network adds to an evaluation's value and how it reads colours, for the code's comments."""
    copies = sum(len(ntuple.copies) for ntuple in network.tuples)
    text = (f"plus a pattern network of {len(network.tuples)} tuples ({copies} copies, {network.n_weights} weights): "
            "the sum over every copy of its tuple's weight at the index its squares make")
    if network.colours == "negate":
        text += ("; the network is black's value, so white's is its negation: pass player_is_white = 1 when "
                 "`player` holds white's discs")
    if len(network.phases) > 1:
        text += f"; its phases start at {', '.join(map(str, network.phases))} empty squares"
    return text


def _code_header(evaluation: Evaluation, source: str, value: str, move_parameter: str) -> list[str]:
    """Returns the comment lines that open an evaluation's C and Python: what it computes and how it is called."""
    features = ", ".join(evaluation.features) or "none"
    network = evaluation.patterns
    call = "player, opponent, move" + (", player_is_white" if network is not None and network.colours == "negate"
                                       else "")
    lines = [f"othello-ga evaluation: square weights and the features {features}"
             f"{' and a pattern network' if network is not None else ''}, computed by {value} below.",
             *([f"Source: {source}"] if source else []),
             f"{value}({call}) returns {value_sentence(evaluation)}"
             f"{'; ' + _network_sentence(network) if network is not None else ''}.",
             "Bitboards: bit 0 = a1, bit 7 = h1, bit 56 = a8, bit 63 = h8; `player` is the side evaluated."]
    if evaluation.n_tables == 1:
        lines.append(f"{move_parameter} is unused (one table for the whole game): kept so that every exported "
                     "evaluation is called alike.")
    lines.append(f"end = {evaluation.end}: the empty squares from which it was trained with the endgame solved exactly "
                 "(0: never); a record, not used here.")
    lines.append("The features are those of othello-ga's engine (engine/_features.pxd), exactly.")
    return [wrapped for line in lines for wrapped in textwrap.wrap(line, 100, subsequent_indent="  ")]


_C_COUNT = """
/* The number of bits set in x (portable; __builtin_popcountll is faster where the compiler has it). */
static int ${p}_count(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
"""

_C_MOBILITY = """
/* The squares beyond runs of `run` discs next to P along one line, both ways (d = 1, 7, 8 or 9). */
static uint64_t ${p}_beyond_runs(uint64_t P, uint64_t run, int d)
{
    uint64_t up = run & (P << d), down = run & (P >> d);
    int i;
    for (i = 0; i < 5; i++) {
        up |= run & (up << d);
        down |= run & (down >> d);
    }
    return (up << d) | (down >> d);
}

/* P's legal moves. Runs along ranks and diagonals stay off files a and h, so no shift wraps to another rank. */
static uint64_t ${p}_moves(uint64_t P, uint64_t O)
{
    uint64_t inner = O & 0x7E7E7E7E7E7E7E7EULL;
    return (${p}_beyond_runs(P, inner, 1) | ${p}_beyond_runs(P, O, 8) | ${p}_beyond_runs(P, inner, 7)
            | ${p}_beyond_runs(P, inner, 9)) & ~(P | O);
}

/* mobility: my legal moves minus the opponent's. */
static int ${p}_mobility(uint64_t P, uint64_t O)
{
    return ${p}_count(${p}_moves(P, O)) - ${p}_count(${p}_moves(O, P));
}
"""

_C_FRONTIER = """
/* The squares next to `squares` in any of the eight directions (the masks stop shifts wrapping across files a and h). */
static uint64_t ${p}_next_to(uint64_t squares)
{
    return (((squares << 1) | (squares << 9) | (squares >> 7)) & 0xFEFEFEFEFEFEFEFEULL)
         | (((squares >> 1) | (squares >> 9) | (squares << 7)) & 0x7F7F7F7F7F7F7F7FULL)
         | (squares << 8) | (squares >> 8);
}

/* frontier: my discs next to an empty square minus the opponent's (potential mobility). */
static int ${p}_frontier(uint64_t P, uint64_t O)
{
    uint64_t near_empty = ${p}_next_to(~(P | O));
    return ${p}_count(P & near_empty) - ${p}_count(O & near_empty);
}
"""

_C_STABILITY = """
/* Stable discs: discs no sequence of moves can flip, by three rules each exact by construction (edges, full
 * lines, stable neighbours). ${p}_edge[p][o]: the squares of an edge (bit k = its k-th square) whose discs no
 * sequence of moves on the edge flips (a move there may flip nothing along it: it can be legal through another
 * line). Filled by ${p}_init. */
static unsigned char ${p}_edge[256][256];
static int ${p}_ready;

/* The discs of o that p flips along an edge by playing `square`. */
static unsigned ${p}_edge_flips(int square, unsigned p, unsigned o)
{
    unsigned flips = 0, run = 0;
    int k;
    for (k = square + 1; k < 8 && ((o >> k) & 1); k++)
        run |= 1u << k;
    if (k < 8 && ((p >> k) & 1))
        flips |= run;
    run = 0;
    for (k = square - 1; k >= 0 && ((o >> k) & 1); k--)
        run |= 1u << k;
    if (k >= 0 && ((p >> k) & 1))
        flips |= run;
    return flips;
}

/* Fills ${p}_edge, fuller edges first: an edge's stable discs are those that every move on it (by either side)
 * leaves unflipped and stable in the edge one disc fuller. ${p}_value calls it on its first use; a program that
 * evaluates on several threads calls it once before they start. */
static void ${p}_init(void)
{
    int discs, square;
    unsigned p, o, flips, stable;
    for (discs = 8; discs >= 0; discs--)
        for (p = 0; p < 256; p++)
            for (o = 0; o < 256; o++) {
                if ((p & o) || ${p}_count(p | o) != discs)
                    continue;
                stable = p | o;
                for (square = 0; square < 8; square++) {
                    if (((p | o) >> square) & 1)
                        continue;
                    flips = ${p}_edge_flips(square, p, o);
                    stable &= ${p}_edge[p | flips | (1u << square)][o & ~flips] & ~flips;
                    flips = ${p}_edge_flips(square, o, p);
                    stable &= ${p}_edge[p & ~flips][o | flips | (1u << square)] & ~flips;
                }
                ${p}_edge[p][o] = (unsigned char)stable;
            }
    ${p}_ready = 1;
}

/* Byte b laid out on file a (bit k to square 8k). */
static uint64_t ${p}_byte_to_file(unsigned b)
{
    uint64_t file = 0;
    int k;
    for (k = 0; k < 8; k++)
        if ((b >> k) & 1)
            file |= (uint64_t)1 << (8 * k);
    return file;
}

/* File `file` of x as a byte (rank k at bit k): the multiplier moves each square into the top byte, where no two
 * partial products meet. */
static unsigned ${p}_file_byte(uint64_t x, int file)
{
    return (unsigned)((((x >> file) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
}

/* The squares of the four edges whose discs never flip. */
static uint64_t ${p}_stable_edges(uint64_t P, uint64_t O)
{
    return (uint64_t)${p}_edge[P & 255][O & 255]
         | ((uint64_t)${p}_edge[P >> 56][O >> 56] << 56)
         | ${p}_byte_to_file(${p}_edge[${p}_file_byte(P, 0)][${p}_file_byte(O, 0)])
         | (${p}_byte_to_file(${p}_edge[${p}_file_byte(P, 7)][${p}_file_byte(O, 7)]) << 7);
}

/* The 15 diagonals of the a1-h8 direction (file - rank constant), then the 15 of h1-a8 (file + rank constant). */
static const uint64_t ${p}_diagonals[30] = {
${diagonals}
};

/* P's stable discs: edge discs no edge move flips; inner discs whose four lines are full; inner discs with, on each
 * of their four lines, the line full or a stable disc of theirs beside them, until nothing changes. */
static uint64_t ${p}_stable(uint64_t P, uint64_t O)
{
    uint64_t filled = P | O, inner = P & 0x007E7E7E7E7E7E00ULL, full_h = 0, full_v, full_9 = 0, full_7 = 0;
    uint64_t stable, before;
    int k;
    for (k = 0; k < 8; k++)
        if (((filled >> (8 * k)) & 255) == 255)
            full_h |= (uint64_t)255 << (8 * k);
    full_v = filled & (filled >> 32);
    full_v &= full_v >> 16;
    full_v &= full_v >> 8;
    full_v = (full_v & 255) * 0x0101010101010101ULL;
    for (k = 0; k < 15; k++) {
        if ((filled & ${p}_diagonals[k]) == ${p}_diagonals[k])
            full_9 |= ${p}_diagonals[k];
        if ((filled & ${p}_diagonals[15 + k]) == ${p}_diagonals[15 + k])
            full_7 |= ${p}_diagonals[15 + k];
    }
    stable = (${p}_stable_edges(P, O) & P) | (inner & full_h & full_v & full_7 & full_9);
    do {
        before = stable;
        stable |= inner & ((stable >> 1) | (stable << 1) | full_h) & ((stable >> 8) | (stable << 8) | full_v)
                  & ((stable >> 7) | (stable << 7) | full_7) & ((stable >> 9) | (stable << 9) | full_9);
    } while (stable != before);
    return stable;
}

/* stability: my stable discs minus the opponent's. */
static int ${p}_stability(uint64_t P, uint64_t O)
{
    return ${p}_count(${p}_stable(P, O)) - ${p}_count(${p}_stable(O, P));
}
"""

_C_PARITY = """
/* parity: +1 when the number of empty squares is odd (without passes the side evaluated, when it is to move, plays
 * last), -1 when it is even, 0 on a full board. */
static int ${p}_parity(uint64_t P, uint64_t O)
{
    int empty = 64 - ${p}_count(P | O);
    return empty == 0 ? 0 : ((empty & 1) ? 1 : -1);
}
"""

_C_CORNERS = """
/* My discs minus the opponent's among `squares` next to an occupied corner. */
static int ${p}_corner_neighbours(uint64_t P, uint64_t O, uint64_t squares)
{
    uint64_t taken = P | O, near = 0;
    if (taken & 0x0000000000000001ULL)
        near |= 0x0000000000000302ULL; /* a1: b1, a2, b2 */
    if (taken & 0x0000000000000080ULL)
        near |= 0x000000000000C040ULL; /* h1: g1, h2, g2 */
    if (taken & 0x0100000000000000ULL)
        near |= 0x0203000000000000ULL; /* a8: a7, b7, b8 */
    if (taken & 0x8000000000000000ULL)
        near |= 0x40C0000000000000ULL; /* h8: g7, h7, g8 */
    near &= squares;
    return ${p}_count(P & near) - ${p}_count(O & near);
}
"""

_C_CORNER_X = """
/* corner_x: my discs on the X-squares (b2, g2, b7, g7) next to an occupied corner, minus the opponent's. */
static int ${p}_corner_x(uint64_t P, uint64_t O)
{
    return ${p}_corner_neighbours(P, O, 0x0042000000004200ULL);
}
"""

_C_CORNER_C = """
/* corner_c: my discs on the C-squares (b1, g1, a2, h2, a7, h7, b8, g8) next to an occupied corner, minus the
 * opponent's. */
static int ${p}_corner_c(uint64_t P, uint64_t O)
{
    return ${p}_corner_neighbours(P, O, 0x4281000000008142ULL);
}
"""


_C_NETWORK = """
/* The pattern network's value with `own`'s discs as digit 1 and `other`'s as 2, in the phase of `empties` empty
 * squares: per tuple, per copy, the weight at the index its squares make (base 3, the first square the most
 * significant digit; 0 an empty square). */
static ${type} ${p}_network(uint64_t own, uint64_t other, int empties)
{
    const int *square = ${p}_copy_squares;
    const ${type} *weights = ${p}_tuple_weights;
    ${type} value = 0;
    int phase = 0, t, c, k;
    while (phase + 1 < ${P}_PHASES && empties <= ${p}_phase_starts[phase + 1])
        phase++;
    for (t = 0; t < ${P}_TUPLES; t++) {
        int entries = 1;
        for (k = 0; k < ${p}_tuple_size[t]; k++)
            entries *= 3;
        for (c = 0; c < ${p}_tuple_copies[t]; c++) {
            int index = 0;
            for (k = 0; k < ${p}_tuple_size[t]; k++, square++)
                index = 3 * index + (int)((own >> *square) & 1) + 2 * (int)((other >> *square) & 1);
            value += weights[phase * entries + index];
        }
        weights += ${P}_PHASES * entries;
    }
    return value;
}
"""


def _c_rows(cells: Sequence[str], per_line: int = 16) -> list[str]:
    """Returns the cells of a C array, ``per_line`` to a line."""
    return ["    " + ", ".join(cells[i:i + per_line]) + "," for i in range(0, len(cells), per_line)]


def _c_network(network: PatternNetwork, cells: Sequence[str], name: str, c_type: str) -> list[str]:
    """Returns the C declarations of a network's layout and weights."""
    upper = name.upper()
    sizes = [str(ntuple.size) for ntuple in network.tuples]
    copies = [str(len(ntuple.copies)) for ntuple in network.tuples]
    squares = [str(square) for ntuple in network.tuples for copy in ntuple.copies for square in copy]
    own = "black's discs (white's value is the negation)" if network.colours == "negate" else "the side evaluated"
    return ["", f"/* The pattern network: {len(network.tuples)} tuples. A copy's squares, in order, are the base-3 "
                "digits of the index", f" * of its tuple's weight: 0 empty, 1 a disc of {own}, 2 one of the other "
                "side's. */",
            f"#define {upper}_TUPLES {len(network.tuples)}", f"#define {upper}_PHASES {len(network.phases)}",
            f"#define {upper}_NEGATE {int(network.colours == 'negate')}",
            "/* The number of empty squares at which each phase of the network starts. */",
            f"static const int {name}_phase_starts[{len(network.phases)}] = "
            f"{{ {', '.join(map(str, network.phases))} }};",
            "/* Per tuple: the squares of each copy, and its number of copies. */",
            f"static const int {name}_tuple_size[{len(sizes)}] = {{", *_c_rows(sizes), "};",
            f"static const int {name}_tuple_copies[{len(copies)}] = {{", *_c_rows(copies), "};",
            "/* Every copy's squares, tuple after tuple (a1 = 0 ... h8 = 63). */",
            f"static const int {name}_copy_squares[{len(squares)}] = {{", *_c_rows(squares), "};",
            "/* Per tuple, its table of 3**n weights for each phase, phase after phase. */",
            f"static const {c_type} {name}_tuple_weights[{len(cells)}] = {{", *_c_rows(cells, 8), "};"]


def format_c_evaluation(evaluation: Evaluation, squares: Sequence[str], weights: Sequence[str], name: str,
                         c_type: str, source: str, network_cells: Sequence[str] = ()) -> str:
    """Returns self-contained C99 that computes the evaluation: its weights, one function per feature, the value
    (and the network of ``network_cells``, its weights' text, when it has one)."""
    value = f"{name}_value"
    network = evaluation.patterns

    header = _code_header(evaluation, source, value, "move")
    lines = ["/* " + "\n * ".join(c_comment_text(line) for line in header), " * C99, standard headers only. */",
             "#include <stdint.h>", ""]
    upper = name.upper()
    if evaluation.n_tables == 2:
        lines.append(f"#define {upper}_PHASE_MOVE {evaluation.phase_move}")
    lines += [f"#define {upper}_END {evaluation.end}", "",
              f"/* {phase_comment(len(squares), evaluation.phase_move if evaluation.n_tables == 2 else None)}. */",
              f"static const {c_type} {name}_squares[{len(squares)}] = {{"]
    for row in range(len(squares) // 8):
        label = f"rank {row % 8 + 1}" + (f", {PHASE_NAMES[row // 8]}" if len(squares) > SQUARES else "")
        lines.append("    " + ", ".join(squares[row * 8:row * 8 + 8]) + f",  /* {label} */")
    lines.append("};")
    count = len(evaluation.features)
    if count:
        lines += ["", "/* The feature weights, one per table. */"]
    for index, feature in enumerate(evaluation.features):
        cells = ", ".join(weights[t * count + index] for t in range(evaluation.n_tables))
        lines.append(f"static const {c_type} {name}_{feature}_weight[{evaluation.n_tables}] = {{ {cells} }};  "
                     f"/* {FEATURE_MEANINGS[feature]} */")
    if network is not None:
        lines += _c_network(network, network_cells, name, c_type)
    pieces = [_C_COUNT] if count or network is not None else []
    used = set(evaluation.features)
    pieces += [piece for feature, piece in (("mobility", _C_MOBILITY), ("frontier", _C_FRONTIER),
                                            ("stability", _C_STABILITY), ("parity", _C_PARITY)) if feature in used]
    if used & {"corner_x", "corner_c"}:
        pieces.append(_C_CORNERS)
    pieces += [piece for feature, piece in (("corner_x", _C_CORNER_X), ("corner_c", _C_CORNER_C)) if feature in used]
    if network is not None:
        pieces.append(_C_NETWORK)
    diagonals = "\n".join(f"    0x{mask:016X}ULL," for mask in _diagonal_masks())
    lines += [string.Template(piece).substitute(p=name, P=upper, type=c_type, diagonals=diagonals).rstrip("\n")
              for piece in pieces]
    negate = network is not None and network.colours == "negate"
    body = [f"/* The evaluation: {value_sentence(evaluation)}"
            f"{'; ' + _network_sentence(network) if network is not None else ''}. */",
            f"static {c_type} {value}(uint64_t player, uint64_t opponent, int move"
            f"{', int player_is_white' if negate else ''})", "{"]
    if evaluation.n_tables == 2:
        body.append(f"    const int table = move >= {upper}_PHASE_MOVE;")
    else:
        body += ["    const int table = 0;", "    (void)move;"]
    body += [f"    const {c_type} *squares = {name}_squares + 64 * table;", f"    {c_type} value = 0;",
             "    int square;"]
    if "stability" in used:
        body += [f"    if (!{name}_ready)", f"        {name}_init();"]
    body += ["    for (square = 0; square < 64; square++) {", "        if ((player >> square) & 1)",
             "            value += squares[square];", "        if ((opponent >> square) & 1)",
             "            value -= squares[square];", "    }"]
    body += [f"    value += {name}_{feature}_weight[table] * {name}_{feature}(player, opponent);"
             for feature in evaluation.features]
    if network is not None:
        empties = f"64 - {name}_count(player | opponent)"
        body += [f"    value += player_is_white ? -{name}_network(opponent, player, {empties})",
                 f"                             : {name}_network(player, opponent, {empties});"] if negate else [
                 f"    value += {name}_network(player, opponent, {empties});"]
    body += ["    return value;", "}"]
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


_PYTHON_COUNT = '''

def _${p}_count(x):
    """Returns the number of bits set in x."""
    return bin(x).count("1")
'''

_PYTHON_MOBILITY = '''

def _${p}_moves(P, O):
    """Returns P's legal moves. Runs along ranks and diagonals stay off files a and h: no shift wraps."""
    inner = O & 0x7E7E7E7E7E7E7E7E
    moves = 0
    for run, d in ((inner, 1), (O, 8), (inner, 7), (inner, 9)):
        up = run & (P << d)
        down = run & (P >> d)
        for _ in range(5):
            up |= run & (up << d)
            down |= run & (down >> d)
        moves |= (up << d) | (down >> d)
    return moves & ~(P | O) & 0xFFFFFFFFFFFFFFFF


def _${p}_mobility(P, O):
    """mobility: my legal moves minus the opponent's."""
    return _${p}_count(_${p}_moves(P, O)) - _${p}_count(_${p}_moves(O, P))
'''

_PYTHON_FRONTIER = '''

def _${p}_frontier(P, O):
    """frontier: my discs next to an empty square minus the opponent's (potential mobility)."""
    empty = ~(P | O) & 0xFFFFFFFFFFFFFFFF
    near_empty = ((((empty << 1) | (empty << 9) | (empty >> 7)) & 0xFEFEFEFEFEFEFEFE)
                  | (((empty >> 1) | (empty >> 9) | (empty << 7)) & 0x7F7F7F7F7F7F7F7F)
                  | ((empty << 8) & 0xFFFFFFFFFFFFFFFF) | (empty >> 8))
    return _${p}_count(P & near_empty) - _${p}_count(O & near_empty)
'''

_PYTHON_STABILITY = '''

def _${p}_edge_flips(square, p, o):
    """Returns the discs of o that p flips along an edge by playing square."""
    flips = 0
    for step in (1, -1):
        run, k = 0, square + step
        while 0 <= k < 8 and o >> k & 1:
            run |= 1 << k
            k += step
        if 0 <= k < 8 and p >> k & 1:
            flips |= run
    return flips


def _${p}_edge_table():
    """Returns, at index p << 8 | o, the squares of an edge (bit k = its k-th square) whose discs no sequence of
    moves on the edge flips (a move there may flip nothing along it: it can be legal through another line).
    Fuller edges first: an edge's stable discs are those that every move on it leaves unflipped and stable."""
    edges = []
    for code in range(3 ** 8):
        p = o = 0
        for k in range(8):
            code, digit = divmod(code, 3)
            p |= (digit == 1) << k
            o |= (digit == 2) << k
        edges.append((p, o))
    edges.sort(key=lambda edge: -_${p}_count(edge[0] | edge[1]))
    table = [0] * 65536
    for p, o in edges:
        stable = p | o
        for square in range(8):
            if (p | o) >> square & 1:
                continue
            flips = _${p}_edge_flips(square, p, o)
            stable &= table[(p | flips | 1 << square) << 8 | (o & ~flips)] & ~flips
            flips = _${p}_edge_flips(square, o, p)
            stable &= table[(p & ~flips) << 8 | (o | flips | 1 << square)] & ~flips
        table[p << 8 | o] = stable
    return table


_${p}_EDGE = _${p}_edge_table()
# The 15 diagonals of the a1-h8 direction (file - rank constant), then the 15 of h1-a8 (file + rank constant).
_${p}_DIAGONALS = [
${diagonals}
]


def _${p}_byte_to_file(b):
    """Returns byte b laid out on file a (bit k to square 8k)."""
    return sum(1 << 8 * k for k in range(8) if b >> k & 1)


def _${p}_file_byte(x, file):
    """Returns file `file` of x as a byte (rank k at bit k)."""
    return sum(1 << k for k in range(8) if x >> (8 * k + file) & 1)


def _${p}_stable(P, O):
    """Returns P's stable discs: edge discs no edge move flips; inner discs whose four lines are full; inner
    discs with, on each of their four lines, the line full or a stable disc of theirs beside them, until
    nothing changes."""
    edge = _${p}_EDGE
    filled = P | O
    inner = P & 0x007E7E7E7E7E7E00
    full_h = sum(255 << 8 * k for k in range(8) if (filled >> 8 * k) & 255 == 255)
    full_v = sum(0x0101010101010101 << k for k in range(8)
                 if (filled >> k) & 0x0101010101010101 == 0x0101010101010101)
    full_9 = sum(mask for mask in _${p}_DIAGONALS[:15] if (filled & mask) == mask)
    full_7 = sum(mask for mask in _${p}_DIAGONALS[15:] if (filled & mask) == mask)
    stable = (edge[(P & 255) << 8 | (O & 255)] | edge[(P >> 56) << 8 | (O >> 56)] << 56
              | _${p}_byte_to_file(edge[_${p}_file_byte(P, 0) << 8 | _${p}_file_byte(O, 0)])
              | _${p}_byte_to_file(edge[_${p}_file_byte(P, 7) << 8 | _${p}_file_byte(O, 7)]) << 7) & P
    stable |= inner & full_h & full_v & full_7 & full_9
    while True:
        before = stable
        stable |= (inner & ((stable >> 1) | (stable << 1) | full_h) & ((stable >> 8) | (stable << 8) | full_v)
                   & ((stable >> 7) | (stable << 7) | full_7) & ((stable >> 9) | (stable << 9) | full_9))
        if stable == before:
            return stable


def _${p}_stability(P, O):
    """stability: my stable discs minus the opponent's."""
    return _${p}_count(_${p}_stable(P, O)) - _${p}_count(_${p}_stable(O, P))
'''

_PYTHON_PARITY = '''

def _${p}_parity(P, O):
    """parity: +1 when the number of empty squares is odd, -1 when it is even, 0 on a full board."""
    empty = 64 - _${p}_count(P | O)
    return 0 if empty == 0 else (1 if empty & 1 else -1)
'''

_PYTHON_CORNERS = '''

# The X- or C-squares next to each corner, by corner: a1, h1, a8, h8.
_${p}_NEAR_CORNER = ((0x1, 0x0000000000000302), (0x80, 0x000000000000C040),
                     (0x0100000000000000, 0x0203000000000000), (0x8000000000000000, 0x40C0000000000000))


def _${p}_corner_neighbours(P, O, squares):
    """Returns my discs minus the opponent's among `squares` next to an occupied corner."""
    near = 0
    for corner, next_to_it in _${p}_NEAR_CORNER:
        if (P | O) & corner:
            near |= next_to_it
    near &= squares
    return _${p}_count(P & near) - _${p}_count(O & near)
'''

_PYTHON_CORNER_X = '''

def _${p}_corner_x(P, O):
    """corner_x: my discs on the X-squares (b2, g2, b7, g7) next to an occupied corner, minus the opponent's."""
    return _${p}_corner_neighbours(P, O, 0x0042000000004200)
'''

_PYTHON_CORNER_C = '''

def _${p}_corner_c(P, O):
    """corner_c: my discs on the C-squares (b1, g1, a2, h2, a7, h7, b8, g8) next to an occupied corner, minus
    the opponent's."""
    return _${p}_corner_neighbours(P, O, 0x4281000000008142)
'''


_PYTHON_NETWORK = '''

def _${p}_network(own, other, empties):
    """Returns the pattern network's value with own's discs as digit 1 and other's as 2, in the phase of
    `empties` empty squares: per tuple, per copy, the weight at the index its squares make (base 3, the
    first square the most significant digit; 0 an empty square)."""
    starts = ${p}_patterns["phases"]
    phase = 0
    while phase + 1 < len(starts) and empties <= starts[phase + 1]:
        phase += 1
    value = 0
    for ntuple in ${p}_patterns["tuples"]:
        table = ntuple["weights"][phase]
        for copy in ntuple["copies"]:
            index = 0
            for square in copy:
                index = 3 * index + (own >> square & 1) + 2 * (other >> square & 1)
            value += table[index]
    return value
'''


def _python_network(network: PatternNetwork, cells: Sequence[str], name: str) -> list[str]:
    """Returns the Python literal of a network: the fields of an evaluation file's ``patterns``."""
    own = "black's discs (white's value is the negation)" if network.colours == "negate" else "the side evaluated"
    lines = ["# The pattern network: a copy's squares, in order, are the base-3 digits of the index of its tuple's "
             "weight:", f"# 0 empty, 1 a disc of {own}, 2 one of the other side's. 'phases': the empty squares at "
             "which each phase starts.",
             f"{name}_patterns = {{", f"    'colours': {network.colours!r},",
             f"    'phases': {list(network.phases)!r},", "    'tuples': ["]
    at = 0
    for ntuple in network.tuples:
        size = 3 ** ntuple.size
        tables = [cells[at + phase * size:at + (phase + 1) * size] for phase in range(len(network.phases))]
        at += size * len(network.phases)
        lines.append(f"        {{'copies': {[list(copy) for copy in ntuple.copies]!r},")
        lines.append("         'weights': [" + ", ".join("[" + ", ".join(table) + "]" for table in tables) + "]},")
    lines += ["    ],", "}"]
    return lines


def format_python_evaluation(evaluation: Evaluation, squares: Sequence[str], weights: Sequence[str], name: str,
                              source: str, network_cells: Sequence[str] = ()) -> str:
    """Returns plain Python (ints as bitboards, no imports) that computes the evaluation (and the network of
    ``network_cells``, its weights' text, when it has one)."""
    value = f"{name}_value"
    network = evaluation.patterns
    lines = [f"# {line}" for line in _code_header(evaluation, source, value, "move")]
    lines += ["# One table per phase, each of 64 weights: index = square, a1 = 0, h1 = 7, a8 = 56, h8 = 63.",
              f"{name}_squares = ["]
    for table in range(evaluation.n_tables):
        lines.append(f"    [  # {PHASE_NAMES[table]}" if evaluation.n_tables == 2 else "    [")
        for rank in range(8):
            start = table * SQUARES + rank * 8
            lines.append("        " + ", ".join(squares[start:start + 8]) + f",  # rank {rank + 1}")
        lines.append("    ],")
    lines += ["]", "# The feature weights, one per table.", f"{name}_features = {{"]
    count = len(evaluation.features)
    for index, feature in enumerate(evaluation.features):
        cells = ", ".join(weights[t * count + index] for t in range(evaluation.n_tables))
        lines.append(f"    {feature!r}: [{cells}],  # {FEATURE_MEANINGS[feature]}")
    lines.append("}")
    if evaluation.n_tables == 2:
        lines.append(f"{name}_phase_move = {evaluation.phase_move}")
    lines.append(f"{name}_end = {evaluation.end}")
    if network is not None:
        lines += _python_network(network, network_cells, name)
    used = set(evaluation.features)
    pieces = [_PYTHON_COUNT] if count or network is not None else []
    pieces += [piece for feature, piece in (("mobility", _PYTHON_MOBILITY), ("frontier", _PYTHON_FRONTIER),
                                            ("stability", _PYTHON_STABILITY), ("parity", _PYTHON_PARITY))
               if feature in used]
    if used & {"corner_x", "corner_c"}:
        pieces.append(_PYTHON_CORNERS)
    pieces += [piece for feature, piece in (("corner_x", _PYTHON_CORNER_X), ("corner_c", _PYTHON_CORNER_C))
               if feature in used]
    if network is not None:
        pieces.append(_PYTHON_NETWORK)
    diagonals = "\n".join(f"    0x{mask:016X}," for mask in _diagonal_masks())
    text = "\n".join(lines) + "\n" + "".join(string.Template(piece).substitute(p=name, diagonals=diagonals)
                                             for piece in pieces)
    table = f"1 if move >= {name}_phase_move else 0" if evaluation.n_tables == 2 else "0"
    negate = network is not None and network.colours == "negate"
    body = ["", "", f"def {value}(player, opponent, move{', player_is_white' if negate else ''}):",
            '    """Returns the value of the position for the side whose discs are `player` (see the top)."""',
            f"    table = {table}",
            f"    squares = {name}_squares[table]",
            "    value = (sum(w for square, w in enumerate(squares) if player >> square & 1)",
            "             - sum(w for square, w in enumerate(squares) if opponent >> square & 1))"]
    body += [f"    value += {name}_features[{feature!r}][table] * _{name}_{feature}(player, opponent)"
             for feature in evaluation.features]
    if network is not None:
        empties = f"64 - _{name}_count(player | opponent)"
        body += ["    if player_is_white:", f"        value -= _{name}_network(opponent, player, {empties})",
                 "    else:", f"        value += _{name}_network(player, opponent, {empties})"] if negate else [
                 f"    value += _{name}_network(player, opponent, {empties})"]
    body.append("    return value")
    return text + "\n".join(body) + "\n"

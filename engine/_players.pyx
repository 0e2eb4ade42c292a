# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The players of the 2021 blog series at C level, and whole games in C.

Scores are always from the point of view of the player choosing ("me"). Ties
between equally scored moves are broken uniformly at random (reservoir
sampling) with the game's generator, so a game is a pure function of its seed.
"""
import math

import numpy as np

from engine.kinds import ALIASES, KINDS as _KIND_TABLE, canonical
from engine.tables import TABLES as _TABLES

from libc.math cimport INFINITY, fabs, nextafter
from libc.stdint cimport int64_t, uint64_t, int32_t, uint8_t, uint32_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from engine._endgame cimport EndEntry, Solver, engine_stop, new_table, solve_best_moves, work_begins, work_ends
from engine._features cimport (
    CORNER_C, CORNER_X, FRONTIER, MOBILITY, N_FEATURES, PARITY, STABILITY, feature_sum, feature_value,
)
from engine._bitboard cimport (
    START_BLACK, START_WHITE, all_flips, bit_count, first_bit, get_flips, get_moves, init_lines,
    mixed_pair_on_rank, rank_sums_difference, rank_sums_total,
)
from engine._patterns cimport (
    MAX_GROUPS, PatternLayout, PatternNet, PATTERN_PASS, Children, PatternFrame, PatternTables, child_sum, children_of, frame_after, frame_from_board,
    frame_sum,
)

DEF PASS = 64
DEF MAX_PLIES = 128
# More legal moves than any Othello position has (the most known is 33).
DEF MAX_MOVES = 40
# The deepest search a player may ask for (engine/kinds.py).
DEF MAX_DEPTH = 12
# A finished game inside a look-ahead outweighs any table score.
DEF WIN_SCALE = 1e6
# Relative difference below which two move scores are a tie: relative to the larger of the best score and the
# table's scale (its largest weight), so that any positive scaling of a table ties, and plays, the same moves.
DEF TIE_TOLERANCE = 1e-9
# A player solving from more empty squares than this gets an endgame table of 2**(end + 2) slots, at
# most 2**ENDGAME_TABLE_BITS: a game zeroes it once, which cost more than the search at 8 empty squares
# when every player's table had 2**16 slots (callgrind).
DEF ENDGAME_TABLE_FROM = 7
DEF ENDGAME_TABLE_BITS = 20
# The work a game counts for itself before it asks whether to stop (engine_stop): moves and positions searched.
# A game of table players asks once at most; one that searches asks every few milliseconds.
DEF GAME_CHECK_WORK = 4096
# The work a loop of games counts for a game it has played (about its moves), asking after each.
DEF GAME_WORK = 64

# The kinds come from engine/kinds.py, the one table of them (its codes are PlayerKind's values).
#: The PlayerKind enum's values by kind name, for the test that keeps engine/kinds.py and the enum equal.
ENUM_CODES = {"random": KIND_RANDOM, "nhand": KIND_WPC, "nhand_custom": KIND_WPC, "nleast": KIND_NLEAST,
              "nmost": KIND_NMOST, "alphabeta": KIND_ALPHABETA, "alphabeta_plain": KIND_ALPHABETA_PLAIN}
KINDS = {name: kind.code for name, kind in _KIND_TABLE.items() if kind.code is not None}
KINDS.update({alias: KINDS[name] for alias, name in ALIASES.items()})
WEIGHTED_KINDS = tuple(name for name in KINDS if _KIND_TABLE[canonical(name)].table)
#: The Feature enum's values by feature name (engine/evaluation.py names them for users; a test keeps both equal).
FEATURE_CODES = {"mobility": MOBILITY, "frontier": FRONTIER, "stability": STABILITY, "parity": PARITY,
                 "corner_x": CORNER_X, "corner_c": CORNER_C}

init_lines()
# The square values a pattern network's search orders its moves by (add_patterns): the standard heuristic table.
ORDER_TABLE = np.array(_TABLES["heuristic"], dtype=np.float64)


# --- random numbers -------------------------------------------------------

cdef inline uint64_t rng_next(Rng* rng) noexcept nogil:
    # splitmix64 (Steele, Lea & Flood 2014): any seed, 0 included, is fine.
    rng.state += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = rng.state
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int rng_below(Rng* rng, int n) noexcept nogil:
    # Multiply-shift on 32 bits: bias below n / 2**32, irrelevant for n <= 64.
    return <int>(((rng_next(rng) >> 32) * <uint64_t>n) >> 32)


cdef inline double rng_uniform(Rng* rng) noexcept nogil:
    return <double>(rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef inline int nth_bit(uint64_t mask, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        mask &= mask - 1
    return first_bit(mask)


# --- evaluation -----------------------------------------------------------

cdef inline double table_sum(const PlayerC* pc, int table, uint64_t discs) noexcept nogil:
    if pc.unit_weights:  # the same exact integer as the byte sums below
        return bit_count(discs)
    return rank_sums_total(&pc.rank_sums[table][0][0], discs)


cdef inline double evaluate(const PlayerC* pc, uint64_t me, uint64_t them) noexcept nogil:
    """Returns the weighted score of my discs minus the opponent's, and the features' terms."""
    # A table alone is summed in place; the features go through a function of their own, so that this stays
    # small enough for the compiler to inline into the search's leaves (a table-only search took 6% longer
    # when the features' branch was part of it).
    if pc.n_features:
        return featured_value(pc, me, them)
    return squares_value(pc, me, them)


cdef inline double squares_value(const PlayerC* pc, uint64_t me, uint64_t them) noexcept nogil:
    """Returns the weighted score of my discs minus the opponent's."""
    if pc.unit_weights:  # the same exact integers as the byte sums
        return <double>bit_count(me) - <double>bit_count(them)
    return rank_sums_difference(&pc.rank_sums[table_of(pc, me | them)][0][0], me, them)


cdef double featured_value(const PlayerC* pc, uint64_t me, uint64_t them) noexcept nogil:
    """Returns :func:`squares_value` plus the features' terms of the same table."""
    cdef int table = table_of(pc, me | them)
    cdef double value = rank_sums_difference(&pc.rank_sums[table][0][0], me, them)
    return value + feature_sum(pc.feature_weights[table], pc.feature_mask, me, them)


cdef inline int table_of(const PlayerC* pc, uint64_t discs) noexcept nogil:
    """Returns the table that scores a position with these discs on the board."""
    return 1 if pc.n_tables == 2 and bit_count(discs) - 4 >= pc.phase_move else 0


# --- pattern networks along the search ------------------------------------
#
# A player with a pattern network carries a frame (engine/_patterns.pxd) down its search: the index of
# every group of squares for the node's position, and the colour to move, which a network may read. The
# players' functions below are written once for both kinds of player, over the fused type Frame: with
# NoPatterns (every player without a network) the frame is never read and each function compiles to what
# it was before networks, so a table's search keeps its code and its speed; with PatternFrame the frame
# follows the moves. A child's value comes from its parent's frame (child_sum): only the groups of the
# squares a move changes are read.

cdef struct NoPatterns:
    int colour          # unused: a player without a network never reads colours

ctypedef fused Frame:
    NoPatterns
    PatternFrame


cdef inline double own_terms(const PlayerC* pc, uint64_t me, uint64_t them) noexcept nogil:
    """Returns a network player's squares' and features' terms (0 when it weighs only its network)."""
    return 0.0 if pc.squares_off else evaluate(pc, me, them)


# A network's value is for the side that has just moved into a position (its tables read that side's discs
# as "mine"): what a 1-ply player compares among its moves, and what TD learning learns (engine/_learning.pyx).
# The value of a position for its side to move, which a search's leaves need, is then minus the network's
# value for the other side. A table and the features are the same both ways round (mine minus theirs).

cdef inline double frame_value(const PlayerC* pc, Frame* frame, uint64_t P, uint64_t O) noexcept nogil:
    """Returns :func:`evaluate` of (P, O) for its side to move, the network's term included (``frame``: P's)."""
    if Frame is NoPatterns:
        return evaluate(pc, P, O)
    else:
        return own_terms(pc, P, O) - pc.patterns.scale * frame_sum(pc.patterns, frame, frame.colour ^ 1,
                                                                  64 - bit_count(P | O))


cdef inline void children_for(const PlayerC* pc, Frame* frame, uint64_t discs, Children* children) noexcept nogil:
    """Fills ``children`` for the network's values of the frame's children (with ``discs`` on the frame's
    board), for the side that moves into them: once per parent, what :func:`child_value` reads for each."""
    if Frame is PatternFrame:
        children_of(pc.patterns, frame, frame.colour, 63 - bit_count(discs), children)


cdef inline double child_value(const PlayerC* pc, Frame* frame, const Children* children, uint64_t me,
                               uint64_t them, int square, uint64_t flips, bint moved) noexcept nogil:
    """Returns :func:`evaluate` of the child that the frame's side to move reaches by ``square`` (flipping
    ``flips``) for the side whose discs are ``me`` there: the side that moved into it (``moved``), or the
    side to move in it."""
    if Frame is NoPatterns:
        return evaluate(pc, me, them)
    else:
        if moved:
            return own_terms(pc, me, them) + pc.patterns.scale * child_sum(pc.patterns, children, square, flips)
        return own_terms(pc, me, them) - pc.patterns.scale * child_sum(pc.patterns, children, square, flips)


cdef inline Frame* child_frame(const PlayerC* pc, Frame* frame, Frame* space, int square,
                               uint64_t flips) noexcept nogil:
    """Returns the frame of the child the frame's side to move reaches by ``square`` (PASS: a pass), built
    in ``space``."""
    if Frame is NoPatterns:
        return frame
    else:
        frame_after(pc.patterns, frame, space, square, flips)
        return space


cdef inline double move_gain(const PlayerC* pc, int table, int square, uint64_t flips) noexcept nogil:
    # A move changes the mover's score by the new disc plus twice each flipped
    # disc (it leaves the opponent's sum and joins the mover's).
    cdef const double* weights = pc.weights[table]
    cdef double gain
    if pc.unit_weights:  # exact: the loop below adds the same integers
        return 1.0 + 2.0 * bit_count(flips)
    gain = weights[square]
    while flips:
        gain += 2.0 * weights[first_bit(flips)]
        flips &= flips - 1
    return gain


cdef inline double all_moves_gain(const PlayerC* pc, int table, uint64_t P, uint64_t O, uint64_t moves) noexcept nogil:
    """Returns the sum of :func:`move_gain` over all of P's legal ``moves``, without playing them."""
    cdef uint64_t flipped[8]
    cdef double gain = table_sum(pc, table, moves)
    cdef int direction
    all_flips(P, O, flipped)
    for direction in range(8):
        gain += 2.0 * table_sum(pc, table, flipped[direction])
    return gain


cdef double mean_value(const PlayerC* pc, Frame* frame, uint64_t P, uint64_t O, int plies, bint me_to_move,
                       double score) noexcept nogil:
    """Returns the mean weighted score ``plies`` plies ahead, both sides' moves averaged.

    ``score`` is the weighted score of (P, O) for me; ``frame`` is (P, O)'s.
    The look-ahead stops where the side to move must pass, as in the blog.
    """
    cdef uint64_t moves, bit, flips
    cdef double total = 0.0, child
    cdef int count = 0, square, table = 0
    cdef bint same_table = True
    cdef Children children
    cdef Frame space
    if plies == 0:
        return score
    moves = get_moves(P, O)
    if moves == 0:
        return score
    if pc.n_tables == 2:
        # The children have one more disc: they may fall in the next phase.
        table = 1 if bit_count(P | O) + 1 - 4 >= pc.phase_move else 0
        same_table = table == table_of(pc, P | O)
    # A child's score is the parent's plus its move's gain only for the squares alone: features are not sums,
    # nor a network's groups.
    same_table = same_table and pc.n_features == 0
    if Frame is PatternFrame:
        same_table = False
    if plies == 1 and same_table:
        total = all_moves_gain(pc, table, P, O, moves) / bit_count(moves)
        return score + total if me_to_move else score - total
    children_for(pc, frame, P | O, &children)
    while moves:
        bit = moves & (<uint64_t>0 - moves)
        square = first_bit(bit)
        flips = get_flips(square, P, O)
        if same_table:
            child = move_gain(pc, table, square, flips)
            child = score + child if me_to_move else score - child
        elif me_to_move:
            child = child_value(pc, frame, &children, P ^ flips ^ bit, O ^ flips, square, flips, True)
        else:
            child = child_value(pc, frame, &children, O ^ flips, P ^ flips ^ bit, square, flips, False)
        if plies > 1:  # the last ply needs no call: its value is the child's score
            child = mean_value(pc, child_frame(pc, frame, &space, square, flips), O ^ flips, P ^ flips ^ bit,
                               plies - 1, not me_to_move, child)
        total += child
        count += 1
        moves ^= bit
    return total / count


cdef double mean_mobility(uint64_t P, uint64_t O, bint mover_is_target, int turns) noexcept nogil:
    """Returns the target's mean number of moves at its ``turns``-th turn from here."""
    cdef uint64_t moves = get_moves(P, O), bit, flips
    cdef double total = 0.0
    cdef int count = 0
    if mover_is_target and turns == 1:
        return bit_count(moves)
    if moves == 0:
        return 0.0 if mover_is_target else bit_count(get_moves(O, P))
    while moves:
        bit = moves & (<uint64_t>0 - moves)
        flips = get_flips(first_bit(bit), P, O)
        total += mean_mobility(O ^ flips, P ^ flips ^ bit, not mover_is_target,
                               turns - 1 if mover_is_target else turns)
        count += 1
        moves ^= bit
    return total / count


cdef double negamax(const PlayerC* pc, Frame* frame, uint64_t P, uint64_t O, int depth, double alpha, double beta,
                    uint64_t* nodes) noexcept nogil:
    """Returns the alpha-beta value of (P, O) for the side to move: plain fail-hard negamax.

    The oracle of :func:`search` (the hidden kind ``alphabeta_plain`` plays it):
    no ordering, every leaf summed from scratch, children in square order.
    Only ``frame``'s colour is read: a network's indices are found anew at
    each leaf, never updated along the way.
    """
    cdef uint64_t moves, bit, flips
    cdef double value
    cdef Frame child
    nodes[0] += 1
    moves = get_moves(P, O)
    if moves == 0 and get_moves(O, P) == 0:
        return (bit_count(P) - bit_count(O)) * WIN_SCALE
    if depth == 0:
        if Frame is PatternFrame:
            frame_from_board(pc.patterns, &child, P, O, frame.colour, NULL)
            return frame_value(pc, &child, P, O)
        else:
            return evaluate(pc, P, O)
    child.colour = frame.colour ^ 1
    if moves == 0:
        return -negamax(pc, &child, O, P, depth, -beta, -alpha, nodes)  # a pass uses no depth
    while moves:
        bit = moves & (<uint64_t>0 - moves)
        flips = get_flips(first_bit(bit), P, O)
        value = -negamax(pc, &child, O ^ flips, P ^ flips ^ bit, depth - 1, -beta, -alpha, nodes)
        if value >= beta:
            return beta
        if value > alpha:
            alpha = value
        moves ^= bit
    return alpha



cdef inline double leaf_value(const PlayerC* pc, Frame* frame, const Children* children, uint64_t P, uint64_t O,
                              int square, uint64_t flips) noexcept nogil:
    """Returns the value of (P, O) for the side to move at depth 0: the game's result if it is over, else the
    evaluation. (P, O) is the child the frame's side to move reaches by ``square`` (flipping ``flips``);
    ``children`` is :func:`children_for` the frame."""
    # Most leaves show a move for someone in a few shifts; only the rest pay for full move generation.
    if not mixed_pair_on_rank(P, O) and get_moves(P, O) == 0 and get_moves(O, P) == 0:
        return (bit_count(P) - bit_count(O)) * WIN_SCALE
    return child_value(pc, frame, children, P, O, square, flips, False)


cdef inline double above(double value) noexcept nogil:
    """Returns the smallest double above ``value``: the other edge of a null window.

    ``nextafter(value, INFINITY)`` without a call into libm, which every null
    window of the search paid: the next double is the next bit pattern
    (the one before, below zero).
    """
    cdef uint64_t bits
    if value == 0.0:
        return 5e-324  # the smallest subnormal, above both zeros
    if value != value or value == INFINITY:
        return value
    memcpy(&bits, &value, sizeof(double))
    if value > 0.0:
        bits += 1
    else:
        bits -= 1
    memcpy(&value, &bits, sizeof(double))
    return value


def _above(double value):
    """Returns :func:`above` (for tests)."""
    return above(value)


cdef inline int children_table(const PlayerC* pc, uint64_t discs) noexcept nogil:
    """Returns the table that scores the children of a position with these discs (one disc more)."""
    return 1 if pc.n_tables == 2 and bit_count(discs) + 1 - 4 >= pc.phase_move else 0


cdef inline uint64_t places_of(const PlayerC* pc, int table, uint64_t moves) noexcept nogil:
    """Returns ``moves`` as a mask of their places in the weight order of ``table``.

    Taken lowest bit first, it walks the moves in the order's sequence without
    stepping over the squares that are no move.
    """
    cdef uint64_t places = 0
    cdef int rank
    # Eight lookups without a branch: a loop over the moves mispredicted its end at nearly every node.
    for rank in range(8):
        places |= pc.place_bits[table][rank][(moves >> (8 * rank)) & 255]
    return places


cdef int best_gain_move(const PlayerC* pc, int table, uint64_t P, uint64_t O, uint64_t moves) noexcept nogil:
    """Returns the move of ``moves`` that gains P the most on ``table`` (the first such in square order).

    The gain is the child's one-ply score less the parent's, so this is the
    move a one-ply look judges best, found without summing a board.
    """
    cdef int square, choice = -1
    cdef double gain, top = -INFINITY
    while moves:
        square = first_bit(moves)
        moves &= moves - 1
        gain = move_gain(pc, table, square, get_flips(square, P, O))
        if gain > top:
            top = gain
            choice = square
    return choice


cdef int best_child_move(const PlayerC* pc, Frame* frame, uint64_t P, uint64_t O, uint64_t moves) noexcept nogil:
    """Returns the move of ``moves`` whose child the whole evaluation likes best for P (the first such in square order).

    :func:`best_gain_move` for a player with features or a network: a move's
    gain on the squares says little of its mobility or frontier, so each child
    is evaluated.
    """
    cdef int square, choice = -1
    cdef uint64_t flips, bit
    cdef double value, top = -INFINITY
    cdef Children children
    children_for(pc, frame, P | O, &children)
    while moves:
        square = first_bit(moves)
        bit = moves & (<uint64_t>0 - moves)
        moves ^= bit
        flips = get_flips(square, P, O)
        value = -child_value(pc, frame, &children, O ^ flips, P ^ flips ^ bit, square, flips, False)
        if value > top:
            top = value
            choice = square
    return choice


cdef struct Search:
    const PlayerC* pc
    Entry* table        # a transposition table, NULL for none
    uint64_t mask       # slots - 1 (a power of two)
    uint64_t* nodes     # positions visited
    int* killers        # by remaining depth: the last move that cut off a search there (-1: none)


cdef inline Entry* slot(const Search* s, uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t h = (P * 0x9E3779B97F4A7C15ULL) ^ (O * 0xC2B2AE3D27D4EB4FULL)
    return &s.table[(h ^ (h >> 29)) & s.mask]


cdef double search(const Search* s, Frame* frame, uint64_t P, uint64_t O, int depth, double alpha,
                   double beta) noexcept nogil:
    """Returns the alpha-beta value of (P, O) for the side to move (fail-soft).

    The value is exact when it lies strictly between ``alpha`` and ``beta``;
    otherwise it is a bound on the same side as the exact value. Every value
    is a leaf's, computed as :func:`negamax` computes it (terminal result, or
    the table summed from scratch), so a value found exact here is the very
    double the plain search finds. What differs only changes how soon the
    bounds tighten: the children are sorted (the best move the transposition
    table remembers, or else at some nodes the move of the largest one-ply
    gain, the killer, then by the weight of their square), every child but
    the first is tested with a null window (principal variation search; not
    the children of a node at depth 2, last-ply nodes a null window would
    not spare), the last ply values its leaves without a call, and the table
    returns the bounds it holds for a position at the same remaining depth
    (values depend on the depth, so never another's). ``frame`` is (P, O)'s.

    A network that reads colours ("negate") values a position by its colour
    to move, while the table's key is the side-relative (P, O): the same key
    with the other colour to move would need every disc's colour swapped
    within one game, which no game reaches.
    """
    cdef const PlayerC* pc = s.pc
    cdef uint64_t moves, bit, flips
    cdef double value, best = -INFINITY, alpha0 = alpha
    cdef int i, square, table, killer, hint = -1, best_square = -1
    cdef bint first = True
    cdef uint64_t tP, tO, places = 0
    cdef Entry* entry = NULL
    cdef uint64_t tried = 0
    cdef Children children
    cdef Frame space
    cdef Frame* child
    s.nodes[0] += 1
    if depth == 1:
        # The leaves' network sum before the moves: each leaf adds its move's gain to it.
        children_for(pc, frame, P | O, &children)
        # The last ply's killer first, before the moves are generated: on an empty square a move is legal
        # when it flips, and a leaf at beta or above settles the node without them.
        square = s.killers[1]
        if square >= 0 and not ((P | O) >> square & 1):
            flips = get_flips(square, P, O)
            if flips:
                tried = (<uint64_t>1) << square
                s.nodes[0] += 1
                best = -leaf_value(pc, frame, &children, O ^ flips, P ^ flips ^ tried, square, flips)
                if best >= beta:
                    return best
    moves = get_moves(P, O)
    if moves == 0:
        if get_moves(O, P) == 0:
            return (bit_count(P) - bit_count(O)) * WIN_SCALE
        if depth == 0:
            return frame_value(pc, frame, P, O)
        # A pass uses no depth.
        return -search(s, child_frame(pc, frame, &space, PATTERN_PASS, 0), O, P, depth, -beta, -alpha)
    if depth == 0:
        return frame_value(pc, frame, P, O)
    if depth == 1:
        # The last ply: each child is a leaf, valued without a call; the first one at beta or above settles
        # it, so the move that last did so here was tried first (above).
        moves ^= tried
        table = children_table(pc, P | O)
        places = places_of(pc, table, moves)
        while places:
            square = pc.order[table][first_bit(places)]
            places &= places - 1
            bit = (<uint64_t>1) << square
            flips = get_flips(square, P, O)
            s.nodes[0] += 1
            value = -leaf_value(pc, frame, &children, O ^ flips, P ^ flips ^ bit, square, flips)
            # best stays below beta until the end, so a value at beta is a new best: the rarely taken
            # test first, then the maximum without a branch (which of two leaves is larger is a coin toss).
            if value >= beta:
                s.killers[1] = square
                return value
            best = value if value > best else best
        return best
    if s.table != NULL:
        entry = slot(s, P, O)
        if entry.P == P and entry.O == O:
            if entry.depth == depth:
                if entry.lower >= beta:
                    return entry.lower
                if entry.upper <= alpha:
                    return entry.upper
                if entry.lower == entry.upper:
                    return entry.lower
            hint = entry.best
    # The moves in order: the best one the table remembers, the last one to cut off a search at this
    # depth, then by the weight of their square (the player's own notion of a good square); the order
    # changes no value, only how soon the bounds tighten.
    table = children_table(pc, P | O)
    killer = s.killers[depth]
    if hint < 0 and (depth >= 4 or beta > above(alpha)):
        # No move from the table where a good first move pays most: a node with a subtree deep enough to
        # repay a pass over its moves, or one whose value must be exact (an open window). There the move
        # a one-ply look likes best goes first (fewer positions than the killer or the weight order first).
        if Frame is PatternFrame:
            hint = best_child_move(pc, frame, P, O, moves)
        else:
            hint = best_child_move(pc, frame, P, O, moves) if pc.n_features else best_gain_move(pc, table, P, O, moves)
    i = -2
    while moves:
        if i == -2:
            i = -1
            square = hint
        elif i == -1:
            i = 0
            square = killer
        else:
            if i == 0:
                i = 1
                places = places_of(pc, table, moves)
            square = pc.order[table][first_bit(places)]
            places &= places - 1
        if square < 0 or not (moves >> square & 1):
            continue
        bit = (<uint64_t>1) << square
        moves ^= bit
        flips = get_flips(square, P, O)
        tP = O ^ flips
        tO = P ^ flips ^ bit
        child = child_frame(pc, frame, &space, square, flips)
        if first or depth == 2:
            # The first move, whole. So is every move of a node whose children are last-ply nodes: a last-ply
            # node cuts at its beta alone, the same under a null window, and one that does not cut has valued
            # every leaf, so its value is exact (but after a pass) and a second search would repeat them.
            first = False
            value = -search(s, child, tP, tO, depth - 1, -beta, -alpha)
        else:
            # Does this move beat alpha? A null window answers; only a yes is searched again, from the bound
            # the answer proved (the value is at least that: a search failing low there returns it exactly).
            value = -search(s, child, tP, tO, depth - 1, -above(alpha), -alpha)
            if alpha < value < beta:
                value = -search(s, child, tP, tO, depth - 1, -beta, -value)
        # best never passes alpha, nor alpha beta: a value at beta cuts off; any other updates the two
        # without a branch (whether a child beats the others is hard for the CPU to foresee).
        if value >= beta:
            best = value
            best_square = square
            s.killers[depth] = square
            break
        best_square = square if value > best else best_square
        best = value if value > best else best
        alpha = value if value > alpha else alpha
    if entry != NULL:
        if entry.P != P or entry.O != O or entry.depth != depth:
            entry.P, entry.O, entry.depth = P, O, depth
            entry.lower, entry.upper = -INFINITY, INFINITY
        if best >= beta:
            entry.lower = max(entry.lower, best)
        elif best <= alpha0:
            entry.upper = min(entry.upper, best)
        else:
            entry.lower = best
            entry.upper = best
        entry.best = best_square
    return best


cdef double move_score(const PlayerC* pc, Frame* frame, const Children* children, uint64_t P, uint64_t O,
                       int square, uint64_t* nodes) noexcept nogil:
    """Returns the score of ``square`` for the side to move; higher is better.

    ``frame`` is (P, O)'s, ``children`` :func:`children_for` its side to
    move. For nleast the score is the negated mobility so that every kind
    maximises.
    """
    cdef uint64_t bit = (<uint64_t>1) << square
    cdef uint64_t flips = get_flips(square, P, O)
    cdef uint64_t mine = P ^ flips ^ bit, theirs = O ^ flips
    cdef double score
    cdef Frame space
    if pc.kind == KIND_WPC:
        score = child_value(pc, frame, children, mine, theirs, square, flips, True)
        if pc.depth == 1:
            return score
        return mean_value(pc, child_frame(pc, frame, &space, square, flips), theirs, mine, pc.depth - 1, False,
                          score)
    if pc.kind == KIND_NLEAST:
        return -mean_mobility(theirs, mine, True, pc.depth)
    if pc.kind == KIND_NMOST:
        return mean_mobility(theirs, mine, False, pc.depth)
    cdef Search context
    cdef int killers[MAX_DEPTH + 1]
    cdef int i
    if pc.kind == KIND_ALPHABETA:
        # Full window: the exact value.
        for i in range(MAX_DEPTH + 1):
            killers[i] = -1
        context.pc, context.table, context.mask, context.nodes, context.killers = pc, NULL, 0, nodes, killers
        return -search(&context, child_frame(pc, frame, &space, square, flips), theirs, mine, pc.depth - 1,
                       -INFINITY, INFINITY)
    if pc.kind == KIND_ALPHABETA_PLAIN:
        # Full window at the root: exact values, so that ties are real ties.
        space.colour = frame.colour ^ 1
        return -negamax(pc, &space, theirs, mine, pc.depth - 1, -INFINITY, INFINITY, nodes)
    return 0.0


cdef inline bint likely_above(const Search* s, uint64_t P, uint64_t O, double floor) noexcept nogil:
    """Says whether the bounds the transposition table holds for (P, O), at any depth, put its value
    for the side that just moved at ``floor`` or above: a guess, never a value."""
    cdef Entry* entry
    if s.table == NULL:
        return False
    entry = slot(s, P, O)
    if entry.P != P or entry.O != O:
        return False
    if entry.lower > -INFINITY and entry.upper < INFINITY:
        return -(entry.lower + entry.upper) * 0.5 >= floor
    if entry.upper < INFINITY:
        return -entry.upper >= floor
    if entry.lower > -INFINITY:
        return -entry.lower >= floor
    return False


cdef int search_root(const Search* s, Frame* frame, uint64_t P, uint64_t O, uint64_t moves, Rng* rng) noexcept nogil:
    """Returns the move :func:`choose_move` picks for an alpha-beta player, searching no more than it must.

    The moves are taken in square order and the ties drawn exactly as for the
    other kinds, so the choice (and every draw of ``rng``) is the plain
    search's: the first move's value is searched whole; each other move is
    first tested with a null window just below the running best less the tie
    tolerance, and only a move that passes (a new best, or a tie) is searched
    whole for its exact value. A move that looks like a new best (it scores
    more one ply deep than the running best did, or the transposition table's
    bounds from earlier searches put it above the floor) skips the null
    window: its search with the window open above the floor says "below" as
    surely, and otherwise gives the exact value at once.
    """
    cdef uint64_t bit, flips, tP, tO
    cdef int square, choice = PASS, ties = 0, depth = s.pc.depth - 1
    cdef double score, tolerance, best = -INFINITY, floor, one_ply, best_one_ply = 0.0
    cdef Children children
    cdef Frame space
    cdef Frame* child
    if depth > 1:
        children_for(s.pc, frame, P | O, &children)
    while moves:
        square = first_bit(moves)
        bit = moves & (<uint64_t>0 - moves)
        moves ^= bit
        flips = get_flips(square, P, O)
        tP = O ^ flips
        tO = P ^ flips ^ bit
        child = child_frame(s.pc, frame, &space, square, flips)
        # The move's score one ply deep, a guess at which moves are new bests; a leaf or a last-ply node
        # needs no guess (below).
        one_ply = -child_value(s.pc, frame, &children, tP, tO, square, flips, False) if depth > 1 else 0.0
        if ties == 0:
            score = -search(s, child, tP, tO, depth, -INFINITY, INFINITY)
            best = score
            best_one_ply = one_ply
            choice = square
            ties = 1
            continue
        tolerance = TIE_TOLERANCE * (fabs(best) + s.pc.tie_scale)
        floor = best - tolerance
        if depth <= 1 or one_ply > best_one_ply or likely_above(s, tP, tO, floor):
            # Likely a new best, whose exact value is needed: searched for it at once. A move below the
            # floor after all fails low here, at about the cost of the null window it skipped. A leaf or a
            # last-ply node costs the same under either window (see search), so it never takes two.
            score = -search(s, child, tP, tO, depth, -INFINITY, -nextafter(floor, -INFINITY))
            if score < floor:
                continue
        else:
            # Below the floor the move is neither a tie nor a new best: no need to know by how much.
            score = -search(s, child, tP, tO, depth, -floor, -nextafter(floor, -INFINITY))
            if score < floor:
                continue
            score = -search(s, child, tP, tO, depth, -INFINITY, -nextafter(floor, -INFINITY))
        if score > best + tolerance:
            best = score
            best_one_ply = one_ply
            choice = square
            ties = 1
        elif score >= floor:
            ties += 1
            if rng_below(rng, ties) == 0:
                choice = square
    return choice


cdef int endgame_move(Solver* solver, uint64_t P, uint64_t O, uint64_t moves, Rng* rng,
                      uint64_t* nodes) noexcept nogil:
    """Returns a move of the best exact value among ``moves``, ties drawn as the other kinds draw them.

    The moves of that value are taken in square order by reservoir sampling
    from the game's generator: the k-th of them (k >= 2) replaces the choice
    when ``rng_below(k)`` draws 0, so one best move draws nothing.
    """
    cdef uint64_t best = 0, visited = solver.nodes
    cdef int square, choice = PASS, ties = 0
    solve_best_moves(solver, P, O, moves, &best)
    nodes[0] += solver.nodes - visited
    while best:
        square = first_bit(best)
        best &= best - 1
        ties += 1
        if ties == 1 or rng_below(rng, ties) == 0:
            choice = square
    return choice


cdef int choose_move(const PlayerC* pc, uint64_t P, uint64_t O, uint64_t moves, int colour, Rng* rng,
                     uint64_t* nodes, Entry* table, uint64_t mask, Solver* solver) noexcept nogil:
    """Returns the square the player picks among ``moves`` (P's legal moves, P of ``colour``), PASS if none.

    ``nodes`` counts the positions an alpha-beta player and the endgame
    search visit; ``table`` (``mask + 1`` slots, or NULL) is an alpha-beta
    player's transposition table, ``solver`` the endgame search of a player
    whose ``end`` is set. A random move by ``eps`` comes first, then the
    exact endgame where it applies, then the player's own kind.
    """
    cdef NoPatterns none
    cdef PatternFrame frame
    cdef int32_t changes[MAX_GROUPS]
    if moves == 0:
        return PASS
    if pc.kind == KIND_RANDOM or (pc.eps > 0.0 and rng_uniform(rng) < pc.eps):
        return nth_bit(moves, rng_below(rng, bit_count(moves)))
    if pc.end and 64 - bit_count(P | O) <= pc.end:
        return endgame_move(solver, P, O, moves, rng, nodes)
    if pc.patterns != NULL:
        frame_from_board(pc.patterns, &frame, P, O, colour, changes)
        return choose_by_kind(pc, &frame, P, O, moves, rng, nodes, table, mask)
    none.colour = colour
    return choose_by_kind(pc, &none, P, O, moves, rng, nodes, table, mask)


cdef int choose_by_kind(const PlayerC* pc, Frame* frame, uint64_t P, uint64_t O, uint64_t moves, Rng* rng,
                        uint64_t* nodes, Entry* table, uint64_t mask) noexcept nogil:
    """Returns :func:`choose_move`'s square by the player's own kind; ``frame`` is (P, O)'s."""
    cdef Search context
    cdef int killers[MAX_DEPTH + 1]
    cdef int i
    cdef uint64_t rest
    cdef int square, choice = PASS, ties = 0
    cdef double score, tolerance, best = -INFINITY
    cdef Children children
    if pc.kind == KIND_ALPHABETA:
        for i in range(MAX_DEPTH + 1):
            killers[i] = -1
        context.pc, context.table, context.mask, context.nodes, context.killers = pc, table, mask, nodes, killers
        return search_root(&context, frame, P, O, moves, rng)
    children_for(pc, frame, P | O, &children)
    rest = moves
    while rest:
        square = first_bit(rest)
        rest &= rest - 1
        score = move_score(pc, frame, &children, P, O, square, nodes)
        # Scores within rounding of each other are ties: decimal tables make
        # mathematically equal sums differ in the last bits.
        tolerance = TIE_TOLERANCE * (fabs(best) + pc.tie_scale) if ties else 0.0
        if score > best + tolerance:
            best = score
            choice = square
            ties = 1
        elif score >= best - tolerance:
            ties += 1
            if rng_below(rng, ties) == 0:
                choice = square
    if choice == PASS:
        # Every score was NaN (an evaluation whose terms overflow to inf - inf), which no comparison takes:
        # the first move, never a pass while a move is legal (the game would never end).
        choice = first_bit(moves)
    return choice


cdef int play_game_c(const PlayerC* black, const PlayerC* white, uint64_t seed,
                     int* record, int* n_record, uint64_t* nodes) noexcept nogil:
    """Plays one game and returns black's discs minus white's.

    ``record`` (may be NULL) receives the moves, PASS for a forced pass;
    ``nodes`` (may be NULL) counts the positions the searching players visit.
    """
    cdef uint64_t searched = 0
    cdef Entry* tables[2]
    cdef uint64_t masks[2]
    cdef Solver solvers[2]
    cdef const PlayerC* player
    cdef int t
    cdef Rng rng
    cdef uint64_t P = START_BLACK, O = START_WHITE, flips, bit, moves
    cdef int square, side = 0, plies = 0
    cdef const PlayerC* mover
    cdef uint64_t work = 0, before
    rng.state = seed
    for t in range(2):
        # A deep search remembers its positions for the whole game: a value depends only on the
        # position, the remaining depth and the player, so what one move's search found serves the next.
        player = black if t == 0 else white
        tables[t] = NULL
        masks[t] = 0
        if player.kind == KIND_ALPHABETA and player.depth >= 3:
            masks[t] = ((<uint64_t>1) << min(16, 2 * player.depth)) - 1
            tables[t] = <Entry*>calloc(masks[t] + 1, sizeof(Entry))
            if tables[t] == NULL:
                masks[t] = 0
        init_solver(&solvers[t], player.end)
    while True:
        moves = get_moves(P, O)
        if moves == 0:
            if get_moves(O, P) == 0:
                break
            square = PASS
        else:
            mover = black if side == 0 else white
            if mover.kind == KIND_RANDOM:  # the commonest opponent: no call
                square = nth_bit(moves, rng_below(&rng, bit_count(moves)))
            else:
                before = searched
                square = choose_move(mover, P, O, moves, side, &rng, &searched, tables[side], masks[side],
                                     &solvers[side])
                # The positions searched, or for a look-ahead that counts none about the positions it saw.
                work += 1 + searched - before
                if mover.kind != KIND_ALPHABETA and mover.depth > 1:
                    work += (<uint64_t>1) << min(3 * (mover.depth - 1), 30)
                if work >= GAME_CHECK_WORK:
                    if engine_stop(work):
                        break  # stopped (Ctrl-C): the game is void
                    work = 0
        if record != NULL:
            record[plies] = square
        plies += 1
        if square != PASS:
            bit = (<uint64_t>1) << square
            flips = get_flips(square, P, O)
            P ^= flips | bit
            O ^= flips
        P, O = O, P
        side ^= 1
    if n_record != NULL:
        n_record[0] = plies
    if nodes != NULL:
        nodes[0] += searched
    free(tables[0])
    free(tables[1])
    free(solvers[0].table)
    free(solvers[1].table)
    if side == 0:
        return bit_count(P) - bit_count(O)
    return bit_count(O) - bit_count(P)


cdef void init_solver(Solver* solver, int end) noexcept nogil:
    """Sets up the endgame search of a player solving from ``end`` empty squares, for one game.

    Only a search deep enough to reach the table's depths gets one: its
    positions serve the later moves of the game too, as values are exact.
    """
    solver.nodes = 0
    solver.mask = 0
    solver.table = NULL
    solver.ordering = NULL
    cdef int bits = min(end + 2, ENDGAME_TABLE_BITS)
    solver.checked = 0
    solver.stopped = False
    if end > ENDGAME_TABLE_FROM:
        solver.table = new_table(bits)
        if solver.table != NULL:
            solver.mask = ((<uint64_t>1) << bits) - 1


cdef void init_player(PlayerC* pc, int kind, int depth, double eps, int phase_move,
                      const double* weights, int n_tables, int end, const int* features, int n_features) noexcept nogil:
    """Sets up a player; ``weights`` holds ``n_tables`` tables of 64, then ``n_features`` weights per table."""
    cdef int t, square, rank, byte, j
    pc.kind = kind
    pc.depth = depth
    pc.eps = eps
    pc.phase_move = phase_move
    pc.end = end
    pc.n_tables = n_tables
    pc.unit_weights = n_features == 0
    pc.tie_scale = 0.0
    pc.n_features = n_features
    pc.feature_mask = 0
    pc.patterns = NULL
    pc.squares_off = False
    for t in range(2):
        for j in range(N_FEATURES):
            pc.feature_weights[t][j] = 0.0
    for j in range(n_features):
        pc.feature_mask |= 1u << features[j]
        for t in range(n_tables):
            pc.feature_weights[t][features[j]] = weights[64 * n_tables + n_features * t + j]
            pc.tie_scale = max(pc.tie_scale, fabs(weights[64 * n_tables + n_features * t + j]))
    for t in range(n_tables):
        for square in range(64):
            pc.weights[t][square] = weights[64 * t + square]
            pc.unit_weights = pc.unit_weights and weights[64 * t + square] == 1.0
            pc.tie_scale = max(pc.tie_scale, fabs(weights[64 * t + square]))
        order_squares(pc, t, pc.weights[t])
        for rank in range(8):
            # Each byte's sum is a smaller byte's sum plus its lowest disc.
            pc.rank_sums[t][rank][0] = 0.0
            for byte in range(1, 256):
                pc.rank_sums[t][rank][byte] = (
                    pc.rank_sums[t][rank][byte & (byte - 1)]
                    + pc.weights[t][8 * rank + first_bit(<uint64_t>byte)]
                )


cdef void order_squares(PlayerC* pc, int t, const double* by) noexcept nogil:
    """Sets the search's move order of table ``t``: the squares by their weight in ``by``, highest first."""
    cdef int square, rank, byte, j
    cdef unsigned char place[64]  # place[s]: the index of square s in the order, for the place masks
    for square in range(64):  # insertion sort, stable: equal weights keep square order
        j = square
        while j > 0 and by[pc.order[t][j - 1]] < by[square]:
            pc.order[t][j] = pc.order[t][j - 1]
            j -= 1
        pc.order[t][j] = square
    if pc.kind == KIND_ALPHABETA:
        for j in range(64):
            place[pc.order[t][j]] = j
        for rank in range(8):
            pc.place_bits[t][rank][0] = 0
            for byte in range(1, 256):
                pc.place_bits[t][rank][byte] = (
                    pc.place_bits[t][rank][byte & (byte - 1)]
                    | (<uint64_t>1) << place[8 * rank + first_bit(<uint64_t>byte)]
                )


cdef void add_patterns(PlayerC* pc, const PatternNet* network, const double* square_values) noexcept nogil:
    """Gives a set-up player a pattern network, weighed beside its squares and features.

    A player whose squares are all 0 orders its search's moves by
    ``square_values`` (a classic square table: corners first, X-squares
    last), as Edax orders moves by square values where it does not search to
    order them: a 2-tuple network's own value of a lone disc put corners last
    and searched 10% more positions.
    """
    cdef int t, square
    cdef uint32_t j
    cdef bint no_squares = True
    cdef double largest = 0.0
    pc.patterns = network
    for t in range(pc.n_tables):
        for square in range(64):
            no_squares = no_squares and pc.weights[t][square] == 0.0
    pc.squares_off = no_squares and pc.n_features == 0
    if no_squares:
        for t in range(pc.n_tables):
            order_squares(pc, t, square_values)
    pc.unit_weights = False
    # Ties are relative to the largest single term, here the largest entry of a group's table.
    for j in range(<uint32_t>network.n_phases * network.stride):
        largest = max(largest, fabs(<double>network.entries[j]))
    pc.tie_scale = max(pc.tie_scale, largest * network.scale)


# --- Python API -----------------------------------------------------------

def _check_settings(str kind, int depth, double eps, int phase_move, int end=0):
    """Raises ValueError unless a player of ``kind`` can have these settings."""
    if kind not in KINDS:
        raise ValueError(f"unknown player kind {kind!r}; expected one of {', '.join(KINDS)}")
    if depth < 1:
        raise ValueError(f"player depth must be >= 1, got {depth}")
    cap = _KIND_TABLE[canonical(kind)].max_depth
    if cap and depth > cap:
        raise ValueError(f"{kind} depth must be <= {cap}, got {depth}")
    if not (0.0 <= eps <= 1.0):
        raise ValueError(f"eps must be in [0, 1], got {eps}")
    if not 1 <= phase_move <= 59:
        raise ValueError(f"phase_move must be in 1..59, got {phase_move}")
    if not 0 <= end <= 60:
        raise ValueError(f"end must be in 0..60 empty squares, got {end}")
    if end and kind == "random":
        raise ValueError("the random player takes no end (it never searches)")


cdef class Player:
    """A computer player: ``Player("nhand_custom", 1, weights, eps=0.1)``.

    Kinds: random, nhand (disc difference), nhand_custom / wpc (weights),
    nleast, nmost, alphabeta (weights). ``weights`` has 64 numbers (index =
    square) or 128 for two phase tables (table 1 from move ``phase_move`` on,
    the move number being the discs on the board minus 4). With ``end`` > 0,
    positions with that many empty squares or fewer are solved exactly and a
    move of the best final disc difference is played (eps still comes first).
    ``patterns`` (a compiled network, engine.patterns.compiled) adds a
    pattern network's value to the squares' and features'.
    """
    cdef PlayerC* c
    cdef readonly str kind
    cdef readonly int depth
    cdef readonly double eps
    cdef readonly int phase_move
    cdef readonly int end
    cdef readonly object weights
    cdef readonly tuple features
    cdef readonly PatternTables patterns

    def __cinit__(self):
        self.c = <PlayerC*>calloc(1, sizeof(PlayerC))
        if self.c == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.c)

    def __init__(self, str kind, int depth=1, weights=None, double eps=0.0, int phase_move=40, int end=0,
                 features=(), PatternTables patterns=None):
        _check_settings(kind, depth, eps, phase_move, end)
        if patterns is not None and kind not in WEIGHTED_KINDS:
            raise ValueError(f"player kind {kind!r} takes no pattern network")
        cdef int codes[N_FEATURES]
        features = tuple(features)
        if kind in WEIGHTED_KINDS:
            if weights is None:
                raise ValueError(f"player kind {kind!r} needs 64 weights")
            table = np.asarray(weights, dtype=np.float64).ravel()
            width = 64 + len(features)
            if table.size not in (width, 2 * width):
                raise ValueError(f"weights must have {width} (or {2 * width} for phase tables) numbers"
                                 f"{' (64 squares and one per feature, per table)' if features else ''}, "
                                 f"got {table.size}")
            if not np.all(np.isfinite(table)):
                raise ValueError("weights must be finite numbers (found NaN or inf)")
        else:
            if weights is not None:
                raise ValueError(f"player kind {kind!r} takes no weights")
            if features:
                raise ValueError(f"player kind {kind!r} takes no features")
            table = np.ones(64)  # nhand scores the disc difference
        _feature_codes(features, codes)
        self.kind = kind
        self.depth = depth
        self.eps = eps
        self.phase_move = phase_move
        self.end = end
        self.weights = tuple(table.tolist()) if kind in WEIGHTED_KINDS else None
        self.features = features
        cdef const double[::1] values = table
        init_player(self.c, KINDS[kind], depth, eps, phase_move, &values[0], table.size // (64 + len(features)), end,
                    codes, len(features))
        self.patterns = patterns
        cdef const double[::1] square_values = ORDER_TABLE
        if patterns is not None:
            add_patterns(self.c, &patterns.net, &square_values[0])

    def __reduce__(self):
        return (Player, (self.kind, self.depth, self.weights, self.eps, self.phase_move, self.end, self.features,
                         self.patterns))

    def __repr__(self):
        weights = "" if self.weights is None else f", weights=<{len(self.weights)} numbers>"
        end = f", end={self.end}" if self.end else ""
        features = f", features={self.features!r}" if self.features else ""
        patterns = f", patterns=<{self.patterns.n_groups} groups>" if self.patterns is not None else ""
        return f"Player({self.kind!r}, {self.depth}{weights}, eps={self.eps}{end}{features}{patterns})"

    def value(self, uint64_t player, uint64_t opponent, int colour=0):
        """Returns the player's evaluation of the side-relative position for ``player``, the side to move (of
        ``colour``: 0 black, 1 white, which only a "negate" network reads): its squares' weights less the
        opponent's, plus its features' terms, less its network's value for the opponent (a network values a
        position for the side that has just moved into it), as its search's leaves value a position that is
        not finished. A weighted kind only."""
        cdef PatternFrame frame
        if self.kind not in WEIGHTED_KINDS:
            raise ValueError(f"player kind {self.kind!r} has no evaluation")
        if player & opponent:
            raise ValueError("player and opponent share squares")
        if colour not in (0, 1):
            raise ValueError(f"colour must be 0 (black) or 1 (white), got {colour}")
        if self.c.patterns == NULL:
            return evaluate(self.c, player, opponent)
        frame_from_board(self.c.patterns, &frame, player, opponent, colour, NULL)
        return frame_value(self.c, &frame, player, opponent)

    def scores(self, board):
        """Returns ``{square: score}`` for the side to move of ``board``.

        nleast reports the mean opponent mobility (lower is better for it).
        """
        if self.c.kind == KIND_RANDOM:
            raise ValueError("the random player does not score moves")
        cdef uint64_t P, O, moves, nodes = 0
        cdef NoPatterns none
        cdef PatternFrame frame
        cdef Children children
        cdef int32_t changes[MAX_GROUPS]
        cdef int colour = board.turn
        P, O = _side_relative(board)
        moves = get_moves(P, O)
        none.colour = colour
        if self.c.patterns != NULL:
            frame_from_board(self.c.patterns, &frame, P, O, colour, changes)
            children_for(self.c, &frame, P | O, &children)
        result = {}
        while moves:
            square = first_bit(moves)
            moves &= moves - 1
            if self.c.patterns != NULL:
                score = move_score(self.c, &frame, &children, P, O, square, &nodes)
            else:
                score = move_score(self.c, &none, &children, P, O, square, &nodes)
            result[square] = -score if self.c.kind == KIND_NLEAST else score
        return result

    def choose(self, board, uint64_t seed):
        """Returns the square played from ``board`` with the generator seeded by ``seed`` (64 = pass)."""
        cdef Rng rng
        cdef Solver solver
        cdef uint64_t P, O, nodes = 0
        cdef int square
        rng.state = seed
        P, O = _side_relative(board)
        init_solver(&solver, self.c.end)
        work_begins()
        square = choose_move(self.c, P, O, get_moves(P, O), board.turn, &rng, &nodes, NULL, 0, &solver)
        free(solver.table)
        work_ends()
        return square


cdef int _feature_codes(tuple features, int* codes) except -1:
    """Fills ``codes`` with the Feature of each name, or raises ValueError naming an unknown or repeated one."""
    if len(features) > N_FEATURES:
        raise ValueError(f"at most {N_FEATURES} features, got {len(features)}")
    if len(set(features)) != len(features):
        raise ValueError(f"features must not repeat, got {', '.join(features)}")
    for i, name in enumerate(features):
        if name not in FEATURE_CODES:
            raise ValueError(f"unknown feature {name!r}; expected one of {', '.join(FEATURE_CODES)}")
        codes[i] = FEATURE_CODES[name]
    return 0


def _feature(str name, player, opponent):
    """Returns one feature of the side-relative position (for tests)."""
    cdef int code[N_FEATURES]
    _feature_codes((name,), code)
    return feature_value(code[0], player, opponent)


def _side_relative(board):
    if board.turn == 0:
        return board.black, board.white
    return board.white, board.black


def play_game(Player black, Player white, uint64_t seed):
    """Plays one game in C and returns black's discs minus white's."""
    cdef int diff
    work_begins()
    with nogil:
        diff = play_game_c(black.c, white.c, seed, NULL, NULL, NULL)
    work_ends()
    return diff


def record_game(Player black, Player white, uint64_t seed):
    """Returns the moves of ``play_game(black, white, seed)`` (64 = forced pass)."""
    cdef int record[MAX_PLIES]
    cdef int n_record = 0
    work_begins()
    with nogil:
        play_game_c(black.c, white.c, seed, record, &n_record, NULL)
    work_ends()
    return [record[i] for i in range(n_record)]


def play_match(Player first, Player second, seeds, colours=None):
    """Plays one game per seed and returns ``first``'s disc differences.

    ``colours[i]`` is 0 when ``first`` plays black in game i, 1 when white;
    by default they alternate, black first. No Python runs during the games.
    """
    return search_match(first, second, seeds, colours)[0]


def search_match(Player first, Player second, seeds, colours=None):
    """Returns ``(disc differences, nodes)``: :func:`play_match`'s games and the positions their searches visited."""
    cdef uint64_t[::1] seed_view = np.ascontiguousarray(seeds, dtype=np.uint64).ravel()
    cdef Py_ssize_t n = seed_view.shape[0], i
    cdef uint64_t searched = 0
    if colours is None:
        colours = np.arange(n) % 2
    colour_array = np.ascontiguousarray(colours, dtype=np.uint8).ravel()
    if colour_array.shape[0] != n:
        raise ValueError(f"colours has {colour_array.shape[0]} entries for {n} seeds")
    if np.any(colour_array > 1):
        raise ValueError("colours must be 0 (first plays black) or 1 (first plays white)")
    cdef uint8_t[::1] colour_view = colour_array
    result = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] diffs = result
    work_begins()
    with nogil:
        for i in range(n):
            if colour_view[i] == 0:
                diffs[i] = play_game_c(first.c, second.c, seed_view[i], NULL, NULL, &searched)
            else:
                diffs[i] = -play_game_c(second.c, first.c, seed_view[i], NULL, NULL, &searched)
            if engine_stop(GAME_WORK):
                break
    work_ends()  # raises if stopped (Ctrl-C): no result of a stopped match
    return result, searched


cdef extern from *:
    """
    static inline Py_ssize_t othello_ga_take(Py_ssize_t* counter) {
        return __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
    }
    static inline void othello_ga_close(Py_ssize_t* counter, Py_ssize_t n) {
        __atomic_store_n(counter, n, __ATOMIC_RELAXED);
    }
    static inline int othello_ga_is_built(const int* state) {
        return __atomic_load_n(state, __ATOMIC_ACQUIRE) == 2;
    }
    static inline int othello_ga_claim(int* state) {
        int expected = 0;
        return __atomic_compare_exchange_n(state, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    }
    static inline void othello_ga_set_built(int* state) {
        __atomic_store_n(state, 2, __ATOMIC_RELEASE);
    }
    """
    # Hands out the next game index: each thread playing a SharedPlan takes one at a time.
    Py_ssize_t othello_ga_take(Py_ssize_t* counter) noexcept nogil
    # Hands out no more: every later take is past the end.
    void othello_ga_close(Py_ssize_t* counter, Py_ssize_t n) noexcept nogil
    # A player slot's state: 0 not built, 1 being built by the thread that claimed it, 2 built.
    bint othello_ga_is_built(const int* state) noexcept nogil
    bint othello_ga_claim(int* state) noexcept nogil
    void othello_ga_set_built(int* state) noexcept nogil


cdef class SharedPlan:
    """Many games of table-driven players, played by as many threads as call :meth:`play`.

    ``tables`` (n x 64, or n x 128) are the players' weights; game ``i`` is
    played by ``Player(kind, depths[i], tables[individual[i]], eps, phase_move, end)``
    (``depths[i]`` is ``depth`` when ``depths`` is None) with colour
    ``colours[i]`` (0 black, 1 white) against ``opponents[opponent[i]]`` or,
    where that entry is None, against the player of ``tables[member[i]]`` at
    the same depth. With ``first`` (a Player) every game is played by it
    instead of a table's player (``individual`` is then unused, and the
    tables are only members). ``networks`` (one per table, a compiled pattern
    network or None) adds a network to a table's players; with ``layout`` (a
    network structure's, engine.patterns.layout) each row ends in a network's
    weights, whose tables are summed once per row, in C, the first time a game
    needs it. The players are built once, in C. Each call of
    :meth:`play` takes the next unplayed game until none is left, with the GIL
    released, so threads share the games with no batch boundaries to balance;
    ``result`` holds the disc differences in plan order.
    """
    cdef PlayerC* players
    cdef int* built  # each player's state (othello_ga_claim): players are built by the threads that play
    cdef PlayerC** opponent_c
    cdef const PlayerC* first_c
    cdef int32_t* slot
    cdef int n_depths
    cdef int code, n_weights, phase_move, end
    cdef int n_features
    cdef int feature_codes[N_FEATURES]
    cdef double eps
    cdef const double[:, ::1] weights
    cdef const int32_t[::1] who
    cdef const int32_t[::1] against
    cdef const int32_t[::1] members
    cdef const int32_t[::1] depth_view
    cdef const uint64_t[::1] seed_view
    cdef const uint8_t[::1] colour_view
    cdef int32_t[::1] diffs
    cdef Py_ssize_t n_games
    cdef Py_ssize_t next_game
    cdef object opponent_list  # keeps the opponents' C players alive
    cdef object first_player  # and the first player's
    cdef object network_list  # and the table rows' pattern networks
    cdef const PatternNet** networks  # per table row: its pattern network, NULL for none (or NULL: none at all)
    cdef PatternLayout layout  # with rows that end in a network's weights: the networks' layout (else None)
    cdef PatternNet* row_nets  # per table row: its network, built from the row on first use
    cdef int32_t* row_entries  # their tables, one after another
    cdef int* row_built        # each row network's state (othello_ga_claim)
    cdef const double[::1] square_values
    cdef readonly object result

    def __cinit__(self):
        self.players = NULL
        self.built = NULL
        self.opponent_c = NULL
        self.slot = NULL
        self.first_c = NULL
        self.networks = NULL
        self.row_nets = NULL
        self.row_entries = NULL
        self.row_built = NULL

    def __dealloc__(self):
        free(self.players)
        free(self.built)
        free(self.opponent_c)
        free(self.slot)
        free(self.networks)
        free(self.row_nets)
        free(self.row_entries)
        free(self.row_built)

    def __init__(self, str kind, int depth, double eps, int phase_move, tables, opponents,
                 individual, opponent, member, seeds, colours, depths=None, Player first=None, int end=0,
                 features=(), networks=None, PatternLayout layout=None):
        if kind not in WEIGHTED_KINDS:
            raise ValueError(f"play_plan needs a weighted player kind, got {kind!r}")
        _check_settings(kind, depth, eps, phase_move, end)
        features = tuple(features)
        _feature_codes(features, self.feature_codes)
        self.n_features = len(features)
        cdef int width = 64 + self.n_features
        table_array = np.asarray(tables, dtype=np.float64)
        if table_array.ndim != 2:
            raise ValueError(f"tables must be a 2-D array, one row of weights per table; got {table_array.ndim} dimensions")
        cdef const double[:, ::1] weights = np.ascontiguousarray(table_array)
        cdef int network_weights = layout.n_weights if layout is not None else 0
        if weights.shape[1] - network_weights not in (width, 2 * width):
            raise ValueError(f"tables must have {width} or {2 * width} columns"
                             f"{f' and the {network_weights} of a network' if network_weights else ''}, "
                             f"got {weights.shape[1]}")
        if layout is not None and networks is not None:
            raise ValueError("networks come from the rows (layout) or as compiled networks, not both")
        if not np.all(np.isfinite(np.asarray(weights))):
            raise ValueError("tables must be finite numbers (found NaN or inf)")
        self.square_values = ORDER_TABLE
        if networks is not None:
            self.network_list = list(networks)
            if len(self.network_list) != weights.shape[0]:
                raise ValueError(f"networks has {len(self.network_list)} entries for {weights.shape[0]} tables")
            self.networks = <const PatternNet**>calloc(max(weights.shape[0], 1), sizeof(PatternNet*))
            if self.networks == NULL:
                raise MemoryError()
            for number, network in enumerate(self.network_list):
                if network is not None:
                    self.networks[number] = &(<PatternTables?>network).net
        self.seed_view = np.ascontiguousarray(seeds, dtype=np.uint64)
        cdef Py_ssize_t n_games = self.seed_view.shape[0], n_tables = weights.shape[0], i, row, key
        self.who = np.ascontiguousarray(individual, dtype=np.int32)
        self.against = np.ascontiguousarray(opponent, dtype=np.int32)
        self.members = np.ascontiguousarray(member, dtype=np.int32)
        self.colour_view = np.ascontiguousarray(colours, dtype=np.uint8)
        cdef int cap = _KIND_TABLE[canonical(kind)].max_depth
        if depths is None:
            self.depth_view = np.full(n_games, depth, dtype=np.int32)
        else:
            self.depth_view = np.ascontiguousarray(depths, dtype=np.int32)
        for name, view in (("individual", self.who), ("opponent", self.against), ("member", self.members),
                           ("colours", self.colour_view), ("depths", self.depth_view)):
            if view.shape[0] != n_games:
                raise ValueError(f"{name} has {view.shape[0]} entries for {n_games} seeds")
        self.opponent_list = list(opponents)
        self.first_player = first
        if first is not None:
            self.first_c = first.c
        cdef Py_ssize_t n_opponents = len(self.opponent_list)
        self.n_depths = cap + 1
        self.opponent_c = <PlayerC**>calloc(max(n_opponents, 1), sizeof(PlayerC*))
        # Only the (table, depth) pairs the plan plays are set up, each in a slot of its own:
        # a player is 65 KB of tables (33 KB written, 65 KB for alpha-beta) to build and to fault in.
        self.slot = <int32_t*>malloc(max(n_tables * self.n_depths, 1) * sizeof(int32_t))
        if self.opponent_c == NULL or self.slot == NULL:
            raise MemoryError()
        for i in range(n_opponents):
            if self.opponent_list[i] is not None:
                self.opponent_c[i] = (<Player?>self.opponent_list[i]).c
        # Every index checked in one C loop (numpy's min and max, a few microseconds each, cost more
        # than the loop on a generation's plan), each kind of fault raised as before, in this order.
        cdef bint bad_depth = False, bad_who = False, bad_against = False, bad_colour = False, bad_member = False
        with nogil:
            for i in range(n_games):
                bad_depth |= not 1 <= self.depth_view[i] <= cap
                bad_who |= self.first_c == NULL and not 0 <= self.who[i] < n_tables
                if not 0 <= self.against[i] < n_opponents:
                    bad_against = True
                elif self.opponent_c[self.against[i]] == NULL and not 0 <= self.members[i] < n_tables:
                    bad_member = True
                bad_colour |= self.colour_view[i] > 1
        if bad_depth and depths is not None:
            raise ValueError(f"depths must be in 1..{cap} for {kind}")
        if bad_who:
            raise ValueError("individual indices must index the rows of tables")
        if bad_against:
            raise ValueError("opponent indices must index opponents")
        if bad_colour:
            raise ValueError("colours must be 0 (black) or 1 (white)")
        if bad_member:
            raise ValueError("member indices must index the rows of tables")
        self.result = np.empty(n_games, dtype=np.int32)
        self.diffs = self.result
        work_begins()  # new work: a stop asked for before it does not apply (every thread's play heeds later ones)
        self.n_games = n_games
        self.next_game = 0
        self.code, self.n_weights, self.eps, self.phase_move = (KINDS[kind], (weights.shape[1] - network_weights) // width,
                                                                eps, phase_move)
        self.layout = layout
        if layout is not None:
            self.row_nets = <PatternNet*>malloc(max(n_tables, 1) * sizeof(PatternNet))
            self.row_entries = <int32_t*>malloc(max(n_tables * layout.entries_per_network, 1) * sizeof(int32_t))
            self.row_built = <int*>calloc(max(n_tables, 1), sizeof(int))
            if self.row_nets == NULL or self.row_entries == NULL or self.row_built == NULL:
                raise MemoryError()
        self.end = end
        self.weights = weights
        cdef Py_ssize_t n_used = 0
        with nogil:
            for i in range(n_tables * self.n_depths):
                self.slot[i] = -1
            for i in range(n_games):
                key = self.who[i] * self.n_depths + self.depth_view[i]
                if self.first_c == NULL and self.slot[key] < 0:
                    self.slot[key] = n_used
                    n_used += 1
                key = self.members[i] * self.n_depths + self.depth_view[i]
                if self.opponent_c[self.against[i]] == NULL and self.slot[key] < 0:
                    self.slot[key] = n_used
                    n_used += 1
        # The players are built by the threads that play, each the first time a game needs it: a
        # player's byte tables are 33 KB or more to build, so building them all here kept every other
        # thread waiting. malloc, not calloc: init_player sets every field a game reads.
        self.players = <PlayerC*>malloc(max(n_used, 1) * sizeof(PlayerC))
        self.built = <int*>calloc(max(n_used, 1), sizeof(int))
        if self.players == NULL or self.built == NULL:
            raise MemoryError()

    def abandon(self):
        """Hands out no more games: each thread playing the plan returns after its current game."""
        othello_ga_close(&self.next_game, self.n_games)

    cdef const PlayerC* player(self, Py_ssize_t key) noexcept nogil:
        """Returns the player of slot key (table row * n_depths + depth), built on first use."""
        cdef int32_t at = self.slot[key]
        cdef PlayerC* pc = &self.players[at]
        if not othello_ga_is_built(&self.built[at]):
            if othello_ga_claim(&self.built[at]):
                init_player(pc, self.code, key % self.n_depths, self.eps, self.phase_move,
                            &self.weights[key // self.n_depths, 0], self.n_weights, self.end, self.feature_codes,
                            self.n_features)
                if self.networks != NULL and self.networks[key // self.n_depths] != NULL:
                    add_patterns(pc, self.networks[key // self.n_depths], &self.square_values[0])
                elif self.layout is not None:
                    add_patterns(pc, self.row_network(key // self.n_depths), &self.square_values[0])
                othello_ga_set_built(&self.built[at])
            else:
                while not othello_ga_is_built(&self.built[at]):  # another thread is building it (microseconds)
                    pass
        return pc

    cdef const PatternNet* row_network(self, Py_ssize_t row) noexcept nogil:
        """Returns the network of table row ``row`` (its weights after the squares and features), built on first
        use: its tables are summed and quantised once however many players (depths) the row has."""
        cdef PatternNet* net = &self.row_nets[row]
        cdef Py_ssize_t size = self.layout.net.n_phases * self.layout.net.stride
        cdef double scale = 1.0
        if not othello_ga_is_built(&self.row_built[row]):
            if othello_ga_claim(&self.row_built[row]):
                net[0] = self.layout.net
                net.entries = &self.row_entries[row * size]
                # Non-finite rows were refused above, so the sums are finite.
                self.layout.fill(&self.weights[row, self.weights.shape[1] - self.layout.n_weights],
                                 &self.row_entries[row * size], &scale)
                net.scale = scale
                othello_ga_set_built(&self.row_built[row])
            else:
                while not othello_ga_is_built(&self.row_built[row]):  # another thread is building it
                    pass
        return net

    def play(self, Py_ssize_t most=-1):
        """Plays games until none is left, or ``most`` of them if ``most >= 0``; returns how many this call played.

        Ctrl-C stops it within milliseconds, even inside a long game or solve: it raises KeyboardInterrupt (or
        :class:`~engine._endgame.Interrupted`, when a handler asked the engine to stop, also before this call
        but after the plan was made), on every thread that plays the plan, and the plan's results are void.
        """
        cdef Py_ssize_t i, played = 0
        cdef const PlayerC* rival
        cdef const PlayerC* me
        with nogil:
            while most < 0 or played < most:
                i = othello_ga_take(&self.next_game)
                if i >= self.n_games:
                    break
                me = self.first_c
                if me == NULL:
                    me = self.player(self.who[i] * self.n_depths + self.depth_view[i])
                rival = self.opponent_c[self.against[i]]
                if rival == NULL:
                    rival = self.player(self.members[i] * self.n_depths + self.depth_view[i])
                if self.colour_view[i] == 0:
                    self.diffs[i] = play_game_c(me, rival, self.seed_view[i], NULL, NULL, NULL)
                else:
                    self.diffs[i] = -play_game_c(rival, me, self.seed_view[i], NULL, NULL, NULL)
                played += 1
                if engine_stop(GAME_WORK):
                    break
        work_ends()  # raises if stopped (Ctrl-C): the plan's results are void
        return played


def play_plan(str kind, int depth, double eps, int phase_move, tables, opponents,
              individual, opponent, member, seeds, colours, depths=None, Player first=None, int end=0, features=(),
              networks=None, PatternLayout layout=None):
    """Plays many games of table-driven players in one call and returns their disc differences.

    The games and arguments of :class:`SharedPlan`, played in this thread.
    No Python runs during the games.
    """
    games = SharedPlan(kind, depth, eps, phase_move, tables, opponents, individual, opponent, member, seeds, colours,
                       depths, first, end, features, networks, layout)
    games.play()
    return games.result


# --- root move values, for an engine that reports its evaluations (the nboard command) ---

#: What a finished game's disc difference is multiplied by in the alpha-beta values (a value this large or larger
#: in magnitude is a finished game's: divided by it, its final disc difference, empty squares not counted).
FINISHED_GAME_SCALE = WIN_SCALE


def move_value(Player player, uint64_t P, uint64_t O, int square, double floor=-INFINITY, int colour=0):
    """Returns ``(value, nodes)``: the alpha-beta value, for the side to move, of playing ``square`` in the
    side-relative position (P to move, of ``colour``: 0 black, 1 white, which only a "negate" network reads),
    searched ``player.depth`` plies deep counting the move, and the positions visited.

    The value is :meth:`Player.scores`' for that move, bit for bit, found with the GIL released and a
    transposition table of its own, so that another thread runs meanwhile (an engine reads its next command).
    With ``floor`` the search only needs to know whether the value is above it: a value above ``floor`` is exact,
    and one at or below it is a bound (the exact value is at most it). An alpha-beta player only.
    """
    if player.kind != "alphabeta":
        raise ValueError(f"move_value searches with an alphabeta player, got {player.kind!r}")
    if P & O:
        raise ValueError("player and opponent share squares")
    if colour not in (0, 1):
        raise ValueError(f"colour must be 0 (black) or 1 (white), got {colour}")
    if not 0 <= square < 64 or not get_moves(P, O) >> square & 1:
        raise ValueError(f"square {square} is not a legal move of the side to move")
    cdef const PlayerC* pc = player.c
    cdef Search context
    cdef int killers[MAX_DEPTH + 1]
    cdef uint64_t nodes = 0, mask = 0, bit = (<uint64_t>1) << square, flips
    cdef Entry* table = NULL
    cdef double value
    cdef int i
    cdef NoPatterns none
    cdef PatternFrame root, child
    cdef int32_t changes[MAX_GROUPS]
    with nogil:
        for i in range(MAX_DEPTH + 1):
            killers[i] = -1
        if pc.depth >= 3:  # sized as a game's table (play_game_c): shallower searches gain nothing from one
            mask = ((<uint64_t>1) << min(16, 2 * pc.depth)) - 1
            table = <Entry*>calloc(mask + 1, sizeof(Entry))
            if table == NULL:
                mask = 0
        context.pc, context.table, context.mask, context.nodes, context.killers = pc, table, mask, &nodes, killers
        flips = get_flips(square, P, O)
        if pc.patterns != NULL:
            frame_from_board(pc.patterns, &root, P, O, colour, changes)
            frame_after(pc.patterns, &root, &child, square, flips)
            value = -search(&context, &child, O ^ flips, P ^ flips ^ bit, pc.depth - 1, -INFINITY, -floor)
        else:
            none.colour = colour ^ 1
            value = -search(&context, &none, O ^ flips, P ^ flips ^ bit, pc.depth - 1, -INFINITY, -floor)
        free(table)
    return value, nodes

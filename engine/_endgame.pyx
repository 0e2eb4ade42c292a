# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The exact endgame search (Edax's endgame.c, in its shape): null windows, and a search per depth.

- ``solve_1`` .. ``solve_4``: the last four empty squares, written out, no
  move generation: each empty square is tried where a neighbour is an
  opponent disc. The last one counts its flips from four line lookups (with a
  single empty square, every other square is the opponent's, so a line's
  flips depend only on where the mover's discs are).
- ``nws_shallow``: 5 .. SHALLOW empty squares: the empty squares in the
  quadrants with an odd number of them first (parity: the side that plays
  last in a region gains there), no table.
- ``nws_deep``: more empty squares: a transposition table, the opponent's
  fewest moves first (fastest first), enhanced transposition cut-offs, and
  stability cut-offs (the opponent keeps at least its stable discs, and so
  does the mover). From ORDER_EMPTIES up, a solver with an ordering
  evaluation (``Endgame.order_by``) adds to each move's key the opponent's
  value by a shallow search with it, as Edax orders its moves by its
  evaluation far from the end.
- ``pvs``: the exact value inside a window (principal-variation search): the
  first move with the window, the others with a null window, searched again
  where they beat it.

Every function returns a fail-soft value: exact inside its window, a bound on
the same side outside it. docs/search.md has what each technique bought.
"""
import math
import threading

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from engine._bitboard cimport (CORNERS, FILE_A, FILE_TO_BYTE, bit_count, first_bit, get_flips, get_moves, init_lines,
                               rank_sums_difference)
from engine._features cimport feature_sum
from engine._stability cimport stable_discs

init_lines()

DEF INF = 127
DEF NO_MOVE = 64
# More legal moves than any Othello position has (the most known is 33).
DEF MAX_MOVES = 40
# Nodes with this many empty squares or fewer search without the table or move generation.
DEF SHALLOW = 7
# Enhanced transposition cut-offs from this many empty squares up.
DEF ETC_EMPTIES = 12
# With an ordering evaluation (Solver.ordering), the moves of a node with this many empty squares or more are
# ordered by a shallow search of each child with it, (n - ORDER_DEPTH_BASE) // 2 plies deep: 1 ply at 15 empty
# squares, 2 at 16-17, ..., 6 at 24-25. Below, the search costs more than the positions it saves.
DEF ORDER_EMPTIES = 15
DEF ORDER_DEPTH_BASE = 12
# An order key is REPLY_WEIGHT a reply the opponent is left with (corners twice), 2 for a move outside the odd
# regions, and ORDER_EVAL_WEIGHT a unit of the opponent's shallow-search value (an evaluation unit is about a
# disc: half a reply); lower first.
DEF REPLY_WEIGHT = 8
DEF HINT_KEY = -1073741824  # the table's best move: first whatever the others' keys
DEF ORDER_EVAL_WEIGHT = 4
DEF ORDER_VALUE_LIMIT = 1e6
# A search asks whether to stop (engine_stop) once it has visited this many positions since it last asked:
# a few milliseconds of search, so Ctrl-C ends a long solve at once, at the cost of a subtraction a node.
DEF CHECK_NODES = 16384
# The main thread runs the signal handlers (with the GIL, about a microsecond) once this much work has
# accumulated: moves and positions, each a fraction of a microsecond, so the handlers run every few
# milliseconds of play and their cost is lost in it.
DEF CHECK_WORK = 65536

# LAST_FLIPS[k][b]: twice the discs flipped along a line of 8 by a move on its k-th square, where
# byte b holds the mover's discs and every other square is the opponent's (the last empty square).
cdef unsigned char LAST_FLIPS[8][256]
# The a1-h8 and h1-a8 diagonals through each square.
cdef uint64_t DIAGONAL_9[64]
cdef uint64_t DIAGONAL_7[64]
# The squares next to each square.
cdef uint64_t NEIGHBOURS[64]
# QUADRANT_OF[s]: the bit of the quadrant of square s (a1-d4, e1-h4, a5-d8, e5-h8).
cdef int QUADRANT_OF[64]
# PARITY_SQUARES[p]: the squares of the quadrants whose bits are set in p.
cdef uint64_t PARITY_SQUARES[16]
# The stability cut-off is tried where alpha is at least this (a bound that low rarely proves anything).
cdef int STABILITY_FLOOR[65]


# --- stopping: Ctrl-C and SIGTERM while the engine works -------------------------------------------------
#
# The engine works without the GIL, where Python cannot run a signal's handler. So the main thread runs
# them itself now and then (engine_stop), and the handler's verdict reaches every thread through one
# flag: a handler that raised (KeyboardInterrupt) has its exception raised by the entry point when the work
# has unwound, and a handler that only asks the engine to stop (stop_work: a run's first Ctrl-C) makes it
# raise Interrupted. Work stopped so has no result: a game stops between two moves, a search returns at once.

class Interrupted(KeyboardInterrupt):
    """Engine work stopped before its end because a signal's handler asked it to (a run's Ctrl-C or SIGTERM).

    Its results are void: no game or value of the stopped work is returned.
    """


cdef extern from *:
    """
    static int othello_ga_stop_flag = 0;
    static inline int othello_ga_stopping(void) { return __atomic_load_n(&othello_ga_stop_flag, __ATOMIC_RELAXED); }
    static inline void othello_ga_set_stop(int value) { __atomic_store_n(&othello_ga_stop_flag, value, __ATOMIC_RELAXED); }
    """
    bint othello_ga_stopping() noexcept nogil
    void othello_ga_set_stop(int value) noexcept nogil


cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    pthread_t pthread_self()
    int pthread_equal(pthread_t, pthread_t)


# Python's thread identifier is the pthread_t of the thread (Linux, macOS): only this one runs handlers.
cdef pthread_t MAIN_THREAD = <pthread_t>threading.main_thread().ident
cdef uint64_t main_work = 0  # work since the main thread last ran its handlers (only the main thread touches it)
cdef object pending = None  # what a handler raised in engine_stop, for the entry point to raise
cdef bint handling = False  # the engine runs the signal handlers now (they may ask it to stop: stop_work)


cdef void run_handlers() noexcept with gil:
    global pending, handling
    handling = True
    try:
        PyErr_CheckSignals()
    except BaseException as error:  # KeyboardInterrupt, or whatever a handler raised: raised by the entry point
        pending = error
        othello_ga_set_stop(1)
    finally:
        handling = False


def in_engine_work():
    """Returns whether a signal handler running now was called from within the engine's work (which it may stop
    with :func:`stop_work`), rather than between two pieces of it."""
    return handling


cdef inline bint on_main_thread() noexcept nogil:
    return pthread_equal(pthread_self(), MAIN_THREAD) != 0


cdef bint engine_stop(uint64_t work) noexcept nogil:
    global main_work
    if othello_ga_stopping():
        return True
    if not on_main_thread():
        return False
    main_work += work
    if main_work < CHECK_WORK:
        return False
    main_work = 0
    run_handlers()
    return othello_ga_stopping()


cdef int work_begins() except -1:
    global pending, main_work
    if on_main_thread():
        othello_ga_set_stop(0)
        pending = None
        main_work = 0
    return 0


cdef int work_ends() except -1:
    global pending
    if not othello_ga_stopping():
        return 0
    error = None
    if on_main_thread():
        error, pending = pending, None
    # The flag stays set: the other threads of the same work stop too (the next work clears it).
    raise error if error is not None else Interrupted("the engine's work was stopped by a request to stop")


def stop_work():
    """Asks the engine's work in progress, on every thread, to stop: each entry point then raises
    :class:`Interrupted` (a signal's handler calls this when it wants the work to end, not only the program)."""
    othello_ga_set_stop(1)


cdef inline bint solver_stops(Solver* s) noexcept nogil:
    """Says whether a search must return at once: stopped, or told to now (asked every CHECK_NODES positions)."""
    if s.stopped:
        return True
    if s.nodes - s.checked >= CHECK_NODES:
        s.stopped = engine_stop(s.nodes - s.checked)
        s.checked = s.nodes
    return s.stopped


cdef void init_tables() noexcept:
    cdef int k, b, j, run, square, file, rank, df, dr, q
    cdef uint64_t quadrant
    for k in range(8):
        for b in range(256):
            LAST_FLIPS[k][b] = 0
            if b >> k & 1:
                continue
            for step in (-1, 1):
                run = 0
                j = k + step
                while 0 <= j < 8 and not (b >> j & 1):
                    run += 1
                    j += step
                if 0 <= j < 8:  # closed by a disc of the mover's
                    LAST_FLIPS[k][b] += 2 * run
    for square in range(64):
        file, rank = square & 7, square >> 3
        DIAGONAL_9[square] = 0
        DIAGONAL_7[square] = 0
        NEIGHBOURS[square] = 0
        for j in range(-7, 8):
            if 0 <= file + j < 8 and 0 <= rank + j < 8:
                DIAGONAL_9[square] |= (<uint64_t>1) << (8 * (rank + j) + file + j)
            if 0 <= file + j < 8 and 0 <= rank - j < 8:
                DIAGONAL_7[square] |= (<uint64_t>1) << (8 * (rank - j) + file + j)
        for df in range(-1, 2):
            for dr in range(-1, 2):
                if (df or dr) and 0 <= file + df < 8 and 0 <= rank + dr < 8:
                    NEIGHBOURS[square] |= (<uint64_t>1) << (8 * (rank + dr) + file + df)
        QUADRANT_OF[square] = 1 << ((file >= 4) + 2 * (rank >= 4))
    for b in range(16):
        PARITY_SQUARES[b] = 0
        for q in range(4):
            if b >> q & 1:
                quadrant = 0x0F0F0F0F if q % 2 == 0 else 0xF0F0F0F0
                PARITY_SQUARES[b] |= quadrant << (32 * (q // 2))
    for k in range(65):
        # Few stable discs are likely with many empty squares: try only where alpha is high.
        STABILITY_FLOOR[k] = min(64, 2 * k - 6) if k >= 4 else 64


init_tables()


cdef inline int last_flips(int x, uint64_t P) noexcept nogil:
    """Returns twice the discs P flips on x when x is the last empty square."""
    cdef int file = x & 7, rank = x >> 3
    return (LAST_FLIPS[file][(P >> (8 * rank)) & 255]
            + LAST_FLIPS[rank][(((P >> file) & FILE_A) * FILE_TO_BYTE) >> 56]
            + LAST_FLIPS[file][((P & DIAGONAL_9[x]) * FILE_A) >> 56]
            + LAST_FLIPS[file][((P & DIAGONAL_7[x]) * FILE_A) >> 56])


cdef int final_score(uint64_t P, uint64_t O) noexcept nogil:
    cdef int p = bit_count(P), o = bit_count(O)
    if p > o:
        return 64 - 2 * o
    if p < o:
        return 2 * p - 64
    return 0


cdef inline int solve_1(Solver* s, uint64_t P, int x) noexcept nogil:
    """Returns the value of P to move with x the only empty square (every other square O's)."""
    cdef int flips, score = 2 * bit_count(P) - 62  # P plays x and flips nothing
    s.nodes += 1
    flips = last_flips(x, P)
    if flips:
        return score + flips
    flips = last_flips(x, ~(P | ((<uint64_t>1) << x)))
    if flips:  # P passes, O plays x
        return score - 2 - flips
    return score if score > 0 else score - 2  # nobody can play x: it goes to the winner


cdef int solve_2(Solver* s, uint64_t P, uint64_t O, int alpha, int x1, int x2) noexcept nogil:
    """Returns the null-window value of (P, O) with x1 and x2 empty (window alpha, alpha + 1)."""
    cdef uint64_t flips
    cdef int value, best = -INF
    s.nodes += 1
    if NEIGHBOURS[x1] & O:
        flips = get_flips(x1, P, O)
        if flips:
            best = -solve_1(s, O ^ flips, x2)
            if best > alpha:
                return best
    if NEIGHBOURS[x2] & O:
        flips = get_flips(x2, P, O)
        if flips:
            value = -solve_1(s, O ^ flips, x1)
            return value if value > best else best
    if best > -INF:
        return best
    # P passes: O moves, and the values stay P's.
    best = INF
    if NEIGHBOURS[x1] & P:
        flips = get_flips(x1, O, P)
        if flips:
            best = solve_1(s, P ^ flips, x2)
            if best <= alpha:
                return best
    if NEIGHBOURS[x2] & P:
        flips = get_flips(x2, O, P)
        if flips:
            value = solve_1(s, P ^ flips, x1)
            return value if value < best else best
    if best < INF:
        return best
    return final_score(P, O)


cdef int solve_3(Solver* s, uint64_t P, uint64_t O, int alpha, int x1, int x2, int x3) noexcept nogil:
    """Returns the null-window value of (P, O) with x1, x2 and x3 empty, x1 tried first."""
    cdef uint64_t flips, bit
    cdef int value, best = -INF
    s.nodes += 1
    if NEIGHBOURS[x1] & O:
        flips = get_flips(x1, P, O)
        if flips:
            bit = (<uint64_t>1) << x1
            best = -solve_2(s, O ^ flips, P ^ flips ^ bit, -alpha - 1, x2, x3)
            if best > alpha:
                return best
    if NEIGHBOURS[x2] & O:
        flips = get_flips(x2, P, O)
        if flips:
            bit = (<uint64_t>1) << x2
            value = -solve_2(s, O ^ flips, P ^ flips ^ bit, -alpha - 1, x1, x3)
            if value > alpha:
                return value
            best = value if value > best else best
    if NEIGHBOURS[x3] & O:
        flips = get_flips(x3, P, O)
        if flips:
            bit = (<uint64_t>1) << x3
            value = -solve_2(s, O ^ flips, P ^ flips ^ bit, -alpha - 1, x1, x2)
            return value if value > best else best
    if best > -INF:
        return best
    best = INF
    if NEIGHBOURS[x1] & P:
        flips = get_flips(x1, O, P)
        if flips:
            bit = (<uint64_t>1) << x1
            best = solve_2(s, P ^ flips, O ^ flips ^ bit, alpha, x2, x3)
            if best <= alpha:
                return best
    if NEIGHBOURS[x2] & P:
        flips = get_flips(x2, O, P)
        if flips:
            bit = (<uint64_t>1) << x2
            value = solve_2(s, P ^ flips, O ^ flips ^ bit, alpha, x1, x3)
            if value <= alpha:
                return value
            best = value if value < best else best
    if NEIGHBOURS[x3] & P:
        flips = get_flips(x3, O, P)
        if flips:
            bit = (<uint64_t>1) << x3
            value = solve_2(s, P ^ flips, O ^ flips ^ bit, alpha, x1, x2)
            return value if value < best else best
    if best < INF:
        return best
    return final_score(P, O)


cdef inline int solve_3_sorted(Solver* s, uint64_t P, uint64_t O, int alpha, int x1, int x2, int x3) noexcept nogil:
    # Parity: the square alone in its quadrant first (with three empty squares, at most one is).
    if QUADRANT_OF[x1] == QUADRANT_OF[x2]:
        return solve_3(s, P, O, alpha, x3, x1, x2)
    if QUADRANT_OF[x1] == QUADRANT_OF[x3]:
        return solve_3(s, P, O, alpha, x2, x1, x3)
    return solve_3(s, P, O, alpha, x1, x2, x3)


cdef int solve_4(Solver* s, uint64_t P, uint64_t O, int alpha, uint64_t empty) noexcept nogil:
    """Returns the null-window value of (P, O) with the four empty squares of ``empty``."""
    cdef int x[4]
    cdef int order[4]
    cdef int i, n = 0, parity = 0, value, best = -INF
    cdef uint64_t flips, bit
    s.nodes += 1
    for i in range(4):
        x[i] = first_bit(empty)
        empty &= empty - 1
        parity ^= QUADRANT_OF[x[i]]
    # Parity: the squares of quadrants with an odd number of empty squares first.
    for i in range(4):
        if parity & QUADRANT_OF[x[i]]:
            order[n] = x[i]
            n += 1
    for i in range(4):
        if not parity & QUADRANT_OF[x[i]]:
            order[n] = x[i]
            n += 1
    for i in range(4):
        if NEIGHBOURS[order[i]] & O:
            flips = get_flips(order[i], P, O)
            if flips:
                bit = (<uint64_t>1) << order[i]
                value = -solve_3_rest(s, O ^ flips, P ^ flips ^ bit, -alpha - 1, order, i)
                if value > alpha:
                    return value
                best = value if value > best else best
    if best > -INF:
        return best
    best = INF
    for i in range(4):
        if NEIGHBOURS[order[i]] & P:
            flips = get_flips(order[i], O, P)
            if flips:
                bit = (<uint64_t>1) << order[i]
                value = solve_3_rest(s, P ^ flips, O ^ flips ^ bit, alpha, order, i)
                if value <= alpha:
                    return value
                best = value if value < best else best
    if best < INF:
        return best
    return final_score(P, O)


cdef inline int solve_3_rest(Solver* s, uint64_t P, uint64_t O, int alpha, const int* order, int played) noexcept nogil:
    # The three squares of ``order`` other than order[played], in their order.
    if played == 0:
        return solve_3_sorted(s, P, O, alpha, order[1], order[2], order[3])
    if played == 1:
        return solve_3_sorted(s, P, O, alpha, order[0], order[2], order[3])
    if played == 2:
        return solve_3_sorted(s, P, O, alpha, order[0], order[1], order[3])
    return solve_3_sorted(s, P, O, alpha, order[0], order[1], order[2])


cdef int nws_shallow(Solver* s, uint64_t P, uint64_t O, int alpha, int n, int parity) noexcept nogil:
    """Returns the null-window value of (P, O) with ``n`` (5..SHALLOW) empty squares."""
    cdef uint64_t empty = ~(P | O), todo, flips, bit
    cdef int x, value, best = -INF, round
    s.nodes += 1
    for round in range(2):
        # Parity: the squares of quadrants with an odd number of empty squares first.
        todo = empty & PARITY_SQUARES[parity] if round == 0 else empty & ~PARITY_SQUARES[parity]
        while todo:
            x = first_bit(todo)
            todo &= todo - 1
            if not NEIGHBOURS[x] & O:
                continue
            flips = get_flips(x, P, O)
            if not flips:
                continue
            bit = (<uint64_t>1) << x
            if n == 5:
                value = -solve_4(s, O ^ flips, P ^ flips ^ bit, -alpha - 1, empty ^ bit)
            else:
                value = -nws_shallow(s, O ^ flips, P ^ flips ^ bit, -alpha - 1, n - 1, parity ^ QUADRANT_OF[x])
            if value > alpha:
                return value
            best = value if value > best else best
    if best > -INF:
        return best
    if get_moves(O, P) == 0:
        return final_score(P, O)
    return -nws_shallow(s, O, P, -alpha - 1, n, parity)


cdef inline int nws(Solver* s, uint64_t P, uint64_t O, int alpha, int n, int parity) noexcept nogil:
    """Returns the null-window value of (P, O) with ``n`` empty squares, by the search for that depth."""
    cdef uint64_t empty
    cdef int x1, x2
    if n > SHALLOW:
        return nws_deep(s, P, O, alpha, n, parity)
    if n >= 5:
        return nws_shallow(s, P, O, alpha, n, parity)
    empty = ~(P | O)
    if n == 4:
        return solve_4(s, P, O, alpha, empty)
    if n == 0:
        s.nodes += 1
        return final_score(P, O)
    x1 = first_bit(empty)
    if n == 1:
        return solve_1(s, P, x1)
    empty &= empty - 1
    x2 = first_bit(empty)
    if n == 2:
        return solve_2(s, P, O, alpha, x1, x2)
    empty &= empty - 1
    return solve_3_sorted(s, P, O, alpha, x1, x2, first_bit(empty))


# --- the transposition table ----------------------------------------------------------------------

cdef EndEntry* new_table(int bits) noexcept nogil:
    return <EndEntry*>calloc((<uint64_t>1) << bits, sizeof(EndEntry))


cdef inline EndEntry* find(const Solver* s, uint64_t P, uint64_t O) noexcept nogil:
    """Returns the entry of (P, O), or NULL. A position may sit in either slot of its pair."""
    cdef uint64_t h = (P * 0x9E3779B97F4A7C15ULL) ^ (O * 0xC2B2AE3D27D4EB4FULL)
    cdef EndEntry* pair = &s.table[(h ^ (h >> 29)) & s.mask & ~(<uint64_t>1)]
    if pair[0].P == P and pair[0].O == O:
        return &pair[0]
    if pair[1].P == P and pair[1].O == O:
        return &pair[1]
    return NULL


cdef inline void store(const Solver* s, uint64_t P, uint64_t O, int n, int alpha, int beta, int value,
                       int best) noexcept nogil:
    """Records what a search of (P, O) with window (alpha, beta) found: a bound, or the exact value."""
    cdef uint64_t h = (P * 0x9E3779B97F4A7C15ULL) ^ (O * 0xC2B2AE3D27D4EB4FULL)
    cdef EndEntry* pair = &s.table[(h ^ (h >> 29)) & s.mask & ~(<uint64_t>1)]
    cdef EndEntry* entry
    if pair[0].P == P and pair[0].O == O:
        entry = &pair[0]
    elif pair[1].P == P and pair[1].O == O:
        entry = &pair[1]
    else:
        # A new position takes the slot of the shallower search: deep entries save the most.
        entry = &pair[0] if pair[0].empties <= pair[1].empties else &pair[1]
        entry.P, entry.O, entry.empties = P, O, n
        entry.lower, entry.upper = -64, 64
    if value > alpha:
        entry.lower = value if value > entry.lower else entry.lower
    if value < beta:
        entry.upper = value if value < entry.upper else entry.upper
    entry.best = best


# --- move lists -------------------------------------------------------------------------------------

cdef struct Move:
    uint64_t flips
    int square
    int key             # lower first


cdef inline double order_eval(const Ordering* o, uint64_t P, uint64_t O) noexcept nogil:
    return rank_sums_difference(&o.rank_sums[0][0], P, O) + feature_sum(o.feature_weights, o.feature_mask, P, O)


cdef double order_search(const Ordering* o, uint64_t P, uint64_t O, int depth, double alpha, double beta) noexcept nogil:
    """Returns the negamax value of (P, O) by the ordering evaluation ``depth`` plies down (alpha-beta, fail-soft)."""
    cdef uint64_t moves, bit, flips
    cdef double best = -1e9, value
    cdef int x
    if depth == 0:
        return order_eval(o, P, O)
    moves = get_moves(P, O)
    if moves == 0:
        if get_moves(O, P) == 0:
            return 1000.0 * final_score(P, O)
        return -order_search(o, O, P, depth, -beta, -alpha)
    while moves:
        x = first_bit(moves)
        bit = moves & (<uint64_t>0 - moves)
        moves ^= bit
        flips = get_flips(x, P, O)
        value = -order_search(o, O ^ flips, P ^ flips ^ bit, depth - 1, -beta, -(alpha if alpha > best else best))
        if value > best:
            best = value
            if best >= beta:
                break
    return best


cdef int list_moves(uint64_t P, uint64_t O, uint64_t moves, int hint, int parity, Move* out) noexcept nogil:
    """Fills ``out`` with ``moves`` and their order keys, returns how many: fastest first.

    The key is the opponent's mobility after the move, corners counted twice
    (a move that leaves few replies is refuted or proved fastest), then
    parity; the table's best move comes first of all (add_order_keys adds
    the evaluation's view far from the end).
    """
    cdef int count = 0, x
    cdef uint64_t flips, bit, replies
    while moves:
        x = first_bit(moves)
        bit = moves & (<uint64_t>0 - moves)
        moves ^= bit
        flips = get_flips(x, P, O)
        replies = get_moves(O ^ flips, P ^ flips ^ bit)
        out[count].flips = flips
        out[count].square = x
        if x == hint:
            out[count].key = HINT_KEY
        else:
            out[count].key = (REPLY_WEIGHT * (bit_count(replies) + bit_count(replies & CORNERS))
                              + (0 if parity & QUADRANT_OF[x] else 2))
        count += 1
    return count


cdef void add_order_keys(const Solver* s, int n, uint64_t P, uint64_t O, Move* moves, int start, int count) noexcept nogil:
    """Adds to the keys of moves[start:count] (the table's best move aside) the opponent's value of each child by a
    shallow search with the ordering evaluation, when the solver has one and ``n`` is ORDER_EMPTIES or more.

    Called only once a node needs more than its table move (before its first move when it has none, after the
    table move failed to cut otherwise): a node refuted by its table move pays nothing for it.
    """
    cdef int i, depth
    cdef uint64_t bit
    cdef double value
    if s.ordering == NULL or n < ORDER_EMPTIES:
        return
    depth = (n - ORDER_DEPTH_BASE) // 2
    for i in range(start, count):
        if moves[i].key != HINT_KEY:
            bit = (<uint64_t>1) << moves[i].square
            value = order_search(s.ordering, O ^ moves[i].flips, P ^ moves[i].flips ^ bit, depth, -1e9, 1e9)
            # Kept well inside an int (an evaluation of huge weights must not overflow the key).
            value = min(max(value, -ORDER_VALUE_LIMIT), ORDER_VALUE_LIMIT)
            moves[i].key += <int>(ORDER_EVAL_WEIGHT * value)


cdef inline void bring_first(Move* moves, int i, int count) noexcept nogil:
    """Moves the lowest key of moves[i:count] to moves[i] (a selection sort, one step at a time)."""
    cdef int j, low = i
    cdef Move swap
    for j in range(i + 1, count):
        if moves[j].key < moves[low].key:
            low = j
    if low != i:
        swap = moves[i]
        moves[i] = moves[low]
        moves[low] = swap


# --- the deep searches ------------------------------------------------------------------------------

cdef int nws_deep(Solver* s, uint64_t P, uint64_t O, int alpha, int n, int parity) noexcept nogil:
    """Returns the null-window value of (P, O) with ``n`` > SHALLOW empty squares."""
    cdef Move moves[MAX_MOVES]
    cdef uint64_t legal, bit, cP, cO
    cdef int count, i, value, best = -INF, best_square = NO_MOVE, hint = NO_MOVE, bound
    cdef EndEntry* entry
    s.nodes += 1
    if solver_stops(s):
        return alpha  # void: the search was stopped
    if alpha >= STABILITY_FLOOR[n]:
        bound = 64 - 2 * bit_count(stable_discs(O, P))
        if bound <= alpha:
            return bound
    elif alpha < -STABILITY_FLOOR[n]:
        # The same from below, for a lopsided position: the mover keeps its own stable discs.
        bound = 2 * bit_count(stable_discs(P, O)) - 64
        if bound > alpha:
            return bound
    if s.table != NULL:
        entry = find(s, P, O)
        if entry != NULL:
            if entry.lower > alpha:
                return entry.lower
            if entry.upper <= alpha:
                return entry.upper
            hint = entry.best
    legal = get_moves(P, O)
    if legal == 0:
        if get_moves(O, P) == 0:
            return final_score(P, O)
        return -nws_deep(s, O, P, -alpha - 1, n, parity)
    count = list_moves(P, O, legal, hint, parity, moves)
    if s.table != NULL and n >= ETC_EMPTIES:
        # Enhanced transposition cut-off: a child the table already bounds low enough refutes at once.
        for i in range(count):
            bit = (<uint64_t>1) << moves[i].square
            entry = find(s, O ^ moves[i].flips, P ^ moves[i].flips ^ bit)
            if entry != NULL and -entry.upper > alpha:
                store(s, P, O, n, alpha, alpha + 1, -entry.upper, moves[i].square)
                return -entry.upper
    if hint == NO_MOVE:
        add_order_keys(s, n, P, O, moves, 0, count)
    for i in range(count):
        if i == 1 and hint != NO_MOVE:
            add_order_keys(s, n, P, O, moves, 1, count)
        bring_first(moves, i, count)
        bit = (<uint64_t>1) << moves[i].square
        cP = O ^ moves[i].flips
        cO = P ^ moves[i].flips ^ bit
        value = -nws(s, cP, cO, -alpha - 1, n - 1, parity ^ QUADRANT_OF[moves[i].square])
        if value > best:
            best = value
            best_square = moves[i].square
            if value > alpha:
                break
    if s.table != NULL:
        store(s, P, O, n, alpha, alpha + 1, best, best_square)
    return best


cdef int pvs_shallow(Solver* s, uint64_t P, uint64_t O, int alpha, int beta, int n, int parity) noexcept nogil:
    """Returns the value of (P, O) in the window (alpha, beta), ``n`` <= SHALLOW: the first move with the window,
    the others with a null window first (parity order, no table)."""
    cdef uint64_t empty = ~(P | O), todo, flips, bit, cP, cO
    cdef int x, value, best = -INF, round, child_parity
    if beta - alpha <= 1:
        return nws(s, P, O, alpha, n, parity)
    s.nodes += 1
    if n == 0:
        return final_score(P, O)
    for round in range(2):
        todo = empty & PARITY_SQUARES[parity] if round == 0 else empty & ~PARITY_SQUARES[parity]
        while todo:
            x = first_bit(todo)
            todo &= todo - 1
            flips = get_flips(x, P, O)
            if not flips:
                continue
            bit = (<uint64_t>1) << x
            cP, cO, child_parity = O ^ flips, P ^ flips ^ bit, parity ^ QUADRANT_OF[x]
            if best == -INF:
                value = -pvs_shallow(s, cP, cO, -beta, -alpha, n - 1, child_parity)
            else:
                value = -nws(s, cP, cO, -alpha - 1, n - 1, child_parity)
                if alpha < value < beta:
                    value = -pvs_shallow(s, cP, cO, -beta, -value + 1, n - 1, child_parity)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        return best
    if best > -INF:
        return best
    if get_moves(O, P) == 0:
        return final_score(P, O)
    return -pvs_shallow(s, O, P, -beta, -alpha, n, parity)


cdef int pvs(Solver* s, uint64_t P, uint64_t O, int alpha, int beta, int n, int parity) noexcept nogil:
    """Returns the value of (P, O) in the window (alpha, beta), exact inside it."""
    cdef Move moves[MAX_MOVES]
    cdef uint64_t legal, bit, cP, cO
    cdef int count, i, value, best = -INF, best_square = NO_MOVE, hint = NO_MOVE, alpha0 = alpha
    cdef EndEntry* entry
    if n <= SHALLOW or beta - alpha <= 1:
        return pvs_shallow(s, P, O, alpha, beta, n, parity) if n <= SHALLOW else nws(s, P, O, alpha, n, parity)
    s.nodes += 1
    if solver_stops(s):
        return alpha  # void: the search was stopped
    if s.table != NULL:
        entry = find(s, P, O)
        if entry != NULL:
            if entry.lower >= beta:
                return entry.lower
            if entry.upper <= alpha:
                return entry.upper
            if entry.lower == entry.upper:
                return entry.lower
            hint = entry.best
    legal = get_moves(P, O)
    if legal == 0:
        if get_moves(O, P) == 0:
            return final_score(P, O)
        return -pvs(s, O, P, -beta, -alpha, n, parity)
    count = list_moves(P, O, legal, hint, parity, moves)
    if hint == NO_MOVE:
        add_order_keys(s, n, P, O, moves, 0, count)
    for i in range(count):
        if i == 1 and hint != NO_MOVE:
            add_order_keys(s, n, P, O, moves, 1, count)
        bring_first(moves, i, count)
        bit = (<uint64_t>1) << moves[i].square
        cP = O ^ moves[i].flips
        cO = P ^ moves[i].flips ^ bit
        if i == 0:
            value = -pvs(s, cP, cO, -beta, -alpha, n - 1, parity ^ QUADRANT_OF[moves[i].square])
        else:
            value = -nws(s, cP, cO, -alpha - 1, n - 1, parity ^ QUADRANT_OF[moves[i].square])
            if alpha < value < beta:  # at least value: searched again from the bound the test proved
                value = -pvs(s, cP, cO, -beta, -value + 1, n - 1, parity ^ QUADRANT_OF[moves[i].square])
        if value > best:
            best = value
            best_square = moves[i].square
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    if s.table != NULL:
        store(s, P, O, n, alpha0, beta, best, best_square)
    return best


cdef inline int parity_of(uint64_t empty) noexcept nogil:
    cdef int parity = 0
    while empty:
        parity ^= QUADRANT_OF[first_bit(empty)]
        empty &= empty - 1
    return parity


cdef int solve_window(Solver* s, uint64_t P, uint64_t O, int alpha, int beta) noexcept nogil:
    cdef uint64_t empty = ~(P | O)
    return pvs(s, P, O, alpha, beta, bit_count(empty), parity_of(empty))


cdef int solve_best_moves(Solver* s, uint64_t P, uint64_t O, uint64_t legal, uint64_t* best) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef uint64_t empty = ~(P | O), bit, cP, cO
    cdef int n = bit_count(empty), parity = parity_of(empty), count, i, value, top = -INF, hint = NO_MOVE, child_parity
    cdef EndEntry* entry
    s.nodes += 1
    if s.table != NULL:
        entry = find(s, P, O)
        if entry != NULL:
            hint = entry.best
    count = list_moves(P, O, legal, hint, parity, moves)
    best[0] = 0
    add_order_keys(s, n, P, O, moves, 0, count)
    for i in range(count):
        bring_first(moves, i, count)
        bit = (<uint64_t>1) << moves[i].square
        cP = O ^ moves[i].flips
        cO = P ^ moves[i].flips ^ bit
        child_parity = parity ^ QUADRANT_OF[moves[i].square]
        if i == 0:
            top = -pvs(s, cP, cO, -INF, INF, n - 1, child_parity)
            best[0] = bit
            continue
        # Is the move worth ``top`` or more? A null window answers; only a yes needs the exact value.
        if -nws(s, cP, cO, -top, n - 1, child_parity) < top:
            continue
        value = -pvs(s, cP, cO, -INF, -top + 1, n - 1, child_parity)
        if value > top:
            top = value
            best[0] = bit
        else:
            best[0] |= bit
    if s.table != NULL:
        store(s, P, O, n, -INF, INF, top, first_bit(best[0]))
    return top


# --- Python API -------------------------------------------------------------------------------------

cdef class Endgame:
    """An exact endgame solver with its own transposition table of ``2**table_bits`` slots.

    ``Endgame().solve(player, opponent)`` returns ``(value, best_moves,
    nodes)`` for side-relative masks: the final disc difference for the side
    to move with perfect play (empty squares to the winner), the mask of
    every move of that value (0 when the side to move must pass or the game
    is over), and the positions visited. The table is cleared before each
    position, so the counts of one position do not depend on the others.
    """
    cdef Solver s
    cdef Ordering order
    cdef readonly int table_bits
    cdef uint64_t used  # the slots the searches since the last reset may have written

    def __cinit__(self, int table_bits=20):
        if not 0 <= table_bits <= 30:
            raise ValueError(f"table_bits must be in 0..30, got {table_bits}")
        self.table_bits = table_bits
        self.s.mask = 0
        self.s.nodes = 0
        self.s.checked = 0
        self.s.stopped = False
        self.s.table = NULL
        self.s.ordering = NULL
        self.used = 0
        if table_bits > 0:
            self.s.table = new_table(table_bits)
            if self.s.table == NULL:
                raise MemoryError()
            self.s.mask = ((<uint64_t>1) << table_bits) - 1

    def __dealloc__(self):
        free(self.s.table)

    def order_by(self, squares, feature_weights):
        """Orders the moves of nodes with ORDER_EMPTIES (15) or more empty squares by a shallow search with an
        evaluation: 64 square weights (a1..h8) and the weights of the six features in engine._features' order
        (mobility, frontier, stability, parity, corner_x, corner_c; 0 for a feature left out). None for the
        squares: fastest first alone. Values never depend on it; the positions searched do.
        """
        cdef int rank, byte, f
        if squares is None:
            self.s.ordering = NULL
            return
        squares = [float(w) for w in squares]
        feature_weights = [float(w) for w in feature_weights]
        if len(squares) != 64 or len(feature_weights) != 6:
            raise ValueError(f"an ordering takes 64 square weights and 6 feature weights, got {len(squares)} and "
                             f"{len(feature_weights)}")
        if not all(math.isfinite(w) for w in squares + feature_weights):
            raise ValueError("an ordering's weights must be finite numbers (found NaN or inf)")
        for rank in range(8):
            # Each byte's sum is a smaller byte's sum plus its lowest disc (as a player's tables are built).
            self.order.rank_sums[rank][0] = 0.0
            for byte in range(1, 256):
                self.order.rank_sums[rank][byte] = (self.order.rank_sums[rank][byte & (byte - 1)]
                                                    + squares[8 * rank + first_bit(<uint64_t>byte)])
        self.order.feature_mask = 0
        for f in range(6):
            self.order.feature_weights[f] = feature_weights[f]
            if feature_weights[f] != 0.0:
                self.order.feature_mask |= 1u << f
        self.s.ordering = &self.order

    cdef void reset(self, uint64_t player, uint64_t opponent) noexcept nogil:
        """Clears what the last searches wrote, and sizes the table for the position to come.

        A small position gets a part of the table: clearing all of it (48 MiB
        at 21 bits) took longer than solving a position of 14 empty squares.
        """
        cdef int bits = bit_count(~(player | opponent)) + 2
        if self.s.table != NULL:
            memset(self.s.table, 0, self.used * sizeof(EndEntry))
            bits = min(max(bits, 8), self.table_bits)
            self.s.mask = ((<uint64_t>1) << bits) - 1
            self.used = self.s.mask + 1
        self.s.nodes = 0
        self.s.checked = 0
        self.s.stopped = False

    def solve(self, uint64_t player, uint64_t opponent):
        """Returns ``(value, best_moves_mask, nodes)`` of the side-relative position."""
        _check(player, opponent)
        cdef uint64_t legal, best = 0
        cdef int value
        work_begins()
        with nogil:
            self.reset(player, opponent)
            legal = get_moves(player, opponent)
            if legal:
                value = solve_best_moves(&self.s, player, opponent, legal, &best)
            else:
                value = solve_window(&self.s, player, opponent, -INF, INF)
        work_ends()
        return value, best, self.s.nodes

    def value(self, uint64_t player, uint64_t opponent, int alpha=-INF, int beta=INF):
        """Returns ``(value, nodes)``: :func:`solve_window`'s fail-soft value in the window (alpha, beta)."""
        _check(player, opponent)
        cdef int value
        work_begins()
        with nogil:
            self.reset(player, opponent)
            value = solve_window(&self.s, player, opponent, alpha, beta)
        work_ends()
        return value, self.s.nodes

    def move_values(self, uint64_t player, uint64_t opponent):
        """Returns ``({square: value}, nodes)``: the exact value of every legal move, for the side to move."""
        _check(player, opponent)
        cdef uint64_t legal = get_moves(player, opponent), flips, bit
        cdef int square, value
        values = {}
        work_begins()
        self.reset(player, opponent)
        while legal:
            square = first_bit(legal)
            bit = legal & (<uint64_t>0 - legal)
            legal ^= bit
            flips = get_flips(square, player, opponent)
            with nogil:
                value = -solve_window(&self.s, opponent ^ flips, player ^ flips ^ bit, -INF, INF)
            work_ends()
            values[square] = value
        return values, self.s.nodes


def _check(uint64_t player, uint64_t opponent):
    if player & opponent:
        raise ValueError("player and opponent share squares")


def final(uint64_t player, uint64_t opponent):
    """Returns the final score of a finished game for ``player`` (empty squares to the winner)."""
    return final_score(player, opponent)


def last_flip_count(int square, uint64_t player):
    """Returns the discs ``player`` flips on ``square`` when it is the only empty square (for tests)."""
    if not 0 <= square < 64:
        raise ValueError(f"square must be in 0..63, got {square}")
    return last_flips(square, player) // 2

# cython: language_level=3
"""The exact endgame search: final disc differences by alpha-beta to the end of the game.

A value is the final disc difference for the side to move with perfect play by
both sides, the empty squares of a finished game counted for its winner (the
rule of the published scores, e.g. the FFO test set): always even, in
-64..64, and a win is always above any loss.
"""
from libc.stdint cimport uint64_t

cdef struct EndEntry:
    uint64_t P          # a position (side to move first); 0, 0 for an empty slot
    uint64_t O
    signed char lower   # its exact value is at least this ...
    signed char upper   # ... and at most this
    unsigned char best  # the square of the best move found there, 64 for none
    unsigned char empties  # its empty squares: deeper entries are kept over shallower ones

cdef struct Ordering:
    double rank_sums[8][256]   # the square weights' sum of each rank's byte of discs (rank_sums_difference)
    double feature_weights[6]  # each Feature's weight (engine._features), 0 for those not in feature_mask
    unsigned feature_mask      # bit f: Feature f is weighed

cdef struct Solver:
    EndEntry* table     # the transposition table, ``mask + 1`` slots (a power of two); NULL for none
    const Ordering* ordering  # the evaluation that orders the moves far from the end; NULL: fastest first alone
    uint64_t mask
    uint64_t nodes      # positions visited, passes included
    uint64_t checked    # ``nodes`` when the search last asked whether to stop (engine_stop)
    bint stopped        # the search was stopped (Ctrl-C): its values are void

# Returns the final disc difference of a finished game for the side to move, empty squares to the winner.
cdef int final_score(uint64_t P, uint64_t O) noexcept nogil
# Returns the exact value of (P, O) when it lies strictly inside (alpha, beta); otherwise a bound
# on the same side (fail-soft). -64 <= alpha < beta <= 64 is not required: any window works.
cdef int solve_window(Solver* s, uint64_t P, uint64_t O, int alpha, int beta) noexcept nogil
# Returns the exact value of (P, O), P to move with ``moves`` (its legal moves, not 0), and puts in
# ``best`` the mask of every move of that value.
cdef int solve_best_moves(Solver* s, uint64_t P, uint64_t O, uint64_t moves, uint64_t* best) noexcept nogil
# Returns a transposition table of 2**bits slots (NULL when out of memory), for Solver.table; free() it.
cdef EndEntry* new_table(int bits) noexcept nogil

# Says whether engine work must end now (Ctrl-C, SIGTERM): a signal's handler raised, or asked the engine to
# stop (stop_work). ``work`` is what the caller did since it last asked (moves played, positions searched); on
# the main thread the signal handlers run, with the GIL, once 2**16 of it has accumulated.
cdef bint engine_stop(uint64_t work) noexcept nogil
# Called by each Python entry point before its engine work, with the GIL: on the main thread, work starts
# unstopped (a stop applies to the work in progress when it is asked for).
cdef int work_begins() except -1
# Called by each Python entry point after its engine work, with the GIL: raises what stopped it, if anything
# did (the handler's KeyboardInterrupt on the main thread, Interrupted elsewhere or when only asked to stop).
cdef int work_ends() except -1

# cython: language_level=3
"""Bitboard core: move generation and flips on two side-relative uint64 masks.

A position is ``(P, O)``: the discs of the player to move and of the opponent.
Square ``s`` is bit ``s``: a1 = 0 (top-left), h1 = 7, a8 = 56, h8 = 63.
Making a move is ``P ^= flips | bit; O ^= flips`` followed by a swap (Edax).
"""
from libc.stdint cimport uint64_t

cdef extern from "bitops.h" nogil:
    const uint64_t INNER_FILES      # every file but a and h (stops wrap-around)
    const uint64_t FILE_A           # a1..a8
    const uint64_t FILE_TO_BYTE     # ((x & FILE_A) * FILE_TO_BYTE) >> 56: file a as a byte, rank k at bit k
    const uint64_t CORNERS          # a1, h1, a8, h8
    const uint64_t START_BLACK      # d5, e4
    const uint64_t START_WHITE      # d4, e5
    int bit_count(uint64_t x)       # population count
    int bit_count_difference(uint64_t a, uint64_t b)  # bit_count(a) - bit_count(b), one pass
    const bint HAVE_SSE2_MOBILITY   # sse2_mobility_difference is available (every x86-64)
    int sse2_mobility_difference(uint64_t P, uint64_t O)  # P's legal moves minus O's, in one pass
    int first_bit(uint64_t x)       # index of the lowest set bit, x != 0
    int last_bit(uint64_t x)        # index of the highest set bit, x != 0
    uint64_t LINES[64][8]           # rays from each square, see bitops.h
    const bint HAVE_SSE2_MOVES      # sse2_moves is available (every x86-64)
    uint64_t sse2_moves(uint64_t P, uint64_t O)
    void sse2_vertical_flips(uint64_t P, uint64_t O, uint64_t* flipped)
    void init_line_pairs()
    uint64_t sse2_vertical_move_flips(int square, uint64_t P, uint64_t O)
    # Lookups by the eight bytes of a board (see bitops.h)
    double rank_sums_difference(const double* sums, uint64_t P, uint64_t O)
    double rank_sums_total(const double* sums, uint64_t discs)


cdef inline uint64_t _run_up(uint64_t P, uint64_t mask, int d) noexcept nogil:
    # Kogge-Stone fill with doubling (Edax): the masked discs in runs of 1-2,
    # then 4, then 6 that start next to P; ``pairs``: two masked squares in a row.
    cdef uint64_t t = mask & (P << d)
    cdef uint64_t pairs = mask & (mask << d)
    t |= mask & (t << d)
    t |= pairs & (t << (2 * d))
    t |= pairs & (t << (2 * d))
    return t


cdef inline uint64_t _run_down(uint64_t P, uint64_t mask, int d) noexcept nogil:
    cdef uint64_t t = mask & (P >> d)
    cdef uint64_t pairs = mask & (mask >> d)
    t |= mask & (t >> d)
    t |= pairs & (t >> (2 * d))
    t |= pairs & (t >> (2 * d))
    return t


cdef inline uint64_t _moves_up(uint64_t P, uint64_t mask, int d) noexcept nogil:
    return _run_up(P, mask, d) << d


cdef inline uint64_t _moves_down(uint64_t P, uint64_t mask, int d) noexcept nogil:
    return _run_down(P, mask, d) >> d


cdef inline bint mixed_pair_on_rank(uint64_t P, uint64_t O) noexcept nogil:
    """Returns whether an empty square lies next to two discs of different colours on its rank.

    Such a square is a legal move for the owner of the far disc, so True is a
    cheap proof that the game goes on; False proves nothing. A mixed pair
    (s, s + 1) has its move at s - 1 or s + 2. Ranks alone prove most
    positions: the other directions cost more than the full move generation
    they would save (callgrind, docs/search.md).
    """
    cdef uint64_t filled = P | O
    cdef uint64_t pair = filled & (filled >> 1) & (P ^ (P >> 1))
    # The move at s - 1 needs s off file a; at s + 2, s off files g and h (the masks also keep s off file h).
    return (~filled & (((pair & 0x7E7E7E7E7E7E7E7EULL) >> 1) | ((pair & 0x3F3F3F3F3F3F3F3FULL) << 2))) != 0


cdef inline uint64_t get_moves(uint64_t P, uint64_t O) noexcept nogil:
    """Returns the mask of P's legal moves."""
    # SSE2 (every x86-64): fewer instructions in perft and games (docs/engine.md).
    if HAVE_SSE2_MOVES:
        return sse2_moves(P, O)
    return portable_moves(P, O)


cdef inline uint64_t portable_moves(uint64_t P, uint64_t O) noexcept nogil:
    """Returns the mask of P's legal moves, one direction at a time (any CPU)."""
    cdef uint64_t inner = O & INNER_FILES
    cdef uint64_t moves = (
        _moves_up(P, inner, 1) | _moves_down(P, inner, 1)
        | _moves_up(P, O, 8) | _moves_down(P, O, 8)
        | _moves_up(P, inner, 7) | _moves_down(P, inner, 7)
        | _moves_up(P, inner, 9) | _moves_down(P, inner, 9)
    )
    return moves & ~(P | O)


cdef inline uint64_t _flips_above(uint64_t line, uint64_t P, uint64_t O) noexcept nogil:
    # ``line``: the squares of one line beyond the move, at higher indices.
    # The nearest square that is not an opponent disc closes the run when it is P's.
    cdef uint64_t stop = line & ~O
    cdef uint64_t first = stop & (<uint64_t>0 - stop)
    return (first - 1) & line & (<uint64_t>0 - <uint64_t>((first & P) != 0))


cdef inline uint64_t _flips_below(uint64_t line, uint64_t P, uint64_t O) noexcept nogil:
    # The same towards lower indices: the nearest stop is the highest bit.
    cdef uint64_t stop = line & ~O
    cdef uint64_t last = (<uint64_t>1) << last_bit(stop | 1)
    return line & (<uint64_t>0 - (last << 1)) & (<uint64_t>0 - <uint64_t>((last & stop & P) != 0))


cdef inline void init_lines() noexcept nogil:
    """Fills LINES; every module that uses get_flips calls it once at import."""
    cdef int square, k, file, rank
    cdef int step_file[8]
    cdef int step_rank[8]
    step_file[:] = [1, 0, -1, 1, -1, 0, 1, -1]
    step_rank[:] = [0, 1, 1, 1, 0, -1, -1, -1]
    for square in range(64):
        for k in range(8):
            LINES[square][k] = 0
            file = square % 8 + step_file[k]
            rank = square // 8 + step_rank[k]
            while 0 <= file < 8 and 0 <= rank < 8:
                LINES[square][k] |= (<uint64_t>1) << (rank * 8 + file)
                file += step_file[k]
                rank += step_rank[k]
    init_line_pairs()


cdef inline uint64_t get_flips(int square, uint64_t P, uint64_t O) noexcept nogil:
    """Returns the discs P flips by playing on ``square`` (0 if it flips none)."""
    cdef const uint64_t* line = LINES[square]
    if HAVE_SSE2_MOVES:  # the six other rays two at a time, all of them scanned upwards
        return (_flips_above(line[0], P, O) | _flips_below(line[4], P, O)
                | sse2_vertical_move_flips(square, P, O))
    return portable_flips(square, P, O)


cdef inline uint64_t portable_flips(int square, uint64_t P, uint64_t O) noexcept nogil:
    """Returns :func:`get_flips` one ray at a time (any CPU)."""
    cdef const uint64_t* line = LINES[square]
    return (
        _flips_above(line[0], P, O) | _flips_above(line[1], P, O)
        | _flips_above(line[2], P, O) | _flips_above(line[3], P, O)
        | _flips_below(line[4], P, O) | _flips_below(line[5], P, O)
        | _flips_below(line[6], P, O) | _flips_below(line[7], P, O)
    )


cdef inline uint64_t _flipped_up(uint64_t P, uint64_t mask, uint64_t empty, int d) noexcept nogil:
    # Discs flipped in direction +d by any legal move: the runs from P whose
    # next square is empty (each disc belongs to one move in one direction).
    cdef uint64_t run = _run_up(P, mask, d)
    return run & _run_down((run << d) & empty, mask, d)


cdef inline uint64_t _flipped_down(uint64_t P, uint64_t mask, uint64_t empty, int d) noexcept nogil:
    cdef uint64_t run = _run_down(P, mask, d)
    return run & _run_up((run >> d) & empty, mask, d)


cdef inline void all_flips(uint64_t P, uint64_t O, uint64_t* flipped) noexcept nogil:
    """Fills ``flipped[0..7]``: per direction, the discs that some legal move of P flips.

    Summing over the eight masks counts each (move, flipped disc) pair once,
    which scores all moves of a position at once without playing them.
    """
    if HAVE_SSE2_MOVES:  # six of the directions two at a time
        _horizontal_flipped(P, O, flipped)
        sse2_vertical_flips(P, O, flipped)
        return
    portable_all_flips(P, O, flipped)


cdef inline void portable_all_flips(uint64_t P, uint64_t O, uint64_t* flipped) noexcept nogil:
    """Fills :func:`all_flips`'s masks one direction at a time (any CPU)."""
    cdef uint64_t inner = O & INNER_FILES, empty = ~(P | O)
    _horizontal_flipped(P, O, flipped)
    flipped[2] = _flipped_up(P, O, empty, 8)
    flipped[3] = _flipped_down(P, O, empty, 8)
    flipped[4] = _flipped_up(P, inner, empty, 7)
    flipped[5] = _flipped_down(P, inner, empty, 7)
    flipped[6] = _flipped_up(P, inner, empty, 9)
    flipped[7] = _flipped_down(P, inner, empty, 9)


cdef inline void _horizontal_flipped(uint64_t P, uint64_t O, uint64_t* flipped) noexcept nogil:
    # +1 and -1: mirroring the board top to bottom does not turn one into the other.
    cdef uint64_t inner = O & INNER_FILES, empty = ~(P | O)
    flipped[0] = _flipped_up(P, inner, empty, 1)
    flipped[1] = _flipped_down(P, inner, empty, 1)


cdef uint64_t perft_c(uint64_t P, uint64_t O, int depth) noexcept nogil

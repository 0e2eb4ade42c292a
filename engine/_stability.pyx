# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Stable discs by three rules, each sound on its own (Edax's ``get_stability``).

- **Edges**: a disc on an edge can only be flipped along that edge (it ends
  every other line through it), so whether it is stable is a question about
  the edge's 8 squares alone. ``EDGE_STABLE`` answers it for all 3^8 edges by
  trying every sequence of edge moves by either side (a move on an edge
  square may flip nothing along the edge: it can be legal through another
  line).
- **Full lines**: a disc whose four lines are all full can never be flipped.
- **Neighbours**: an inner disc is stable when, on each of its four lines,
  the line is full or one of its two neighbours there is a stable disc of
  the same colour (a run that flipped it would have to flip that neighbour
  too). Applied until nothing changes.
"""
from libc.stdint cimport uint64_t

from engine._bitboard cimport FILE_A, FILE_TO_BYTE, bit_count

# EDGE_STABLE[p][o]: the squares of an edge (bit k = the k-th square) whose discs never flip.
cdef unsigned char EDGE_STABLE[256][256]
# BYTE_TO_FILE[b]: byte b laid out on file a (bit k to square 8k).
cdef uint64_t BYTE_TO_FILE[256]
# The 15 diagonals of each direction, as masks.
cdef uint64_t DIAGONALS_9[15]  # file - rank constant (a1-h8 direction)
cdef uint64_t DIAGONALS_7[15]  # file + rank constant (h1-a8 direction)


cdef unsigned char edge_flips(int square, unsigned char p, unsigned char o) noexcept nogil:
    """Returns the discs of ``o`` that p flips along the edge by playing ``square``."""
    cdef unsigned char flips = 0, run
    cdef int k
    run = 0
    k = square + 1
    while k < 8 and o >> k & 1:
        run |= 1 << k
        k += 1
    if k < 8 and p >> k & 1:
        flips |= run
    run = 0
    k = square - 1
    while k >= 0 and o >> k & 1:
        run |= 1 << k
        k -= 1
    if k >= 0 and p >> k & 1:
        flips |= run
    return flips


cdef int edge_stable(int p, int o, short* memo) noexcept nogil:
    """Returns the stable squares of edge (p, o), memoised in ``memo[p * 256 + o]``."""
    cdef int square, empty = ~(p | o) & 255, stable, flips
    cdef int key = p * 256 + o
    if memo[key] >= 0:
        return memo[key]
    stable = p | o
    for square in range(8):
        if not empty >> square & 1:
            continue
        flips = edge_flips(square, <unsigned char>p, <unsigned char>o)
        stable &= edge_stable(p | flips | (1 << square), o & ~flips, memo) & ~flips
        flips = edge_flips(square, <unsigned char>o, <unsigned char>p)
        stable &= edge_stable(p & ~flips, o | flips | (1 << square), memo) & ~flips
    memo[key] = <short>stable
    return stable


cdef void init_tables() noexcept:
    cdef short memo[65536]
    cdef int p, o, k, d, file, rank
    for p in range(65536):
        memo[p] = -1
    for p in range(256):
        BYTE_TO_FILE[p] = 0
        for k in range(8):
            if p >> k & 1:
                BYTE_TO_FILE[p] |= (<uint64_t>1) << (8 * k)
        for o in range(256):
            EDGE_STABLE[p][o] = 0 if p & o else <unsigned char>edge_stable(p, o, memo)
    for d in range(15):
        DIAGONALS_9[d] = 0
        DIAGONALS_7[d] = 0
        for rank in range(8):
            file = rank + d - 7
            if 0 <= file < 8:
                DIAGONALS_9[d] |= (<uint64_t>1) << (8 * rank + file)
            file = d - rank
            if 0 <= file < 8:
                DIAGONALS_7[d] |= (<uint64_t>1) << (8 * rank + file)


init_tables()


cdef inline int file_byte(uint64_t x, int file) noexcept nogil:
    return <int>((((x >> file) & FILE_A) * FILE_TO_BYTE) >> 56)


cdef uint64_t stable_edges(uint64_t P, uint64_t O) noexcept nogil:
    """Returns the squares of the four edges whose discs never flip."""
    return (
        <uint64_t>EDGE_STABLE[P & 255][O & 255]
        | (<uint64_t>EDGE_STABLE[P >> 56][O >> 56]) << 56
        | BYTE_TO_FILE[EDGE_STABLE[file_byte(P, 0)][file_byte(O, 0)]]
        | BYTE_TO_FILE[EDGE_STABLE[file_byte(P, 7)][file_byte(O, 7)]] << 7
    )


cdef uint64_t stable_discs(uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t filled = P | O, full_h = 0, full_v, full_7 = 0, full_9 = 0, stable, before
    cdef uint64_t inner = P & 0x007E7E7E7E7E7E00ULL  # b2..g7
    cdef int k
    for k in range(8):
        if (filled >> (8 * k)) & 255 == 255:
            full_h |= (<uint64_t>255) << (8 * k)
    full_v = filled & (filled >> 32)
    full_v &= full_v >> 16
    full_v &= full_v >> 8
    full_v = (full_v & 255) * FILE_A
    for k in range(15):
        if filled & DIAGONALS_9[k] == DIAGONALS_9[k]:
            full_9 |= DIAGONALS_9[k]
        if filled & DIAGONALS_7[k] == DIAGONALS_7[k]:
            full_7 |= DIAGONALS_7[k]
    stable = (stable_edges(P, O) & P) | (inner & full_h & full_v & full_7 & full_9)
    if stable == 0:
        return 0
    while True:
        before = stable
        stable |= inner & ((stable >> 1) | (stable << 1) | full_h) & ((stable >> 8) | (stable << 8) | full_v) \
            & ((stable >> 7) | (stable << 7) | full_7) & ((stable >> 9) | (stable << 9) | full_9)
        if stable == before:
            return stable


def stable(player, opponent):
    """Returns the mask of ``player``'s stable discs (see :func:`stable_discs`)."""
    return stable_discs(player, opponent)


def stable_count(player, opponent):
    """Returns how many of ``player``'s discs are stable."""
    return bit_count(stable_discs(player, opponent))

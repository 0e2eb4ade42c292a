# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Python shims over the bitboard core, and perft."""
from libc.stdint cimport uint64_t

_FULL = (1 << 64) - 1

init_lines()


cdef uint64_t perft_c(uint64_t P, uint64_t O, int depth) noexcept nogil:
    """Counts the leaves ``depth`` plies below (P, O); a pass is a ply, a finished game a leaf."""
    cdef uint64_t moves, bit, flips, child, nodes = 0
    if depth == 0:
        return 1
    moves = get_moves(P, O)
    if moves == 0:
        if get_moves(O, P) == 0:
            return 1
        return perft_c(O, P, depth - 1)
    if depth == 1:
        return <uint64_t>bit_count(moves)
    if depth == 2:
        # Bulk-count the last ply here rather than one call per child: a
        # child with no move is one leaf whether it passes or the game ends.
        while moves:
            bit = moves & (<uint64_t>0 - moves)
            flips = get_flips(first_bit(bit), P, O)
            child = get_moves(O ^ flips, P ^ flips ^ bit)
            nodes += <uint64_t>bit_count(child) if child else 1
            moves ^= bit
        return nodes
    while moves:
        bit = moves & (<uint64_t>0 - moves)
        flips = get_flips(first_bit(bit), P, O)
        nodes += perft_c(O ^ flips, P ^ flips ^ bit, depth - 1)
        moves ^= bit
    return nodes


def _mask(value, name):
    if not 0 <= value <= _FULL:
        raise ValueError(f"{name} must be a 64-bit mask, got {value!r}")
    return value


def moves(player, opponent):
    """Returns the mask of ``player``'s legal moves."""
    return get_moves(_mask(player, "player"), _mask(opponent, "opponent"))


def _portable_moves(player, opponent):
    """Returns :func:`moves` computed by the fallback for CPUs without SSE2 (for tests)."""
    return portable_moves(_mask(player, "player"), _mask(opponent, "opponent"))


def _mixed_pair_on_rank(player, opponent):
    """Returns the search's quick proof that the game goes on (for tests): see ``mixed_pair_on_rank``."""
    return mixed_pair_on_rank(_mask(player, "player"), _mask(opponent, "opponent"))


def all_flipped(player, opponent):
    """Returns, per direction (+1, -1, +8, -8, +7, -7, +9, -9), the discs some legal move of ``player`` flips."""
    cdef uint64_t flipped[8]
    all_flips(_mask(player, "player"), _mask(opponent, "opponent"), flipped)
    return [flipped[k] for k in range(8)]


def _portable_all_flipped(player, opponent):
    """Returns :func:`all_flipped` computed by the fallback for CPUs without SSE2 (for tests)."""
    cdef uint64_t flipped[8]
    portable_all_flips(_mask(player, "player"), _mask(opponent, "opponent"), flipped)
    return [flipped[k] for k in range(8)]


def flips(square, player, opponent):
    """Returns the mask of discs flipped by ``player`` playing ``square`` (0 if illegal)."""
    if not 0 <= square < 64:
        raise ValueError(f"square must be in 0..63, got {square!r}")
    cdef uint64_t P = _mask(player, "player"), O = _mask(opponent, "opponent")
    if (P | O) >> square & 1:
        return 0  # an occupied square is no move (the C core is only asked about legal ones)
    return get_flips(square, P, O)


def _portable_flips(square, player, opponent):
    """Returns :func:`flips` computed by the fallback for CPUs without SSE2 (for tests)."""
    if not 0 <= square < 64:
        raise ValueError(f"square must be in 0..63, got {square!r}")
    cdef uint64_t P = _mask(player, "player"), O = _mask(opponent, "opponent")
    if (P | O) >> square & 1:
        return 0
    return portable_flips(square, P, O)


def popcount(mask):
    """Returns the number of set bits of a 64-bit mask."""
    return bit_count(_mask(mask, "mask"))


def perft(player, opponent, int depth):
    """Counts leaf positions ``depth`` plies below the side-relative position (player, opponent)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    cdef uint64_t P = _mask(player, "player"), O = _mask(opponent, "opponent")
    cdef uint64_t nodes
    with nogil:
        nodes = perft_c(P, O, depth)
    return nodes

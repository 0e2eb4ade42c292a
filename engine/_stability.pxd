# cython: language_level=3
"""Stable discs: discs that no sequence of moves can ever flip.

The endgame search cuts with them (the opponent keeps at least its stable
discs, which caps the mover's final score), and an evaluation can count them.
"""
from libc.stdint cimport uint64_t

# Returns the mask of P's discs that can never be flipped, whatever both sides play: a subset of
# the truly stable discs, exact by construction (every disc it names is stable; a few stable discs
# are missed). See _stability.pyx for the three rules it combines.
cdef uint64_t stable_discs(uint64_t P, uint64_t O) noexcept nogil

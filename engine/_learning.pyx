# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""TD(0) self-play learning of pattern networks in C (engine/_learning.pxd says what it does).

Temporal-difference learning with a tanh output, on positions after a move
(afterstates), is how the n-tuple networks of Szubert, Jaskowski and Krawiec
(2013: TDL, and CTDL, coevolution with a TD step) were learnt; the network's
sum is the engine's evaluation, and tanh, being monotone, changes no move the
engine plays with it. Each copy keeps its index for both colours along the
game (each colour's discs read as 1), updated by the squares a move changes,
as the engine's frames do; a move's value is the current sum plus the gain of
the copies it changes.
"""
import numpy as np

from libc.math cimport tanh
from libc.stdint cimport int32_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from engine._bitboard cimport (
    START_BLACK, START_WHITE, bit_count, first_bit, get_flips, get_moves, init_lines,
)

init_lines()

#: The most copies of a network this learner takes.
COPY_LIMIT = MAX_COPIES


cdef inline uint64_t next_random(uint64_t* state) noexcept nogil:
    # splitmix64, as the engine's games draw (engine/_players.pyx).
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int below(uint64_t* state, int n) noexcept nogil:
    return <int>(((next_random(state) >> 32) * <uint64_t>n) >> 32)


cdef inline double uniform(uint64_t* state) noexcept nogil:
    return <double>(next_random(state) >> 11) * (1.0 / 9007199254740992.0)


cdef inline void move_digits(const Learner* learner, uint16_t* own, uint16_t* other, int square, int to_own,
                             int to_other) noexcept nogil:
    # Adds to_own (to_other) times the square's place to each copy's index in the mover's own encoding (the
    # other colour's).
    cdef int u
    for u in range(learner.first[square], learner.first[square + 1]):
        own[learner.updates[u].copy] = <uint16_t>(own[learner.updates[u].copy] + to_own * learner.updates[u].place)
        other[learner.updates[u].copy] = <uint16_t>(other[learner.updates[u].copy]
                                                    + to_other * learner.updates[u].place)


cdef inline double network_sum(const Learner* learner, const double* weights, const uint16_t* index,
                               int phase) noexcept nogil:
    cdef double total = 0.0
    cdef int c
    for c in range(learner.n_copies):
        total += weights[learner.base[c] + phase * learner.step[c] + index[c]]
    return total


cdef inline void nudge(const Learner* learner, double* weights, const uint16_t* index, int phase,
                       double amount) noexcept nogil:
    cdef int c
    for c in range(learner.n_copies):
        weights[learner.base[c] + phase * learner.step[c] + index[c]] += amount


cdef inline double move_gain(const Learner* learner, const double* weights, const uint16_t* index, int phase,
                             int square, uint64_t flips, int32_t* delta, int32_t* touched) noexcept nogil:
    """Returns what the network's sum (the mover's discs as 1) gains when the mover plays ``square``."""
    cdef int u, c, n = 0
    cdef uint64_t rest = flips
    cdef double gain = 0.0
    cdef const double* table
    # The new disc goes from 0 to 1, each flipped one from 2 to 1: each copy's change gathered, then read once.
    for u in range(learner.first[square], learner.first[square + 1]):
        c = learner.updates[u].copy
        touched[n] = c
        n += delta[c] == 0
        delta[c] += learner.updates[u].place
    while rest:
        square = first_bit(rest)
        rest &= rest - 1
        for u in range(learner.first[square], learner.first[square + 1]):
            c = learner.updates[u].copy
            touched[n] = c
            n += delta[c] == 0
            delta[c] -= learner.updates[u].place
    for u in range(n):
        c = touched[u]
        table = weights + learner.base[c] + phase * learner.step[c] + index[c]
        gain += table[delta[c]] - table[0]
        delta[c] = 0
    return gain


cdef long td_self_play(const Learner* learner, double* weights, long games, uint64_t seed, double alpha,
                       double eps) noexcept nogil:
    cdef int n = learner.n_copies, side, phase, square, choice, ties, s, k, c
    cdef uint64_t P, O, moves, rest, flips, bit, rng = seed
    cdef double base, value, best, chosen_value, previous, delta_value, result
    cdef long game, balance = 0
    cdef bint has_previous[2]
    cdef int previous_phase[2]
    # index[c]: each copy's index with colour c's discs as 1; previous[s]: side s's last position after its move.
    cdef uint16_t* memory = <uint16_t*>malloc(4 * n * sizeof(uint16_t) + 2 * n * sizeof(int32_t))
    if memory == NULL:
        return 0
    cdef uint16_t* index[2]
    cdef uint16_t* last[2]
    index[0], index[1], last[0], last[1] = memory, memory + n, memory + 2 * n, memory + 3 * n
    cdef int32_t* delta = <int32_t*>(memory + 4 * n)
    cdef int32_t* touched = delta + n
    for c in range(n):
        delta[c] = 0
    for game in range(games):
        P, O, side = START_BLACK, START_WHITE, 0
        for c in range(n):
            index[0][c] = 0
            index[1][c] = 0
        # The four centre discs, as moves from an empty board would place them.
        rest = START_BLACK
        while rest:
            square = first_bit(rest)
            rest &= rest - 1
            move_digits(learner, index[0], index[1], square, 1, 2)
        rest = START_WHITE
        while rest:
            square = first_bit(rest)
            rest &= rest - 1
            move_digits(learner, index[1], index[0], square, 1, 2)
        has_previous[0] = has_previous[1] = False
        while True:
            moves = get_moves(P, O)
            if moves == 0:
                if get_moves(O, P) == 0:
                    break
                P, O = O, P
                side ^= 1
                continue
            phase = learner.phase_of[63 - bit_count(P | O)]  # the positions after the move
            base = network_sum(learner, weights, index[side], phase)
            choice = -1
            best = 0.0
            ties = 0
            if eps > 0.0 and uniform(&rng) < eps:
                k = below(&rng, bit_count(moves))
                rest = moves
                for s in range(k):
                    rest &= rest - 1
                choice = first_bit(rest)
                chosen_value = base + move_gain(learner, weights, index[side], phase, choice,
                                                get_flips(choice, P, O), delta, touched)
            else:
                rest = moves
                while rest:
                    square = first_bit(rest)
                    rest &= rest - 1
                    value = base + move_gain(learner, weights, index[side], phase, square, get_flips(square, P, O),
                                             delta, touched)
                    if choice < 0 or value > best:
                        choice, best, ties = square, value, 1
                    elif value == best:
                        ties += 1
                        if below(&rng, ties) == 0:
                            choice = square
                chosen_value = best
            bit = (<uint64_t>1) << choice
            flips = get_flips(choice, P, O)
            move_digits(learner, index[side], index[side ^ 1], choice, 1, 2)
            rest = flips
            while rest:
                square = first_bit(rest)
                rest &= rest - 1
                move_digits(learner, index[side], index[side ^ 1], square, -1, 1)
            value = tanh(chosen_value)
            if has_previous[side]:
                previous = tanh(network_sum(learner, weights, last[side], previous_phase[side]))
                nudge(learner, weights, last[side], previous_phase[side],
                      alpha * (value - previous) * (1.0 - previous * previous))
            memcpy(last[side], index[side], n * sizeof(uint16_t))
            previous_phase[side] = phase
            has_previous[side] = True
            P, O = O ^ flips, P ^ flips ^ bit
            side ^= 1
        # P is the side to move's: the result for black.
        result = <double>(bit_count(P) - bit_count(O)) if side == 0 else <double>(bit_count(O) - bit_count(P))
        balance += (result > 0) - (result < 0)
        for s in range(2):
            if has_previous[s]:
                delta_value = (1.0 if result > 0 else (-1.0 if result < 0 else 0.0)) * (1 if s == 0 else -1)
                previous = tanh(network_sum(learner, weights, last[s], previous_phase[s]))
                nudge(learner, weights, last[s], previous_phase[s],
                      alpha * (delta_value - previous) * (1.0 - previous * previous))
    free(memory)
    return balance


cdef class TDLearner:
    """TD(0) self-play learning for networks of one structure (engine/patterns.py's PatternNetwork: its copies and
    phases; "invert" colours, the side-relative kind this project evolves)."""
    cdef Learner learner
    cdef int32_t* base
    cdef int32_t* step
    cdef CopyUpdate* updates
    cdef readonly int n_weights

    def __cinit__(self):
        self.base = NULL
        self.step = NULL
        self.updates = NULL

    def __dealloc__(self):
        free(self.base)
        free(self.step)
        free(self.updates)

    def __init__(self, copies_of, phases, str colours="invert"):
        if colours != "invert":
            raise ValueError("TD learning takes an invert network (each side's own discs as 1), got " + colours)
        phases = [int(p) for p in phases]
        sizes = [len(copies[0]) for copies in copies_of]
        cdef int n_copies = sum(len(copies) for copies in copies_of), c = 0, q, u, j
        if not 1 <= n_copies <= MAX_COPIES:
            raise ValueError(f"TD learning takes networks of 1..{MAX_COPIES} copies, got {n_copies}")
        bases = np.cumsum([0] + [3 ** n * len(phases) for n in sizes])
        self.n_weights = int(bases[-1])
        per_square = [[] for _ in range(64)]
        self.base = <int32_t*>malloc(n_copies * sizeof(int32_t))
        self.step = <int32_t*>malloc(n_copies * sizeof(int32_t))
        for number, copies in enumerate(copies_of):
            for copy in copies:
                self.base[c] = bases[number]
                self.step[c] = 3 ** sizes[number]
                for j, q in enumerate(copy):
                    per_square[q].append((c, 3 ** (sizes[number] - 1 - j)))
                c += 1
        n_updates = sum(len(entries) for entries in per_square)
        self.updates = <CopyUpdate*>malloc(max(n_updates, 1) * sizeof(CopyUpdate))
        if self.base == NULL or self.step == NULL or self.updates == NULL:
            raise MemoryError()
        u = 0
        for q in range(64):
            self.learner.first[q] = u
            for copy_number, place in per_square[q]:
                self.updates[u].copy = copy_number
                self.updates[u].place = place
                u += 1
        self.learner.first[64] = u
        self.learner.n_copies = n_copies
        self.learner.n_phases = len(phases)
        for e in range(61):
            self.learner.phase_of[e] = max(k for k, start in enumerate(phases) if e <= start)
        self.learner.base = self.base
        self.learner.step = self.step
        self.learner.updates = self.updates

    def train(self, double[::1] weights, long games, uint64_t seed, double alpha=0.01, double eps=0.1):
        """Learns ``weights`` (a network's vector, changed in place) from ``games`` self-play games; returns the
        games black won less those white won. The GIL is released: networks learn on threads side by side."""
        if weights.shape[0] != self.n_weights:
            raise ValueError(f"the network has {self.n_weights} weights, got {weights.shape[0]}")
        if games < 0 or not alpha > 0 or not 0.0 <= eps <= 1.0:
            raise ValueError("games >= 0, alpha > 0 and eps in [0, 1]")
        cdef long balance
        with nogil:
            balance = td_self_play(&self.learner, &weights[0], games, seed, alpha, eps)
        return balance

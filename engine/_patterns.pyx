# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Pattern evaluations at C level: a compiled network and its frames (engine/_patterns.pxd says how).

engine/patterns.py groups a network's copies and merges their tables;
:class:`PatternTables` quantises the merged tables and lays them out for the
engine's players.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint16_t, uint32_t, uint64_t
from libc.math cimport INFINITY, fabs, nearbyint
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from engine._bitboard cimport bit_count, get_flips, init_lines

cdef extern from "pattern_index.h" nogil:
    const int PATTERN_MAX_SQUARES
    const bint HAVE_PATTERN_BMI2
    void pattern_init_ternary()
    bint pattern_bmi2_ready()
    void pattern_indices_portable(const uint64_t* masks, int n, uint64_t black, uint64_t white,
                                  uint16_t* index_black, uint16_t* index_white)
    void pattern_indices_bmi2(const uint64_t* masks, int n, uint64_t black, uint64_t white,
                              uint16_t* index_black, uint16_t* index_white)

init_lines()
pattern_init_ternary()
# Whether this CPU gathers a group's squares by pext (pattern_index.h).
cdef bint BMI2 = HAVE_PATTERN_BMI2 and pattern_bmi2_ready()

#: The most squares of a group (and of a tuple), and the most groups of a network.
MAX_SQUARES = PATTERN_MAX_SQUARES
GROUP_LIMIT = MAX_GROUPS
# The largest sum of entries' magnitudes over a network's groups: every sum fits an int32 with room to spare.
DEF ENTRY_BUDGET = 1073741824.0  # 2**30


cdef void frame_from_board(const PatternNet* net, PatternFrame* frame, uint64_t P, uint64_t O, int colour,
                           int32_t* changes) noexcept nogil:
    cdef uint64_t black = P if colour == 0 else O
    cdef uint64_t white = O if colour == 0 else P
    cdef int g
    frame.colour = colour
    frame.changes = changes
    if changes != NULL:
        for g in range(net.n_groups):
            changes[g] = 0
    if BMI2:
        pattern_indices_bmi2(net.masks, net.n_groups, black, white, frame.index[0], frame.index[1])
    else:
        pattern_indices_portable(net.masks, net.n_groups, black, white, frame.index[0], frame.index[1])


cdef class PatternLayout:
    """A network's structure compiled once, for the tables of any weights of it (a population's networks).

    ``masks`` holds each group's squares (a bitboard each); ``contributions[g]``
    (an integer array of 3**popcount(masks[g]) rows, one column per copy
    merged into group g) holds, for each index of the group (the index of
    engine/_patterns.pxd), the place in a network's weight vector of each
    copy's entry in the first phase, and ``steps[g]`` (one per column) how far
    that copy's tuple's table for the next phase lies; ``phase_of[e]`` is the
    phase of a position with e empty squares; ``negate`` the colour
    convention; ``n_weights`` the length of a weight vector.
    """
    def __cinit__(self):
        self.offsets = NULL
        self.masks = NULL
        self.updates = NULL
        self.members = NULL
        self.map_start = NULL
        self.map_index = NULL
        self.step_start = NULL
        self.map_step = NULL

    def __dealloc__(self):
        free(self.offsets)
        free(self.masks)
        free(self.updates)
        free(self.members)
        free(self.map_start)
        free(self.map_index)
        free(self.step_start)
        free(self.map_step)

    def __init__(self, masks, contributions, steps, phase_of, int n_phases, bint negate, int n_weights, shape=None):
        mask_list = [int(m) for m in masks]
        cdef int n_groups = len(mask_list), g, j, q, e, u
        if not 1 <= n_groups <= MAX_GROUPS:
            raise ValueError(f"a network compiles to 1..{MAX_GROUPS} groups, got {n_groups}")
        sizes = [bin(m).count("1") for m in mask_list]
        if any(not 1 <= size <= PATTERN_MAX_SQUARES for size in sizes) or any(m >> 64 for m in mask_list):
            raise ValueError(f"a group has 1..{PATTERN_MAX_SQUARES} squares of the board")
        phases = [int(p) for p in phase_of]
        if n_phases < 1 or len(phases) != 61 or any(not 0 <= p < n_phases for p in phases):
            raise ValueError(f"phase_of needs a phase in 0..{n_phases - 1} for each of 0..60 empty squares")
        maps = [np.ascontiguousarray(c, dtype=np.int32) for c in contributions]
        step_lists = [np.ascontiguousarray(st, dtype=np.int32).ravel() for st in steps]
        if len(maps) != n_groups or len(step_lists) != n_groups or any(
                m.ndim != 2 or m.shape[0] != 3 ** size or m.shape[1] != len(st)
                for m, st, size in zip(maps, step_lists, sizes)):
            raise ValueError("each group needs 3**squares rows of contributions, one column (and one step) per copy")
        if any(m.size and (m.min() < 0 or int(m.max()) + (n_phases - 1) * int(st.max(initial=0)) >= n_weights)
               for m, st in zip(maps, step_lists)):
            raise ValueError(f"a contribution lies outside the {n_weights} weights")
        self.shape = shape
        self.n_weights = n_weights
        starts = np.cumsum([0] + [3 ** size for size in sizes])
        # Each square's groups, and its digit place in each (ascending squares: the lowest is 3**0).
        per_square = [[] for _ in range(64)]
        for g, mask in enumerate(mask_list):
            squares = [q for q in range(64) if mask >> q & 1]
            for j, q in enumerate(squares):
                per_square[q].append((int(starts[g]), g, 3 ** j))
        cdef Py_ssize_t n_updates = sum(len(entries) for entries in per_square)
        cdef Py_ssize_t n_map = sum(m.size for m in maps), n_steps = sum(st.size for st in step_lists)
        self.offsets = <uint32_t*>malloc(n_groups * sizeof(uint32_t))
        self.masks = <uint64_t*>malloc(n_groups * sizeof(uint64_t))
        self.updates = <Update*>malloc(max(n_updates, 1) * sizeof(Update))
        self.members = <int32_t*>malloc(n_groups * sizeof(int32_t))
        self.map_start = <int64_t*>malloc(n_groups * sizeof(int64_t))
        self.step_start = <int64_t*>malloc(n_groups * sizeof(int64_t))
        self.map_index = <int32_t*>malloc(max(n_map, 1) * sizeof(int32_t))
        self.map_step = <int32_t*>malloc(max(n_steps, 1) * sizeof(int32_t))
        if (self.offsets == NULL or self.masks == NULL or self.updates == NULL or self.members == NULL
                or self.map_start == NULL or self.step_start == NULL or self.map_index == NULL
                or self.map_step == NULL):
            raise MemoryError()
        cdef int32_t[::1] flat
        cdef Py_ssize_t at_map = 0, at_step = 0
        for g in range(n_groups):
            self.offsets[g] = <uint32_t>starts[g]
            self.masks[g] = <uint64_t>mask_list[g]
            self.members[g] = maps[g].shape[1]
            self.map_start[g] = at_map
            self.step_start[g] = at_step
            if maps[g].size:
                flat = maps[g].ravel()
                memcpy(&self.map_index[at_map], &flat[0], maps[g].size * sizeof(int32_t))
                flat = step_lists[g]
                memcpy(&self.map_step[at_step], &flat[0], step_lists[g].size * sizeof(int32_t))
            at_map += maps[g].size
            at_step += step_lists[g].size
        u = 0
        for q in range(64):
            self.net.first[q] = u
            for offset, g, place in per_square[q]:
                self.updates[u].offset = offset
                self.updates[u].group = g
                self.updates[u].place = place
                u += 1
        self.net.first[64] = u
        self.net.n_groups = n_groups
        self.net.n_phases = n_phases
        for e in range(61):
            self.net.phase_of[e] = phases[e]
        self.net.negate = negate
        self.net.scale = 0.0
        self.net.stride = <uint32_t>starts[-1]
        self.net.entries = NULL
        self.net.offsets = self.offsets
        self.net.masks = self.masks
        self.net.updates = self.updates

    def __reduce__(self):
        # Rebuilt from its shape where it is unpickled (a Dask worker): made again, not copied.
        if self.shape is None:
            raise TypeError("a PatternLayout made without its shape cannot be pickled")
        return (_layout_of, (self.shape,))

    @property
    def n_groups(self):
        """The groups the copies are merged into."""
        return self.net.n_groups

    @property
    def entries_per_network(self):
        """The int32 entries of one network's tables (every phase)."""
        return self.net.n_phases * self.net.stride

    cdef int fill(self, const double* weights, int32_t* entries, double* scale) noexcept nogil:
        cdef int p, g, j, m
        cdef Py_ssize_t state, size, base, n = self.net.n_phases * self.net.stride
        cdef const int32_t* contribution
        cdef const int32_t* step
        cdef double total, largest, budget = 0.0, phase_budget
        cdef double* merged = <double*>malloc(max(n, 1) * sizeof(double))
        if merged == NULL:
            return -1
        for p in range(self.net.n_phases):
            phase_budget = 0.0
            for g in range(self.net.n_groups):
                m = self.members[g]
                contribution = &self.map_index[self.map_start[g]]
                step = &self.map_step[self.step_start[g]]
                base = p * self.net.stride + self.offsets[g]
                size = (self.offsets[g + 1] if g + 1 < self.net.n_groups else self.net.stride) - self.offsets[g]
                largest = 0.0
                for state in range(size):
                    # In copy order, as engine/patterns.py sums them.
                    total = 0.0
                    for j in range(m):
                        total = total + weights[contribution[state * m + j] + p * step[j]]
                    merged[base + state] = total
                    largest = max(largest, fabs(total))
                phase_budget += largest
            # One scale for every phase: the values of different phases stay comparable.
            budget = max(budget, phase_budget)
        if not (budget < INFINITY):  # NaN or infinite sums: no values to play
            memset(entries, 0, n * sizeof(int32_t))
            scale[0] = 1.0
            free(merged)
            return -1
        scale[0] = budget / ENTRY_BUDGET if budget > 0 else 1.0
        for state in range(n):
            entries[state] = <int32_t>nearbyint(merged[state] / scale[0])
        free(merged)
        return 0


cdef class PatternTables:
    """A network compiled for the engine's players: a layout's structure and the quantised tables of one weight
    vector of it (the largest sum of the groups' largest magnitudes, over phases, maps to 2**30)."""
    def __cinit__(self):
        self.entries = NULL

    def __dealloc__(self):
        free(self.entries)

    def __init__(self, PatternLayout layout, weights, description=None):
        values = np.ascontiguousarray(np.asarray(weights, dtype=np.float64).ravel())
        if values.size != layout.n_weights:
            raise ValueError(f"the layout's networks have {layout.n_weights} weights, got {values.size}")
        if not np.all(np.isfinite(values)):
            raise ValueError("a network's weights must be finite numbers (found NaN or inf)")
        cdef const double[::1] view = values
        cdef double scale = 1.0
        self.layout = layout
        self.description = description
        self.net = layout.net
        self.entries = <int32_t*>malloc(max(layout.net.n_phases * layout.net.stride, 1) * sizeof(int32_t))
        if self.entries == NULL:
            raise MemoryError()
        if layout.fill(&view[0] if values.size else NULL, self.entries, &scale) != 0:
            raise ValueError("a network's sums must be finite numbers")
        self.net.entries = self.entries
        self.net.scale = scale

    def __reduce__(self):
        # The compiled form is rebuilt from the description (a PatternNetwork) where it is unpickled.
        if self.description is None:
            raise TypeError("a PatternTables built without its description cannot be pickled")
        return (_compiled, (self.description,))

    @property
    def scale(self):
        """The value of one unit of a quantised entry."""
        return self.net.scale

    @property
    def n_groups(self):
        """The groups the network's copies were merged into."""
        return self.net.n_groups

    @property
    def negate(self):
        """Whether the network is black's value, negated for white (else each side's own)."""
        return bool(self.net.negate)

    def value(self, uint64_t player, uint64_t opponent, int colour):
        """Returns the network's value of a side-relative position for the side to move, of ``colour``
        (0 black, 1 white), summed from the whole board."""
        cdef PatternFrame frame
        _check_position(player, opponent, colour)
        frame_from_board(&self.net, &frame, player, opponent, colour, NULL)
        return self.net.scale * frame_sum(&self.net, &frame, colour, 64 - bit_count(player | opponent))

    def value_after(self, uint64_t player, uint64_t opponent, int colour, int square):
        """Returns the value, for the side that moves, of the position after it plays ``square``: found from
        the parent's indices by :func:`child_sum` (for tests: it must equal the whole board's sum)."""
        cdef PatternFrame frame
        cdef Children children
        cdef int32_t changes[MAX_GROUPS]
        cdef uint64_t flips
        _check_position(player, opponent, colour)
        if not 0 <= square < 64 or (player | opponent) >> square & 1:
            raise ValueError(f"square {square} is not an empty square")
        flips = get_flips(square, player, opponent)
        if not flips:
            raise ValueError(f"square {square} is not a legal move")
        frame_from_board(&self.net, &frame, player, opponent, colour, changes)
        children_of(&self.net, &frame, colour, 63 - bit_count(player | opponent), &children)
        return self.net.scale * child_sum(&self.net, &children, square, flips)

    def indices_after(self, uint64_t player, uint64_t opponent, int colour, int square):
        """Returns the frame after ``square`` as :func:`frame_after` updates it, and as the whole board gives it:
        two lists of (colour to move, black's indices, white's indices) (for tests)."""
        cdef PatternFrame parent, child, whole
        cdef uint64_t flips = get_flips(square, player, opponent) if square < 64 else 0
        cdef uint64_t bit = (<uint64_t>1) << square if square < 64 else 0
        _check_position(player, opponent, colour)
        frame_from_board(&self.net, &parent, player, opponent, colour, NULL)
        frame_after(&self.net, &parent, &child, square, flips)
        frame_from_board(&self.net, &whole, opponent ^ flips, player ^ flips ^ bit, colour ^ 1, NULL)
        return [_frame_lists(&child, self.net.n_groups), _frame_lists(&whole, self.net.n_groups)]

    def lone_values(self):
        """Returns, per square, what a lone disc of the viewer's there adds to the empty board's value in the
        first phase: the network's own notion of a good square, which orders a search's moves."""
        cdef int q, u
        cdef const Update* update
        values = []
        for q in range(64):
            total = 0
            for u in range(self.net.first[q], self.net.first[q + 1]):
                update = &self.net.updates[u]
                total += self.entries[update.offset + update.place] - self.entries[update.offset]
            values.append(self.net.scale * total)
        return values


cdef tuple _frame_lists(const PatternFrame* frame, int n_groups):
    return (frame.colour, [frame.index[0][g] for g in range(n_groups)], [frame.index[1][g] for g in range(n_groups)])


def _check_position(uint64_t player, uint64_t opponent, int colour):
    if player & opponent:
        raise ValueError("player and opponent share squares")
    if colour not in (0, 1):
        raise ValueError(f"colour must be 0 (black) or 1 (white), got {colour}")


def _layout_of(shape):
    from engine.patterns import layout_of_shape  # the shape's module lays it out (and caches the result)

    return layout_of_shape(shape)


def _compiled(description):
    from engine.patterns import compiled  # the description's module compiles it (and caches the result)

    return compiled(description)


def _uses_pext():
    """Says whether frames are filled by pext on this CPU (for tests and bench)."""
    return bool(BMI2)


def _portable_indices(uint64_t black, uint64_t white, masks):
    """Returns the portable path's (black's indices, white's indices) for these groups (for tests)."""
    cdef uint64_t group_masks[MAX_GROUPS]
    cdef uint16_t index_black[MAX_GROUPS]
    cdef uint16_t index_white[MAX_GROUPS]
    cdef int n = len(masks), g
    for g in range(n):
        group_masks[g] = masks[g]
    pattern_indices_portable(group_masks, n, black, white, index_black, index_white)
    return [index_black[g] for g in range(n)], [index_white[g] for g in range(n)]


def _bmi2_indices(uint64_t black, uint64_t white, masks):
    """Returns the pext path's indices, or None on a CPU without it (for tests)."""
    cdef uint64_t group_masks[MAX_GROUPS]
    cdef uint16_t index_black[MAX_GROUPS]
    cdef uint16_t index_white[MAX_GROUPS]
    cdef int n = len(masks), g
    if not BMI2:
        return None
    for g in range(n):
        group_masks[g] = masks[g]
    pattern_indices_bmi2(group_masks, n, black, white, index_black, index_white)
    return [index_black[g] for g in range(n)], [index_white[g] for g in range(n)]

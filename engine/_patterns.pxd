# cython: language_level=3
"""Pattern evaluations (n-tuple networks) at C level.

A network is a list of tuples of squares, each with a table of 3**n weights
shared by its copies (its symmetric images); a position's value is the sum,
over every copy, of its table's entry at the index its squares' contents make.
engine/patterns.py describes networks; this is how the engine plays them.

Compiled, the copies are merged into **groups**: every copy whose squares lie
on one line of the board (a row, a column, a diagonal) joins that line's
group, every other copy the group of its set of squares, and a group's table
holds, for each content of its squares, the sum of its copies' entries. A
2-tuple network of 210 copies becomes 42 line groups: fewer lookups per
position, and per move played (a square belongs to at most four lines).

A group's index reads its squares in ascending order as base-3 digits (the
lowest square is the least significant): 0 empty, 1 a disc of the colour the
index is taken for, 2 a disc of the other colour. A **frame** holds every
group's index for both colours (black's discs as 1, and white's) and the
colour to move; a move updates only the groups of the squares it changes,
as Edax updates its pattern indices along the search.

Entries are integers: the tables are quantised once, with one scale for the
whole network, so that a sum is the same whatever the order of its terms.
A value found by updating a parent's indices is then the very number found
from the whole board, which the search's exactness rests on (its oracle sums
every leaf from scratch).

Colours: under "invert" each side reads its own discs as 1 (a side-relative
evaluation, like every evaluation of this project), under "negate" the
network is black's and white's value is its negation.
"""
from libc.stdint cimport int32_t, int64_t, uint16_t, uint32_t, uint64_t

from engine._bitboard cimport first_bit

cdef extern from "pattern_index.h" nogil:
    ctypedef struct PatternUpdate:
        pass
    const int PATTERN_MAX_GROUPS
    int64_t pattern_move_gain(const int32_t* table, const PatternUpdate* updates, const int* first,
                              const uint32_t* offsets, const uint16_t* index, int32_t* delta, int square,
                              uint64_t flips, bint own)

cdef enum:
    MAX_GROUPS = 512    # the most groups a network may compile to (PATTERN_MAX_GROUPS)
    PATTERN_PASS = 64   # the square of a pass in frame_after

cdef struct Update:
    uint32_t offset     # the group's first entry in a phase's table
    uint16_t group      # the group the square belongs to
    uint16_t place      # 3**j: the square's digit place in the group's index

cdef struct PatternNet:
    int n_groups        # groups, at most MAX_GROUPS
    int n_phases        # weight tables, one per game phase
    unsigned char phase_of[61]  # phase_of[e]: the phase of a position with e empty squares
    bint negate         # "negate" colours: the value is black's, white's its negation ("invert": each side's own)
    double scale        # the value of one unit of an entry, in evaluation units
    uint32_t stride     # the entries of one phase
    const int32_t* entries   # [n_phases][stride]: each group's table, at offsets[g]
    const uint32_t* offsets  # [n_groups]: a group's first entry in a phase's table
    const uint64_t* masks    # [n_groups]: a group's squares
    int first[65]       # the updates of square q are updates[first[q]:first[q + 1]]
    const Update* updates

cdef struct PatternFrame:
    int colour          # the colour to move: 0 black, 1 white
    int32_t* changes    # a zeroed int32 per group, shared by the frames of a search: child_sum's working space
    uint16_t index[2][MAX_GROUPS]  # index[c][g]: group g's index with colour c's discs as 1


# Fills ``frame`` from a whole position: ``P`` the discs of the side to move, of colour ``colour``;
# ``changes`` (MAX_GROUPS int32, zeroed here) becomes the working space of the frame and of every frame
# made from it.
cdef void frame_from_board(const PatternNet* net, PatternFrame* frame, uint64_t P, uint64_t O, int colour,
                           int32_t* changes) noexcept nogil


cdef inline void _move_digits(const PatternNet* net, uint16_t* own, uint16_t* other, int square,
                              int to_own, int to_other) noexcept nogil:
    # Adds ``to_own`` (``to_other``) times the square's place to each index of its groups in the mover's own
    # encoding (the other colour's).
    cdef int u
    cdef const Update* update
    for u in range(net.first[square], net.first[square + 1]):
        update = &net.updates[u]
        own[update.group] = <uint16_t>(own[update.group] + to_own * update.place)
        other[update.group] = <uint16_t>(other[update.group] + to_other * update.place)


cdef inline void frame_after(const PatternNet* net, const PatternFrame* parent, PatternFrame* child, int square,
                             uint64_t flips) noexcept nogil:
    """Fills ``child``: ``parent`` after its side to move plays ``square`` (PATTERN_PASS: passes), flipping ``flips``."""
    cdef int g, mover = parent.colour
    cdef uint16_t* own = child.index[mover]
    cdef uint16_t* other = child.index[mover ^ 1]
    for g in range(net.n_groups):
        child.index[0][g] = parent.index[0][g]
        child.index[1][g] = parent.index[1][g]
    child.colour = mover ^ 1
    child.changes = parent.changes
    if square >= PATTERN_PASS:
        return
    # The mover's discs are 1 in its own indices: the new disc adds 1 there, a flipped one goes from 2 to 1;
    # they are 2 in the other colour's: the new disc adds 2, a flipped one goes from 1 to 2.
    _move_digits(net, own, other, square, 1, 2)
    while flips:
        _move_digits(net, own, other, first_bit(flips), -1, 1)
        flips &= flips - 1


cdef inline int64_t frame_sum(const PatternNet* net, const PatternFrame* frame, int viewer,
                              int empties) noexcept nogil:
    """Returns the network's value of the frame's position for colour ``viewer``, in entry units, with the
    tables of the phase of ``empties`` empty squares."""
    cdef const int32_t* table = net.entries + net.phase_of[empties] * net.stride
    cdef const uint16_t* index = frame.index[0 if net.negate else viewer]
    cdef const uint32_t* offsets = net.offsets
    cdef int64_t total = 0
    cdef int g
    for g in range(net.n_groups):
        total += table[offsets[g] + index[g]]
    return -total if net.negate and viewer == 1 else total


cdef struct Children:
    const int32_t* table    # the tables of the children's phase
    const uint16_t* index   # the parent frame's indices in the viewer's encoding
    int32_t* changes        # the parent frame's working space
    int64_t base            # the parent's sum with those tables, for the viewer
    bint own                # whether that encoding is the parent's side to move's own (its discs are 1)
    bint negated            # white's view of a "negate" network: every sum is negated


cdef inline void children_of(const PatternNet* net, PatternFrame* frame, int viewer, int empties,
                             Children* children) noexcept nogil:
    """Fills ``children``: what :func:`child_sum` needs for the values, for colour ``viewer``, of the positions
    the frame's side to move reaches in one move (``empties`` empty squares), worked out once per parent."""
    cdef int k = 0 if net.negate else viewer
    cdef const uint16_t* index = frame.index[k]
    cdef const uint32_t* offsets = net.offsets
    cdef int64_t total = 0
    cdef int g
    children.table = net.entries + net.phase_of[empties] * net.stride
    children.index = frame.index[k]
    children.changes = frame.changes
    children.own = k == frame.colour
    children.negated = net.negate and viewer == 1
    for g in range(net.n_groups):
        total += children.table[offsets[g] + index[g]]
    children.base = -total if children.negated else total


cdef inline int64_t child_sum(const PatternNet* net, const Children* children, int square,
                              uint64_t flips) noexcept nogil:
    """Returns the network's value, for the viewer of ``children``, of the child the parent's side to move
    reaches by ``square`` (flipping ``flips``), in entry units.

    The child is not built: only the groups of the changed squares are read,
    one square after another (a group holding several of them takes each
    change in turn), and the parent's frame is left as it was.
    """
    cdef int64_t gain = pattern_move_gain(children.table, <const PatternUpdate*>net.updates, net.first, net.offsets,
                                          children.index, children.changes, square, flips, children.own)
    return children.base - gain if children.negated else children.base + gain


cdef class PatternLayout:
    cdef PatternNet net       # the structure: every field but entries and scale (NULL and 0)
    cdef uint32_t* offsets
    cdef uint64_t* masks
    cdef Update* updates
    cdef int32_t* members     # [n_groups]: the copies merged into each group
    cdef int64_t* map_start   # [n_groups]: where a group's contributions start in map_index
    cdef int32_t* map_index   # per group, per index of the group, per member: its weight's place (phase 0)
    cdef int64_t* step_start  # [n_groups]: where a group's members' phase steps start in map_step
    cdef int32_t* map_step    # per group member: how far its tuple's table for the next phase lies
    cdef readonly int n_weights      # the weights of a network of this layout (engine/patterns.py's vector())
    cdef readonly object shape       # what it was made from, for messages and pickling

    # Fills ``entries`` (n_phases * stride int32) and ``scale`` from a network's weights (its vector()): each
    # group's table summed from its copies' entries, quantised with one scale. Returns -1 (entries zeroed)
    # for weights whose sums are not finite.
    cdef int fill(self, const double* weights, int32_t* entries, double* scale) noexcept nogil


cdef class PatternTables:
    cdef PatternNet net       # what the players read: the layout's structure, and the entries below
    cdef int32_t* entries
    cdef readonly PatternLayout layout
    cdef readonly object description  # the network it was compiled from (engine/patterns.py), for pickling

# cython: language_level=3
"""C-level players and whole games. Every function here runs without the GIL."""
from libc.stdint cimport uint64_t

from engine._endgame cimport Solver
from engine._features cimport N_FEATURES
from engine._patterns cimport PatternNet

cdef enum PlayerKind:
    KIND_RANDOM = 0
    KIND_WPC = 1        # nhand / nhand_custom: mean weighted score n plies ahead
    KIND_NLEAST = 2     # fewest opponent moves n opponent-turns ahead
    KIND_NMOST = 3      # most own moves n own-turns ahead
    KIND_ALPHABETA = 4  # negamax with alpha-beta on the weighted score (ordered, null windows)
    KIND_ALPHABETA_PLAIN = 5  # the same values by plain fail-hard negamax: the search's oracle

cdef struct Rng:
    uint64_t state      # splitmix64 state

cdef struct PlayerC:
    int kind            # a PlayerKind
    int depth           # look-ahead (plies for WPC/ALPHABETA, turns for NLEAST/NMOST)
    double eps          # probability of a uniformly random move before each move
    int phase_move      # positions with move number >= phase_move use table 1
    int end             # with this many empty squares or fewer, play a move of the best exact value (0: never)
    int n_tables        # 1, or 2 for phase-dependent weights
    bint unit_weights   # every weight is 1 (nhand): sums are disc counts, taken by popcount
    double tie_scale    # the largest weight's magnitude (1 without a table): ties are relative to it
    double weights[2][64]      # per-square weights, index = square
    int n_features      # evaluation features beside the squares (0: the squares alone)
    unsigned feature_mask  # bit f set for each Feature f weighed
    double feature_weights[2][N_FEATURES]  # per table and Feature: its weight (0 for one not weighed)
    double rank_sums[2][8][256]  # rank_sums[t][r][b] = sum of weights of rank r under byte b
    unsigned char order[2][64]   # the squares by weight in table t, highest first: the search's move order
    uint64_t place_bits[2][8][256]  # alpha-beta players only: the places (1 << place) of rank r's squares in byte b
    const PatternNet* patterns  # a pattern network weighed beside the squares and features, NULL for none
    bint squares_off    # with patterns: every square and feature weight is 0, so only the network is summed

cdef struct Entry:
    uint64_t P          # a position (side to move first); 0, 0 for an empty slot
    uint64_t O
    double lower        # its alpha-beta value at ``depth`` is at least this ...
    double upper        # ... and at most this (equal: exact)
    int depth           # the remaining depth these bounds are for
    int best            # the square of the best move found there, -1 for none

# ``colour`` is the colour of the side to move (0 black, 1 white: a pattern network may read colours);
# ``nodes`` counts the positions the alpha-beta players and the endgame search visit (play_game_c:
# may be NULL); ``table`` (``mask + 1`` slots, or NULL) is an alpha-beta player's transposition
# table; ``solver`` the endgame search of a player whose ``end`` is set (its table may be NULL).
cdef int choose_move(const PlayerC* pc, uint64_t P, uint64_t O, uint64_t moves, int colour, Rng* rng,
                     uint64_t* nodes, Entry* table, uint64_t mask, Solver* solver) noexcept nogil
cdef int play_game_c(const PlayerC* black, const PlayerC* white, uint64_t seed,
                     int* record, int* n_record, uint64_t* nodes) noexcept nogil

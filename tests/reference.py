"""A slow, obviously correct Othello used as the oracle for the engine tests.

Nothing here is clever on purpose: legal moves are found by walking the eight
directions square by square on the 8x8 grid, and the players' scores are the
plain recursions written in the engine's specification. Speed comes only from
memoising the move generator, which does not change any result.

Conventions (shared with the engine): a1 is square 0, h1 is 7, a8 is 56, h8 is
63, so ``square = rank_index * 8 + file_index``; a pass is square 64; black
moves first; position text is Edax's 64 characters a1..h8 of ``X`` (black),
``O`` (white), ``-`` (empty), a space and the side to move.
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

BLACK = 0
WHITE = 1
PASS = 64
FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
START_TEXT = "---------------------------OX------XO--------------------------- X"
# (rank step, file step) for the eight directions.
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
# A won or lost finished game is worth this much per disc in alpha-beta.
GAME_OVER_SCALE = 1e6


def square_at(file_index: int, rank_index: int) -> int:
    """Returns the square on the given file (0 = a) and rank (0 = rank 1)."""
    return rank_index * 8 + file_index


def square_name(square: int) -> str:
    """Returns the name of a square, e.g. ``square_name(19) == 'd3'``."""
    return FILE_NAMES[square % 8] + RANK_NAMES[square // 8]


def squares_of(mask: int) -> list[int]:
    """Returns the squares set in a 64-bit mask, ascending."""
    return [square for square in range(64) if mask >> square & 1]


def mask_of(squares: Sequence[int]) -> int:
    """Returns the mask with exactly the given squares set."""
    mask = 0
    for square in squares:
        mask |= 1 << square
    return mask


def count(mask: int) -> int:
    """Returns the number of squares set in a mask."""
    return len(squares_of(mask))


class Position(NamedTuple):
    """A position: black discs, white discs and the side to move."""

    black: int
    white: int
    turn: int

    @property
    def player(self) -> int:
        """Returns the discs of the side to move."""
        return self.black if self.turn == BLACK else self.white

    @property
    def opponent(self) -> int:
        """Returns the discs of the side not to move."""
        return self.white if self.turn == BLACK else self.black


def position_from(player: int, opponent: int, turn: int) -> Position:
    """Returns the position where ``turn`` owns ``player`` and is to move."""
    if turn == BLACK:
        return Position(player, opponent, BLACK)
    return Position(opponent, player, WHITE)


def start_position() -> Position:
    """Returns the initial position, black to move."""
    return parse_text(START_TEXT)


# --- text ---------------------------------------------------------------------


def parse_text(text: str) -> Position:
    """Returns the position written in Edax text.

    :raises ValueError: when the text is not 64 board characters, a space and ``X``/``O``.
    """
    if len(text) != 66 or text[64] != " ":
        raise ValueError(f"position text must be 64 squares, a space and a side: {text!r}")
    black = white = 0
    for square, char in enumerate(text[:64]):
        if char == "X":
            black |= 1 << square
        elif char == "O":
            white |= 1 << square
        elif char != "-":
            raise ValueError(f"bad square character {char!r} in {text!r}")
    if text[65] not in "XO":
        raise ValueError(f"bad side to move {text[65]!r} in {text!r}")
    return Position(black, white, BLACK if text[65] == "X" else WHITE)


def to_text(position: Position) -> str:
    """Returns the Edax text of a position."""
    chars = []
    for square in range(64):
        if position.black >> square & 1:
            chars.append("X")
        elif position.white >> square & 1:
            chars.append("O")
        else:
            chars.append("-")
    return "".join(chars) + " " + ("X" if position.turn == BLACK else "O")


# --- rules ----------------------------------------------------------------------


def flips(square: int, player: int, opponent: int) -> int:
    """Returns the discs ``player`` flips by playing ``square`` (0 when illegal).

    Walks each direction over a run of opponent discs; the run is flipped
    when it is closed by one of the player's discs.
    """
    if square == PASS or (player | opponent) >> square & 1:
        return 0
    rank, file = divmod(square, 8)
    flipped = 0
    for rank_step, file_step in DIRECTIONS:
        run = 0
        r, f = rank + rank_step, file + file_step
        while 0 <= r < 8 and 0 <= f < 8 and opponent >> square_at(f, r) & 1:
            run |= 1 << square_at(f, r)
            r, f = r + rank_step, f + file_step
        if run and 0 <= r < 8 and 0 <= f < 8 and player >> square_at(f, r) & 1:
            flipped |= run
    return flipped


@lru_cache(maxsize=1 << 20)
def moves_with_flips(player: int, opponent: int) -> tuple[tuple[int, int], ...]:
    """Returns ``(move, flipped discs)`` for each legal move of ``player``, ascending.

    Memoised: the player look-aheads below revisit the same positions often.
    """
    pairs = ((square, flips(square, player, opponent)) for square in range(64))
    return tuple((square, flipped) for square, flipped in pairs if flipped)


def moves_of(player: int, opponent: int) -> tuple[int, ...]:
    """Returns the legal moves of ``player`` against ``opponent``, ascending."""
    return tuple(square for square, _ in moves_with_flips(player, opponent))


def legal_moves(position: Position) -> tuple[int, ...]:
    """Returns the legal moves of the side to move, ascending (no pass)."""
    return moves_of(position.player, position.opponent)


def must_pass(position: Position) -> bool:
    """Returns whether the side to move has no move but the opponent has one."""
    return not legal_moves(position) and bool(moves_of(position.opponent, position.player))


def is_game_over(position: Position) -> bool:
    """Returns whether neither side can move."""
    return not legal_moves(position) and not moves_of(position.opponent, position.player)


def play(position: Position, square: int) -> Position:
    """Returns the position after the side to move plays ``square`` (64 = pass).

    :raises ValueError: when the move (or the pass) is not legal.
    """
    if square == PASS:
        return pass_turn(position)
    flipped = dict(moves_with_flips(position.player, position.opponent)).get(square, 0)
    if not flipped:
        raise ValueError(f"illegal move {square_name(square)} in {to_text(position)}")
    player = position.player | flipped | 1 << square
    opponent = position.opponent & ~flipped
    return position_from(opponent, player, 1 - position.turn)


def pass_turn(position: Position) -> Position:
    """Returns the position with the turn handed over.

    :raises ValueError: when the side to move has a legal move.
    """
    if legal_moves(position):
        raise ValueError(f"cannot pass with a legal move in {to_text(position)}")
    return Position(position.black, position.white, 1 - position.turn)


def disc_diff(position: Position) -> int:
    """Returns black's discs minus white's discs."""
    return count(position.black) - count(position.white)


def move_number(position: Position) -> int:
    """Returns the number of discs placed since the start (discs on board - 4)."""
    return count(position.black | position.white) - 4


def perft(position: Position, depth: int) -> int:
    """Returns the number of leaves of the game tree ``depth`` plies deep.

    A forced pass is one ply; a finished game is one leaf at any depth.
    """
    if depth == 0:
        return 1
    moves = legal_moves(position)
    if moves:
        return sum(perft(play(position, move), depth - 1) for move in moves)
    if moves_of(position.opponent, position.player):
        return perft(pass_turn(position), depth - 1)
    return 1


def divide(position: Position, depth: int) -> dict[int, int]:
    """Returns perft(depth - 1) of each child, keyed by move (64 = pass)."""
    moves = legal_moves(position) or ((PASS,) if must_pass(position) else ())
    return {move: perft(play(position, move), depth - 1) for move in moves}


# --- random positions -------------------------------------------------------------


@lru_cache(maxsize=4096)
def random_game(seed: int) -> tuple[Position, ...]:
    """Returns every position of one uniformly random game, start to finish."""
    rng = random.Random(seed)
    position = start_position()
    positions = [position]
    while not is_game_over(position):
        moves = legal_moves(position)
        position = play(position, rng.choice(moves)) if moves else pass_turn(position)
        positions.append(position)
    return tuple(positions)


def random_position(seed: int, plies: int) -> Position:
    """Returns the position after ``plies`` uniformly random plies from the start.

    A forced pass counts as a ply; the game stops early if it ends.
    """
    rng = random.Random(seed)
    position = start_position()
    for _ in range(plies):
        if is_game_over(position):
            break
        moves = legal_moves(position)
        position = play(position, rng.choice(moves)) if moves else pass_turn(position)
    return position


def random_masks(rng: random.Random, density: float) -> tuple[int, int]:
    """Returns two disjoint masks, each square taken with probability ``density``.

    These are usually unreachable positions; move generation must still be
    right on them, and they reach edge patterns random games rarely produce.
    """
    player = opponent = 0
    for square in range(64):
        roll = rng.random()
        if roll < density / 2:
            player |= 1 << square
        elif roll < density:
            opponent |= 1 << square
    return player, opponent


# --- players ---------------------------------------------------------------------


def weight_tables(weights: Sequence[float] | None) -> tuple[Sequence[float], Sequence[float]]:
    """Returns the (opening, late) tables: 64 weights serve both, 128 are split."""
    if weights is None:
        weights = [1.0] * 64
    if len(weights) == 64:
        return weights, weights
    assert len(weights) == 128
    return weights[:64], weights[64:]


def evaluate(
    position: Position, me: int, weights: Sequence[float] | Any | None, phase_move: int = 40
) -> float:
    """Returns the weighted disc sum of ``me`` minus that of the other side, plus the features' terms.

    The table is chosen by the evaluated position's move number. ``weights``
    is a table, or an evaluation with features (``squares``, ``features``,
    ``weights_of(table)``): each feature, mine minus theirs for ``me``, times
    its weight in the chosen table.
    """
    features = getattr(weights, "features", ())
    opening, late = weight_tables(weights.squares if hasattr(weights, "squares") else weights)
    late_phase = move_number(position) >= phase_move
    table = late if late_phase else opening
    mine = position.black if me == BLACK else position.white
    theirs = position.white if me == BLACK else position.black
    value = sum(table[square] for square in squares_of(mine)) - sum(
        table[square] for square in squares_of(theirs)
    )
    if features:
        chosen = weights.weights_of(1 if late_phase and weights.n_tables == 2 else 0)
        value += sum(w * feature(name, mine, theirs) for name, w in chosen.items())
    if getattr(weights, "patterns", None) is not None:
        # A network values a position for the side that has just moved into it; for the side to move, minus the
        # other side's value.
        if position.turn == me:
            value -= network_value(position, 1 - me, weights.patterns)
        else:
            value += network_value(position, me, weights.patterns)
    return value


def network_value(position: Position, me: int, network: Any) -> float:
    """Returns a pattern network's value for ``me``: for every copy of every tuple, the weight its squares
    index, read digit by digit (the first square most significant; 0 empty, 1 the viewer's disc, 2 the other's),
    in the table of the phase of the position's empty squares. Under "negate" the viewer is black, and white's
    value is black's negated."""
    negate = network.colours == "negate"
    viewer = BLACK if negate else me
    own = position.black if viewer == BLACK else position.white
    other = position.white if viewer == BLACK else position.black
    empties = 64 - count(position.black | position.white)
    phase = max(k for k, start in enumerate(network.phases) if empties <= start)
    value = 0.0
    for ntuple in network.tuples:
        for copy in ntuple.copies:
            index = 0
            for square in copy:
                index = index * 3 + (1 if own >> square & 1 else 2 if other >> square & 1 else 0)
            value += float(ntuple.weights[phase][index])
    return -value if negate and me == WHITE else value


def published_value(text: str, black: int, white: int) -> float:
    """Returns black's value of a position under a published network file (the Othello League's text format),
    read as the format says: braces separate, then T and per tuple n, S, S copies of n locations and 3**n
    weights; a location's digit is 0 white, 1 empty, 2 black, the first location the most significant."""
    numbers = text.replace("{", " ").replace("}", " ").split()
    at = 1
    value = 0.0
    for _ in range(int(numbers[0])):
        n, copies = int(numbers[at]), int(numbers[at + 1])
        at += 2
        listed = [[int(q) for q in numbers[at + k * n:at + (k + 1) * n]] for k in range(copies)]
        at += n * copies
        weights = [float(w) for w in numbers[at:at + 3 ** n]]
        at += 3 ** n
        for copy in listed:
            index = 0
            for square in copy:
                index = index * 3 + (2 if black >> square & 1 else 0 if white >> square & 1 else 1)
            value += weights[index]
    return value


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def lookahead_value(
    position: Position, plies: int, me: int, weights: Sequence[float] | None, phase_move: int
) -> float:
    """V(pos, k): the evaluation, or the mean over the side to move's moves.

    The look-ahead stops at a pass (or the end of the game).
    """
    moves = legal_moves(position)
    if plies == 0 or not moves:
        return evaluate(position, me, weights, phase_move)
    return _mean(
        [lookahead_value(play(position, m), plies - 1, me, weights, phase_move) for m in moves]
    )


def nhand_scores(
    position: Position, depth: int, weights: Sequence[float] | None = None, phase_move: int = 40
) -> dict[int, float]:
    """Returns nhand:depth (``weights=None``) or nhand_custom:depth scores; highest wins."""
    me = position.turn
    return {
        move: lookahead_value(play(position, move), depth - 1, me, weights, phase_move)
        for move in legal_moves(position)
    }


def mobility_value(position: Position, target: int, plies: int) -> float:
    """M(pos, target, t): the (mean) number of moves ``target`` will have."""
    side = position.turn
    moves = legal_moves(position)
    if side == target and plies == 1:
        return len(moves)
    if not moves:
        return 0 if side == target else len(moves_of(position.opponent, position.player))
    next_plies = plies - 1 if side == target else plies
    return _mean([mobility_value(play(position, m), target, next_plies) for m in moves])


def nleast_scores(position: Position, depth: int) -> dict[int, float]:
    """Returns nleast:depth scores (the opponent's coming mobility); lowest wins."""
    target = 1 - position.turn
    return {m: mobility_value(play(position, m), target, depth) for m in legal_moves(position)}


def nmost_scores(position: Position, depth: int) -> dict[int, float]:
    """Returns nmost:depth scores (my own coming mobility); highest wins."""
    target = position.turn
    return {m: mobility_value(play(position, m), target, depth) for m in legal_moves(position)}


def negamax(
    position: Position, depth: int, weights: Sequence[float] | None, phase_move: int
) -> float:
    """Returns the plain minimax value for the side to move (no pruning).

    A finished game is its disc difference times 1e6 at any remaining depth,
    the horizon (depth 0) included; a pass costs no depth.
    """
    moves = legal_moves(position)
    if not moves and not moves_of(position.opponent, position.player):
        mine, theirs = count(position.player), count(position.opponent)
        return (mine - theirs) * GAME_OVER_SCALE
    if depth == 0:
        return evaluate(position, position.turn, weights, phase_move)
    if not moves:
        return -negamax(pass_turn(position), depth, weights, phase_move)
    return max(-negamax(play(position, m), depth - 1, weights, phase_move) for m in moves)


def alphabeta_scores(
    position: Position, depth: int, weights: Sequence[float] | None, phase_move: int = 40
) -> dict[int, float]:
    """Returns the exact negamax value of each root move at ``depth``; highest wins."""
    return {
        m: -negamax(play(position, m), depth - 1, weights, phase_move)
        for m in legal_moves(position)
    }


def player_scores(
    kind: str,
    position: Position,
    depth: int = 1,
    weights: Sequence[float] | None = None,
    phase_move: int = 40,
) -> dict[int, float]:
    """Returns the reference scores of a player kind (as named by the engine)."""
    if kind == "nhand":
        return nhand_scores(position, depth, None, phase_move)
    if kind in ("nhand_custom", "wpc"):
        return nhand_scores(position, depth, weights, phase_move)
    if kind == "nleast":
        return nleast_scores(position, depth)
    if kind == "nmost":
        return nmost_scores(position, depth)
    if kind == "alphabeta":
        return alphabeta_scores(position, depth, weights, phase_move)
    raise ValueError(f"no reference scores for {kind!r}")


def lowest_wins(kind: str) -> bool:
    """Returns whether the player picks its lowest-scored move."""
    return kind == "nleast"


def best_moves(kind: str, scores: dict[int, float], tolerance: float = 1e-9) -> set[int]:
    """Returns the moves the player may choose: those tied for best up to rounding.

    The slack (twice ``tolerance * (|best| + 1)``) is generous on purpose:
    a tie rule that compares each score with the best seen so far may accept
    a move up to two tolerances below the maximum.
    """
    if not scores:
        return {PASS}
    sign = -1 if lowest_wins(kind) else 1
    best = max(sign * score for score in scores.values())
    slack = 2 * tolerance * (abs(best) + 1.0)
    return {move for move, score in scores.items() if sign * score >= best - slack}


def iter_game_positions(seeds: range) -> Iterator[Position]:
    """Yields every position of the random games with the given seeds."""
    for seed in seeds:
        yield from random_game(seed)


# --- the exact endgame ---------------------------------------------------------------


def final_score(position: Position) -> int:
    """Returns the final disc difference for the side to move, the empty squares counted for the winner."""
    mine, theirs = count(position.player), count(position.opponent)
    empty = 64 - mine - theirs
    if mine > theirs:
        return mine - theirs + empty
    if mine < theirs:
        return mine - theirs - empty
    return 0


def exact_value(position: Position, alpha: int = -64, beta: int = 64) -> int:
    """Returns the final disc difference for the side to move with perfect play, by alpha-beta to the end.

    Fail-hard, square order, no table: the value is exact when it lies
    strictly between ``alpha`` and ``beta``, and clamped to them otherwise.
    """
    moves = legal_moves(position)
    if not moves:
        if not moves_of(position.opponent, position.player):
            return max(alpha, min(beta, final_score(position)))
        return -exact_value(pass_turn(position), -beta, -alpha)
    for move in moves:
        value = -exact_value(play(position, move), -beta, -alpha)
        if value >= beta:
            return beta
        alpha = max(alpha, value)
    return alpha


def exact_move_values(position: Position) -> dict[int, int]:
    """Returns the exact value of each legal move for the side to move."""
    return {move: -exact_value(play(position, move)) for move in legal_moves(position)}


# --- evaluation features ---------------------------------------------------------------------


def _neighbours(square: int) -> list[int]:
    rank, file = divmod(square, 8)
    return [square_at(file + df, rank + dr) for dr, df in DIRECTIONS if 0 <= file + df < 8 and 0 <= rank + dr < 8]


def frontier(discs: int, empty: int) -> int:
    """Returns the discs of ``discs`` next to an empty square, walking the neighbours square by square."""
    return mask_of([s for s in squares_of(discs) if any(empty >> n & 1 for n in _neighbours(s))])


@lru_cache(maxsize=None)
def _edge_stable(mine: int, theirs: int) -> int:
    """Returns the squares of an 8-square edge whose discs no sequence of moves on the edge ever flips."""
    stable = mine | theirs
    for square in range(8):
        if (mine | theirs) >> square & 1:
            continue
        for mover, other, is_mine in ((mine, theirs, True), (theirs, mine, False)):
            flipped = 0
            for step in (1, -1):
                run, k = 0, square + step
                while 0 <= k < 8 and other >> k & 1:
                    run |= 1 << k
                    k += step
                if 0 <= k < 8 and mover >> k & 1:
                    flipped |= run
            placed = mover | flipped | 1 << square
            left = other & ~flipped
            after = _edge_stable(placed, left) if is_mine else _edge_stable(left, placed)
            stable &= after & ~flipped
    return stable


EDGES = (
    [square_at(f, 0) for f in range(8)], [square_at(f, 7) for f in range(8)],
    [square_at(0, r) for r in range(8)], [square_at(7, r) for r in range(8)],
)
LINES_OF_FOUR = ((0, 1), (1, 0), (1, 1), (1, -1))  # (file step, rank step) of the four lines through a square


def _line(square: int, df: int, dr: int) -> list[int]:
    rank, file = divmod(square, 8)
    squares = []
    for sign in (1, -1):
        f, r = file + sign * df, rank + sign * dr
        while 0 <= f < 8 and 0 <= r < 8:
            squares.append(square_at(f, r))
            f, r = f + sign * df, r + sign * dr
    return squares


def stable_discs(player: int, opponent: int) -> int:
    """Returns the player's discs that the engine's three rules call stable, checked square by square.

    Edges: every sequence of edge moves by either side (a move on an edge may
    flip nothing along it); inner discs: each of the four lines full, or a
    neighbour on it a stable disc of the same colour, until nothing changes.
    """
    filled = player | opponent
    stable = 0
    for edge in EDGES:
        mine = sum(1 << k for k, s in enumerate(edge) if player >> s & 1)
        theirs = sum(1 << k for k, s in enumerate(edge) if opponent >> s & 1)
        kept = _edge_stable(mine, theirs)
        stable |= mask_of([s for k, s in enumerate(edge) if kept >> k & 1 and player >> s & 1])
    inner = [s for s in squares_of(player) if 0 < s % 8 < 7 and 0 < s // 8 < 7]
    changed = True
    while changed:
        changed = False
        for square in inner:
            if stable >> square & 1:
                continue
            rank, file = divmod(square, 8)
            ok = True
            for df, dr in LINES_OF_FOUR:
                full = all(filled >> s & 1 for s in _line(square, df, dr))
                beside = [square_at(file + df, rank + dr), square_at(file - df, rank - dr)]
                if not full and not any(stable >> s & 1 for s in beside):
                    ok = False
                    break
            if ok:
                stable |= 1 << square
                changed = True
    return stable


X_SQUARES = {0: [9], 7: [14], 56: [49], 63: [54]}
C_SQUARES = {0: [1, 8], 7: [6, 15], 56: [48, 57], 63: [55, 62]}


def feature(name: str, player: int, opponent: int) -> int:
    """Returns one evaluation feature of the position for the side to move (``player``): mine minus theirs."""
    empty = ~(player | opponent) & (2**64 - 1)
    if name == "mobility":
        return len(moves_of(player, opponent)) - len(moves_of(opponent, player))
    if name == "frontier":
        return count(frontier(player, empty)) - count(frontier(opponent, empty))
    if name == "stability":
        return count(stable_discs(player, opponent)) - count(stable_discs(opponent, player))
    if name == "parity":
        left = count(empty)
        return 0 if left == 0 else (1 if left % 2 else -1)
    if name in ("corner_x", "corner_c"):
        near = X_SQUARES if name == "corner_x" else C_SQUARES
        total = 0
        for corner, squares in near.items():
            if (player | opponent) >> corner & 1:
                total += sum((player >> s & 1) - (opponent >> s & 1) for s in squares)
        return total
    raise ValueError(f"no reference for feature {name!r}")


class SplitMix:
    """The engine's generator (splitmix64), for references that draw as the engine draws."""

    def __init__(self, seed: int) -> None:
        self.state = seed % 2**64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) % 2**64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32

    def uniform(self) -> float:
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)


def td_self_play(copies_of: Sequence[Sequence[Sequence[int]]], phases: Sequence[int], weights: list[float],
                 games: int, seed: int, alpha: float, eps: float, features: Sequence[str] = ()) -> int:
    """TD(0) self-play of a network's weights, read square by square (the engine's engine/_learning.pyx): each side
    plays a random move with probability eps, else the move whose position after it the network values most for
    it (ties drawn at random); after its move its previous such position moves towards the new one's value
    (tanh of the sum, plus each feature times its weight, the weights after the network's), and at the end
    towards the result. Returns black's wins less white's."""
    import math

    sizes = [len(copies[0]) for copies in copies_of]
    bases, at = [], 0
    for n in sizes:
        bases.append(at)
        at += 3 ** n * len(phases)
    flat = [(bases[t], 3 ** sizes[t], copy) for t, copies in enumerate(copies_of) for copy in copies]

    def phase_of(empties: int) -> int:
        return max(k for k, start in enumerate(phases) if empties <= start)

    def entries(mine: int, theirs: int) -> list[int]:
        phase = phase_of(64 - count(mine | theirs))
        places = []
        for base, step, copy in flat:
            index = 0
            for square in copy:
                index = index * 3 + (1 if mine >> square & 1 else 2 if theirs >> square & 1 else 0)
            places.append(base + phase * step + index)
        return places

    feature_base = at

    def measured(mine: int, theirs: int) -> list[float]:
        return [float(feature(name, mine, theirs)) for name in features]

    def total(places: list[int], values: Sequence[float] = ()) -> float:
        value = 0.0
        for place in places:
            value += weights[place]
        for k, measure in enumerate(values):
            value += weights[feature_base + k] * measure
        return value

    def nudge(places: list[int], values: Sequence[float], amount: float) -> None:
        for place in places:
            weights[place] += amount
        for k, measure in enumerate(values):
            weights[feature_base + k] += amount * measure

    rng = SplitMix(seed)
    balance = 0
    for _ in range(games):
        position = start_position()
        last: dict[int, tuple[list[int], list[float]]] = {}
        while not is_game_over(position):
            moves = legal_moves(position)
            if not moves:
                position = pass_turn(position)
                continue
            side = position.turn
            if eps > 0.0 and rng.uniform() < eps:
                choice = moves[rng.below(len(moves))]
            else:
                choice, best, ties = -1, 0.0, 0
                for move in moves:
                    after = play(position, move)
                    value = total(entries(after.opponent, after.player), measured(after.opponent, after.player))
                    if choice < 0 or value > best:
                        choice, best, ties = move, value, 1
                    elif value == best:
                        ties += 1
                        if rng.below(ties) == 0:
                            choice = move
            after = play(position, choice)
            places, values = entries(after.opponent, after.player), measured(after.opponent, after.player)
            value = math.tanh(total(places, values))
            if side in last:
                previous = math.tanh(total(*last[side]))
                nudge(*last[side], alpha * (value - previous) * (1.0 - previous * previous))
            last[side] = (places, values)
            position = after
        result = disc_diff(position)
        balance += (result > 0) - (result < 0)
        for side, (places, values) in last.items():
            target = float((result > 0) - (result < 0)) * (1 if side == BLACK else -1)
            previous = math.tanh(total(places, values))
            nudge(places, values, alpha * (target - previous) * (1.0 - previous * previous))
    return balance


# --- sep-CMA-ES -----------------------------------------------------------------------------------------


def sep_cma_es_update(state: dict[str, Any], samples: Sequence[Sequence[float]], fitness: Sequence[float]) -> None:
    """Moves a sep-CMA-ES state (mean, sigma, pc, ps, variances, updates, mu) by one generation's samples, higher
    fitness better, coordinate by coordinate (Ros & Hansen 2008: CMA-ES's update on a diagonal covariance, its
    learning rates times (n + 2) / 3; the parameters are DEAP's defaults). Changes ``state`` in place."""
    mean, sigma, mu = state["mean"], state["sigma"], state["mu"]
    n = len(mean)
    raw = [math.log(mu + 0.5) - math.log(i) for i in range(1, mu + 1)]
    w = [x / sum(raw) for x in raw]
    mueff = 1.0 / sum(x * x for x in w)
    cc, cs = 4.0 / (n + 4.0), (mueff + 2.0) / (n + mueff + 3.0)
    c1 = 2.0 / ((n + 1.3) ** 2 + mueff)
    cmu = min(1 - c1, 2.0 * (mueff - 2.0 + 1.0 / mueff) / ((n + 2.0) ** 2 + mueff))
    c1 = min(1.0, c1 * (n + 2.0) / 3.0)
    cmu = min(1 - c1, cmu * (n + 2.0) / 3.0)
    damps = 1.0 + 2.0 * max(0.0, math.sqrt((mueff - 1.0) / (n + 1.0)) - 1.0) + cs
    chi = math.sqrt(n) * (1 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n))
    order = sorted(range(len(samples)), key=lambda k: -fitness[k])[:mu]  # stable: ties keep their order
    new_mean = [sum(w[j] * samples[k][i] for j, k in enumerate(order)) for i in range(n)]
    for i in range(n):
        state["ps"][i] = (1 - cs) * state["ps"][i] + math.sqrt(cs * (2 - cs) * mueff) * (new_mean[i] - mean[i]) \
            / (sigma * math.sqrt(state["variances"][i]))
    norm = math.sqrt(sum(p * p for p in state["ps"]))
    hsig = 1.0 if norm / math.sqrt(1 - (1 - cs) ** (2 * (state["updates"] + 1))) / chi < 1.4 + 2.0 / (n + 1) else 0.0
    state["updates"] += 1
    for i in range(n):
        state["pc"][i] = (1 - cc) * state["pc"][i] + hsig * math.sqrt(cc * (2 - cc) * mueff) \
            * (new_mean[i] - mean[i]) / sigma
        rank_mu = sum(w[j] * ((samples[k][i] - mean[i]) / sigma) ** 2 for j, k in enumerate(order))
        state["variances"][i] = (1 - c1 - cmu + (1 - hsig) * c1 * cc * (2 - cc)) * state["variances"][i] \
            + c1 * state["pc"][i] ** 2 + cmu * rank_mu
    state["mean"] = new_mean
    state["sigma"] = sigma * math.exp((norm / chi - 1) * cs / damps)

"""The Python-facing board, in the style of python-chess.

Squares are ints: a1 = 0 (top-left), h1 = 7, a8 = 56, h8 = 63. Move generation
and flips run in the compiled bitboard core.
"""

from __future__ import annotations

from engine._bitboard import flips as get_flips, moves as get_moves, popcount

Square = int
Color = int

BLACK: Color = 0
WHITE: Color = 1
PASS: Square = 64

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]

START_TEXT = "---------------------------OX------XO--------------------------- X"


def parse_square(name: str) -> Square:
    """Returns the square of a name like ``"d3"`` (19).

    :raises ValueError: if the name is not a square a1..h8.
    """
    text = name.strip().lower() if isinstance(name, str) else name
    try:
        return SQUARE_NAMES.index(text)
    except ValueError:
        raise ValueError(f"invalid square name {name!r}: expected a file a-h and a rank 1-8, like d3") from None


def square_name(square: Square) -> str:
    """Returns the name of a square (``square_name(19) == "d3"``)."""
    if not 0 <= square < 64:
        raise ValueError(f"square must be in 0..63, got {square!r}")
    return SQUARE_NAMES[square]


def _bits(mask: int) -> list[Square]:
    squares = []
    while mask:
        low = mask & -mask
        squares.append(low.bit_length() - 1)
        mask ^= low
    return squares


class Board:
    """An Othello position: black and white disc masks and the side to move."""

    def __init__(self, text: str | None = START_TEXT) -> None:
        self._stack: list[tuple[int, int, Color]] = []
        if text is None:
            self.black, self.white, self.turn = 0, 0, BLACK
        else:
            self.black, self.white, self.turn = _parse_text(text)

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Returns the board of an Edax position text (64 squares a1..h8, a space, X or O).

        :raises ValueError: naming what is wrong with the text.
        """
        if not isinstance(text, str):  # Board(None) is the empty board; from_text(None) is a mistake
            raise ValueError(f"position text must be a string, got {type(text).__name__}")
        return cls(text)

    def to_text(self) -> str:
        """Returns the Edax position text, e.g. the start ``---...OX------XO---... X``."""
        cells = []
        for square in range(64):
            bit = 1 << square
            cells.append("X" if self.black & bit else "O" if self.white & bit else "-")
        return "".join(cells) + (" X" if self.turn == BLACK else " O")

    @property
    def player(self) -> int:
        """Returns the discs of the side to move."""
        return self.black if self.turn == BLACK else self.white

    @property
    def opponent(self) -> int:
        """Returns the discs of the side not to move."""
        return self.white if self.turn == BLACK else self.black

    def legal_moves(self) -> list[Square]:
        """Returns the legal moves of the side to move in ascending order."""
        return _bits(get_moves(self.player, self.opponent))

    def is_legal(self, square: Square) -> bool:
        """Returns whether the side to move may play ``square``."""
        return 0 <= square < 64 and bool(get_moves(self.player, self.opponent) >> square & 1)

    def must_pass(self) -> bool:
        """Returns whether the side to move has no move while the game goes on."""
        return not get_moves(self.player, self.opponent) and bool(get_moves(self.opponent, self.player))

    def is_game_over(self) -> bool:
        """Returns whether neither side can move."""
        return not get_moves(self.player, self.opponent) and not get_moves(self.opponent, self.player)

    def disc_count(self, color: Color) -> int:
        """Returns the number of discs of ``color``."""
        return popcount(self.black if color == BLACK else self.white)

    def disc_diff(self) -> int:
        """Returns black's discs minus white's."""
        return popcount(self.black) - popcount(self.white)

    def empty_count(self) -> int:
        """Returns the number of empty squares."""
        return 64 - popcount(self.black | self.white)

    def play(self, square: Square) -> int:
        """Plays ``square`` for the side to move in place and returns the flipped discs.

        :raises ValueError: if the move is illegal.
        """
        if not isinstance(square, int) or not 0 <= square < 64:
            raise ValueError(f"illegal move {square!r}: squares are 0..63")
        if not self.is_legal(square):
            side = "black" if self.turn == BLACK else "white"
            raise ValueError(f"illegal move {square_name(square)} for {side} in {self.to_text()!r}")
        flips = get_flips(square, self.player, self.opponent)
        mover = flips | (1 << square)
        if self.turn == BLACK:
            self.black |= mover
            self.white &= ~flips
        else:
            self.white |= mover
            self.black &= ~flips
        self.turn ^= 1
        return flips

    def pass_turn(self) -> None:
        """Passes for the side to move.

        :raises ValueError: if the side to move has a legal move.
        """
        if get_moves(self.player, self.opponent):
            raise ValueError(f"cannot pass: legal moves exist ({', '.join(map(square_name, self.legal_moves()))})")
        self.turn ^= 1

    def push(self, square: Square) -> None:
        """Plays ``square`` (or PASS = 64) and remembers the position for :meth:`pop`."""
        state = (self.black, self.white, self.turn)
        if square == PASS:
            self.pass_turn()
        else:
            self.play(square)
        self._stack.append(state)

    def pop(self) -> None:
        """Restores the position before the last :meth:`push`."""
        if not self._stack:
            raise IndexError("pop from a board with no pushed moves")
        self.black, self.white, self.turn = self._stack.pop()

    def copy(self) -> Board:
        """Returns an independent copy (with the move stack)."""
        board = Board(None)
        board.black, board.white, board.turn = self.black, self.white, self.turn
        board._stack = list(self._stack)
        return board

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.black, self.white, self.turn) == (other.black, other.white, other.turn)

    def __hash__(self) -> int:
        return hash((self.black, self.white, self.turn))

    def __repr__(self) -> str:
        return f"Board({self.to_text()!r})"

    def __str__(self) -> str:
        rows = ["  " + " ".join(FILE_NAMES)]
        for rank in range(8):
            cells = []
            for file in range(8):
                bit = 1 << (8 * rank + file)
                cells.append("X" if self.black & bit else "O" if self.white & bit else ".")
            rows.append(f"{RANK_NAMES[rank]} " + " ".join(cells))
        if not self.is_game_over():  # a finished game has no side to move
            rows.append(("X" if self.turn == BLACK else "O") + " to move")
        return "\n".join(rows)


def _parse_text(text: str) -> tuple[int, int, Color]:
    if not isinstance(text, str):
        raise ValueError(f"position text must be a string, got {type(text).__name__}")
    parts = text.strip().split()
    if len(parts) != 2:
        raise ValueError(
            "position text must be 64 squares (X, O or -), a space and the side to move (X or O), "
            f"got {text!r}"
        )
    squares, side = parts
    if len(squares) != 64:
        raise ValueError(f"position text must have 64 squares, got {len(squares)} in {squares!r}")
    black = white = 0
    for square, cell in enumerate(squares):
        if cell in "Xx*":
            black |= 1 << square
        elif cell in "Oo":
            white |= 1 << square
        elif cell not in "-.":
            raise ValueError(
                f"invalid character {cell!r} at {square_name(square)} in position text: use X, O or -"
            )
    if side.upper() not in ("X", "O"):
        raise ValueError(f"invalid side to move {side!r} in position text: use X (black) or O (white)")
    return black, white, BLACK if side.upper() == "X" else WHITE

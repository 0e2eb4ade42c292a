"""A human against any player in the terminal.

The loop takes ``ask`` and ``say`` callables instead of using input/print
directly, so tests can drive it.
"""

from __future__ import annotations

from collections.abc import Callable

from engine import BLACK, PASS, Board, Player, parse_square, square_name

from ga.fitness import derive_seed


def describe_result(board: Board, human: int) -> str:
    """Returns the final score line from the human's point of view."""
    black, white = board.disc_count(BLACK), board.disc_count(1 - BLACK)
    diff = black - white if human == BLACK else white - black
    verdict = "You win" if diff > 0 else "You lose" if diff < 0 else "Draw"
    return f"Game over: black {black}, white {white}. {verdict}."


def play_human(
    computer: Player,
    human: int,
    seed: int,
    ask: Callable[[str], str],
    say: Callable[[str], None],
) -> Board:
    """Plays a game between the human (``BLACK`` or ``WHITE``) and ``computer``; returns the final board.

    Illegal or malformed input is refused with the reason and asked again.
    EOFError and KeyboardInterrupt from ``ask`` propagate to the caller.
    """
    board = Board()
    ply = 0
    while not board.is_game_over():
        say(str(board))
        if board.must_pass():
            who = "You" if board.turn == human else "The computer"
            say(f"{who} must pass.")
            board.pass_turn()
            ply += 1
            continue
        if board.turn == human:
            moves = board.legal_moves()
            say("Legal moves: " + " ".join(square_name(m) for m in moves))
            while True:
                text = ask("Your move: ").strip()
                try:
                    square = parse_square(text)
                except ValueError as error:
                    say(str(error))
                    continue
                if square not in moves:
                    say(f"{text} is not a legal move here; legal moves: {' '.join(square_name(m) for m in moves)}")
                    continue
                break
        else:
            square = computer.choose(board, derive_seed(seed, ply))
            say(f"The computer plays {square_name(square)}.")
        if square != PASS:
            board.play(square)
        ply += 1
    say(str(board))
    say(describe_result(board, human))
    return board

"""A human against any player in the terminal.

The loop takes ``ask`` and ``say`` callables instead of using input/print
directly, so tests can drive it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import click

from engine import BLACK, PASS, Board, Player, parse_square, square_name

from ga.cli.errors import Command
from ga.games.seeds import derive_seed

__all__ = ["describe_result", "play", "play_human"]


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


@click.command(cls=Command)
@click.argument("opponent", default="wpc:1@heuristic")
@click.option("--black", "human_colour", flag_value="black", default=True, help="You play black (first).")
@click.option("--white", "human_colour", flag_value="white", help="You play white.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the computer's random choices.")
def play(opponent: str, human_colour: str, seed: int | None) -> None:
    """Play against OPPONENT (a player spec, default wpc:1@heuristic) in the terminal."""
    from engine import WHITE, build_player
    from ga.weights import load_weights

    computer = build_player(opponent, load_weights=load_weights)
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    human = BLACK if human_colour == "black" else WHITE
    click.echo(f"You play {human_colour} against {opponent} (seed {seed}). Type a square like d3; Ctrl-D quits.")
    try:
        play_human(computer, human, seed, ask=lambda prompt: input(prompt), say=click.echo)
    except (EOFError, KeyboardInterrupt):
        click.echo("\nBye.")

"""A human against any player in the terminal.

The loop takes ``ask`` and ``say`` callables instead of using input/print
directly, so tests can drive it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from engine import BLACK, PASS, Board, Player, parse_square, square_name

from ga.cli.errors import Command
from ga.files import Output
from ga.ggf import GameRecord
from ga.rundir.resolve import resolve_player
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
    moves_played: list[int] | None = None,
) -> Board:
    """Plays a game between the human (``BLACK`` or ``WHITE``) and ``computer``; returns the final board.

    Illegal or malformed input is refused with the reason and asked again.
    EOFError and KeyboardInterrupt from ``ask`` propagate to the caller.
    ``moves_played``, if given, receives each move as it is played (PASS for a pass).
    """
    played = moves_played if moves_played is not None else []
    board = Board()
    ply = 0
    while not board.is_game_over():
        say(str(board))
        if board.must_pass():
            who = "You" if board.turn == human else "The computer"
            say(f"{who} must pass.")
            board.pass_turn()
            played.append(PASS)
            ply += 1
            continue
        if board.turn == human:
            moves = board.legal_moves()
            say("Legal moves: " + " ".join(square_name(m) for m in moves))
            while True:
                text = ask("Your move: ").strip()
                if not text:  # an empty line (Enter alone) asks again, as a shell prompt does
                    continue
                if text.lower() in ("quit", "exit", "q"):
                    say("You quit.")
                    return board
                if text.lower() in ("help", "?", "h"):
                    say("Type a square such as d3 to play there; legal moves: "
                        + " ".join(square_name(m) for m in moves) + ". quit ends the game; so does Ctrl-D.")
                    continue
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
        played.append(square)
        ply += 1
    say(str(board))
    say(describe_result(board, human))
    return board


@click.command(cls=Command)
@click.argument("opponent", default="wpc:1@heuristic")
@click.option("--black", is_flag=True, help="You play black (first); the default.")
@click.option("--white", is_flag=True, help="You play white.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the computer's random choices.")
@click.option("--save", "save_path", type=click.Path(path_type=Path), default=None,
              help="Write the game to this file as a GGF record when it ends (a game left unfinished too).")
@click.option("--force", is_flag=True, help="Replace an existing --save file.")
def play(opponent: str, black: bool, white: bool, seed: int | None, save_path: Path | None, force: bool) -> None:
    """Play against OPPONENT (a player spec, a run directory, a weights file or a built-in table; default
    wpc:1@heuristic) in the terminal.

    Type a square such as d3 to move; help lists the legal moves; quit (or Ctrl-D) ends the game.
    """
    from engine import WHITE, build_player
    from ga.weights import load_evaluation

    if black and white:
        raise click.UsageError("--black and --white exclude each other; give one (black is the default)")
    human_colour = "white" if white else "black"
    # A run directory plays its own player, its settings included (at the deepest depth it trained at, the depth
    # it was made to search); a weights file or a built-in table plays 1-ply.
    player, label, _ = resolve_player(opponent, deepest=True, argument="OPPONENT")
    computer = build_player(player, load_weights=load_evaluation) if isinstance(player, str) else \
        build_player("wpc:1", player)
    opponent = label
    # A game nobody can see or answer is refused, not played into the void (as cat refuses a closed stdout).
    if sys.stdout is None or sys.stdout.closed:
        raise OSError("standard output is closed; play shows the board there (run it in a terminal)")
    if sys.stdin is None or sys.stdin.closed:
        raise OSError("standard input is closed; play reads your moves there (run it in a terminal, or pipe moves in)")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    human = BLACK if human_colour == "black" else WHITE
    with contextlib.ExitStack() as stack:
        # The file's path is checked before the game; the record is written when it ends.
        output = None if save_path is None else stack.enter_context(
            Output(save_path, force=force, stdout_use="give --save a file: the board is shown on standard output"))
        click.echo(f"You play {human_colour} against {opponent} (seed {seed}). "
                   "Type a square like d3; help lists the moves; quit ends the game.")
        moves: list[int] = []
        try:
            play_human(computer, human, seed, ask=_ask, say=click.echo, moves_played=moves)
        except (EOFError, KeyboardInterrupt):
            click.echo("\nBye.")
        if output is not None:
            names = {human: "you", 1 - human: opponent}
            output.write(GameRecord.from_moves(moves, black=names[BLACK], white=names[WHITE]).to_text() + "\n")
    if save_path is not None:
        click.echo(f"wrote {save_path}")


def _ask(prompt: str) -> str:
    """Reads the human's move; a closed terminal ends the game as Ctrl-D does."""
    if sys.stdin is None or sys.stdin.closed:
        raise EOFError
    try:
        return input(prompt)
    except RuntimeError as error:  # input() without a usable stdin or stdout
        raise EOFError from error

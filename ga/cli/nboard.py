"""The nboard command: any evaluation the tool reads, as an engine that Othello GUIs drive (the NBoard protocol)."""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path

import click

from engine import Player, PlayerSpec, build_player, parse_spec
from engine.kinds import TABLE_KINDS
from engine.players import is_path
from ga.cli.errors import EXIT_INTERRUPTED, Command
from ga.nboard.protocol import NBoardEngine
from ga.nboard.search import DEFAULT_DEPTH, MAX_DEPTH, Analyst
from ga.rundir.resolve import resolve_player
from ga.weights import load_evaluation

__all__ = ["engine_player", "nboard"]


@click.command(cls=Command)
@click.argument("evaluation", default="engine")
@click.option("--depth", type=click.IntRange(1, MAX_DEPTH), default=None,
              help=f"Midgame depth until the GUI sets one (set depth); default: the spec's alphabeta depth, "
                   f"else {DEFAULT_DEPTH}.")
@click.option("--end", type=click.IntRange(0, 60), default=None,
              help="Solve exactly from this many empty squares, whatever the depth (0: never); default: the spec's "
                   "end=N, else twice the depth, at most 20.")
def nboard(evaluation: str, depth: int | None, end: int | None) -> None:
    """Be an Othello engine for NBoard or any GUI that speaks the NBoard protocol, on standard input and output.

    EVALUATION is what the engine searches with (default: engine): a built-in
    table or evaluation, a weights or evaluation file, a run directory (its
    best, with the depth and end it trained at), or a player spec such as
    alphabeta:4@engine,end=12. The GUI starts the command; see
    docs/engine-protocol.md. Evaluations go out in discs for the side to move.
    """
    spec, weights, label = engine_player(evaluation)
    if sys.stdout is None or sys.stdout.closed:
        raise OSError("standard output is closed; the engine answers the GUI there")
    if sys.stdin is None or sys.stdin.closed:
        raise OSError("standard input is closed; the engine reads the GUI's commands there")
    load = functools.lru_cache(maxsize=None)(load_evaluation)

    def make(kind: str, plies: int, eps: float) -> Player:
        return build_player(dataclasses.replace(spec, kind=kind, depth=plies, eps=eps, end=0), weights,
                            load_weights=load)

    make("alphabeta", 1, 0.0)  # a bad weights file ends the command here, in one line, before the GUI waits
    start_depth = depth if depth is not None else spec.depth if spec.kind == "alphabeta" else DEFAULT_DEPTH
    fixed_end = end if end is not None else spec.end or None
    analyst = Analyst(make, min(start_depth, MAX_DEPTH), fixed_end)
    engine = NBoardEngine(analyst, f"othello-ga:{label}", _writer())
    try:
        engine.serve(sys.stdin)
    except KeyboardInterrupt:  # Ctrl-C in a terminal: an engine has nothing to save
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    # A GUI that goes away (a closed pipe) ends the command quietly, by the one error policy.


def engine_player(evaluation: str) -> tuple[PlayerSpec, object, str]:
    """Returns ``(spec, weights, label)`` of what the engine searches with: the spec whose table and settings (phase,
    depth, end) it plays, the weights read already (None when the spec names its table), and a name for the GUI.

    :raises ValueError: for what cannot be searched (a kind without a table, random moves).
    """
    player, shown, run_dir = resolve_player(evaluation)
    if isinstance(player, str):
        spec, weights = parse_spec(player), None
        if spec.kind not in TABLE_KINDS:
            raise ValueError(f"{spec.kind} has no evaluation to search; give a table, an evaluation file, a run "
                             "directory or a spec with one, such as alphabeta:4@engine")
        if spec.eps:
            raise ValueError(f"the engine plays its best move; leave eps out of {evaluation!r}")
        name = run_dir.name if run_dir is not None else _name_of(spec.table or shown)
    else:
        spec, weights, name = PlayerSpec("alphabeta", DEFAULT_DEPTH), player, _name_of(evaluation)
    return spec, weights, re.sub(r"[^A-Za-z0-9_.+-]", "_", name) or "evaluation"


def _name_of(table: str) -> str:
    return Path(table).stem if is_path(table) else table


def _writer() -> Callable[[str], None]:
    stream = sys.stdout

    def write(line: str) -> None:
        stream.write(line + "\n")
        stream.flush()  # the GUI reads a line only once it is flushed

    return write

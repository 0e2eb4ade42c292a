"""What the commands say besides their results: caught warnings, and that a run they read is live.

Where they write is checked by :class:`ga.files.Output` before any work, so that a bad output path costs nothing.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path

import click

from ga.cli.errors import warn
from ga.rundir.lock import holder
from ga.rundir.reader import squares_evolved, writes_games

__all__ = ["emit_warnings", "figures_not_drawn", "note_if_live", "output_path"]


def output_path(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    """A click callback for an output a user names: its path, refused when it ends with / (it names a directory;
    ``Path`` would drop the slash, and 'new.csv/' wrote new.csv)."""
    if value is None:
        return None
    if value.endswith(os.sep):
        raise click.BadParameter(f"cannot write '{value}': it names a directory (it ends with {os.sep}); name a file",
                                 ctx=ctx, param=param)
    return Path(value)


def emit_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """Prints the user warnings caught while a command worked, one line each."""
    for warning in caught:
        if issubclass(warning.category, UserWarning):
            warn(str(warning.message))


def figures_not_drawn(run_dir: Path) -> str:
    """Returns the note on a run's figures that its own config rules out ("" if none): said once, on a line of its
    own, as a fact about the run rather than a warning."""
    notes = []
    if not writes_games(run_dir):
        notes.append("opponent_bars is not drawn for this run: its config turns games.csv off (output.games_csv = "
                     "false); win_rate_by_opponent shows the same opponents")
    if not squares_evolved(run_dir):
        notes.append("best_weights and mean_weights (heatmaps of squares) are not drawn for this run: it evolves a "
                     "pattern network without squares (patterns.squares = false); othello-ga show describes it")
    return "\n".join(notes)


def note_if_live(run_dir: Path | None) -> None:
    """Warns that a run directory is being written right now (its files are read as they are at this moment)."""
    if run_dir is None:
        return
    writer = holder(run_dir)
    if writer is not None:
        who = f"process {writer}" if writer > 0 else "another process"
        warn(f"run '{run_dir}' is live (being written by {who}); reading it as it is now")

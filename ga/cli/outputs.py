"""Where the commands write: checks made before any work, so that a bad output path costs nothing."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path

from ga.cli.errors import warn
from ga.rundir.lock import holder

__all__ = ["check_output", "emit_warnings", "note_if_live"]


def check_output(path: Path, force: bool) -> None:
    """Raises before any work if ``path`` cannot be written by the output policy (:func:`ga.files.write_output`)."""
    if str(path) == "-":
        return
    target = path.resolve(strict=False) if path.is_symlink() else path  # a link is written through
    parent = target.parent
    if not parent.is_dir():
        link = f" (the link '{path}' points there)" if target is not path else ""
        raise FileNotFoundError(f"cannot write '{target}': directory '{parent}' does not exist{link}")
    if target.is_dir():
        raise IsADirectoryError(f"cannot write '{path}': it is a directory")
    if target.exists() and not target.is_file():
        return  # a device, FIFO or socket: written into, never replaced
    if target.exists() and not force:
        raise FileExistsError(f"'{path}' already exists; pass --force to replace it")
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"cannot write '{path}': directory '{parent}' is not writable")


def emit_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """Prints the user warnings caught while a command worked, one line each."""
    for warning in caught:
        if issubclass(warning.category, UserWarning):
            warn(str(warning.message))


def note_if_live(run_dir: Path | None) -> None:
    """Warns that a run directory is being written right now (its files are read as they are at this moment)."""
    if run_dir is None:
        return
    writer = holder(run_dir)
    if writer is not None:
        who = f"process {writer}" if writer > 0 else "another process"
        warn(f"run '{run_dir}' is live (being written by {who}); reading it as it is now")

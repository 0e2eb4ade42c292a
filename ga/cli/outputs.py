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
    """Raises before any work if ``path`` cannot be written or would be overwritten without ``force``."""
    parent = path.parent
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot write '{path}': directory '{parent}' does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"cannot write '{path}': it is a directory")
    if path.exists() and not force:
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

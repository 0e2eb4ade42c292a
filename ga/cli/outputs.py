"""What the commands say besides their results: caught warnings, and that a run they read is live.

Where they write is checked by :class:`ga.files.Output` before any work, so that a bad output path costs nothing.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

from ga.cli.errors import warn
from ga.rundir.lock import holder

__all__ = ["emit_warnings", "note_if_live"]


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

"""Where the commands write: checks made before any work, so that a bad output path costs nothing."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path

from ga.cli.errors import warn

__all__ = ["check_output", "emit_warnings"]


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

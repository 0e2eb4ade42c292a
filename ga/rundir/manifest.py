"""A run's manifest.json: who ran it, when, with what, and how far it got."""

from __future__ import annotations

import json
import platform
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from ga.files import atomic_write
from ga.rundir.layout import MANIFEST, RunDirError

__all__ = ["command_line", "new_manifest", "now_iso", "read_manifest", "versions", "write_manifest"]


def versions() -> dict[str, str]:
    """Returns the versions of Python and of the packages a run depends on."""
    found = {"python": platform.python_version()}
    for package in ("othello-ga", "deap", "numpy", "cython", "pandas", "matplotlib"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def now_iso() -> str:
    """Returns the current UTC time as ISO 8601 text."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def command_line() -> str:
    """Returns the command line of this process."""
    return " ".join(["othello-ga"] + sys.argv[1:])


def new_manifest(experiment: str, seed: int, generations: int) -> dict[str, Any]:
    """Returns the manifest of a run that starts now."""
    return {
        "experiment": experiment,
        "seed": seed,
        "generations_planned": generations,
        "generations_done": 0,
        "games_played": 0,
        "started": now_iso(),
        "finished": None,
        "wall_s": 0.0,
        "status": "running",
        "command": command_line(),
        "versions": versions(),
    }


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Replaces a run's manifest.json atomically."""
    atomic_write(run_dir / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def read_manifest(run_dir: Path, *, missing_ok: bool = False) -> dict[str, Any]:
    """Returns a run's manifest.json (``{}`` if it has none and ``missing_ok``).

    :raises RunDirError: if it is missing (unless ``missing_ok``), unreadable or not a JSON object.
    """
    path = run_dir / MANIFEST
    if missing_ok and not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # ValueError covers JSON and UTF-8 errors
        raise RunDirError(f"cannot read '{path}': {error}") from error
    if not isinstance(manifest, dict):
        raise RunDirError(f"'{path}' is not a JSON object; the run directory is damaged")
    return manifest

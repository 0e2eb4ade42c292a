"""A run's manifest.json: who ran it, when, with what, and how far it got."""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from ga.files import atomic_write
from ga.rundir.layout import CHECKPOINT_FORMAT, COUNT, MANIFEST, SECONDS, RunDirError, read_run_file

__all__ = ["FIELDS", "MACHINE_OPTIONS", "STATUSES", "command_line", "new_manifest", "now_iso", "read_manifest", "versions", "write_manifest"]


def versions() -> dict[str, str]:
    """Returns the versions of Python and of the packages a run depends on."""
    found = {"python": platform.python_version()}
    for package in ("othello-ga", "deap", "numpy", "cython", "pandas", "matplotlib"):
        try:
            found[package] = _version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def _version(package: str) -> str:
    """Returns an installed package's version, as ``importlib.metadata.version`` does but faster.

    The core metadata is RFC 822 headers, then the long description; the
    version is one header line, found by a scan of the headers (the email
    parser took about 0.5 ms a package here, at every run's start). Header
    names are case-insensitive.
    """
    distribution = metadata.distribution(package)
    text = distribution.read_text("METADATA") or distribution.read_text("PKG-INFO") or ""
    for line in text.partition("\n\n")[0].splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip().lower() == "version":
            return value.strip()
    return distribution.version


def now_iso() -> str:
    """Returns the current UTC time as ISO 8601 text."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


#: Options whose value is a place on the machine that ran the command: the run directory (where the manifest
#: already is, wherever it is copied to) and a cluster's certificates. The recorded command leaves them out.
MACHINE_OPTIONS = ("--out", "--dask-tls-ca", "--dask-tls-cert", "--dask-tls-key")


def command_line(argv: list[str] | None = None) -> str:
    """Returns the command line of this process (or ``argv``) as a run records it: without the options that name
    places on this machine (:data:`MACHINE_OPTIONS`), so that a run copied or shipped names no path of the
    machine that made it."""
    arguments = sys.argv[1:] if argv is None else argv
    kept: list[str] = []
    skip = False
    for argument in arguments:
        if skip:
            skip = False
        elif argument in MACHINE_OPTIONS:
            skip = True  # and its value, the next argument
        elif not argument.startswith(tuple(f"{option}=" for option in MACHINE_OPTIONS)):
            kept.append(argument)
    return " ".join(["othello-ga", *kept])


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
        "checkpoint_format": CHECKPOINT_FORMAT,  # a checkpoint of an earlier format is then never accepted
    }


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Replaces a run's manifest.json atomically."""
    atomic_write(run_dir / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def read_manifest(run_dir: Path, *, missing_ok: bool = False) -> dict[str, Any]:
    """Returns a run's manifest.json (``{}`` if it has none and ``missing_ok``).

    :raises RunDirError: if it is missing (unless ``missing_ok``), unreadable or not a JSON object.
    """
    path = run_dir / MANIFEST
    if missing_ok and not os.path.lexists(path):
        return {}
    data = read_run_file(path)  # a regular file of bounded size, or one line
    try:
        manifest = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise RunDirError(f"cannot read '{path}': it is nested too deeply to be a manifest; "
                          "the run directory is damaged") from None
    except ValueError as error:  # JSON and UTF-8 errors
        raise RunDirError(f"cannot read '{path}': {error}") from error
    if not isinstance(manifest, dict):
        raise RunDirError(f"'{path}' is not a JSON object; the run directory is damaged")
    for key, value in manifest.items():
        problem = _field_problem(key, value)
        if problem:
            raise RunDirError(f"'{path}': field '{key}' {problem}; the run directory is damaged "
                              "(restore the file or start the run again)")
    return manifest


#: The states a run can be in, as its manifest says.
STATUSES = ("running", "interrupted", "refining", "finished", "failed")
#: What each field of a manifest may hold (a kind and, for numbers, the range).
FIELDS: dict[str, tuple[Any, ...]] = {
    "experiment": ("text",), "seed": ("int", 0, 2**64 - 1), "command": ("command",), "versions": ("versions",),
    "generations_planned": ("int", *COUNT), "generations_done": ("int", *COUNT), "games_played": ("int", *COUNT),
    "final_games": ("int", *COUNT), "refine_generations": ("int", *COUNT), "refine_games": ("int", *COUNT),
    "started": ("time",), "finished": ("time",), "status": ("status",), "error": ("text",),
    "wall_s": ("number", *SECONDS), "final_s": ("number", *SECONDS), "restarts_s": ("number", *SECONDS),
    "refine_s": ("number", *SECONDS), "checkpoint_format": ("int", 1, CHECKPOINT_FORMAT), "resumes": ("int", *COUNT),
}


def _field_problem(key: str, value: Any) -> str:
    """Returns what is wrong with a manifest field's value ("" if nothing; fields not listed are kept as they are)."""
    kind, *bounds = FIELDS.get(key, ("any",))
    if kind in ("int", "number"):
        numeric = isinstance(value, int) if kind == "int" else isinstance(value, (int, float))
        if isinstance(value, bool) or not numeric or not math.isfinite(value) or not bounds[0] <= value <= bounds[1]:
            what = "an integer" if kind == "int" else "a number"
            return f"must be {what} between {bounds[0]:,} and {bounds[1]:,}, got {_short(value)}"
    elif kind in ("text", "time"):
        if not (isinstance(value, str) or (kind == "time" and value is None)):
            return f"must be {'a time (text)' if kind == 'time' else 'text'}, got {_short(value)}"
    elif kind == "status" and value not in STATUSES:
        return f"must be one of {', '.join(STATUSES)}, got {_short(value)}"
    elif kind == "command" and not (isinstance(value, str) or
                                    (isinstance(value, list) and all(isinstance(v, str) for v in value))):
        return f"must be the command line (text), got {_short(value)}"
    elif kind == "versions" and not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
        return f"must map package names to versions (text), got {_short(value)}"
    return ""


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."

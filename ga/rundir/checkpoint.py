"""The checkpoint of a run: the state after a completed generation, enough to continue the run.

Checkpoints are JSON, never pickle (loading a shared run directory must not
run anyone's code); arrays are their float64 bytes in base64, exact and fast.
A checkpoint is checked before it is trusted:

- its own integrity: it carries the SHA-256 of the rest of its text, so a
  hand-edited or half-copied file is named as such;
- its run: it records the settings it was made with (every config key that
  decides the results), compared with config.toml on resume;
- its CSV files: it records their sizes, and the rows it covers must end
  with its own generation (a stale or copied checkpoint does not).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ga.rundir.layout import CHECKPOINT, RunDirError, read_run_file
from ga.weights import WEIGHT_LIMIT

__all__ = ["CHECKPOINT_FORMAT", "Checkpoint", "checkpoint_text", "read_checkpoint"]

CHECKPOINT_FORMAT = 2
_LEGACY_FORMAT = 1  # no checksum and no settings (made before they were recorded): still read


@dataclass
class Checkpoint:
    """The state after a completed generation, enough to continue the run."""

    generation: int
    population: np.ndarray  # genes, one row per individual
    fitness: list[float]
    born: list[int]  # generation in which each individual was last evaluated
    hall_of_fame: np.ndarray  # genes, best first
    hall_of_fame_fitness: list[float]
    hall_of_fame_born: list[int]
    champions: np.ndarray  # weights of the latest generation champions
    games_played: int
    elapsed_s: float
    csv_bytes: dict[str, int]
    settings: dict[str, Any] = field(default_factory=dict)  # the config keys that decide the results


_ARRAYS = ("population", "hall_of_fame", "champions")


def _encode_array(values: np.ndarray) -> dict[str, Any]:
    # Exact and fast: the float64 bytes in base64 (JSON text of 2,000 floats
    # would cost milliseconds every generation).
    array = np.ascontiguousarray(values, dtype="<f8")
    return {"dtype": "<f8", "shape": list(array.shape), "base64": base64.b64encode(array.tobytes()).decode("ascii")}


def _decode_array(data: dict[str, Any]) -> np.ndarray:
    if data.get("dtype") != "<f8":
        raise ValueError(f"unsupported array type {data.get('dtype')!r}")
    array = np.frombuffer(base64.b64decode(data["base64"], validate=True), dtype="<f8")
    return array.reshape(data["shape"]).copy()


def _checksum(data: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode("utf-8")).hexdigest()


def checkpoint_text(checkpoint: Checkpoint) -> str:
    """Returns the JSON text of a checkpoint, its checksum last."""
    data = {"format": CHECKPOINT_FORMAT, **checkpoint.__dict__}
    for name in _ARRAYS:
        data[name] = _encode_array(data[name])
    data["sha256"] = _checksum(data)
    return json.dumps(data, separators=(",", ":"))


def read_checkpoint(run_dir: Path) -> Checkpoint:
    """Returns the last checkpoint of a run."""
    path = run_dir / CHECKPOINT
    if not os.path.lexists(path):
        raise RunDirError(f"'{run_dir}' has no {CHECKPOINT}: the run stopped before its first generation ended, "
                          f"so there is nothing to resume; remove '{run_dir}' and run evolve again (or give evolve "
                          "another --out)")
    text = read_run_file(path)  # a regular file of bounded size, or one line
    try:
        data = json.loads(text.decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError("it is not a JSON object")
        if data.get("format") == CHECKPOINT_FORMAT:
            recorded = data.pop("sha256", None)
            if recorded != _checksum(data):
                raise RunDirError(f"the checkpoint '{path}' does not match its checksum: it was edited or copied "
                                  "only in part; restore it from a copy of the run, or start the run again")
        elif data.get("format") != _LEGACY_FORMAT:
            raise ValueError("unknown checkpoint format")
        data.pop("format")
        for name in _ARRAYS:
            if not isinstance(data.get(name), dict):
                raise ValueError(f"'{name}' is not an encoded array")
            data[name] = _decode_array(data[name])
        checkpoint = Checkpoint(**data)
        _check_checkpoint(checkpoint)
        return checkpoint
    except RunDirError:
        raise
    except RecursionError:
        raise RunDirError(f"cannot read the checkpoint '{path}': it is nested too deeply to be a checkpoint") from None
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        raise RunDirError(f"cannot read the checkpoint '{path}': {error}") from error


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) and bool(np.isfinite(value))


def _check_checkpoint(checkpoint: Checkpoint) -> None:
    """Raises ValueError unless every field has the type and shape the loop needs."""
    c = checkpoint
    if not _is_int(c.generation) or c.generation < 0:
        raise ValueError("'generation' must be an integer >= 0")
    if c.population.ndim != 2 or c.population.shape[0] < 2:
        raise ValueError("'population' must be a table of at least 2 individuals")
    size, genes = c.population.shape
    for name, values, check in (("fitness", c.fitness, _is_number), ("born", c.born, _is_int)):
        if not isinstance(values, list) or len(values) != size or not all(check(v) for v in values):
            raise ValueError(f"'{name}' must list one value per individual ({size})")
    members = c.hall_of_fame.shape[0] if c.hall_of_fame.ndim == 2 else -1
    if members < 0 or (members and c.hall_of_fame.shape[1] != genes):
        raise ValueError("'hall_of_fame' must be a table of individuals")
    for name, values, check in (("hall_of_fame_fitness", c.hall_of_fame_fitness, _is_number),
                                ("hall_of_fame_born", c.hall_of_fame_born, _is_int)):
        if not isinstance(values, list) or len(values) != members or not all(check(v) for v in values):
            raise ValueError(f"'{name}' must list one value per hall-of-fame member ({members})")
    if c.champions.ndim != 2:
        raise ValueError("'champions' must be a table of weights")
    for name in _ARRAYS:
        if not np.isfinite(getattr(c, name)).all():
            raise ValueError(f"'{name}' must hold finite numbers (found NaN or inf)")
        if getattr(c, name).size and np.abs(getattr(c, name)).max() > WEIGHT_LIMIT:
            raise ValueError(f"'{name}' holds a weight beyond +-{WEIGHT_LIMIT:g}, the range a table can be played in")
    if not _is_int(c.games_played) or not 0 <= c.games_played < 2**63 or not _is_number(c.elapsed_s) \
            or c.elapsed_s < 0:
        raise ValueError("'games_played' and 'elapsed_s' must be numbers >= 0")
    if not isinstance(c.csv_bytes, dict) or not all(
        isinstance(k, str) and _is_int(v) and v >= 0 for k, v in c.csv_bytes.items()
    ):
        raise ValueError("'csv_bytes' must map file names to sizes")
    if not isinstance(c.settings, dict):
        raise ValueError("'settings' must be a table of config keys")



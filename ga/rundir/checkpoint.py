"""The checkpoint of a run: the state after a completed generation, enough to continue the run.

Checkpoints are JSON, never pickle (loading a shared run directory must not
run anyone's code); arrays are their float64 bytes in base64, exact and fast.
A checkpoint is checked before it is trusted:

- its own integrity: it carries the SHA-256 of the rest of its text, so a
  hand-edited or half-copied file is named as such;
- its run: it records the settings it was made with (every config key that
  decides the results), compared with config.toml on resume;
- its CSV files: it records their sizes, and the rows it covers must end
  with its own generation (a stale or copied checkpoint does not);
- its tables: it records the SHA-256 of every weights file the run plays,
  compared with the files on resume;
- its values: every number is in the range every reader of the run
  directory checks (ga.rundir.layout: counts, seconds, fitness), so what a
  resume writes from it, the tool reads back.

A run records the format of its checkpoints in its manifest
(``checkpoint_format``): a run that wrote format 2 never accepts a
checkpoint of format 1 (whose checks are fewer).
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

from ga.rundir.layout import CHECKPOINT, CHECKPOINT_FORMAT, COUNT, FITNESS, MANIFEST, MAX_BYTES, SECONDS, RunDirError, read_run_file
from ga.weights import WEIGHT_LIMIT

__all__ = ["CHECKPOINT_FORMAT", "Checkpoint", "checkpoint_text", "read_checkpoint"]

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
    tables: dict[str, str] = field(default_factory=dict)  # the SHA-256 of each weights file the run plays, by path
    # A CMA-ES run's strategy as it sampled this generation (ga.evolution.strategies: numbers and arrays);
    # empty for the GA, and then not written: a GA's checkpoint is as it was before CMA-ES runs.
    strategy: dict[str, Any] = field(default_factory=dict)


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
    if data["strategy"]:
        data["strategy"] = {key: _encode_array(value) if isinstance(value, np.ndarray) else value
                            for key, value in data["strategy"].items()}
    else:
        del data["strategy"]
    data["sha256"] = _checksum(data)
    return json.dumps(data, separators=(",", ":"))


def read_checkpoint(run_dir: Path) -> Checkpoint:
    """Returns the last checkpoint of a run, checked (see the module's docstring).

    :raises RunDirError: naming the file and what is wrong with it.
    """
    path = run_dir / CHECKPOINT
    if not os.path.lexists(path):
        raise RunDirError(f"'{run_dir}' has no {CHECKPOINT}, so there is nothing to resume; run its experiment "
                          "again into a new directory: othello-ga evolve CONFIG --out NEW_DIR")
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
            if not data.get("settings"):
                raise ValueError("'settings' must record the config keys the run was made with")
        elif data.get("format") == _LEGACY_FORMAT:
            written = _written_format(run_dir)
            if written is not None and written > _LEGACY_FORMAT:
                raise RunDirError(
                    f"the checkpoint '{path}' is in the format of earlier versions ({_LEGACY_FORMAT}, without "
                    f"checksum and settings), but this run writes format {written} ({MANIFEST} says so): it was "
                    "edited or replaced; restore it from a copy of the run, or start the run again")
        else:
            raise ValueError("unknown checkpoint format")
        data.pop("format")
        for name in _ARRAYS:
            if not isinstance(data.get(name), dict):
                raise ValueError(f"'{name}' is not an encoded array")
            data[name] = _decode_array(data[name])
        strategy = data.get("strategy", {})
        if not isinstance(strategy, dict):
            raise ValueError("'strategy' must be a table of a CMA-ES strategy's numbers and arrays")
        data["strategy"] = {key: _decode_array(value) if isinstance(value, dict) else value
                            for key, value in strategy.items()}
        checkpoint = Checkpoint(**data)
        _check_checkpoint(checkpoint)
        return checkpoint
    except RunDirError:
        raise
    except RecursionError:
        raise RunDirError(f"cannot read the checkpoint '{path}': it is nested too deeply to be a checkpoint") from None
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise RunDirError(f"cannot read the checkpoint '{path}': {error}") from error


def _written_format(run_dir: Path) -> int | None:
    """Returns the checkpoint format a run's manifest records (None: a run of an earlier version, or no manifest)."""
    from ga.rundir.manifest import read_manifest  # the manifest's module writes this module's format

    recorded = read_manifest(run_dir, missing_ok=True).get("checkpoint_format")
    return recorded if isinstance(recorded, int) else None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) and bool(np.isfinite(value))


def _in(value: object, bounds: tuple[float, float]) -> bool:
    return _is_number(value) and bounds[0] <= value <= bounds[1]  # type: ignore[operator]


def _check_checkpoint(checkpoint: Checkpoint) -> None:
    """Raises ValueError unless every field has the type, shape and range the loop and every reader need."""
    c = checkpoint
    if not _is_int(c.generation) or not _in(c.generation, COUNT):
        raise ValueError(f"'generation' must be an integer in {_range(COUNT)}")
    if c.population.ndim != 2 or c.population.shape[0] < 2:
        raise ValueError("'population' must be a table of at least 2 individuals")
    size, genes = c.population.shape
    fitness = f"a fitness in {_range(FITNESS)}"
    born = f"a generation in 0..{c.generation}"
    for name, values, check, what in (
            ("fitness", c.fitness, lambda v: _in(v, FITNESS), fitness),
            ("born", c.born, lambda v: _is_int(v) and 0 <= v <= c.generation, born)):
        if not isinstance(values, list) or len(values) != size or not all(check(v) for v in values):
            raise ValueError(f"'{name}' must list one value per individual ({size}), each {what}")
    members = c.hall_of_fame.shape[0] if c.hall_of_fame.ndim == 2 else -1
    if members < 0 or (members and c.hall_of_fame.shape[1] != genes):
        raise ValueError("'hall_of_fame' must be a table of individuals")
    for name, values, check, what in (
            ("hall_of_fame_fitness", c.hall_of_fame_fitness, lambda v: _in(v, FITNESS), fitness),
            ("hall_of_fame_born", c.hall_of_fame_born, lambda v: _is_int(v) and 0 <= v <= c.generation, born)):
        if not isinstance(values, list) or len(values) != members or not all(check(v) for v in values):
            raise ValueError(f"'{name}' must list one value per hall-of-fame member ({members}), each {what}")
    if c.champions.ndim != 2:
        raise ValueError("'champions' must be a table of weights")
    for name in _ARRAYS:
        if not np.isfinite(getattr(c, name)).all():
            raise ValueError(f"'{name}' must hold finite numbers (found NaN or inf)")
        if getattr(c, name).size and np.abs(getattr(c, name)).max() > WEIGHT_LIMIT:
            raise ValueError(f"'{name}' holds a weight beyond +-{WEIGHT_LIMIT:g}, the range a table can be played in")
    if not _is_int(c.games_played) or not _in(c.games_played, COUNT):
        raise ValueError(f"'games_played' must be an integer in {_range(COUNT)}")
    if not _in(c.elapsed_s, SECONDS):
        raise ValueError(f"'elapsed_s' must be a number of seconds in {_range(SECONDS)}")
    if not isinstance(c.csv_bytes, dict) or not all(
        k in MAX_BYTES and _is_int(v) and 0 <= v <= MAX_BYTES[k] for k, v in c.csv_bytes.items()
    ):
        raise ValueError("'csv_bytes' must map the run's CSV files to their sizes")
    if not isinstance(c.settings, dict):
        raise ValueError("'settings' must be a table of config keys")
    if not isinstance(c.tables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and len(v) == 64 for k, v in c.tables.items()
    ):
        raise ValueError("'tables' must map weights files to their SHA-256")


def _range(bounds: tuple[float, float]) -> str:
    return f"{bounds[0]:,g}..{bounds[1]:,g}"

"""The checkpoint of a run: the state after a completed generation, enough to continue the run.

Checkpoints are JSON, never pickle (loading a shared run directory must not
run anyone's code); arrays are their float64 bytes in base64, exact and fast.
The checkpoint records the sizes of the CSV files it covers, so that a
resume can cut rows written after it.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ga.rundir.layout import CHECKPOINT, RunDirError

__all__ = ["CHECKPOINT_FORMAT", "Checkpoint", "checkpoint_text", "read_checkpoint"]

CHECKPOINT_FORMAT = 1


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


def checkpoint_text(checkpoint: Checkpoint) -> str:
    """Returns the JSON text of a checkpoint."""
    data = {"format": CHECKPOINT_FORMAT, **checkpoint.__dict__}
    for name in _ARRAYS:
        data[name] = _encode_array(data[name])
    return json.dumps(data, separators=(",", ":"))


def read_checkpoint(run_dir: Path) -> Checkpoint:
    """Returns the last checkpoint of a run."""
    path = run_dir / CHECKPOINT
    if not path.is_file():
        raise RunDirError(f"'{run_dir}' has no {CHECKPOINT}: the run stopped before its first generation ended; start it again")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("it is not a JSON object")
        if data.pop("format", None) != CHECKPOINT_FORMAT:
            raise ValueError("unknown checkpoint format")
        for name in _ARRAYS:
            if not isinstance(data.get(name), dict):
                raise ValueError(f"'{name}' is not an encoded array")
            data[name] = _decode_array(data[name])
        checkpoint = Checkpoint(**data)
        _check_checkpoint(checkpoint)
        return checkpoint
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
    if not _is_int(c.games_played) or c.games_played < 0 or not _is_number(c.elapsed_s):
        raise ValueError("'games_played' and 'elapsed_s' must be numbers >= 0")
    if not isinstance(c.csv_bytes, dict) or not all(
        isinstance(k, str) and _is_int(v) and v >= 0 for k, v in c.csv_bytes.items()
    ):
        raise ValueError("'csv_bytes' must map file names to sizes")



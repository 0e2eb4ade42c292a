"""The run directory: every file an evolution run writes, and reading it back.

Crash safety: CSV rows are appended and flushed each generation, then the
checkpoint is replaced atomically (temporary file + rename) with the CSV sizes
at that point. Resuming truncates the CSVs back to those sizes, so they only
ever hold whole rows of checkpointed generations. Checkpoints are JSON, never
pickle: loading a shared run directory must not run anyone's code.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from engine import SQUARE_NAMES
from ga.config import Config, config_to_toml, load_config
from ga.weights import format_weights

CONFIG = "config.toml"
GENERATIONS = "generations.csv"
GAMES = "games.csv"
POPULATION = "population.csv"
BEST = "best_weights.csv"
MEAN = "mean_weights.csv"
HALL_OF_FAME = "hall_of_fame.csv"
FINAL = "final.csv"  # with [final] games > 0: the final tournament
MANIFEST = "manifest.json"
CHECKPOINT = "checkpoint.json"
GAME_COLUMNS = ["generation", "individual", "opponent", "colour", "seed", "disc_diff"]
CHECKPOINT_FORMAT = 1


class RunDirError(ValueError):
    """A run directory that is missing, not a run, or cannot be written."""


def atomic_write(path: Path, text: str) -> None:
    """Replaces ``path`` with ``text`` so that readers see the old or the new file, never half.

    The new file has the usual permissions (0666 less the umask): run
    directories are shared.
    """
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        # Named by process, not by mkstemp: it runs every generation, and
        # mkstemp's random names cost a fifth of writing the checkpoint.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:  # left by a process that died with this number
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        tmp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def weight_columns(length: int) -> list[str]:
    """Returns the column names of a table of ``length`` weights (a1..h8, or two phases)."""
    if length == 64:
        return list(SQUARE_NAMES)
    return [f"p{phase}_{name}" for phase in range(length // 64) for name in SQUARE_NAMES]


def generation_columns(opponent_labels: Sequence[str]) -> list[str]:
    """Returns the columns of generations.csv for these opponent labels."""
    return (
        ["generation", "games", "wins", "draws", "losses", "win_rate"]
        + [f"win_rate_vs_{label}" for label in opponent_labels]
        + ["fitness_min", "fitness_mean", "fitness_max", "fitness_std", "best_fitness", "diversity"]
        + ["evaluation_s", "variation_s", "generation_s"]
    )


def versions() -> dict[str, str]:
    """Returns the versions of Python and of the packages a run depends on."""
    found = {"python": platform.python_version()}
    for package in ("othello-ga", "deap", "numpy", "cython", "pandas", "matplotlib"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def _format_cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


@dataclass
class GameLog:
    """A generation's games as arrays, one entry per game: the rows of games.csv."""

    generation: int
    individual: np.ndarray
    opponent: np.ndarray  # index into labels
    labels: Sequence[str]
    colours: np.ndarray  # 0 = the individual played black
    seeds: np.ndarray
    disc_diffs: np.ndarray

    def csv_text(self) -> str:
        """Returns the rows as CSV text, the same bytes as ``csv.writer`` gives, about 3x faster."""
        # Only the labels may need quoting (a spec like "wpc:1@lr06,eps=0.1"):
        # quote each once, then join plain numbers around it.
        labels = [_csv_text([[label]])[:-1] for label in self.labels]  # without the line end
        # The cells between individual and seed, per (opponent, colour): one lookup a row.
        middles = [(f",{label},black,", f",{label},white,") for label in labels]
        middle = [middles[o][c] for o, c in zip(self.opponent.tolist(), self.colours.tolist())]
        g = f"{self.generation},"
        return "".join([f"{g}{i}{m}{seed},{diff}\n" for i, m, seed, diff in zip(
            self.individual.tolist(), middle, self.seeds.tolist(), self.disc_diffs.tolist())])


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


class RunWriter:
    """Writes one run directory; the only place that writes its files."""

    def __init__(self, run_dir: Path, columns: list[str], games_csv: bool) -> None:
        self.run_dir = run_dir
        self.columns = columns
        self.games_csv = games_csv
        # The CSV files stay open for appending: opening two files a
        # generation was a tenth of seed2021.toml's per-generation time.
        self._appending: dict[str, Any] = {}

    # --- creating and reopening ---------------------------------------------

    @classmethod
    def create(cls, run_dir: Path, config: Config, columns: list[str], manifest: dict[str, Any]) -> RunWriter:
        """Creates a new run directory; refuses one that exists and is not empty."""
        if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
            raise RunDirError(f"output directory '{run_dir}' already exists; choose another --out or remove it")
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            writer = cls(run_dir, columns, config.output.games_csv)
            atomic_write(run_dir / CONFIG, config_to_toml(config))
            writer.write_manifest(manifest)
            writer._write_header(GENERATIONS, columns)
            if writer.games_csv:
                writer._write_header(GAMES, GAME_COLUMNS)
        except OSError as error:
            raise RunDirError(f"cannot write the run directory '{run_dir}': {error.strerror or error}") from error
        return writer

    @classmethod
    def reopen(cls, run_dir: Path, columns: list[str], config: Config, checkpoint: Checkpoint) -> RunWriter:
        """Opens a run directory to continue it, dropping CSV rows written after ``checkpoint``."""
        writer = cls(run_dir, columns, config.output.games_csv)
        expected = [GENERATIONS] + ([GAMES] if writer.games_csv else [])
        if sorted(checkpoint.csv_bytes) != sorted(expected):
            raise RunDirError(f"the checkpoint of '{run_dir}' does not list {', '.join(expected)}; the run directory is damaged")
        for name, size in checkpoint.csv_bytes.items():  # check all before changing any
            path = run_dir / name
            if not path.is_file() or path.stat().st_size < size:
                raise RunDirError(f"'{path}' is shorter than its checkpoint says; the run directory is damaged")
        for name, size in checkpoint.csv_bytes.items():
            with open(run_dir / name, "r+b") as handle:
                handle.truncate(size)
        return writer

    def _write_header(self, name: str, columns: Sequence[str]) -> None:
        with open(self.run_dir / name, "w", encoding="utf-8", newline="") as handle:
            csv.writer(handle, lineterminator="\n").writerow(columns)

    # --- every generation ----------------------------------------------------

    def append_generation(self, record: dict[str, Any], games: GameLog) -> None:
        """Appends a generation's row and its games; each file gets whole rows only."""
        self._append(GENERATIONS, _csv_text([[_format_cell(record.get(column)) for column in self.columns]]))
        if self.games_csv:
            self._append(GAMES, games.csv_text())

    def _append(self, name: str, text: str) -> None:
        handle = self._appending.get(name)
        if handle is None:
            handle = self._appending[name] = open(self.run_dir / name, "ab")
        handle.write(text.encode("utf-8"))
        handle.flush()  # the rows are in the file before the checkpoint that counts them

    def close(self) -> None:
        """Closes the CSV files kept open for appending."""
        handles, self._appending = self._appending, {}
        for handle in handles.values():
            handle.close()

    def csv_bytes(self) -> dict[str, int]:
        """Returns the current sizes of the CSV files (recorded in checkpoints)."""
        names = [GENERATIONS] + ([GAMES] if self.games_csv else [])
        # Where this writer appends, its handle is at the end of the file: no stat needed.
        return {name: handle.tell() if (handle := self._appending.get(name)) is not None
                else (self.run_dir / name).stat().st_size for name in names}

    def write_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Replaces the checkpoint atomically."""
        data = {"format": CHECKPOINT_FORMAT, **checkpoint.__dict__}
        for name in _ARRAYS:
            data[name] = _encode_array(data[name])
        atomic_write(self.run_dir / CHECKPOINT, json.dumps(data, separators=(",", ":")))

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replaces manifest.json atomically."""
        write_manifest(self.run_dir, manifest)

    # --- at the end ------------------------------------------------------------

    def write_results(
        self,
        population: Sequence[Sequence[float]],
        best: Sequence[float],
        hall_of_fame: Sequence[dict[str, Any]],
    ) -> None:
        """Writes population.csv, best_weights.csv, mean_weights.csv and hall_of_fame.csv."""
        table = np.asarray(population, dtype=np.float64)
        columns = weight_columns(table.shape[1])
        atomic_write(self.run_dir / POPULATION, _csv_text([columns] + [[repr(float(w)) for w in row] for row in table]))
        atomic_write(self.run_dir / BEST, format_weights(np.asarray(best), "csv"))
        atomic_write(self.run_dir / MEAN, format_weights(table.mean(axis=0), "csv"))
        rows: list[list[Any]] = [["rank", "generation", "fitness"] + columns]
        for rank, entry in enumerate(hall_of_fame, start=1):
            rows.append([rank, entry["generation"], repr(entry["fitness"])] + [repr(float(w)) for w in entry["weights"]])
        atomic_write(self.run_dir / HALL_OF_FAME, _csv_text(rows))


    def write_final(self, rows: Sequence[dict[str, Any]]) -> None:
        """Writes final.csv: the final tournament's candidates, best first, with their weights."""
        columns = weight_columns(len(rows[0]["weights"]))
        header = ["rank", "source", "index", "born", "score", "vs_training", "round_robin"]
        lines: list[list[Any]] = [header + columns]
        for row in rows:
            lines.append([row[key] if key in ("rank", "source", "index", "born") else repr(row[key]) for key in header]
                         + [repr(float(w)) for w in row["weights"]])
        atomic_write(self.run_dir / FINAL, _csv_text(lines))


def _csv_text(rows: Iterable[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


# --- reading back -------------------------------------------------------------


def check_run_dir(run_dir: Path) -> None:
    """Raises :class:`RunDirError` unless ``run_dir`` is a run directory."""
    if not run_dir.exists():
        raise RunDirError(f"run directory '{run_dir}' does not exist")
    if not (run_dir / CONFIG).is_file() or not (run_dir / MANIFEST).is_file():
        raise RunDirError(f"'{run_dir}' is not a run directory (no {CONFIG} or {MANIFEST}); run `othello-ga evolve CONFIG` first")


def read_config(run_dir: Path) -> Config:
    """Returns the resolved config a run was started with."""
    check_run_dir(run_dir)
    return load_config(run_dir / CONFIG)


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Replaces a run's manifest.json atomically."""
    atomic_write(run_dir / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """Returns manifest.json of a run."""
    try:
        manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # ValueError covers JSON and UTF-8 errors
        raise RunDirError(f"cannot read '{run_dir / MANIFEST}': {error}") from error
    if not isinstance(manifest, dict):
        raise RunDirError(f"'{run_dir / MANIFEST}' is not a JSON object; the run directory is damaged")
    return manifest


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


def check_checkpoint_fits(checkpoint: Checkpoint, config: Config) -> None:
    """Raises RunDirError unless the checkpoint's population fits the run's config."""
    from ga.genome import genome_length

    expected = (config.population.size, genome_length(config.population.genome))
    if checkpoint.population.shape != expected:
        raise RunDirError(
            f"the checkpoint holds {checkpoint.population.shape[0]} individuals of {checkpoint.population.shape[1]} genes "
            f"but config.toml asks for {expected[0]} of {expected[1]}; the run directory is damaged"
        )


def now_iso() -> str:
    """Returns the current UTC time as ISO 8601 text."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def command_line() -> str:
    """Returns the command line of this process."""
    return " ".join(["othello-ga"] + sys.argv[1:])

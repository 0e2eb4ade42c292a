"""The one writer of a run directory.

Crash safety: CSV rows are appended and flushed each generation, then the
checkpoint is replaced atomically (temporary file + rename) with the CSV sizes
at that point. Resuming truncates the CSVs back to those sizes, so they only
ever hold whole rows of checkpointed generations. Every other file is
replaced atomically (:func:`ga.files.atomic_write`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine import parse_spec
from engine.evaluation import Evaluation
from engine.patterns import PatternNetwork
from ga.config import Config, config_to_toml, network_of
from ga.files import atomic_write, file_kind
from ga.rundir.checkpoint import Checkpoint, checkpoint_text
from ga.rundir.layout import (
    BEST, CHECKPOINT, CONFIG, EVALUATION_FILES, FINAL, GA_BEST, GAME_COLUMNS, GAMES, GENERATIONS, HALL_OF_FAME, LOCK,
    MEAN, POPULATION, REFINE_CSV, REFINE_STATE, RunDirError, open_run_file, weight_columns,
)
from ga.rundir.lock import check_held
from ga.rundir.manifest import write_manifest
from ga.weights import evaluation_text, format_weights

__all__ = ["GameLog", "RunWriter", "TableForm", "csv_text"]


@dataclass(frozen=True)
class TableForm:
    """How a run keeps its tables: 8x8 CSVs, or, when its tables weigh features or a pattern network, evaluation
    files.

    A network's weights (thousands) are kept in the evaluation files and the
    checkpoint only: the CSVs of the population, the hall of fame and the
    final tournament list each member's squares (when evolved) and feature
    weights, and a network run's population.csv each member's fitness and birth.
    """

    features: tuple[str, ...] = ()  # population.features
    phase_move: int = 40  # population.phase_move (recorded for a two-table evaluation)
    end: int = 0  # the end=N of the run's player, recorded in its evaluations
    network: PatternNetwork | None = None  # the network the rows end in ([patterns]), its weights 0
    squares: bool = True  # whether the squares are evolved (in a network's run they may stay 0)

    @classmethod
    def of(cls, config: Config) -> TableForm:
        """Returns the form of the tables of a run of ``config``."""
        network = network_of(config.patterns)
        return cls(tuple(config.population.features), config.population.phase_move,
                   parse_spec(config.fitness.player).end, network, network is None or config.patterns.squares)

    def file(self, name: str) -> str:
        """Returns the file that holds table ``name`` (BEST, MEAN, GA_BEST)."""
        return EVALUATION_FILES[name] if self.features or self.network is not None else name

    def text(self, weights: Sequence[float]) -> str:
        """Returns a table's file text: a CSV of the squares, or the evaluation file of squares, features and
        network."""
        if not self.features and self.network is None:
            return format_weights(np.asarray(weights, dtype=np.float64), "csv")
        return evaluation_text(self.evaluation(weights))

    def evaluation(self, weights: Sequence[float]) -> Evaluation:
        """Returns the evaluation of a table row (squares, features, then the network's weights)."""
        values = np.asarray(weights, dtype=np.float64)
        if self.network is None:
            return Evaluation.from_vector(values, self.features, self.phase_move, self.end)
        split = values.size - self.network.n_weights
        evaluation = Evaluation.from_vector(values[:split], self.features, self.phase_move, self.end)
        return dataclasses.replace(evaluation, patterns=self.network.with_weights(values[split:]))

    def csv_weights(self, weights: Sequence[float]) -> list[float]:
        """Returns the weights of a table row that the run's CSVs list: all of a table's; a network run's squares
        (when evolved) and feature weights."""
        values = np.asarray(weights, dtype=np.float64)
        if self.network is not None:
            values = values[:values.size - self.network.n_weights]
            values = values if self.squares else values[64:]
        return values.tolist()

    def csv_columns(self, length: int) -> list[str]:
        """Returns the columns of :meth:`csv_weights` for table rows of ``length`` weights."""
        if self.network is None:
            return weight_columns(length, self.features)
        columns = weight_columns(length - self.network.n_weights, self.features)
        return columns if self.squares else columns[64:]


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
        """Returns the rows as CSV text: the same bytes as ``csv.writer`` gives, faster (it runs every generation)."""
        # Only the labels may need quoting (a spec like "wpc:1@lr06,eps=0.1"):
        # quote each once, then join plain numbers around it.
        labels = [csv_text([[label]])[:-1] for label in self.labels]  # without the line end
        # The cells between individual and seed, per (opponent, colour): one lookup a row.
        middles = [(f",{label},black,", f",{label},white,") for label in labels]
        middle = [middles[o][c] for o, c in zip(self.opponent.tolist(), self.colours.tolist())]
        g = f"{self.generation},"
        return "".join([f"{g}{i}{m}{seed},{diff}\n" for i, m, seed, diff in zip(
            self.individual.tolist(), middle, self.seeds.tolist(), self.disc_diffs.tolist())])


class RunWriter:
    """Writes one run directory; the only place that writes its files."""

    def __init__(self, run_dir: Path, columns: Sequence[str] = (), games_csv: bool = False,
                 form: TableForm = TableForm()) -> None:
        self.run_dir = run_dir
        self.columns = columns
        self.games_csv = games_csv
        self.form = form
        # The CSV files stay open for appending: opening two files a
        # generation was a tenth of seed2021.toml's per-generation time.
        self._appending: dict[str, Any] = {}

    # --- creating and reopening ---------------------------------------------

    @staticmethod
    def make_directory(run_dir: Path) -> None:
        """Makes a new run directory; refuses a path that exists and is not an empty directory.

        A link to an empty directory is written through; a link to nowhere, or a loop of links, is refused.
        """
        if run_dir.is_symlink() and not run_dir.exists():
            try:
                run_dir.resolve(strict=True)
            except FileNotFoundError:
                raise RunDirError(f"output directory '{run_dir}' is a link to '{os.path.realpath(run_dir)}', which "
                                  "does not exist; make that directory, remove the link, or choose another") from None
            except (RuntimeError, OSError):  # a loop of links: RuntimeError in Python 3.11, OSError later
                pass
            raise RunDirError(f"output directory '{run_dir}' is a link that loops back on itself; "
                              "remove the link or choose another output directory")
        if run_dir.exists() and not run_dir.is_dir():
            raise RunDirError(f"output directory '{run_dir}' already exists and is not a directory "
                              f"({file_kind(run_dir.stat().st_mode)}); choose another output directory")
        if run_dir.exists() and any(entry.name != LOCK for entry in run_dir.iterdir()):
            raise RunDirError(f"output directory '{run_dir}' already exists and is not empty; "
                              "nothing in it was touched; choose another output directory (--out NEW_DIR)")
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise RunDirError(f"cannot write the run directory '{run_dir}': {error.strerror or error}") from error

    @classmethod
    def create(cls, run_dir: Path, config: Config, columns: list[str], manifest: dict[str, Any]) -> RunWriter:
        """Writes the first files of a new run into ``run_dir`` (made by :meth:`make_directory`)."""
        if any(entry.name != LOCK for entry in run_dir.iterdir()):
            raise RunDirError(f"output directory '{run_dir}' already exists and is not empty; "
                              "nothing in it was touched; choose another output directory (--out NEW_DIR)")
        try:
            writer = cls(run_dir, columns, config.output.games_csv, TableForm.of(config))
            writer.write_config(config)
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
        writer = cls(run_dir, columns, config.output.games_csv, TableForm.of(config))
        expected = [GENERATIONS] + ([GAMES] if writer.games_csv else [])
        if sorted(checkpoint.csv_bytes) != sorted(expected):
            raise RunDirError(f"the checkpoint of '{run_dir}' does not list {', '.join(expected)}; the run directory is damaged")
        for name, size in checkpoint.csv_bytes.items():  # check all before changing any
            _check_covered_rows(run_dir / name, size, checkpoint.generation, rows=name == GENERATIONS)
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
        self._append(GENERATIONS, csv_text([[_format_cell(record.get(column)) for column in self.columns]]))
        if self.games_csv:
            self._append(GAMES, games.csv_text())

    def _append(self, name: str, text: str) -> None:
        try:
            handle = self._appending.get(name)
            if handle is None:
                handle = self._appending[name] = open(self.run_dir / name, "ab")
            handle.write(text.encode("utf-8"))
            handle.flush()  # the rows are in the file before the checkpoint that counts them
        except OSError as error:  # a full disk, a file size limit: a write's error names no file
            raise OSError(error.errno, error.strerror, str(self.run_dir / name)) from None

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

    def _replace(self, name: str, text: str) -> None:
        """Replaces one of the run's files whole (:func:`ga.files.atomic_write`) if the directory is still ours."""
        check_held(self.run_dir)
        atomic_write(self.run_dir / name, text)

    def write_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Replaces the checkpoint atomically."""
        self._replace(CHECKPOINT, checkpoint_text(checkpoint))

    def write_config(self, config: Config) -> None:
        """Replaces config.toml: the run directory describes its run (also after an extension)."""
        self._replace(CONFIG, config_to_toml(config))

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replaces manifest.json atomically, if the directory is still this run's."""
        check_held(self.run_dir)
        write_manifest(self.run_dir, manifest)

    # --- at the end ------------------------------------------------------------

    def write_results(
        self,
        population: Sequence[Sequence[float]],
        best: Sequence[float],
        hall_of_fame: Sequence[dict[str, Any]],
        mean: Sequence[float] | None = None,
        members: Sequence[tuple[float, int]] = (),
    ) -> None:
        """Writes population.csv, the best and mean tables (or evaluations) and hall_of_fame.csv.

        ``mean``: the mean table (default: the population's); ``members``: each
        member's (fitness, birth generation), which a network run's population.csv lists.
        """
        table = np.asarray(population, dtype=np.float64)
        form = self.form
        columns = form.csv_columns(table.shape[1])
        if form.network is None:
            lines = [columns] + [[repr(float(w)) for w in row] for row in table]
        else:
            lines = [["individual", "fitness", "born"] + columns] + [
                [index, repr(float(fitness)), born] + [repr(w) for w in form.csv_weights(row)]
                for index, (row, (fitness, born)) in enumerate(zip(table, members))]
        self._replace(POPULATION, csv_text(lines))
        self._replace(form.file(BEST), form.text(best))
        self._replace(form.file(MEAN), form.text(table.mean(axis=0) if mean is None else mean))
        rows: list[list[Any]] = [["rank", "generation", "fitness"] + columns]
        for rank, entry in enumerate(hall_of_fame, start=1):
            rows.append([rank, entry["generation"], repr(entry["fitness"])]
                        + [repr(float(w)) for w in form.csv_weights(entry["weights"])])
        self._replace(HALL_OF_FAME, csv_text(rows))


    def write_final(self, rows: Sequence[dict[str, Any]]) -> None:
        """Writes final.csv: the final tournament's candidates, best first, with their weights."""
        columns = self.form.csv_columns(len(rows[0]["weights"]))
        header = ["rank", "source", "index", "born", "score", "vs_training", "round_robin"]
        lines: list[list[Any]] = [header + columns]
        for row in rows:
            lines.append([row[key] if key in ("rank", "source", "index", "born") else repr(row[key]) for key in header]
                         + [repr(float(w)) for w in self.form.csv_weights(row["weights"])])
        self._replace(FINAL, csv_text(lines))

    # --- the refinement -----------------------------------------------------------

    def write_refine_state(self, rows: Sequence[dict[str, Any]], state: dict[str, Any]) -> None:
        """Writes refine.csv, then refine_state.json (which the next refinement generation continues from)."""
        columns = list(rows[0]) if rows else []
        self._replace(REFINE_CSV, csv_text([columns] + [[_format_cell(row[c]) for c in columns] for row in rows]))
        self._replace(REFINE_STATE, json.dumps(state) + "\n")

    def write_refined(self, table: Sequence[float], ga_best: str) -> None:
        """Keeps the GA's best table (its best file's text) as the GA's best; the refined table becomes best."""
        self._replace(self.form.file(GA_BEST), ga_best)
        self._replace(self.form.file(BEST), self.form.text(table))


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()




def _check_covered_rows(path: Path, size: int, generation: int, rows: bool) -> None:
    """Raises RunDirError unless the first ``size`` bytes of a CSV end with whole rows of ``generation``.

    With ``rows`` (generations.csv) they must also hold exactly one row per
    generation up to it. A stale checkpoint, or one copied from another run,
    fails here before anything is changed.
    """
    with open_run_file(path) as handle:  # a regular file (never a FIFO's wait), or one line
        if os.fstat(handle.fileno()).st_size < size:
            raise RunDirError(f"'{path}' is shorter than its checkpoint says; the run directory is damaged")
        if rows:
            covered = handle.read(size)
        else:  # games.csv can be large: its last row is enough
            handle.seek(max(0, size - 4096))
            covered = handle.read(size - max(0, size - 4096))
    lines = covered.split(b"\n")
    whole = lines[:-1] if covered.endswith(b"\n") else None
    last = whole[-1].split(b",", 1)[0] if whole else b""
    if whole is None or not last.isdigit() or int(last) != generation or (rows and len(whole) != generation + 2):
        found = f"end with generation {last.decode('ascii', 'replace')}" if whole else "do not end with a whole row"
        raise RunDirError(
            f"'{path.parent / CHECKPOINT}' says generation {generation} is the last one saved, but the rows of "
            f"'{path.name}' it covers {found}; the checkpoint is stale or from another run: restore the run "
            "directory from a copy, or start the run again"
        )

"""The layout of a run directory: every file an evolution run writes, by name, and what it holds.

This is the only module that names the files of a run directory; readers and
writers take their names from here.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from engine import SQUARE_NAMES
from ga.files import FileRefused, file_kind, open_regular, read_regular

__all__ = [
    "CHECKPOINT_FORMAT",
    "BEST", "BEST_EVALUATION", "CHECKPOINT", "CONFIG", "EVALUATION_FILES", "FINAL", "GAMES", "GAME_COLUMNS",
    "GA_BEST", "GA_BEST_EVALUATION", "GENERATIONS", "HALL_OF_FAME", "MEAN_EVALUATION", "table_file",
    "LOCK", "MANIFEST", "MAX_BYTES", "MAX_COUNT", "MEAN", "OPTIONAL", "PLOTS", "POPULATION", "REFINE_CSV", "REFINE_STATE",
    "RESTARTS", "RUN_FILES", "WRITTEN", "COUNT", "FITNESS", "RATE", "SECONDS", "RunDirError", "check_no_links",
    "check_run_dir", "file_problem", "generation_columns", "open_run_file", "read_run_file", "restart_dir", "weight_columns",
]

CONFIG = "config.toml"
MANIFEST = "manifest.json"
GENERATIONS = "generations.csv"
GAMES = "games.csv"
POPULATION = "population.csv"
BEST = "best_weights.csv"
MEAN = "mean_weights.csv"
HALL_OF_FAME = "hall_of_fame.csv"
FINAL = "final.csv"  # with [final] games > 0: the final tournament
GA_BEST = "ga_best_weights.csv"  # with [refine]: the GA's best table, where the refinement started
# A run whose tables weigh features (population.features) keeps each as an evaluation file instead.
BEST_EVALUATION = "best_evaluation.json"
MEAN_EVALUATION = "mean_evaluation.json"
GA_BEST_EVALUATION = "ga_best_evaluation.json"
#: The evaluation file a run with features keeps in place of each table file.
EVALUATION_FILES = {BEST: BEST_EVALUATION, MEAN: MEAN_EVALUATION, GA_BEST: GA_BEST_EVALUATION}
REFINE_CSV = "refine.csv"
REFINE_STATE = "refine_state.json"
RESTARTS = "restarts"  # with [refine] restarts: run directories restarts/1, restarts/2, ...
CHECKPOINT = "checkpoint.json"
#: The format of the checkpoints written now (checkpoint.py reads it; the manifest records it, so that a
#: checkpoint of an earlier format is never taken for this one).
CHECKPOINT_FORMAT = 2
PLOTS = "plots"
LOCK = ".lock"  # held by the process writing the run (ga.rundir.lock)
#: The largest count (generations, games) a run directory records: far above any run (about 60 years at
#: 500,000 games/s), far below where a float64 sum of counts stops being exact.
MAX_COUNT = 10**15

# The ranges of what a run directory records, the same for every file that holds it and every reader
# (the CSV files, the manifest, the checkpoint).
COUNT = (0, MAX_COUNT)  # generations, games, generation numbers
SECONDS = (0.0, 1e9)  # durations
RATE = (0.0, 1.0)  # win rates and panel scores
FITNESS = (-64.0, 64.0)  # a win rate, or a mean disc difference

GAME_COLUMNS = ["generation", "individual", "opponent", "colour", "seed", "disc_diff"]

#: What each file of a run directory holds, in the order they are listed.
RUN_FILES: dict[str, str] = {
    CONFIG: "the experiment settings, every key",
    MANIFEST: "seed, status, timing, command and versions",
    GENERATIONS: "one row per generation: win rates, fitness, diversity, timings",
    GAMES: "every game: generation, individual, opponent, colour, seed, disc_diff",
    POPULATION: "the last population, one row of weights per individual",
    BEST: "the best table (8x8, rank 1 first); refined with [refine]",
    BEST_EVALUATION: "a run with features or a pattern network: the best evaluation (JSON)",
    MEAN: "the population mean table (8x8, rank 1 first)",
    MEAN_EVALUATION: "a run with features or a pattern network: the population mean evaluation (JSON)",
    HALL_OF_FAME: "the best individuals seen",
    FINAL: "the final tournament that chose the best table ([final] games)",
    GA_BEST: "the GA's best table, where the refinement started ([refine])",
    GA_BEST_EVALUATION: "a run with features: the GA's best evaluation, where the refinement started ([refine])",
    REFINE_CSV: "one row per refinement generation: panel scores, sigma, centroid ([refine])",
    REFINE_STATE: "the refinement's state to resume from ([refine])",
    RESTARTS: "the refinement's restarts: one run directory each ([refine])",
    CHECKPOINT: "the state to resume from",
    PLOTS: "figures (othello-ga plot)",
}

#: The most bytes each file of a run directory holds when it is read back: far above what any run writes
#: (a checkpoint of a million individuals is about 1.4 GiB), and a bound on what a damaged or hostile file costs.
MAX_BYTES: dict[str, int] = {
    CONFIG: 16 * 2**20, MANIFEST: 16 * 2**20, CHECKPOINT: 4 * 2**30, REFINE_STATE: 2**30,
    GENERATIONS: 2**30, REFINE_CSV: 2**30, GAMES: 64 * 2**30,
}

#: Files only some runs have (final.csv: with a final tournament; the refinement's: with [refine]).
OPTIONAL = (PLOTS, FINAL, GA_BEST, REFINE_CSV, REFINE_STATE, RESTARTS, *EVALUATION_FILES.values())


class RunDirError(ValueError):
    """A run directory that is missing, not a run, damaged, or cannot be written."""


def check_run_dir(run_dir: str | os.PathLike[str]) -> Path:
    """Returns ``run_dir`` as a path if it is a run directory (it holds manifest.json, config.toml or generations.csv).

    What a command then reads (a checkpoint, a table) it checks itself.

    :raises RunDirError: if it does not exist or is not a run directory.
    """
    path = Path(run_dir)
    if not path.exists():
        raise RunDirError(f"run directory '{run_dir}' does not exist")
    if not path.is_dir() or not any((path / name).is_file() for name in (MANIFEST, CONFIG, GENERATIONS)):
        raise RunDirError(
            f"'{run_dir}' is not a run directory (no {MANIFEST}, {CONFIG} or {GENERATIONS}); "
            "run `othello-ga evolve CONFIG` first"
        )
    return path


#: Everything the tool writes inside a run directory.
WRITTEN = (CONFIG, MANIFEST, GENERATIONS, GAMES, POPULATION, BEST, MEAN, HALL_OF_FAME, FINAL, GA_BEST, REFINE_CSV,
           REFINE_STATE, RESTARTS, CHECKPOINT, PLOTS, LOCK, *EVALUATION_FILES.values())


def check_no_links(run_dir: Path, names: Sequence[str] = WRITTEN) -> None:
    """Raises RunDirError if any of ``names`` in ``run_dir`` is a link or not a plain file or folder.

    Inside a run directory the tool writes only plain files and folders: a
    run directory that travelled (unzipped, copied, downloaded) with a link
    where the tool would write could make it append to, truncate or replace
    a file outside the run: a symbolic link, or a hard link (a file with a
    second name elsewhere, which an append or a truncation changes too). A
    FIFO, socket or device in a file's place would be waited on or written
    into. Each is refused before anything is written.
    """
    for name in names:
        path = Path(run_dir) / name
        problem = file_problem(path)
        if problem:
            raise RunDirError(f"'{path}' {problem}")


def file_problem(path: Path, holder: str = "a run directory") -> str:
    """Returns why the tool must not write the run file at ``path`` ("" if it may: missing, a plain file or folder).

    The text completes a sentence that starts with the path; ``holder`` names what holds it.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ""
    except OSError as error:
        return f"cannot be examined ({error.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return (f"is a symbolic link; {holder} holds plain files only (the tool would write through it): "
                "replace the link with the file it points to, or remove it")
    if stat.S_ISDIR(info.st_mode):
        return ""
    if not stat.S_ISREG(info.st_mode):
        return (f"is not a regular file ({file_kind(info.st_mode)}); {holder} holds plain files only: "
                "remove it, or restore the run from a copy")
    if info.st_nlink > 1:
        return (f"is a hard link (the file has {info.st_nlink} names; the tool would change the others too): "
                "make it a file of its own (copy it, then move the copy over it), or remove it")
    return ""


def open_run_file(path: Path) -> BinaryIO:
    """Opens one of a run directory's files for reading: a regular file of at most its :data:`MAX_BYTES`.

    :raises RunDirError: naming the file and what it is instead (a FIFO, a device, too large, missing).
    """
    try:
        return open_regular(path, MAX_BYTES[path.name])
    except OSError as error:
        raise _unreadable(path, error) from None


def read_run_file(path: Path) -> bytes:
    """Returns the bytes of one of a run directory's files (see :func:`open_run_file`)."""
    try:
        return read_regular(path, MAX_BYTES[path.name])
    except OSError as error:
        raise _unreadable(path, error) from None


def _unreadable(path: Path, error: OSError) -> RunDirError:
    if isinstance(error, FileRefused):
        return RunDirError(f"cannot read '{path}': it {error.problem}; a run directory holds the regular files the "
                           "tool wrote: restore it from a copy of the run")
    if isinstance(error, FileNotFoundError):
        return RunDirError(f"'{path}' does not exist; the run directory is damaged or not a run")
    return RunDirError(f"cannot read '{path}': {error.strerror or error}")


def restart_dir(run_dir: Path, restart: int) -> Path:
    """Returns the run directory of restart ``restart`` (1, 2, ...) of a refined run."""
    return run_dir / RESTARTS / str(restart)


def weight_columns(length: int, features: Sequence[str] = ()) -> list[str]:
    """Returns the column names of a table of ``length`` weights (a1..h8, or two phases), then its features'."""
    tables = length // (64 + len(features))
    if tables == 1:
        return list(SQUARE_NAMES) + list(features)
    return ([f"p{phase}_{name}" for phase in range(tables) for name in SQUARE_NAMES]
            + [f"p{phase}_{name}" for phase in range(tables) for name in features])


def table_file(run_dir: Path, name: str) -> Path:
    """Returns the file that holds a run's table ``name`` (BEST, MEAN, GA_BEST): its evaluation file in a run
    with features, else the CSV."""
    evaluation = run_dir / EVALUATION_FILES[name]
    return evaluation if os.path.lexists(evaluation) else run_dir / name


def generation_columns(opponent_labels: Sequence[str], td: bool = False) -> list[str]:
    """Returns the columns of generations.csv for these opponent labels (``td``: a run with a TD step, whose
    self-play games have a column of their own)."""
    return (
        ["generation", "games", "wins", "draws", "losses", "win_rate"]
        + [f"win_rate_vs_{label}" for label in opponent_labels]
        + ["fitness_min", "fitness_mean", "fitness_max", "fitness_std", "best_fitness", "diversity"]
        + (["td_games"] if td else [])
        + ["evaluation_s", "variation_s", "generation_s"]
    )

"""Reading a run directory back: its config and its per-generation records."""

from __future__ import annotations

import csv
import io
import json
import os
import tomllib
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.evaluation import Evaluation
from ga.config import Config, load_config
from ga.rundir.layout import (
    CONFIG, COUNT, FITNESS, GAMES, GENERATIONS, RATE, REFINE_CSV, REFINE_STATE, SECONDS, RunDirError, check_run_dir,
    read_run_file, table_file,
)
from ga.weights import load_evaluation

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "REQUIRED", "printable", "experiment_description", "experiment_name", "read_config",
           "read_evaluation", "read_generations", "read_records", "read_refine_state", "read_table", "run_settings",
           "squares_evolved", "writes_games"]


def printable(text: str) -> str:
    r"""Returns text read from a run directory as it may be printed: control characters escaped.

    A run directory is untrusted: an experiment name, a description or a
    recorded command holding terminal escape sequences would otherwise retitle
    or clear the terminal that shows it.

    A name's bytes that are not UTF-8 (a file name in another encoding, held
    by Python as lone surrogates) are shown as the bytes they are.

    >>> printable("a\x1b]0;x\x07b\u202e"), printable(os.fsdecode(b"bad\xffname"))
    ('a\\x1b]0;x\\x07b\\u202e', 'bad\\xffname')
    """
    return "".join(char if char.isprintable() or char == " " else _escaped(char) for char in text)


def _escaped(char: str) -> str:
    if "\udc80" <= char <= "\udcff":  # os.fsdecode's stand-in for the byte 0x80..0xff
        return f"\\x{ord(char) - 0xdc00:02x}"
    return char.encode("unicode_escape").decode("ascii")


def read_config(run_dir: Path) -> Config:
    """Returns the resolved config a run was started with (its config.toml).

    :raises RunDirError: if ``run_dir`` is not a run directory or has no config.toml.
    :raises ConfigError: if config.toml is not a valid config.
    """
    path = check_run_dir(run_dir)
    if not os.path.lexists(path / CONFIG):
        raise RunDirError(f"'{run_dir}' has no {CONFIG}; the run directory is damaged")
    return load_config(path / CONFIG, run_file=True)


#: What each column of a run's CSV files may hold: (column or prefix*, kind, low, high).
#: "int" and "number" must be present; "rate" is a number or empty (no games of that kind). The ranges are
#: the run directory's own (ga.rundir.layout), shared with the manifest and the checkpoint.
COLUMNS: dict[str, tuple[tuple[str, str, float, float], ...]] = {
    GENERATIONS: (
        ("generation", "int", *COUNT), ("games", "int", *COUNT), ("wins", "int", *COUNT),
        ("draws", "int", *COUNT), ("losses", "int", *COUNT), ("win_rate", "number", *RATE),
        ("win_rate_vs_*", "rate", *RATE), ("fitness_std", "rate", 0, 2 * FITNESS[1]), ("fitness_*", "rate", *FITNESS),
        ("best_fitness", "rate", *FITNESS), ("diversity", "rate", 0, 1e6), ("td_games", "int", *COUNT),
        ("*_s", "rate", *SECONDS),
    ),
    GAMES: (
        ("generation", "int", *COUNT), ("individual", "int", *COUNT), ("colour", "colour", 0, 0),
        ("seed", "int", 0, 2**64 - 1), ("disc_diff", "int", -64, 64),
    ),
    REFINE_CSV: (
        ("generation", "int", *COUNT), ("games", "int", *COUNT), ("score_*", "rate", *RATE),
        ("best_*", "rate", *RATE), ("sigma", "number", 0, 1e6), ("*_s", "rate", *SECONDS),
        ("centroid_*", "number", -1e6, 1e6),
    ),
}


#: The columns each of a run's CSV files must have (the refinement's centroid has one column per weight).
REQUIRED: dict[str, tuple[str, ...]] = {
    GENERATIONS: ("generation", "games", "wins", "draws", "losses", "win_rate"),
    GAMES: ("generation", "individual", "opponent", "colour", "seed", "disc_diff"),
    REFINE_CSV: ("generation", "games", "score_mean", "score_best", "sigma", "centroid_0"),
}


def read_table(run_dir: str | os.PathLike[str], name: str, size: int | None = None) -> pd.DataFrame:
    """Returns one of a run's CSV files, every value checked against :data:`COLUMNS`.

    Rows come in the order of their generations: one row per generation 0, 1,
    2, ... in generations.csv and refine.csv, and games.csv's games by
    generation. ``size`` reads only the file's first ``size`` bytes (the rows
    a checkpoint covers).

    :raises RunDirError: naming the file, and the column, row and value that are wrong.
    """
    import pandas as pd  # here: a run that never reads its files back need not import it

    path = Path(run_dir) / name
    damaged = "the file is damaged (restore it, or run the experiment again)"
    data = read_run_file(path)  # a regular file of bounded size, or one line naming what it is
    if size is not None:
        data = data[:size]
    try:
        with warnings.catch_warnings():
            # index_col=False: a row with a field too many is an error, not a shift of every column.
            # Only an empty field is missing: the tool never writes "nan", so a "nan" is damage, not a gap.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            table = pd.read_csv(io.BytesIO(data), index_col=False, keep_default_na=False, na_values=[""])
    except pd.errors.ParserWarning:
        raise RunDirError(f"'{path}': a row has more fields than the header; {damaged}") from None
    except UnicodeDecodeError:
        raise RunDirError(f"'{path}' is not text (UTF-8); {damaged}") from None
    except pd.errors.EmptyDataError:
        raise RunDirError(f"'{path}' is empty; {damaged}") from None
    except pd.errors.ParserError as error:
        raise RunDirError(f"'{path}': {str(error).strip().splitlines()[-1]}; {damaged}") from None
    if len(table.columns) and table[table.columns[-1]].isna().any():  # a short row, or an empty last field
        short = _first_short_row(data, len(table.columns))
        if short:
            raise RunDirError(f"'{path}': line {short} has fewer fields than the header; {damaged}")
    missing = [column for column in REQUIRED.get(name, ()) if column not in table.columns]
    if missing:
        raise RunDirError(f"'{path}' lacks column(s) {', '.join(missing)}; {damaged}")
    for column in table.columns:
        rule = next((r for r in COLUMNS.get(name, ()) if _matches(r[0], str(column))), None)
        if rule is not None:
            problem = _column_problem(table[column], *rule[1:])
            if problem:
                raise RunDirError(f"'{path}': column '{column}', {problem}; {damaged}")
    problem = _order_problem(name, table)
    if problem:
        raise RunDirError(f"'{path}': column 'generation', {problem}; {damaged}")
    return table


def _order_problem(name: str, table: pd.DataFrame) -> str:
    """Returns the first row out of generation order ("" if none): generations.csv and refine.csv hold one row
    per generation 0, 1, 2, ...; games.csv holds a generation's games after the previous generation's."""
    import numpy as np

    if name not in (GENERATIONS, REFINE_CSV, GAMES) or "generation" not in table.columns:
        return ""
    generations = table["generation"].to_numpy(dtype=np.float64)
    if name == GAMES:
        wrong = np.flatnonzero(np.diff(generations) < 0) + 1
        what = "after a later generation's games"
    else:
        wrong = np.flatnonzero(generations != np.arange(len(generations)))
        what = "where generation {expected} belongs (one row per generation, from 0)"
    if not wrong.size:
        return ""
    row = int(wrong[0])
    return f"line {row + 2}: generation {int(generations[row])} " + what.format(expected=row)


def _first_short_row(data: bytes, fields: int) -> int:
    """Returns the line number of the first row of CSV text with fewer than ``fields`` fields (0 if none)."""
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    for row in reader:
        if 0 < len(row) < fields:
            return reader.line_num
    return 0


def _matches(pattern: str, column: str) -> bool:
    if pattern.startswith("*"):
        return column.endswith(pattern[1:])
    if pattern.endswith("*"):
        return column.startswith(pattern[:-1])
    return column == pattern


def _column_problem(values: pd.Series, kind: str, low: float, high: float) -> str:
    """Returns the first wrong value of a column, with its line in the file ("" if none)."""
    import numpy as np
    import pandas as pd

    # Checked on numpy arrays: the same tests on pandas Series cost ten times more (a run's files are read
    # back by every figure, show and resume).
    if kind == "colour":
        bad = ~values.isin(["black", "white"]).to_numpy()
        what = "black or white"
    else:
        if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
            # pandas parsed every field as a number (an empty one as NaN): no text to look at
            numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
            present = ~np.isnan(numbers)
        else:
            numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            present = (values.notna() & (values.astype(str).str.strip() != "")).to_numpy()
        finite = np.isfinite(numbers)
        with np.errstate(invalid="ignore"):  # NaN compares false, as wanted
            bad = (present & ~finite) | (finite & ((numbers < low) | (numbers > high)))
        if kind in ("int", "number"):
            bad |= ~present
        if kind == "int":
            bad |= finite & (numbers != np.floor(numbers))
        what = f"{'an integer' if kind == 'int' else 'a number'} in [{low:,g}, {high:,g}]"
    if not bad.any():
        return ""
    row = int(np.flatnonzero(bad)[0])
    value = values.iloc[row]
    shown = "nothing" if pd.isna(value) else repr(value.item() if hasattr(value, "item") else value)  # numpy -> Python
    return f"line {row + 2}: {shown[:40]} is not {what}"


def read_evaluation(run_dir: Path, name: str) -> Evaluation:
    """Returns a run's table ``name`` (BEST, MEAN, GA_BEST) as an evaluation: its evaluation file in a run with
    features, else its CSV (an evaluation without features).

    :raises WeightsError: if the file is missing or malformed.
    """
    return load_evaluation(table_file(Path(run_dir), name))


def read_records(run_dir: Path, name: str, size: int | None = None) -> list[dict[str, Any]]:
    """Returns the rows of a run's per-generation CSV file as dicts, checked (see :func:`read_table`)."""
    return read_table(run_dir, name, size).to_dict("records")


def read_generations(run_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Reads ``generations.csv`` of a run, checked (see :func:`read_table`).

    :raises RunDirError: if the file is missing, damaged, empty or lacks a required column.
    """
    path = Path(run_dir) / GENERATIONS
    generations = read_table(run_dir, GENERATIONS)
    if generations.empty:
        raise RunDirError(f"'{path}' has no generations yet")
    return generations


def experiment_name(run_dir: str | os.PathLike[str]) -> str:
    """Returns ``[experiment] name`` from the run's ``config.toml``, or "" if unavailable."""
    return _experiment_text(run_dir, "name")


def experiment_description(run_dir: str | os.PathLike[str]) -> str:
    """Returns ``[experiment] description`` from the run's ``config.toml``, or "" if unavailable."""
    return _experiment_text(run_dir, "description")


def _experiment_text(run_dir: str | os.PathLike[str], key: str) -> str:
    experiment = run_settings(run_dir).get("experiment", {})
    value = experiment.get(key, "") if isinstance(experiment, dict) else ""
    return " ".join(str(value).split())  # one line, whatever the file holds


def writes_games(run_dir: Path) -> bool:
    """Returns whether a run writes games.csv (its config may have turned it off)."""
    # A run made with [output] games_csv = false has no games.csv by design: no warning then.
    output = run_settings(run_dir).get("output", {})
    return bool(output.get("games_csv", True)) if isinstance(output, dict) else True


def squares_evolved(run_dir: Path) -> bool:
    """Says whether a run evolves square weights: every run but one of a pattern network with patterns.squares
    = false, whose squares are all 0 (no heatmap of them is drawn)."""
    patterns = run_settings(run_dir).get("patterns", {})
    return not isinstance(patterns, dict) or not patterns.get("sets") or bool(patterns.get("squares", False))


def read_refine_state(run_dir: Path) -> dict[str, Any] | None:
    """Returns the refinement's saved state (refine_state.json), or None if it has none.

    :raises RunDirError: if the file is unreadable or not the state of a refinement.
    """
    path = Path(run_dir) / REFINE_STATE
    if not os.path.lexists(path):
        return None
    data = read_run_file(path)
    try:
        state = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise RunDirError(f"cannot read '{path}': it is nested too deeply to be a refinement's state") from None
    except ValueError as error:
        raise RunDirError(f"cannot read '{path}': {error}") from error
    shape = {"generation": int, "start": list, "strategy": dict, "rows": list}
    if not isinstance(state, dict) or any(not isinstance(state.get(key), kind) or isinstance(state.get(key), bool)
                                          for key, kind in shape.items()) \
            or [row.get("generation") if isinstance(row, dict) else None for row in state["rows"]] \
            != list(range(state["generation"] + 1)):
        raise RunDirError(f"'{path}' is not a refinement's state (generation, start, strategy, and one row per "
                          "generation from 0); the run directory is damaged: restore it, or remove the file to "
                          "refine again")
    return state


def run_settings(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """Returns a run's config.toml as plain tables, or ``{}`` if it has none or it is not TOML (for figures' notes).

    :raises RunDirError: if config.toml is there but is not a regular file of a config's size (a FIFO, a device).
    """
    path = Path(run_dir) / CONFIG
    if not os.path.lexists(path):
        return {}
    data = read_run_file(path)
    try:
        settings = tomllib.loads(data.decode("utf-8").removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        return {}
    return settings if isinstance(settings, dict) else {}

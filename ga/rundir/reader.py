"""Reading a run directory back: its config and its per-generation records."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ga.config import Config, load_config
from ga.rundir.layout import CONFIG, GENERATIONS, REFINE_STATE, RunDirError, check_run_dir

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["experiment_description", "experiment_name", "read_config", "read_generations", "read_records", "read_refine_state", "run_settings", "writes_games"]


def read_config(run_dir: Path) -> Config:
    """Returns the resolved config a run was started with (its config.toml).

    :raises RunDirError: if ``run_dir`` is not a run directory or has no config.toml.
    :raises ConfigError: if config.toml is not a valid config.
    """
    path = check_run_dir(run_dir)
    if not (path / CONFIG).is_file():
        raise RunDirError(f"'{run_dir}' has no {CONFIG}; the run directory is damaged")
    return load_config(path / CONFIG, run_file=True)


def read_records(run_dir: Path, name: str) -> list[dict[str, Any]]:
    """Returns the rows of a run's per-generation CSV file as dicts."""
    import pandas as pd  # here: a run that never resumes need not import it

    return pd.read_csv(run_dir / name).to_dict("records")


def read_generations(run_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Reads ``generations.csv`` of a run.

    :raises FileNotFoundError: if the file is missing.
    :raises ValueError: if it is empty or lacks a required column.
    """
    path = Path(run_dir) / GENERATIONS
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist; is {Path(run_dir)} a run directory?")
    import pandas as pd  # here: only readers of the figures' data need it

    try:
        generations = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path} is empty") from None
    required = ["generation", "games", "wins", "draws", "losses", "win_rate"]
    missing = [column for column in required if column not in generations.columns]
    if missing:
        raise ValueError(f"{path} lacks column(s) {', '.join(missing)}")
    if generations.empty:
        raise ValueError(f"{path} has no generations yet")
    return generations


def experiment_name(run_dir: str | os.PathLike[str]) -> str:
    """Returns ``[experiment] name`` from the run's ``config.toml``, or "" if unavailable."""
    return _experiment_text(run_dir, "name")


def experiment_description(run_dir: str | os.PathLike[str]) -> str:
    """Returns ``[experiment] description`` from the run's ``config.toml``, or "" if unavailable."""
    return _experiment_text(run_dir, "description")


def _experiment_text(run_dir: str | os.PathLike[str], key: str) -> str:
    path = Path(run_dir) / CONFIG
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return ""
    experiment = config.get("experiment", {})
    value = experiment.get(key, "") if isinstance(experiment, dict) else ""
    return " ".join(str(value).split())  # one line, whatever the file holds


def writes_games(run_dir: Path) -> bool:
    """Returns whether a run writes games.csv (its config may have turned it off)."""
    # A run made with [output] games_csv = false has no games.csv by design: no warning then.
    try:
        config = tomllib.loads((Path(run_dir) / CONFIG).read_text(encoding="utf-8"))
        return bool(config.get("output", {}).get("games_csv", True))
    except (OSError, ValueError, AttributeError):
        return True


def read_refine_state(run_dir: Path) -> dict[str, Any] | None:
    """Returns the refinement's saved state (refine_state.json), or None if it has none.

    :raises RunDirError: if the file is unreadable or not a JSON object.
    """
    path = Path(run_dir) / REFINE_STATE
    if not path.is_file():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RunDirError(f"cannot read '{path}': {error}") from error
    if not isinstance(state, dict):
        raise RunDirError(f"'{path}' is not a JSON object; the run directory is damaged")
    return state


def run_settings(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """Returns a run's config.toml as plain tables, or ``{}`` if it cannot be read (for figures' notes)."""
    try:
        data = tomllib.loads((Path(run_dir) / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}

"""The layout of a study directory: every file a study writes, by name, and what it holds.

This is the only module that names the files of a study directory; the
study's readers and writers take their names from here. Each run is an
ordinary run directory under ``runs/`` (its own files are named by
:mod:`ga.rundir.layout`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = [
    "CONFIGS", "FIGURES", "PLOTS", "RUNS", "RUN_COLUMNS", "SCORES", "STUDY", "STUDY_CSV", "STUDY_FILES", "SUMMARY_CSV", "SUMMARY_MD",
    "check_label", "check_name", "config_file", "is_study_dir", "run_dir", "run_name", "scores_file",
]

STUDY = "study.toml"  # the study as it runs: seeds resolved, each config a file under configs/
CONFIGS = "configs"  # configs/<label>.toml: each config in full, every override applied
RUNS = "runs"  # runs/<label>-seed<seed>/: one run directory per config and seed
SCORES = "scores"  # scores/<label>-seed<seed>.json: a run's held-out scores, written as each is played
STUDY_CSV = "study.csv"
SUMMARY_MD = "summary.md"
SUMMARY_CSV = "summary.csv"
PLOTS = "plots"
#: study.csv's columns before the keys and the scores: a measure may not take one of these names.
RUN_COLUMNS = ("config", "seed", "status", "generations", "games", "wall_s")

#: What each file of a study directory holds, in the order they are listed.
STUDY_FILES: dict[str, str] = {
    STUDY: "the study as it runs: its seeds, configs and measures",
    CONFIGS: "each config in full, every override applied (configs/LABEL.toml)",
    RUNS: "one ordinary run directory per config and seed (runs/LABEL-seedS)",
    SCORES: "each run's held-out scores, kept as they are played",
    STUDY_CSV: "one row per run: config, seed, the keys the configs differ in, scores, games, wall time",
    SUMMARY_MD: "per config each measure's mean and 95% interval over seeds; the pairwise comparisons",
    SUMMARY_CSV: "the same numbers as summary.md, one row per mean and per comparison",
    PLOTS: "curves.png, measures.png (and grid.png for a one-key grid)",
}

#: The figures of a study, by file stem: the training curves, the measures per run, a one-key grid's measures.
FIGURES = ("curves", "measures", "grid")

_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=,+-]{0,99}")


def check_label(label: str) -> str | None:
    """Returns why ``label`` cannot name a config of a study (it names files and folders), or None."""
    if _LABEL.fullmatch(label) and ".." not in label:
        return None
    return (f"must be 1-100 letters, digits or . _ = , + - (starting with a letter or digit), got {label!r}; "
            "it names the config's run directories")


def check_name(name: str) -> str | None:
    """Returns why ``name`` cannot name a study (its directory is ``results/<name>-<time>``), or None."""
    if (not name or len(name) > 100 or name in (".", "..") or "/" in name or "\\" in name
            or any(not char.isprintable() for char in name)):
        return (f"must be 1-100 printable characters without / or \\ (it names the study's directory in results/), "
                f"got {name!r}")
    return None


def run_name(label: str, seed: int) -> str:
    """Returns the name of the run of config ``label`` with ``seed``."""
    return f"{label}-seed{seed}"


def run_dir(study_dir: Path, label: str, seed: int) -> Path:
    """Returns the run directory of config ``label`` with ``seed``."""
    return Path(study_dir) / RUNS / run_name(label, seed)


def scores_file(study_dir: Path, label: str, seed: int) -> Path:
    """Returns the file of the held-out scores of config ``label``'s run with ``seed``."""
    return Path(study_dir) / SCORES / f"{run_name(label, seed)}.json"


def config_file(study_dir: Path, label: str) -> Path:
    """Returns the file of config ``label`` in full."""
    return Path(study_dir) / CONFIGS / f"{label}.toml"


def is_study_dir(path: str | os.PathLike[str]) -> bool:
    """Returns whether ``path`` is a study directory (it holds study.toml)."""
    try:
        return (Path(path) / STUDY).is_file()
    except (OSError, ValueError):
        return False

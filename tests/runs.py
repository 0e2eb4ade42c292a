"""Helpers shared by the tests that compare whole runs."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

#: The files two runs of one experiment and seed must share byte for byte (a run with features keeps its
#: tables as the evaluation files instead of the CSVs).
REPRODUCIBLE = ["population.csv", "best_weights.csv", "mean_weights.csv", "games.csv", "hall_of_fame.csv"]
EVALUATIONS = {"best_weights.csv": "best_evaluation.json", "mean_weights.csv": "mean_evaluation.json",
               "ga_best_weights.csv": "ga_best_evaluation.json"}


def with_changes(base: dict[str, dict[str, Any]], **sections: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Returns a copy of an experiment's sections with the keys of ``sections`` changed (the base is untouched)."""
    data = {name: dict(values) for name, values in base.items()}
    for name, values in sections.items():
        data[name] = data.get(name, {}) | values
    return data


def generations_without_timings(run_dir: Path, name: str = "generations.csv") -> list[list[str]]:
    """Returns generations.csv (or another per-generation CSV) without its ``*_s`` timing columns."""
    with open(run_dir / name, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    keep = [i for i, column in enumerate(rows[0]) if not column.endswith("_s")]
    return [[row[i] for i in keep] for row in rows]


def reproducible_state(run_dir: Path) -> dict[str, Any]:
    """Returns what two runs of one experiment must share: file bytes and untimed generations.csv."""
    def kept(name: str) -> Path:
        evaluation = run_dir / EVALUATIONS.get(name, name)
        return evaluation if evaluation.exists() else run_dir / name

    state: dict[str, Any] = {name: kept(name).read_bytes() for name in REPRODUCIBLE}
    if (run_dir / "final.csv").exists():  # runs with a final tournament
        state["final.csv"] = (run_dir / "final.csv").read_bytes()
    state["generations.csv"] = generations_without_timings(run_dir)
    if (run_dir / "refine.csv").exists():  # refined runs
        state["refine.csv"] = generations_without_timings(run_dir, "refine.csv")
        state["ga_best_weights.csv"] = kept("ga_best_weights.csv").read_bytes()
    return state


def assert_same_run(first: Path, second: Path) -> None:
    """Asserts two run directories hold the same results."""
    a, b = reproducible_state(first), reproducible_state(second)
    for name in a:
        assert a[name] == b[name], f"{name} differs between {first} and {second}"

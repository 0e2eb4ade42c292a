"""othello-ga: a genetic algorithm for the 64 square weights of an Othello evaluation function.

The packages are layers, each importing only those below it (checked by
import-linter, see pyproject.toml)::

    ga.cli                        the command line
    ga.analysis | ga.evolution    evaluation, statistics, figures | the GA, tournament, refinement
    ga.rundir   | ga.games        the run directory | seeds, game plans, the executor, Dask
    ga.config                     experiments: the validated schema
    ga.weights  | ga.files        weight-table formats | atomic writes

The Python API::

    from ga import evolve, resume, evaluate_player
    result = evolve("experiments/quick.toml", out="runs/quick", seed=1)
    result.logbook_frame()
"""

from __future__ import annotations

from typing import Any

__all__ = ["RunResult", "evaluate_player", "evolve", "resume"]

_API = {
    "evolve": "ga.evolution.run",
    "resume": "ga.evolution.run",
    "RunResult": "ga.evolution.loop",
    "evaluate_player": "ga.analysis.evaluation",
}


def __getattr__(name: str) -> Any:
    # Imported on first use: the command line starts without DEAP, numpy's
    # friends or matplotlib unless a command needs them.
    if name in _API:
        import importlib

        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'ga' has no attribute {name!r}")

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

import os
import sys
from typing import Any

__all__ = ["RunResult", "evaluate_player", "evolve", "resume"]

#: The OpenBLAS kernels every AVX2 machine runs, so that the refinement's CMA-ES (whose matrix
#: products go through numpy's BLAS) gives the same table on every such machine: left to choose,
#: OpenBLAS picks by CPU, and an AVX-512 kernel rounds a 10-term product differently in the last bit.
BLAS_CORE = "Haswell"


def blas_core(cpuinfo: str) -> str | None:
    """Returns the OpenBLAS core to pin on a CPU described by ``cpuinfo`` (Linux's /proc/cpuinfo), None to leave it."""
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return BLAS_CORE if {"avx2", "fma"} <= set(line.partition(":")[2].split()) else None
    return None


#: What OpenBLAS reads for its thread count, first found first: a user's own is kept.
BLAS_THREAD_SETTINGS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _settle_blas() -> None:
    # Only before numpy loads (OpenBLAS chooses once, when it loads), and never over the user's own choice.
    if "numpy" in sys.modules:
        return
    # One BLAS thread: the engine's threads do the parallel work, and the BLAS work here (the CMA-ES's
    # small products) gains nothing from more. OpenBLAS starts a thread per core as it loads, and each
    # spins on a core for a while before it sleeps: time taken from a short run's games and start-up
    # (docs/performance.md, Start-up).
    if not any(name in os.environ for name in BLAS_THREAD_SETTINGS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    if "OPENBLAS_CORETYPE" in os.environ or not sys.platform.startswith("linux"):
        return
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            # The first processor's flags are enough (a machine with hundreds of cores lists them all).
            core = blas_core(next((line for line in cpuinfo if line.startswith("flags")), ""))
    except OSError:
        return
    if core is not None:
        os.environ["OPENBLAS_CORETYPE"] = core


_settle_blas()

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

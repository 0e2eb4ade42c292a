"""From what a user names (a run directory, a weights file, a built-in table) to a weight table.

One rule everywhere: a name is a run directory if it is a directory, a
weights file if it exists or looks like a path (:func:`engine.players.is_path`),
and otherwise a built-in table name.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engine import TABLES, parse_spec
from engine.evaluation import EVALUATIONS, Evaluation
from engine.kinds import KINDS
from engine.players import is_path
from ga.rundir.layout import (
    BEST, CONFIG, GA_BEST, GENERATIONS, MANIFEST, MEAN, RunDirError, check_run_dir, table_file,
)
from ga.rundir.reader import read_config
from ga.weights import load_evaluation, load_weights

#: What a name resolves to: a table of 64 (or 128) weights, or an evaluation with features.
Weights = npt.NDArray[np.float64] | Evaluation

__all__ = ["REFERENCE", "REFERENCE_WHICH", "WHICH", "builtin_names", "builtin_table", "resolve_player",
           "resolve_weights", "run_phase_move", "run_player"]

REFERENCE = "reference"  # the shipped results of results/reference/
REFERENCE_WHICH = ("strong", "seed2021")
WHICH = ("best", "mean", "ga_best", *REFERENCE_WHICH)  # ga_best: a refined run's table before refinement
_RUN_TABLES = {"best": BEST, "mean": MEAN, "ga_best": GA_BEST}


def builtin_table(name: str) -> npt.NDArray[np.float64] | None:
    """Returns the built-in weight table called ``name`` (``engine.TABLES``), or None."""
    table = TABLES.get(name)
    return None if table is None else np.array(table, dtype=np.float64)


def builtin_names() -> str:
    """Returns the names of the built-in tables and evaluations, for messages."""
    return ", ".join([*TABLES, *EVALUATIONS])


def _names_a_run(source: str) -> bool:
    """Says whether ``source`` is a directory to read as a run: any directory, but one named like a built-in
    (``engine``, the source tree's own folder beside a checkout) that holds no run files."""
    path = Path(source)
    if not source or not os.path.isdir(source):  # a name no file system can hold (too long) is no directory
        return False
    if source in TABLES or source in EVALUATIONS:
        return any((path / name).is_file() for name in (MANIFEST, CONFIG, GENERATIONS))
    return True


def _table_or_evaluation(evaluation: Evaluation) -> Weights:
    """Returns a table as the array it always was, and an evaluation with features or a network as itself."""
    return np.array(evaluation.squares, dtype=np.float64) if evaluation.is_table else evaluation


def resolve_weights(source: str, which: str = "best") -> tuple[Weights, str]:
    """Returns ``(weights, description)`` of a run directory, weights file or built-in table name.

    ``weights`` is an array of 64 (or 128) weights, or an
    :class:`~engine.evaluation.Evaluation` for what weighs features (an
    evaluation file, a run with features, a built-in evaluation such as paip).

    A run directory gives its ``best_weights.csv``, ``mean_weights.csv`` or
    (refined runs) ``ga_best_weights.csv`` (``which`` = best, mean or
    ga_best); ``reference`` gives the table of experiments/strong.toml shipped
    in results/reference/ (``which`` = best or strong), or that of
    experiments/seed2021.toml (``which`` = seed2021).

    :raises RunDirError: for a directory that is not a run or lacks the table.
    :raises WeightsError: for a missing or malformed weights file.
    :raises ValueError: if ``source`` is none of the three.
    """
    if which not in WHICH:
        raise ValueError(f"unknown table {which!r}; use {', '.join(WHICH)}")
    path = Path(source)
    if source == REFERENCE and not os.path.exists(source):
        # The shipped results (results/reference/): strong.toml's table, or seed2021's.
        if which in ("mean", "ga_best"):
            raise ValueError("the reference has one table per experiment; use --which strong or --which seed2021")
        name = REFERENCE if which in ("best", "strong") else f"{REFERENCE}-{which}"
        return np.array(TABLES[name], dtype=np.float64), f"built-in table {name}"
    if which in REFERENCE_WHICH:
        raise ValueError(f"--which {which} selects a table of the shipped reference; use it with SOURCE 'reference'")
    if _names_a_run(source):
        run_dir = check_run_dir(path)
        table_path = table_file(run_dir, _RUN_TABLES[which])
        if not os.path.lexists(table_path):
            raise RunDirError(
                f"run '{source}' has no {table_path.name} "
                + ("(it has no [refine] stage, or has not finished it); use --which best"
                   if which == "ga_best" else "(it stopped before writing it); resume the run or export a weights file")
            )
        return _table_or_evaluation(load_evaluation(table_path)), str(table_path)
    if which != "best":
        raise ValueError(f"--which {which} selects a table of a run directory; '{source}' is a single table "
                         "(leave --which out)")
    if source and (os.path.exists(source) or is_path(source)) and source not in EVALUATIONS and builtin_table(source) is None:
        return _table_or_evaluation(load_evaluation(path)), str(path)
    table = builtin_table(source)
    if table is not None:
        return table, f"built-in table {source}"
    if source in EVALUATIONS:
        return EVALUATIONS[source], f"built-in evaluation {source}"
    raise ValueError(
        f"'{source}' is not a run directory, a weights file or a built-in table ({builtin_names()})"
    )


def run_phase_move(run_dir: Path) -> int | None:
    """Returns the move a run's two-phase tables switch at (None for a run of 64-weight tables)."""
    config = read_config(run_dir)
    return config.population.phase_move if config.population.genome == "phase" else None


def run_player(run_dir: Path, which: str = "best", *, one_ply: bool = False, deepest: bool = False) -> str:
    """Returns the spec of the player a run trained, playing one of its tables (its best by default).

    Every setting the run recorded carries over: the kind and depth of its
    player and, for a two-phase table, its ``phase_move``; ``one_ply`` keeps
    the table and the phase but plays it at one ply (the league and eu
    protocols); ``deepest`` plays a run that spread its games over search
    depths (``fitness.depths``) at the deepest of them, the depth it was
    trained to search (``play``).
    """
    config = read_config(run_dir)
    table = table_file(run_dir, _RUN_TABLES[which])
    if not os.path.lexists(table):
        raise RunDirError(f"run '{run_dir}' has no {table.name} (it stopped before writing it); resume the run first")
    spec = parse_spec(config.fitness.player)
    if deepest and config.fitness.depths and not one_ply:
        spec = dataclasses.replace(spec, depth=max(config.fitness.depths))
    if one_ply or spec.kind != "alphabeta" and spec.depth == 1:
        spec = parse_spec("wpc:1")
    phase = config.population.phase_move if config.population.genome == "phase" else None
    return str(dataclasses.replace(spec, table=str(table), phase_move=phase))


def resolve_player(text: str, *, deepest: bool = False,
                   argument: str = "WEIGHTS_OR_SPEC") -> tuple[str | npt.NDArray[np.float64], str, Path | None]:
    """Returns ``(player, label, run_dir)`` for a table or a player spec (``evaluate``'s WEIGHTS_OR_SPEC).

    ``player`` is a weights array (a run directory's best table, a weights file,
    a built-in table; played as ``wpc:1``) or a player spec; ``run_dir`` is set
    when the table comes from a run, whose player it is (:func:`run_player`;
    ``deepest`` as there). An error names the command's ``argument``.

    :raises ValueError: (or a subclass) naming what is wrong.
    """
    path = Path(text)
    if _names_a_run(text):
        run_dir = check_run_dir(path)
        spec = run_player(run_dir, deepest=deepest)
        return spec, spec, run_dir
    if text and (os.path.exists(text) or builtin_table(text) is not None):  # False for a name too long for a file
        weights, description = resolve_weights(text)
        return weights, f"wpc:1 with {description}", None
    try:
        spec = parse_spec(text)
    except ValueError as error:
        # A text that starts with a player kind is a spec with a mistake, whatever dots its options hold;
        # otherwise one that looks like a path is a weights file.
        if is_path(text) and "@" not in text and re.split(r"[:,]", text, maxsplit=1)[0] not in KINDS:
            load_weights(path)  # raises "weights file '...' does not exist" (or names what else it is)
        # The built-in tables once: a spec's own error may have listed them already.
        tables = "a built-in table" if builtin_names() in str(error) else f"a built-in table ({builtin_names()})"
        raise ValueError(f"{error}; {argument} may also be a weights file, a run directory or {tables}") from None
    return text, str(spec), None


"""A terminal summary of a run directory (``othello-ga show RUN_DIR``).

:func:`summarize_run` reads whatever files the run has written (an interrupted
run may lack the population and weight tables) and returns text; it never
prints.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from engine.evaluation import Evaluation
from ga.rundir.layout import (
    BEST, CHECKPOINT, CONFIG, EVALUATION_FILES, FINAL, GA_BEST, GAMES, GENERATIONS, HALL_OF_FAME, MANIFEST, MEAN,
    OPTIONAL, POPULATION, REFINE_CSV, REFINE_STATE, RESTARTS, RUN_FILES, check_run_dir, table_file,
)
from ga.rundir.lock import holder
from ga.rundir.manifest import read_manifest
from ga.rundir.reader import experiment_description, experiment_name, printable, read_config, read_table
from ga.files import duration_text
from ga.weights import FILE_NAMES, WeightsError, load_evaluation, weight_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["format_grid", "summarize_run"]


def _feature_lines(evaluation: Evaluation) -> list[str]:
    """Returns the lines of an evaluation's feature weights (none for a table), and the endgame it was trained with."""
    if not evaluation.features:
        return []
    lines = ["Feature weights" + (" (before / after the switch move)" if evaluation.n_tables == 2 else "")]
    for name in evaluation.features:
        weights = " / ".join(f"{evaluation.weights_of(t)[name]:.3g}" for t in range(evaluation.n_tables))
        lines.append(f"  {name:<10} {weights}")
    if evaluation.end:
        lines.append(f"  trained solving the last {evaluation.end} empty squares exactly (end={evaluation.end})")
    return lines


def _network_lines(evaluation: Evaluation, sets: str) -> list[str]:
    """Returns the lines that describe an evaluation's pattern network: its tuple sets, weights and phases."""
    network = evaluation.patterns
    assert network is not None
    phases = len(network.phases)
    starts = ", ".join(str(start) for start in network.phases)
    values = network.vector()
    return [
        f"  tuple sets      {sets or '(not named)'}: {len(network.tuples)} tuples, {network.n_copies} copies, "
        f"{network.n_weights:,} weights",
        f"  phases          {phases} (starting at {starts} empty squares)" if phases > 1 else
        "  phases          1 (one table per tuple for the whole game)",
        f"  colours         {network.colours}",
        f"  weights         from {values.min():.3g} to {values.max():.3g}, mean |w| {np.abs(values).mean():.3g}",
        *([] if any(evaluation.squares) else ["  squares         not evolved (0)"]),
    ]


def _sets(path: Path) -> str:
    """Returns the tuple sets a run evolved, as its config names them ("" when it cannot be read)."""
    try:
        sets = read_config(path).patterns.sets
    except (ValueError, OSError):
        return ""
    return ", ".join(sets)


def format_grid(weights: npt.ArrayLike, digits: int = 2) -> str:
    """Returns 64 (or 128) weights as 8x8 grid(s) labelled a-h and 1-8, rank 1 at the top.

    >>> print(format_grid(range(64), digits=0).splitlines()[1])
    1  0  1  2  3  4  5  6  7
    """
    values = np.asarray(weights, dtype=np.float64).ravel()
    if values.size not in (64, 128):
        raise ValueError(f"expected 64 or 128 weights, got {values.size}")
    cells = [weight_text(value, digits) for value in values]  # never "-0.00"
    width = max(len(cell) for cell in cells) + 1
    header = " " + "".join(f"{name:>{width}}" for name in FILE_NAMES)
    blocks = []
    for phase in range(values.size // 64):
        lines = [] if values.size == 64 else [("before" if phase == 0 else "after") + " the switch move"]
        lines.append(header)
        for rank in range(8):
            start = 64 * phase + 8 * rank
            lines.append(f"{rank + 1}" + "".join(f"{cell:>{width}}" for cell in cells[start : start + 8]))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def summarize_run(run_dir: str | os.PathLike[str]) -> str:
    """Returns a terminal summary of a run: settings, progress, win rates, files, best table.

    :raises RunDirError: if ``run_dir`` is not a run directory or its manifest is unreadable.
    """
    path = check_run_dir(run_dir)
    manifest = read_manifest(path, missing_ok=True)
    generations = _read_generations(path)
    progress = _progress(manifest, generations)
    lines = [f"Run {printable(str(path))}"]
    rows: list[tuple[str, str]] = [
        ("experiment", str(manifest.get("experiment", experiment_name(path)) or "?")),
        *([("description", description)] if (description := experiment_description(path)) else []),
        ("seed", _text(manifest.get("seed"))),
        ("status", _status(manifest, holder(path))),
        ("generations", _generations_done(progress)),
        ("games played", _games_played(progress, _restart_games(path))),
        ("wall time", _wall_time(progress)),
        *([("refinement", _refinement(manifest))] if "refine_generations" in manifest else []),
        ("started", _text(manifest.get("started"))),
        ("finished", _text(manifest.get("finished")) if manifest.get("finished") else "-"),
    ]
    rows += _win_rate_rows(generations)
    if manifest.get("command"):
        command = manifest["command"]
        rows.append(("command", " ".join(map(str, command)) if isinstance(command, list) else str(command)))
    # Every value read from the run is printed with its control characters escaped: the directory is untrusted.
    lines += [f"  {label:<13} {printable(value)}" for label, value in rows]

    lines += ["", "Files"]
    for name, description in RUN_FILES.items():
        file_path = path / name
        if file_path.exists():
            lines.append(f"  {printable(str(file_path)):<{_path_width(path)}}  {description}")
    missing = [name for name in _expected_files(path, manifest) if not (path / name).exists()]
    if missing:
        lines.append(f"  missing: {', '.join(missing)}")

    best_path = table_file(path, BEST)
    lines.append("")
    if best_path.is_file():
        try:
            best = load_evaluation(best_path)
            if best.patterns is None:
                lines += [f"Best table ({printable(str(best_path))})", format_grid(best.squares)]
            else:
                lines += [f"Best evaluation ({printable(str(best_path))})", *_network_lines(best, _sets(path))]
                if any(best.squares):
                    lines += ["Square weights", format_grid(best.squares)]
            lines += _feature_lines(best)
        except WeightsError as error:
            lines.append(f"Best table: {printable(str(error))}")
    else:
        lines.append("Best table: not written (the run stopped before its end)")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- pieces


def _read_generations(path: Path) -> pd.DataFrame | None:
    """Returns generations.csv, or None if it is missing or empty (RunDirError if it is damaged)."""
    if not os.path.lexists(path / GENERATIONS):
        return None
    generations = read_table(path, GENERATIONS)  # damaged values are named, never shown as results
    if generations.empty:  # (read_table has checked the columns)
        return None
    return generations


def _text(value: object) -> str:
    return "?" if value is None or value == "" else str(value)


def _status(manifest: dict[str, Any], writer: int | None) -> str:
    status = manifest.get("status")
    if writer is not None:
        who = f"process {writer}" if writer > 0 else "another process"
        return f"{status or 'running'}: live, being written by {who} now (the files shown may change)"
    if status is None:
        return "unknown (no manifest.json)"
    if status == "running":
        return "running (or killed without a chance to record it)"
    if status == "interrupted":
        return "interrupted (resume from checkpoint.json)"
    if status == "failed":
        return f"failed ({manifest.get('error', 'no reason recorded')}); othello-ga resume continues from its checkpoint"
    if status == "refining":
        return "refining (or stopped while refining: othello-ga resume finishes it)"
    return str(status)


def _refinement(manifest: dict[str, Any]) -> str:
    seconds = manifest.get("refine_s")
    wall = f", {seconds:.0f} s" if isinstance(seconds, (int, float)) else ""
    return f"{manifest['refine_generations']} CMA-ES generations, {manifest.get('refine_games', '?'):,} games{wall}"


def _progress(manifest: dict[str, Any], generations: pd.DataFrame | None) -> dict[str, Any]:
    """Returns the manifest with its GA progress brought up to what generations.csv records.

    The manifest is written when a run starts and when it stops; a live run,
    or one killed by kill -9 or stopped by a full disk, has rows past it (the
    rows are checked: one per generation from 0).
    """
    progress = dict(manifest)
    if generations is None:
        return progress
    recorded = {"generations_done": len(generations),
                "games_played": int(generations["games"].sum()),
                "wall_s": float(generations["generation_s"].sum()) if "generation_s" in generations.columns else 0.0}
    for key, value in recorded.items():
        if not isinstance(progress.get(key), (int, float)) or value > progress[key]:
            progress[key] = value
    return progress


def _generations_done(progress: dict[str, Any]) -> str:
    """Returns the GA's generations done, in the one meaning the progress bar and a stopped run's message use."""
    done, planned = progress.get("generations_done"), progress.get("generations_planned")
    return f"{_text(done)} done" if planned is None else f"{_text(done)} of {planned} done"


def _games_played(progress: dict[str, Any], restarts: int | None = None) -> str:
    """Returns the games the run played, saying what the count covers: the GA's generations alone, or every
    stage's in all (the count ``evolve`` ends with) and each stage's."""
    games = progress.get("games_played")
    if not isinstance(games, int):
        return _text(games)
    stages = [("GA", games)]
    for key, label in (("final_games", "final tournament"), ("restarts", "restarts"), ("refine_games", "refinement")):
        count = restarts if key == "restarts" else progress.get(key)
        if isinstance(count, int) and not isinstance(count, bool):
            stages.append((label, count))
    if len(stages) == 1:
        return f"{games:,} (the GA's generations)"
    parts = ", ".join(f"{label} {count:,}" for label, count in stages)
    return f"{sum(count for _, count in stages):,} in all ({parts})"


def _restart_games(path: Path) -> int | None:
    """Returns the games a refined run's restarts played (each its generations and tournament), None without any."""
    folder = path / RESTARTS
    if not folder.is_dir():
        return None
    total = 0
    for restart in sorted(folder.iterdir()):
        manifest = read_manifest(restart, missing_ok=True) if restart.is_dir() else {}
        total += sum(count for key in ("games_played", "final_games")
                     if isinstance(count := manifest.get(key), int) and not isinstance(count, bool))
    return total


_STAGES = (("wall_s", "GA"), ("final_s", "final tournament"), ("restarts_s", "restarts"), ("refine_s", "refinement"))


def _seconds(value: object) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return float(value) if ok else None


def _wall_time(manifest: dict[str, Any]) -> str:
    """Returns the whole job's time, with each stage's share when it had more than one."""
    stages = [(label, _seconds(manifest.get(key))) for key, label in _STAGES if key in manifest]
    known = [(label, seconds) for label, seconds in stages if seconds is not None]
    if not known:
        return "?"
    total = sum(seconds for _, seconds in known)
    # From start to finish, for a run that ran in one go: what the stages recorded by earlier versions leave out
    # (restarts, writing). A resumed run's clock holds the idle time between its stop and its resume.
    clock = None if manifest.get("resumes") else _clock_seconds(manifest)
    if clock is not None and clock > total:
        known.append(("the rest", clock - total))
        total = clock
    text = duration_text(total)
    if len(known) > 1 and total > 0:
        text += " (" + ", ".join(f"{label} {duration_text(seconds)}, {seconds / total:.0%}" for label, seconds in known) + ")"
    return text


def _clock_seconds(manifest: dict[str, Any]) -> float | None:
    """Returns the seconds from a finished run's start to its finish, or None."""
    import calendar
    import time

    try:
        started, finished = (calendar.timegm(time.strptime(str(manifest[key]), "%Y-%m-%dT%H:%M:%SZ"))
                             for key in ("started", "finished"))
    except (KeyError, ValueError, TypeError, OverflowError):
        return None
    return float(finished - started) if finished >= started else None


def _expected_files(path: Path, manifest: dict[str, Any]) -> list[str]:
    """Returns the files this run should have by now: by its config (games.csv may be off) and its status."""
    try:
        config = read_config(path)
    except (ValueError, OSError):
        return [name for name in RUN_FILES if name not in OPTIONAL]
    expected = [CONFIG, MANIFEST, GENERATIONS, CHECKPOINT]
    if config.output.games_csv:
        expected.append(GAMES)
    if manifest.get("status") in ("finished", "refining"):
        evaluations = bool(config.population.features or config.patterns.sets)
        tables = [EVALUATION_FILES[BEST], EVALUATION_FILES[MEAN]] if evaluations else [BEST, MEAN]
        expected += [POPULATION, *tables, HALL_OF_FAME]
        if config.final.games:
            expected.append(FINAL)
    if manifest.get("status") == "finished" and config.refine.generations:
        expected += [EVALUATION_FILES[GA_BEST] if config.population.features else GA_BEST, REFINE_CSV, REFINE_STATE]
    return expected


def _win_rate_rows(generations: pd.DataFrame | None) -> list[tuple[str, str]]:
    if generations is None or "win_rate" not in generations.columns:
        return [("win rate", "? (no generations recorded)")]
    ordered = generations.sort_values("generation")
    rates = ordered["win_rate"].astype(float)
    first, last = ordered.iloc[0], ordered.iloc[-1]
    best = ordered.loc[rates.idxmax()]
    return [
        ("win rate", f"first {first['win_rate']:.3f} (generation {int(first['generation'])}), "
                     f"last {last['win_rate']:.3f} (generation {int(last['generation'])}), "
                     f"best {best['win_rate']:.3f} (generation {int(best['generation'])})"),
    ]


def _path_width(path: Path) -> int:
    return max(len(str(path / name)) for name in RUN_FILES)

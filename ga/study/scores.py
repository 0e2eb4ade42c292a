"""A study's scores files (``scores/LABEL-seedS.json``): each run's held-out scores, written as each is played,
with a checksum, so that an edited file (wins and losses swapped, a game count changed) is refused as a
checkpoint is. Below the runner, which writes them, and the summary, which reads them.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ga.analysis.evaluation import MAX_GAMES
from ga.analysis.stats import MatchSummary
from ga.files import atomic_write, read_regular
from ga.rundir.layout import file_problem
from ga.study.layout import scores_file
from ga.study.schema import StudyError

__all__ = ["read_scores", "write_scores"]

# A scores file: its checksum's field, its size at most, and the most games a score counts (a measure's games
# per opponent, twice for eu's two colours).
_SHA256 = "sha256"
_MAX_SCORES_BYTES = 16 * 2**20
_MOST_GAMES = 2 * MAX_GAMES


def read_scores(study_dir: Path, label: str, seed: int) -> dict[str, MatchSummary]:
    """Returns a run's held-out scores written so far, by column (``{}`` if none).

    :raises StudyError: if the file is damaged.
    """
    path = scores_file(study_dir, label, seed)
    if not os.path.lexists(path):
        return {}
    damaged = "the file is damaged; remove it to score the run again"
    problem = file_problem(path)
    if problem:
        raise StudyError(f"'{path}' {problem}")
    try:
        data = json.loads(read_regular(path, _MAX_SCORES_BYTES).decode("utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        raise StudyError(f"cannot read '{path}': {' '.join(str(error).split())}; {damaged}") from None
    if not isinstance(data, dict):
        raise StudyError(f"'{path}' is not a JSON object; {damaged}")
    digest = data.pop(_SHA256, None)
    if digest != _scores_digest(data):
        raise StudyError(f"'{path}' does not match its checksum (edited, or not written by this tool); {damaged}")
    scores = {}
    for column, counts in data.items():
        if not isinstance(counts, dict) or set(counts) != {"games", "wins", "draws", "losses"} or not all(
                type(counts[key]) is int and 0 <= counts[key] <= _MOST_GAMES
                for key in ("games", "wins", "draws", "losses")):
            raise StudyError(f"'{path}': score '{column}' must hold the integers games, wins, draws and losses, "
                             f"each in 0..{_MOST_GAMES:,}; {damaged}")
        try:
            scores[str(column)] = MatchSummary(str(column), counts["games"], counts["wins"], counts["draws"],
                                               counts["losses"])
        except ValueError as error:
            raise StudyError(f"'{path}': score '{column}': {error}; {damaged}") from None
    return scores


def write_scores(study_dir: Path, label: str, seed: int, scores: dict[str, dict[str, int]]) -> None:
    """Adds ``scores`` (counts by column) to a run's scores file, with the checksum :func:`read_scores` checks."""
    if not scores:
        return
    path = scores_file(study_dir, label, seed)
    known = {column: {"games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses}
             for column, s in read_scores(study_dir, label, seed).items()}
    data = known | scores
    atomic_write(path, json.dumps(data | {_SHA256: _scores_digest(data)}, indent=1, sort_keys=True) + "\n")


def _scores_digest(data: dict[str, Any]) -> str:
    """Returns the checksum a scores file carries of its scores: an edited one (wins and losses swapped, a game
    count changed) is refused, as a checkpoint is."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()

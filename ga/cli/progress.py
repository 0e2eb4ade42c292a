"""The progress of a long command: one bar for the whole job, labelled with the stage it is in.

The stages of a run (the GA, its final tournament, the restarts, the
refinement) are known in advance from the config, and so are their games:
the bar counts games against the whole job's total, so its ETA is the
job's, and its label and figures are the current stage's.
"""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress", "duration"]


def duration(seconds: float) -> str:
    """Returns a duration as people read it: 8.2 s, 3m 05s, 1h 02m 10s."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


class Progress:
    """A tqdm bar over a job's games; ``progress(stage)`` starts a stage (see ga.evolution.loop.ProgressFactory)."""

    def __init__(self, quiet: bool, total_games: int | None = None) -> None:
        self.quiet = quiet
        self.total_games = total_games
        self.bar: Any = None
        self.stage: Any = None
        self.step = 0
        self.games = 0
        self.started = time.perf_counter()
        self.stage_started = self.started
        self.times: dict[str, float] = {}  # seconds per stage kind, in the order they ran

    def __call__(self, stage: Any) -> Progress:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total_games, unit="game", unit_scale=True, disable=self.quiet,
                            dynamic_ncols=True, file=sys.stderr)
        self.stage, self.step = stage, stage.start
        self.stage_started = time.perf_counter()
        self._describe()
        return self

    def update(self, record: dict[str, Any]) -> None:
        """Advances the bar by one step of the current stage (its games, and the figures that fit it)."""
        self.step += 1
        self.games += record["games"]
        rate = self.games / max(time.perf_counter() - self.started, 1e-9)
        if "panel_mean" in record:
            figures = f"panel score {record['panel_mean']:.3f}, best {record['panel_best']:.3f}"
        elif "win_rate" in record:
            figures = f"win rate {record['win_rate']:.3f}, best fitness {record['best_fitness']:.3f}"
        else:
            figures = f"{record['games']:,} games"
        self._describe()
        self.bar.set_postfix_str(f"{rate:,.0f} games/s, {figures}", refresh=False)
        self.bar.update(record["games"])

    def close(self) -> None:
        """Ends the current stage (the bar goes on: the job may have more)."""
        if self.stage is None:
            return
        kind = self._kind(self.stage.label)
        self.times[kind] = self.times.get(kind, 0.0) + time.perf_counter() - self.stage_started
        self.stage = None

    def finish(self) -> str:
        """Closes the bar and returns the job's summary: each stage and its time."""
        if self.bar is not None:
            self.bar.close()
        total = time.perf_counter() - self.started
        stages = ", ".join(f"{kind} {duration(seconds)}" for kind, seconds in self.times.items())
        return f"{duration(total)} ({stages}), {self.games:,} games" if stages else duration(total)

    def _describe(self) -> None:
        stage = self.stage
        if stage.unit == "generation":
            self.bar.set_description_str(f"{stage.label} {min(self.step + 1, stage.total)}/{stage.total}",
                                         refresh=False)
        else:
            self.bar.set_description_str(stage.label, refresh=False)

    @staticmethod
    def _kind(label: str) -> str:
        if label.startswith("restart"):
            return "restarts"
        return label

"""The progress of a long command: one bar for the whole job, labelled with the stage it is in.

The stages of a run (the GA, its final tournament, the restarts, the
refinement) are known in advance from the config, and so are their games,
but not their speeds: a refinement's 1-ply games run many times faster than
generations that search. So the bar does not count games against the job's
total at one rate: :class:`Estimate` gives each stage its own measured
speed, and a stage not yet started the cost per game of a small sample of
its own games (:func:`ga.evolution.stages.sample_costs`), scaled by how the
stages seen so far ran against their samples. The bar shows the share of the
job's estimated time done, the time left, and one rate: the current stage's
games per second.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ga.files import duration_text

if TYPE_CHECKING:  # ga.evolution.stages is imported when a run starts: the command line starts without it
    from ga.evolution.stages import StagePlan

__all__ = ["Estimate", "Progress"]

#: Seconds between redraws of the bar while a stage plays without reporting (a tournament is one batch).
REDRAW_SECONDS = 1.0


class Estimate:
    """The seconds a job of stages has left, each stage estimated by its own measured speed.

    Stages of one kind play games of one cost. A kind that has played is
    estimated by its own seconds per game; one that has not, by its sampled
    cost per game (``costs``) times the ratio of measured to sampled time of
    the kinds that have played (threads, the machine's load, the work around
    the games); without a sample, by the speed of the whole job so far. A
    stage that has started but not yet reported counts down from its
    estimate, and every stage counts down between its reports. Times are
    given by the caller (``now``), so it is a pure function of what it is
    told.
    """

    def __init__(self, stages: Sequence[StagePlan], costs: Mapping[str, float] | None = None) -> None:
        self.stages = list(stages)
        self.costs = {kind: cost for kind, cost in (costs or {}).items() if cost > 0}
        self.current = -1  # the index of the stage playing, or of the last one started
        self.running = False
        self.stage_games = 0
        self.stage_started = 0.0
        self.reported = 0.0  # when the current stage last reported games
        self.played: dict[str, list[float]] = {}  # kind -> [games, seconds] of the stages ended

    def start(self, label: str, now: float) -> None:
        """A stage starts: the next one of this label (the ones before it were skipped), or one not planned."""
        later = [i for i in range(self.current + 1, len(self.stages)) if self.stages[i].label == label]
        if later:
            self.current = later[0]
        else:
            from ga.evolution.stages import unplanned

            self.stages.insert(self.current + 1, unplanned(label))
            self.current += 1
        self.running, self.stage_games, self.stage_started, self.reported = True, 0, now, now

    def advance(self, games: int, now: float) -> None:
        """The current stage played ``games`` more games by ``now``."""
        self.stage_games += games
        self.reported = now

    def end(self, now: float) -> None:
        """The current stage ends (finished or stopped)."""
        if not self.running:
            return
        games, seconds = self.played.setdefault(self.stages[self.current].kind, [0.0, 0.0])
        self.played[self.stages[self.current].kind] = [games + self.stage_games, seconds + now - self.stage_started]
        self.running = False

    def _measured(self) -> dict[str, tuple[float, float]]:
        """Returns the games and seconds each kind has played, the current stage's up to its last report included."""
        measured = {kind: (games, seconds) for kind, (games, seconds) in self.played.items()}
        if self.running and self.stage_games:
            kind = self.stages[self.current].kind
            games, seconds = measured.get(kind, (0.0, 0.0))
            measured[kind] = (games + self.stage_games, seconds + self.reported - self.stage_started)
        return {kind: value for kind, value in measured.items() if value[0] > 0 and value[1] > 0}

    def seconds_per_game(self, kind: str) -> float | None:
        """Returns the estimated seconds a game of ``kind`` takes in this job, or None if nothing tells yet."""
        measured = self._measured()
        if kind in measured:
            games, seconds = measured[kind]
            return seconds / games
        sampled = [(games * self.costs[k], seconds) for k, (games, seconds) in measured.items() if k in self.costs]
        if kind in self.costs and sampled:
            return self.costs[kind] * sum(s for _, s in sampled) / sum(c for c, _ in sampled)
        if measured:
            return sum(s for _, s in measured.values()) / sum(g for g, _ in measured.values())
        return None

    def left(self, now: float) -> float | None:
        """Returns the estimated seconds the job has left, or None until something measured tells."""
        total = 0.0
        first = self.current if self.running else self.current + 1
        for index in range(first, len(self.stages)):
            stage = self.stages[index]
            cost = self.seconds_per_game(stage.kind)
            if cost is None:
                if stage.games:
                    return None
                continue
            if index == self.current and self.running:
                # What is left at its last report, less the time since: the estimate counts down between reports.
                total += max(0.0, max(0, stage.games - self.stage_games) * cost - (now - self.reported))
            else:
                total += stage.games * cost
        return total


#: The most the bar shows before the job has finished: its own 100% is kept for ``finish``.
UNFINISHED = 99.0  # shown as 99%: the bar rounds its percentage


class Progress:
    """A tqdm bar over a job's stages; ``progress(stage)`` starts a stage (see ga.evolution.loop.ProgressFactory).

    Use as a context manager: leaving it closes the bar however the job ends.
    """

    def __init__(self, quiet: bool, clock: Callable[[], float] = time.perf_counter) -> None:
        self.quiet = quiet
        self.clock = clock
        self.bar: Any = None
        self.stage: Any = None
        self.step = 0
        self.games = 0
        self.stage_games = 0
        self.figures = ""
        self.estimate: Estimate | None = None
        self.started = clock()
        self.stage_started = self.started
        self.times: dict[str, float] = {}  # seconds per stage kind, in the order they ran
        self._lock = threading.Lock()
        self._ticking = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop_ticker()
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def begin(self, run_dir: Path, stages: Sequence[StagePlan], costs: Callable[[], Mapping[str, float]]) -> None:
        """The job's plan, from the run before its first stage: says where its results go, and sets up the estimate."""
        if self.estimate is not None:
            return
        if not self.quiet:
            click.echo(f"results go to {run_dir}", err=True)
        # Samples only tell stages of different kinds apart: a job of one kind goes by its own speed alone.
        sampled = not self.quiet and len({stage.kind for stage in stages}) > 1
        self.estimate = Estimate(stages, costs() if sampled else {})

    def __call__(self, stage: Any) -> Progress:
        with self._lock:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=100, disable=self.quiet, dynamic_ncols=True, file=sys.stderr,
                                bar_format="{desc} {percentage:3.0f}%|{bar}| {elapsed}{postfix}")
            now = self.clock()
            self.stage, self.step, self.stage_games, self.figures = stage, stage.start, 0, ""
            self.stage_started = now
            if self.estimate is None:  # a caller without a plan: its stages as they come
                self.estimate = Estimate([])
            self.estimate.start(stage.label, now)
            self._draw()
        self._start_ticker()
        return self

    def update(self, record: dict[str, Any]) -> None:
        """Advances the bar by one step of the current stage (its games, and the figures that fit it)."""
        with self._lock:
            self.step += 1
            self.games += record["games"]
            self.stage_games += record["games"]
            if self.estimate is not None:
                self.estimate.advance(record["games"], self.clock())
            if "panel_mean" in record:
                self.figures = f"panel score {record['panel_mean']:.3f}, best {record['panel_best']:.3f}"
            elif "win_rate" in record:
                self.figures = f"win rate {record['win_rate']:.3f}, best fitness {record['best_fitness']:.3f}"
            self._draw()

    def close(self) -> None:
        """Ends the current stage (the bar goes on: the job may have more)."""
        with self._lock:
            if self.stage is None:
                return
            now = self.clock()
            kind = self._kind(self.stage.label)
            self.times[kind] = self.times.get(kind, 0.0) + now - self.stage_started
            if self.estimate is not None:
                self.estimate.end(now)
            self._draw()
            self.stage = None

    def finish(self, finished: bool = True) -> str:
        """Closes the bar and returns the job's summary: each stage and its time. The bar shows 100% only for a
        job that ``finished`` with every stage run: a job stopped part-way (Ctrl-C) keeps the bar where it
        stopped, whatever the estimate says is left (the stage it stopped in has ended)."""
        self._stop_ticker()
        with self._lock:
            if self.bar is not None:
                left = self.estimate.left(self.clock()) if self.estimate is not None else None
                if finished and left == 0:
                    self.bar.n = self.bar.total
                    self.bar.set_postfix_str("done", refresh=False)
                self.bar.close()
                self.bar = None
        total = self.clock() - self.started
        parts = [f"{kind} {duration_text(seconds)}" for kind, seconds in self.times.items()]
        rest = total - sum(self.times.values())
        if parts and rest >= max(0.05, 0.05 * total):  # a short run's time is mostly its start and its figures
            parts.append(f"the rest {duration_text(rest)}: start, files and figures")
        return f"{duration_text(total)} ({', '.join(parts)}), {self.games:,} games" if parts else duration_text(total)

    def _draw(self) -> None:
        """Redraws the bar: the stage and its steps, the share of the job's estimated time done, the time left
        and the current stage's rate (called with the lock held)."""
        if self.bar is None or self.bar.disable:
            return
        now = self.clock()
        elapsed = now - self.started
        left = self.estimate.left(now) if self.estimate is not None else None
        stage = self.stage
        if stage is not None:
            steps = f" {min(self.step, stage.total)}/{stage.total}" if stage.unit == "generation" else ""
            self.bar.set_description_str(f"{stage.label}{steps}", refresh=False)
        parts = [f"about {_clock_text(left)} left" if left is not None else "estimating the time left"]
        stage_seconds = now - self.stage_started
        if self.stage_games and stage_seconds > 0:
            parts.append(f"{self.stage_games / stage_seconds:,.0f} games/s")
        if self.figures:
            parts.append(self.figures)
        self.bar.set_postfix_str(", ".join(parts), refresh=False)
        if left is not None:
            # A stage that outlasts its estimate counts down to no time left before its next report says how
            # much remains: the bar waits below 100% rather than reach it and step back (finish shows 100%).
            share = 100.0 * elapsed / (elapsed + left) if elapsed + left > 0 else 100.0
            self.bar.n = max(self.bar.n, min(share, UNFINISHED))
        self.bar.refresh()

    def _start_ticker(self) -> None:
        """Redraws the bar every REDRAW_SECONDS while a stage plays, so that the time left counts down."""
        if self.quiet or self._ticker is not None:
            return

        def tick() -> None:
            while not self._ticking.wait(REDRAW_SECONDS):
                with self._lock:
                    if self.stage is not None:
                        self._draw()

        self._ticker = threading.Thread(target=tick, name="progress bar", daemon=True)
        self._ticker.start()

    def _stop_ticker(self) -> None:
        self._ticking.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None

    @staticmethod
    def _kind(label: str) -> str:
        if label.startswith("restart"):
            return "restarts"
        return label


def _clock_text(seconds: float) -> str:
    """Returns seconds as the bar's clock shows them: 04:10, or 1:02:03."""
    from tqdm import tqdm

    return str(tqdm.format_interval(seconds))

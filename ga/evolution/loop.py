"""The generation loop, shaped like DEAP's ``eaSimple``, with checkpoints.

Generation 0 is the random initial population; every generation is evaluated
before the next one is bred, and logged and checkpointed while the next one's
games play (at once after the last generation, or on a stop). DEAP's operators draw
from the module-level ``random``: the loop reseeds it from (run seed,
generation) before breeding, so a generation depends only on the run seed and
the previous population, which is what makes resumed runs identical to
uninterrupted ones.
"""

from __future__ import annotations

import math
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from deap import tools

from engine import Interrupted, in_engine_work, stop_work

from ga.config import Config, result_settings, table_digests
from ga.evolution import fitness, operators, tournament
from ga.evolution.genome import GenomeLayout
from ga.evolution.methods import Method, method_of
from ga.evolution.toolbox import HallOfFame, build_toolbox, diversity, fitness_statistics, individuals, same_genes
from ga.games import executor
from ga.games.plan import GamePlan
from ga.rundir.checkpoint import Checkpoint
from ga.rundir.manifest import now_iso
from ga.rundir.writer import RunWriter

__all__ = ["GenerationLoop", "PendingSave", "ProgressFactory", "RunResult", "Stage", "StopRequest", "generations_done"]


@dataclass(frozen=True)
class Stage:
    """A stage of a run, for progress reports: what it is, where it starts and how many steps it has."""

    label: str  # "GA", "restart 3/7", "final tournament", "refinement"
    start: int
    total: int
    unit: str = "generation"  # what a step is: generation, or game for the final tournament


#: Makes the progress bar of a stage: ``factory(stage)`` returns an object with
#: ``update(record)`` (one per step: the step's games and figures) and ``close()``. A factory may also have
#: ``begin(run_dir, stages, costs)``, which the run calls once, before its first stage, with the stages it has
#: still to play (:class:`ga.evolution.stages.StagePlan`) and a callable that measures what a game of each kind
#: of stage costs (:func:`ga.evolution.stages.sample_costs`: a fraction of a second of games).
ProgressFactory = Callable[[Stage], Any]


class StopRequest:
    """Turns SIGINT/SIGTERM into a request to stop: after the current generation, or at once if the engine is
    playing its games when the signal is handled (they are void then, and the run keeps its last whole
    generation)."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def __call__(self, signum: int, frame: Any) -> None:
        if self.signal is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt  # a second Ctrl-C stops at once; the checkpoint is intact
        self.signal = signum
        # Caught while the engine plays (its own look at the signals), the games being played stop between two
        # moves (engine.Interrupted) and are void: a generation of long games (deep searches, exact endgames)
        # would otherwise hold the stop for minutes. Caught between them, the generation is finished and saved.
        if in_engine_work():
            stop_work()

    @contextmanager
    def installed(self) -> Iterator[StopRequest]:
        """Installs the handlers for the duration of the block (main thread only)."""
        try:
            previous = {s: signal.signal(s, self) for s in (signal.SIGINT, signal.SIGTERM)}
        except ValueError:  # not the main thread: leave signals alone
            yield self
            return
        try:
            yield self
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


class PendingSave:
    """A generation's bookkeeping, done once: while the next generation plays, or at the end.

    Everything a generation's fitness decides but the next generation does not
    need: the hall of fame, the statistics and the logbook's record, the CSV
    rows, the checkpoint (which records the CSV sizes it covers) and the
    progress bar. Calling it does all of it and returns the generations done by
    the checkpoint it wrote (None without one, or when already done).
    """

    def __init__(self, finish: Callable[[], tuple[dict[str, Any], Checkpoint, bool]], writer: RunWriter,
                 result: fitness.Generation, bar: Any = None):
        self.finish, self.writer, self.result, self.bar = finish, writer, result, bar
        self.written = False
        self.done: int | None = None  # the generations its checkpoint covers (None: it wrote none)
        self.unsaved: Checkpoint | None = None  # the checkpoint it made but did not write (not due yet)

    def save_now(self) -> int | None:
        """Writes the checkpoint it made but did not write (the next generation was stopped); returns the
        generations done by its checkpoint."""
        self()
        checkpoint, self.unsaved = self.unsaved, None
        if checkpoint is not None:
            checkpoint.csv_bytes = self.writer.csv_bytes()
            self.writer.write_checkpoint(checkpoint)
            self.done = checkpoint.generation + 1
        return self.done

    def __call__(self) -> int | None:
        if self.written:
            return self.done
        self.written = True
        record, checkpoint, due = self.finish()
        self.writer.append_generation(record, self.result.game_log)
        done = None
        if not due:
            self.unsaved, checkpoint = checkpoint, None
        if checkpoint is not None:
            checkpoint.csv_bytes = self.writer.csv_bytes()
            self.writer.write_checkpoint(checkpoint)
            done = checkpoint.generation + 1
        self.done = done
        if self.bar is not None:
            # The bar counts every training game, the TD step's self-play too (as the stage's plan does).
            games = record["games"] + record.get("td_games", 0)
            self.bar.update(record | {"games": games} if "td_games" in record else record)
        return done


def generations_done(stage: str, done: int, total: int) -> str:
    """Returns where a stage stands, in the one meaning every report uses: generations done (not the one in
    progress), e.g. "GA, 19 of 300 generations done"."""
    return f"{stage}, {done:,} of {total:,} generations done"


@dataclass
class RunResult:
    """What a run returns to the Python API."""

    run_dir: Path
    logbook: tools.Logbook
    hall_of_fame: tools.HallOfFame
    population: list[Any]
    finished: bool
    generations_done: int
    stopped_in: str = ""  # where an unfinished run stopped, e.g. "restart 2/7, 5 of 500 generations done"
    already_finished: bool = False  # a resume found the run finished, and did nothing
    checkpoint_kept: bool = True  # False: a finished run kept without its checkpoint (it cannot be extended in place)

    def logbook_frame(self) -> Any:
        """Returns the logbook as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(list(self.logbook))


@dataclass
class GenerationLoop:
    """Runs an experiment's generations in one run directory, from the start or from a checkpoint."""

    config: Config
    run_dir: Path
    writer: RunWriter
    manifest: dict[str, Any]
    game_map: executor.GameMap
    stop: StopRequest
    progress: ProgressFactory | None = None
    label: str = "GA"  # the stage this loop is, for progress reports
    # When the last checkpoint was written, and the plan made ahead (its key: generation, size, champions).
    _last_checkpoint: float = field(default=-math.inf, init=False, repr=False)
    _plan_ahead: tuple[tuple[int, int, int] | None, Any] = field(default=(None, None), init=False, repr=False)

    def run(self, checkpoint: Checkpoint | None, previous_records: list[dict[str, Any]]) -> RunResult:
        """Plays the generations left, then writes the run's results; returns what the run made."""
        config = self.config
        self.settings = result_settings(config)
        self.tables = table_digests(config)  # what the run plays against, recorded in every checkpoint
        toolbox = build_toolbox(config)
        total = config.experiment.generations
        layout = GenomeLayout.of(config)
        self.layout = layout
        # The TD step learns on this machine's threads, also when the games go to a cluster.
        method: Method = method_of(config, toolbox, config.compute.workers or executor.all_cores())
        self.method = method
        hall_of_fame = HallOfFame(config.fitness.hall_of_fame_size, similar=same_genes)
        logbook = tools.Logbook()
        if checkpoint is None:
            population = []  # made as the first generation starts: its TD step is that generation's time
            start, games_played, elapsed, champions = 0, 0, 0.0, []
        else:
            population = method.restore(checkpoint)
            # Worst first: DEAP puts a newcomer before equal-fitness members, so
            # this rebuilds the same order (and the same future evictions).
            members = individuals(checkpoint.hall_of_fame, checkpoint.hall_of_fame_fitness,
                                  checkpoint.hall_of_fame_born, arrays=bool(layout.network))
            for ind in reversed(members):
                hall_of_fame.insert(ind)
            start = checkpoint.generation + 1
            games_played, elapsed = checkpoint.games_played, checkpoint.elapsed_s
            champions = list(checkpoint.champions) if layout.network else [list(row) for row in checkpoint.champions]
            logbook.extend(previous_records)
        map_function, parts, shared = self.game_map
        # Batches balanced by measured cost per opponent, and small ones kept in this thread (timing only:
        # results never depend on it).
        costs = None
        # The fewest games a generation plays (elites keep their fitness) decides whether to measure.
        fewest = fitness.games_per_generation(config) // config.population.size * (
            config.population.size - config.selection.elitism)
        sure_to_share = shared and fewest * executor.CHEAPEST_GAME_SECONDS >= executor.SHARE_MIN_SECONDS
        if parts > 1 and not sure_to_share:
            costs = executor.opponent_costs(fitness.player_args(config), fitness.opponent_labels(config),
                                            layout.width, fitness.network_layout(config))
        bar = self.progress(Stage(self.label, start, total)) if self.progress else None
        self._last_checkpoint = -math.inf  # the first generation is saved at once
        done = start
        pending: PendingSave | None = None
        try:
            for generation in range(start, total):
                started = time.perf_counter()
                if generation > 0:
                    population = method.next(population, generation)
                elif checkpoint is None:
                    population = method.first()
                strategy = method.state()  # what made this generation, for its checkpoint
                td_games = method.td_games
                bred = time.perf_counter()
                try:
                    result = fitness.evaluate_generation(
                        population, generation, config, champions, self.game_map, costs,
                        while_playing=self._while_playing(pending, generation, len(champions)),
                        plan=self._plan(generation, len(population), len(champions)))
                except Interrupted:
                    if self.stop.signal is None:
                        raise
                    # Stopped while its games were played: the generation is void, the last checkpoint stands.
                    if pending is not None:
                        done = pending.save_now() or done
                    break
                if pending is not None:
                    done = pending() or done
                evaluated = time.perf_counter()
                best = operators.sel_best(population, 1)[0]
                champion = layout.expand(best)
                champions = (champions + [champion if layout.network else list(champion)])[
                    -config.fitness.hall_of_fame_size:]
                timings = {"evaluation_s": evaluated - bred, "variation_s": bred - started,
                           "generation_s": time.perf_counter() - started}
                games_played += result.games + td_games
                elapsed += timings["generation_s"]
                # The rest waits for the next generation's games (breeding needs only the fitness).
                pending = PendingSave(
                    self._bookkeeping(generation, population, result, timings, hall_of_fame, logbook,
                                      champions, games_played, elapsed, strategy, td_games),
                    self.writer, result, bar)
                if generation + 1 == total or self.stop.signal is not None:
                    done = pending() or done
                    if self.stop.signal is not None and done == generation + 1:
                        break
            finished = done >= total
        except BaseException:
            if pending is not None:
                pending()  # the last whole generation is not lost to a failure in the next one
            raise
        finally:
            if bar is not None:
                bar.close()
        self.manifest.update(generations_done=done, games_played=games_played, wall_s=round(elapsed, 3))
        if finished:
            self._write_results(population, hall_of_fame, champions)
        else:
            self.manifest.update(status="interrupted")
        self.writer.write_manifest(self.manifest)
        return RunResult(self.run_dir, logbook, hall_of_fame, population, finished, done,
                         "" if finished else generations_done(self.label, done, total))

    def _plan(self, generation: int, size: int, champions: int) -> GamePlan:
        """Returns a generation's plan, made ahead while the previous generation played if it could be.

        A plan depends only on the config, the generation, the population's size
        and the number of champions (:func:`ga.evolution.fitness.plan_generation`).
        """
        key = (generation, size, champions)
        if self._plan_ahead[0] != key:
            self._plan_ahead = (key, fitness.plan_generation(self.config, generation, size, champions))
        return self._plan_ahead[1]

    def _while_playing(self, pending: PendingSave | None, generation: int, champions: int) -> Callable[[], None]:
        """Returns the work done while ``generation`` plays: the previous generation's bookkeeping, the next one's plan."""
        config = self.config

        def work() -> None:
            if pending is not None:
                pending()
            if generation + 1 < config.experiment.generations:
                # The next generation's champions: this one's best joins them (see run).
                self._plan(generation + 1, config.population.size, min(champions + 1, config.fitness.hall_of_fame_size))

        return work

    def _bookkeeping(self, generation: int, population: list[Any], result: fitness.Generation,
                     timings: dict[str, float], hall_of_fame: tools.HallOfFame, logbook: tools.Logbook,
                     champions: list[list[float]], games_played: int, elapsed: float,
                     strategy: dict[str, Any] | None = None, td_games: int = 0,
                     ) -> Callable[[], tuple[dict[str, Any], Checkpoint, bool]]:
        """Returns what completes ``generation``'s record and makes its checkpoint if one is due.

        The lists it is given are never changed afterwards: breeding and the
        champions' update make new ones.
        """
        config = self.config
        total = config.experiment.generations

        def finish() -> tuple[dict[str, Any], Checkpoint, bool]:
            hall_of_fame.update(population)
            genes = result.genes
            full = result.record | fitness_statistics(population)
            full["best_fitness"] = hall_of_fame[0].fitness.values[0]
            full["diversity"] = diversity(genes)
            if config.td.games:
                full["td_games"] = td_games
            full |= timings
            logbook.record(**full)
            # A checkpoint every checkpoint_every generations, but not more often than checkpoint_seconds
            # (a rename costs more than a small generation); always at the end and on a signal.
            due = (generation + 1) % config.output.checkpoint_every == 0 and (
                time.perf_counter() - self._last_checkpoint >= config.output.checkpoint_seconds)
            due = bool(due or generation + 1 == total or self.stop.signal)
            if due:
                self._last_checkpoint = time.perf_counter()
            # Made even when not due: a stop during the next generation's games writes it (see save_now).
            return full, Checkpoint(
                generation=generation,
                population=genes,
                fitness=[ind.fitness.values[0] for ind in population],
                born=[ind.born for ind in population],
                hall_of_fame=np.asarray(hall_of_fame, dtype=np.float64),
                hall_of_fame_fitness=[ind.fitness.values[0] for ind in hall_of_fame],
                hall_of_fame_born=[ind.born for ind in hall_of_fame],
                champions=np.asarray(champions, dtype=np.float64).reshape(len(champions), -1),
                games_played=games_played,
                elapsed_s=elapsed,
                csv_bytes={},
                settings=self.settings,
                tables=self.tables,
                strategy=strategy or {},
            ), due

        return finish

    def _write_results(self, population: list[Any], hall_of_fame: tools.HallOfFame,
                       champions: list[list[float]]) -> None:
        """Writes the finished run's tables, after its final tournament if it has one."""
        config, layout = self.config, self.layout
        best_table = layout.expand(operators.sel_best(population, 1)[0])
        mean = self.method.mean(population)  # CMA-ES's centroid; None: the population's mean
        if config.final.games:
            started = time.perf_counter()
            label = "final tournament" if self.label == "GA" else f"{self.label}, final tournament"
            bar = self.progress(Stage(label, 0, 1, "tournament")) if self.progress else None
            candidates = tournament.gather_candidates(population, [ind.born for ind in population], champions,
                                                      layout, mean=mean)
            ranking, games = tournament.run_tournament(config, candidates, self.game_map)
            if bar is not None:
                bar.update({"games": games})
                bar.close()
            self.writer.write_final(ranking)
            self.manifest["final_games"] = games
            self.manifest["final_s"] = round(time.perf_counter() - started, 3)
            best_table = ranking[0]["weights"]
        self.writer.write_results(
            [layout.expand(ind) for ind in population],
            best_table,
            [{"generation": ind.born, "fitness": ind.fitness.values[0], "weights": layout.expand(ind)}
             for ind in hall_of_fame],
            mean=layout.expand(mean) if mean is not None else None,
            members=[(ind.fitness.values[0], ind.born) for ind in population],
        )
        if config.refine.generations:
            self.manifest.update(status="refining")  # finished once the refinement is done
        else:
            self.manifest.update(status="finished", finished=now_iso())

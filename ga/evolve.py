"""The generation loop, shaped like DEAP's ``eaSimple``, with checkpoints.

Generation 0 is the random initial population; every generation is evaluated,
logged and checkpointed before the next one is bred. DEAP's operators draw from
the module-level ``random``: the loop reseeds it from (run seed, generation)
before breeding, so a generation depends only on the run seed and the previous
population, which is what makes resumed runs identical to uninterrupted ones.
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from deap import base, creator, tools

from ga import fitness, operators, refine, tournament
from ga.config import Config, RefineConfig, config_to_toml, load_config, with_overrides
from ga.genome import expand, expand_many, genome_length
from ga.runio import (
    BEST, CHECKPOINT, CONFIG, Checkpoint, GameLog, RunDirError, RunWriter, atomic_write, check_checkpoint_fits,
    check_run_dir, command_line, generation_columns, now_iso, read_checkpoint,
    read_config, read_manifest, versions, write_manifest,
)
from ga.weights import format_weights, load_weights, parse_weights

if not hasattr(creator, "FitnessMax"):
    creator.create("FitnessMax", base.Fitness, weights=(1.0,))
if not hasattr(creator, "Individual"):
    # Lists, not numpy arrays: DEAP's slice-swapping crossovers silently
    # duplicate genes on arrays.
    creator.create("Individual", list, fitness=creator.FitnessMax, born=0)

# Tasks per Dask worker thread, of similar measured cost. Each task costs a
# scheduler round trip: one per thread measured 10-14% behind the local pool
# on population 64 x 64 games, four 25-30% (docs/cluster.md).
DASK_BATCHES_PER_WORKER = 1


def clone(individual: Any) -> Any:
    """Returns a copy of an individual with its fitness (``deepcopy`` is 20x slower on 64 floats)."""
    copy = creator.Individual.__new__(creator.Individual)
    list.__init__(copy, individual)
    # What FitnessMax() makes, without its __init__ (0.75 -> 0.12 us, 64,000 times in seed2021.toml).
    copy.fitness = creator.FitnessMax.__new__(creator.FitnessMax)
    copy.fitness.wvalues = individual.fitness.wvalues  # a tuple: safe to share
    copy.born = individual.born
    return copy


def build_toolbox(config: Config, map_function: Callable[..., Any] = map) -> base.Toolbox:
    """Returns the DEAP toolbox of an experiment: population, evaluate, mate, mutate, select, map."""
    pop, sel, cx, mut = config.population, config.selection, config.crossover, config.mutation
    toolbox = base.Toolbox()
    toolbox.register("clone", clone)
    toolbox.register("gene", random.uniform, pop.init_low, pop.init_high)
    toolbox.register("individual", tools.initRepeat, creator.Individual, toolbox.gene, genome_length(pop.genome))
    toolbox.register("population", tools.initRepeat, list, toolbox.individual)
    toolbox.register("evaluate", fitness.evaluate)
    toolbox.register("map", map_function)
    if sel.method == "adjacent-pairs":
        toolbox.register("select", operators.sel_adjacent_pairs)
    elif sel.method == "tournament":
        toolbox.register("select", tools.selTournament, tournsize=sel.tournament_size)
    elif sel.method == "best":
        toolbox.register("select", tools.selBest)
    elif sel.method == "roulette":
        toolbox.register("select", operators.sel_fitness_proportional, method=tools.selRoulette)
    else:
        toolbox.register("select", operators.sel_fitness_proportional,
                         method=tools.selStochasticUniversalSampling)
    if cx.method == "one-point":
        toolbox.register("mate", operators.cx_one_point)
    elif cx.method == "two-point":
        toolbox.register("mate", tools.cxTwoPoint)
    elif cx.method == "uniform":
        toolbox.register("mate", tools.cxUniform, indpb=cx.gene_probability)
    elif cx.method == "blend":
        toolbox.register("mate", tools.cxBlend, alpha=cx.alpha)
    else:
        toolbox.register("mate", lambda a, b: (a, b))
    if mut.method == "reset":
        toolbox.register("mutate", operators.mut_reset, indpb=mut.gene_probability, low=mut.low, high=mut.high)
    else:
        toolbox.register("mutate", tools.mutGaussian, mu=0.0, sigma=mut.sigma, indpb=mut.gene_probability)
    return toolbox


def breed(population: list[Any], toolbox: base.Toolbox, config: Config) -> list[Any]:
    """Returns the next generation: elites, then children of two distinct selected parents.

    As in the blog, each child is the first offspring of one crossover of two
    distinct parents, then mutated. Children have no fitness; elites keep
    theirs unless ``selection.reevaluate_elites`` (fitness is noisy: a lucky
    score must not survive forever).
    """
    sel, cx, mut = config.selection, config.crossover, config.mutation
    elites = [toolbox.clone(ind) for ind in tools.selBest(population, sel.elitism)]
    if sel.reevaluate_elites:
        for elite in elites:
            del elite.fitness.values
    parents = toolbox.select(population, config.population.parents)
    children = []
    for _ in range(config.population.size - sel.elitism):
        first, second = random.sample(range(len(parents)), 2)
        child, other = toolbox.clone(parents[first]), toolbox.clone(parents[second])
        if random.random() < cx.probability:
            toolbox.mate(child, other)
        toolbox.mutate(child)
        if cx.method == "blend" or mut.method == "gaussian":
            operators.clip(child, mut.low, mut.high)
        del child.fitness.values
        children.append(child)
    return elites + children


@dataclass
class Generation:
    """What evaluating one generation produced, for the logs."""

    record: dict[str, Any]
    game_log: GameLog
    games: int


def evaluate_generation(
    population: list[Any], generation: int, toolbox: base.Toolbox, config: Config, champions: Sequence[Sequence[float]],
    workers: int = 1, costs: np.ndarray | None = None, shared: bool = False,
    while_playing: Callable[[], None] | None = None,
) -> Generation:
    """Plays the games of every individual without fitness and sets their fitness.

    The games go through ``toolbox.map`` to ``workers`` threads sharing them
    (``shared``) or in ``workers`` batches of similar cost, and
    ``while_playing`` runs while they play (see :func:`ga.fitness.play_batch`).
    """
    size = len(population)
    tables = expand_many(np.array(population, dtype=np.float64), config.population.genome)
    if len(champions):
        tables = np.vstack([tables, np.asarray(champions, dtype=np.float64)])
    if config.fitness.random_table_games:
        tables = np.vstack([tables, fitness.generation_random_tables(config, generation)])
    labels = fitness.opponent_labels(config)
    plan = fitness.plan_generation(config, generation, size, len(champions))
    todo = np.array([not ind.fitness.valid for ind in population])
    plan = plan.subset(todo[plan.individual])
    batch = fitness.Batch(fitness.player_args(config), tables, labels, plan)
    diffs = fitness.play_batch(batch, toolbox.map, workers, shared=shared, costs=costs,
                               evaluate_function=toolbox.evaluate, while_playing=while_playing)
    values = fitness.scores(plan.individual, diffs, size, config.fitness.score)
    for i in np.flatnonzero(todo):
        population[i].fitness.values = (float(values[i]),)
        population[i].born = generation
    record: dict[str, Any] = {
        "generation": generation,
        "games": int(diffs.size),
        "wins": int((diffs > 0).sum()),
        "draws": int((diffs == 0).sum()),
        "losses": int((diffs < 0).sum()),
        "win_rate": fitness.score(diffs, "win_rate") if diffs.size else float("nan"),
    }
    by_opponent = fitness.scores(plan.opponent, diffs, len(labels), "win_rate")  # NaN where none was played
    for label, rate in zip(labels, by_opponent.tolist()):
        record[f"win_rate_vs_{label}"] = rate
    games = GameLog(generation, plan.individual, plan.opponent, labels, plan.colours, plan.seeds, diffs)
    return Generation(record, games, int(diffs.size))


def population_statistics() -> tools.Statistics:
    """Returns the DEAP statistics of a population's fitness."""
    stats = tools.Statistics(key=lambda ind: ind.fitness.values[0])
    stats.register("fitness_min", np.min)
    stats.register("fitness_mean", np.mean)
    stats.register("fitness_max", np.max)
    stats.register("fitness_std", np.std)
    return stats


# --- workers ------------------------------------------------------------------------


def resolve_workers(config: Config) -> int:
    """Returns the number of worker threads (0 in the config = all cores)."""
    return config.compute.workers or os.cpu_count() or 1


def games_per_generation(config: Config) -> int:
    """Returns how many games a generation plays (an upper bound with elites)."""
    fit = config.fitness
    opponents = len(fit.opponents) if fit.draw == "all" else 1
    return config.population.size * (opponents * fit.games_per_opponent + fit.coevolution + fit.hall_of_fame_games
                                       + fit.random_table_games)


@contextmanager
def evaluation_map(config: Config) -> Iterator[tuple[Callable[..., Any], int, bool]]:
    """Yields the ``map`` that evaluates a generation, how many workers (or tasks) to give it,
    and whether they are threads of this process that share the games (see
    :func:`ga.fitness.play_batch`).

    The local pool is threads: the engine plays with the GIL released, so
    threads run in parallel without pickling, and each takes the next
    unplayed game of the generation, so none waits while games are left (2
    workers measured 1.6-1.75x faster than 1 with batches of similar cost,
    1.8-1.9x sharing the games; a process pool measured 1.45x, and its
    workers can be lost in ways multiprocessing does not survive). The pool
    has ``workers - 1`` threads: this thread, once it has written the previous
    generation's files, plays too (scaling.toml on 2 cores: 1.84-1.87x against
    1.60-1.75x with a pool of two and this thread only writing; seed2021.toml
    7% faster). ``compute.backend = "dask"`` sends every generation
    to the Dask cluster at ``compute.address`` (``local[:N]``: an in-process
    one), whatever its size: the user asked for the cluster. Results are the
    same in every case.
    """
    workers = resolve_workers(config)
    if config.compute.backend == "dask":
        from ga import cluster  # dask is optional: imported only when used

        with cluster.connect(config.compute.address, workers) as client:
            yield cluster.cluster_map(client), DASK_BATCHES_PER_WORKER * cluster.worker_threads(client), False
        return
    if workers == 1:
        yield map, 1, True
        return
    with ThreadPoolExecutor(workers - 1, thread_name_prefix="othello-ga") as executor:
        yield executor.map, workers, True


# --- the run ---------------------------------------------------------------------------


class StopRequest:
    """Turns SIGINT/SIGTERM into a request to stop after the current generation."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def __call__(self, signum: int, frame: Any) -> None:
        if self.signal is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt  # a second Ctrl-C stops at once; the checkpoint is intact
        self.signal = signum

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
    """A generation's CSV rows and checkpoint, written once: while the next generation plays, or at the end.

    Calling it writes the rows, then the checkpoint (which records the CSV
    sizes it covers), and returns the generations done by that checkpoint
    (None without one, or when already written).
    """

    def __init__(self, writer: RunWriter, record: dict[str, Any], games: GameLog, checkpoint: Checkpoint | None):
        self.writer, self.record, self.games, self.checkpoint = writer, record, games, checkpoint
        self.written = False

    def __call__(self) -> int | None:
        if self.written:
            return None
        self.written = True
        self.writer.append_generation(self.record, self.games)
        if self.checkpoint is None:
            return None
        self.checkpoint.csv_bytes = self.writer.csv_bytes()
        self.writer.write_checkpoint(self.checkpoint)
        return self.checkpoint.generation + 1


@dataclass
class RunResult:
    """What a run returns to the Python API."""

    run_dir: Path
    logbook: tools.Logbook
    hall_of_fame: tools.HallOfFame
    population: list[Any]
    finished: bool
    generations_done: int

    def logbook_frame(self) -> Any:
        """Returns the logbook as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(list(self.logbook))


ProgressFactory = Callable[[int, int], Any]


def run(
    config: Config,
    run_dir: Path,
    *,
    resume: bool = False,
    progress: ProgressFactory | None = None,
    save_config: Config | None = None,
) -> RunResult:
    """Runs (or, with ``resume``, continues) an experiment in ``run_dir``.

    ``save_config`` replaces the run's config.toml once the run directory has
    been checked (a resume that extends the run).
    """
    labels = fitness.opponent_labels(config)
    columns = generation_columns(labels)
    fitness.check_opponents(labels)  # a bad weights file stops the run before anything is written
    if resume:
        checkpoint = read_checkpoint(run_dir)
        manifest = read_manifest(run_dir)
    else:
        checkpoint = None
        manifest = {
            "experiment": config.experiment.name,
            "seed": config.experiment.seed,
            "generations_planned": config.experiment.generations,
            "generations_done": 0,
            "games_played": 0,
            "started": now_iso(),
            "finished": None,
            "wall_s": 0.0,
            "status": "running",
            "command": command_line(),
            "versions": versions(),
        }
    manifest["generations_planned"] = config.experiment.generations
    # The workers first: a cluster that cannot be reached leaves nothing written.
    with evaluation_map(config) as (map_function, batches, shared), StopRequest().installed() as stop:
        if checkpoint is not None:
            writer = RunWriter.reopen(run_dir, columns, config, checkpoint)
            if save_config is not None:
                atomic_write(run_dir / CONFIG, config_to_toml(save_config))  # the directory describes its run
        else:
            writer = RunWriter.create(run_dir, config, columns, manifest)
        try:
            result = _loop(config, run_dir, writer, manifest, checkpoint, map_function, batches, shared, stop, progress)
        finally:
            writer.close()
    if result.finished and config.refine.generations:
        return _refine_stage(config, run_dir, result, progress)
    return result


def _loop(
    config: Config,
    run_dir: Path,
    writer: RunWriter,
    manifest: dict[str, Any],
    checkpoint: Checkpoint | None,
    map_function: Callable[..., Any],
    batches: int,
    shared: bool,
    stop: StopRequest,
    progress: ProgressFactory | None,
) -> RunResult:
    toolbox = build_toolbox(config, map_function)
    seed = config.experiment.seed
    total = config.experiment.generations
    hall_of_fame = tools.HallOfFame(config.fitness.hall_of_fame_size, similar=lambda a, b: list(a) == list(b))
    logbook = tools.Logbook()
    stats = population_statistics()
    if checkpoint is None:
        random.seed(fitness.derive_seed(seed, fitness.INIT))
        population = toolbox.population(n=config.population.size)
        start, games_played, elapsed, champions = 0, 0, 0.0, []
    else:
        population = _individuals(checkpoint.population, checkpoint.fitness, checkpoint.born)
        # Worst first: DEAP puts a newcomer before equal-fitness members, so
        # this rebuilds the same order (and the same future evictions).
        members = _individuals(checkpoint.hall_of_fame, checkpoint.hall_of_fame_fitness, checkpoint.hall_of_fame_born)
        for ind in reversed(members):
            hall_of_fame.insert(ind)
        start = checkpoint.generation + 1
        games_played, elapsed = checkpoint.games_played, checkpoint.elapsed_s
        champions = [list(row) for row in checkpoint.champions]
        logbook.extend(_previous_records(run_dir))
    # Batches balanced by measured cost per opponent (timing only: results never depend on it).
    costs = fitness.opponent_costs(config, fitness.opponent_labels(config)) if batches > 1 and not shared else None
    bar = progress(start, total) if progress else None
    done = start
    finished = start >= total
    pending: PendingSave | None = None
    try:
        for generation in range(start, total):
            started = time.perf_counter()
            if generation > 0:
                random.seed(fitness.derive_seed(seed, fitness.VARIATION, generation))
                population = breed(population, toolbox, config)
            bred = time.perf_counter()
            result = evaluate_generation(population, generation, toolbox, config, champions, batches, costs,
                                         shared, while_playing=pending)
            if pending is not None:
                done = pending() or done
            evaluated = time.perf_counter()
            hall_of_fame.update(population)
            best = tools.selBest(population, 1)[0]
            champions = (champions + [list(expand(best, config.population.genome))])[-config.fitness.hall_of_fame_size:]
            genes = np.asarray(population, dtype=np.float64)
            record = result.record | stats.compile(population)
            record["best_fitness"] = hall_of_fame[0].fitness.values[0]
            record["diversity"] = float(genes.std(axis=0).mean())
            record["evaluation_s"] = evaluated - bred
            record["variation_s"] = bred - started
            record["generation_s"] = time.perf_counter() - started
            logbook.record(**record)
            games_played += result.games
            elapsed += record["generation_s"]
            checkpoint = None
            if (generation + 1) % config.output.checkpoint_every == 0 or generation + 1 == total or stop.signal:
                checkpoint = Checkpoint(
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
                )
            # Written while the next generation plays; at once when the run stops here.
            pending = PendingSave(writer, record, result.game_log, checkpoint)
            if generation + 1 == total:
                done = pending() or done
            if bar is not None:
                bar.update(record)
            if stop.signal is not None:
                done = pending() or done
                if done == generation + 1:
                    break
        finished = done >= total
    except BaseException:
        if pending is not None:
            pending()  # the last whole generation is not lost to a failure in the next one
        raise
    finally:
        if bar is not None:
            bar.close()
    genome = config.population.genome
    manifest.update(generations_done=done, games_played=games_played, wall_s=round(elapsed, 3))
    if finished:
        best_table = expand(tools.selBest(population, 1)[0], genome)
        if config.final.games:
            candidates = tournament.gather_candidates(population, [ind.born for ind in population], champions, genome)
            ranking, games = tournament.run_tournament(config, candidates, map_function, batches, shared)
            writer.write_final(ranking)
            manifest["final_games"] = games
            best_table = ranking[0]["weights"]
        writer.write_results(
            [expand(ind, genome) for ind in population],
            best_table,
            [{"generation": ind.born, "fitness": ind.fitness.values[0], "weights": expand(ind, genome)}
             for ind in hall_of_fame],
        )
        if config.refine.generations:
            manifest.update(status="refining")  # finished once _refine_stage is done
        else:
            manifest.update(status="finished", finished=now_iso())
    else:
        manifest.update(status="interrupted")
    writer.write_manifest(manifest)
    return RunResult(run_dir, logbook, hall_of_fame, population, finished, done)


RESTARTS = "restarts"  # the refinement's restarts: run directories restarts/1, restarts/2, ...


def _refine_stage(config: Config, run_dir: Path, result: RunResult, progress: ProgressFactory | None) -> RunResult:
    """Runs the restarts, then the refinement from the run's best table (see :mod:`ga.refine`).

    Each restart is a run of its own under restarts/ (resumable like any);
    the refined table replaces best_weights.csv, the GA's is kept in
    ga_best_weights.csv. The result is finished once both are done.
    """
    tables = []
    for restart in range(1, config.refine.restarts + 1):
        done = _restart(config, run_dir / RESTARTS / str(restart), restart, progress)
        if not done:
            return dataclasses.replace(result, finished=False)
        tables.append(load_weights(run_dir / RESTARTS / str(restart) / BEST))
    ga_best = (run_dir / BEST).read_text(encoding="utf-8")  # written by the run just now (again when resumed)
    with StopRequest().installed() as stop:
        refined = refine.refine(config, run_dir, parse_weights(ga_best, "csv"), tables, resolve_workers(config),
                                should_stop=lambda: stop.signal is not None, progress=progress)
    manifest = read_manifest(run_dir)
    if refined is None:
        manifest.update(status="interrupted")
        write_manifest(run_dir, manifest)
        return dataclasses.replace(result, finished=False)
    atomic_write(run_dir / refine.GA_BEST, ga_best)
    table, rows = refined
    atomic_write(run_dir / BEST, format_weights(table, "csv"))
    manifest.update(status="finished", finished=now_iso(), refine_generations=len(rows),
                    refine_games=sum(row["games"] for row in rows),
                    refine_s=round(sum(row["generation_s"] for row in rows), 3))
    write_manifest(run_dir, manifest)
    return result


def _restart(config: Config, path: Path, restart: int, progress: ProgressFactory | None) -> bool:
    """Runs or continues one restart; returns whether it is finished."""
    seed = refine.restart_seed(config.experiment.seed, restart)
    restart_config = dataclasses.replace(with_overrides(config, seed=seed), refine=RefineConfig())
    if not (path / CHECKPOINT).is_file():
        return run(restart_config, path, progress=progress).finished
    manifest = read_manifest(path)
    if manifest.get("status") == "finished" and manifest.get("generations_done") == config.experiment.generations:
        return True  # (resuming would replay its final tournament)
    return resume(path, generations=config.experiment.generations, progress=progress).finished


def _individuals(genes: Sequence[Sequence[float]], values: Sequence[float | None], born: Sequence[int]) -> list[Any]:
    individuals = []
    for gene_list, value, generation in zip(genes, values, born):
        ind = creator.Individual(float(g) for g in gene_list)
        if value is not None:
            ind.fitness.values = (value,)
        ind.born = generation
        individuals.append(ind)
    return individuals


def _previous_records(run_dir: Path) -> list[dict[str, Any]]:
    import pandas as pd

    frame = pd.read_csv(run_dir / "generations.csv")
    return frame.to_dict("records")


# --- entry points ---------------------------------------------------------------------------


def default_run_dir(config: Config, results: Path = Path("results")) -> Path:
    """Returns ``results/<experiment>-<timestamp>``, made unique if needed."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = results / f"{config.experiment.name}-{stamp}"
    suffix = 1
    while candidate.exists():
        suffix += 1
        candidate = results / f"{config.experiment.name}-{stamp}-{suffix}"
    return candidate


def evolve(
    config: Config | str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
    seed: int | None = None,
    generations: int | None = None,
    workers: int | None = None,
    dask: str | None = None,
    progress: ProgressFactory | None = None,
) -> RunResult:
    """Runs an experiment and returns its logbook, hall of fame and run directory.

    ``dask`` (a scheduler address, ``local`` or ``local:N``) evaluates fitness on a Dask cluster.

    >>> result = evolve("experiments/quick.toml", out="/tmp/quick-run")  # doctest: +SKIP
    >>> result.logbook_frame()[["generation", "win_rate"]].tail()  # doctest: +SKIP
    """
    if not isinstance(config, Config):
        config = load_config(config)
    config = with_overrides(config, seed=seed, generations=generations, workers=workers,
                            backend="dask" if dask is not None else None, address=dask)
    run_dir = Path(out) if out is not None else default_run_dir(config)
    return run(config, run_dir, progress=progress)


def resume(
    run_dir: str | os.PathLike[str],
    *,
    generations: int | None = None,
    workers: int | None = None,
    dask: str | None = None,
    local: bool = False,
    progress: ProgressFactory | None = None,
) -> RunResult:
    """Continues an interrupted run (or extends a finished one with ``generations``).

    ``dask`` continues on a (possibly other) Dask cluster, ``local`` on this
    machine's pool, whatever backend the run started with; neither changes the
    results, so neither is saved in the run's config.toml.
    """
    path = Path(run_dir)
    check_run_dir(path)
    saved = read_config(path)
    checkpoint = read_checkpoint(path)
    check_checkpoint_fits(checkpoint, saved)
    read_manifest(path)
    done = checkpoint.generation + 1
    if generations is not None and generations < done:
        raise RunDirError(f"'{path}' has already done {done} generations; --generations must be at least {done}")
    config = with_overrides(saved, generations=generations)
    backend = "local" if local else "dask" if dask is not None else None
    here = with_overrides(config, workers=workers, backend=backend, address="" if local else dask)
    return run(here, path, resume=True, progress=progress,
               save_config=config if config != saved else None)

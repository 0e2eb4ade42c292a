"""A whole run: its stages (the generations, then restarts and the refinement), and the Python API.

:func:`evolve` starts an experiment in a new run directory, :func:`resume`
continues or extends one; both return a :class:`~ga.evolution.loop.RunResult`.
The API draws no figures: ``othello-ga plot RUN_DIR`` (or
:func:`ga.analysis.plots.plot_run`) draws them from the run directory.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import time
from pathlib import Path
from typing import Any

from engine.patterns import layout as pattern_layout
from ga.config import (
    Config, ConfigError, RefineConfig, load_config, network_of, replace, settings_difference, table_digests,
    with_overrides,
)
from ga.evolution import fitness, refine
from ga.evolution.genome import GenomeLayout
from ga.evolution.methods import checked_strategy
from ga.evolution.stages import (
    REFINEMENT, StagePlan, refine_generation_games, sample_costs, stages_of_run, tournament_games,
)
from ga.evolution.loop import GenerationLoop, ProgressFactory, RunResult, StopRequest, generations_done
from ga.files import size_text
from ga.games import executor
from ga.rundir.checkpoint import CHECKPOINT_FORMAT, Checkpoint, read_checkpoint
from ga.rundir.lock import RunLock, holder
from ga.rundir.layout import (
    BEST, CHECKPOINT, GENERATIONS, MAX_COUNT, RESTARTS, RunDirError, check_no_links, check_run_dir, generation_columns,
    restart_dir, table_file,
)
from ga.rundir.manifest import new_manifest, now_iso, read_manifest
from ga.rundir.reader import read_config, read_evaluation, read_records, read_refine_state
from ga.rundir.writer import RunWriter, TableForm

__all__ = ["BYTES_PER_GAME", "MAX_RUN_GAMES", "RunResult", "StopRequest", "check_plan", "default_run_dir", "job_seconds",
           "memory_limit", "evolve", "no_checkpoint", "planned_games", "resolve_workers", "resume", "run", "stages_left",
           "timestamped_dir"]


def resolve_workers(config: Config) -> int:
    """Returns the number of worker threads (0 in the config = all cores)."""
    return config.compute.workers or executor.all_cores()


def run(
    config: Config,
    run_dir: Path,
    *,
    resume: bool = False,
    progress: ProgressFactory | None = None,
    save_config: Config | None = None,
    lock: RunLock | None = None,
    label: str = "GA",
    stop: StopRequest | None = None,
) -> RunResult:
    """Runs (or, with ``resume``, continues) an experiment in ``run_dir``, holding its lock throughout.

    ``save_config`` replaces the run's config.toml once the run directory has
    been checked (a resume that extends the run). ``lock`` is the run
    directory's lock when the caller holds it already; ``label`` names the
    stage in progress reports ("GA", or a restart's "restart 3/7"). ``stop``
    is the request to stop that the run heeds (default: one for this run, set
    by SIGINT and SIGTERM); a caller that runs several runs passes its own,
    set by whatever stops them all.
    """
    stop = stop if stop is not None else StopRequest()
    labels = fitness.opponent_labels(config)
    columns = generation_columns(labels, td=bool(config.td.games))
    executor.check_opponents(labels)  # a bad weights file stops the run before anything is written
    check_plan(config, memory_limit())  # so does a plan too big for this machine
    owned = None
    started = False
    if lock is None and resume:
        owned = lock = RunLock(run_dir).acquire()
    try:
        checkpoint: Checkpoint | None = None
        records: list[dict[str, Any]] = []
        if resume:
            checkpoint = read_checkpoint(run_dir)
            # The rows the checkpoint covers, read and checked before anything is written.
            records = read_records(run_dir, GENERATIONS, checkpoint.csv_bytes.get(GENERATIONS))
            manifest = read_manifest(run_dir)
            manifest.pop("error", None)  # of an earlier failure, which this resume continues past
            manifest["checkpoint_format"] = CHECKPOINT_FORMAT  # what it writes from now on
            # Counted, so that its wall time is the stages' (its clock holds the idle time before this resume).
            manifest["resumes"] = manifest.get("resumes", 0) + 1
        else:
            manifest = new_manifest(config.experiment.name, config.experiment.seed, config.experiment.generations)
        manifest["generations_planned"] = config.experiment.generations
        compute = config.compute
        # The workers first: a cluster that cannot be reached leaves nothing written.
        with executor.game_map(resolve_workers(config), compute.backend, compute.address) as game_map, \
                stop.installed():
            if checkpoint is not None:
                writer = RunWriter.reopen(run_dir, columns, config, checkpoint)
                if save_config is not None:
                    writer.write_config(save_config)
            else:
                RunWriter.make_directory(run_dir)
                if lock is None:
                    owned = lock = RunLock(run_dir).acquire()
                writer = RunWriter.create(run_dir, config, columns, manifest)
            started = True  # from here on a failure is the run's, not its input's: it is recorded
            begin = getattr(progress, "begin", None)
            if begin is not None and label == "GA":  # the whole job's stages, once, by the run that owns them
                done = checkpoint.generation + 1 if checkpoint is not None else 0
                begin(run_dir, stages_left(config, run_dir, done), lambda: sample_costs(config))
            try:
                loop = GenerationLoop(config, run_dir, writer, manifest, game_map, stop, progress, label)
                result = loop.run(checkpoint, records)
            except executor.WorkersLost as error:
                error.run_dir = run_dir  # type: ignore[attr-defined]  # where the run can continue from
                raise
            finally:
                writer.close()
        if result.finished and config.refine.generations:
            return _refine_stage(config, run_dir, result, progress, stop)
        return result
    except BaseException as error:
        if started and lock is not None and lock.held:  # only a run directory this process holds is marked
            _mark_stopped(run_dir, error)
        if started and isinstance(error, (OSError, KeyboardInterrupt)) and not hasattr(error, "run_dir"):
            error.run_dir = run_dir  # type: ignore[attr-defined]  # a full disk, Ctrl-C: where the run can continue
        raise
    finally:
        if owned is not None:
            owned.release()


def _mark_stopped(run_dir: Path, error: BaseException) -> None:
    """Records in the manifest that the run stopped early, and why: it is never left "running".

    A second Ctrl-C (KeyboardInterrupt) leaves it "interrupted"; any other error "failed", with the error.
    ``resume`` continues either.
    """
    try:
        manifest = read_manifest(run_dir, missing_ok=True)
        if manifest and isinstance(error, (KeyboardInterrupt, SystemExit)):
            manifest["status"] = "interrupted"
            RunWriter(run_dir).write_manifest(manifest)
        elif manifest:
            reason = " ".join(str(error).split()) or type(error).__name__
            manifest.update(status="failed", error=f"{type(error).__name__}: {reason}"[:300])
            RunWriter(run_dir).write_manifest(manifest)
    except (OSError, RunDirError):
        pass  # the failure itself is what the user must see (a full disk, a damaged manifest)


def _refine_stage(config: Config, run_dir: Path, result: RunResult, progress: ProgressFactory | None,
                  stop: StopRequest) -> RunResult:
    """Runs the restarts, then the refinement from the run's best table (see :mod:`ga.evolution.refine`).

    Each restart is a run of its own under restarts/ (resumable like any);
    the refined table replaces best_weights.csv, the GA's is kept in
    ga_best_weights.csv. The result is finished once both are done.
    """
    tables = []
    count = config.refine.restarts
    for restart in range(1, count + 1):
        done = _restart(config, restart_dir(run_dir, restart), restart, count, progress, stop)
        if not done.finished:
            return dataclasses.replace(result, finished=False, stopped_in=done.stopped_in)
        tables.append(read_evaluation(restart_dir(run_dir, restart), BEST).vector())
    # Written by the run just now (again when resumed): kept as the GA's best, the refinement's start.
    ga_best = table_file(run_dir, BEST).read_text(encoding="utf-8")
    with stop.installed():
        refined = refine.refine(config, run_dir, read_evaluation(run_dir, BEST).vector(), tables, resolve_workers(config),
                                should_stop=lambda: stop.signal is not None, progress=progress)
    writer = RunWriter(run_dir, form=TableForm.of(config))
    manifest = read_manifest(run_dir)
    manifest["restarts_s"] = round(sum(job_seconds(read_manifest(restart_dir(run_dir, k), missing_ok=True))
                                       for k in range(1, count + 1)), 3)
    if refined is None:
        manifest.update(status="interrupted")
        writer.write_manifest(manifest)
        state = read_refine_state(run_dir) or {}
        where = generations_done("refinement", state.get("generation", -1) + 1, config.refine.generations)
        return dataclasses.replace(result, finished=False, stopped_in=where)
    table, rows = refined
    writer.write_refined(table, ga_best)
    manifest.update(status="finished", finished=now_iso(), refine_generations=len(rows),
                    refine_games=sum(row["games"] for row in rows),
                    refine_s=round(sum(row["generation_s"] for row in rows), 3))
    writer.write_manifest(manifest)
    return result


def job_seconds(manifest: dict[str, Any]) -> float:
    """Returns the seconds a run's stages took, as its manifest records them."""
    return float(sum(manifest.get(key, 0.0) or 0.0 for key in ("wall_s", "final_s", "restarts_s", "refine_s")
                     if isinstance(manifest.get(key, 0.0), (int, float))))


def _restart(config: Config, path: Path, restart: int, count: int, progress: ProgressFactory | None,
             stop: StopRequest) -> RunResult:
    """Runs or continues one restart."""
    seed = refine.restart_seed(config.experiment.seed, restart)
    restart_config = replace(with_overrides(config, seed=seed), refine=RefineConfig())
    label = f"restart {restart}/{count}"
    if not os.path.lexists(path / CHECKPOINT):
        return run(restart_config, path, progress=progress, label=label, stop=stop)
    manifest = read_manifest(path)
    if manifest.get("status") == "finished" and manifest.get("generations_done") == config.experiment.generations:
        return RunResult(path, None, None, [], True, config.experiment.generations)  # (resuming would replay its tournament)
    return resume(path, generations=config.experiment.generations, progress=progress, label=label, stop=stop)


def planned_games(config: Config) -> dict[str, int]:
    """Returns the games each stage of a run will play, from its config (elites aside: an upper bound)."""
    ga = config.experiment.generations * fitness.games_per_generation(config) + tournament_games(config)
    refined = config.refine
    return {
        "GA": ga,
        "restarts": refined.restarts * ga if refined.generations else 0,
        "refinement": refined.generations * refine_generation_games(refined),
    }


def stages_left(config: Config, run_dir: Path, generations_done: int = 0) -> list[StagePlan]:
    """Returns the stages a run of ``config`` in ``run_dir`` has still to play, its GA ``generations_done`` in:
    the GA's generations and tournament, then (refined) each restart's and the refinement's, as far as their
    files say they got. A resume at the GA's end plays its tournament again."""
    total = config.experiment.generations
    stages = stages_of_run(config, "GA", total - generations_done)
    refined = config.refine
    if not refined.generations:
        return stages
    for restart in range(1, refined.restarts + 1):
        path = restart_dir(run_dir, restart)
        done = 0
        if os.path.lexists(path / CHECKPOINT):
            manifest = read_manifest(path, missing_ok=True)
            if manifest.get("status") == "finished" and manifest.get("generations_done") == total:
                continue  # skipped, its tournament too (see _restart)
            done = read_checkpoint(path).generation + 1
        stages += stages_of_run(config, f"restart {restart}/{refined.restarts}", total - done)
    state = read_refine_state(run_dir) if generations_done == total else None  # an extended GA starts it again
    refined_done = state["generation"] + 1 if state else 0
    if refined.generations > refined_done:
        stages.append(StagePlan("refinement", REFINEMENT,
                                (refined.generations - refined_done) * refine_generation_games(refined)))
    return stages


#: Memory a planned game holds while its generation is played: its plan, its result and its games.csv row
#: (a generation of 3.2 million games peaked at 224 bytes a game, measured with /usr/bin/time).
BYTES_PER_GAME = 256
#: The most games a run may plan: as many as its run directory can count.
MAX_RUN_GAMES = MAX_COUNT


def memory_limit() -> int:
    """Returns the bytes this process may use: the machine's memory, or less under ``ulimit -v``."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return physical if soft == resource.RLIM_INFINITY else min(physical, soft)


def check_plan(config: Config, memory: int) -> None:
    """Raises ConfigError, naming the key to lower, unless the run's games fit in ``memory`` bytes and its counts.

    A generation's games, the final tournament's and a refinement
    generation's are each planned and played at once, so each must fit in
    memory; the whole run's games (restarts included) must stay countable.
    Checked before anything is written.
    """
    size = config.population.size
    _check_networks(config, memory)
    shares = fitness.games_by_key(config)
    shares.pop("td.games", None)  # self-play games are played one at a time: they hold no memory
    largest = max(shares, key=shares.__getitem__)
    # The games planned at once, by stage: a generation (of the GA and of each restart), the final tournament
    # (the GA's and each restart's), a generation of the refinement.
    stages = [(largest, "a generation", sum(shares.values())), ("final.games", "the final tournament",
              tournament_games(config))]
    if config.refine.generations:
        stages.append(("refine.games", "a refinement generation", refine_generation_games(config.refine)))
    key, stage, games = max(stages, key=lambda entry: entry[2])
    population_bytes = 4 * size * GenomeLayout.of(config).length * 8  # the tables, their copies in breeding
    if population_bytes > memory // 2:
        key, stage = "population.size", "a generation"
    needed = games * BYTES_PER_GAME + population_bytes
    if needed > memory // 2:
        raise ConfigError(
            f"config key '{key}' = {_setting(config, key)} makes {stage} need about {size_text(needed)} "
            f"of memory ({games:,} games), and this machine has {size_text(memory)}; lower it"
        )
    planned = planned_games(config)
    total = sum(planned.values())
    shares = fitness.games_by_key(config)
    if total > MAX_RUN_GAMES:
        if planned["refinement"] > MAX_RUN_GAMES // 2:
            key = "refine.generations"
        elif planned["GA"] <= MAX_RUN_GAMES // 2:
            key = "refine.restarts"  # each restart plays the GA's games again
        elif tournament_games(config) > planned["GA"] // 2:
            key = "final.games"
        else:
            key = "experiment.generations" if sum(shares.values()) * 1000 < planned["GA"] else largest
        raise ConfigError(
            f"config key '{key}' = {_setting(config, key)} plans {total:.3g} games in all, more than a run counts "
            f"({MAX_RUN_GAMES:.0e}, decades of play); lower it"
        )


#: The bytes of a network's game tables: its int32 entries, summed from its weights once per row a plan plays.
NETWORK_ENTRY_BYTES = 4
#: The bytes per number of n x n a full-covariance CMA-ES holds: its covariance, eigenvectors, their product
#: scaled, and the update's temporaries, float64 each.
COVARIANCE_BYTES = 4 * 8


def _check_networks(config: Config, memory: int) -> None:
    """Raises ConfigError, naming the key to change, unless a network run's tables fit in half of ``memory``.

    Each row a plan plays builds its network's tables (entries_per_network
    int32 numbers, about half a megabyte for all-4): a generation's rows are
    its individuals, its champions and its random tables, the final
    tournament's its candidates. A full-covariance CMA-ES holds 4 n^2 numbers.
    """
    network = network_of(config.patterns)
    if network is None:
        return
    entries = pattern_layout(network).entries_per_network
    fit = config.fitness
    rows = config.population.size + (fit.hall_of_fame_size if fit.hall_of_fame_games else 0) + fit.random_table_games
    if config.final.games:
        rows = max(rows, config.population.size + 1 + min(fit.hall_of_fame_size, config.experiment.generations))
    tables = rows * entries * NETWORK_ENTRY_BYTES
    genes = GenomeLayout.of(config).length
    covariance = COVARIANCE_BYTES * genes ** 2 if config.patterns.method == "cma-es" else 0
    if covariance > memory // 2:
        raise ConfigError(
            f"config key 'patterns.method' = 'cma-es' keeps a covariance of {genes:,} x {genes:,} genes, about "
            f"{size_text(covariance)} of memory, and this machine has {size_text(memory)}; use \"sep-cma-es\" "
            "(a diagonal covariance) or smaller tuple sets")
    if tables + covariance > memory // 2:
        raise ConfigError(
            f"config key 'population.size' = {config.population.size} makes {rows:,} networks' tables of "
            f"{entries:,} entries each ({', '.join(config.patterns.sets)}) need about {size_text(tables)} of memory, "
            f"and this machine has {size_text(memory)}; lower it, or choose smaller tuple sets (patterns.sets)")


def _setting(config: Config, key: str) -> Any:
    section, name = key.split(".")
    return getattr(getattr(config, section), name)


def check_checkpoint_fits(checkpoint: Checkpoint, config: Config, run_dir: Path) -> None:
    """Raises RunDirError unless the checkpoint was made by the run that config.toml describes."""
    layout = GenomeLayout.of(config)
    expected = (config.population.size, layout.length)
    if checkpoint.population.shape != expected:
        raise RunDirError(
            f"the checkpoint holds {checkpoint.population.shape[0]} individuals of {checkpoint.population.shape[1]} "
            f"genes but config.toml asks for {expected[0]} of {expected[1]}; the run directory is damaged"
        )
    width = layout.width  # a champion is a whole table
    if checkpoint.champions.size and checkpoint.champions.shape[1] != width:
        raise RunDirError(
            f"'{run_dir / CHECKPOINT}': 'champions' holds tables of {checkpoint.champions.shape[1]} weights but "
            f"this run's tables have {width}; the run directory is damaged"
        )
    kept = config.fitness.hall_of_fame_size
    for name, count in (("champions", checkpoint.champions.shape[0]), ("hall_of_fame", checkpoint.hall_of_fame.shape[0])):
        if count > kept:
            raise RunDirError(f"'{run_dir / CHECKPOINT}': '{name}' holds {count:,} tables, but this run keeps "
                              f"{kept} (fitness.hall_of_fame_size); the run directory is damaged")
    difference = settings_difference(checkpoint.settings, config) if checkpoint.settings else None
    if difference is not None:
        raise RunDirError(
            f"'{run_dir / CHECKPOINT}' was written by another run than config.toml describes ({difference}); "
            "restore the run's config.toml, or start a new run"
        )
    checked_strategy(config, checkpoint.strategy)  # a CMA-ES run's: whole, and this run's
    digests = table_digests(config)
    for path, digest in checkpoint.tables.items():
        if digests.get(path, digest) != digest:
            raise RunDirError(
                f"weights file '{path}' has changed since the run played it (its SHA-256 is not the one "
                f"'{run_dir / CHECKPOINT}' records); restore the table the run started with, or start a new run"
            )


def _check_refinement_files(config: Config, run_dir: Path) -> None:
    """Reads and checks what a refined run reads back after its GA: each restart's run directory and the
    refinement's state (raises RunDirError or ConfigError naming the file)."""
    check_no_links(run_dir, [RESTARTS])
    for restart in range(1, config.refine.restarts + 1):
        path = restart_dir(run_dir, restart)
        check_no_links(path.parent, [path.name])
        if not path.is_dir():
            continue
        check_no_links(path)
        if os.path.lexists(path / CHECKPOINT):
            check_checkpoint_fits(read_checkpoint(path), read_config(path), path)
        read_manifest(path, missing_ok=True)
    read_refine_state(run_dir)


def _finished(path: Path, generations: int | None) -> RunResult | None:
    """Returns the result of a resume that has nothing to do: the run finished every stage, and ``generations``
    asks for no more; else None. Its files are read and checked as a resume reads them (a damaged one is named
    as it would be then), without taking the lock, whose file would record this process."""
    manifest = read_manifest(path, missing_ok=True)
    if manifest.get("status") != "finished" or holder(path) is not None:
        return None  # (a live writer extending it: the lock refuses the resume, naming it)
    saved = read_config(path)
    if not os.path.lexists(path / CHECKPOINT):  # finished, and kept without it (as the shipped runs are)
        done = manifest.get("generations_done", 0)
        if generations not in (None, done):
            raise RunDirError(no_checkpoint(path, manifest, generations))
        return RunResult(path, None, None, [], True, done, already_finished=True, checkpoint_kept=False)
    checkpoint = read_checkpoint(path)
    check_checkpoint_fits(checkpoint, saved, path)
    read_records(path, GENERATIONS, checkpoint.csv_bytes.get(GENERATIONS))
    if saved.refine.generations:
        _check_refinement_files(saved, path)
    done = checkpoint.generation + 1
    if done != saved.experiment.generations or generations not in (None, done):
        return None
    return RunResult(path, None, None, [], True, done, already_finished=True)


def no_checkpoint(path: Path, manifest: dict[str, Any], generations: int | None = None) -> str:
    """Returns what is true of a run directory without a checkpoint.json, and what to do instead of resuming it.

    Such a run is either finished and kept without it (the shipped runs in
    results/reference/ are: it is large, and the tables are what they ship),
    or it stopped before its first generation ended. Either way its config.toml
    makes it again in a new directory (the same seed plays the same games), so
    nothing is ever to be removed.
    """
    config = path / "config.toml"
    again = f"othello-ga evolve {config if os.path.lexists(config) else 'CONFIG'}"
    done = manifest.get("generations_done", 0)
    if manifest.get("status") == "finished":
        longer = f" --generations {generations}" if generations else " --generations N"
        return (f"'{path}' is finished ({done:,} of {done:,} generations done) and was kept without its {CHECKPOINT}, "
                f"so it cannot be extended in place; run it again, longer, into a new directory: {again}{longer} "
                "--out NEW_DIR")
    if done:
        return (f"'{path}' has {done:,} generations done but no {CHECKPOINT} (it was copied without it), so it cannot "
                f"be continued; run it again into a new directory: {again} --out NEW_DIR")
    return (f"'{path}' has no {CHECKPOINT}: the run stopped before its first generation ended, so there is nothing "
            f"to resume; run it again into a new directory: {again} --out NEW_DIR")


# --- entry points ---------------------------------------------------------------------------


def default_run_dir(config: Config, results: Path = Path("results")) -> Path:
    """Returns ``results/<experiment>-<timestamp>``, made unique if needed."""
    return timestamped_dir(config.experiment.name, results)


def timestamped_dir(name: str, results: Path = Path("results")) -> Path:
    """Returns ``results/<name>-<timestamp>`` (a run's or a study's), made unique if needed."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = results / f"{name}-{stamp}"
    suffix = 1
    while candidate.exists():
        suffix += 1
        candidate = results / f"{name}-{stamp}-{suffix}"
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
    stop: StopRequest | None = None,
) -> RunResult:
    """Runs an experiment and returns its logbook, hall of fame and run directory.

    ``dask`` (a scheduler address, ``local`` or ``local:N``) evaluates fitness on a Dask cluster.
    ``stop``: the request to stop the run heeds (see :func:`run`).

    >>> result = evolve("experiments/quick.toml", out="results/quick-run")  # doctest: +SKIP
    >>> result.logbook_frame()[["generation", "win_rate"]].tail()  # doctest: +SKIP
    """
    if not isinstance(config, Config):
        config = load_config(config)
    config = with_overrides(config, seed=seed, generations=generations, workers=workers,
                            backend="dask" if dask is not None else None, address=dask)
    run_dir = Path(out) if out is not None else default_run_dir(config)
    return run(config, run_dir, progress=progress, stop=stop)


def resume(
    run_dir: str | os.PathLike[str],
    *,
    generations: int | None = None,
    workers: int | None = None,
    dask: str | None = None,
    local: bool = False,
    progress: ProgressFactory | None = None,
    label: str = "GA",
    stop: StopRequest | None = None,
) -> RunResult:
    """Continues an interrupted run (or extends a finished one with ``generations``).

    ``dask`` continues on a (possibly other) Dask cluster, ``local`` on this
    machine's pool, whatever backend the run started with; neither changes the
    results, so neither is saved in the run's config.toml.
    """
    path = check_run_dir(run_dir)
    check_no_links(path)
    finished = _finished(path, generations)
    if finished is not None:
        return finished  # nothing to do, and nothing written (not even the lock's process id)
    with RunLock(path) as lock:
        # Every file the run will read back is read and checked before anything is written.
        saved = read_config(path)
        if not os.path.lexists(path / CHECKPOINT):
            raise RunDirError(no_checkpoint(path, read_manifest(path, missing_ok=True), generations))
        checkpoint = read_checkpoint(path)
        check_checkpoint_fits(checkpoint, saved, path)
        read_manifest(path)
        if saved.refine.generations:
            _check_refinement_files(saved, path)
        done = checkpoint.generation + 1
        if generations is not None and generations < done:
            raise RunDirError(f"'{path}' has already done {done} generations; generations must be at least {done}")
        config = with_overrides(saved, generations=generations)
        backend = "local" if local else "dask" if dask is not None else None
        here = with_overrides(config, workers=workers, backend=backend, address="" if local else dask)
        return run(here, path, resume=True, progress=progress,
                   save_config=config if config != saved else None, lock=lock, label=label, stop=stop)

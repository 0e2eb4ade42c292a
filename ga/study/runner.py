"""Running a study: every run of every config with every seed, each scored held out, spread over processes or a cluster.

One run is one task (:func:`play_run`): it starts, resumes or skips its run
directory through :func:`ga.evolution.run.evolve` and
:func:`~ga.evolution.run.resume`, then plays the measures its run still
lacks. Locally the tasks go to ``jobs`` processes (spawned: each imports
the engine once), on a Dask cluster one task to a worker thread; a run's
own games stay in its task. Every result is a pure function of the config
and the seed, so the files are the same whatever the jobs or the cluster,
and after a worker is lost (Dask gives its task to another, which resumes
the run from its checkpoint).

This process alone writes the study directory's own files (it holds the
study's lock); the tasks write their run directories. A stop (Ctrl-C,
SIGTERM) reaches every task: each run stops after its generation, a
scoring between two measures, and the study is left resumable.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import contextlib
import multiprocessing
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from typing import Any

from engine import Interrupted, stop_work

from ga.config import Config, config_to_dict, config_from_dict
from ga.evolution.run import StopRequest, evolve, resume
from ga.files import atomic_write
from ga.games.executor import WorkersLost, all_cores
from ga.rundir.layout import BEST, CHECKPOINT, CONFIG, GAMES, GENERATIONS, LOCK, MANIFEST, MEAN, file_problem
from ga.rundir.lock import RunLock
from ga.rundir.manifest import read_manifest
from ga.rundir.reader import read_evaluation
from ga.study.layout import CONFIGS, RUNS, SCORES, STUDY, config_file, is_study_dir, run_dir, scores_file
from ga.study.measures import Measure, score
from ga.study.schema import Study, StudyError, load_saved_study, study_toml
from ga.study.scores import read_scores, write_scores

__all__ = ["RunJob", "RunOutcome", "StudyResult", "open_study", "play_run", "read_scores", "run_study", "run_state"]

# How often the study looks at its tasks and at a request to stop (seconds).
_POLL_S = 0.2


@dataclass(frozen=True)
class RunJob:
    """One run of a study, as a task: its config (seed included), where it runs, what it still lacks."""

    label: str
    seed: int
    config: Config
    run_dir: Path
    measures: tuple[Measure, ...]  # the measures not scored yet
    workers: int = 1  # threads of the run's own games and scoring


@dataclass
class RunOutcome:
    """What a task did: whether its run is finished, and the scores it played."""

    label: str
    seed: int
    finished: bool
    scores: dict[str, dict[str, int]] = field(default_factory=dict)  # by column: games, wins, draws, losses
    stopped_in: str = ""


@dataclass
class StudyResult:
    """What a study did: its directory, the runs finished and scored, and whether all are."""

    study_dir: Path
    study: Study
    done: int
    total: int
    stopped: bool = False

    @property
    def finished(self) -> bool:
        return self.done == self.total


# --- one run --------------------------------------------------------------------------------------


#: What a run writes before its first checkpoint: all that a run begun and stopped then may hold, and so all that
#: is removed when it starts again.
BEGUN_FILES = (CONFIG, MANIFEST, GENERATIONS, GAMES, LOCK)


def run_state(path: Path, config: Config) -> str:
    """Returns where a study's run stands: "new", "restart" (begun, nothing to resume), "resume" or "finished".

    :raises StudyError: the run's directory holds what a study's run never holds, which would be lost by
        starting it again (a link, a checkpoint that is no regular file, a file of the user's).
    """
    if not os.path.lexists(path):
        return "new"
    problem = file_problem(path) if path.is_symlink() or not path.is_dir() else ""
    if problem or not path.is_dir():
        raise StudyError(f"the study's run directory '{path}' {problem or 'is not a directory'}; move it away "
                         "(the study then runs it again)")
    checkpoint = path / CHECKPOINT
    if os.path.lexists(checkpoint) and not (checkpoint.is_file() and not checkpoint.is_symlink()):
        raise StudyError(f"'{checkpoint}' {file_problem(checkpoint) or 'is not a regular file'}; move the run "
                         "directory away (the study then runs it again), or restore the run from a copy")
    if not os.path.lexists(checkpoint):
        others = sorted(entry.name for entry in path.iterdir()
                        if entry.name not in BEGUN_FILES and not _temporary(entry.name))
        manifest = read_manifest(path, missing_ok=True) if (path / MANIFEST).is_file() else {}
        if others or manifest.get("status") in ("finished", "refining"):
            held = f"holds {', '.join(others[:3])}" if others else f"is {manifest.get('status')}"
            raise StudyError(f"the study's run directory '{path}' has no {CHECKPOINT} but {held}, which a run begun "
                             "and stopped before its first checkpoint never does; the study deletes nothing it did "
                             "not write: move the directory away (the study then runs it again)")
        for name in BEGUN_FILES:
            problem = file_problem(path / name)
            if problem:
                raise StudyError(f"'{path / name}' {problem}")
        return "restart"
    manifest = read_manifest(path, missing_ok=True)
    done = manifest.get("status") == "finished" and manifest.get("generations_done") == config.experiment.generations
    return "finished" if done else "resume"


def _temporary(name: str) -> bool:
    """Returns whether ``name`` is a temporary file of the tool's atomic writes (``.NAME.PID.tmp``)."""
    return name.startswith(".") and name.endswith(".tmp")


def play_run(job: RunJob, stop: StopRequest) -> RunOutcome:
    """Brings a study's run to its end (new, resumed, or already there) and plays the measures it lacks."""
    outcome = RunOutcome(job.label, job.seed, False)
    if stop.signal is not None:
        return outcome
    state = run_state(job.run_dir, job.config)
    if state == "restart":
        # Begun and stopped before its first checkpoint (a lost worker, a kill): nothing to resume. Its lock
        # says no process writes it any more; then the files such a run writes go (run_state checked that
        # it holds nothing else), and it starts again.
        with RunLock(job.run_dir):
            for entry in job.run_dir.iterdir():
                if entry.name != LOCK and (entry.name in BEGUN_FILES or _temporary(entry.name)):
                    entry.unlink()
        (job.run_dir / LOCK).unlink(missing_ok=True)
        job.run_dir.rmdir()
    if state in ("new", "restart"):
        result = evolve(job.config, out=job.run_dir, workers=job.workers, stop=stop)
    elif state == "resume":
        result = resume(job.run_dir, workers=job.workers, local=True, stop=stop)
    if state != "finished" and not result.finished:
        outcome.stopped_in = result.stopped_in
        return outcome
    outcome.finished = True
    tables = {"best": BEST, "mean": MEAN}
    for measure in job.measures:
        if stop.signal is not None:
            break
        evaluation = read_evaluation(job.run_dir, tables[measure.table])
        weights = np.array(evaluation.squares) if evaluation.is_table else evaluation
        try:
            scores = score(weights, measure, job.workers)
        except Interrupted:
            break  # stopped while it played: the measure is scored when the study goes on
        for column, summary in scores.items():
            outcome.scores[column] = {"games": summary.games, "wins": summary.wins, "draws": summary.draws,
                                      "losses": summary.losses}
    return outcome


# --- the study's own files ----------------------------------------------------------------------


def _write_scores(study_dir: Path, outcome: RunOutcome) -> None:
    write_scores(study_dir, outcome.label, outcome.seed, outcome.scores)


def check_study_files(study: Study, study_dir: Path) -> None:
    """Raises StudyError if anything the study writes in ``study_dir`` is a link, a FIFO, a socket or a device.

    A study directory gets the rules of a run directory: a link in place of ``plots/``, a run's directory or a
    file would send the study's writes outside it, and a FIFO would be replaced or waited on.
    """
    from ga.study.layout import FIGURES, PLOTS, STUDY_CSV, SUMMARY_CSV, SUMMARY_MD

    paths = [study_dir / name for name in (STUDY, CONFIGS, RUNS, SCORES, PLOTS, STUDY_CSV, SUMMARY_MD, SUMMARY_CSV)]
    paths += [study_dir / PLOTS / f"{figure}.png" for figure in FIGURES]
    paths += [config_file(study_dir, config.label) for config in study.configs]
    for config, seed in study.runs:
        paths += [run_dir(study_dir, config.label, seed), scores_file(study_dir, config.label, seed)]
    for path in paths:
        problem = file_problem(path, "a study directory")
        if problem:
            raise StudyError(f"'{path}' {problem}")


def open_study(study: Study, study_dir: Path) -> None:
    """Makes a new study directory (study.toml, configs/), or checks that an existing one holds this study.

    :raises StudyError: the directory holds another study, or something that is not a study.
    """
    if is_study_dir(study_dir):
        check_study_files(study, study_dir)
        saved = load_saved_study(study_dir)
        difference = saved.difference(study)
        if difference is not None:
            raise StudyError(f"study directory '{study_dir}' holds another study ({difference}); "
                             "choose another --out, or run the study it holds: othello-ga study " f"{study_dir}")
        return
    if study_dir.exists() and (not study_dir.is_dir() or any(study_dir.iterdir())):
        raise StudyError(f"output directory '{study_dir}' already exists and is not a study directory; "
                         "choose another --out")
    text, configs = study_toml(study)
    check_study_files(study, study_dir)
    try:
        for name in (CONFIGS, RUNS, SCORES):
            (study_dir / name).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StudyError(f"cannot make the study directory '{study_dir}': {error.strerror or error}") from None
    for name, config_text in configs.items():
        atomic_write(study_dir / name, config_text)
    atomic_write(study_dir / STUDY, text)  # last: a directory with study.toml is a whole study


def _jobs(study: Study, study_dir: Path, workers: int) -> list[RunJob]:
    """Returns the tasks of the runs not done yet: unfinished, or lacking a measure's scores."""
    jobs = []
    for config, seed in study.runs:
        path = run_dir(study_dir, config.label, seed)
        scored = read_scores(study_dir, config.label, seed)
        missing = tuple(m for m in study.measures if not set(m.columns()) <= set(scored))
        run_config = _local(study.run_config(config, seed), workers)
        if missing or run_state(path, run_config) != "finished":
            jobs.append(RunJob(config.label, seed, run_config, path, missing, workers))
    return jobs


def _local(config: Config, workers: int) -> Config:
    """Returns a run's config as a study task runs it: its games on the task's own threads."""
    data = config_to_dict(config)
    data["compute"] |= {"workers": workers, "backend": "local", "address": ""}
    return config_from_dict(data)


# --- spreading the runs -------------------------------------------------------------------------


_TASK_STOP = StopRequest()


def _start_process(parent: int) -> None:
    """Starts a local task process: its own process group (the terminal's Ctrl-C goes to the study, which
    passes a stop on), one request to stop for all its runs, set by SIGTERM (a second signal stops at once),
    and a watch on the study's process: if it dies (kill -9), the task stops as on SIGTERM and the process ends
    (it would otherwise play on for hours, holding the run's lock and the terminal)."""
    os.setpgrp()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _TASK_STOP)
    # Spawned with SIGINT blocked (see _local_pool), so that a Ctrl-C while it started could not kill it
    # half-started: one that came meanwhile is handled now, as a stop.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Thread(target=_follow_parent, args=(parent,), name="othello-ga-parent", daemon=True).start()


def _follow_parent(parent: int) -> None:
    """Stops this task process's work when the study's process is gone (its parent is then another process)."""
    while os.getppid() == parent:
        time.sleep(_POLL_S)
    _TASK_STOP(signal.SIGTERM, None)  # the run stops, its checkpoint intact, and the games it plays now at once:
    stop_work()
    # Nothing can take this process's outcome any more: it ends once its run has stopped and saved (the task
    # returns), or at once if it was waiting for a task.
    while True:
        time.sleep(_POLL_S)
        if _TASK_DONE.is_set() or not _TASK_BUSY.is_set():
            os._exit(EXIT_PARENT_GONE)


_TASK_BUSY = threading.Event()  # a task process plays a run now
_TASK_DONE = threading.Event()  # ... and has finished it (its outcome goes to the study, if it is there)
#: The exit status of a task process whose study's process died.
EXIT_PARENT_GONE = 143


def _process_task(job: RunJob) -> RunOutcome:
    _TASK_BUSY.set()
    _TASK_DONE.clear()
    try:
        return play_run(job, _TASK_STOP)
    finally:
        _TASK_DONE.set()
        _TASK_BUSY.clear()


def _dask_task(job: RunJob, event_name: str) -> RunOutcome:
    """Plays a run on a Dask worker thread; the study's stop arrives as a Dask event."""
    from distributed import Event, get_client

    stop = StopRequest()
    event = Event(event_name, client=get_client())
    if event.is_set():
        stop.signal = signal.SIGTERM
    ended = threading.Event()

    def watch() -> None:
        while not ended.is_set():
            if event.wait(timeout=0.5):
                stop.signal = signal.SIGTERM
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return play_run(job, stop)
    finally:
        ended.set()
        watcher.join()


def _children() -> list[multiprocessing.process.BaseProcess]:
    return [child for child in multiprocessing.active_children() if child.pid is not None]


def _send(signal_number: int) -> None:
    for child in _children():
        try:
            os.kill(child.pid, signal_number)  # type: ignore[arg-type]
        except ProcessLookupError:
            pass


@contextmanager
def _local_pool(jobs: int, stop: StopRequest) -> Iterator[Callable[[RunJob], concurrent.futures.Future[Any]]]:
    context = multiprocessing.get_context("spawn")
    pool = concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_process,
                                                  initargs=(os.getpid(),))

    def submit(job: RunJob) -> concurrent.futures.Future[Any]:
        # The task processes are started here, and inherit this thread's blocked signals: SIGINT blocked, a
        # Ctrl-C in their first second (before they leave the terminal's process group) cannot kill them half
        # started (a BrokenProcessPool); they unblock it once they stand alone (_start_process).
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return pool.submit(_process_task, job)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    try:
        yield submit
    except BaseException:
        _send(signal.SIGTERM)
        _send(signal.SIGINT)  # the second signal: each run stops at once, its checkpoint intact
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_study(
    study: Study,
    study_dir: Path,
    *,
    jobs: int = 0,
    dask: str | None = None,
    on_run: Callable[[RunOutcome, int, int], None] | None = None,
    stop: StopRequest | None = None,
) -> StudyResult:
    """Runs every run of ``study`` not done yet in ``study_dir``, scores them, and writes the study's tables.

    ``jobs`` runs at a time on local processes (0: one per core), each with
    ``cores // jobs`` threads; ``dask`` (a scheduler address, ``local:N``)
    sends one run a task to a Dask cluster instead. ``on_run(outcome, done,
    total)`` is called as each task ends. A stop (SIGINT, SIGTERM, or
    ``stop``) lets the running runs checkpoint and returns early. The local
    processes are spawned: a script that calls this guards its start with
    ``if __name__ == "__main__":``.
    """
    from ga.games.cluster import connect

    stop = stop if stop is not None else StopRequest()
    with contextlib.ExitStack() as cluster:
        # The cluster first: one that cannot be reached leaves nothing written.
        client = cluster.enter_context(connect(dask, all_cores())) if dask is not None else None
        open_study(study, study_dir)
        with RunLock(study_dir):
            with stop.installed():
                result = _run_pending(study, study_dir, jobs, client, dask or "", on_run, stop)
            # Without the stop's handlers: Ctrl-C (KeyboardInterrupt) or SIGTERM ends the summary at once, its
            # files each whole or as before, and the next run of the study writes them again.
            from ga.study.summary import write_summary  # pandas: loaded for the summary, not by every task

            write_summary(study, study_dir)
            return result


def _run_pending(study: Study, study_dir: Path, jobs: int, client: Any, address: str,
                 on_run: Callable[[RunOutcome, int, int], None] | None, stop: StopRequest) -> StudyResult:
    local_jobs = jobs or all_cores()
    workers = 1 if client is not None else max(1, all_cores() // local_jobs)
    pending = _jobs(study, study_dir, workers)
    total = len(study.runs)
    done = total - len(pending)
    if pending:
        runner = (_on_dask(pending, client, address, stop) if client is not None
                  else _on_processes(pending, local_jobs, stop))
        for outcome in runner:
            _write_scores(study_dir, outcome)
            if outcome.finished and not _missing(study, study_dir, outcome):
                done += 1
            if on_run is not None:
                on_run(outcome, done, total)
    return StudyResult(study_dir, study, done, total, stopped=stop.signal is not None and done < total)


def _missing(study: Study, study_dir: Path, outcome: RunOutcome) -> bool:
    scored = read_scores(study_dir, outcome.label, outcome.seed)
    return any(column not in scored for measure in study.measures for column in measure.columns())


def _on_processes(pending: list[RunJob], jobs: int, stop: StopRequest) -> Iterator[RunOutcome]:
    """Yields the outcome of each task as it ends, ``jobs`` at a time on local processes."""
    queue = list(pending)
    forwarded = False
    with _local_pool(min(jobs, len(queue)), stop) as submit:
        running: set[concurrent.futures.Future[Any]] = set()
        while queue or running:
            while queue and len(running) < jobs and stop.signal is None:
                running.add(submit(queue.pop(0)))  # one at a time: a stop leaves the rest unstarted
            if stop.signal is not None:
                queue.clear()
                if not forwarded:
                    _send(signal.SIGTERM)
                    forwarded = True
            if not running:
                break
            finished, running = concurrent.futures.wait(running, timeout=_POLL_S,
                                                        return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                try:
                    outcome = future.result()
                except concurrent.futures.process.BrokenProcessPool as error:
                    if stop.signal is not None:
                        return  # a task process ended by the stop itself: its run resumes from its checkpoint
                    raise WorkersLost(f"a task process of the study died ({' '.join(str(error).split())}); the "
                                      "runs' checkpoints are intact: run the study again to go on") from None
                yield outcome


def _on_dask(pending: list[RunJob], client: Any, address: str, stop: StopRequest) -> Iterator[RunOutcome]:
    """Yields the outcome of each task as it ends, one task a run on the Dask cluster of ``client``."""
    from distributed import Event, KilledWorker, wait

    from ga.games.cluster import ClusterLost

    event_name = f"othello-ga-study-{uuid.uuid4().hex}"
    event = Event(event_name, client=client)
    remaining = {client.submit(_dask_task, job, event_name, pure=False,
                               key=f"study-run-{job.label}-seed{job.seed}-{uuid.uuid4().hex[:8]}")
                 for job in pending}
    told = False
    try:
        while remaining:
            if stop.signal is not None and not told:
                event.set()  # every task stops its run, and the tasks not started yet start none
                told = True
            try:
                with client.as_current():
                    finished, remaining = wait(list(remaining), timeout=_POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            for future in finished:
                try:
                    outcome = future.result()
                except (KilledWorker, OSError, concurrent.futures.CancelledError) as error:
                    raise ClusterLost(f"lost the Dask cluster at '{address}' during the study ({type(error).__name__}: "
                                      f"{' '.join(str(error).split())[:200]}); run the study again to go on") from error
                yield outcome
            remaining = set(remaining)
    finally:
        if not told:
            event.set()


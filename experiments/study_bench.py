"""A study's cost: 5 configs x 10 seeds of seed2021.toml as a study, against its 50 runs played back to back.

Both sides use the same worker threads: back to back, each run (and its
scoring) has all of them; the study runs ``--workers`` runs at a time, one
thread each (``othello-ga study --jobs``). Both start from nothing, in fresh
directories, and score every run's best table the same way (the league
against ``heuristic``, ``--games`` games). The repetitions alternate (back
to back, study, back to back, study, ...), so that a machine that slows down
slows both; each repetition's ratio is the study's time over the runs' time,
and the figure is their median. The target is at most 1.15.

    python experiments/study_bench.py --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import tomli_w

from ga.evolution.run import StopRequest
from ga.games.executor import all_cores
from ga.study.layout import run_dir
from ga.study.runner import RunJob, play_run, run_study
from ga.study.schema import Study, load_study

HERE = Path(__file__).resolve().parent
TARGET = 1.15
RATES = [0.01, 0.02, 0.03, 0.05, 0.08]  # mutation.gene_probability: the five configs


def make_study(folder: Path, seeds: int, generations: int | None, games: int) -> Study:
    """Writes the benchmark's study file into ``folder`` and returns the study."""
    study = {
        "study": {"name": "bench", "seeds": f"1-{seeds}", "generations": generations or 0},
        "grid": {"base": str(HERE / "seed2021.toml"), "set": {"output": {"games_csv": False}},
                 "values": {"mutation.gene_probability": RATES}},
        "measures": [{"name": "league", "protocol": "league", "games": games, "seed": 3}],
    }
    path = folder / "bench.toml"
    path.write_text(tomli_w.dumps(study), encoding="utf-8")
    return load_study(path)


def back_to_back(study: Study, folder: Path, workers: int) -> float:
    """Plays every run of the study and its scoring one after another; returns the seconds taken."""
    started = time.perf_counter()
    for config, seed in study.runs:
        job = RunJob(config.label, seed, study.run_config(config, seed), run_dir(folder, config.label, seed),
                     study.measures, workers)
        outcome = play_run(job, StopRequest())
        assert outcome.finished and outcome.scores
    return time.perf_counter() - started


def as_study(study: Study, folder: Path, workers: int) -> float:
    """Runs the study with ``workers`` runs at a time; returns the seconds taken."""
    started = time.perf_counter()
    result = run_study(study, folder, jobs=workers)
    assert result.finished
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of the pair (interleaved)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds per config (1..N)")
    parser.add_argument("--generations", type=int, default=None, help="every run's generations (default: 1000)")
    parser.add_argument("--games", type=int, default=1000, help="league games scoring each run's best table")
    parser.add_argument("--workers", type=int, default=0, help="worker threads on both sides (0 = all cores)")
    args = parser.parse_args(argv)
    workers = args.workers or all_cores()
    ratios = []
    with tempfile.TemporaryDirectory(prefix="othello-ga-study-bench-") as scratch:
        study = make_study(Path(scratch), args.seeds, args.generations, args.games)
        runs = len(study.runs)
        print(f"{len(study.configs)} configs x {len(study.seeds)} seeds of seed2021.toml "
              f"({study.configs[0].config.experiment.generations} generations), {workers} worker threads", flush=True)
        for repetition in range(1, args.repeat + 1):
            serial = back_to_back(study, Path(scratch) / f"serial{repetition}", workers)
            parallel = as_study(study, Path(scratch) / f"study{repetition}", workers)
            ratios.append(parallel / serial)
            print(f"repetition {repetition}: {runs} runs back to back {serial:.1f} s, as a study {parallel:.1f} s "
                  f"(--jobs {workers}), ratio {parallel / serial:.3f}", flush=True)
    ratio = statistics.median(ratios)
    verdict = "meets" if ratio <= TARGET else "misses"
    print(f"study / back to back: median ratio {ratio:.3f} (range {min(ratios):.3f}-{max(ratios):.3f}); "
          f"{verdict} the target of {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

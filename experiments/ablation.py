"""Ablation: from the blog's GA to experiments/strong.toml, one lever at a time.

Each rung adds one lever to the rung before it; every run gets the same
budget of games (generations = budget // games per generation) and is scored
on opponents it never trained against: its best table plays the league
protocol against ``heuristic`` (1-ply, eps 0.1, both colours). Several seeds
per rung give the spread. Writes ``runs.csv`` (one row per run) and
``ablation.md`` (the table quoted in docs/experiments.md) under ``--out``.

    python experiments/ablation.py --out results/ablation --seeds 3 --budget 2000000 --jobs 2
"""

from __future__ import annotations

import argparse
import copy
import shutil
import sys
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ga.config import config_from_dict
from ga.analysis.evaluation import evaluate_player
from ga.evolution.fitness import games_per_generation
from ga.evolution.run import evolve, resume
from ga.rundir.layout import RunDirError
from ga.analysis.stats import mean_interval
from ga.weights import load_weights

HERE = Path(__file__).resolve().parent

# (label, changes to the config dict of the rung before). The last rung is strong.toml's recipe.
RUNGS: list[tuple[str, dict[str, dict[str, Any]]]] = [
    ("blog: 1 game as black vs one random opponent, adjacent pairs, reset 3%", {}),
    ("+ every opponent, 8 games each, both colours, win rate", {
        "fitness": {"draw": "all", "games_per_opponent": 8, "colours": "both", "score": "win_rate"},
    }),
    ("+ common random numbers", {"fitness": {"common_random_numbers": True}}),
    ("+ 48 individuals, tournament selection (3) of 24 parents, 2 elites re-evaluated", {
        "population": {"size": 48, "parents": 24},
        "selection": {"method": "tournament", "tournament_size": 3, "elitism": 2, "reevaluate_elites": True},
    }),
    ("+ uniform crossover 0.7, gaussian mutation (sigma 0.08, 15%)", {
        "crossover": {"method": "uniform", "probability": 0.7, "gene_probability": 0.5},
        "mutation": {"method": "gaussian", "sigma": 0.08, "gene_probability": 0.15},
    }),
    ("+ symmetric genome (sym8, 10 genes), weights free in [-10, 10]", {
        "population": {"genome": "sym8"},
        "mutation": {"low": -10.0, "high": 10.0},
    }),
    ("+ no held-out opponent in training, eps 0.1, alphabeta:2@classic", {
        "experiment": {"held_out_claim": True},
        "fitness": {"eps": 0.1, "opponents": [
            "wpc:1@classic,eps=0.1", "nhand:1,eps=0.1", "nhand:2,eps=0.1", "nleast:1,eps=0.1",
            "alphabeta:2@classic,eps=0.1"]},
    }),
    ("+ coevolution: 24 games vs the population, 24 vs the last 200 champions", {
        "fitness": {"coevolution": 24, "hall_of_fame_games": 24, "hall_of_fame_size": 200},
    }),
    ("+ final tournament (32 games a pairing) picks the best table (= strong.toml)", {"final": {"games": 32}}),
]


def rung_configs(base: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the config dict of every rung, each the one before plus its changes."""
    configs = []
    current = copy.deepcopy(base)
    for _, changes in RUNGS:
        for section, values in changes.items():
            current[section] = current.get(section, {}) | copy.deepcopy(values)
        configs.append(copy.deepcopy(current))
    return configs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/ablation"))
    parser.add_argument("--seeds", type=int, default=3, help="runs per rung (seeds 1..N)")
    parser.add_argument("--budget", type=int, default=2_000_000, help="games per run")
    parser.add_argument("--eval-games", type=int, default=20_000, help="league games per evaluation")
    parser.add_argument("--workers", type=int, default=1, help="threads per run")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (processes)")
    parser.add_argument("--rungs", type=str, default="", help="comma-separated rung numbers (default: all)")
    args = parser.parse_args(argv)
    base = tomllib.loads((HERE / "seed2021.toml").read_text(encoding="utf-8"))
    base["output"] = {"games_csv": False}
    configs = rung_configs(base)
    chosen = [int(r) for r in args.rungs.split(",")] if args.rungs else list(range(len(RUNGS)))
    args.out.mkdir(parents=True, exist_ok=True)
    rows_path = args.out / "runs.csv"
    done = pd.read_csv(rows_path) if rows_path.exists() else pd.DataFrame()
    todo = [
        (rung, seed) for rung in chosen for seed in range(1, args.seeds + 1)
        # resumable: runs already scored are kept
        if not (len(done) and ((done["rung"] == rung) & (done["seed"] == seed)).any())
    ]
    jobs = [(rung, seed, configs[rung], args) for rung, seed in todo]
    with ProcessPoolExecutor(max(args.jobs, 1)) as pool:
        for row in pool.map(run_one, jobs):
            print(f"rung {row['rung']} seed {row['seed']}: best {row['best_vs_heuristic']:.3f} "
                  f"mean {row['mean_vs_heuristic']:.3f} ({row['generations']} generations, {row['wall_s']:.0f} s)",
                  flush=True)
            done = pd.concat([done, pd.DataFrame([row])], ignore_index=True)
            done.sort_values(["rung", "seed"]).to_csv(rows_path, index=False)
    (args.out / "ablation.md").write_text(markdown_table(done, args), encoding="utf-8")
    print(markdown_table(done, args))
    return 0


def run_one(job: tuple[int, int, dict[str, Any], argparse.Namespace]) -> dict[str, Any]:
    """Runs one rung with one seed and scores its best and mean tables (in a worker process)."""
    rung, seed, data, args = job
    data = copy.deepcopy(data)
    data["experiment"] |= {"name": f"ablation-{rung}", "seed": seed}
    config = config_from_dict(data, base_dir=HERE)
    generations = max(1, args.budget // games_per_generation(config))
    run_dir = args.out / f"rung{rung}-seed{seed}"
    started = time.perf_counter()
    if run_dir.exists():
        # Left by an interrupted ablation: continue it, or start again if it never checkpointed.
        try:
            resume(run_dir, generations=generations, workers=args.workers)
        except RunDirError:
            shutil.rmtree(run_dir)
            evolve(config, out=run_dir, generations=generations, workers=args.workers)
    else:
        evolve(config, out=run_dir, generations=generations, workers=args.workers)
    wall = time.perf_counter() - started
    row: dict[str, Any] = {"rung": rung, "lever": RUNGS[rung][0], "seed": seed,
                           "generations": generations, "wall_s": round(wall, 1)}
    for which in ("best", "mean"):
        table = load_weights(run_dir / f"{which}_weights.csv")
        summary = evaluate_player(table, [], args.eval_games, seed=3, protocol="league",
                                  workers=max(args.workers, 1))[0]
        row[f"{which}_vs_heuristic"] = summary.score
    return row


def markdown_table(runs: pd.DataFrame, args: argparse.Namespace) -> str:
    """Returns the ablation table: per rung, the mean over seeds with a 95% t interval, and each seed."""
    lines = [
        f"League score vs `heuristic` of the best table ({args.eval_games:,} games per evaluation; "
        f"{args.budget:,} training games per run; mean over seeds, 95% t interval, then each seed)",
        "",
        "| # | lever added | generations | best table vs heuristic | seeds | mean table vs heuristic |",
        "|---|---|---|---|---|---|",
    ]
    for rung, group in runs.groupby("rung"):
        best = group["best_vs_heuristic"].to_numpy()
        lines.append(
            f"| {rung} | {group['lever'].iloc[0]} | {int(group['generations'].iloc[0])} | {_interval(best)} | "
            f"{', '.join(f'{v:.3f}' for v in best)} | {_interval(group['mean_vs_heuristic'].to_numpy())} |"
        )
    return "\n".join(lines) + "\n"


def _interval(values: np.ndarray) -> str:
    mean, half = mean_interval(values)
    return f"{mean:.3f}" if np.isnan(half) else f"{mean:.3f} ± {half:.3f}"


if __name__ == "__main__":
    sys.exit(main())

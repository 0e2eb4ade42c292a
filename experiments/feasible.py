"""Probe: can one sym8 table meet every target of a table for engines that search?

The targets (docs/experiments.md, "Tables for engines that search"): the
league against ``heuristic`` at least 0.54 and against ``lr06`` at least
0.55, the random mover at least 0.92, and the depth ladder at least 0.52
against ``heuristic``, ``lr06`` and ``sjk11`` at every depth 1-4.

CMA-ES (DEAP's ``cma.Strategy``) starts from a table and scores each
candidate *directly on those held-out measures*, with new games each
generation and seeds other than the evaluation's. Its table has trained on
the held-out opponents, so it is no result of ours: the probe says whether
the targets are within a table's reach near the start, not whether an
experiment that never meets those opponents can get there. At the end the
final centroid and the mean of the last ``--average-last`` centroids (the
refinement's tail average) are scored on fresh games, the measures of
``othello-ga evaluate`` (league, ``--vs random``, ``--protocol ladder``).

    python experiments/feasible.py --start run/best_weights.csv --out DIR
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

import ga  # noqa: F401  first: it pins numpy's BLAS, which CMA-ES's update uses, before numpy loads

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from deap import base, cma, creator  # noqa: E402

from ga.analysis.evaluation import evaluate_player, ladder  # noqa: E402
from ga.cli.errors import EXIT_BAD_INPUT, exit_code, one_line  # noqa: E402
from ga.evolution.genome import contract, expand  # noqa: E402
from ga.rundir.resolve import resolve_weights  # noqa: E402
from ga.weights import format_weights  # noqa: E402

GENOME = "sym8"
LADDER_OPPONENTS = ("heuristic", "lr06", "sjk11")
DEPTHS = (1, 2, 3, 4)
MEASURES = ["league_heuristic", "league_lr06", "vs_random"] + [
    f"ladder_{name}_d{depth}" for name in LADDER_OPPONENTS for depth in DEPTHS]
TARGETS = np.array([0.54, 0.55, 0.92] + [0.52] * len(LADDER_OPPONENTS) * len(DEPTHS))
GAMES_SEED = 500_000  # generation g plays seed GAMES_SEED + g: never the evaluation's (3, 11)

if "FeasibleFitness" not in creator.__dict__:
    creator.create("FeasibleFitness", base.Fitness, weights=(1.0,))
    creator.create("FeasibleCandidate", list, fitness=creator.FeasibleFitness)


def held_out_scores(table: np.ndarray, games: int, random_games: int, seed: int, workers: int) -> np.ndarray:
    """Returns a table's score in each of MEASURES, ``games`` games each (the random mover: ``random_games``)."""
    scores = [s.score for s in evaluate_player(table, ["wpc:1@heuristic", "wpc:1@lr06"], games, seed=seed,
                                               workers=workers, protocol="league")]
    scores += [s.score for s in evaluate_player(table, ["random"], random_games, seed=seed, workers=workers)]
    scores += [s.score for s in ladder(table, LADDER_OPPONENTS, games, depths=DEPTHS, seed=seed, workers=workers)]
    return np.array(scores)


def margin(scores: np.ndarray) -> float:
    """The objective: the worst margin over the targets, plus a tenth of the mean margin to break ties."""
    gaps = scores - TARGETS
    return float(gaps.min() + 0.1 * gaps.mean())


def search(start: np.ndarray, args: argparse.Namespace) -> pd.DataFrame:
    """Runs CMA-ES on the held-out measures; returns one row per generation: the leader's scores, the centroid."""
    genes = contract(start, GENOME)
    np.random.seed(args.seed)  # DEAP's CMA-ES samples from numpy's global generator
    strategy = cma.Strategy(centroid=list(genes / np.abs(genes).max()), sigma=args.sigma, lambda_=args.candidates)
    rows = []
    for generation in range(args.generations):
        candidates = strategy.generate(creator.FeasibleCandidate)
        scores = [held_out_scores(np.asarray(expand(c, GENOME)), args.games, args.games * args.random_factor,
                                  GAMES_SEED + generation, args.workers) for c in candidates]
        for candidate, row in zip(candidates, scores):
            candidate.fitness.values = (margin(row),)
        leader = int(np.argmax([c.fitness.values[0] for c in candidates]))  # before update: it sorts candidates
        rows.append({"generation": generation, "leader_margin": candidates[leader].fitness.values[0],
                     **dict(zip(MEASURES, scores[leader].tolist()))})
        strategy.update(candidates)
        rows[-1].update({f"centroid_{i}": float(g) for i, g in enumerate(strategy.centroid)})
        print(f"{generation:4d} leader {rows[-1]['leader_margin']:+.4f} "
              + " ".join(f"{s:.3f}" for s in scores[leader]), flush=True)
    return pd.DataFrame(rows)


def checked(frame: pd.DataFrame, args: argparse.Namespace) -> pd.DataFrame:
    """Writes the final centroid and the mean late centroid as tables (centroid.csv, mean_centroid.csv);
    returns their scores on fresh games, one row each."""
    genes = frame[[c for c in frame.columns if c.startswith("centroid_")]].to_numpy()
    rows = []
    tables = (("final centroid", "centroid.csv", genes[-1]),
              ("mean of the last centroids", "mean_centroid.csv", genes[-args.average_last:].mean(axis=0)))
    for name, file_name, table_genes in tables:
        table = np.asarray(expand(list(table_genes), GENOME))
        (args.out / file_name).write_text(format_weights(table, "csv"), encoding="utf-8")
        scores = held_out_scores(table, args.check_games, args.check_games, args.check_seed, args.workers)
        rows.append({"table": name, "genes": " ".join(f"{g:.4f}" for g in table_genes),
                     **dict(zip(MEASURES, scores.tolist())), "targets_met": int((scores >= TARGETS).sum())})
        print(f"{name} ({args.check_games} games a measure, seed {args.check_seed}): "
              + " ".join(f"{s:.3f}" for s in scores), f"targets met: {rows[-1]['targets_met']} of {len(TARGETS)}")
    return pd.DataFrame(rows)


class Parser(argparse.ArgumentParser):
    """argparse with the command line's answer to bad input (ga.cli.errors): one line, exit code 2, no usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message}\n")


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", required=True, help="a run directory, weights file or built-in table")
    parser.add_argument("--out", type=Path, required=True,
                        help="writes search.csv, check.csv, centroid.csv and mean_centroid.csv here")
    parser.add_argument("--generations", type=positive, default=50)
    parser.add_argument("--candidates", type=positive, default=12)
    parser.add_argument("--sigma", type=float, default=0.02)
    parser.add_argument("--games", type=positive, default=1000, help="games per measure and candidate")
    parser.add_argument("--random-factor", type=positive, default=1, help="the random mover plays this many times more")
    parser.add_argument("--average-last", type=positive, default=25)
    parser.add_argument("--check-games", type=positive, default=20_000)
    parser.add_argument("--check-seed", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=positive, default=2)
    args = parser.parse_args(argv)
    try:
        start, _ = resolve_weights(args.start)
    except Exception as error:
        if exit_code(error) != EXIT_BAD_INPUT:  # the command line's policy tells bad input from a bug
            raise
        parser.error(f"--start {args.start}: {one_line(error)}")
    args.out.mkdir(parents=True, exist_ok=True)
    frame = search(np.asarray(start, dtype=np.float64).ravel(), args)
    frame.to_csv(args.out / "search.csv", index=False)
    checked(frame, args).to_csv(args.out / "check.csv", index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

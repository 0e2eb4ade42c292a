"""Probes behind issue 5's evidence: not experiments that claim a result.

``feasible`` asks whether one 10-gene (sym8) table can meet the four
held-out targets at once. CMA-ES (DEAP's ``cma.Strategy``) starts from a
table and scores each candidate directly on the four held-out measures
(new games each generation, with seeds other than the evaluation's), so its table has trained on
the held-out opponents and is no result of ours; the best candidate is then
scored on fresh games as ``experiments/heldout.py`` does.

``refine`` is the closest we came without them: CMA-ES from a run's table
on a held-in panel (a fixed opponent, other runs' best tables, random
tables), new games every generation, the result scored held out.

``proxies`` asks whether anything a run may train or select on ranks tables
the way the held-out measures do. For the top tables of finished runs it
plays each of the runs' training opponents and the other runs' best tables
(held in) and the four held-out measures, and prints their correlations.

    python experiments/probe.py feasible --start reference --generations 80
    python experiments/probe.py proxies RUN_DIR [RUN_DIR ...] --top 10
    python experiments/probe.py refine RUN_DIR --against RUN_DIR [RUN_DIR ...]
    python experiments/probe.py check 1.0776,-0.1892,0.5488,-0.0472,-0.6524,-0.1777,-0.0529,0.0969,0.0545,0.0115
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from deap import base, cma, creator

from ga.rundir.resolve import resolve_weights
from ga.config import load_config
from ga.analysis.evaluation import evaluate_player
from ga.evolution.genome import contract, expand
from ga.rundir.layout import weight_columns


def _heldout() -> object:
    # The measures and targets are heldout.py's (a sibling script, not a package).
    path = Path(__file__).with_name("heldout.py")
    spec = importlib.util.spec_from_file_location("experiments_heldout", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HELDOUT = _heldout()
MEASURES = HELDOUT.MEASURES  # type: ignore[attr-defined]
OTHER_RUNS = "other runs' best"
PANEL = ["fixed", "other_runs", "random_tables"]  # refine's held-in groups
TARGETS = np.array([HELDOUT.TARGETS[column] for column, _, _ in MEASURES])  # type: ignore[attr-defined]


def held_out_scores(weights: np.ndarray, games: int, seed: int, workers: int) -> np.ndarray:
    """Returns the four held-out scores of a table (``games`` per measure; eu: games / 2 tables)."""
    return np.array([summary.score for summary in HELDOUT.measure(weights, games, seed, workers)])  # type: ignore[attr-defined]


def margin(scores: np.ndarray) -> float:
    """The objective: the worst margin over the targets, plus a tenth of the mean margin to break ties."""
    gaps = scores - TARGETS
    return float(gaps.min() + 0.1 * gaps.mean())


def search_from(weights: np.ndarray, args: argparse.Namespace) -> cma.Strategy:
    """Returns CMA-ES over sym8 genes centred on ``weights`` (scaled to a largest weight of 1), seeded."""
    start = contract(weights, "sym8")
    start = start / np.abs(start).max()
    if "ProbeFitness" not in creator.__dict__:
        creator.create("ProbeFitness", base.Fitness, weights=(1.0,))
        creator.create("ProbeIndividual", list, fitness=creator.ProbeFitness)
    np.random.seed(args.seed)  # DEAP's CMA-ES samples from numpy's global generator
    return cma.Strategy(centroid=list(start), sigma=args.sigma, lambda_=args.candidates)


def feasible(args: argparse.Namespace) -> pd.DataFrame:
    """Runs CMA-ES on the held-out measures; returns one row per generation (the generation's best)."""
    strategy = search_from(resolve_weights(args.start, "best")[0], args)
    rows, best_margin, best_genes = [], -np.inf, list(strategy.centroid)
    for generation in range(args.generations):
        population = strategy.generate(creator.ProbeIndividual)
        # New games every generation unless --same-games: on fixed games the search learns those games.
        games_seed = args.seed if args.same_games else args.seed * 100_000 + generation
        for individual in population:
            individual.scores = held_out_scores(expand(individual, "sym8"), args.games, games_seed, args.workers)
            individual.fitness.values = (margin(individual.scores),)
        strategy.update(population)
        leader = max(population, key=lambda ind: ind.fitness.values[0])
        if leader.fitness.values[0] > best_margin:
            best_margin, best_genes = leader.fitness.values[0], list(leader)
        rows.append({"generation": generation, "margin": leader.fitness.values[0],
                     **dict(zip([c for c, _, _ in MEASURES], leader.scores.tolist()))})
        print(f"{generation:4d} margin {leader.fitness.values[0]:+.4f} "
              + " ".join(f"{s:.3f}" for s in leader.scores), flush=True)
    # The best candidate's scores are the luckiest of many; the centroid,
    # CMA-ES's estimate of the optimum, was never selected on its own games.
    for name, genes in [("best candidate", best_genes), ("final centroid", list(strategy.centroid))]:
        fresh = held_out_scores(expand(genes, "sym8"), args.check_games, args.check_seed, args.workers)
        print(f"{name} (a1 b1 c1 d1 b2 c2 d2 c3 d3 d4):", " ".join(f"{g:.4f}" for g in genes))
        print(f"  on fresh games ({args.check_games} a measure, seed {args.check_seed}):",
              " ".join(f"{s:.3f}" for s in fresh), "targets met:", int((fresh >= TARGETS).sum()), "of 4")
    return pd.DataFrame(rows)


def check(args: argparse.Namespace) -> pd.DataFrame:
    """Scores one sym8 table (its 10 genes) on the four held-out measures; returns one row."""
    genes = [float(g) for g in args.genes.split(",")]
    scores = held_out_scores(expand(genes, "sym8"), args.games, args.seed, args.workers)
    print(f"held-out scores ({args.games} a measure, seed {args.seed}):", " ".join(f"{s:.3f}" for s in scores),
          "targets met:", int((scores >= TARGETS).sum()), "of 4")
    return pd.DataFrame([dict(zip([c for c, _, _ in MEASURES], scores.tolist()))])


def refine(args: argparse.Namespace) -> pd.DataFrame:
    """Runs CMA-ES from a run's table on a held-in panel; returns one row per generation.

    The panel: the ``--fixed`` opponents and the other runs' best tables
    (``--against``), both players at eps 0.1, and random U(-1, 1) tables at
    eps 0 (the ``eu`` protocol's opponents, so expected utility is then
    in-distribution); new games and tables every generation. The score is the
    mean of the three groups' scores weighted by ``--weights``.
    """
    weights = np.array([float(w) for w in args.weights.split(",")])
    against = [f"wpc:1@{run / 'best_weights.csv'}" for run in args.against]
    groups = [args.fixed, against]
    strategy = search_from(resolve_weights(str(args.start / "best_weights.csv"), "best")[0], args)
    rows = []
    for generation in range(args.generations):
        games_seed = args.seed * 100_000 + generation
        population = strategy.generate(creator.ProbeIndividual)
        for individual in population:
            table = expand(individual, "sym8")
            panel = [np.mean([summary.score for summary in evaluate_player(
                table, specs, max(2, args.games // len(specs)), eps=0.1, seed=games_seed + 7_919 * k,
                workers=args.workers)]) for k, specs in enumerate(groups)]
            panel.append(evaluate_player(table, [], args.games // 2, seed=games_seed, workers=args.workers,
                                         protocol="eu")[0].score)
            individual.panel = np.array(panel)
            individual.fitness.values = (float(weights @ individual.panel / weights.sum()),)
        strategy.update(population)
        leader = max(population, key=lambda ind: ind.fitness.values[0])
        rows.append({"generation": generation, "score": leader.fitness.values[0],
                     **dict(zip(PANEL, leader.panel.tolist()))})
        print(f"{generation:4d} panel " + " ".join(f"{s:.3f}" for s in leader.panel), flush=True)
    genes = list(strategy.centroid)
    fresh = held_out_scores(expand(genes, "sym8"), args.check_games, args.check_seed, args.workers)
    print("final centroid (a1 b1 c1 d1 b2 c2 d2 c3 d3 d4):", " ".join(f"{g:.4f}" for g in genes))
    print(f"  held out ({args.check_games} a measure, seed {args.check_seed}):",
          " ".join(f"{s:.3f}" for s in fresh), "targets met:", int((fresh >= TARGETS).sum()), "of 4")
    return pd.DataFrame(rows)


def best_tables(run_dirs: Sequence[Path], top: int) -> tuple[np.ndarray, list[str]]:
    """Returns the ``top`` tables of each run's final tournament and the run each came from."""
    tables, runs = [], []
    for run_dir in run_dirs:
        final = pd.read_csv(run_dir / "final.csv").head(top)
        tables.append(final[weight_columns(64)].to_numpy(dtype=np.float64))
        runs += [run_dir.name] * len(final)
    return np.vstack(tables), runs


def proxies(args: argparse.Namespace) -> pd.DataFrame:
    """Scores the runs' top tables held in and held out; returns the scores (one row per table)."""
    tables, runs = best_tables(args.runs, args.top)
    opponents = list(dict.fromkeys(o.spec for run in args.runs for o in load_config(run / "config.toml").fitness.opponents))
    rows = []
    for table, run in zip(tables, runs):
        row: dict[str, object] = {"run": run}
        for spec in opponents:  # eps 0.1 for both, as in training
            row[spec] = evaluate_player(table, [spec], args.games, eps=0.1, seed=args.seed + 1,
                                        workers=args.workers)[0].score
        others = [f"wpc:1@{other / 'best_weights.csv'}" for other in args.runs if other.name != run]
        if others:
            row[OTHER_RUNS] = np.mean([summary.score for summary in evaluate_player(
                table, others, max(2, args.games // len(others)), eps=0.1, seed=args.seed + 2, workers=args.workers)])
        row.update(zip([c for c, _, _ in MEASURES], held_out_scores(table, args.games, args.seed, args.workers)))
        rows.append(row)
    frame = pd.DataFrame(rows)
    held_out = [c for c, _, _ in MEASURES]
    held_in = opponents + ([OTHER_RUNS] if OTHER_RUNS in frame else [])
    correlations = frame.drop(columns="run").corr().loc[held_in, held_out]
    print(f"{len(frame)} tables from {len(args.runs)} runs; correlation of held-in scores with held-out ones:")
    print(correlations.round(2).to_string())
    return frame


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("feasible", help="CMA-ES directly on the held-out measures")
    one.add_argument("--start", default="reference", help="starting table (built-in name or weights file)")
    one.add_argument("--generations", type=int, default=80)
    one.add_argument("--candidates", type=int, default=12, help="CMA-ES lambda")
    one.add_argument("--sigma", type=float, default=0.08)
    one.add_argument("--games", type=int, default=4000, help="games per measure and candidate")
    one.add_argument("--seed", type=int, default=99, help="seed of the optimisation's games and of CMA-ES")
    one.add_argument("--same-games", action="store_true", help="play the same games every generation")
    one.add_argument("--check-games", type=int, default=20_000)
    one.add_argument("--check-seed", type=int, default=3)
    two = commands.add_parser("proxies", help="held-in against held-out scores of runs' top tables")
    two.add_argument("runs", type=Path, nargs="+")
    two.add_argument("--top", type=int, default=10)
    two.add_argument("--games", type=int, default=4000)
    two.add_argument("--seed", type=int, default=5)
    three = commands.add_parser("check", help="the held-out scores of a sym8 table given by its 10 genes")
    three.add_argument("genes", help="a1,b1,c1,d1,b2,c2,d2,c3,d3,d4 (comma-separated)")
    three.add_argument("--games", type=int, default=20_000)
    three.add_argument("--seed", type=int, default=3)
    four = commands.add_parser("refine", help="CMA-ES from a run's table on a held-in panel")
    four.add_argument("start", type=Path, help="the run whose best table starts the search")
    four.add_argument("--against", type=Path, nargs="+", required=True, help="other runs: their best tables")
    four.add_argument("--fixed", nargs="+", default=["wpc:1@classic,eps=0.1"], help="fixed opponents")
    four.add_argument("--weights", default="1,1,2", help="of the fixed, other-runs and random-table scores")
    four.add_argument("--generations", type=int, default=60)
    four.add_argument("--candidates", type=int, default=12, help="CMA-ES lambda")
    four.add_argument("--sigma", type=float, default=0.05)
    four.add_argument("--games", type=int, default=4000, help="games per group and candidate")
    four.add_argument("--seed", type=int, default=1)
    four.add_argument("--check-games", type=int, default=20_000)
    four.add_argument("--check-seed", type=int, default=3)
    for command in (one, two, three, four):
        command.add_argument("--workers", type=int, default=2)
        command.add_argument("--csv", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    frame = {"feasible": feasible, "proxies": proxies, "check": check, "refine": refine}[args.command](args)
    if args.csv is not None:
        frame.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

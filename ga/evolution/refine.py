"""Refinement: CMA-ES from a run's best table on a held-in panel.

The GA's coevolution finds tables that beat each other; its best table is
then tuned by DEAP's CMA-ES (``cma.Strategy``) on a panel of three groups:

- ``opponents``: fixed player specs (e.g. ``wpc:1@classic``), both players at ``eps``;
- ``restarts``: the best tables of independent runs of the same experiment
  (other seeds), both players at ``eps``: opponents the run never met;
- random U(-1, 1) tables, both players at eps 0, each played in both colours.

A candidate's score is the weighted mean of its three group scores. Every
generation plays new games (new seeds, new random tables): on fixed games
the search learns those games. All candidates of a generation play the
same games (common random numbers). The search moves the genome's free
genes, starting from the best table scaled to a largest weight of 1; the
result is the final centroid, CMA-ES's estimate of the optimum, which no
selection on its own games ever touched (or, with ``average_last``, the
mean of the last generations' centroids).

Every generation is written to refine.csv and refine_state.json, so an
interrupted refinement continues where it stopped with the same result.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from deap import base, cma, creator

from engine import Player, build_player, parse_spec
from ga.config import Config, RefineConfig
from ga.evolution.genome import contract, expand
from ga.evolution.loop import Stage
from ga.evolution.strategies import Strategy
from ga.games import scoring
from ga.games.executor import Batch, opponent_spec, play_here
from ga.games.plan import GamePlan
from ga.games.seeds import GLOBAL_GENERATORS, Stream, derive_seed, game_seeds, random_tables
from ga.rundir.reader import read_refine_state
from ga.rundir.writer import RunWriter
from ga.weights import load_evaluation

GROUPS = ("opponents", "restarts", "random_tables")
CHUNK = 128  # games of one task against one opponent (even: colours alternate)

if not hasattr(creator, "RefineFitness"):
    creator.create("RefineFitness", base.Fitness, weights=(1.0,))
    creator.create("RefineCandidate", list, fitness=creator.RefineFitness)


def restart_seed(seed: int, restart: int) -> int:
    """Returns the seed of restart ``restart`` (1, 2, ...) of a run seeded ``seed``."""
    return derive_seed(seed, Stream.RESTART, restart) % 2**31  # short: it is shown in the restart's config.toml


@dataclass
class Panel:
    """The players a candidate meets: fixed opponents and the restarts' best tables, by search depth.

    Without depths (a 1-ply run) each has one player, under depth 0; with
    depths (a run whose player searches), searching opponents and the
    restarts' tables play at each depth.
    """

    opponents: list[dict[int, Player]]
    restarts: list[dict[int, Player]]
    depths: tuple[int, ...] = ()
    end: int = 0  # the run's player solves from this many empty squares (so do the restarts' and random tables)
    features: tuple[str, ...] = ()  # the features the run's tables weigh after the squares (the restarts' too)

    @classmethod
    def build(cls, refine: RefineConfig, restart_tables: Sequence[npt.ArrayLike],
              depths: Sequence[int] = (), end: int = 0, features: Sequence[str] = ()) -> Panel:
        levels = tuple(depths) or (0,)
        opponents = []
        for spec in refine.opponents:
            parsed = opponent_spec(spec, refine.eps)
            opponents.append({d: build_player(dataclasses.replace(parsed, depth=d) if d and parsed.kind == "alphabeta"
                                              else parsed, load_weights=load_evaluation) for d in levels})
        restarts = [{d: _table_player(table, d, refine.eps, end, tuple(features)) for d in levels}
                    for table in restart_tables]
        return cls(opponents, restarts, tuple(depths), end, tuple(features))


def _table_player(table: npt.ArrayLike, depth: int, eps: float, end: int = 0, features: Sequence[str] = ()) -> Player:
    """Returns the player of a table (with ``features``, an evaluation): 1-ply without a depth, else searching."""
    weights = np.asarray(table, dtype=np.float64)
    if depth:
        return Player("alphabeta", depth, weights, eps, end=end, features=features)
    return Player("nhand_custom", 1, weights, eps, end=end, features=features)


def refine_depths(config: Config) -> tuple[int, ...]:
    """Returns the depths the refinement plays at when the run's player searches: refine.depths, else the run's.

    None (1 ply) when it does not search.
    """
    spec = parse_spec(config.fitness.player)
    if spec.kind != "alphabeta":
        return ()
    return tuple(config.refine.depths) or tuple(config.fitness.depths) or (spec.depth,)


def _games_each(games: int, players: int) -> int:
    return max(2, games // players) if players else 0


Task = tuple[str, int, Player, Any, int]  # group, index, opponent player, seeds, depth (0: 1 ply)


def generation_tasks(refine: RefineConfig, panel: Panel, seed: int, generation: int) -> list[Task]:
    """Returns one generation's games for any candidate: (group, index, opponent player, seeds, depth).

    The same for every candidate of the generation; new each generation.
    With depths, the games against each panel member are dealt to the depths
    in turn (game i at ``depths[i % n]``), and random table j is played at
    ``depths[j % n]``.
    """
    games_seed = derive_seed(seed, Stream.REFINE, generation)
    levels = panel.depths or (0,)
    tasks: list[Task] = []
    for group, players in (("opponents", panel.opponents), ("restarts", panel.restarts)):
        weight = refine.weight_opponents if group == "opponents" else refine.weight_restarts
        if not weight:
            continue
        count = _games_each(refine.games, len(players))
        for index, by_depth in enumerate(players):
            seeds = game_seeds(derive_seed(games_seed, GROUPS.index(group)), index, count)
            for k, depth in enumerate(levels):
                dealt = seeds[k::len(levels)]
                # In even slices, so that colours alternate within each and threads share the work.
                tasks.extend((group, index, by_depth[depth], dealt[at:at + CHUNK], depth)
                             for at in range(0, len(dealt), CHUNK))
    if refine.weight_random_tables:
        count = max(1, refine.games // 2)
        key = derive_seed(games_seed, GROUPS.index("random_tables"))
        tables = random_tables(key % 2**63, count)
        seeds = game_seeds(key, 0, 2 * count)
        for index, table in enumerate(tables):
            depth = levels[index % len(levels)]
            tasks.append(("random_tables", index, _table_player(table, depth, 0.0, panel.end),
                          seeds[2 * index:2 * index + 2], depth))
    return tasks


def panel_scores(
    refine: RefineConfig, tables: Sequence[npt.ArrayLike], tasks: Sequence[Task], workers: int, end: int = 0,
    features: Sequence[str] = (),
) -> npt.NDArray[np.float64]:
    """Returns each table's score against each group of the panel (rows: tables; NaN: group not played).

    The games go to the executor in two batches: the candidates at the panel's
    ``eps`` against the fixed opponents and the restarts, and at eps 0 against
    the random tables (as in expected utility). The candidates solve from
    ``end`` empty squares, as the run's player does.
    """
    candidates = np.array([np.asarray(t, dtype=np.float64) for t in tables])
    scores = np.full((len(candidates), len(GROUPS)), np.nan)
    for greedy in (False, True):
        chosen = [t for t in tasks if (t[0] == "random_tables") == greedy]
        if not chosen or not len(candidates):
            continue
        lengths = np.array([len(t[3]) for t in chosen])
        per_candidate = int(lengths.sum())
        searching = chosen[0][4] > 0
        plan = GamePlan(
            individual=np.repeat(np.arange(len(candidates), dtype=np.int32), per_candidate),
            opponent=np.tile(np.repeat(np.arange(len(chosen), dtype=np.int32), lengths), len(candidates)),
            member=np.full(per_candidate * len(candidates), -1, dtype=np.int32),
            seeds=np.tile(np.concatenate([np.asarray(t[3], dtype=np.uint64) for t in chosen]), len(candidates)),
            colours=np.tile(np.concatenate([(np.arange(n) % 2).astype(np.uint8) for n in lengths]), len(candidates)),
            depth=np.tile(np.repeat([t[4] for t in chosen], lengths).astype(np.int32), len(candidates))
            if searching else None,
        )
        eps = 0.0 if greedy else refine.eps
        player = ("alphabeta" if searching else "nhand_custom", 1, eps, 40, end, tuple(features))
        batch = Batch(player, candidates, [t[0] for t in chosen], plan, opponents=[t[2] for t in chosen])
        diffs = play_here(batch, workers).reshape(len(candidates), per_candidate)
        group_of = np.repeat([GROUPS.index(t[0]) for t in chosen], lengths)
        for group in np.unique(group_of):
            for row in range(len(candidates)):
                scores[row, group] = scoring.score(diffs[row][group_of == group], "win_rate")
    return scores


def combined(refine: RefineConfig, scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Returns the weighted mean of the group scores (rows of ``scores``)."""
    weights = np.array([refine.weight_opponents, refine.weight_restarts, refine.weight_random_tables])
    return np.nansum(scores * weights, axis=1) / weights.sum()


# --- state -------------------------------------------------------------------------


ARRAY = "__ndarray__"  # marks a numpy array in the saved strategy (which also holds a dict: its params)


def _encode(strategy: cma.Strategy) -> dict[str, Any]:
    state = {}
    for key, value in vars(strategy).items():
        if isinstance(value, np.ndarray):
            state[key] = {ARRAY: value.tolist()}
        elif isinstance(value, np.generic):
            state[key] = value.item()
        else:
            state[key] = value
    return state


def _decode(state: dict[str, Any]) -> cma.Strategy:
    strategy = Strategy.__new__(Strategy)
    for key, value in state.items():
        is_array = isinstance(value, dict) and list(value) == [ARRAY]
        setattr(strategy, key, np.array(value[ARRAY]) if is_array else value)
    return strategy


def read_state(run_dir: Path, start: npt.NDArray[np.float64]) -> tuple[int, cma.Strategy, list[dict[str, Any]]] | None:
    """Returns (next generation, strategy, rows) saved in ``run_dir``, or None (none, or from another start)."""
    state = read_refine_state(run_dir)
    if state is None:
        return None
    if state["start"] != start.tolist():
        return None  # the GA's best table changed (the run was extended): start again
    return state["generation"] + 1, _decode(state["strategy"]), state["rows"]


def write_state(writer: RunWriter, start: npt.NDArray[np.float64], generation: int, strategy: cma.Strategy,
                rows: list[dict[str, Any]]) -> None:
    """Writes refine.csv and then refine_state.json (which the next generation continues from)."""
    state = {"generation": generation, "start": start.tolist(), "strategy": _encode(strategy), "rows": rows}
    writer.write_refine_state(rows, state)


# --- the search --------------------------------------------------------------------


def refine(
    config: Config, run_dir: Path, start_table: npt.ArrayLike, restart_tables: Sequence[npt.ArrayLike], workers: int,
    should_stop: Callable[[], bool] = lambda: False, progress: Callable[[Any], Any] | None = None,
) -> tuple[npt.NDArray[np.float64], list[dict[str, Any]]] | None:
    """Runs (or continues) the refinement; returns the refined table and refine.csv's rows, or None if stopped first.

    ``progress(stage)`` makes a bar (see :data:`ga.evolution.loop.ProgressFactory`).
    """
    refine_config, genome, seed = config.refine, config.population.genome, config.experiment.seed
    features = tuple(config.population.features)
    genes = contract(np.asarray(start_table, dtype=np.float64), genome, len(features))
    start = genes / np.abs(genes).max()
    panel = Panel.build(refine_config, restart_tables, refine_depths(config), parse_spec(config.fitness.player).end,
                        features)
    saved = read_state(run_dir, start)
    writer = RunWriter(run_dir)
    if saved is None:
        first, rows = 0, []
        strategy = Strategy(centroid=start.tolist(), sigma=refine_config.sigma, lambda_=refine_config.candidates)
    else:
        first, strategy, rows = saved
    bar = progress(Stage("refinement", first, refine_config.generations)) if progress else None
    try:
        for generation in range(first, refine_config.generations):
            started = time.perf_counter()
            # DEAP's CMA-ES samples from numpy's global generator: seeded per generation, so a resumed search matches.
            with GLOBAL_GENERATORS:
                np.random.seed(derive_seed(seed, Stream.REFINE, generation, 1) % 2**32)
                candidates = strategy.generate(creator.RefineCandidate)
            tasks = generation_tasks(refine_config, panel, seed, generation)
            scores = panel_scores(refine_config, [expand(c, genome, len(features)) for c in candidates], tasks, workers,
                                  panel.end, features)
            values = combined(refine_config, scores)
            for candidate, value in zip(candidates, values):
                candidate.fitness.values = (float(value),)
            strategy.update(candidates)
            leader = int(np.argmax(values))
            row = {"generation": generation, "games": int(sum(len(t[3]) for t in tasks)) * len(candidates),
                   "score_mean": float(values.mean()), "score_best": float(values[leader]),
                   **{f"best_{group}": float(scores[leader, g]) for g, group in enumerate(GROUPS)},
                   "sigma": float(strategy.sigma), "generation_s": round(time.perf_counter() - started, 3),
                   **{f"centroid_{i}": float(g) for i, g in enumerate(strategy.centroid)}}
            rows.append(row)
            write_state(writer, start, generation, strategy, rows)
            if bar is not None:
                bar.update({"games": row["games"], "panel_mean": row["score_mean"], "panel_best": row["score_best"]})
            if should_stop() and generation + 1 < refine_config.generations:
                return None
    finally:
        if bar is not None:
            bar.close()
    return expand(result_genes(rows, len(start), refine_config.average_last), genome, len(features)), rows


def result_genes(rows: Sequence[dict[str, Any]], size: int, average_last: int) -> list[float]:
    """Returns the refinement's result: the mean of the ``size`` centroid genes of the last ``average_last``
    generations' rows (1: the final centroid, exactly: a mean of one adds nothing).

    Each generation's games are new, so the centroid ends where the last
    generations' noise left it; the mean of the late centroids (tail
    averaging) lands nearer the optimum they circle.
    """
    last = rows[-average_last:]
    genes = np.array([[row[f"centroid_{i}"] for i in range(size)] for row in last])
    return genes.mean(axis=0).tolist()

"""The stages of a run, planned from its config, and what a game of each kind of stage costs.

A run plays its generations, then its final tournament; a refined run then
plays each restart (generations and a tournament of their own) and the
refinement. Their games are known in advance from the config; what they cost
is not: a refinement's 1-ply games run many times faster than generations
that search. :func:`sample_costs` times a small sample of each kind's own
games (its players, opponents, depths and mix of opponents) on one thread,
so that a progress report can estimate a stage before it starts, from the
stages it has seen. Used only for progress reports: the sample plays its
own seeds and tables, and no game or result of the run depends on it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from engine import parse_spec
from ga.config import Config, RefineConfig
from ga.evolution import fitness, refine, tournament
from ga.evolution.genome import table_length
from ga.games import executor
from ga.games.plan import GamePlan

__all__ = ["GENERATIONS", "REFINEMENT", "SAMPLE_GAMES", "TOURNAMENT", "StagePlan", "refine_generation_games",
           "sample_costs", "stages_of_run", "tournament_games", "unplanned"]

#: The kinds of stage: stages of one kind play games of one cost.
GENERATIONS, TOURNAMENT, REFINEMENT = "generations", "tournament", "refinement"
#: Games timed for each kind of stage (about a hundredth of a second of 1-ply games, a few tenths of deep searches).
SAMPLE_GAMES = 128


@dataclass(frozen=True)
class StagePlan:
    """A stage still to play: its label in progress reports, its kind and its games (at most: see planned_games)."""

    label: str  # "GA", "final tournament", "restart 3/7", "restart 3/7, final tournament", "refinement"
    kind: str  # GENERATIONS, TOURNAMENT or REFINEMENT
    games: int


def unplanned(label: str) -> StagePlan:
    """Returns a stage that was not planned, of the kind its label names, with no games foreseen."""
    kind = TOURNAMENT if label.endswith("tournament") else REFINEMENT if label == "refinement" else GENERATIONS
    return StagePlan(label, kind, 0)


def tournament_games(config: Config) -> int:
    """Returns the games of the final tournament, all planned at once (at most: equal candidates play once)."""
    final = config.final.games
    candidates = _tournament_candidates(config)
    fixed = len({opponent.spec for opponent in config.fitness.opponents})
    return final * (candidates * (candidates - 1) // 2 + candidates * fixed) if final else 0


def _tournament_candidates(config: Config) -> int:
    """Returns the most candidates a final tournament has: the population, its mean and the champion archive
    (one champion a generation, the last ``hall_of_fame_size`` of them)."""
    return config.population.size + 1 + min(config.fitness.hall_of_fame_size, config.experiment.generations)


def refine_generation_games(refined: RefineConfig) -> int:
    """Returns the games of one refinement generation: each candidate plays ``games`` in each weighted group."""
    groups = sum(1 for weight in (refined.weight_opponents, refined.weight_restarts, refined.weight_random_tables)
                 if weight)
    return refined.candidates * refined.games * groups


def stages_of_run(config: Config, label: str, generations_left: int) -> list[StagePlan]:
    """Returns the stages of one run of ``config`` (the GA's, or a restart's) with ``generations_left`` to play:
    its generations, then its final tournament (played again by a run resumed at its end)."""
    stages = []
    if generations_left:
        stages.append(StagePlan(label, GENERATIONS, generations_left * fitness.games_per_generation(config)))
    if config.final.games:
        name = "final tournament" if label == "GA" else f"{label}, final tournament"
        stages.append(StagePlan(name, TOURNAMENT, tournament_games(config)))
    return stages


# --- what a game costs --------------------------------------------------------------------------


def sample_costs(config: Config, games: int = SAMPLE_GAMES) -> dict[str, float]:
    """Returns the measured seconds a game takes on one thread in each kind of stage the config has.

    Each kind plays a random sample of ``games`` of its own games, with
    U(-1, 1) tables in place of the evolved ones.
    """
    rng = np.random.default_rng(0)
    costs = {GENERATIONS: _generation_cost(config, games, rng)}
    if config.final.games:
        costs[TOURNAMENT] = _tournament_cost(config, games, rng)
    if config.refine.generations:
        costs[REFINEMENT] = _refinement_cost(config, games, rng)
    return costs


def _tables(config: Config, rows: int, rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=(rows, table_length(config.population.genome)))


def _timed_games(batch: executor.Batch) -> float:
    """Returns the seconds a batch's games take in this thread, per game."""
    started = time.perf_counter()
    executor.play(batch)
    return (time.perf_counter() - started) / max(1, len(batch.plan))


def _sample(plan: GamePlan, games: int, rng: np.random.Generator) -> GamePlan:
    """Returns a random sample of a plan's games, in their order (a stride could fall in step with its pattern)."""
    if len(plan) <= games:
        return plan
    return plan.subset(np.sort(rng.choice(len(plan), games, replace=False)))


def _generation_cost(config: Config, games: int, rng: np.random.Generator) -> float:
    """A generation of a run with a full hall of fame: its fixed opponents, its members and its random tables."""
    size = config.population.size
    champions = config.fitness.hall_of_fame_size if config.fitness.hall_of_fame_games else 0
    plan = _sample(fitness.plan_generation(config, 1, size, champions), games, rng)
    rows = size + fitness.champion_rows(config, champions) + config.fitness.random_table_games
    return _timed_games(executor.Batch(fitness.player_args(config), _tables(config, rows, rng),
                                       fitness.opponent_labels(config), plan))


def _tournament_cost(config: Config, games: int, rng: np.random.Generator) -> float:
    """The tournament's games against its fixed opponents and between its candidates, mixed as in the real one."""
    count = 6  # candidates enough for both kinds of game; the real mix is weighed in below
    labels = tournament.tournament_labels(config)
    plan = tournament.plan_tournament(config, count)
    batch = executor.Batch(fitness.player_args(config), _tables(config, count, rng), labels, plan)
    fixed = len({opponent.spec for opponent in config.fitness.opponents})
    candidates = _tournament_candidates(config)
    # The real tournament's games against the fixed opponents (member -1) and between candidates.
    shares = ((plan.member < 0, candidates * fixed), (plan.member >= 0, candidates * (candidates - 1) // 2))
    cost = weight = 0.0
    for chosen, share in shares:
        if share and chosen.any():
            sample = _sample(plan.subset(chosen), games // 2, rng)
            cost += share * _timed_games(executor.Batch(batch.player, batch.tables, labels, sample))
            weight += share
    return cost / weight if weight else 0.0


def _refinement_cost(config: Config, games: int, rng: np.random.Generator) -> float:
    """A refinement generation's games for one candidate: the panel's opponents, restarts and random tables."""
    refined = config.refine
    end = parse_spec(config.fitness.player).end
    stand_ins = _tables(config, refined.restarts, rng)  # the restarts' tables, made only by the run
    panel = refine.Panel.build(refined, stand_ins, refine.refine_depths(config), end)
    tasks = refine.generation_tasks(refined, panel, config.experiment.seed, 0)
    # A random sample of (task, game) pairs keeps the groups' mix of games.
    pairs = [(t, k) for t, task in enumerate(tasks) for k in range(len(task[3]))]
    chosen = sorted(rng.choice(len(pairs), min(games, len(pairs)), replace=False))
    kept: dict[int, list[int]] = {}
    for index in chosen:
        task, game = pairs[index]
        kept.setdefault(task, []).append(game)
    sample = [(*tasks[t][:3], np.asarray(tasks[t][3])[games_kept], tasks[t][4]) for t, games_kept in kept.items()]
    candidate = _tables(config, 1, rng)
    started = time.perf_counter()
    refine.panel_scores(refined, candidate, sample, 1, end)
    return (time.perf_counter() - started) / max(1, len(chosen))

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

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import parse_spec
from ga.config import Config, RefineConfig
from ga.evolution import fitness, refine, tournament
from ga.evolution.genome import GenomeLayout
from ga.evolution.toolbox import initial_genes
from ga.games import executor
from ga.games.plan import GamePlan

__all__ = ["GENERATIONS", "REFINEMENT", "SAMPLE_GAMES", "SAMPLE_MOST", "SAMPLE_SECONDS", "TOURNAMENT", "StagePlan",
           "per_game", "refine_generation_games", "sample_costs", "stages_of_run", "tournament_games", "unplanned"]

#: The kinds of stage: stages of one kind play games of one cost.
GENERATIONS, TOURNAMENT, REFINEMENT = "generations", "tournament", "refinement"
#: A kind of stage's sample of games starts at SAMPLE_GAMES and grows until it plays SAMPLE_SECONDS, or holds
#: SAMPLE_MOST games (see :func:`per_game`): a few hundredths of a second a kind.
SAMPLE_GAMES, SAMPLE_SECONDS, SAMPLE_MOST = 64, 0.02, 4096


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


def sample_costs(config: Config) -> dict[str, float]:
    """Returns the measured seconds a game takes on one thread in each kind of stage the config has.

    Each kind plays random samples of its own games, with U(-1, 1) tables in
    place of the evolved ones (see :func:`per_game`).
    """
    rng = np.random.default_rng(0)
    costs = {GENERATIONS: per_game(_generation_games(config, rng))}
    if config.final.games:
        costs[TOURNAMENT] = _tournament_cost(config, rng)
    if config.refine.generations:
        costs[REFINEMENT] = per_game(_refinement_games(config, rng))
    return costs


def per_game(play: Callable[[int], tuple[float, int]]) -> float:
    """Returns the seconds a game takes, from ``play(n)``: the seconds a sample of n games took, and the games it
    held (fewer when there are no more).

    The sample grows fourfold from SAMPLE_GAMES games until it plays for
    SAMPLE_SECONDS (or holds SAMPLE_MOST games, or all there are), so that
    1-ply games are not timed by the fixed cost of a call; each size is played
    twice and the faster taken, as the first play pays for what is cold.
    """
    games = SAMPLE_GAMES
    while True:
        (seconds, played), (again, _) = play(games), play(games)
        seconds = min(seconds, again)
        if seconds >= SAMPLE_SECONDS or games >= SAMPLE_MOST or played < games:
            return seconds / max(1, played)
        games *= 4


def _tables(config: Config, rows: int, rng: np.random.Generator) -> np.ndarray:
    layout = GenomeLayout.of(config)  # squares and features, and a network's weights
    if layout.network:
        return layout.expand_many(initial_genes(config, layout, rows, rng))
    return rng.uniform(-1.0, 1.0, size=(rows, layout.width))


def _timed(batch: executor.Batch) -> tuple[float, int]:
    """Returns the seconds a batch's games take in this thread, and how many it holds."""
    started = time.perf_counter()
    executor.play(batch)
    return time.perf_counter() - started, len(batch.plan)


def _sample(plan: GamePlan, games: int, rng: np.random.Generator) -> GamePlan:
    """Returns a random sample of a plan's games, in their order (a stride could fall in step with its pattern)."""
    if len(plan) <= games:
        return plan
    return plan.subset(np.sort(rng.choice(len(plan), games, replace=False)))


def _generation_games(config: Config, rng: np.random.Generator) -> Callable[[int], tuple[float, int]]:
    """A generation of a run with a full hall of fame: its fixed opponents, its members and its random tables."""
    size = config.population.size
    champions = config.fitness.hall_of_fame_size if config.fitness.hall_of_fame_games else 0
    plan = fitness.plan_generation(config, 1, size, champions)
    rows = size + fitness.champion_rows(config, champions) + config.fitness.random_table_games
    batch = executor.Batch(fitness.player_args(config), _tables(config, rows, rng), fitness.opponent_labels(config),
                           plan, layout=fitness.network_layout(config))
    return lambda games: _timed(dataclasses.replace(batch, plan=_sample(plan, games, rng)))


def _tournament_cost(config: Config, rng: np.random.Generator) -> float:
    """The tournament's games against its fixed opponents and between its candidates, mixed as in the real one."""
    count = 6  # candidates enough for both kinds of game; the real mix is weighed in below
    labels = tournament.tournament_labels(config)
    plan = tournament.plan_tournament(config, count)
    batch = executor.Batch(fitness.player_args(config), _tables(config, count, rng), labels, plan,
                           layout=fitness.network_layout(config))
    fixed = len({opponent.spec for opponent in config.fitness.opponents})
    candidates = _tournament_candidates(config)
    # The real tournament's games against the fixed opponents (member -1) and between candidates.
    shares = ((plan.member < 0, candidates * fixed), (plan.member >= 0, candidates * (candidates - 1) // 2))
    cost = weight = 0.0
    for chosen, share in shares:
        if share and chosen.any():
            games = plan.subset(chosen)
            cost += share * per_game(lambda n: _timed(dataclasses.replace(batch, plan=_sample(games, n, rng))))
            weight += share
    return cost / weight if weight else 0.0


def _refinement_games(config: Config, rng: np.random.Generator) -> Callable[[int], tuple[float, int]]:
    """A refinement generation's games for one candidate: the panel's opponents, restarts and random tables."""
    refined = config.refine
    end = parse_spec(config.fitness.player).end
    stand_ins = _tables(config, refined.restarts, rng)  # the restarts' tables, made only by the run
    panel = refine.Panel.build(refined, stand_ins, refine.refine_depths(config), end)
    tasks = refine.generation_tasks(refined, panel, config.experiment.seed, 0)
    pairs = [(t, k) for t, task in enumerate(tasks) for k in range(len(task[3]))]
    candidate = _tables(config, 1, rng)

    def play(games: int) -> tuple[float, int]:
        # A random sample of (task, game) pairs keeps the groups' mix of games.
        count = min(games, len(pairs))
        kept: dict[int, list[int]] = {}
        for index in sorted(rng.choice(len(pairs), count, replace=False)):
            task, game = pairs[index]
            kept.setdefault(task, []).append(game)
        sample = [(*tasks[t][:3], np.asarray(tasks[t][3])[chosen], tasks[t][4]) for t, chosen in kept.items()]
        started = time.perf_counter()
        refine.panel_scores(refined, candidate, sample, 1, end)
        return time.perf_counter() - started, count

    return play

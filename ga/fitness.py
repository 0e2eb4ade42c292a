"""Fitness by games: who each individual plays, with which seeds, and the score.

A generation's games are planned as flat arrays (one entry per game) and
played by the engine in one call per worker: no Python runs per game or per
move. Every game's seed is a hash of (run seed,
generation, individual, opponent, game), so results never depend on the number
of workers or on scheduling.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import Player, build_player, parse_spec
from engine._players import SharedPlan, play_plan

from ga.config import Config

# Streams of the run seed, one per use, so that no two uses share numbers.
INIT, VARIATION, DRAWS, GAMES, COEVOLUTION = 1, 2, 3, 4, 5
RANDOM_TABLES = 7  # (6 is the final tournament's: ga.tournament.FINAL)

POPULATION = "population"  # label of games against other members (coevolution)
HALL_OF_FAME = "hall_of_fame"  # label of games against earlier champions
RANDOM_TABLE = "random_tables"  # label of games against a generation's random tables
SHARE_CHUNK = 64  # games the calling thread plays between two looks at its signals

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: np.ndarray) -> np.ndarray:
    # splitmix64's finaliser (Steele, Lea & Flood 2014), on uint64 arrays.
    z = z + np.uint64(_GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def derive_seeds(*keys: int | np.ndarray) -> np.ndarray:
    """Returns 64-bit seeds hashed from integer keys (arrays broadcast)."""
    state = np.zeros(1, dtype=np.uint64)  # arrays, not scalars: numpy warns on scalar wrap-around
    for key in keys:
        state = _mix(state ^ np.asarray(key).astype(np.uint64))
    return state


def derive_seed(*keys: int) -> int:
    """Returns a 64-bit seed that is a hash of the integer ``keys`` (what :func:`derive_seeds` gives)."""
    # Python integers: a tenth of the time of numpy on one-element arrays,
    # and it runs a few times every generation.
    state = 0
    for key in keys:
        z = (state ^ (key & _MASK)) + _GOLDEN & _MASK
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
        state = z ^ (z >> 31)
    return state


def colour_pattern(colours: str, count: int) -> np.ndarray:
    """Returns 0 (individual plays black) / 1 (white) per game."""
    if colours == "black":
        return np.zeros(count, dtype=np.uint8)
    if colours == "white":
        return np.ones(count, dtype=np.uint8)
    return (np.arange(count) % 2).astype(np.uint8)


def opponent_labels(config: Config) -> list[str]:
    """Returns the labels of a run's opponents: the specs, then population and hall_of_fame."""
    labels = [opponent.spec for opponent in config.fitness.opponents]
    if config.fitness.coevolution:
        labels.append(POPULATION)
    if config.fitness.hall_of_fame_games:
        labels.append(HALL_OF_FAME)
    if config.fitness.random_table_games:
        labels.append(RANDOM_TABLE)
    return list(dict.fromkeys(labels))


@dataclass
class GamePlan:
    """A generation's games, one entry per game, grouped by individual."""

    individual: np.ndarray  # int32: the player's row in the tables
    opponent: np.ndarray  # int32: index into opponent_labels
    member: np.ndarray  # int32: for population / hall_of_fame games, the opponent's row in the tables
    seeds: np.ndarray  # uint64
    colours: np.ndarray  # uint8: 0 = the individual plays black

    def __len__(self) -> int:
        return int(self.seeds.size)

    def subset(self, games: np.ndarray) -> GamePlan:
        """Returns the plan of the selected games (a boolean mask or indices)."""
        return GamePlan(self.individual[games], self.opponent[games], self.member[games],
                        self.seeds[games], self.colours[games])

    @staticmethod
    def concatenate(plans: Sequence[GamePlan]) -> GamePlan:
        """Returns the plans one after the other."""
        return GamePlan(*(np.concatenate([getattr(p, f) for p in plans]) for f in
                          ("individual", "opponent", "member", "seeds", "colours")))


def plan_generation(config: Config, generation: int, size: int, champions: int = 0) -> GamePlan:
    """Returns every game of a generation of ``size`` individuals.

    Rows ``size ..`` of the tables are the ``champions`` (hall of fame of
    earlier generations' best), played in hall_of_fame games.
    """
    fit = config.fitness
    seed = config.experiment.seed
    specs = [opponent.spec for opponent in fit.opponents]
    labels = opponent_labels(config)
    label_index = np.array([labels.index(spec) for spec in specs], dtype=np.int32)
    probabilities = np.array([opponent.weight for opponent in fit.opponents], dtype=np.float64)
    probabilities /= probabilities.sum()
    draw_rng = np.random.default_rng(derive_seed(seed, DRAWS, generation))
    if fit.draw == "all":
        drawn = np.tile(np.arange(len(specs)), (size, 1))
    elif fit.common_random_numbers:
        drawn = np.full((size, 1), draw_rng.choice(len(specs), p=probabilities))
    else:
        drawn = draw_rng.choice(len(specs), size=(size, 1), p=probabilities)
    per_opponent = fit.games_per_opponent
    who = np.zeros((size, 1), dtype=np.int64) if fit.common_random_numbers else np.arange(1, size + 1)[:, None]
    bases = derive_seeds(seed, GAMES, generation, who, drawn)  # one per (individual, opponent)
    game = np.arange(1, per_opponent + 1, dtype=np.uint64)
    parts = [GamePlan(
        individual=np.repeat(np.arange(size, dtype=np.int32), drawn.shape[1] * per_opponent),
        opponent=np.repeat(label_index[drawn].ravel(), per_opponent),
        member=np.full(drawn.size * per_opponent, -1, dtype=np.int32),
        seeds=_mix(bases.reshape(-1, 1) + game * np.uint64(_GOLDEN)).ravel(),
        colours=np.tile(colour_pattern(fit.colours, per_opponent), drawn.size),
    )]
    # Made only when needed: a generator costs more than the rest of a small plan.
    rng = np.random.default_rng(derive_seed(seed, COEVOLUTION, generation)) if (
        fit.coevolution and size > 1) or (fit.hall_of_fame_games and champions) else None
    if fit.coevolution and size > 1:
        others = rng.choice(size - 1, size=(size, fit.coevolution))
        others += others >= np.arange(size)[:, None]  # never the individual itself
        parts.append(_member_games(seed, generation, labels.index(POPULATION), others))
    if fit.hall_of_fame_games and champions:
        picks = size + rng.choice(champions, size=(size, fit.hall_of_fame_games))
        parts.append(_member_games(seed, generation, labels.index(HALL_OF_FAME), picks))
    if fit.random_table_games:
        # Every individual meets the same tables (rows after the champions), table k in colour k % 2.
        picks = size + champions + np.tile(np.arange(fit.random_table_games), (size, 1))
        parts.append(_member_games(seed, generation, labels.index(RANDOM_TABLE), picks))
    plan = GamePlan.concatenate(parts)
    order = np.argsort(plan.individual, kind="stable")  # group each individual's games
    return plan.subset(order)


def generation_random_tables(config: Config, generation: int) -> np.ndarray:
    """Returns a generation's random opponent tables (rows of 64 weights from U(-1, 1); none without them)."""
    count = config.fitness.random_table_games
    rng = np.random.default_rng(derive_seed(config.experiment.seed, RANDOM_TABLES, generation))
    tables = rng.uniform(-1.0, 1.0, size=(count, 64))
    if config.population.genome == "phase":
        tables = np.hstack([tables, tables])  # one table for the whole game
    return tables


def _member_games(seed: int, generation: int, label: int, members: np.ndarray) -> GamePlan:
    size, count = members.shape
    k = np.arange(count)
    seeds = _mix(derive_seeds(seed, GAMES, generation, np.arange(1, size + 1)[:, None], label, k[None, :]))
    return GamePlan(
        individual=np.repeat(np.arange(size, dtype=np.int32), count),
        opponent=np.full(size * count, label, dtype=np.int32),
        member=members.astype(np.int32).ravel(),
        seeds=seeds.ravel(),
        colours=np.tile((k % 2).astype(np.uint8), size),
    )


class WorkersLost(Exception):
    """The workers playing a generation failed (a thread here, or a Dask cluster); the last checkpoint is intact."""


@dataclass
class Batch:
    """One worker's share of a generation (plain, picklable data)."""

    player: tuple[str, int, float, int]  # kind, depth, eps, phase_move
    tables: np.ndarray  # weights of the population, then of the champions
    labels: list[str]
    plan: GamePlan


def player_args(config: Config) -> tuple[str, int, float, int]:
    """Returns (kind, depth, eps, phase_move) of the evolved player."""
    spec = parse_spec(config.fitness.player)
    return (spec.kind, spec.depth, config.fitness.eps, config.population.phase_move)


# --- in the worker -----------------------------------------------------------

_OPPONENTS: dict[str, Player] = {}


def _opponent(label: str) -> Player | None:
    # Opponents are built once per process: a weights file is read only once.
    if label in (POPULATION, HALL_OF_FAME, RANDOM_TABLE):
        return None
    if label not in _OPPONENTS:
        from ga.weights import load_weights

        _OPPONENTS[label] = build_player(label, load_weights=load_weights)
    return _OPPONENTS[label]


def check_opponents(labels: Sequence[str]) -> None:
    """Builds every opponent once (reading weights files), raising their errors now rather than mid-run."""
    for label in labels:
        _opponent(label)


def shared_plan(batch: Batch) -> SharedPlan:
    """Returns the engine's plan of a batch's games, ready for any number of threads to play."""
    kind, depth, eps, phase_move = batch.player
    plan = batch.plan
    return SharedPlan(kind, depth, eps, phase_move, batch.tables, [_opponent(label) for label in batch.labels],
                      plan.individual, plan.opponent, plan.member, plan.seeds, plan.colours)


def evaluate(batch: Batch) -> np.ndarray:
    """Plays a batch's games and returns the individual's disc difference in each."""
    games = shared_plan(batch)
    games.play()
    return games.result


def play_share(games: SharedPlan) -> int:
    """Plays games of a shared plan until none is left (one worker thread's share)."""
    return games.play()


def play_batch(batch: Batch, map_function: Callable[..., Iterable[Any]], parts: int, *,
               shared: bool = False, costs: np.ndarray | None = None,
               evaluate_function: Callable[[Batch], np.ndarray] = evaluate,
               while_playing: Callable[[], None] | None = None) -> np.ndarray:
    """Plays a batch's games through ``map_function`` and returns the disc differences in plan order.

    With ``shared`` (``map_function`` runs threads of this process) ``parts``
    threads play one :class:`~engine._players.SharedPlan`, each taking the
    next unplayed game, so no thread waits while games are left: ``parts - 1``
    of the pool's, and this one once ``while_playing`` has returned. Otherwise
    (tasks for other processes) the plan goes out in up to ``parts`` batches
    of similar cost (see :func:`split`). The results are the same either way.
    ``while_playing`` is called once, after the games are handed out and
    before they are awaited: the workers play while this thread works.
    """
    if len(batch.plan) == 0:
        if while_playing is not None:
            while_playing()
        return np.zeros(0, dtype=np.int32)
    if shared:
        games = shared_plan(batch)
        results = map_function(play_share, [games] * (parts - 1))  # an executor's map submits at once
    else:
        pieces = [Batch(batch.player, batch.tables, batch.labels, part) for part in split(batch.plan, parts, costs)]
        results = map_function(evaluate_function, pieces)
    if while_playing is not None:
        while_playing()
    if shared:
        # A few games at a time: between calls Python runs its signal handlers
        # (a second Ctrl-C must not wait for the rest of a long generation).
        while games.play(SHARE_CHUNK):
            pass
    try:
        played = list(results)
    except Exception as error:
        if not shared:
            raise  # a cluster's map says itself what was lost (ga.cluster.ClusterLost)
        detail = " ".join(f"{type(error).__name__}: {error}".split())
        raise WorkersLost(f"a worker thread failed during a generation ({detail})") from error
    return games.result if shared else np.concatenate(played)


def split(plan: GamePlan, parts: int, costs: np.ndarray | None = None) -> list[GamePlan]:
    """Splits a plan into at most ``parts`` consecutive runs of games with similar total cost.

    ``costs`` holds the cost of a game against each opponent label (default:
    all equal, so runs get similar game counts). Only the cut points depend
    on it: the games and their results do not (each game has its own seed and
    the results are joined in plan order). A cut may fall inside an
    individual's games, so runs differ by at most about one game's cost (cuts
    only between individuals left population-64 Dask tasks up to 10 ms of
    estimated cost apart, one nmost:1 individual's 64 games being 5 ms); the
    runs are capped at the number of individuals in the plan (each is a Dask
    task with a scheduling cost).
    """
    if len(plan) == 0:
        return [plan]
    parts = max(1, min(parts, len(np.unique(plan.individual))))
    weight = np.ones(len(plan)) if costs is None else np.asarray(costs, dtype=np.float64)[plan.opponent]
    cumulative = np.concatenate([[0.0], np.cumsum(weight)])  # cost of the games before each index
    targets = np.arange(1, parts) * cumulative[-1] / parts
    at = np.searchsorted(cumulative, targets)  # the first game with at least the target's cost before it
    cuts = np.unique(np.concatenate([[0], at, [len(plan)]]))
    return [plan.subset(slice(a, b)) for a, b in zip(cuts[:-1], cuts[1:])]


def opponent_costs(config: Config, labels: Sequence[str], games: int = 32) -> np.ndarray:
    """Returns the measured seconds a game takes against each opponent label.

    Opponents differ tenfold in cost (nmost:1 against random), so batches of
    equal game counts can keep one worker busy long after the other. Used
    only to place the batch boundaries: no result depends on these timings.
    Each label plays 4 and then 4 + ``games`` games (the fastest of three
    tries); the difference leaves out the fixed cost of a call.
    """
    kind, depth, eps, phase_move = player_args(config)
    table = np.random.default_rng(0).uniform(-1, 1, size=(1, 128 if config.population.genome == "phase" else 64))

    def timed(index: int, count: int) -> float:
        opponents = [None] * len(labels)
        opponents[index] = _opponent(labels[index])
        seeds = np.arange(count, dtype=np.uint64)
        started = time.perf_counter()
        play_plan(kind, depth, eps, phase_move, table, opponents, np.zeros(count, np.int32),
                  np.full(count, index, np.int32), np.zeros(count, np.int32), seeds,
                  (np.arange(count) % 2).astype(np.uint8))
        return time.perf_counter() - started

    # The fastest of three timings, and a floor of a tenth of the median: another
    # job on the machine must not make an opponent look free.
    costs = np.array([
        (min(timed(i, 4 + games) for _ in range(3)) - min(timed(i, 4) for _ in range(3))) / games
        for i in range(len(labels))
    ])
    return np.maximum(costs, 0.1 * np.median(costs) + 1e-9)


def scores(individual: np.ndarray, disc_diffs: np.ndarray, size: int, kind: str) -> np.ndarray:
    """Returns each individual's fitness: win rate (draw = 1/2) or mean disc difference (NaN without games)."""
    points = disc_diffs if kind == "disc_diff" else (disc_diffs > 0) + 0.5 * (disc_diffs == 0)
    return mean_by(individual, points, size)


def mean_by(group: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Returns the mean of ``values`` in each group ``0 .. size - 1`` (NaN for a group without values)."""
    count = np.bincount(group, minlength=size).astype(np.float64)
    total = np.bincount(group, weights=values, minlength=size)
    # np.divide with where: np.errstate would cost more than the division.
    return np.divide(total, count, out=np.full(size, np.nan), where=count > 0)


def score(disc_diffs: np.ndarray, kind: str) -> float:
    """Returns the fitness of games: win rate (draw = 1/2) or mean disc difference (0 without games)."""
    if disc_diffs.size == 0:
        return 0.0
    return float(scores(np.zeros(disc_diffs.size, dtype=np.intp), disc_diffs, 1, kind)[0])

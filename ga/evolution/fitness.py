"""Fitness by games: whom each individual plays, with which seeds, and its score.

A generation's games are planned as flat arrays (:class:`~ga.games.plan.GamePlan`)
and played by the engine through :mod:`ga.games.executor`: no Python runs per
game or per move. Every game's seed is a hash of (run seed, generation,
individual, opponent, game), so results never depend on the number of workers
or on scheduling.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import parse_spec
from engine._patterns import PatternLayout
from engine.patterns import layout as pattern_layout
from ga.config import Config, network_of
from ga.evolution.genome import GenomeLayout, gene_matrix
from ga.evolution.toolbox import initial_genes
from ga.games import executor, scoring
from ga.games.plan import HALL_OF_FAME, POPULATION, RANDOM_TABLE, GamePlan, colour_pattern
from ga.games.seeds import Stream, derive_seed, derive_seeds, mix
from ga.rundir.writer import GameLog

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def at_depth(spec: str, depth: int) -> str:
    """Returns an opponent's spec searching at ``depth`` if it is an alpha-beta player, else the spec itself."""
    parsed = parse_spec(spec)
    if parsed.kind != "alphabeta":
        return spec
    return str(dataclasses.replace(parsed, depth=depth))


def spread_labels(spec: str, depths: Sequence[int]) -> list[str]:
    """Returns the labels an opponent plays under: one per depth for a searching opponent when the games
    are spread over ``depths``, else its spec alone."""
    if not depths:
        return [spec]
    return list(dict.fromkeys(at_depth(spec, depth) for depth in depths))


def opponent_labels(config: Config) -> list[str]:
    """Returns the labels of a run's opponents: the specs (searching ones at each of ``fitness.depths``),
    then population, hall_of_fame and random_tables."""
    labels = [label for opponent in config.fitness.opponents
              for label in spread_labels(opponent.spec, config.fitness.depths)]
    if config.fitness.coevolution:
        labels.append(POPULATION)
    if config.fitness.hall_of_fame_games:
        labels.append(HALL_OF_FAME)
    if config.fitness.random_table_games:
        labels.append(RANDOM_TABLE)
    return list(dict.fromkeys(labels))


def plan_generation(config: Config, generation: int, size: int, champions: int = 0) -> GamePlan:
    """Returns every game of a generation of ``size`` individuals.

    Rows ``size ..`` of the tables are the ``champions`` (hall of fame of
    earlier generations' best) when they play hall_of_fame games
    (:func:`champion_rows`), then the generation's random tables.
    """
    fit = config.fitness
    seed = config.experiment.seed
    specs = [opponent.spec for opponent in fit.opponents]
    labels = opponent_labels(config)
    label_index = np.array([labels.index(spread_labels(spec, fit.depths)[0]) for spec in specs], dtype=np.int32)
    probabilities = np.array([opponent.weight for opponent in fit.opponents], dtype=np.float64)
    probabilities /= probabilities.sum()
    draw_rng = np.random.default_rng(derive_seed(seed, Stream.DRAWS, generation))
    if fit.draw == "all":
        drawn = np.tile(np.arange(len(specs)), (size, 1))
    elif fit.common_random_numbers:
        drawn = np.full((size, 1), draw_rng.choice(len(specs), p=probabilities))
    else:
        drawn = draw_rng.choice(len(specs), size=(size, 1), p=probabilities)
    per_opponent = fit.games_per_opponent
    who = np.zeros((size, 1), dtype=np.int64) if fit.common_random_numbers else np.arange(1, size + 1)[:, None]
    bases = derive_seeds(seed, Stream.GAMES, generation, who, drawn)  # one per (individual, opponent)
    game = np.arange(1, per_opponent + 1, dtype=np.uint64)
    parts = [GamePlan(
        individual=np.repeat(np.arange(size, dtype=np.int32), drawn.shape[1] * per_opponent),
        opponent=np.repeat(label_index[drawn].ravel(), per_opponent),
        member=np.full(drawn.size * per_opponent, -1, dtype=np.int32),
        seeds=mix(bases.reshape(-1, 1) + game * _GOLDEN).ravel(),
        colours=_colours(fit.colours, per_opponent, generation, drawn.shape, fit.common_random_numbers),
    )]
    # Made only when needed: a generator costs more than the rest of a small plan.
    rng = np.random.default_rng(derive_seed(seed, Stream.COEVOLUTION, generation)) if (
        fit.coevolution and size > 1) or (fit.hall_of_fame_games and champions) else None
    if fit.coevolution and size > 1:
        others = rng.choice(size - 1, size=(size, fit.coevolution))
        others += others >= np.arange(size)[:, None]  # never the individual itself
        parts.append(_member_games(seed, generation, labels.index(POPULATION), others))
    if fit.hall_of_fame_games and champions:
        picks = size + rng.choice(champions, size=(size, fit.hall_of_fame_games))
        parts.append(_member_games(seed, generation, labels.index(HALL_OF_FAME), picks))
    if fit.random_table_games:
        # Every individual meets the same tables (rows after the champions'), table k in colour k % 2.
        picks = size + champion_rows(config, champions) + np.tile(np.arange(fit.random_table_games), (size, 1))
        parts.append(_member_games(seed, generation, labels.index(RANDOM_TABLE), picks))
    if len(parts) > 1:  # group each individual's games (the first part alone is grouped already)
        plan = GamePlan.concatenate(parts)
        plan = plan.subset(np.argsort(plan.individual, kind="stable"))
    else:
        plan = parts[0]
    if fit.depths:
        plan = spread_over_depths(plan, fit.depths, specs, labels)
    return plan


def champion_rows(config: Config, champions: int) -> int:
    """Returns how many rows of a generation's tables hold champions: all of them for hall-of-fame games, else none."""
    return champions if config.fitness.hall_of_fame_games else 0


def _colours(colours: str, per_opponent: int, generation: int, shape: tuple[int, int],
             common: bool) -> np.ndarray:
    """Returns the table player's colour (0 = black) in each game of a generation, individual by individual.

    ``both`` alternates colours game by game. With an odd number of games per
    opponent that alone would give black the extra game every time (every game
    black at one game per opponent), so the first game's colour also
    alternates: across individuals, opponents and generations, or, under common
    random numbers, across opponents and generations only, so that every
    individual plays the same games in the same colours.
    """
    pattern = colour_pattern(colours, per_opponent)
    size, columns = shape
    if colours != "both" or per_opponent % 2 == 0:
        return np.tile(pattern, size * columns)
    first = generation + np.arange(columns)[None, :] + (0 if common else np.arange(size)[:, None])
    first = np.broadcast_to(first, shape).reshape(-1, 1)
    return ((first + pattern[None, :]) % 2).astype(np.uint8).ravel()


def spread_over_depths(plan: GamePlan, depths: Sequence[int], specs: Sequence[str], labels: Sequence[str]) -> GamePlan:
    """Returns the plan with its games spread over ``depths``: each individual's k-th game at ``depths[k % n]``.

    The individual and its member opponents search at the game's depth, and so
    does a searching fixed opponent (its label for that depth).
    """
    grouped = plan.individual
    starts = np.searchsorted(grouped, grouped)  # the index of each individual's first game (grouped plan)
    rank = np.arange(len(plan)) - starts
    which = rank % len(depths)
    depth = np.asarray(depths, dtype=np.int32)[which]
    opponent = plan.opponent.copy()
    for spec in dict.fromkeys(specs):
        base = labels.index(spread_labels(spec, depths)[0])
        for index, value in enumerate(depths):
            at = (plan.opponent == base) & (which == index)
            opponent[at] = labels.index(at_depth(spec, value))
    return GamePlan(plan.individual, opponent, plan.member, plan.seeds, plan.colours, depth)


def generation_random_tables(config: Config, generation: int) -> np.ndarray:
    """Returns a generation's random opponent tables (rows of 64 weights from U(-1, 1); none without them).

    With features, each row also weighs them, from U(-1, 1) too (drawn after
    the squares, so a table-only run draws what it always drew). In a
    network's run the rows end in a network of zeros: a random table is the
    same opponent for every run.
    """
    count = config.fitness.random_table_games
    features = len(config.population.features)
    layout = GenomeLayout.of(config)
    rng = np.random.default_rng(derive_seed(config.experiment.seed, Stream.RANDOM_TABLES, generation))
    tables = rng.uniform(-1.0, 1.0, size=(count, 64))
    weights = rng.uniform(-1.0, 1.0, size=(count, features)) if features else np.zeros((count, 0))
    if layout.tables == 2:
        rows = np.hstack([tables, tables, weights, weights])  # one evaluation for the whole game
    else:
        rows = np.hstack([tables, weights]) if features else tables
    return np.hstack([rows, np.zeros((count, layout.network))]) if layout.network else rows


def _member_games(seed: int, generation: int, label: int, members: np.ndarray) -> GamePlan:
    size, count = members.shape
    k = np.arange(count)
    seeds = mix(derive_seeds(seed, Stream.GAMES, generation, np.arange(1, size + 1)[:, None], label, k[None, :]))
    return GamePlan(
        individual=np.repeat(np.arange(size, dtype=np.int32), count),
        opponent=np.full(size * count, label, dtype=np.int32),
        member=members.astype(np.int32).ravel(),
        seeds=seeds.ravel(),
        colours=np.tile((k % 2).astype(np.uint8), size),
    )


def run_games(config: Config, generations: int, seed: int = 0) -> executor.Batch:
    """Returns the games ``generations`` generations of ``config`` play, as one batch, with U(-1, 1) tables.

    The opponents, seeds and colours are the run's own (its plans); the tables
    stand in for the evolved ones, which only the run makes. Only for runs
    whose opponents are all fixed players (no coevolution, hall of fame or
    random tables, which the run makes too), and of tables (a network's rows
    are played generation by generation: :func:`generation_batches`).
    """
    size = config.population.size
    fit = config.fitness
    if fit.coevolution or fit.hall_of_fame_games or fit.random_table_games:
        raise ValueError("run_games plays runs without coevolution, hall-of-fame or random-table games")
    plans = []
    for generation in range(generations):
        plan = plan_generation(config, generation, size)
        plans.append(dataclasses.replace(plan, individual=plan.individual + np.int32(generation * size)))
    tables = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(generations * size, GenomeLayout.of(config).width))
    return executor.Batch(player_args(config), tables, opponent_labels(config), GamePlan.concatenate(plans))


def generation_batches(config: Config, generations: int, seed: int = 0) -> Iterator[executor.Batch]:
    """Yields the games of each of ``generations`` generations of ``config``, a batch each, as the run plays them.

    The plans are the run's own (opponents, seeds, colours, the members and
    champions each individual meets, the generation's random tables); the rows
    of the population and of its champions stand in for the evolved ones,
    drawn as a first generation is (:func:`ga.evolution.toolbox.initial_genes`).
    A network's rows are a generation's at a time, as in the run: one network's
    tables take half a megabyte.
    """
    layout, size = GenomeLayout.of(config), config.population.size
    rng = np.random.default_rng(seed)
    for generation in range(generations):
        champions = min(generation, config.fitness.hall_of_fame_size)  # one a generation, as the run keeps them
        plan = plan_generation(config, generation, size, champions)
        tables = layout.expand_many(initial_genes(config, layout, size + champion_rows(config, champions), rng))
        if config.fitness.random_table_games:
            tables = np.vstack([tables, generation_random_tables(config, generation)])
        yield executor.Batch(player_args(config), tables, opponent_labels(config), plan, layout=network_layout(config))


def network_layout(config: Config) -> PatternLayout | None:
    """Returns the engine's layout of the network a run evolves (its rows end in its weights), or None."""
    network = network_of(config.patterns)
    return pattern_layout(network) if network is not None else None


def player_args(config: Config) -> executor.TablePlayer:
    """Returns (kind, depth, eps, phase_move, end, features) of the evolved player."""
    spec = parse_spec(config.fitness.player)
    return (spec.kind, spec.depth, config.fitness.eps, config.population.phase_move, spec.end,
            tuple(config.population.features))


@dataclass
class Generation:
    """What evaluating one generation produced: its games and their results, for the logs.

    The record (counts and win rates) is worked out when first read, by the
    bookkeeping that runs while the next generation plays: breeding needs
    only the fitness.
    """

    generation: int
    plan: GamePlan
    labels: list[str]
    diffs: np.ndarray
    genes: np.ndarray  # the population's genes, one row per individual

    @property
    def games(self) -> int:
        return int(self.diffs.size)

    @functools.cached_property
    def record(self) -> dict[str, Any]:
        diffs = self.diffs
        record: dict[str, Any] = {
            "generation": self.generation,
            "games": self.games,
            "wins": int((diffs > 0).sum()),
            "draws": int((diffs == 0).sum()),
            "losses": int((diffs < 0).sum()),
            "win_rate": scoring.score(diffs, "win_rate") if diffs.size else float("nan"),
        }
        by_opponent = scoring.scores(self.plan.opponent, diffs, len(self.labels), "win_rate")  # NaN where none
        for label, rate in zip(self.labels, by_opponent.tolist()):
            record[f"win_rate_vs_{label}"] = rate
        return record

    @property
    def game_log(self) -> GameLog:
        plan = self.plan
        return GameLog(self.generation, plan.individual, plan.opponent, self.labels, plan.colours, plan.seeds,
                       self.diffs)


def evaluate_generation(
    population: list[Any], generation: int, config: Config, champions: Sequence[Sequence[float]],
    game_map: executor.GameMap, costs: np.ndarray | None = None,
    while_playing: Callable[[], None] | None = None, plan: GamePlan | None = None,
) -> Generation:
    """Plays the games of every individual without fitness and sets their fitness.

    The games go to ``game_map`` (see :func:`ga.games.executor.play_batch`),
    and ``while_playing`` runs while they play. ``plan`` is the generation's
    :func:`plan_generation`, if already made.
    """
    size = len(population)
    genes = gene_matrix(population)
    tables = GenomeLayout.of(config).expand_many(genes)
    if champion_rows(config, len(champions)):
        tables = np.vstack([tables, np.asarray(champions, dtype=np.float64)])
    if config.fitness.random_table_games:
        tables = np.vstack([tables, generation_random_tables(config, generation)])
    labels = opponent_labels(config)
    if plan is None:
        plan = plan_generation(config, generation, size, len(champions))
    todo = np.array([not ind.fitness.valid for ind in population])
    if not todo.all():
        plan = plan.subset(todo[plan.individual])
    batch = executor.Batch(player_args(config), tables, labels, plan, layout=network_layout(config))
    map_function, parts, shared = game_map
    diffs = executor.play_batch(batch, map_function, parts, shared=shared, costs=costs, while_playing=while_playing)
    values = scoring.scores(plan.individual, diffs, size, config.fitness.score).tolist()
    for i in np.flatnonzero(todo).tolist():
        individual = population[i]
        individual.fitness.values = (values[i],)
        individual.born = generation
    return Generation(generation, plan, labels, diffs, genes)


def games_by_key(config: Config) -> dict[str, int]:
    """Returns how many of a generation's games each config key asks for (an upper bound with elites)."""
    fit, size = config.fitness, config.population.size
    opponents = len(fit.opponents) if fit.draw == "all" else 1
    return {
        "fitness.games_per_opponent": size * opponents * fit.games_per_opponent,
        "fitness.coevolution": size * fit.coevolution,
        "fitness.hall_of_fame_games": size * fit.hall_of_fame_games,
        "fitness.random_table_games": size * fit.random_table_games,
        **({"td.games": size * config.td.games} if config.td.games else {}),
    }


def games_per_generation(config: Config) -> int:
    """Returns how many games a generation plays (an upper bound with elites), TD's self-play games included:
    the training games a study's budget counts."""
    return sum(games_by_key(config).values())

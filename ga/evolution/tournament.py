"""The final tournament: a run's best table chosen by many fresh games.

A generation's fitness comes from a few noisy games, and under coevolution
it is relative to that generation's population, so the fittest member of the
last generation is often a lucky or a momentarily fashionable one. With
``[final] games = N``, the candidates (the final population, the champions of
the last ``fitness.hall_of_fame_size`` generations, and the population's mean
table) play a round robin of N games per pair plus N games against each fixed
training opponent, and the best table is the one with the highest score: the
mean of its round-robin win rate and its win rate against the training
opponents. Only training opponents take part, so held-out evaluations stay
held out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ga.config import Config
from ga.evolution.fitness import at_depth, network_layout, player_args, spread_labels
from ga.evolution.genome import GenomeLayout
from ga.games import executor, scoring
from ga.games.plan import POPULATION, GamePlan
from ga.games.seeds import Stream, derive_seeds

SOURCES = ("population", "mean", "champion")


@dataclass
class Candidates:
    """The tables that take part, where each came from and when it was born."""

    tables: np.ndarray  # n x 64 (or 128) weights
    source: list[str]  # "population", "mean" or "champion"
    index: list[int]  # row in the population, or champion age (0 = last generation's)
    born: list[int]  # generation of birth (-1 for the mean table)

    def __len__(self) -> int:
        return len(self.source)


def gather_candidates(population: Sequence[Sequence[float]], born: Sequence[int],
                      champions: Sequence[Sequence[float]], genome: str | GenomeLayout, features: int = 0,
                      mean: np.ndarray | None = None) -> Candidates:
    """Returns the distinct tables of the final population, its mean and the champion archive.

    ``champions`` are whole tables (engine rows), oldest first; a table that appears
    twice (an elite is also a champion) takes part once, under its first source.
    ``genome`` is a table genome's name (with ``features``) or a whole
    :class:`~ga.evolution.genome.GenomeLayout`; ``mean`` the genes of the
    mean candidate (CMA-ES's centroid), by default the population's mean.
    """
    layout = genome if isinstance(genome, GenomeLayout) else GenomeLayout(genome, features)
    genes = np.asarray(population, dtype=np.float64)
    rows: list[tuple[np.ndarray, str, int, int]] = [
        (table, "population", i, int(born[i])) for i, table in enumerate(layout.expand_many(genes))
    ]
    rows.append((layout.expand(genes.mean(axis=0) if mean is None else mean), "mean", 0, -1))
    last = len(champions) - 1
    rows += [(np.asarray(table, dtype=np.float64), "champion", last - k, -1) for k, table in enumerate(champions)]
    seen: set[bytes] = set()
    kept = []
    for row in rows:
        key = row[0].tobytes()
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return Candidates(np.array([r[0] for r in kept]), [r[1] for r in kept], [r[2] for r in kept],
                      [r[3] for r in kept])


def _fixed_specs(config: Config) -> list[str]:
    return list(dict.fromkeys(opponent.spec for opponent in config.fitness.opponents))


def tournament_labels(config: Config) -> list[str]:
    """Returns the tournament's opponent labels: the fixed training opponents (searching ones at each of
    ``fitness.depths``), then the candidates."""
    depths = config.fitness.depths
    return list(dict.fromkeys(label for spec in _fixed_specs(config) for label in spread_labels(spec, depths))) + [
        POPULATION]


def plan_tournament(config: Config, count: int) -> GamePlan:
    """Returns the games of a tournament of ``count`` candidates, grouped by first player.

    Candidate i plays ``final.games`` games against each fixed opponent and
    against each candidate j > i, colours alternating; every seed is a hash of
    (run seed, FINAL, i, opponent or j, game). With ``fitness.depths`` game g
    of each pairing is played at ``depths[g % n]``, as in training.
    """
    games = config.final.games
    seed = config.experiment.seed
    specs = _fixed_specs(config)
    fixed = len(specs)
    game = np.arange(games)
    colours = (game % 2).astype(np.uint8)
    parts = []
    for i in range(count):
        opponents = np.arange(fixed)
        members = np.arange(i + 1, count)
        total = (fixed + members.size) * games
        seeds = np.concatenate([
            derive_seeds(seed, Stream.FINAL, i, opponents[:, None], game[None, :]).ravel(),
            derive_seeds(seed, Stream.FINAL, i, fixed + members[:, None], game[None, :]).ravel(),
        ]) if total else np.zeros(0, dtype=np.uint64)
        parts.append(GamePlan(
            individual=np.full(total, i, dtype=np.int32),
            opponent=np.concatenate([np.repeat(opponents, games), np.full(members.size * games, fixed)]).astype(np.int32),
            member=np.concatenate([np.full(fixed * games, -1), np.repeat(members, games)]).astype(np.int32),
            seeds=seeds.astype(np.uint64),
            colours=np.tile(colours, fixed + members.size),
        ))
    plan = GamePlan.concatenate(parts)
    labels = tournament_labels(config)
    population = len(labels) - 1
    opponent = np.where(plan.opponent == fixed, population, plan.opponent)  # the candidates' label is last
    depths = config.fitness.depths
    if not depths:
        return GamePlan(plan.individual, opponent.astype(np.int32), plan.member, plan.seeds, plan.colours)
    # Game g of a pairing at depths[g % n]; a searching fixed opponent under its label for that depth.
    which = np.tile(np.arange(games) % len(depths), len(plan) // games if games else 0)
    for k, spec in enumerate(specs):
        for index, depth in enumerate(depths):
            opponent[(plan.opponent == k) & (which == index)] = labels.index(at_depth(spec, depth))
    return GamePlan(plan.individual, opponent.astype(np.int32), plan.member, plan.seeds, plan.colours,
                    np.asarray(depths, dtype=np.int32)[which])


def tournament_scores(plan: GamePlan, diffs: np.ndarray, count: int, fixed: int) -> dict[str, np.ndarray]:
    """Returns per candidate: win rate vs the fixed opponents, in the round robin, and the score (their mean).

    Without fixed opponents the score is the round-robin win rate, and without
    other candidates it is the win rate against the fixed opponents.
    """
    points = scoring.points(diffs)
    vs_fixed = plan.opponent < fixed
    fixed_rate = scoring.mean_by(plan.individual[vs_fixed], points[vs_fixed], count)
    pair = ~vs_fixed
    # A round-robin game counts for both: the first player's points and the member's (1 - points).
    who = np.concatenate([plan.individual[pair], plan.member[pair]])
    robin_rate = scoring.mean_by(who, np.concatenate([points[pair], 1.0 - points[pair]]), count)
    if not fixed:
        score = robin_rate
    elif count < 2:
        score = fixed_rate
    else:
        score = (fixed_rate + robin_rate) / 2
    return {"vs_training": fixed_rate, "round_robin": robin_rate, "score": score}


def run_tournament(config: Config, candidates: Candidates,
                   game_map: executor.GameMap) -> tuple[list[dict[str, Any]], int]:
    """Plays the tournament; returns one row per candidate, best first (ties: earlier candidate first), and the games played."""
    count = len(candidates)
    labels = tournament_labels(config)
    plan = plan_tournament(config, count)
    batch = executor.Batch(player_args(config), candidates.tables, labels, plan, layout=network_layout(config))
    map_function, parts, shared = game_map
    diffs = executor.play_batch(batch, map_function, parts, shared=shared)
    rates = tournament_scores(plan, diffs, count, len(labels) - 1)
    order = sorted(range(count), key=lambda i: (-rates["score"][i], i))
    rows = [
        {
            "rank": rank + 1,
            "source": candidates.source[i],
            "index": candidates.index[i],
            "born": candidates.born[i],
            "score": float(rates["score"][i]),
            "vs_training": float(rates["vs_training"][i]),
            "round_robin": float(rates["round_robin"][i]),
            "weights": candidates.tables[i],
        }
        for rank, i in enumerate(order)
    ]
    return rows, len(plan)

"""Fitness by games: who each individual plays, with which seeds, and the score.

Every game's seed is a hash of (run seed, generation, individual, opponent,
game), so results never depend on the number of workers or on scheduling.
The games themselves run in the engine's ``play_match``: no Python per move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from engine import Player, build_player, play_match

from ga.config import Config

# Streams of the run seed, one per use, so that no two uses share numbers.
INIT, VARIATION, DRAWS, GAMES, COEVOLUTION = 1, 2, 3, 4, 5

POPULATION = "population"  # label of games against other members (coevolution)
HALL_OF_FAME = "hall_of_fame"  # label of games against earlier champions

_MASK = (1 << 64) - 1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix_int(z: int) -> int:
    # splitmix64's finaliser (Steele, Lea & Flood 2014) on Python ints.
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def derive_seed(*keys: int) -> int:
    """Returns a 64-bit seed that is a hash of the integer ``keys``."""
    state = 0
    for key in keys:
        state = _mix_int(state ^ (key & _MASK))
    return state


def game_seeds(base: int, count: int) -> np.ndarray:
    """Returns ``count`` game seeds (uint64) derived from ``base``."""
    z = np.uint64(base) + (np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def colour_pattern(colours: str, count: int) -> np.ndarray:
    """Returns 0 (individual plays black) / 1 (white) per game."""
    if colours == "black":
        return np.zeros(count, dtype=np.uint8)
    if colours == "white":
        return np.ones(count, dtype=np.uint8)
    return (np.arange(count) % 2).astype(np.uint8)


def _alternate(k: int) -> np.ndarray:
    # The k-th single game against a member: black and white in turn.
    return np.array([k % 2], dtype=np.uint8)


@dataclass
class Match:
    """Games of one individual against one opponent."""

    label: str  # opponent spec, or POPULATION / HALL_OF_FAME
    seeds: np.ndarray
    colours: np.ndarray
    opponent_weights: tuple[float, ...] | None = None  # for POPULATION / HALL_OF_FAME


@dataclass
class Task:
    """Everything a worker needs to evaluate one individual (plain, picklable data)."""

    player: tuple[str, int, float, int]  # kind, depth, eps, phase_move
    weights: tuple[float, ...]
    matches: list[Match] = field(default_factory=list)


def plan_generation(
    config: Config,
    generation: int,
    weights: Sequence[Sequence[float]],
    champions: Sequence[Sequence[float]] = (),
) -> list[list[Match]]:
    """Returns the matches of every individual of a generation.

    ``weights`` are the expanded tables of the population (for coevolution) and
    ``champions`` those of the hall of fame of earlier champions.
    """
    fit = config.fitness
    seed = config.experiment.seed
    n = len(weights)
    crn = fit.common_random_numbers
    specs = [opponent.spec for opponent in fit.opponents]
    probabilities = np.array([opponent.weight for opponent in fit.opponents], dtype=np.float64)
    probabilities /= probabilities.sum()
    draw_rng = np.random.default_rng(derive_seed(seed, DRAWS, generation))
    if fit.draw == "all":
        drawn = [list(range(len(specs)))] * n
    elif crn:
        drawn = [[int(draw_rng.choice(len(specs), p=probabilities))]] * n
    else:
        drawn = [[int(j)] for j in draw_rng.choice(len(specs), size=n, p=probabilities)]
    per_opponent = fit.games_per_opponent
    colours = colour_pattern(fit.colours, per_opponent)
    plans: list[list[Match]] = []
    for i in range(n):
        who = 0 if crn else i + 1
        matches = [
            Match(specs[j], game_seeds(derive_seed(seed, GAMES, generation, who, j), per_opponent), colours)
            for j in drawn[i]
        ]
        plans.append(matches)
    if fit.coevolution and n > 1:
        coevolution_rng = np.random.default_rng(derive_seed(seed, COEVOLUTION, generation))
        for i in range(n):
            others = coevolution_rng.choice(n - 1, size=fit.coevolution)
            for k, other in enumerate(others):
                other = int(other) + (other >= i)  # skip the individual itself
                base = derive_seed(seed, GAMES, generation, i + 1, len(specs), k)
                plans[i].append(Match(POPULATION, game_seeds(base, 1), _alternate(k), tuple(weights[other])))
    if fit.hall_of_fame_games and champions:
        champion_rng = np.random.default_rng(derive_seed(seed, COEVOLUTION, generation, 1))
        for i in range(n):
            picks = champion_rng.choice(len(champions), size=fit.hall_of_fame_games)
            for k, pick in enumerate(picks):
                base = derive_seed(seed, GAMES, generation, i + 1, len(specs) + 1, k)
                plans[i].append(Match(HALL_OF_FAME, game_seeds(base, 1), _alternate(k), tuple(champions[int(pick)])))
    return plans


# --- in the worker -----------------------------------------------------------

_OPPONENTS: dict[str, Player] = {}


def _opponent(spec: str) -> Player:
    # Opponents are built once per process: a weights file is read only once.
    if spec not in _OPPONENTS:
        from ga.weights import load_weights

        _OPPONENTS[spec] = build_player(spec, load_weights=load_weights)
    return _OPPONENTS[spec]


def evaluate(task: Task) -> list[np.ndarray]:
    """Plays an individual's matches and returns its disc differences per match."""
    kind, depth, eps, phase_move = task.player
    player = Player(kind, depth, task.weights, eps, phase_move)
    results = []
    for match in task.matches:
        if match.opponent_weights is not None:
            opponent = Player(kind, depth, match.opponent_weights, eps, phase_move)
        else:
            opponent = _opponent(match.label)
        results.append(play_match(player, opponent, match.seeds, match.colours))
    return results


def evaluate_batch(tasks: Sequence[Task]) -> list[list[np.ndarray]]:
    """Evaluates several individuals in one call (one message to a worker)."""
    return [evaluate(task) for task in tasks]


def score(disc_diffs: np.ndarray, kind: str) -> float:
    """Returns the fitness of games: win rate (draw = 1/2) or mean disc difference."""
    if disc_diffs.size == 0:
        return 0.0
    if kind == "disc_diff":
        return float(disc_diffs.mean())
    return float(((disc_diffs > 0).sum() + 0.5 * (disc_diffs == 0).sum()) / disc_diffs.size)

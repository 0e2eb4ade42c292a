"""Benchmarks of the engine: medians of repeated single-core runs.

The numbers are measured, never assumed: ``othello-ga bench`` prints them with
the targets and the ratio to a naive pure-Python implementation.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from engine import Board, Player, TABLES, build_player, naive, perft, play_match
from engine._players import SharedPlan

# Leaves of perft from the start position, by depth.
PERFT_LEAVES = {8: 390216, 9: 3005288, 10: 24571284, 11: 212258800}


@dataclass
class Measurement:
    """One benchmark: what was measured, its median rate and the target."""

    name: str
    unit: str
    median: float
    runs: list[float]
    target: float | None = None

    @property
    def meets_target(self) -> bool | None:
        """Returns whether the median reaches the target (None without a target)."""
        return None if self.target is None else self.median >= self.target


def _median_rate(work: Callable[[], int], repeat: int) -> tuple[float, list[float]]:
    rates = []
    for _ in range(repeat):
        started = time.perf_counter()
        amount = work()
        rates.append(amount / (time.perf_counter() - started))
    return statistics.median(rates), rates


def perft_rate(depth: int, repeat: int) -> Measurement:
    """Measures perft from the start position in nodes (leaves) per second."""
    board = Board()
    median, runs = _median_rate(lambda: perft(board, depth), repeat)
    return Measurement(f"perft {depth}", "leaves/s", median, runs)


def perft_seconds(measurement: Measurement) -> float:
    """Returns the median time of a perft measurement in seconds."""
    depth = int(measurement.name.split()[1])
    return PERFT_LEAVES[depth] / measurement.median


def games_rate(first: Player, second: Player, games: int, repeat: int, name: str, target: float | None) -> Measurement:
    """Measures whole games in the engine (both colours) in games per second."""
    seeds = np.arange(games, dtype=np.uint64)
    median, runs = _median_rate(lambda: len(play_match(first, second, seeds)), repeat)
    return Measurement(name, "games/s", median, runs, target)


# The opponents of experiments/scaling.toml: games of tenfold different cost.
GENERATION_OPPONENTS = ("random", "nhand:1", "nhand:2", "nleast:1", "nmost:1")


def generation_rate(threads: int, individuals: int, repeat: int) -> Measurement:
    """Measures a generation's games (64 a table, opponents in turn) played by ``threads`` threads sharing one plan."""
    tables = np.random.default_rng(0).uniform(-1, 1, size=(individuals, 64))
    opponents = [build_player(spec) for spec in GENERATION_OPPONENTS]
    games = 64 * individuals
    individual = np.repeat(np.arange(individuals, dtype=np.int32), 64)
    args = (individual, (individual % len(opponents)).astype(np.int32), np.full(games, -1, np.int32),
            np.arange(games, dtype=np.uint64), (np.arange(games) % 2).astype(np.uint8))

    def play(executor: ThreadPoolExecutor) -> int:
        plan = SharedPlan("nhand_custom", 1, 0.0, 40, tables, opponents, *args)
        return sum(executor.map(lambda _: plan.play(), range(threads)))

    with ThreadPoolExecutor(threads) as executor:
        median, runs = _median_rate(lambda: play(executor), repeat)
    return Measurement(f"generation, {threads} thread{'s' * (threads > 1)}", "games/s", median, runs)


def naive_rate(weights: tuple[float, ...] | None, games: int, repeat: int, name: str) -> Measurement:
    """Measures the naive pure-Python implementation on the same kind of game."""
    def play() -> int:
        for seed in range(games):
            naive.play_game(weights, seed)
        return games

    median, runs = _median_rate(play, repeat)
    return Measurement(name, "games/s", median, runs)


def run_benchmarks(quick: bool = False, repeat: int = 5) -> list[Measurement]:
    """Runs every benchmark and returns the measurements (``quick``: smaller sizes for tests)."""
    scale = 20 if quick else 1
    table = TABLES["heuristic"]
    custom = Player("nhand_custom", 1, table)
    random_player = Player("random")
    results = []
    # perft 11 within 1.0 s is the target.
    for depth, target in ((8, None), (9, None)) if quick else ((10, None), (11, PERFT_LEAVES[11] / 1.0)):
        measurement = perft_rate(depth, 1 if depth == 11 else repeat)
        measurement.target = target
        results.append(measurement)
    results.append(games_rate(random_player, random_player, 200_000 // scale, repeat, "random vs random", 350_000))
    results.append(games_rate(custom, random_player, 100_000 // scale, repeat, "nhand_custom:1 vs random", 100_000))
    results.append(games_rate(custom, Player("nhand", 2), 20_000 // scale, repeat, "nhand_custom:1 vs nhand:2", 30_000))
    results.append(games_rate(custom, Player("nmost", 1), 20_000 // scale, repeat, "nhand_custom:1 vs nmost:1", None))
    # A population-64 generation of 64 games each, on one thread and on every core.
    individuals = 4 if quick else 64
    results.append(generation_rate(1, individuals, repeat))
    results.append(generation_rate(max(os.cpu_count() or 1, 2), individuals, repeat))
    results.append(naive_rate(None, 200 // scale, 3, "naive Python: random vs random"))
    results.append(naive_rate(table, 100 // scale, 3, "naive Python: nhand_custom:1 vs random"))
    return results


def report(results: list[Measurement]) -> str:
    """Returns the benchmark table with targets and the engine/naive ratios."""
    lines = [f"{'benchmark':34} {'median':>14} {'unit':9} {'target':>10}  ok"]
    for m in results:
        target = f"{m.target:,.0f}" if m.target else "-"
        ok = {None: "", True: "yes", False: "NO"}[m.meets_target]
        lines.append(f"{m.name:34} {m.median:14,.0f} {m.unit:9} {target:>10}  {ok}")
    by_name = {m.name: m for m in results}
    for engine_name, naive_name in (("random vs random", "naive Python: random vs random"),
                                    ("nhand_custom:1 vs random", "naive Python: nhand_custom:1 vs random")):
        ratio = by_name[engine_name].median / by_name[naive_name].median
        lines.append(f"ratio engine / naive Python, {engine_name}: {ratio:,.0f}x")
    threaded = [m for m in results if m.name.startswith("generation, ")]
    if len(threaded) == 2:
        lines.append(f"ratio {threaded[1].name} / {threaded[0].name}: {threaded[1].median / threaded[0].median:.2f}x")
    for m in results:
        if m.name.startswith("perft"):
            lines.append(f"{m.name}: {perft_seconds(m):.3f} s")
    return "\n".join(lines)

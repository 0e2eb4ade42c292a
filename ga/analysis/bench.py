"""Benchmarks of the engine: medians of repeated single-core runs.

The numbers are measured, never assumed: ``othello-ga bench`` prints them with
the targets and the ratio to a naive pure-Python implementation.
"""

from __future__ import annotations

import csv
import os
import re
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import PASS, Board, Player, TABLES, build_player, naive, perft, play_match
from engine._players import SharedPlan, search_match
from engine.board import square_name
from engine.endgame import EndgameSolver
from engine.evaluation import Evaluation

# Leaves of perft from the start position, by depth.
PERFT_LEAVES = {8: 390216, 9: 3005288, 10: 24571284, 11: 212258800}


@dataclass
class Measurement:
    """One benchmark: what was measured, its median and the target."""

    name: str
    unit: str
    median: float
    runs: list[float]
    target: float | None = None
    lower_is_better: bool = False  # a time rather than a rate
    detail: str = ""  # a second figure (e.g. positions searched per second)

    @property
    def meets_target(self) -> bool | None:
        """Returns whether the median reaches the target (None without a target)."""
        if self.target is None:
            return None
        return self.median <= self.target if self.lower_is_better else self.median >= self.target


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


def perft_time(depth: int, target: float | None = None) -> Measurement:
    """Measures one perft from the start position in seconds (lower is better)."""
    started = time.perf_counter()
    perft(Board(), depth)
    seconds = time.perf_counter() - started
    return Measurement(f"perft {depth} time", "s", seconds, [seconds], target, lower_is_better=True)


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


#: Depths of the alpha-beta rows, with the games each measures (both sides ``alphabeta:d@heuristic,eps=0.1``):
#: about a third to half a second of the plain search each, so that one pair is not a few milliseconds' noise.
SEARCH_GAMES = {2: 2000, 3: 400, 4: 120, 5: 24, 6: 8}
#: Speed-ups of the search over the plain one it replaces, by depth (the targets it was built to).
SEARCH_TARGETS = {4: 4.0, 6: 10.0}


def search_rates(depth: int, games: int, repeat: int) -> tuple[Measurement, Measurement]:
    """Measures ``alphabeta:d`` and the plain search it replaces, interleaved in one run: games/s and nodes/s.

    Both play the same games (a test checks it), so the ratio of their rates is the search's speed-up.
    """
    table = TABLES["heuristic"]
    seeds = np.arange(games, dtype=np.uint64)
    rates: dict[str, list[float]] = {"alphabeta": [], "alphabeta_plain": []}
    nodes: dict[str, list[float]] = {"alphabeta": [], "alphabeta_plain": []}
    for _ in range(repeat):
        for kind in rates:
            player = Player(kind, depth, table, eps=0.1)
            started = time.perf_counter()
            _, searched = search_match(player, player, seeds)
            seconds = time.perf_counter() - started
            rates[kind].append(games / seconds)
            nodes[kind].append(searched / seconds)
    fast, plain = (Measurement(name, "games/s", statistics.median(rates[kind]), rates[kind],
                               detail=f"{statistics.median(nodes[kind]) / 1e6:.1f} M nodes/s")
                   for kind, name in (("alphabeta", f"alphabeta:{depth}"), ("alphabeta_plain", f"alphabeta:{depth} plain")))
    return fast, plain


#: The features row: self-play at this depth, the table alone against the table with these features.
FEATURE_DEPTH = 4
FEATURE_ROW_FEATURES = ("mobility", "frontier")
#: The least games/s of the player with features, as a share of the table-only player's.
FEATURE_TARGET = 0.5


def feature_rates(games: int, repeat: int) -> tuple[Measurement, Measurement]:
    """Measures ``alphabeta:4`` self-play with heuristic's table alone and with mobility and frontier, interleaved.

    Each repetition plays the same seeds with both (eps 0.1), back to back, so
    the ratio of a pair is free of the machine's drift.
    """
    seeds = np.arange(games, dtype=np.uint64)
    table = np.array(TABLES["heuristic"])
    players = {
        "table": Player("alphabeta", FEATURE_DEPTH, table, 0.1),
        "features": Player("alphabeta", FEATURE_DEPTH, np.concatenate([table, [0.1, -0.05]]), 0.1,
                           features=FEATURE_ROW_FEATURES),
    }
    rates: dict[str, list[float]] = {name: [] for name in players}
    for _ in range(repeat):
        for name, player in players.items():
            started = time.perf_counter()
            search_match(player, player, seeds)
            rates[name].append(games / (time.perf_counter() - started))
    names = {"table": f"alphabeta:{FEATURE_DEPTH}, squares alone",
             "features": f"alphabeta:{FEATURE_DEPTH}, + {' + '.join(FEATURE_ROW_FEATURES)}"}
    return tuple(Measurement(names[name], "games/s", statistics.median(runs), runs)  # type: ignore[return-value]
                 for name, runs in rates.items())


#: The pattern rows: self-play at 1 ply (what training plays) and at this depth, a pattern network's player against
#: the heuristic table's; the least games/s of the network's, as a share of the table's.
PATTERN_DEPTH = 4
PATTERN_TARGET = 0.5
PATTERN_GAMES = {1: 20_000, PATTERN_DEPTH: 120}


def pattern_rates(network: Evaluation, games: dict[int, int], repeat: int) -> list[Measurement]:
    """Measures self-play of ``network`` (an evaluation with a pattern network) and of heuristic's table, at 1 ply
    and at ``alphabeta:4``, eps 0.1, the two interleaved (each repetition plays the same seeds with both, back to
    back, so a pair's ratio is free of the machine's drift)."""
    table = np.array(TABLES["heuristic"])
    results = []
    for depth, count in games.items():
        kind = "wpc" if depth == 1 else "alphabeta"
        players = {"table": Player(kind, depth, table, 0.1),
                   "network": build_player(f"{kind}:{depth},eps=0.1", weights=network)}
        seeds = np.arange(count, dtype=np.uint64)
        rates: dict[str, list[float]] = {name: [] for name in players}
        nodes: dict[str, float] = {}
        for _ in range(repeat):
            for name, player in players.items():
                started = time.perf_counter()
                _, searched = search_match(player, player, seeds)
                rates[name].append(count / (time.perf_counter() - started))
                nodes[name] = searched / count
        spec = f"{kind}:{depth}"
        for name, runs in rates.items():
            detail = f"{nodes[name]:,.0f} nodes/game" if depth > 1 else ""
            results.append(Measurement(f"{spec} self-play, {'heuristic table' if name == 'table' else 'network'}",
                                       "games/s", statistics.median(runs), runs, detail=detail))
    return results


#: The endgame rows: positions this many empty squares from the end of seeded games, and how many.
ENDGAME_EMPTIES = 18
ENDGAME_POSITIONS = 24
#: The FFO sets of the endgame rows (numbers, first to last) and their time targets in seconds, one core.
FFO_SETS = {(1, 39): 90.0, (40, 44): 60.0}
#: Each FFO set's positions searched before the search ordered its moves by the engine evaluation (exact,
#: whatever the machine; a time from another day would not compare: docs/search.md has the times side by side).
FFO_BEFORE = {(1, 39): 2_088_017_513, (40, 44): 723_466_060}


@dataclass(frozen=True)
class FfoPosition:
    """A position of the FFO endgame test set, with its published best moves and score (None: not published)."""

    number: int
    board: Board
    best_moves: frozenset[str]  # a1-h8
    score: int | None


def read_ffo(paths: Sequence[Path]) -> list[FfoPosition]:
    """Returns the FFO positions of ``paths``, in order: Edax's ``.obf`` files as its repository publishes them
    (``problem/fforum-1-19.obf``, ``fforum-20-39.obf``, ...), or a CSV (columns number, board, to_move,
    best_moves, best_score).

    An ``.obf`` line is a position, then each move's published score
    (``...-- X; G8:+18; H1:+12; ...``); the best moves are those of the best
    score. Its positions are numbered from the first number of the file's
    name (``fforum-20-39.obf``: #20 on), else on from the file before.

    :raises ValueError: naming the file and line of what cannot be read.
    """
    positions: list[FfoPosition] = []
    for path in paths:
        if path.suffix.lower() == ".csv":
            with path.open(newline="", encoding="utf-8") as handle:
                try:
                    positions += [FfoPosition(int(row["number"]), Board.from_text(f"{row['board']} {row['to_move']}"),
                                              frozenset(move.lower() for move in row["best_moves"].split("|")),
                                              int(row["best_score"])) for row in csv.DictReader(handle)]
                except (KeyError, ValueError, TypeError) as error:
                    raise ValueError(f"'{path}' is not an FFO CSV (number, board, to_move, best_moves, best_score): "
                                     f"{error}") from None
            continue
        named = re.search(r"(\d+)-\d+\.obf$", path.name, re.IGNORECASE)
        number = int(named.group(1)) if named else (positions[-1].number + 1 if positions else 1)
        for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            position, *published = [field.strip() for field in line.split(";")]
            if not position:
                continue
            try:
                board = Board.from_text(position)
                scores = {field.split(":")[0].lower(): int(field.split(":")[1]) for field in published if field}
            except (ValueError, IndexError) as error:
                raise ValueError(f"'{path}', line {line_number}: not a position with its moves' scores "
                                 f"(\"...-- X; G8:+18; H1:+12\"): {error}") from None
            best = max(scores.values(), default=None)
            positions.append(FfoPosition(number, board, frozenset(m for m, v in scores.items() if v == best), best))
            number += 1
    return positions


def ffo_sets(positions: Sequence[FfoPosition], quick: bool = False) -> list[tuple[int, int, float | None]]:
    """Returns the FFO rows to measure: each set of FFO_SETS whose positions are all given (``quick``: #1-#19
    only), with its time target; without any, one row of every position given, without a target."""
    numbers = {position.number for position in positions}
    sets = {(1, 19): None} if quick else FFO_SETS
    complete = [(first, last, target) for (first, last), target in sets.items()
                if set(range(first, last + 1)) <= numbers]
    if complete or quick or not numbers:
        return complete
    return [(min(numbers), max(numbers), None)]


def endgame_positions(empties: int, count: int) -> list[Board]:
    """Returns ``count`` positions ``empties`` empty squares from the end of seeded games (1-ply heuristic, eps 0.2)."""
    player = Player("nhand_custom", 1, TABLES["heuristic"], 0.2)
    boards = []
    seed = 0
    while len(boards) < count:
        board = Board()
        while board.empty_count() > empties and not board.is_game_over():
            board.push(player.choose(board, seed * 64 + board.empty_count()) if board.legal_moves() else PASS)
        if board.empty_count() == empties and board.legal_moves():
            boards.append(board)
        seed += 1
    return boards


def endgame_rate(boards: Sequence[Board], repeat: int, name: str) -> Measurement:
    """Measures the endgame search on ``boards`` (value and every best move) in positions visited per second."""
    solver = EndgameSolver()
    seconds = []

    def work() -> int:
        solutions = [solver.solve(board) for board in boards]
        seconds.append(sum(s.seconds for s in solutions))
        return sum(s.nodes for s in solutions)

    median, runs = _median_rate(work, repeat)
    return Measurement(name, "nodes/s", median, runs,
                       detail=f"{median * statistics.median(seconds) / 1e6:,.1f} M nodes, {statistics.median(seconds):.2f} s")


def ffo_time(positions: Sequence[FfoPosition], first: int, last: int, target: float | None) -> Measurement:
    """Measures the endgame search on FFO positions first..last, once, in seconds; says any not solved as published."""
    chosen = [p for p in positions if first <= p.number <= last]
    solver = EndgameSolver()
    nodes, seconds, wrong = 0, 0.0, []
    for position in chosen:
        solution = solver.solve(position.board)
        nodes += solution.nodes
        seconds += solution.seconds
        names = {square_name(move) for move in solution.best_moves}
        if position.score is not None and (solution.score != position.score or names != position.best_moves):
            wrong.append(f"#{position.number}")
    verdict = f", WRONG: {' '.join(wrong)}" if wrong else ""
    before = FFO_BEFORE.get((first, last))
    against = "" if before is None else f"; before {before / 1e6:,.0f} M nodes ({nodes / before:.2f}x the nodes)"
    return Measurement(f"endgame FFO #{first}-#{last}", "s", seconds, [seconds], target, lower_is_better=True,
                       detail=f"{nodes / 1e6:,.0f} M nodes, {nodes / seconds / 1e6:.1f} M nodes/s{against}{verdict}")


#: The loop's budget: a whole run at most this many times its games (played in one batch) plus start-up.
LOOP_TARGET = 1.5
#: The blog's own C++ program running the same experiment (seed2021.toml, its figures drawn by it too), in
#: seconds on the development machine (the program is not part of this repository), and how many times faster
#: the whole run is to be.
BLOG_SECONDS = 10.8
BLOG_TARGET = 10.0
#: The time targets of the command line's fixed cost, in seconds: its help, and show of a run.
HELP_TARGET = 0.3
SHOW_TARGET = 0.5


def command_times(commands: dict[str, tuple[Callable[[], None], float | None]], repeat: int) -> list[Measurement]:
    """Measures each command of ``commands`` (its name: what runs it from a fresh process, and its target in
    seconds or None), taking them in turn ``repeat`` times; the medians."""
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (work, _) in commands.items():
            started = time.perf_counter()
            work()
            seconds[name].append(time.perf_counter() - started)
    return [Measurement(name, "s", statistics.median(runs), runs, commands[name][1], lower_is_better=True)
            for name, runs in seconds.items()]


def loop_overhead(name: str, run: Callable[[], None], games: Callable[[], int], startup: Callable[[], None],
                  repeat: int, judge: bool = True) -> list[Measurement]:
    """Measures a whole run from a fresh process, the same games in one batch, and the tool's start-up, interleaved.

    The three are taken in turn ``repeat`` times so that the machine's drift
    falls on all of them alike; the ratio line compares the run with the other two
    (against LOOP_TARGET when ``judge``: not for sizes too small to mean it).
    """
    seconds: dict[str, list[float]] = {"run": [], "games": [], "startup": []}
    played = 0
    for _ in range(repeat):
        for what, work in (("startup", startup), ("games", games), ("run", run)):
            started = time.perf_counter()
            result = work()
            seconds[what].append(time.perf_counter() - started)
            if what == "games":
                played = int(result or 0)
    names = {"run": f"{name}: whole run", "games": f"{name}: {played:,} games, one batch",
             "startup": "start-up: othello-ga --version"}
    medians = {what: statistics.median(runs) for what, runs in seconds.items()}
    budget = LOOP_TARGET * (medians["games"] + medians["startup"]) if judge else None
    return [Measurement(names[what], "s", medians[what], runs, budget if what == "run" else None, lower_is_better=True)
            for what, runs in seconds.items()]


def loop_ratio(results: list[Measurement]) -> str | None:
    """Returns the line comparing a whole run with its games plus start-up, or None without those rows."""
    run = next((m for m in results if m.name.endswith(": whole run")), None)
    games = next((m for m in results if m.name.endswith(" games, one batch")), None)
    startup = next((m for m in results if m.name.startswith("start-up: ")), None)
    if run is None or games is None or startup is None:
        return None
    ratio = run.median / (games.median + startup.median)
    verdict = (" (not judged: a run this short is mostly its start and its figures)" if run.target is None else
               f" (target {LOOP_TARGET:g}x: {'met' if ratio <= LOOP_TARGET else 'NOT met'})")
    return f"ratio whole run / (its games + start-up): {ratio:.2f}x{verdict}"


#: A network run's budget: what each generation after the first costs the whole run in CPU time at most this many
#: times what its games and its TD step's self-play games cost the engine, so that the loop's own cost per game
#: stays within a tenth of the engine's.
NETWORK_LOOP_TARGET = 1.1

#: What a network loop row's callable returns for a number of generations: the CPU seconds it took and the games
#: it played (the TD step's self-play games included).
CpuWork = Callable[[int], tuple[float, int]]


def network_loop_overhead(name: str, run: CpuWork, engine: CpuWork, generations: int, repeat: int,
                          judge: bool = True) -> list[Measurement]:
    """Measures a network run's cost per game outside the engine, in CPU seconds: whole runs from a fresh
    process of ``generations`` generations and of one, and the engine's work of the same generations' games
    and TD self-play (played in this process), interleaved ``repeat`` times.

    The one-generation run is the run's fixed cost (its start-up, imports, layout, files at the end), and the
    first generation's engine work is measured apart, so that the ratio line compares what the later
    generations cost the run with what they cost the engine. CPU time rather than the clock: on a machine
    shared with other work a process's own seconds are what it spent. The run plays on one thread (the
    experiment's workers = 1), so its CPU time is its work.
    """
    keys = ("run", "one", "engine", "first")
    seconds: dict[str, list[float]] = {key: [] for key in keys}
    games = dict.fromkeys(keys, 0)
    for _ in range(repeat):
        for key, work, count in (("one", run, 1), ("first", engine, 1), ("engine", engine, generations),
                                 ("run", run, generations)):
            cpu, played = work(count)
            seconds[key].append(cpu)
            games[key] = played
    names = {"run": f"{name}: whole run, {generations:,} generations (CPU)",
             "one": f"{name}: whole run, 1 generation (CPU)",
             "engine": f"{name}: {games['engine']:,} games, engine (CPU)",
             "first": f"{name}: {games['first']:,} games of generation 0, engine (CPU)"}
    medians = {key: statistics.median(runs) for key, runs in seconds.items()}
    budget = medians["one"] + NETWORK_LOOP_TARGET * (medians["engine"] - medians["first"]) if judge else None
    per_game = {key: f"{1e6 * medians[key] / games[key]:.0f} us a game" for key in ("engine", "first") if games[key]}
    return [Measurement(names[key], "CPU s", medians[key], seconds[key], budget if key == "run" else None,
                        lower_is_better=True, detail=per_game.get(key, "")) for key in keys]


def network_loop_ratio(results: list[Measurement]) -> str | None:
    """Returns the line comparing a network run's cost per game outside the engine with the engine's own, or
    None without those rows."""
    found = {}
    for m in results:
        for key, ending in (("run", " generations (CPU)"), ("one", ": whole run, 1 generation (CPU)"),
                            ("engine", " games, engine (CPU)"), ("first", " games of generation 0, engine (CPU)")):
            if m.name.endswith(ending) and key not in found and not (key == "run" and ", 1 generation" in m.name) \
                    and not (key == "engine" and "generation 0" in m.name):
                found[key] = m
    if len(found) < 4:
        return None

    def games(m: Measurement) -> int:
        return int(m.name.rsplit(": ", 1)[1].split()[0].replace(",", ""))

    later = games(found["engine"]) - games(found["first"])
    engine = (found["engine"].median - found["first"].median) / max(later, 1)
    outside = (found["run"].median - found["one"].median) / max(later, 1) - engine
    share = outside / engine if engine > 0 else float("inf")
    verdict = (f" (target {NETWORK_LOOP_TARGET - 1:.0%}: {'met' if share <= NETWORK_LOOP_TARGET - 1 else 'NOT met'})"
               if found["run"].target is not None else " (not judged at --quick's sizes)")
    return (f"network run, each generation after the first: {1e6 * outside:.1f} us a game outside the engine, "
            f"{share:.1%} of the engine's {1e6 * engine:.0f} us{verdict}")


def blog_ratio(results: list[Measurement]) -> str | None:
    """Returns the line comparing the blog's C++ program's time (BLOG_SECONDS) with the whole run, or None without
    a judged whole run (--quick's 20 generations are not the experiment)."""
    run = next((m for m in results if m.name.endswith(": whole run")), None)
    if run is None or run.target is None:
        return None
    ratio = BLOG_SECONDS / run.median
    # The program is not here to run beside the run, so this is no same-minutes ratio, and the line says so.
    return (f"ratio the blog's C++ program ({BLOG_SECONDS:g} s, measured on another day) / whole run: {ratio:.1f}x "
            f"(target {BLOG_TARGET:g}x in the same minutes: {'met' if ratio >= BLOG_TARGET else 'NOT met'} by this "
            f"estimate)")


#: The groups of rows ``bench --only`` picks from; the loop's rows are run by the command line.
GROUPS = ("engine", "search", "patterns", "endgame", "loop")


def measure(quick: bool = False, repeat: int = 5, groups: Sequence[str] = GROUPS,
            ffo: Sequence[FfoPosition] = (), network: Evaluation | None = None) -> Iterator[Measurement]:
    """Runs the benchmarks of ``groups``, yielding each measurement as soon as it is taken (``quick``: small sizes).

    ``ffo`` (FFO positions, :func:`read_ffo`) adds the endgame rows of the
    FFO sets (:func:`ffo_sets`): each solved once, single-threaded, checked
    against the published scores and moves. ``network`` (an evaluation with
    a pattern network) adds the pattern rows.
    """
    scale = 20 if quick else 1
    table = TABLES["heuristic"]
    custom = Player("nhand_custom", 1, table)
    random_player = Player("random")
    if "engine" in groups:
        for depth in (8, 9) if quick else (10,):
            yield perft_rate(depth, repeat)
        if not quick:
            yield perft_time(11, target=1.0)
        yield games_rate(random_player, random_player, 200_000 // scale, repeat, "random vs random", 350_000)
        yield games_rate(custom, random_player, 100_000 // scale, repeat, "nhand_custom:1 vs random", 100_000)
        yield games_rate(custom, Player("nhand", 2), 20_000 // scale, repeat, "nhand_custom:1 vs nhand:2", 30_000)
        yield games_rate(custom, Player("nmost", 1), 20_000 // scale, repeat, "nhand_custom:1 vs nmost:1", None)
        # A population-64 generation of 64 games each, on one thread and on every core.
        individuals = 4 if quick else 64
        yield generation_rate(1, individuals, repeat)
        yield generation_rate(max(os.cpu_count() or 1, 2), individuals, repeat)
        yield naive_rate(None, 200 // scale, 3, "naive Python: random vs random")
        yield naive_rate(table, 100 // scale, 3, "naive Python: nhand_custom:1 vs random")
    if "search" in groups:
        for depth, games in SEARCH_GAMES.items():
            if quick and depth > 4:
                break
            yield from search_rates(depth, max(1, games // scale) if quick else games, 1 if quick else max(3, repeat))
    if "search" in groups:
        yield from feature_rates(max(1, 120 // scale), 1 if quick else max(3, repeat))
    if "patterns" in groups and network is not None:
        games = {depth: max(1, count // scale) for depth, count in PATTERN_GAMES.items()}
        yield from pattern_rates(network, games, 1 if quick else max(3, repeat))
    if "endgame" in groups:
        empties = 12 if quick else ENDGAME_EMPTIES
        yield endgame_rate(endgame_positions(empties, ENDGAME_POSITIONS), 1 if quick else repeat,
                           f"endgame, {ENDGAME_POSITIONS} positions at {empties} empty")
        for first, last, target in ffo_sets(ffo, quick):
            yield ffo_time(ffo, first, last, target)


def run_benchmarks(quick: bool = False, repeat: int = 5, groups: Sequence[str] = GROUPS,
                   ffo: Sequence[FfoPosition] = (), network: Evaluation | None = None) -> list[Measurement]:
    """Runs the benchmarks of ``groups`` and returns the measurements."""
    return list(measure(quick, repeat, groups, ffo, network))


HEADER = f"{'benchmark':40} {'median':>14} {'unit':9} {'target':>10}  ok   {'spread':>6}  {'also':>16}"


def row(m: Measurement) -> str:
    """Returns the table row of one measurement: its median, target and verdict, and the spread of its runs
    (half their range, in percent of the median; blank for one run)."""
    if m.target is None:
        target = "-"
    elif m.lower_is_better:
        target = f"<= {m.target:.3g}"
    else:
        target = f"{m.target:,.0f}"
    ok = {None: "", True: "yes", False: "NO"}[m.meets_target]
    value = f"{m.median:14.3f}" if m.lower_is_better else f"{m.median:14,.0f}"
    spread = f"±{spread_percent(m.runs):.0f}%" if len(m.runs) > 1 and m.median else ""
    return f"{m.name:40} {value} {m.unit:9} {target:>10}  {ok:3}  {spread:>6}  {m.detail:>16}".rstrip()


def spread_percent(runs: Sequence[float]) -> float:
    """Returns half the range of repeated runs in percent of their median: how far one run may stray.

    >>> spread_percent([90.0, 100.0, 110.0])
    10.0
    """
    return 50.0 * (max(runs) - min(runs)) / statistics.median(runs)


#: The load average (1 minute, per core) above which the machine counts as busy: another job had about
#: half a core or more, and every figure, above all the threaded ones, is slowed by it.
BUSY_LOAD_PER_CORE = 0.25


def machine_load(load: float, cores: int) -> str:
    """Returns the line that says how busy the machine was before the first row (bench's own work not yet in it).

    >>> machine_load(0.12, 2)
    'load average 0.12 on 2 cores before the first row: quiet'
    """
    if load <= BUSY_LOAD_PER_CORE * cores:
        return f"load average {load:.2f} on {cores} cores before the first row: quiet"
    return (f"load average {load:.2f} on {cores} cores before the first row: BUSY, other work takes cores from "
            "these measurements: rates come out low, ratios of threads off, and no verdict below holds; run "
            "bench on a quiet machine")


def ratios(results: list[Measurement], judge: bool = True) -> list[str]:
    """Returns the ratio lines: engine against naive Python, threads against one, the search against the plain one
    (against its target only when ``judge``: --quick's few games tell nothing about it)."""
    lines = []
    by_name = {m.name: m for m in results}
    for engine_name, naive_name in (("random vs random", "naive Python: random vs random"),
                                    ("nhand_custom:1 vs random", "naive Python: nhand_custom:1 vs random")):
        if engine_name in by_name and naive_name in by_name:
            ratio = by_name[engine_name].median / by_name[naive_name].median
            lines.append(f"ratio engine / naive Python, {engine_name}: {ratio:,.0f}x")
    threaded = [m for m in results if m.name.startswith("generation, ")]
    if len(threaded) == 2:
        threads = threaded[1].name.split()[1]
        lines.append(f"ratio {threaded[1].name} / {threaded[0].name}: {threaded[1].median / threaded[0].median:.2f}x "
                     f"(the same games; {threads}x if every thread had a core of its own)")
    for depth in SEARCH_GAMES:
        fast, plain = by_name.get(f"alphabeta:{depth}"), by_name.get(f"alphabeta:{depth} plain")
        if fast is None or plain is None:
            continue
        # Each pair ran back to back, so its ratio is free of the drift between pairs: the median of them.
        pairs = [f / p for f, p in zip(fast.runs, plain.runs)]
        ratio = statistics.median(pairs)
        spread = f", {len(pairs)} pairs {min(pairs):.2f}-{max(pairs):.2f}x" if len(pairs) > 1 else ""
        target = SEARCH_TARGETS.get(depth)
        verdict = "" if target is None else (f" (target {target:g}x: {'met' if ratio >= target else 'NOT met'})"
                                             if judge else f" (target {target:g}x: not judged at --quick's sizes)")
        lines.append(f"ratio alphabeta:{depth} / plain search, same games: {ratio:.2f}x{spread}{verdict}")
    alone = next((m for m in results if m.name == f"alphabeta:{FEATURE_DEPTH}, squares alone"), None)
    weighed = next((m for m in results if m.name.startswith(f"alphabeta:{FEATURE_DEPTH}, + ")), None)
    if alone is not None and weighed is not None:
        pairs = [f / t for f, t in zip(weighed.runs, alone.runs)]
        ratio = statistics.median(pairs)
        verdict = ("met" if ratio >= FEATURE_TARGET else "NOT met") if judge else "not judged at --quick's sizes"
        spread = f", {len(pairs)} pairs {min(pairs):.2f}-{max(pairs):.2f}x" if len(pairs) > 1 else ""
        lines.append(f"ratio squares {weighed.name.split(', ')[1]} / squares alone, alphabeta:{FEATURE_DEPTH} self-play: "
                     f"{ratio:.2f}x{spread} (target {FEATURE_TARGET:g}x: {verdict})")
    for depth in PATTERN_GAMES:
        spec = f"{'wpc' if depth == 1 else 'alphabeta'}:{depth}"
        table, network = by_name.get(f"{spec} self-play, heuristic table"), by_name.get(f"{spec} self-play, network")
        if table is None or network is None:
            continue
        pairs = [n / t for n, t in zip(network.runs, table.runs)]
        ratio = statistics.median(pairs)
        verdict = ("met" if ratio >= PATTERN_TARGET else "NOT met") if judge else "not judged at --quick's sizes"
        spread = f", {len(pairs)} pairs {min(pairs):.2f}-{max(pairs):.2f}x" if len(pairs) > 1 else ""
        lines.append(f"ratio network / heuristic table, {spec} self-play games/s: {ratio:.2f}x{spread} "
                     f"(target {PATTERN_TARGET:g}x: {verdict})")
    loop = loop_ratio(results)
    if loop is not None:
        lines.append(loop)
    network_loop = network_loop_ratio(results)
    if network_loop is not None:
        lines.append(network_loop)
    blog = blog_ratio(results)
    if blog is not None:
        lines.append(blog)
    return lines


def report(results: list[Measurement]) -> str:
    """Returns the whole benchmark table with its ratio lines."""
    return "\n".join([HEADER, *(row(m) for m in results), *ratios(results)])

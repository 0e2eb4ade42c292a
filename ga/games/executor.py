"""The one place that plays batches of games: on this process's threads, or on a Dask cluster.

A batch is a :class:`~ga.games.plan.GamePlan` with its table players'
weights and settings and its opponents' labels: plain data, so that it can
be sent to a cluster. Locally, threads share one engine plan
(:class:`engine._players.SharedPlan`): each takes the next unplayed game with
the GIL released, so none waits while games are left and nothing is pickled.
On a cluster the plan goes out in tasks of similar measured cost. Every game
has its own seed and its result its own slot, so results never depend on who
plays which game.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import Player, PlayerSpec, build_player, parse_spec, stop_work
from engine._patterns import PatternLayout, PatternTables
from engine._players import SharedPlan, play_plan
from ga.games.failures import WorkersLost
from ga.games.plan import MEMBER_LABELS, GamePlan, split

__all__ = [
    "CHEAPEST_GAME_SECONDS", "DASK_BATCHES_PER_WORKER", "SHARE_CHUNK", "Batch", "GameMap", "TablePlayer", "WorkersLost",
    "check_opponents", "game_map", "opponent_costs", "opponent_player", "opponent_spec", "play_here", "play", "play_batch", "play_share", "shared_plan",
]

SHARE_CHUNK = 64  # games the calling thread plays between two looks at its signals
# A batch whose games take less than this (by the measured costs) is played by the calling thread
# alone: handing games to a pool thread and waiting for it (about 0.1 ms) costs more than a small
# batch gains. Above it the pool thread plays while this one does the work between generations.
# The measured costs are the fastest of three timings, about half of what a run's games take: 16
# games of seed2021.toml (0.3 ms by them) gained nothing from sharing, its 32 (0.6 ms) did.
SHARE_MIN_SECONDS = 0.0005
# A floor under the cost of a table player's game (1 ply against the random mover takes about 10 µs
# here; a core 2.5 times faster would take 4 µs): a batch of more games than
# SHARE_MIN_SECONDS / CHEAPEST_GAME_SECONDS is shared without measuring what its games cost.
CHEAPEST_GAME_SECONDS = 4e-6
# Tasks per Dask worker thread, of similar measured cost: each task costs a
# scheduler round trip (docs/cluster.md has the measurements).
DASK_BATCHES_PER_WORKER = 1

#: The settings of a batch's table players: kind, depth, eps, phase_move, end, and the features their rows
#: weigh after the squares.
TablePlayer = tuple[str, int, float, int, int, tuple[str, ...]]

#: ``(map, parts, shared)``: a map over worker tasks, how many parts to give it,
#: and whether its workers are threads of this process that share the games.
GameMap = tuple[Callable[..., Iterable[Any]], int, bool]


@dataclass
class Batch:
    """Games to play, as plain, picklable data."""

    player: TablePlayer
    tables: np.ndarray  # the table players' weights, one row each
    labels: list[str]  # the opponents' labels: player specs, or MEMBER_LABELS for rows of the tables
    plan: GamePlan
    first: Player | None = None  # a player that plays every game instead of a table's (the tables are then members)
    opponents: list[Player | None] | None = None  # the opponents themselves (default: built from the labels)
    networks: list[PatternTables | None] | None = None  # per table row: a pattern network its players add
    # With a network's rows (a network's run): its structure, and each row ends in its weights (pickled by shape).
    layout: PatternLayout | None = None


# --- opponents ------------------------------------------------------------------

_OPPONENTS: dict[str, Player] = {}


def opponent_player(label: str) -> Player | None:
    """Returns the engine player of an opponent label (None for a member label), built once per process.

    A weights file named by a spec is read only once.
    """
    if label in MEMBER_LABELS:
        return None
    if label not in _OPPONENTS:
        from ga.weights import load_evaluation

        _OPPONENTS[label] = build_player(label, load_weights=load_evaluation)
    return _OPPONENTS[label]


def opponent_spec(text: str, eps: float | None) -> PlayerSpec:
    """Returns an opponent's spec, its ``eps`` replaced when one is given.

    :raises ValueError: for a bad spec, or a human (who cannot be an opponent of games played in C).
    """
    spec = parse_spec(text)
    if spec.kind == "human":
        raise ValueError(f"opponent {text!r}: the human player is interactive; it cannot be an opponent")
    return dataclasses.replace(spec, eps=eps) if eps is not None else spec


def check_opponents(labels: Sequence[str]) -> None:
    """Builds every opponent once (reading weights files), raising their errors now rather than mid-run."""
    for label in labels:
        opponent_player(label)


# --- playing --------------------------------------------------------------------


def shared_plan(batch: Batch) -> SharedPlan:
    """Returns the engine's plan of a batch's games, ready for any number of threads to play."""
    kind, depth, eps, phase_move, end, features = batch.player
    plan = batch.plan
    opponents = batch.opponents if batch.opponents is not None else [opponent_player(label) for label in batch.labels]
    return SharedPlan(kind, depth, eps, phase_move, batch.tables, opponents, plan.individual, plan.opponent,
                      plan.member, plan.seeds, plan.colours, plan.depth, batch.first, end, features, batch.networks,
                      batch.layout)


def play(batch: Batch) -> np.ndarray:
    """Plays a batch's games in this thread and returns the table player's disc difference in each."""
    games = shared_plan(batch)
    games.play()
    return games.result


def play_share(games: SharedPlan) -> int:
    """Plays games of a shared plan until none is left (one worker thread's share)."""
    return games.play()


def _start_share(games: SharedPlan, started: threading.Semaphore) -> int:
    """A pool thread's task: says it has started, then plays its share (:func:`play_share`)."""
    started.release()
    return play_share(games)


def play_batch(batch: Batch, map_function: Callable[..., Iterable[Any]], parts: int, *,
               shared: bool = False, costs: np.ndarray | None = None,
               while_playing: Callable[[], None] | None = None) -> np.ndarray:
    """Plays a batch's games through ``map_function`` and returns the disc differences in plan order.

    With ``shared`` (``map_function`` runs threads of this process) ``parts``
    threads play one :class:`~engine._players.SharedPlan`, each taking the
    next unplayed game, so no thread waits while games are left: ``parts - 1``
    of the pool's, and this one once ``while_playing`` has returned. Otherwise
    (tasks for other processes) the plan goes out in up to ``parts`` batches
    of similar cost (see :func:`ga.games.plan.split`). ``costs`` (seconds a
    game against each opponent label) also keeps a small shared batch in this
    thread alone. The results are the same either way. ``while_playing`` is called once, after the games are handed
    out and before they are awaited: the workers play while this thread works (this thread plays
    until the pool threads have started their games).
    """
    if len(batch.plan) == 0:
        if while_playing is not None:
            while_playing()
        return np.zeros(0, dtype=np.int32)
    if shared and parts > 1 and costs is not None and float(costs[batch.plan.opponent].sum()) < SHARE_MIN_SECONDS:
        parts = 1  # too small to gain from threads (see SHARE_MIN_SECONDS)
    if shared:
        games = shared_plan(batch)
        try:
            return _play_shared(games, map_function, parts, while_playing)
        except BaseException:
            # Ctrl-C here (or a failure) ends the batch: the pool's threads take no more games and stop the one
            # they play, rather than play the rest of a generation that is void.
            games.abandon()
            stop_work()
            raise
    pieces = [dataclasses.replace(batch, plan=part) for part in split(batch.plan, parts, costs)]
    results = map_function(play, pieces)
    if while_playing is not None:
        while_playing()
    return np.concatenate(list(results))  # a cluster's map says itself what was lost (ga.games.cluster.ClusterLost)


def _play_shared(games: SharedPlan, map_function: Callable[..., Iterable[Any]], parts: int,
                 while_playing: Callable[[], None] | None) -> np.ndarray:
    """Plays a shared plan on ``parts`` threads, this one included (see :func:`play_batch`)."""
    started = threading.Semaphore(0)
    results = map_function(_start_share, [games] * (parts - 1), [started] * (parts - 1))  # submits at once
    # Once in the engine a pool thread plays without the GIL; until then it needs the GIL that this
    # thread's own work would hold. So this thread plays, a game at a time (which frees the GIL),
    # until the pool threads have started.
    waiting = parts - 1 if while_playing is not None else 0
    while waiting and games.play(1):
        while waiting and started.acquire(blocking=False):
            waiting -= 1
    if while_playing is not None:
        while_playing()
    # A few games at a time: between calls Python runs its signal handlers (the engine also runs them
    # within long games).
    while games.play(SHARE_CHUNK):
        pass
    try:
        list(results)
    except Exception as error:  # not Interrupted (a KeyboardInterrupt): a stop is no lost worker
        detail = " ".join(f"{type(error).__name__}: {error}".split())
        raise WorkersLost(f"a worker thread failed during a generation ({detail})") from error
    return games.result


@contextmanager
def game_map(workers: int, backend: str = "local", address: str = "") -> Iterator[GameMap]:
    """Yields the map that plays batches, how many parts to give it, and whether it shares the games.

    The local pool is threads: the engine plays with the GIL released, so
    threads run in parallel without pickling, and sharing one plan none waits
    while games are left (a process pool measured slower, and its workers can
    be lost in ways multiprocessing does not survive). The pool has
    ``workers - 1`` threads: the calling thread plays too, once it has done
    its own work (see :func:`play_batch`). ``backend = "dask"`` sends every
    batch to the Dask cluster at ``address`` (``local[:N]``: an in-process
    one). Results are the same in every case.
    """
    if backend == "dask":
        from ga.games import cluster  # dask is optional: imported only when used

        with cluster.connect(address, workers) as client:
            yield cluster.cluster_map(client), DASK_BATCHES_PER_WORKER * cluster.worker_threads(client), False
        return
    if workers == 1:
        yield map, 1, True
        return
    with ThreadPoolExecutor(workers - 1, thread_name_prefix="othello-ga") as executor:
        yield executor.map, workers, True


def play_here(batch: Batch, workers: int, cuts: Sequence[int] = (),
              on_played: Callable[[int, np.ndarray], None] | None = None) -> np.ndarray:
    """Plays a batch on ``workers`` threads of this process (sharing its games) and returns the disc differences.

    ``cuts`` (positions in the plan) plays it in consecutive pieces that end
    there, on the same threads, and ``on_played(end, results)`` is called
    after each with the results so far (``results[:end]``): a caller's
    progress, and rows that are complete. The results are the same whatever
    the cuts (each game has its own seed).
    """
    results = np.zeros(len(batch.plan), dtype=np.int32)
    start = 0
    with game_map(max(1, workers)) as (map_function, parts, shared):
        for end in sorted({int(cut) for cut in cuts if 0 < cut < len(batch.plan)} | {len(batch.plan)}):
            piece = batch if (start, end) == (0, len(batch.plan)) else \
                dataclasses.replace(batch, plan=batch.plan.subset(slice(start, end)))
            results[start:end] = play_batch(piece, map_function, parts, shared=shared)
            if on_played is not None:
                on_played(end, results)
            start = end
    return results


def all_cores() -> int:
    """Returns the number of cores of this machine (at least 1)."""
    return os.cpu_count() or 1


def opponent_costs(player: TablePlayer, labels: Sequence[str], table_width: int,
                   layout: PatternLayout | None = None, games: int = 32) -> np.ndarray:
    """Returns the measured seconds a game takes against each opponent label.

    Opponents differ tenfold in cost (nmost:1 against random), so batches of
    equal game counts can keep one worker busy long after the other. Used
    only to place the batch boundaries: no result depends on these timings.
    Each label plays 4 and then 4 + ``games`` games (the fastest of three
    tries); the difference leaves out the fixed cost of a call. With a network's ``layout`` the table's
    row ends in its weights (``table_width`` counts them).
    """
    kind, depth, eps, phase_move, end, features = player
    table = np.random.default_rng(0).uniform(-1, 1, size=(1, table_width))
    if layout is not None:
        table[:, table_width - layout.n_weights:] *= 0.01  # a network of weights as small as evolution starts from

    def timed(index: int, count: int) -> float:
        opponents: list[Player | None] = [None] * len(labels)
        opponents[index] = opponent_player(labels[index])
        seeds = np.arange(count, dtype=np.uint64)
        started = time.perf_counter()
        play_plan(kind, depth, eps, phase_move, table, opponents, np.zeros(count, np.int32),
                  np.full(count, index, np.int32), np.zeros(count, np.int32), seeds,
                  (np.arange(count) % 2).astype(np.uint8), end=end, features=features, layout=layout)
        return time.perf_counter() - started

    # The fastest of three timings, and a floor of a tenth of the median: another
    # job on the machine must not make an opponent look free.
    costs = np.array([
        (min(timed(i, 4 + games) for _ in range(3)) - min(timed(i, 4) for _ in range(3))) / games
        for i in range(len(labels))
    ])
    return np.maximum(costs, 0.1 * statistics.median(costs) + 1e-9)  # statistics: np.median imports numpy.ma

"""Evaluating a weight table (or any player) against fixed opponents.

Three protocols:

- ``plain``: the player and the opponents as given (``eps`` overrides both
  players' exploration if given).
- ``league``: the Othello League protocol of the literature (Lucas & Runarsson
  2006, Szubert et al. 2011): both players 1-ply, each playing a uniformly random
  legal move with probability 0.1 before each move, both colours, a draw scoring
  1/2. The default opponent is WPC-H (``wpc:1@heuristic``).
- ``eu``: "expected utility": the score against ``games`` tables drawn uniformly
  from U(-1, 1), each played once with each colour, no exploration; one
  :class:`~ga.analysis.stats.MatchSummary` labelled :data:`EU_LABEL`.

Game ``i`` against an opponent gives the evaluated player black when ``i`` is
even and white when odd. Its seed is a splitmix64 hash of ``(seed, opponent
index, i)``, computed before the games are split among threads, so the results
do not depend on ``workers``. This module plays games and returns numbers; it
prints nothing and opens only the weights files that player specs name.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine import Player, PlayerSpec, build_player, parse_spec, record_game
from engine.evaluation import Evaluation
from engine.patterns import compiled
from engine.kinds import KINDS
from engine.players import DEFAULT_PHASE_MOVE, is_path
from ga.analysis.stats import MatchSummary
from ga.config import Config
from ga.games.executor import Batch, opponent_spec, play_here
from ga.games.plan import RANDOM_TABLE, GamePlan
from ga.games.seeds import game_seeds, random_tables
from ga.ggf import GameRecord
from ga.rundir.reader import read_config
from ga.weights import load_evaluation, range_problem

__all__ = [
    "EvaluationProgress",
    "check_evaluation",
    "EU_LABEL",
    "LEAGUE_EPS",
    "LADDER_DEPTHS",
    "LADDER_TABLES",
    "MAX_GAMES",
    "LEAGUE_OPPONENT",
    "PROTOCOLS",
    "evaluate_player",
    "ladder",
    "like_for_like",
    "protocol_opponents",
    "record_games",
    "trained_on_random_tables",
    "training_overlap",
]

PROTOCOLS = ("plain", "league", "eu", "ladder")
#: The most games (or eu tables) per opponent one evaluation plays: beyond it the plan alone outgrows memory.
MAX_GAMES = 100_000_000
LEAGUE_EPS = 0.1
LEAGUE_OPPONENT = "wpc:1@heuristic"
#: The published tables the ladder plays at every depth, and its default depths.
LADDER_TABLES = ("heuristic", "lr06", "sjk11", "classic")
LADDER_DEPTHS = (1, 2, 3, 4)
EU_LABEL = "eu(random U(-1,1) tables)"

PlayerSource = str | npt.ArrayLike | Evaluation


class EvaluationProgress:
    """What an evaluation tells as it plays (this one: nothing); ``othello-ga evaluate`` draws a bar and prints
    each row as it completes.

    ``in_pieces``: whether the games are played in pieces so that it hears of them as they go (a listener that
    hears nothing, as a study's scoring, has them played in one batch, as before progress was told).
    """

    in_pieces = False

    def start(self, rows: Sequence[str], games: int) -> None:
        """The evaluation starts: the labels of its rows, in order, and the games it will play (replays included)."""

    def played(self, games: int) -> None:
        """``games`` more games were played (or replayed for their records)."""

    def row(self, summary: MatchSummary) -> None:
        """A row is complete: every game against its opponent played."""


#: Games a row is played in at most this many pieces of (at least _LEAST_PIECE games each), for its progress.
_PIECES = 20
_LEAST_PIECE = 256

# The table players of an evaluation's plan: the random tables of eu (1-ply, eps 0); otherwise none play.
_NO_TABLES = ("nhand_custom", 1, 0.0, 40, 0, ())


# ---------------------------------------------------------------- players


def _player_spec(
    player: PlayerSource, eps: float | None
) -> tuple[PlayerSpec, npt.NDArray[np.float64] | Evaluation | None]:
    """Returns the spec of the evaluated player and its weights if given as numbers (or as an evaluation)."""
    if isinstance(player, str):
        spec = parse_spec(player)
        weights = None
    elif isinstance(player, Evaluation):
        problem = range_problem(np.array(player.squares))
        if problem:
            raise ValueError(f"the evaluated evaluation's squares: {problem}; scale it down")
        spec, weights = PlayerSpec("nhand_custom", 1), player
    else:
        weights = np.asarray(player, dtype=np.float64).ravel()
        if weights.size not in (64, 128):
            raise ValueError(f"the evaluated table must have 64 (or 128) weights, got {weights.size}")
        if not np.isfinite(weights).all():
            raise ValueError("the evaluated table must hold finite numbers (found NaN or inf)")
        problem = range_problem(weights)
        if problem:
            raise ValueError(f"the evaluated table: {problem}; scale it down")
        spec = PlayerSpec("nhand_custom", 1)
    if spec.kind == "human":
        raise ValueError("the human player is interactive; it cannot be evaluated")
    if eps is not None:
        spec = dataclasses.replace(spec, eps=eps)
    return spec, weights


def _check_protocol(protocol: str, eps: float | None) -> float | None:
    """Returns the exploration rate the protocol plays with (None: as given)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; use one of {', '.join(PROTOCOLS)}")
    if eps is not None and not (math.isfinite(eps) and 0.0 <= eps <= 1.0):
        raise ValueError(f"eps must be a number in [0, 1], got {eps}")
    fixed = {"league": LEAGUE_EPS, "eu": 0.0, "ladder": LEAGUE_EPS}.get(protocol)
    if fixed is not None and eps is not None and eps != fixed:
        raise ValueError(
            f"the {protocol} protocol plays with eps = {fixed:g}; use protocol 'plain' to choose eps"
        )
    return fixed if fixed is not None else eps


def protocol_opponents(protocol: str, opponents: Sequence[str]) -> list[str]:
    """Returns the opponents a protocol plays: the given ones, WPC-H by default in ``league``.

    :raises ValueError: for an unknown protocol, ``plain`` without opponents, or
        ``eu`` with opponents (it plays random tables).
    """
    _check_protocol(protocol, None)
    opponents = list(opponents)
    if protocol == "eu":
        if opponents:
            raise ValueError("the eu protocol plays random tables; give no opponents")
        return []
    if protocol == "league" and not opponents:
        return [LEAGUE_OPPONENT]
    if protocol == "ladder":
        return opponents or list(LADDER_TABLES)
    if not opponents:
        raise ValueError("give at least one opponent, e.g. 'random' or 'wpc:1@heuristic'")
    return opponents


# ---------------------------------------------------------------- matches


def evaluate_player(
    player_spec: PlayerSource,
    opponents: Sequence[str],
    games: int,
    *,
    eps: float | None = None,
    seed: int = 0,
    workers: int = 1,
    protocol: str = "plain",
    depths: Sequence[int] = (),
    end: int = 0,
    records: list[GameRecord] | None = None,
    label: str | None = None,
    progress: EvaluationProgress | None = None,
) -> list[MatchSummary]:
    """Plays ``games`` games against each opponent and returns one summary per opponent.

    ``player_spec`` is a player spec (``"wpc:1@lr06"``, ``"nhand:2"``) or a weights
    array of 64 (or 128) numbers, played as ``wpc:1``. ``eps`` overrides both
    players' exploration. ``workers`` threads share the games; the results are
    the same for any number of workers. In ``eu``, ``games`` is the number of
    random tables and each is played twice. In ``ladder`` the player must be
    a table, played by :func:`ladder` at each of ``depths`` (default 1-4).
    ``records``, if given, receives every game played, in plan order, as a
    GGF record (each game replayed move by move: as slow again as playing it),
    the evaluated player named ``label`` (default: its spec). ``progress``
    hears of the games as they are played and of each row as it completes
    (:class:`EvaluationProgress`); the results do not depend on it.

    >>> [str(summary) for summary in evaluate_player("wpc:1@lr06", ["random"], 4)]
    ['random: +4 =0 -0 score 1.000, Elo +inf [+7, +inf]']

    :raises ValueError: for a bad spec, table, protocol, ``eps``, ``games`` or
        ``workers`` (nothing is played then).
    :raises ga.weights.WeightsError: if a spec names an unreadable weights file.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games must be an integer in 1..{MAX_GAMES:,}, got {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    games, workers, seed = int(games), int(workers), int(seed)
    played_eps, opponents, spec, weights, opponent_specs = _setting_up(player_spec, opponents, protocol, eps, depths)
    progress = progress or EvaluationProgress()
    if protocol == "ladder":
        return ladder(_table_of(spec, weights), opponents, games, depths=depths or LADDER_DEPTHS, seed=seed,
                      workers=workers, phase_move=DEFAULT_PHASE_MOVE if spec.phase_move is None else spec.phase_move,
                      end=end, records=records, label=label or "evaluated", progress=progress)
    player = build_player(spec, weights, load_weights=load_evaluation)
    if protocol == "eu":
        return [_expected_utility(player, games, seed, workers, records, label or str(spec), progress)]
    opponent_players: list[Player | None] = [build_player(opponent, load_weights=load_evaluation)
                                              for opponent in opponent_specs]
    labels = [
        text if played_eps is None or opponent.kind == "random" else str(opponent)
        for text, opponent in zip(opponents, opponent_specs)
    ]
    # Game i against opponent k: seed i of k's stream, the evaluated player black when i is even.
    plan = GamePlan(
        individual=np.zeros(games * len(opponents), dtype=np.int32),
        opponent=np.repeat(np.arange(len(opponents), dtype=np.int32), games),
        member=np.full(games * len(opponents), -1, dtype=np.int32),
        seeds=np.concatenate([game_seeds(seed, index, games) for index in range(len(opponents))]),
        colours=np.tile((np.arange(games) % 2).astype(np.uint8), len(opponents)),
    )
    named = label or str(spec)

    def record(rows: slice, diffs: npt.NDArray[np.int32]) -> list[GameRecord]:
        return record_games(plan.subset(rows), diffs, [(player, named)] * len(diffs),
                            [(opponent_players[k], labels[k]) for k in plan.opponent[rows]])

    batch = Batch(_NO_TABLES, np.zeros((0, 64)), labels, plan, player, opponent_players)
    return _play_rows(batch, labels, workers, progress, records, record)


def _play_rows(batch: Batch, labels: Sequence[str], workers: int, progress: EvaluationProgress,
               records: list[GameRecord] | None = None,
               record: Any = None) -> list[MatchSummary]:
    """Plays a batch whose plan is one block of games per row (``labels``), in order, and returns a summary per
    row; tells ``progress`` of the games in pieces and of each row once it is complete (its games recorded by
    ``record(rows, diffs)`` into ``records`` first, when asked)."""
    per_row = len(batch.plan) // len(labels)
    progress.start(labels, len(batch.plan) * (2 if records is not None else 1))
    step = max(_LEAST_PIECE, -(-per_row // _PIECES))
    cuts = [row * per_row + min(offset, per_row) for row in range(len(labels))
            for offset in range(step, per_row + step, step)]
    summaries: list[MatchSummary] = []
    reported = [0]

    def played(end: int, results: npt.NDArray[np.int32]) -> None:
        progress.played(end - reported[0])
        reported[0] = end
        while (len(summaries) + 1) * per_row <= end:
            rows = slice(len(summaries) * per_row, (len(summaries) + 1) * per_row)
            if records is not None:
                records.extend(record(rows, results[rows]))
                progress.played(per_row)
            summaries.append(MatchSummary.from_disc_diffs(labels[len(summaries)], results[rows].tolist()))
            progress.row(summaries[-1])

    play_here(batch, workers, cuts if progress.in_pieces else (), played)
    return summaries


def like_for_like(player_spec: PlayerSource, opponents: Sequence[str]) -> tuple[list[str], list[str]]:
    """Returns the opponents of a plain evaluation played like for like, and a warning for each that is not.

    A bare table name (``paip``, ``heuristic``) plays as the evaluated player
    plays: its kind, depth and exact endgame (``end``): against a run's
    ``alphabeta:1,end=8`` player, ``paip`` is ``alphabeta:1@paip,end=8``, not
    a 1-ply ``paip`` that never solves the endgame. An opponent given as a whole spec is played as
    written; if it plays a table at another depth or endgame than the
    evaluated player, the warning says so and how to play it alike.

    >>> like_for_like("alphabeta:2@lr06,end=8", ["paip", "random"])
    (['alphabeta:2@paip,end=8', 'random'], [])
    """
    if not isinstance(player_spec, str):
        return list(opponents), []  # a table: played as wpc:1, as a bare name is
    evaluated = parse_spec(player_spec)
    played, warnings = [], []
    for text in opponents:
        spec = parse_spec(text)
        alike = dataclasses.replace(spec, kind=evaluated.kind, depth=evaluated.depth, end=evaluated.end)
        if spec.table is not None and not any(mark in text for mark in ":,@"):
            played.append(str(alike))
            continue
        played.append(text)
        if spec.table is not None and (spec.depth, spec.end) != (evaluated.depth, evaluated.end):
            warnings.append(f"opponent {text!r} {_searches(spec)}, the evaluated player {_searches(evaluated)}: "
                            f"the score is not like for like (--vs {alike} plays it alike, as a bare "
                            f"--vs {spec.table} does)")
    return played, warnings


def _searches(spec: PlayerSpec) -> str:
    """Says how deep a player searches and how much of the endgame it solves, in words."""
    solving = f"solves the last {spec.end} empty squares" if spec.end else "solves no endgame"
    return f"looks {spec.depth} pl{'y' if spec.depth == 1 else 'ies'} ahead and {solving}"


def check_evaluation(player_spec: PlayerSource, opponents: Sequence[str], *, eps: float | None = None,
                     protocol: str = "plain", depths: Sequence[int] = ()) -> None:
    """Raises what :func:`evaluate_player` would raise for these players and protocol, without playing.

    :raises ValueError: (or WeightsError) for a bad spec, table, protocol, ``eps`` or ``depths``.
    """
    _, opponents, spec, weights, _ = _setting_up(player_spec, opponents, protocol, eps, depths)
    if protocol == "ladder":
        _table_of(spec, weights)
        _ladder_pairs(opponents, depths or LADDER_DEPTHS)


def _setting_up(player_spec: PlayerSource, opponents: Sequence[str], protocol: str, eps: float | None,
                depths: Sequence[int]) -> tuple[float | None, list[str], PlayerSpec, Any, list[PlayerSpec]]:
    """Returns the eps played, the opponents, the player's spec and weights and the opponents' specs, checked."""
    played_eps = _check_protocol(protocol, eps)
    opponents = protocol_opponents(protocol, opponents)
    spec, weights = _player_spec(player_spec, played_eps)
    opponent_specs = [opponent_spec(opponent, played_eps) for opponent in opponents]
    if protocol == "league":
        for label, checked in [("evaluated player", spec), *zip(opponents, opponent_specs)]:
            if checked.depth != 1:
                raise ValueError(
                    f"the league protocol plays 1-ply players; {label} {checked} looks {checked.depth} ahead"
                )
    if depths and protocol != "ladder":
        raise ValueError(f"depths apply to the ladder protocol, not to {protocol!r}")
    return played_eps, opponents, spec, weights, opponent_specs


def _expected_utility(player: Player, tables: int, seed: int, workers: int,
                      records: list[GameRecord] | None = None, label: str = "evaluated",
                      progress: EvaluationProgress | None = None) -> MatchSummary:
    """Plays ``player`` twice (once per colour) against each of ``tables`` random tables (1-ply, eps 0)."""
    plan = GamePlan(
        individual=np.zeros(2 * tables, dtype=np.int32),
        opponent=np.zeros(2 * tables, dtype=np.int32),
        member=np.repeat(np.arange(tables, dtype=np.int32), 2),
        seeds=game_seeds(seed, 0, 2 * tables),
        colours=np.tile(np.array([0, 1], dtype=np.uint8), tables),
    )
    rows = random_tables(seed, tables)
    kind, depth, eps, phase_move, end, _ = _NO_TABLES

    def record(games: slice, diffs: npt.NDArray[np.int32]) -> list[GameRecord]:
        return record_games(plan.subset(games), diffs, [(player, label)] * len(diffs),
                            [(Player(kind, depth, rows[m], eps, phase_move, end), f"random U(-1,1) table {m}")
                             for m in plan.member[games]])

    batch = Batch(_NO_TABLES, rows, [RANDOM_TABLE], plan, player)
    (summary,) = _play_rows(batch, [EU_LABEL], workers, progress or EvaluationProgress(), records, record)
    return summary


def _table_of(spec: PlayerSpec, weights: npt.NDArray[np.float64] | Evaluation | None) -> Evaluation:
    """Returns the evaluation of the evaluated player (the ladder plays tables or evaluations, at each depth)."""
    if isinstance(weights, Evaluation):
        return weights
    if weights is not None:
        return Evaluation(tuple(float(w) for w in weights),
                          phase_move=DEFAULT_PHASE_MOVE if spec.phase_move is None else spec.phase_move)
    if spec.table is None:
        raise ValueError(f"the ladder protocol plays a weights table at every depth; {spec} has none "
                         "(give a table, a weights file or a run directory)")
    player = build_player(spec, load_weights=load_evaluation)
    evaluation = Evaluation.from_vector(player.weights, player.features, player.phase_move)
    if player.patterns is not None:
        evaluation = dataclasses.replace(evaluation, patterns=player.patterns.description)
    return evaluation


def ladder(table: npt.ArrayLike | Evaluation, opponents: Sequence[str], games: int, *,
           depths: Sequence[int] = LADDER_DEPTHS, seed: int = 0, workers: int = 1, phase_move: int = 40,
           end: int = 0, records: list[GameRecord] | None = None, label: str = "evaluated",
           progress: EvaluationProgress | None = None) -> list[MatchSummary]:
    """Plays ``alphabeta:d@TABLE`` against ``alphabeta:d@T`` for every opponent table T and depth d.

    Both players at eps 0.1, both colours (game i black when i is even), ``games``
    a pairing; the seeds of pairing k (opponents by depths, in order) are
    :func:`ga.games.seeds.game_seeds` ``(seed, k, games)``. Returns one summary
    per (opponent, depth), labelled with the opponent's spec. ``table`` may be
    an evaluation with features (its own switch move is played); with ``end``
    both sides solve the last ``end`` empty squares exactly. ``records``, if
    given, receives every game as a GGF record, the table named ``label``.

    :raises ValueError: for a bad table, opponent table or depth.
    """
    evaluation = table if isinstance(table, Evaluation) else None
    weights = evaluation.vector() if evaluation else np.asarray(table, dtype=np.float64).ravel()
    features = evaluation.features if evaluation else ()
    if evaluation is not None and evaluation.n_tables == 2:
        phase_move = evaluation.phase_move
    pairs = _ladder_pairs(opponents, depths)
    solving = f",end={end}" if end else ""
    labels = [f"alphabeta:{depth}@{name},eps={LEAGUE_EPS:g}{solving}" for name, depth in pairs]
    rivals: list[Player | None] = [build_player(label, load_weights=load_evaluation) for label in labels]
    plan = GamePlan(
        individual=np.zeros(games * len(pairs), dtype=np.int32),
        opponent=np.repeat(np.arange(len(pairs), dtype=np.int32), games),
        member=np.full(games * len(pairs), -1, dtype=np.int32),
        seeds=np.concatenate([game_seeds(seed, k, games) for k in range(len(pairs))]),
        colours=np.tile((np.arange(games) % 2).astype(np.uint8), len(pairs)),
        depth=np.repeat(np.array([depth for _, depth in pairs], dtype=np.int32), games),
    )
    networks = [compiled(evaluation.patterns)] if evaluation is not None and evaluation.patterns is not None else None
    batch = Batch(("alphabeta", 1, LEAGUE_EPS, phase_move, end, features), weights.reshape(1, -1), labels, plan,
                  opponents=rivals, networks=networks)
    evaluated = {depth: Player("alphabeta", depth, weights, LEAGUE_EPS, phase_move, end, features)
                 for _, depth in pairs} if records is not None else {}

    def record(rows: slice, diffs: npt.NDArray[np.int32]) -> list[GameRecord]:
        return record_games(plan.subset(rows), diffs, [(evaluated[d], f"{label}, alphabeta:{d}")
                                                       for d in plan.depth[rows]],
                            [(rivals[k], labels[k]) for k in plan.opponent[rows]])

    return _play_rows(batch, labels, workers, progress or EvaluationProgress(), records, record)


def record_games(plan: GamePlan, diffs: npt.NDArray[np.int32], players: Sequence[tuple[Player, str]],
                 opponents: Sequence[tuple[Player | None, str]]) -> list[GameRecord]:
    """Returns the GGF records of a plan's games, each replayed with its seed by the same players (game ``i``:
    ``players[i]`` against ``opponents[i]``, each with its label, colours as planned).

    :raises RuntimeError: if a replayed game ends otherwise than the game played (the engine is not deterministic).
    """
    games = []
    for i, ((player, label), (opponent, rival)) in enumerate(zip(players, opponents)):
        if opponent is None:
            raise ValueError("record_games needs every opponent's player")
        first_black = int(plan.colours[i]) == 0
        black, white = (player, opponent) if first_black else (opponent, player)
        record = GameRecord.from_moves(record_game(black, white, int(plan.seeds[i])),
                                       black=label if first_black else rival, white=rival if first_black else label)
        played = int(diffs[i]) if first_black else -int(diffs[i])
        if record.final_board().disc_diff() != played:
            raise RuntimeError(f"game {i} replayed to a disc difference of {record.final_board().disc_diff()}, "
                               f"not the {played} played")
        games.append(record)
    return games


def _ladder_pairs(opponents: Sequence[str], depths: Sequence[int]) -> list[tuple[str, int]]:
    """Returns the ladder's pairings, (opponent table, depth), each opponent at every depth; checked."""
    cap = KINDS["alphabeta"].max_depth
    depths = list(depths)
    if not depths or any(isinstance(d, bool) or not 1 <= int(d) <= cap for d in depths):
        raise ValueError(f"ladder depths must be between 1 and {cap}, got {depths}")
    names = []
    for opponent in opponents:
        parsed = parse_spec(opponent)
        if parsed.table is None:
            raise ValueError(f"the ladder plays tables against tables; opponent {opponent!r} has none")
        names.append(parsed.table)
    return [(name, int(depth)) for name in names for depth in depths]


# ---------------------------------------------------------------- training overlap


def training_overlap(
    run_dir_or_config: str | os.PathLike[str] | Config, opponents: Sequence[str]
) -> list[str]:
    """Returns the evaluation ``opponents`` that were among a run's training opponents.

    ``run_dir_or_config`` is a run directory (its ``config.toml`` is read) or a
    :class:`~ga.config.Config`. Specs match when kind, depth and table agree;
    exploration rates are ignored (``nhand:1,eps=0.1`` is still ``nhand:1``)
    and weights files are compared by resolved path.

    :raises ga.config.ConfigError: if the run's ``config.toml`` is missing or bad.
    :raises ValueError: if an opponent is not a valid spec.
    """
    config = _run_config(run_dir_or_config)
    specs = [opponent.spec for opponent in config.fitness.opponents]
    if config.refine.generations and config.refine.weight_opponents:
        specs += list(config.refine.opponents)  # the refinement's panel trains too
    trained = {_identity(spec) for spec in specs}
    return [opponent for opponent in opponents if _identity(opponent) in trained]


def trained_on_random_tables(run_dir_or_config: str | os.PathLike[str] | Config) -> bool:
    """Returns whether a run's fitness or refinement played random U(-1, 1) tables, the opponents of the ``eu`` protocol."""
    config = _run_config(run_dir_or_config)
    refined = config.refine.generations > 0 and config.refine.weight_random_tables > 0
    return config.fitness.random_table_games > 0 or refined


def _run_config(run_dir_or_config: str | os.PathLike[str] | Config) -> Config:
    """Returns the config given, or the one in a run directory's ``config.toml``."""
    if isinstance(run_dir_or_config, Config):
        return run_dir_or_config
    return read_config(Path(run_dir_or_config))


def _identity(text: str) -> tuple[str, int, str | None]:
    """Returns what makes two opponents the same player: kind, depth and table."""
    spec = parse_spec(text)
    table = spec.table
    if table is not None and is_path(table):
        table = str(Path(table).resolve())
    return spec.kind, spec.depth, table

"""Python-level API of the compiled players and games (engine/_players.pyx)."""

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from engine._patterns import PatternLayout, PatternTables

KINDS: dict[str, int]
ENUM_CODES: dict[str, int]
WEIGHTED_KINDS: tuple[str, ...]

class Player:
    kind: str
    depth: int
    eps: float
    phase_move: int
    end: int
    weights: tuple[float, ...] | None
    def __init__(
        self, kind: str, depth: int = 1, weights: Sequence[float] | npt.ArrayLike | None = None,
        eps: float = 0.0, phase_move: int = 40, end: int = 0, features: Sequence[str] = (),
        patterns: PatternTables | None = None,
    ) -> None: ...
    features: tuple[str, ...]
    patterns: PatternTables | None
    def value(self, player: int, opponent: int, colour: int = 0) -> float: ...
    def scores(self, board: Any) -> dict[int, float]: ...
    def choose(self, board: Any, seed: int) -> int: ...

def play_game(black: Player, white: Player, seed: int) -> int: ...
def record_game(black: Player, white: Player, seed: int) -> list[int]: ...
def play_match(
    first: Player, second: Player, seeds: Iterable[int] | npt.ArrayLike, colours: npt.ArrayLike | None = None
) -> npt.NDArray[np.int32]: ...
def search_match(
    first: Player, second: Player, seeds: Iterable[int] | npt.ArrayLike, colours: npt.ArrayLike | None = None
) -> tuple[npt.NDArray[np.int32], int]: ...

class SharedPlan:
    result: npt.NDArray[np.int32]
    def __init__(
        self, kind: str, depth: int, eps: float, phase_move: int, tables: npt.ArrayLike,
        opponents: Sequence[Player | None], individual: npt.ArrayLike, opponent: npt.ArrayLike, member: npt.ArrayLike,
        seeds: npt.ArrayLike, colours: npt.ArrayLike, depths: npt.ArrayLike | None = None, first: Player | None = None,
        end: int = 0, features: Sequence[str] = (), networks: Sequence[PatternTables | None] | None = None,
        layout: PatternLayout | None = None,
    ) -> None: ...
    def play(self, most: int = -1) -> int: ...

def play_plan(
    kind: str, depth: int, eps: float, phase_move: int, tables: npt.ArrayLike, opponents: Sequence[Player | None],
    individual: npt.ArrayLike, opponent: npt.ArrayLike, member: npt.ArrayLike, seeds: npt.ArrayLike,
    colours: npt.ArrayLike, depths: npt.ArrayLike | None = None, first: Player | None = None, end: int = 0,
    features: Sequence[str] = (), networks: Sequence[PatternTables | None] | None = None,
    layout: PatternLayout | None = None,
) -> npt.NDArray[np.int32]: ...

FINISHED_GAME_SCALE: float
def move_value(
    player: Player, P: int, O: int, square: int, floor: float = ..., colour: int = 0
) -> tuple[float, int]: ...

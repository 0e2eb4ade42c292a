"""Python-level API of the compiled pattern networks (engine/_patterns.pyx)."""

from collections.abc import Sequence
from typing import Any

import numpy.typing as npt

MAX_SQUARES: int
GROUP_LIMIT: int

class PatternLayout:
    n_weights: int
    n_groups: int
    entries_per_network: int
    shape: Any
    def __init__(self, masks: Sequence[int], contributions: Sequence[npt.ArrayLike], steps: Sequence[Sequence[int]],
                 phase_of: Sequence[int], n_phases: int, negate: bool, n_weights: int, shape: Any = None) -> None: ...

class PatternTables:
    layout: PatternLayout
    description: Any
    scale: float
    n_groups: int
    negate: bool
    def __init__(self, layout: PatternLayout, weights: npt.ArrayLike, description: Any = None) -> None: ...
    def value(self, player: int, opponent: int, colour: int) -> float: ...
    def value_after(self, player: int, opponent: int, colour: int, square: int) -> float: ...
    def indices_after(self, player: int, opponent: int, colour: int,
                      square: int) -> list[tuple[int, list[int], list[int]]]: ...
    def lone_values(self) -> list[float]: ...

def _uses_pext() -> bool: ...
def _portable_indices(black: int, white: int, masks: Sequence[int]) -> tuple[list[int], list[int]] : ...
def _bmi2_indices(black: int, white: int, masks: Sequence[int]) -> tuple[list[int], list[int]] | None: ...

"""Python-level API of TD(0) self-play learning (engine/_learning.pyx)."""

from collections.abc import Sequence

import numpy.typing as npt

COPY_LIMIT: int

class TDLearner:
    n_weights: int
    def __init__(self, copies_of: Sequence[Sequence[Sequence[int]]], phases: Sequence[int],
                 colours: str = "invert") -> None: ...
    def train(self, weights: npt.NDArray, games: int, seed: int, alpha: float = 0.01, eps: float = 0.1) -> int: ...

"""Every seed of the project: named streams of a run seed, and the hashes that derive them.

A run seed is split into streams, one per use (:class:`Stream`), so that no
two uses ever share numbers: a game's seed is a hash of (run seed, stream,
generation, individual, opponent, game), the breeding of a generation reseeds
Python's ``random`` from (run seed, stream, generation), and so on. Results
therefore never depend on the number of workers or on scheduling.

Two hashes are used, both built on splitmix64's finaliser (Steele, Lea &
Flood 2014, https://prng.di.unimi.it/splitmix64.c):

- :func:`derive_seed` / :func:`derive_seeds` chain integer keys (the run's
  streams: evolution, the final tournament, the refinement, restarts);
- :func:`game_seeds` is the counter sequence of the evaluation protocols,
  where seed ``i`` depends only on (seed, opponent index, i).

They differ in how they start (each is what the shipped results were made
with, so both are kept as they are).
"""

from __future__ import annotations

import threading
from enum import IntEnum

import numpy as np
import numpy.typing as npt

__all__ = ["GLOBAL_GENERATORS", "Stream", "derive_seed", "derive_seeds", "finalize", "game_seeds", "mix", "random_tables"]


#: Held while a run seeds a process-wide generator and draws from it (Python's ``random`` for DEAP's
#: operators, numpy's legacy one for DEAP's CMA-ES): runs that share a process (a study's runs on the
#: threads of one Dask worker) then draw exactly what each would draw alone.
GLOBAL_GENERATORS = threading.RLock()


class Stream(IntEnum):
    """The streams of a run seed, one per use."""

    INIT = 1  # the initial population (Python's random, for DEAP)
    VARIATION = 2  # breeding a generation (Python's random, for DEAP)
    DRAWS = 3  # which fixed opponent each individual meets
    GAMES = 4  # the seeds of a generation's games
    COEVOLUTION = 5  # which members and champions each individual meets
    FINAL = 6  # the final tournament's games
    RANDOM_TABLES = 7  # a generation's random opponent tables
    REFINE = 8  # the refinement's games and CMA-ES samples
    RESTART = 9  # the seeds of the refinement's restarts
    TD = 10  # each individual's TD(0) self-play games, per generation
    SAMPLES = 11  # CMA-ES's samples of a network run, per generation
    EXPECTED_UTILITY = 0x6575  # the eu protocol's random tables (a stream of the evaluation seed)


_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_UINT64 = np.uint64


def finalize(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """Returns splitmix64's finaliser of each value (a bijection on 64-bit integers)."""
    with np.errstate(over="ignore"):
        z = values.astype(_UINT64, copy=True)
        z = (z ^ (z >> _UINT64(30))) * _UINT64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _UINT64(27))) * _UINT64(0x94D049BB133111EB)
        return z ^ (z >> _UINT64(31))


def mix(z: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """Returns one splitmix64 step of each value: the golden-ratio increment, then the finaliser."""
    z = z + _UINT64(_GOLDEN)
    z = (z ^ (z >> _UINT64(30))) * _UINT64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _UINT64(27))) * _UINT64(0x94D049BB133111EB)
    return z ^ (z >> _UINT64(31))


def derive_seeds(*keys: int | npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Returns 64-bit seeds hashed from integer keys (arrays broadcast)."""
    # Leading Python integers are hashed as derive_seed hashes them (the same steps), a few
    # microseconds each faster than on arrays; the rest on arrays, not scalars: numpy warns on
    # scalar wrap-around.
    known = 0
    while known < len(keys) and isinstance(keys[known], int) and 0 <= keys[known] <= _MASK:
        known += 1
    state = np.array([derive_seed(*keys[:known]) if known else 0], dtype=_UINT64)
    for key in keys[known:]:
        state = mix(state ^ np.asarray(key).astype(_UINT64))
    return state


def derive_seed(*keys: int) -> int:
    """Returns a 64-bit seed that is a hash of the integer ``keys`` (what :func:`derive_seeds` gives)."""
    # Python integers: it runs a few times every generation, where numpy's
    # per-call cost on one-element arrays would dominate.
    state = 0
    for key in keys:
        z = (state ^ (key & _MASK)) + _GOLDEN & _MASK
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
        state = z ^ (z >> 31)
    return state


def game_seeds(seed: int, opponent_index: int, games: int) -> npt.NDArray[np.uint64]:
    """Returns the seeds of games ``0..games-1`` against opponent ``opponent_index``.

    Seed ``i`` depends only on ``(seed, opponent_index, i)``: asking for more
    games extends the list without changing its start.

    >>> bool((game_seeds(7, 1, 3) == game_seeds(7, 1, 5)[:3]).all())
    True

    :raises ValueError: if ``seed`` or ``opponent_index`` is outside ``[0, 2**64)``
        or ``games`` is negative.
    """
    for label, value in (("seed", seed), ("opponent index", opponent_index)):
        if not 0 <= value < 2**64:
            raise ValueError(f"{label} must be in [0, 2**64), got {value}")
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    key = finalize(finalize(np.array([seed], dtype=_UINT64)) ^ _UINT64(opponent_index))
    with np.errstate(over="ignore"):
        counters = key + (np.arange(1, games + 1, dtype=_UINT64) * _UINT64(_GOLDEN))
    return finalize(counters)


def random_tables(seed: int, count: int) -> npt.NDArray[np.float64]:
    """Returns ``count`` weight tables (rows of 64) drawn uniformly from U(-1, 1): the eu protocol's opponents."""
    generator = np.random.default_rng(np.random.SeedSequence([seed, int(Stream.EXPECTED_UTILITY)]))
    return generator.uniform(-1.0, 1.0, size=(count, 64))

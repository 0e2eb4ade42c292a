"""CMA-ES strategies: DEAP's (full covariance) and a separable one (diagonal covariance), with states to save.

DEAP's ``cma.Strategy`` adapts a full covariance matrix: n^2 numbers, an
eigendecomposition (n^3) every generation. That is the well-kept
implementation for a few hundred weights, and what the refinement uses;
for the thousands of weights of a pattern network the separable variant,
sep-CMA-ES (Ros & Hansen, "A Simple Modification in CMA-ES Achieving Linear
Time and Space Complexity", PPSN 2008), adapts the diagonal alone, in O(n)
per sample, with the learning rates of the covariance raised by (n + 2) / 3.
It is written here (a few lines of DEAP's update on a diagonal) rather than
taken from pycma, whose state is a graph of objects that only pickle saves,
and a run directory never holds a pickle: both strategies here save their
state as numbers and arrays (:meth:`FullStrategy.state`), and continue from
it to the same generations, bit for bit.

Both sample from a numpy generator they are given (DEAP's samples from
numpy's process-wide one), and rank the samples as DEAP does (a stable sort
on fitness, best first).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from deap import base, cma, creator

__all__ = ["FullStrategy", "SeparableStrategy", "Strategy", "strategy_from_state"]

if not hasattr(creator, "StrategySample"):
    creator.create("StrategyFitness", base.Fitness, weights=(1.0,))
    creator.create("StrategySample", np.ndarray, fitness=creator.StrategyFitness)


class Strategy(cma.Strategy):
    """DEAP's CMA-ES, with its step size grown by libm's ``exp`` rather than numpy's.

    numpy computes ``exp`` with its own AVX-512 code where the CPU has it, and
    that rounds some values differently in the last bit from the C library
    every other machine uses; within a few generations the candidates, the
    games and the table all differ. The rest of the update is arithmetic
    (the same everywhere) and BLAS (pinned by ``ga``'s import, see
    :data:`ga.BLAS_CORE`).
    """

    def update(self, population: list[Any]) -> None:
        sigma = self.sigma
        super().update(population)
        # DEAP's expression, term for term; the evolution path is the one the update just made.
        self.sigma = sigma * math.exp((float(np.linalg.norm(self.ps)) / self.chiN - 1.) * self.cs / self.damps)


def _ranked(samples: np.ndarray, fitness: np.ndarray) -> list[Any]:
    """Returns the samples as DEAP individuals with their fitness (for DEAP's update, which ranks them)."""
    ranked = []
    for row, value in zip(samples, fitness.tolist()):
        sample = np.array(row, dtype=np.float64).view(creator.StrategySample)
        sample.fitness = creator.StrategyFitness((value,))
        ranked.append(sample)
    return ranked


class FullStrategy:
    """DEAP's CMA-ES (:class:`Strategy`): a full covariance matrix, for a few hundred weights."""

    kind = "cma-es"

    def __init__(self, centroid: np.ndarray, sigma: float, lambda_: int, mu: int,
                 cmatrix: np.ndarray | None = None) -> None:
        arguments: dict[str, Any] = {"lambda_": lambda_, "mu": mu}
        if cmatrix is not None:
            arguments["cmatrix"] = cmatrix
        self.strategy = Strategy(centroid=np.asarray(centroid, dtype=np.float64), sigma=sigma, **arguments)

    @property
    def centroid(self) -> np.ndarray:
        return np.asarray(self.strategy.centroid, dtype=np.float64)

    @property
    def sigma(self) -> float:
        return float(self.strategy.sigma)

    def generate(self, rng: np.random.Generator) -> np.ndarray:
        """Returns lambda samples, one a row: DEAP's ``generate`` on ``rng``'s normal numbers."""
        s = self.strategy
        return s.centroid + s.sigma * np.dot(rng.standard_normal((s.lambda_, s.dim)), s.BD.T)

    def tell(self, samples: np.ndarray, fitness: np.ndarray) -> None:
        """Updates the distribution from the samples (rows) and their fitness (higher is better)."""
        self.strategy.update(_ranked(samples, fitness))

    def state(self) -> dict[str, Any]:
        """Returns what the strategy continues from: numbers and arrays (the arrays are not copied: an update
        makes new ones)."""
        s = self.strategy
        return {"kind": self.kind, "lambda": int(s.lambda_), "mu": int(s.mu), "sigma": float(s.sigma),
                "updates": int(s.update_count), "centroid": s.centroid, "pc": s.pc, "ps": s.ps, "C": s.C}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> FullStrategy:
        """Returns the strategy of a :meth:`state` (its eigendecomposition made again, as the update made it)."""
        made = cls(state["centroid"], state["sigma"], state["lambda"], state["mu"], cmatrix=np.array(state["C"]))
        s = made.strategy
        s.pc, s.ps, s.update_count = np.array(state["pc"]), np.array(state["ps"]), int(state["updates"])
        return made


class SeparableStrategy:
    """sep-CMA-ES: CMA-ES with a diagonal covariance (see the module's docstring), DEAP's update on a diagonal.

    The parameters are DEAP's defaults for ``lambda_`` samples and ``mu``
    parents (superlinear weights), the covariance's learning rates times
    (n + 2) / 3 (Ros & Hansen); for n = 1 it is DEAP's CMA-ES exactly.
    """

    kind = "sep-cma-es"

    def __init__(self, centroid: np.ndarray, sigma: float, lambda_: int, mu: int,
                 diagonal: np.ndarray | None = None) -> None:
        self.centroid = np.array(centroid, dtype=np.float64)
        self.dim = self.centroid.size
        self.sigma = float(sigma)
        self.lambda_, self.mu = int(lambda_), int(mu)
        self.pc = np.zeros(self.dim)
        self.ps = np.zeros(self.dim)
        self.diagC = np.ones(self.dim) if diagonal is None else np.array(diagonal, dtype=np.float64)
        self.update_count = 0
        n = float(self.dim)
        self.chiN = math.sqrt(n) * (1 - 1. / (4. * n) + 1. / (21. * n ** 2))
        weights = math.log(self.mu + 0.5) - np.log(np.arange(1, self.mu + 1))
        self.weights = weights / sum(weights)
        self.mueff = 1. / sum(self.weights ** 2)
        self.cc = 4. / (n + 4.)
        self.cs = (self.mueff + 2.) / (n + self.mueff + 3.)
        ccov1 = 2. / ((n + 1.3) ** 2 + self.mueff)
        ccovmu = min(1 - ccov1, 2. * (self.mueff - 2. + 1. / self.mueff) / ((n + 2.) ** 2 + self.mueff))
        self.ccov1 = min(1., ccov1 * (n + 2.) / 3.)
        self.ccovmu = min(1 - self.ccov1, ccovmu * (n + 2.) / 3.)
        self.damps = 1. + 2. * max(0, math.sqrt((self.mueff - 1.) / (n + 1.)) - 1.) + self.cs

    def generate(self, rng: np.random.Generator) -> np.ndarray:
        """Returns lambda samples, one a row: the centroid plus sigma times the standard deviations times normal
        numbers of ``rng``."""
        return self.centroid + self.sigma * (rng.standard_normal((self.lambda_, self.dim)) * np.sqrt(self.diagC))

    def tell(self, samples: np.ndarray, fitness: np.ndarray) -> None:
        """Updates the distribution from the samples (rows) and their fitness (higher is better)."""
        order = np.argsort(-np.asarray(fitness, dtype=np.float64), kind="stable")  # DEAP's stable sort, best first
        best = np.asarray(samples, dtype=np.float64)[order[:self.mu]]
        old_centroid = self.centroid
        self.centroid = np.dot(self.weights, best)
        c_diff = self.centroid - old_centroid
        self.ps = (1 - self.cs) * self.ps + math.sqrt(self.cs * (2 - self.cs) * self.mueff) / self.sigma \
            * (c_diff / np.sqrt(self.diagC))
        hsig = float(np.linalg.norm(self.ps) / math.sqrt(1. - (1. - self.cs) ** (2. * (self.update_count + 1.)))
                     / self.chiN < (1.4 + 2. / (self.dim + 1.)))
        self.update_count += 1
        self.pc = (1 - self.cc) * self.pc + hsig * math.sqrt(self.cc * (2 - self.cc) * self.mueff) / self.sigma \
            * c_diff
        steps = best - old_centroid
        self.diagC = (1 - self.ccov1 - self.ccovmu + (1 - hsig) * self.ccov1 * self.cc * (2 - self.cc)) * self.diagC \
            + self.ccov1 * self.pc ** 2 + self.ccovmu * np.dot(self.weights, steps ** 2) / self.sigma ** 2
        self.sigma *= math.exp((float(np.linalg.norm(self.ps)) / self.chiN - 1.) * self.cs / self.damps)

    def state(self) -> dict[str, Any]:
        """Returns what the strategy continues from (the arrays are not copied: an update makes new ones)."""
        return {"kind": self.kind, "lambda": self.lambda_, "mu": self.mu, "sigma": self.sigma,
                "updates": self.update_count, "centroid": self.centroid, "pc": self.pc, "ps": self.ps,
                "diagC": self.diagC}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> SeparableStrategy:
        """Returns the strategy of a :meth:`state`."""
        made = cls(state["centroid"], state["sigma"], state["lambda"], state["mu"], diagonal=state["diagC"])
        made.pc, made.ps, made.update_count = np.array(state["pc"]), np.array(state["ps"]), int(state["updates"])
        return made


_KINDS = {FullStrategy.kind: FullStrategy, SeparableStrategy.kind: SeparableStrategy}


def strategy_from_state(state: dict[str, Any]) -> FullStrategy | SeparableStrategy:
    """Returns the strategy a :meth:`~FullStrategy.state` describes.

    :raises ValueError: naming what does not fit (a kind, a length, a number that is not finite).
    """
    kind = state.get("kind")
    if kind not in _KINDS:
        raise ValueError(f"'strategy' is of an unknown kind {kind!r} (expected {' or '.join(_KINDS)})")
    arrays = ("centroid", "pc", "ps", "C" if kind == FullStrategy.kind else "diagC")
    for key in ("lambda", "mu", "updates"):
        if not isinstance(state.get(key), int) or isinstance(state.get(key), bool) or state[key] < 0:
            raise ValueError(f"'strategy.{key}' must be a count")
    if not 1 <= state["mu"] <= state["lambda"]:
        raise ValueError("'strategy.mu' must be between 1 and 'strategy.lambda'")
    sigma = state.get("sigma")
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not 0 < sigma < math.inf:
        raise ValueError("'strategy.sigma' must be a positive number")
    dim = np.asarray(state.get("centroid")).size
    if not dim:
        raise ValueError("'strategy.centroid' must hold the genes")
    for key in arrays:
        value = state.get(key)
        if not isinstance(value, np.ndarray) or not np.isfinite(value).all():
            raise ValueError(f"'strategy.{key}' must be an array of finite numbers")
        shape = (dim, dim) if key == "C" else (dim,)
        if value.shape != shape:
            raise ValueError(f"'strategy.{key}' has the shape {value.shape}, not {shape}")
    if kind == SeparableStrategy.kind and not (state["diagC"] > 0).all():
        raise ValueError("'strategy.diagC' must hold variances above 0")
    matrix = state["C"] if kind == FullStrategy.kind else None  # symmetric up to the rounding of DEAP's update
    if matrix is not None and not np.allclose(matrix, matrix.T, rtol=1e-9, atol=1e-12 * np.abs(matrix).max()):
        raise ValueError("'strategy.C' must be a covariance matrix (symmetric)")
    if matrix is not None and not np.linalg.eigvalsh(matrix).min() > 0:
        raise ValueError("'strategy.C' must be a covariance matrix (its eigenvalues above 0)")
    return _KINDS[kind].from_state(state)

"""Probe: which CMA-ES scales to a pattern network's thousands of weights?

For each number of weights (default 300, 1,700 and 3,000: all-2, all-4, and
all-3 + all-4 + 2x2 have 288, 1,701 and 3,159) and each strategy of
``ga.evolution.strategies`` (DEAP's full covariance, the separable one),
runs a few generations on a noisy sphere at the sample size a run of that
many weights must at least have (4 + 3 ln n) and prints the CPU seconds a
generation takes (sampling and update; the games are the run's, and the
same for both) and the bytes its state adds to each checkpoint. CPU time of
this process, with one BLAS thread (``ga``'s import sets it): other work on
the machine does not count in it.

    python experiments/cma_scaling.py [--weights 300 1700 3000] [--generations 3]
"""

from __future__ import annotations

import argparse
import time

import ga  # noqa: F401  first: it pins numpy's BLAS (one thread), which the strategies' products use

import numpy as np  # noqa: E402

from ga.config import cma_minimum_sample  # noqa: E402
from ga.evolution.strategies import FullStrategy, SeparableStrategy  # noqa: E402


def measure(kind: type, weights: int, generations: int) -> tuple[float, float, int]:
    """Returns (CPU seconds to start the strategy, CPU seconds a generation, bytes of its saved state)."""
    rng = np.random.default_rng(weights)
    sample = cma_minimum_sample(weights)
    started = time.process_time()
    strategy = kind(np.zeros(weights), 0.01, sample, sample // 2)
    made = time.process_time() - started
    started = time.process_time()
    for _ in range(generations):
        samples = strategy.generate(rng)
        fitness = -(samples ** 2).sum(axis=1) + rng.normal(0, 1e-3, sample)
        strategy.tell(samples, fitness)
    each = (time.process_time() - started) / generations
    # The checkpoint holds each array's float64 bytes in base64: 4 characters for 3 bytes.
    size = sum(4 * value.nbytes // 3 if isinstance(value, np.ndarray) else 8 for value in strategy.state().values())
    return made, each, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", type=int, nargs="+", default=[300, 1700, 3000])
    parser.add_argument("--generations", type=int, default=3)
    arguments = parser.parse_args()
    print("strategy     weights  sample  start (CPU s)  a generation (CPU s)  state in a checkpoint")
    for weights in arguments.weights:
        for kind in (FullStrategy, SeparableStrategy):
            made, each, size = measure(kind, weights, arguments.generations)
            print(f"{kind.kind:<12} {weights:>7,}  {cma_minimum_sample(weights):>6}  {made:>13.3f}  "
                  f"{each:>20.4f}  {size / 2**20:>17.2f} MiB")


if __name__ == "__main__":
    main()

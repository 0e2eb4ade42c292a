"""The TD(0) step of a network's GA: each individual learns from its own self-play games before it is played.

Coevolution with a TD step (CTDL, Szubert, Jaśkowski & Krawiec 2013): every
individual about to be played (the initial population's, then each
generation's children, and elites that are played again) first plays
``td.games`` games against itself with ``td.eps`` random moves, and its
network's weights move by TD(0) (engine._learning.TDLearner, in C). The
squares and features, when evolved, stay as they are: the self-play games
are the network's alone.

Each individual's games have their own seed, a hash of (run seed, TD,
generation, individual), and its learning touches only its own weights, so
the individuals learn side by side on threads (the engine releases the
GIL) with results that never depend on how many.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from engine._learning import TDLearner
from ga.config import Config, network_of
from ga.evolution.genome import GenomeLayout
from ga.games.seeds import Stream, derive_seed

__all__ = ["TDStep"]


class TDStep:
    """Trains the networks of a generation's individuals by TD(0) self-play (see the module's docstring)."""

    def __init__(self, config: Config, layout: GenomeLayout, workers: int) -> None:
        network = network_of(config.patterns)
        if network is None:
            raise ValueError("the TD step learns a pattern network: the config has none")
        self.learner = TDLearner([ntuple.copies for ntuple in network.tuples], network.phases, network.colours)
        self.games, self.alpha, self.eps = config.td.games, config.td.alpha, config.td.eps
        self.seed, self.bound = config.experiment.seed, config.patterns.bound
        self.network = layout.network_genes
        self.workers = max(1, workers)

    def __call__(self, population: Sequence[Any], generation: int) -> int:
        """Trains every individual of ``population`` without fitness (in place); returns the games played."""
        todo = [index for index, individual in enumerate(population) if not individual.fitness.valid]
        if not self.games or not todo:
            return 0

        def train(index: int) -> None:
            weights = np.asarray(population[index])[self.network]  # a view: the individual learns in place
            self.learner.train(weights, self.games, derive_seed(self.seed, Stream.TD, generation, index),
                               self.alpha, self.eps)
            np.clip(weights, -self.bound, self.bound, out=weights)

        if self.workers > 1 and len(todo) > 1:
            with ThreadPoolExecutor(min(self.workers, len(todo)), thread_name_prefix="othello-ga-td") as pool:
                list(pool.map(train, todo))
        else:
            for index in todo:
                train(index)
        return self.games * len(todo)

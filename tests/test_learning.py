"""TD(0) self-play learning of pattern networks (engine/_learning.pyx) against a slow reading, and that it learns."""
from __future__ import annotations

import numpy as np
import pytest

from engine import build_player
from engine._learning import TDLearner
from engine._players import search_match
from engine.evaluation import Evaluation
from engine.patterns import NTuple, PatternNetwork, tuple_set

from reference import td_self_play


def lopsided_network(seed: int, phases: tuple[int, ...]) -> PatternNetwork:
    """Returns random tuples of 2 to 4 squares with one copy each and random weights: no two moves tie."""
    rng = np.random.default_rng(seed)
    tuples = []
    for _ in range(12):
        n = int(rng.integers(2, 5))
        copy = tuple(int(q) for q in rng.choice(64, size=n, replace=False))
        tuples.append(NTuple((copy,), rng.normal(0, 0.05, (len(phases), 3 ** n))))
    return PatternNetwork(tuple(tuples), phases, "invert")


@pytest.mark.parametrize(("phases", "eps"), [((60,), 0.1), ((60, 30), 0.3), ((60,), 0.0)])
def test_td_learning_makes_the_slow_readings_updates(phases: tuple[int, ...], eps: float) -> None:
    network = lopsided_network(len(phases) + int(eps * 10), phases)
    learner = TDLearner([t.copies for t in network.tuples], network.phases)
    fast = network.vector().copy()
    slow = network.vector().tolist()
    balance = learner.train(fast, 3, 42, alpha=0.05, eps=eps)
    assert balance == td_self_play([t.copies for t in network.tuples], phases, slow, 3, 42, 0.05, eps)
    assert fast == pytest.approx(np.array(slow), rel=1e-9, abs=1e-12)
    assert not np.array_equal(fast, network.vector())  # it learnt something


def test_the_same_seed_learns_the_same_weights() -> None:
    network = tuple_set("all-2")
    learner = TDLearner([t.copies for t in network.tuples], network.phases)
    first, second, third = (np.zeros(network.n_weights) for _ in range(3))
    learner.train(first, 300, 7, alpha=0.001)
    learner.train(second, 300, 7, alpha=0.001)
    learner.train(third, 300, 8, alpha=0.001)
    assert np.array_equal(first, second) and not np.array_equal(first, third)


def test_a_network_learnt_from_zero_beats_the_random_mover_and_its_start() -> None:
    network = tuple_set("all-2")
    learner = TDLearner([t.copies for t in network.tuples], network.phases)
    weights = np.zeros(network.n_weights)
    learner.train(weights, 6000, 1, alpha=0.001)
    learnt = build_player("wpc:1", weights=Evaluation((0.0,) * 64, patterns=network.with_weights(weights)))
    seeds = np.arange(400, dtype=np.uint64)
    diffs, _ = search_match(learnt, build_player("random"), seeds)
    assert np.mean(diffs > 0) > 0.85
    # Against the heuristic table, which the network never met, it is already far from hopeless.
    diffs, _ = search_match(learnt, build_player("wpc:1@heuristic,eps=0.1"), seeds)
    assert np.mean(diffs > 0) > 0.25


def test_bad_settings_are_refused() -> None:
    network = tuple_set("all-2")
    learner = TDLearner([t.copies for t in network.tuples], network.phases)
    with pytest.raises(ValueError, match="the network has 288 weights, got 10"):
        learner.train(np.zeros(10), 1, 0)
    with pytest.raises(ValueError, match="alpha > 0"):
        learner.train(np.zeros(288), 1, 0, alpha=0.0)
    with pytest.raises(ValueError, match="invert"):
        TDLearner([t.copies for t in network.tuples], network.phases, "negate")

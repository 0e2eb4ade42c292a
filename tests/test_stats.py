"""Tests for ga.analysis.stats against hand-computed values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import numpy as np

from ga.analysis.stats import MatchSummary, elo_difference, elo_interval, mean_interval, score, wilson_interval

# Hand-computed with p = k/n, z = 1.96:
#   centre = (p + z²/2n) / (1 + z²/n),  half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)
WILSON_CASES = [
    (7, 10, (0.3968, 0.8922)),
    (5, 10, (0.2366, 0.7634)),
    (0, 10, (0.0, 0.2775)),
    (10, 10, (0.7225, 1.0)),
    (50, 100, (0.4038, 0.5962)),
    (1, 1, (0.2065, 1.0)),
    (6.5, 10, (0.3537, 0.8631)),  # 6 wins, 1 draw, 3 losses
]


@pytest.mark.parametrize(("successes", "n", "expected"), WILSON_CASES)
def test_wilson_interval_matches_hand_values(
    successes: float, n: int, expected: tuple[float, float]
) -> None:
    low, high = wilson_interval(successes, n)
    assert low == pytest.approx(expected[0], abs=5e-5)
    assert high == pytest.approx(expected[1], abs=5e-5)


def test_wilson_interval_is_exact_at_the_extremes() -> None:
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_narrows_with_z() -> None:
    # z = 1 for 7/10: centre 0.75/1.1 = 0.68182, half sqrt(0.0235)/1.1 = 0.13936
    low, high = wilson_interval(7, 10, z=1.0)
    assert (low, high) == pytest.approx((0.5425, 0.8212), abs=5e-5)


@pytest.mark.parametrize(
    ("successes", "n", "z"), [(-1, 10, 1.96), (11, 10, 1.96), (1, -1, 1.96), (1, 10, 0.0)]
)
def test_wilson_interval_rejects_bad_input(successes: float, n: int, z: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, z)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, 2 * n), st.just(n))))
def test_wilson_interval_contains_the_proportion(half_successes_and_n: tuple[int, int]) -> None:
    half_successes, n = half_successes_and_n
    successes = half_successes / 2
    low, high = wilson_interval(successes, n)
    assert 0.0 <= low <= successes / n <= high <= 1.0


def test_score_counts_draws_as_half() -> None:
    assert score(6, 2, 2) == 0.7
    assert score(0, 4, 0) == 0.5
    assert score(3, 0, 0) == 1.0
    assert math.isnan(score(0, 0, 0))
    with pytest.raises(ValueError):
        score(-1, 0, 0)


@pytest.mark.parametrize(
    ("fraction", "expected"),
    [(0.5, 0.0), (0.75, 190.85), (0.25, -190.85), (0.6, 70.44), (0.1, -381.70), (0.99, 798.25)],
)
def test_elo_difference_matches_hand_values(fraction: float, expected: float) -> None:
    assert elo_difference(fraction) == pytest.approx(expected, abs=0.005)


def test_elo_difference_edges() -> None:
    assert elo_difference(1.0) == math.inf
    assert elo_difference(0.0) == -math.inf
    assert math.isnan(elo_difference(math.nan))
    for bad in (-0.1, 1.1):
        with pytest.raises(ValueError):
            elo_difference(bad)


def test_elo_interval_maps_the_wilson_bounds() -> None:
    # 6-2-2: score 0.7 -> 147.19; Wilson (0.39677, 0.89221) -> (-72.78, 367.16)
    elo, low, high = elo_interval(6, 2, 2)
    assert elo == pytest.approx(147.19, abs=0.01)
    assert low == pytest.approx(-72.78, abs=0.01)
    assert high == pytest.approx(367.16, abs=0.01)


def test_elo_interval_edges() -> None:
    assert elo_interval(5, 0, 0)[0] == math.inf
    assert elo_interval(5, 0, 0)[2] == math.inf
    assert math.isfinite(elo_interval(5, 0, 0)[1])
    assert elo_interval(0, 0, 5)[1] == -math.inf
    elo, low, high = elo_interval(0, 0, 0)
    assert math.isnan(elo) and (low, high) == (-math.inf, math.inf)


def test_match_summary_properties() -> None:
    summary = MatchSummary("nhand:2", games=10, wins=6, draws=2, losses=2)
    assert summary.score == 0.7
    assert summary.interval == pytest.approx((0.3968, 0.8922), abs=5e-5)
    assert summary.elo == pytest.approx(147.19, abs=0.01)
    assert summary.elo_interval == pytest.approx((-72.78, 367.16), abs=0.01)
    assert str(summary) == "nhand:2: +6 =2 -2 score 0.700, Elo +147 [-73, +367]"


def test_match_summary_from_disc_diffs() -> None:
    summary = MatchSummary.from_disc_diffs("random", [12, -4, 0, 64, -2, 0, 8])
    assert summary == MatchSummary("random", 7, 3, 2, 2)
    assert summary.score == pytest.approx(4 / 7)


def test_match_summary_rejects_inconsistent_counts() -> None:
    with pytest.raises(ValueError, match="games"):
        MatchSummary("random", 9, 6, 2, 2)
    with pytest.raises(ValueError):
        MatchSummary("random", 0, -1, 1, 0)
    with pytest.raises(ValueError):
        MatchSummary.from_disc_diffs("random", [1.0, math.nan])


def test_mean_interval_matches_hand_computed_t_interval() -> None:
    # values 0.50, 0.52, 0.54: mean 0.52, sd 0.02, t(2) = 4.303 -> half-width 4.303 * 0.02 / sqrt(3)
    mean, half = mean_interval([0.50, 0.52, 0.54])
    assert mean == pytest.approx(0.52)
    assert half == pytest.approx(4.303 * 0.02 / 3 ** 0.5, rel=1e-4)
    assert mean_interval([0.4, 0.4])[1] == 0.0
    single = mean_interval([0.7])
    assert single[0] == 0.7 and math.isnan(single[1])
    wide = mean_interval([0.0, 1.0] * 10)  # 20 values: t(19) = 2.0930 (a table's value), not the normal 1.96
    assert wide[1] == pytest.approx(2.0930 * np.std([0.0, 1.0] * 10, ddof=1) / 20 ** 0.5, rel=1e-4)
    with pytest.raises(ValueError):
        mean_interval([])

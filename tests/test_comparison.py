"""Comparing settings over seeds: intervals and p-values by value, against hand-computed cases and scipy."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from ga.analysis.comparison import compare, difference_interval, holm, rank_test

T975_2 = 4.302652729749462  # Student's t, 97.5% quantile, 2 degrees of freedom (tables: 4.303)


def test_the_paired_interval_is_the_t_interval_of_the_differences() -> None:
    # differences 3, 3, 4: mean 10/3, sd sqrt(1/3), so the half-width is t(2) * sqrt(1/3) / sqrt(3) = t(2) / 3
    difference, low, high = difference_interval([1, 2, 3], [4, 5, 7], paired=True)
    assert difference == pytest.approx(10 / 3)
    assert (low, high) == pytest.approx((10 / 3 - T975_2 / 3, 10 / 3 + T975_2 / 3))
    reference = stats.ttest_rel([4, 5, 7], [1, 2, 3]).confidence_interval()
    assert (low, high) == pytest.approx((reference.low, reference.high))


def test_the_unpaired_interval_is_welchs() -> None:
    # means 2 and 16/3, variances 1 and 7/3: standard error sqrt(10/9), Welch's degrees of freedom 3.4483
    difference, low, high = difference_interval([1, 2, 3], [4, 5, 7], paired=False)
    assert difference == pytest.approx(10 / 3)
    degrees = (10 / 9) ** 2 / ((1 / 3) ** 2 / 2 + (7 / 9) ** 2 / 2)
    assert degrees == pytest.approx(3.4483, abs=1e-4)
    half = stats.t.ppf(0.975, degrees) * math.sqrt(10 / 9)
    assert (low, high) == pytest.approx((10 / 3 - half, 10 / 3 + half))
    reference = stats.ttest_ind([4, 5, 7], [1, 2, 3], equal_var=False).confidence_interval()
    assert (low, high) == pytest.approx((reference.low, reference.high))


def test_an_interval_needs_two_runs_a_side_and_is_a_point_without_spread() -> None:
    assert all(math.isnan(x) for x in difference_interval([0.5], [0.6], paired=True)[1:])
    assert all(math.isnan(x) for x in difference_interval([0.5, 0.6], [0.7], paired=False)[1:])
    assert difference_interval([0.5, 0.5], [0.6, 0.6], paired=False) == pytest.approx((0.1, 0.1, 0.1))
    with pytest.raises(ValueError, match="one size"):
        difference_interval([1, 2], [1, 2, 3], paired=True)


def test_mann_whitney_by_hand() -> None:
    # Every one of the second sample above the first: U = 0; of the C(6, 3) = 20 equally likely orderings,
    # one is as extreme each way, so the two-sided exact p is 2 / 20.
    assert rank_test([1, 2, 3], [4, 5, 6], paired=False) == ("Mann-Whitney U", 0.0, pytest.approx(0.1))
    # U of the first sample: 0.3 beats 0.2 and 0.25 (2), 0.1 beats none: U = 2 of 3 * 2 = 6; P(U <= 2) = 4 / 10.
    test, statistic, p = rank_test([0.1, 0.3], [0.2, 0.25, 0.4], paired=False)
    assert statistic == 2.0 and p == pytest.approx(2 * 4 / 10)


def test_wilcoxon_by_hand() -> None:
    # Five positive differences: W- = 0, one of 2^5 sign patterns as extreme each way: p = 2 / 32.
    assert rank_test([0, 0, 0, 0, 0], [1, 2, 3, 4, 5], paired=True) == ("Wilcoxon signed-rank", 0.0,
                                                                         pytest.approx(0.0625))
    # Differences +1, -2, +3: ranks 1, 2, 3; W- = 2. Sign patterns with W- <= 2: {}, {1}, {2}: 3 of 8, doubled.
    assert rank_test([0, 2, 0], [1, 0, 3], paired=True)[1:] == (2.0, pytest.approx(0.75))
    assert rank_test([0.5, 0.6], [0.5, 0.6], paired=True) == ("Wilcoxon signed-rank", 0.0, 1.0)


def test_three_seeds_can_never_be_significant_by_rank() -> None:
    # What a table of three seeds a setting must say: the smallest possible p-values.
    assert rank_test([0, 0, 0], [1, 2, 3], paired=True)[2] == pytest.approx(0.25)
    assert rank_test([0, 0.05, 0.1], [1, 2, 3], paired=False)[2] == pytest.approx(0.1)


def test_holm_by_hand() -> None:
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
    assert holm([0.5, math.nan, 0.01]) == [0.5, pytest.approx(math.nan, nan_ok=True), 0.02]
    assert holm([0.6, 0.7]) == [1.0, 1.0]
    assert holm([]) == []


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_never_lowers_a_p_value_and_keeps_their_order(p_values: list[float]) -> None:
    adjusted = holm(p_values)
    assert all(a >= p - 1e-15 and a <= 1 for a, p in zip(adjusted, p_values))
    order = np.argsort(p_values, kind="stable")
    assert all(adjusted[i] <= adjusted[j] for i, j in zip(order, order[1:]))


def test_compare_puts_it_together() -> None:
    result = compare("a", [0.50, 0.52, 0.54], "b", [0.55, 0.58, 0.60], paired=True)
    assert (result.first, result.second, result.paired, result.n) == ("a", "b", True, 3)
    assert result.difference == pytest.approx(0.17 / 3)
    assert result.test == "Wilcoxon signed-rank" and result.p == pytest.approx(0.25)
    assert math.isnan(result.p_adjusted)

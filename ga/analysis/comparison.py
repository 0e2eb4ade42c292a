"""Comparing two settings over seeds: the difference of their means, its interval, and a test.

Pure functions of a few runs' scores, one number a run: the run (its seed) is
the unit, as in :func:`ga.analysis.stats.mean_interval`. Scores are bounded
(0 to 1) and samples small (3 to 20 seeds), so the test is on ranks: the
Wilcoxon signed-rank test when the two settings ran the same seeds (a run of
one is paired with the other's run of the same seed, which starts from the
same initial population), the Mann-Whitney U test otherwise; both exact for
small samples without ties (scipy chooses). The interval of the difference is
Student's t: paired, or Welch's for two independent samples. Many comparisons
are corrected by Holm's step-down method (:func:`holm`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CORRECTION", "Comparison", "compare", "difference_interval", "holm", "rank_test", "smallest_p"]

#: How the p-values of many comparisons are corrected, as the summaries state it.
CORRECTION = "Holm (step-down Bonferroni) over the comparisons of each measure"
PAIRED_TEST = "Wilcoxon signed-rank"
UNPAIRED_TEST = "Mann-Whitney U"


@dataclass(frozen=True)
class Comparison:
    """Setting ``second`` against setting ``first`` on one measure: ``second - first``."""

    first: str
    second: str
    paired: bool  # the runs were paired by seed
    n: int  # runs (pairs when paired; the smaller sample otherwise)
    difference: float  # mean of second - mean of first
    low: float  # its 95% t interval
    high: float
    test: str  # PAIRED_TEST or UNPAIRED_TEST
    statistic: float
    p: float  # two-sided
    p_adjusted: float = math.nan  # after the correction for many comparisons (:func:`holm`)


def _t_quantile(degrees: float) -> float:
    from scipy import stats  # here: most commands never need scipy

    return float(stats.t.ppf(0.975, degrees))


def difference_interval(first: Sequence[float], second: Sequence[float], paired: bool) -> tuple[float, float, float]:
    """Returns ``(difference, low, high)``: ``mean(second) - mean(first)`` and its 95% t interval.

    Paired: the t interval of the mean of the differences (n - 1 degrees of
    freedom). Otherwise Welch's interval (Welch-Satterthwaite degrees of
    freedom). Without the runs to estimate a spread (fewer than two a side)
    the bounds are NaN.

    >>> [round(x, 4) for x in difference_interval([1, 2, 3], [4, 5, 7], paired=True)]
    [3.3333, 1.8991, 4.7676]
    """
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if paired:
        if a.size != b.size:
            raise ValueError(f"paired samples must be of one size, got {a.size} and {b.size}")
        differences = b - a
        difference = float(differences.mean()) if differences.size else math.nan
        if differences.size < 2:
            return difference, math.nan, math.nan
        half = _t_quantile(differences.size - 1) * float(differences.std(ddof=1)) / math.sqrt(differences.size)
        return difference, difference - half, difference + half
    difference = float(b.mean() - a.mean()) if a.size and b.size else math.nan
    if a.size < 2 or b.size < 2:
        return difference, math.nan, math.nan
    share_a, share_b = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    error = math.sqrt(share_a + share_b)
    if error == 0:
        return difference, difference, difference
    degrees = (share_a + share_b) ** 2 / (share_a**2 / (a.size - 1) + share_b**2 / (b.size - 1))
    half = _t_quantile(degrees) * error
    return difference, difference - half, difference + half


def rank_test(first: Sequence[float], second: Sequence[float], paired: bool) -> tuple[str, float, float]:
    """Returns ``(test, statistic, p)``: the two-sided rank test of ``second`` against ``first``.

    Paired: Wilcoxon's signed-rank test of the differences (zero differences
    dropped; all of them zero gives p = 1). Otherwise the Mann-Whitney U test
    (U of ``first``). With too few runs to test (none a side) p is NaN.

    >>> rank_test([1, 2, 3], [4, 5, 6], paired=False)  # U = 0: 2 orderings of C(6, 3) = 20 as extreme
    ('Mann-Whitney U', 0.0, 0.1)
    """
    from scipy import stats  # here: most commands never need scipy

    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if paired:
        if a.size != b.size:
            raise ValueError(f"paired samples must be of one size, got {a.size} and {b.size}")
        differences = b - a
        if not differences.size:
            return PAIRED_TEST, math.nan, math.nan
        if not differences.any():
            return PAIRED_TEST, 0.0, 1.0
        result = stats.wilcoxon(differences)
        return PAIRED_TEST, float(result.statistic), float(result.pvalue)
    if not a.size or not b.size:
        return UNPAIRED_TEST, math.nan, math.nan
    result = stats.mannwhitneyu(a, b, alternative="two-sided")
    return UNPAIRED_TEST, float(result.statistic), float(result.pvalue)


def smallest_p(paired: bool, first: int, second: int) -> float:
    """Returns the smallest two-sided p the rank test of :func:`rank_test` can give with these many runs, however
    large the difference: Wilcoxon's with ``first`` pairs, 2 / 2^n (every difference of one sign); Mann-Whitney's
    with ``first`` and ``second`` runs, 2 / C(first + second, first) (the two samples apart). With 3 pairs it is
    0.25: such a test cannot reach 0.05, whatever its p says.

    >>> smallest_p(True, 3, 3), smallest_p(True, 6, 6), smallest_p(False, 3, 3)
    (0.25, 0.03125, 0.1)
    """
    if first < 1 or second < 1:
        return math.nan
    if paired:
        return min(1.0, 2.0 / 2**first)
    return min(1.0, 2.0 / math.comb(first + second, first))


def holm(p_values: Sequence[float]) -> list[float]:
    """Returns Holm's adjusted p-values, in the order given (NaN stays NaN and is not counted).

    The smallest of m p-values is multiplied by m, the next by m - 1, and so
    on, each kept at least as large as the one before and at most 1. It holds
    the chance of any false finding at 5% among all the comparisons, whatever
    their dependence.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    values = [float(p) for p in p_values]
    order = sorted((p, index) for index, p in enumerate(values) if not math.isnan(p))
    adjusted = [math.nan] * len(values)
    running = 0.0
    for rank, (p, index) in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p))
        adjusted[index] = round(running, 15)  # (3 * 0.01 is 0.030000000000000002 in binary)
    return adjusted


def compare(first: str, first_scores: Sequence[float], second: str, second_scores: Sequence[float], *,
            paired: bool) -> Comparison:
    """Returns the comparison of setting ``second`` with setting ``first`` (both scored on one measure)."""
    difference, low, high = difference_interval(first_scores, second_scores, paired)
    test, statistic, p = rank_test(first_scores, second_scores, paired)
    n = len(first_scores) if paired else min(len(first_scores), len(second_scores))
    return Comparison(first, second, paired, n, difference, low, high, test, statistic, p)

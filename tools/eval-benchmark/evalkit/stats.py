"""Small, exact statistics for counts: a rate, Wilson intervals, the
hypergeometric interval of a finite population, and McNemar's test.

Wilson score interval (95%, z = 1.959963984540054) for x successes in n:
    centre = (p + z²/2n) / (1 + z²/n)
    half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)
It stays inside [0, 1] and behaves at 0/n and n/n, where the normal
approximation does not; 15 questions per language need that.

The exact hypergeometric interval (the finite-population form of
Clopper-Pearson): of N items, F are marked; a sample of n drawn without
replacement holds k marked. The interval of F is every F under which the
k seen is not in either tail: P(K <= k | F) > alpha/2 and
P(K >= k | F) > alpha/2, K hypergeometric (N, F, n). Its coverage is at
least 1 - alpha for every F, whatever N, n and F are; with n = N it is the
one point k. Computed in integers (math.comb) and compared with a Fraction,
so that no float rounding ever moves an end.

Worked example: 0 marked in a sample of 20 of 45 items: F is at most 5
(P(K = 0 | F = 5) = C(40,20)/C(45,20) = 0.0435 > 0.025, and 0.0217 for F = 6),
and at least 0: the interval is (0, 5).

McNemar's exact test for paired verdicts (the same questions, two runs): of
the b questions that passed only in A and the c that passed only in B, under
no change each discordant question is a fair coin, so the two-sided p-value is
    min(1, 2 * P(X <= min(b, c))),  X ~ Binomial(b + c, 1/2)
computed with integers (math.comb) and one division at the end.
"""

import math
from fractions import Fraction

Z95 = 1.959963984540054
ALPHA95 = Fraction(1, 20)


def rate(passed, applicable):
    """passed / applicable, rounded once to 4 places; None of nothing."""
    return round(passed / applicable, 4) if applicable else None


def wilson(passed, n, z=Z95):
    """``(low, high)`` of the 95% Wilson interval, or None when n == 0."""
    if n == 0:
        return None
    p = passed / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _ways(total, marked, drawn, seen):
    """The samples of ``drawn`` of ``total`` items that hold ``seen`` of the
    ``marked`` ones."""
    return math.comb(marked, seen) * math.comb(total - marked, drawn - seen)


def hypergeometric_interval(seen, drawn, total, alpha=ALPHA95):
    """``(low, high)``: the exact interval of how many of ``total`` items are
    marked, ``seen`` of them found in a sample of ``drawn`` (module docstring).
    ``alpha`` is a Fraction (1/20 for 95%)."""
    if not 0 <= seen <= drawn <= total:
        raise ValueError(f"{seen} of {drawn} drawn from {total}")
    everything = math.comb(total, drawn)
    # A tail is "not too rare" when tail / everything > alpha / 2.
    def likely(tail):
        return 2 * tail * alpha.denominator > alpha.numerator * everything

    fewest, most = seen, total - drawn + seen

    def at_most_seen(marked):   # P(K <= seen): falls as ``marked`` grows
        return likely(sum(_ways(total, marked, drawn, j) for j in range(seen + 1)))

    def at_least_seen(marked):  # P(K >= seen) = 1 - P(K < seen): grows with ``marked``
        return likely(everything - sum(_ways(total, marked, drawn, j) for j in range(seen)))

    return first_true(fewest, most, at_least_seen), _last(fewest, most, at_most_seen)


def first_true(low, high, holds):
    """The smallest x in [low, high] where ``holds`` (false, then true, as x
    grows) is true; ``high`` when only it is."""
    while low < high:
        mid = (low + high) // 2
        if holds(mid):
            high = mid
        else:
            low = mid + 1
    return low


def _last(low, high, holds):
    """The largest x in [low, high] where ``holds`` (true, then false) is
    true; ``low`` when only it is."""
    while low < high:
        mid = (low + high + 1) // 2
        if holds(mid):
            low = mid
        else:
            high = mid - 1
    return low


def mcnemar_exact(only_a, only_b):
    """Two-sided exact McNemar p-value as a Fraction (1 when nothing differs)."""
    n = only_a + only_b
    if n == 0:
        return Fraction(1)
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(Fraction(1), Fraction(2 * tail, 2 ** n))

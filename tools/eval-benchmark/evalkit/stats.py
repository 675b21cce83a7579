"""Small, exact statistics for counts: Wilson intervals and McNemar's test.

Wilson score interval (95%, z = 1.959963984540054) for x successes in n:
    centre = (p + z²/2n) / (1 + z²/n)
    half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)
It stays inside [0, 1] and behaves at 0/n and n/n, where the normal
approximation does not; 15 questions per language need that.

McNemar's exact test for paired verdicts (the same questions, two runs): of
the b questions that passed only in A and the c that passed only in B, under
no change each discordant question is a fair coin, so the two-sided p-value is
    min(1, 2 * P(X <= min(b, c))),  X ~ Binomial(b + c, 1/2)
computed with integers (math.comb) and one division at the end.
"""

import math
from fractions import Fraction

Z95 = 1.959963984540054


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


def mcnemar_exact(only_a, only_b):
    """Two-sided exact McNemar p-value as a Fraction (1 when nothing differs)."""
    n = only_a + only_b
    if n == 0:
        return Fraction(1)
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(Fraction(1), Fraction(2 * tail, 2 ** n))

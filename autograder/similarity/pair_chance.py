"""How likely students working alone are to write answers alike as a pair did, for `evidence.pair_scores`: two
readings of the exercises a pair answered alike as programs, each a chance, in bits.

- `reach_bits`: one student's answers, each with its chance that another student writes it too (its share of
  the class), and the chance that a student working alone writes enough of them for their bits to sum to the
  pair's. The exercises a pair answered alike are not chosen in advance: not 2 to the minus the sum, but the
  chance of reaching it, every way (exact, the exercises independent), and no charge for the ways to choose them.
- `alone_bits`: mistakes no one else made. Counted by students, an answer that only a pair wrote is 1 in n - 1,
  and two of them (2 log2(n - 1) bits) never reach the threshold of log2(n (n - 1)); but the class shows how
  seldom two of its students share a mistake no one else made (such mistakes over its pairs), and two such
  exercises at once are about that chance squared.
"""

import functools
import math
from collections import defaultdict
from collections.abc import Iterable

# Bits are summed on a grid of this many steps a bit, each answer's rounded up: the chance of reaching a sum is
# then never under-stated, and over-stated by at most one step an answer (6 exercises: 0.2 bits).
STEPS = 32


def alone_bits(shares: Iterable[float], alone: int) -> float:
    """log2 of 1 / the chance that two students working alone share, in at least `alone` exercises, a mistake no
    one else made, each exercise's chance (`shares`) the share of the class's pairs who do (the wrong answers
    that exactly two students wrote, wrong alike, over the pairs), the exercises independent."""
    at_least = [1.0] + [0.0] * alone  # at_least[k]: the chance of k such exercises or more, so far (k <= alone)
    for share in shares:
        at_least = [at_least[0]] + [at_least[k] * (1 - share) + at_least[k - 1] * share for k in range(1, alone + 1)]
    return -math.log2(at_least[alone]) if at_least[alone] > 0 else 0.0


@functools.lru_cache(maxsize=65536)
def _reach(answers: tuple[tuple[float, int], ...]) -> list[float]:
    """at_least[k]: the chance that a student working alone writes enough of the answers (each its chance and
    its worth in steps) for their worth to sum to k steps or more."""
    reach: dict[int, float] = {0: 1.0}
    for chance, steps in answers:
        after: dict[int, float] = defaultdict(float)
        for k, p in reach.items():
            after[k] += p * (1.0 - chance)
            after[k + steps] += p * chance
        reach = after
    at_least = [0.0] * (max(reach) + 2)
    for k, p in reach.items():
        at_least[k] += p
    for k in range(len(at_least) - 2, -1, -1):
        at_least[k] += at_least[k + 1]
    return at_least


def reach_chance(answers: Iterable[tuple[float, float]], total: float) -> float:
    """The chance that a student working alone writes, of one student's answers (each with its chance that another
    writes it, and its worth in bits), enough for their worth to sum to `total`: the exercises a pair answered
    alike are not chosen in advance, so not 2 to the minus `total`, but neither charged for every way to choose
    them. Each worth is rounded up to the grid (`STEPS`); a sum beyond the most they can reach is the most."""
    on_grid = tuple(sorted((chance, math.ceil(bits * STEPS - 1e-9)) for chance, bits in answers
                           if chance > 0))  # an answer no one else wrote is never written
    at_least = _reach(on_grid)
    k = max(0, math.ceil(total * STEPS - 1e-9))
    return at_least[min(k, len(at_least) - 2)]


def reach_bits(chances: Iterable[float], total: float) -> float:
    """`reach_chance` in bits, each answer worth its own chance's bits."""
    return -math.log2(reach_chance(((c, -math.log2(c)) for c in chances if c > 0), total))

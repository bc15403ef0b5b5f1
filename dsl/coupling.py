"""Random players whose choices are coupled between readings (docs/simulate.md, "Coupling").

Two readings of an ambiguity are compared by playing "the same game" under both. A random player
that drew the k-th number of one stream at the k-th decision would make different choices under
two readings as soon as one of them adds or removes a decision, even when they mean the same, and
every later choice would differ: the comparison would measure the stream, not the rule. Here a
choice depends only on what is being chosen:

- the game's seed, the chooser (a seat, or chance), the decision's label (``choose … label``, or
  the zone a draw is from), and how many such decisions with more than one option the chooser has
  faced before (its occurrence);
- each option gets a pseudo-random key from those and its own value; the player takes the option
  with the smallest key (chance: the smallest key scaled by the option's probability, an
  exponential race, so outcomes keep their probabilities).

So each choice is uniform (chance: as likely as the game says), and two readings that offer the same
options at the same kind of decision make the same choice; if one reading offers an option less,
the other choices stay the same unless it was the one taken. A decision with a single option is
forced: it takes no number and counts no occurrence, so a reading that adds only forced decisions
plays exactly like one without them.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

_M = (1 << 64) - 1
_SCALE = 1.0 / (1 << 64)


def mix(x: int) -> int:
    """splitmix64's finalizer: a 64-bit integer to a well-spread 64-bit integer."""
    x = (x + 0x9E3779B97F4A7C15) & _M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M
    return x ^ (x >> 31)


CHANCE = -1  # the chooser of a chance node


class Coupled:
    """The random choices of one game (all players and chance), from its seed."""

    __slots__ = ("_base", "_keys", "_seen")

    def __init__(self, seed: int) -> None:
        self._base = mix(seed & _M)
        self._seen: dict[tuple[int, str], int] = {}
        self._keys: dict[tuple[int, str], int] = {}

    def _key(self, who: int, label: str) -> int:
        """The key of the next decision of ``who`` with this label (counting it)."""
        slot = (who, label)
        stem = self._keys.get(slot)
        if stem is None:
            stem = self._keys[slot] = mix(self._base ^ mix((who + 2) ^ (zlib.crc32(label.encode("utf-8")) << 8)))
        k = self._seen.get(slot, 0)
        self._seen[slot] = k + 1
        return mix(stem ^ k)

    def choose(self, who: int, label: str, options: Sequence[int]) -> int:
        """A uniform choice among ``options`` (the legal actions) by seat ``who``."""
        if len(options) == 1:
            return options[0]
        return _smallest(self._key(who, label), options)

    def chance(self, label: str, outcomes: Sequence[tuple[int, float]]) -> int:
        """A chance outcome, each as likely as its probability."""
        if len(outcomes) == 1:
            return outcomes[0][0]
        key = self._key(CHANCE, label)
        first = outcomes[0][1]
        if all(p == first for _, p in outcomes):
            return _smallest(key, [a for a, _ in outcomes])
        # an exponential race: the smallest -ln(u) / p wins with probability p
        best, best_score = outcomes[0][0], math.inf
        for a, p in outcomes:
            if p <= 0:
                continue
            score = -math.log((_spread(key, a) + 0.5) * _SCALE) / p
            if score < best_score:
                best, best_score = a, score
        return best


def _spread(key: int, a: int) -> int:
    """The pseudo-random 64-bit key of option ``a`` of the decision whose key is ``key`` (murmur3's
    64-bit finalizer; ``key`` is well mixed already, so its first shift is left out)."""
    x = ((key ^ (a & _M)) * 0xFF51AFD7ED558CCD) & _M
    x = ((x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53) & _M
    return x ^ (x >> 33)


def _smallest(key: int, options: Sequence[int]) -> int:
    """The option with the smallest key: _spread written out, as this loop runs for every option of
    every random decision of a simulation."""
    best, lowest = options[0], _M + 1
    for a in options:
        x = ((key ^ (a & _M)) * 0xFF51AFD7ED558CCD) & _M
        x = ((x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53) & _M
        x ^= x >> 33
        if x < lowest:
            best, lowest = a, x
    return best

"""The drawing of lots: one shuffle, from a recorded seed, that anyone can redraw.

Seating a tour by lot [Code, footnote 9] and the last tie-break of the standings (the
lot when everything else is equal: docs/conventions.md, "Tournaments") draw with it.
A Fisher–Yates shuffle of the items in their given order, from the last place down,
each place's pick the first 8 bytes (big-endian) of SHA-256 of ``"{seed}\\n{counter}"``,
counter from 0, rejected above the largest multiple of the range.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def draw_lots(seed: str, items: Sequence[str]) -> list[str]:
    """``items`` in the order the lot from ``seed`` gives them."""
    order = list(items)
    counter = 0

    def below(n: int) -> int:
        nonlocal counter
        limit = (1 << 64) // n * n
        while True:
            digest = hashlib.sha256(f"{seed}\n{counter}".encode()).digest()
            counter += 1
            x = int.from_bytes(digest[:8], "big")
            if x < limit:
                return x % n

    for i in range(len(order) - 1, 0, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order

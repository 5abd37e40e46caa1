"""Seating a tour: how many tables of which size, a draw by lot from a recorded seed, and
the Swiss seating of later tours. The command side decides a seating with these and
records it as ``Seated`` events; replay reads the events and never seats again.

- Table sizes: tables of the tournament's usual size (3 or 4); when the count of
  players does not divide, some tables take the other size, fewest possible, placed
  last. Five players, or fewer than three, cannot be seated.
- The lot [Code, footnote 9: seating is drawn by lot]: the players in their order of
  entry shuffled by ``lot.draw_lots`` from a recorded seed; anyone can redraw it.
- Swiss: players in the order of the standings fill the tables in turn, each table
  taking the best-placed player left, then, one by one, the best-placed player who has
  met the fewest of those already at the table in earlier tours; then players are
  swapped between tables while a swap lowers the number of pairs who meet again.
  Repeats are avoided as far as that finds; when none can be, the closest in the
  standings sit together.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.vocabulary.lot import draw_lots

Table = tuple[str, ...]


def table_sizes(players: int, usual: int) -> list[int] | None:
    """The sizes of the tables for ``players`` players, usual size first; None if impossible."""
    if usual == 4:
        tables = -(-players // 4)
        threes = 4 * tables - players
        if players < 3 or threes > tables:
            return None
        return [4] * (tables - threes) + [3] * threes
    tables = players // 3
    fours = players - 3 * tables
    if tables == 0 or fours > tables:
        return None
    return [3] * (tables - fours) + [4] * fours


def by_lot(seed: str, players: Sequence[str], sizes: Sequence[int]) -> list[Table]:
    """Tables filled in the order of the draw."""
    return _slices(draw_lots(seed, players), sizes)


def _slices(order: Sequence[str], sizes: Sequence[int]) -> list[Table]:
    tables, start = [], 0
    for size in sizes:
        tables.append(tuple(order[start:start + size]))
        start += size
    return tables


def repeats(table: Sequence[str], met: set[frozenset[str]]) -> int:
    """The pairs at ``table`` who have met before."""
    return sum(1 for i, a in enumerate(table) for b in table[i + 1:] if frozenset((a, b)) in met)


def swiss(order: Sequence[str], met: set[frozenset[str]], sizes: Sequence[int]) -> list[Table]:
    """Tables for players in standings ``order`` who have met the pairs in ``met``."""
    rank = {p: i for i, p in enumerate(order)}
    remaining = list(order)
    tables: list[list[str]] = []
    for size in sizes:
        table = [remaining.pop(0)]
        while len(table) < size:
            best = min(range(len(remaining)), key=lambda i: (repeats([*table, remaining[i]], met), i))
            table.append(remaining.pop(best))
        tables.append(table)
    improved = True
    while improved:
        improved = False
        for a in range(len(tables)):
            for b in range(a + 1, len(tables)):
                for i in range(len(tables[a])):
                    for j in range(len(tables[b])):
                        before = repeats(tables[a], met) + repeats(tables[b], met)
                        tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                        if repeats(tables[a], met) + repeats(tables[b], met) < before:
                            improved = True
                        else:
                            tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
    seated = [tuple(sorted(t, key=rank.__getitem__)) for t in tables]
    return sorted(seated, key=lambda t: rank[t[0]])

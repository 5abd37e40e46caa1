"""Each person's numbers added up over the pulkas the views count (``archive_totals``:
person -> ``projections.stat_totals.totals_text``), kept in the transaction that writes
the pulkas' counts (``archive_stats``), so that they are always the sum of the counts kept.

A pulka's counts of a person written anew (``replaced``: a later event counted it again,
a correction among them) take its old counts away and add the new; counts deleted (the
pulka left out where its chain breaks or the judge refuses an event, or a pulka the
statistics cannot count: ``dropped``) are taken away. Only what the write changes moves
the totals: counts of an earlier version than those kept are not written (a follower
behind), and move nothing. The writers of a view take turns (the position's row is
written first: SQLite's write lock, PostgreSQL's row lock), so what is read here is
what the last of them left.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.views.rating import Tx
from projections.stat_totals import Totals, add, read_totals, totals_text

TABLE = "archive_totals"
CREATE = "CREATE TABLE IF NOT EXISTS {archive_totals} (person {text} PRIMARY KEY, totals {text} NOT NULL)"


class Keeper:
    """The totals' moves of one write, gathered as its counts change and written at its end."""

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.moved: dict[str, Totals] = {}

    def kept(self, game: str) -> dict[str, tuple[int, str]]:
        """Each person's counts of ``game`` as kept, added up (``archive_stats.totals``), with their version."""
        rows = self.tx.query("SELECT person, version, totals FROM {archive_stats} WHERE game = ?", (game,))
        return {str(person): (int(version), str(totals)) for person, version, totals in rows}

    def replaced(self, game: str, version: int, counted: Sequence[tuple[str, str, str]]) -> None:
        """The counts of ``game`` after its event ``version`` about to be written (before
        they are): person, ``counted_text``, its ``totals_text``."""
        before = self.kept(game)
        for person, _text, totals in counted:
            old = before.get(person)
            if old is not None and old[0] >= version:
                continue  # not written: what is kept is as new or newer
            moved = self.moved.setdefault(person, {})
            add(moved, read_totals(totals))
            if old is not None:
                add(moved, read_totals(old[1]), -1)

    def dropped(self, game: str, below: int | None = None) -> None:
        """The counts of ``game`` about to be deleted: all, or those of a version below ``below``."""
        for person, (version, text) in self.kept(game).items():
            if below is None or version < below:
                add(self.moved.setdefault(person, {}), read_totals(text), -1)

    def finish(self) -> None:
        """Each person's totals moved by what this write changed, written."""
        for person, moved in sorted(self.moved.items()):
            if not moved:
                continue
            found = self.tx.query("SELECT totals FROM {archive_totals} WHERE person = ?", (person,))
            totals = add(read_totals(found[0][0]) if found else {}, moved)
            if totals:
                self.tx.execute("INSERT INTO {archive_totals} VALUES (?, ?) ON CONFLICT (person) DO UPDATE "
                                "SET totals = excluded.totals", (person, totals_text(totals)))
            else:
                self.tx.execute("DELETE FROM {archive_totals} WHERE person = ?", (person,))
        self.moved = {}

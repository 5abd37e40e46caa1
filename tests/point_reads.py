"""What the golden comparison of the reads at a point (``tests/test_point_reads.py``)
reads: a pulka with corrections (one of an early deal, late), entries and penalties by
hand and a ruling, made through the desk on a fixed clock (the same events every
time), a few golden fixtures beside it (four players among them), and the digests of
their drawn sheets at every point in both languages.

The digests in ``tests/data/point_reads_svg.json`` were made by the drawing as it was
before the reads at a point were made faster (issue 30: the SVG written by
``ElementTree``, every band's lines searched one count at a time, each entry's texts made
in every size of sheet tried), so the faster drawing is held to the same bytes. When the
drawing changes on purpose, write them again from the new drawing, once its pictures are
checked by eye and by the browser tests::

    python tests/point_reads.py tests/data/point_reads_svg.json
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from collections.abc import Iterator
from itertools import count
from pathlib import Path

from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, GameStarted, Tricks
from projections.at_points import PointFolds
from projections.drawing.svg import page_sheet, svg_document
from projections.points import Point

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_fixtures import FIXTURES, judged  # noqa: E402

DIGESTS = Path(__file__).resolve().parent / "data" / "point_reads_svg.json"
LINES = ("6S pass pass | 6S | whist whist | 6 2 2", "7H pass pass | 7H | whist pass | 6 3 1",
         "pass pass pass | 4 3 3", "misere pass pass | misere | 1", "pass 6NT pass | 6NT | pass pass")
# Golden fixtures with corrections, entries, penalties, rulings, and a fourth player.
GOLDEN = ("code_rulings", "code_4_2_7_scorer", "rec_arbiter_penalty", "rec_deadline_boundary",
          "rec_first_and_second_error", "code_3_1_2_newcomer")


# Names that the SVG must escape, in its texts and its attributes.
ANNA, BORIS, VERA = "Anna & Co", "<Boris>", 'Vera "V"'


def long_game(db: str, deals: int = 80) -> list[AnyEvent]:
    """The pulka of ``deals`` deals (some 500 events: bands of more than one line)
    stored in ``db``, its events."""
    ticks = count()

    def clock() -> str:
        n = next(ticks)
        return f"2026-03-14T{19 + n // 60:02d}:{n % 60:02d}:00+01:00"

    early: tuple[int, list[str]] | None = None
    with Store(db, create=True) as store:
        desk = PulkaDesk(Ledger(store, clock=clock))
        desk.new("long", f"{ANNA},{BORIS},{VERA}", pulya=5000, by=ANNA)
        for k in range(deals):
            if k == 3:  # the declarer gives up after the whists [Code 3.5.4]
                desk.deal("long", "6H pass pass | 6H | whist whist", leave_open=True)
                desk.ruling("long", "3.5.4", reason="gives up", by="arbiter:Petrov")
                continue
            told = desk.deal("long", LINES[k % len(LINES)])
            if k % 7 == 2:
                desk.entry("long", VERA, "whists", 4, on=ANNA)
            if k % 11 == 5:
                desk.penalty("long", BORIS, "gora", 2, reason="late", by="arbiter:Petrov")
            last = told.events[-1]
            if k == 0:  # 6S made: corrected late to one down, which every later number may feel
                (declarer, _six), (defender, two) = sorted(last.event.tricks.items(), key=lambda pt: -pt[1])[:2]
                early = (last.number, [f"{declarer}=5", f"{defender}={two + 1}"])
            if k == 30 and early is not None:  # by its recorder: late, and effective [Code 4.2.9]
                desk.correct("long", early[0], early[1])
            if k % 4 == 1 and isinstance(last.event, Tricks) and len(last.event.tricks) > 2:
                (a, x), (b, y) = sorted(last.event.tricks.items(), key=lambda pt: pt[1])[:2]
                if x != y:  # the two smaller counts swapped
                    desk.correct("long", last.number, [f"{a}={y}", f"{b}={x}"], by="arbiter:Petrov")
        return [s.event for s in store.load("long")]


def games(db: str) -> Iterator[tuple[str, list[AnyEvent]]]:
    """The long pulka (stored in ``db``) and the golden fixtures, by name."""
    yield "long", long_game(db)
    for name in GOLDEN:
        yield name, judged(FIXTURES / f"{name}.jsonl")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def drawn_digests(events: list[AnyEvent]) -> dict[str, list[str]]:
    """Per language, the digests of the drawn sheet and of the sheet alone (a page's
    ``?part=sheet``) at every point of ``events``: two a point."""
    first = events[0]
    assert isinstance(first, GameStarted)
    folds = PointFolds(first)
    folds.follow(events)
    out: dict[str, list[str]] = {}
    for spoken in ("en", "ru"):
        with language.using(spoken):
            out[spoken] = []
            for k in range(1, len(events) + 1):
                picture = folds.picture(events, Point(at=k))
                out[spoken] += [digest(svg_document(picture)), digest(page_sheet(picture))]
    return out


def main() -> None:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DIGESTS
    with tempfile.TemporaryDirectory() as tmp:
        doc = {name: drawn_digests(events) for name, events in games(str(Path(tmp) / "long.db"))}
    target.write_text(json.dumps(doc, indent=0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

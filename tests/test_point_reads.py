"""The faster reads at a point (issue 30) give, byte for byte, what the reads built the
old way give, at every point of a pulka with corrections (one of an early deal, after
its rows were read), entries and penalties by hand and a ruling, and of golden
fixtures (``tests/point_reads.py``), in both languages: the deals table from the rows
kept per deal against ``deal_table`` encoded whole; the standing entries of the drawn
sheet made from the writes against those made from each number's ``explain`` trace;
the drawn sheet against the digests of the drawing as it was (``ElementTree``, every
band's line count searched), and its quick wrapping against the search."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, GameStarted
from point_reads import DIGESTS, drawn_digests, games
from test_fixtures import FIXTURES, judged
from projections.at_points import PointFolds
from projections.audit import AuditRow
from projections.deal_text import deal_table, table_json
from projections.drawing import sheet_layout
from projections.drawing.sheet_layout import EntryToken, Polygon
from projections.drawing.svg import Drawing, draw_token, drawn_token, svg_document
from projections.picture import Runs, marks_at, marks_of, revising, traces_of
from projections.numbers import json_plain
from projections.points import Point
from projections.trail import PLAYER_CELLS, row_doc, select_rows, trail_json


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[AnyEvent]]:
    return dict(games(str(tmp_path_factory.mktemp("point-reads") / "long.db")))


def folds_of(events: list[AnyEvent]) -> PointFolds:
    first = events[0]
    assert isinstance(first, GameStarted)
    return PointFolds(first)


def old_table(game: str, folds: PointFolds, events: list[AnyEvent], k: int) -> bytes:
    """The deals table at event ``k`` as the service encoded it before: the whole table
    made by ``deal_table`` and encoded at once."""
    head, rows = deal_table(folds.state_at(events, k))
    doc: dict[str, Any] = {"game": game, "columns": head,
                           "rows": [[str(v) if isinstance(v, Fraction) else v for v in r] for r in rows]}
    return msgspec.json.encode(doc)


def walked(played: dict[str, list[AnyEvent]]) -> Iterator[tuple[str, list[AnyEvent], PointFolds, str, int, bool]]:
    """Each game read at every point as its stream grows (its folds following it), then
    at every point going back, in both languages: (game, its events, its folds, the
    language, the point's event, whether going back). The language is in effect while
    the caller reads."""
    for name, events in played.items():
        folds = folds_of(events)
        for spoken in ("en", "ru"):
            with language.using(spoken):
                for k in range(1, len(events) + 1):
                    folds.follow(events[:k])
                    yield name, events, folds, spoken, k, False
                for k in range(len(events), 0, -1):
                    yield name, events, folds, spoken, k, True


def test_the_deals_table_from_kept_rows_is_the_table_made_whole(played: dict[str, list[AnyEvent]]) -> None:
    """Read as the stream grows (its rows kept from read to read), then again at every
    point after the late correction of an early deal; in both languages."""
    for name, events, folds, spoken, k, back in walked(played):
        if back:
            assert table_json(name, *folds.deals(events, Point())) == old_table(name, folds, events, len(events))
        assert table_json(name, *folds.deals(events, Point(at=k))) == old_table(name, folds, events, k), \
            (name, spoken, k)


def test_a_row_is_made_once_and_taken_again(played: dict[str, list[AnyEvent]]) -> None:
    """A later read takes the rows of the deals that did not change as they were made,
    and makes again those a correction changed."""
    events = played["long"]
    folds = folds_of(events)
    folds.follow(events)
    _, rows = folds.deals(events, Point(at=len(events)))
    _, again = folds.deals(events, Point(at=len(events) - 1))
    # the deals of the last events before the point are folded afresh from a kept fork
    # (``at_points.EVERY`` events at most: a few deals), the others are the fork's own
    assert sum(a is b for a, b in zip(rows, again)) >= len(rows) - 6
    corrected = [n for n, e in enumerate(events, start=1) if type(e).__name__ == "Correction"]
    late = corrected[-1]  # the late correction of an early deal's tricks
    _, before = folds.deals(events, Point(at=late - 1))
    _, after = folds.deals(events, Point(at=late))
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert changed, "the correction changed no row"
    assert all(after[i] is not before[i] for i in changed)


def old_trail(game: str, rows: list[AuditRow], version: int) -> bytes:
    """The audit trail as the service encoded it before: each row's document made and
    the whole document encoded at once."""
    return msgspec.json.encode({"game": game, "version": version, "events": [row_doc(r) for r in rows]},
                               enc_hook=json_plain)


# Golden fixtures in which a later event changes what an earlier row says: an objection
# to a late record, a deal withdrawn while in hand. The audit trail's test reads them too.
REVISED = ("rec_objection_after", "rec_4_2_8_withdrawn_deal")


def test_the_audit_trail_from_kept_rows_is_the_trail_encoded_whole(played: dict[str, list[AnyEvent]]) -> None:
    """Read as the stream grows, then at every point going back past the late correction
    of an early deal (its verdicts as each point has them), and in games where a later
    event changes what an earlier row says; in both languages; the whole trail and, going
    back, the rows of one deal."""
    games = {**played, **{name: judged(FIXTURES / f"{name}.jsonl") for name in REVISED}}
    said: dict[tuple[str, int], set[bytes]] = {}
    for name, events, folds, spoken, k, back in walked(games):
        rows = folds.audit(events, Point(at=k))
        for chosen in (rows, select_rows(rows, deal=2)) if back else (rows,):
            assert trail_json(name, k, folds.audit_json(events, chosen, PLAYER_CELLS)) == \
                old_trail(name, chosen, k), (name, spoken, k)
        if spoken == "en":
            for r in rows:
                said.setdefault((name, r.number), set()).add(old_trail(name, [r], 0))
    # the games above do have rows that say something else at a later point
    assert {name for (name, _), texts in said.items() if len(texts) > 1} == set(REVISED)


def test_a_trail_row_is_encoded_once_and_taken_again(played: dict[str, list[AnyEvent]]) -> None:
    """A row the trail keeps as it was made is sent as the same bytes from read to read;
    a row with the verdict a later state gives it (``final_row``) is made as it comes."""
    events = played["long"]
    folds = folds_of(events)
    folds.follow(events)
    first = folds.audit_json(events, folds.audit(events, Point()), PLAYER_CELLS)
    rows = folds.audit(events, Point(at=len(events) - 1))
    again = folds.audit_json(events, rows, PLAYER_CELLS)
    kept_rows = folds.trail(events, len(events)).rows
    as_made = [r is kept_rows[i] for i, r in enumerate(rows)]
    assert [a is b for a, b in zip(first, again)] == as_made
    assert 0 < as_made.count(False) < len(rows) // 10  # the rows with a verdict of the state's own


def test_the_standing_entries_from_the_writes_are_those_of_the_traces(played: dict[str, list[AnyEvent]]) -> None:
    """Made afresh at each point, and from the runs kept by chunk of writes as a
    service's reads keep them (forward, then backward across the late correction of an
    early deal), in both languages: the entries made from each number's trace."""
    for name, events in played.items():
        folds = folds_of(events)
        folds.follow(events)
        for spoken in ("en", "ru"):
            with language.using(spoken):
                said: dict[int, tuple[str, str]] = {}
                kept: dict[int, tuple[object, Runs]] = {}
                for k in [*range(1, len(events) + 1), *range(len(events), 0, -3)]:
                    state = folds.state_at(events, k)
                    types = {r.number: r.type for r in folds.audit_at(events, state)}
                    traced = marks_of(traces_of(state), types)
                    assert marks_at(state, types, said) == traced, (name, spoken, k)
                    assert marks_at(state, types, said, kept) == traced, (name, spoken, k, "kept")
                if name == "long":  # of many deals: its chunks were kept, and taken again
                    assert kept, "no chunk's runs were kept"
        if name == "long":  # its corrections struck entries: the drawn sheet shows them beside these
            assert revising(folds.audit_at(events, folds.state_at(events, len(events))))


def test_the_drawn_sheet_is_the_drawing_as_it_was(played: dict[str, list[AnyEvent]]) -> None:
    """Every point's drawn sheet and sheet alone, both languages, against the digests
    made by the drawing before it was made faster."""
    expected = json.loads(Path(DIGESTS).read_text(encoding="utf-8"))
    assert set(expected) == set(played)
    for name, events in played.items():
        assert drawn_digests(events) == expected[name], name


def test_the_quick_wrapping_is_the_search(played: dict[str, list[AnyEvent]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Bands of one part or two wrapped once give the lines of the search over every
    count of lines (``fit_band``), at every point of the long pulka."""
    events = played["long"]
    folds = folds_of(events)
    folds.follow(events)
    pictures = [folds.picture(events, Point(at=k)) for k in range(1, len(events) + 1)]
    quick = [svg_document(p) for p in pictures]
    monkeypatch.setattr(sheet_layout, "FIXED_BOUNDS", False)
    assert [svg_document(p) for p in pictures] == quick


def test_a_token_kept_as_drawn_is_kept_per_frame() -> None:
    """The same token at the same place of two frames (two sizes of sheet), and at 0
    and -0 (which ``fmt_px`` writes apart: a penalty's box): each drawn as
    ``draw_token`` draws it there, not as it was kept from the other."""
    mark = {"event": 7, "deal": 2, "total": "12", "amount": "+4", "why": "whists", "penalty": True,
            "corrected_by": [], "struck_by": None}
    token = EntryToken("12.", 30.0, mark, "Anna.whists.Boris")
    for apothem, x in ((150.0, -20.0), (180.0, -20.0), (150.0, -20.0), (150.0, 0.0), (150.0, -0.0)):
        frame = Polygon(3, apothem).frame(1)
        kept, fresh = Drawing(), Drawing()
        kept_out: list[str] = []
        fresh_out: list[str] = []
        drawn_token(kept, kept_out, frame, "Anna", token, x, 14.5)
        draw_token(fresh, fresh_out, frame, "Anna", token, x, 14.5)
        assert (kept_out, kept.placed) == (["".join(fresh_out)], fresh.placed), (apothem, x)

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
from typing import Any, cast

import msgspec
import pytest

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, GameStarted
from point_reads import DIGESTS, drawn_digests, games
from test_fixtures import FIXTURES, judged
from projections.at_points import PointFolds
from projections.audit import AuditRow
from projections.deal_text import deal_table, table_json
from projections.drawing import sheet_layout, svg
from projections.drawing.sheet_layout import (
    GAP, LINE, MARGIN, MAX_LINES, PAD, Band, EntryToken, Part, Polygon, Sector, entry_token, extent, fit_fixed, fmt_px,
    hanging, tokens_of, wrap_on,
)
from projections.drawing.svg import (
    Drawing, draw_sector, draw_token, drawn_line, drawn_token, escaped_text, svg_document, tooltip,
)
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


def test_the_revising_events_from_kept_rows_are_those_of_the_trail(played: dict[str, list[AnyEvent]]) -> None:
    """The events that strike entries on the drawn sheet, from the trail's kept rows and
    the verdicts of the state (``PointFolds.revisions``), are those of the trail made at
    the point, read as the stream grows and going back, in games where a later event
    changes an earlier verdict too, in both languages."""
    games = {**played, **{name: judged(FIXTURES / f"{name}.jsonl") for name in REVISED}}
    verdicts: set[str] = set()
    for name, events, folds, spoken, k, back in walked(games):
        state = folds.state_at(events, k)
        expected = revising(folds.audit_at(events, state))
        assert folds.revisions(events, state) == expected, (name, spoken, k, back)
        verdicts |= {name for n in state.effects if n in expected}
    assert verdicts, "no verdict of a state made an event revising"


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


def entry(event: int, total: str, struck_by: int | None = None, penalty: bool = False) -> dict[str, Any]:
    """A running entry as ``marks_at`` and ``struck`` make them."""
    return {"event": event, "deal": event // 4, "total": total, "amount": "+2", "why": "whists", "penalty": penalty,
            "corrected_by": [], "struck_by": struck_by}


def reach(d: Drawing) -> tuple[float, float, float, float]:
    return d.least_x, d.least_y, d.most_x, d.most_y


def test_a_line_kept_as_drawn_is_kept_per_place() -> None:
    """The same tokens drawn as a line at the same place of two frames, from two places
    of one frame (and from 0 and -0), and in two languages: each time as its tokens drawn
    one after another there (``draw_token``), with their boxes and their extent, not as
    the line was kept from another place or language."""
    marks = [entry(7, "2"), entry(9, "4", struck_by=12), entry(10, "6", penalty=True)]
    cell = {"key": "Anna.whists.Boris", "marks": marks}
    line = tokens_of(cell, "on Boris")
    for apothem, x, baseline, spoken in ((150.0, -20.0, 14.5, "en"), (180.0, -20.0, 14.5, "en"),
                                         (150.0, -20.0, 14.5, "en"), (150.0, -20.0, 32.5, "en"),
                                         (150.0, 0.0, 14.5, "en"), (150.0, -0.0, 14.5, "en"),
                                         (150.0, -20.0, 14.5, "ru")):
        with language.using(spoken):
            frame = Polygon(3, apothem).frame(1)
            kept, fresh = Drawing(), Drawing()
            kept_out: list[str] = []
            fresh_out: list[str] = []
            drawn_line(kept, kept_out, frame, "Anna", line, x, baseline)
            at = x
            for t in line:
                draw_token(fresh, fresh_out, frame, "Anna", t, at, baseline)
                at += t.width + GAP
            assert (kept_out, kept.placed, reach(kept)) == (["".join(fresh_out)], fresh.placed, reach(fresh)), \
                (apothem, x, baseline, spoken)


def test_an_entry_s_pieces_are_kept_per_language() -> None:
    """An entry's group and title, made once per token, say the entry in the language
    of each drawing."""
    token = tokens_of({"key": "Anna.gora", "marks": [entry(7, "2", struck_by=9)]}, "gora")[1]
    assert token.mark is not None
    drawn: dict[str, str] = {}
    for spoken in ("en", "ru", "en", "ru"):
        with language.using(spoken):
            out: list[str] = []
            draw_token(Drawing(), out, Polygon(3, 150.0).frame(0), "Anna", token, 5.0, 14.5)
            assert f"<title>{escaped_text(tooltip(token.cell, token.mark))}</title>" in "".join(out), spoken
            drawn.setdefault(spoken, "".join(out))
    assert drawn["en"] != drawn["ru"]


def test_a_cell_s_tokens_taken_up_are_those_made_afresh() -> None:
    """A cell's tokens, taken up from the read before where its entries are the same (or
    equal), are those made afresh from its entries: each entry's dot, the standing one (the
    last not struck), whatever entries came or went at the end or in the middle."""
    a, b, c, d, e = entry(3, "2"), entry(5, "4"), entry(8, "6"), entry(9, "8"), entry(11, "10")
    struck = entry(8, "5", struck_by=13)
    reads = [[a, b, c], [a, b, c, d], [a, b], [a, b, struck, c, d, e], [a, b, c, d, e], [a, b, c, d, {**e}],
             [a, b, c, {**d, "struck_by": 14}], [a, b, c, {**d, "struck_by": 14}, e], [a], [], [a, b, c, d, e],
             [{**a}, b, c], [b, c, d], [{**a, "struck_by": 12}, {**b, "struck_by": 12}],
             [{**a, "struck_by": 12}, {**b, "struck_by": 12}, c]]
    for key in ("Anna.gora", "Boris.gora", "Anna.gora"):
        for marks in reads:
            tokens = tokens_of({"key": key, "marks": marks}, "gora")
            standing = next((m for m in reversed(marks) if m["struck_by"] is None), None)
            fresh = [entry_token(m, key, i < len(marks) - 1, m is standing) for i, m in enumerate(marks)]
            assert [t.what for t in tokens[1:]] == [t.what for t in fresh], (key, marks)
            assert tokens[0].text == "gora" and tokens[0].mark is None


def test_a_wrapping_taken_up_is_the_wrapping() -> None:
    """A band's lines, each part's taken up from the last wrapping of its cell in the same
    place where the tokens part (``fit_fixed``), are those wrapped afresh: of tokens that
    share a beginning or not, on sheets of two sizes, at two depths, one part or two (of
    one cell, told apart by their bounds), with a token that fits on no line among them."""
    widths = [20.0, 33.5, 12.0, 41.0, 25.5, 30.0, 18.0, 27.0, 22.5, 36.0] * 6
    made = [EntryToken(f"{i}", w) for i, w in enumerate(widths)]
    wide = EntryToken("wide", 400.0)
    label = EntryToken("gora", 30.0)
    lists = [[label, *made[:n]] for n in (40, 12, 55, 3, 60, 39)] + [[label, *made[:5], wide, *made[5:20]],
                                                                     [label, *made[:30]], [label, *made[10:50]]]
    seen: set[bool] = set()
    for tokens in lists:
        for apothem, depth, split in ((200.0, 0.0, 2), (240.0, 0.0, 2), (200.0, 44.0, 2), (200.0, 0.0, 1),
                                      (240.0, 44.0, 1), (200.0, 44.0, 1), (200.0, 0.0, 2)):
            poly = Polygon(3, apothem)
            parts = [Part(tokens, None, None, cell="Anna.gora") for _ in range(split)]
            band = fit_fixed(poly, "gora", depth, parts, split)
            fresh = []
            for part in parts:
                def width(j: int, part: Part = part) -> float:
                    lo, hi = extent(poly, part, depth + PAD + (j + 1) * LINE)
                    return hi - lo

                fresh.append(wrap_on(tokens, width, hanging(tokens)))
            count = max(len(lines or []) for lines in fresh)
            if None in fresh or count > MAX_LINES or poly.half_length(depth + PAD + count * LINE) < MARGIN * 2:
                assert band is None, (apothem, depth, split, len(tokens))
            else:
                assert band is not None, (apothem, depth, split, len(tokens))
                assert [part.lines for part in band.parts] == fresh, (apothem, depth, split, len(tokens))
            seen.add(band is None)
    assert seen == {True, False}


def test_a_sector_s_pieces_are_kept_per_sheet_band_and_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sector's head, its bands' rules (a closed band's fill, the dividers) and its
    player's name, kept per size of sheet, seat, band and player, are drawn as they are
    with nothing kept: for bands of one depth and height closed or not and of two columns,
    of one inner edge and two outer ones, of dividers at 0 and -0, on sheets of two sizes,
    at each seat, for two players."""
    bands = [Band("pulya", 60.0, 80.0, [], []), Band("gora", 60.0, 80.0, [], []),
             Band("pulya", 60.0, 80.0, [], [], closed=True), Band("pulya", 40.0, 100.0, [], [], closed=True),
             Band("pulya", 50.0, 90.0, [], [], closed=True), Band("gora", 44.0, 44.0, [], []),
             Band("whists", 0.0, 44.0, [], [0.0]), Band("whists", 0.0, 44.0, [], [-0.0])]
    kept: dict[tuple[Any, ...], Any] = {}
    monkeypatch.setattr(svg, "SHEET_PIECES", kept)
    for apothem in (200.0, 230.0, 200.0):
        poly = Polygon(3, apothem)
        for band in bands:
            for seat, player in [(seat, player) for seat in range(3) for player in ("Anna", "Boris")]:
                drawn: list[tuple[Any, ...]] = []
                for pieces in (kept, {}):  # kept from the draws before, and none kept
                    monkeypatch.setattr(svg, "SHEET_PIECES", pieces)
                    d, out = Drawing(), cast(list[str], [])
                    draw_sector(d, out, poly, Sector(seat, player, [band]))
                    drawn.append(("".join(out), d.placed, d.sectors, (d.least_x, d.least_y, d.most_x, d.most_y)))
                assert drawn[0] == drawn[1], (apothem, band, seat, player)
    assert kept


def test_a_number_kept_as_written_is_written_as_it_is() -> None:
    """A pixel number, kept as written by its value, is written as formatting writes it,
    however often it comes and in whatever order: 0 and -0 (and what rounds to either)
    apart, and a number that rounds to a whole one."""
    numbers = [0.0, -0.0, 0.001, -0.001, 12, 12.0, 12.004, -3.5, 2 / 3, -2 / 3, 1e-9, -1e-9, 150.005]
    for x in [*numbers, *reversed(numbers), *numbers]:
        assert fmt_px(x) == f"{x:.2f}".rstrip("0").rstrip("."), x

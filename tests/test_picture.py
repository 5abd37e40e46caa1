"""The drawn sheet's data and layout (``projections.picture``, ``projections.drawing``), without
a browser: the entries are the sheet's own running entries, struck entries and
penalties are the ones the log makes, the report's timeline agrees with the picture
at every point, and the laid-out text never overlaps (by the layout's own measure;
``test_browser.py`` measures the real boxes)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from boxes import centre, inside, overlapping
from cli.main import main
from projections.drawing.svg import draw
from ledger.judge.kinds import judge_log
from ledger.vocabulary.events import AnyEvent
from readings import parse_log
from projections.audit import audit, pulka_explain, totals
from projections.picture import cell_key, picture, timeline, trace_row
from projections.report import Point, render_sheet, settlement_doc, state_at
from strategies import legal_logs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOD = sorted(FIXTURES.glob("*.jsonl"))
SVG = "{http://www.w3.org/2000/svg}"


def judged(path: Path) -> list[AnyEvent]:
    return judge_log(parse_log(path.read_text(encoding="utf-8")), clock=lambda: "2026-11-30T20:00:00+00:00")


def fixture(name: str) -> list[AnyEvent]:
    return judged(FIXTURES / f"{name}.jsonl")


RUNNING = re.compile(r"^  (pulya|gora|whists on (.+?))\s+(\S+)  = (\S+)$")


def sheet_text_cells(text: str) -> dict[str, tuple[str, str]]:
    """``pulka sheet``'s text: each number's running entries and total, by cell key."""
    cells: dict[str, tuple[str, str]] = {}
    player = ""
    for line in text.splitlines()[2:]:
        if line and not line.startswith(" "):
            player = line
        m = RUNNING.match(line)
        if m:
            key = f"{player}.whists.{m.group(2)}" if m.group(2) else f"{player}.{m.group(1)}"
            cells[key] = (m.group(3), m.group(4))
    return cells


def current_entries(cell: dict[str, Any]) -> str:
    marks = [m["total"] for m in cell["marks"] if m["struck_by"] is None]
    return ".".join(marks) if marks else "-"


def check_picture_against_sheet(events: list[AnyEvent], point: Point) -> dict[str, Any]:
    doc = picture(events, point)
    expected = sheet_text_cells(render_sheet(state_at(events, point), point))
    got = {c["key"]: (current_entries(c), c["total"]) for c in doc["cells"]}
    assert got == expected
    return doc


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_entries_are_the_running_entries_of_pulka_sheet(path: Path) -> None:
    events = judged(path)
    last = max((e.deal or 0) for e in events)
    for point in [Point(), *(Point(deal=k) for k in range(last + 1))]:
        check_picture_against_sheet(events, point)


def tokens(doc: dict[str, Any], key: str) -> list[tuple[str, int | None, bool]]:
    cell = next(c for c in doc["cells"] if c["key"] == key)
    return [(m["total"], m["struck_by"], m["penalty"]) for m in cell["marks"]]


def test_corrected_entries_are_struck_with_the_number_of_the_correcting_event() -> None:
    doc = picture(fixture("rec_4_2_7_overstated_pulya"), Point())
    # Deal 1: A's 7S, B whisting alone, written as 8 tricks for A (B 2 x 4 = 8 whists);
    # event 10 corrects the tricks to 7-3: B's 8 is struck for 12.
    # Deal 2: A's 7S written as made (B 2 x 4: 20); event 20 corrects it to 6 tricks,
    # down one: B has 3 x 4 + 4 consolation (28), then 8 whists equal for equal (36, a penalty).
    assert tokens(doc, "B.whists.A") == [
        ("8", 10, False), ("12", None, False), ("20", 20, False), ("28", None, False), ("36", None, True)]
    # A's pulya: 4 for deal 1; deal 2's 4 (8) struck by event 20; the entry of 6 (10)
    # corrected by event 23 to 2 (6).
    assert tokens(doc, "A.pulya") == [("4", None, False), ("8", 20, False), ("10", 23, False), ("6", None, False)]


def test_an_upheld_objection_strikes_the_late_record() -> None:
    doc = picture(fixture("rec_objection_after"), Point())
    # B's whists on A: 4 for deal 1; the late entry of 4 more (8) withdrawn by A's objection, event 12.
    assert tokens(doc, "B.whists.A") == [("4", None, False), ("8", 12, False)]
    # An objection too late to count strikes nothing: C's late entry stands.
    assert tokens(doc, "C.whists.A") == [("4", None, False), ("6", None, False)]


def test_penalties_are_marked() -> None:
    doc = picture(fixture("rec_arbiter_penalty"), Point())
    # The arbiter's 5 on B's gora, corrected to 3 by event 12; 10 whists for C on A.
    assert tokens(doc, "B.gora") == [("5", 12, True), ("3", None, True)]
    assert tokens(doc, "C.whists.A") == [("4", None, False), ("14", None, True)]
    assert tokens(doc, "A.pulya") == [("2", None, False)]


def test_a_picture_before_the_correction_strikes_nothing() -> None:
    events = fixture("rec_objection_after")
    doc = picture(events, Point(at=11))
    assert tokens(doc, "B.whists.A") == [("4", None, False), ("8", None, False)]


def test_the_pulya_target_and_closed_pulyas() -> None:
    doc = picture(fixture("ex07_leningrad_closing"), Point())
    closed = {c["player"]: c["closed"] for c in doc["cells"] if c["column"] == "pulya"}
    pulya = {c["player"]: c["total"] for c in doc["cells"] if c["column"] == "pulya"}
    assert closed == {p: int(v) >= doc["target"] for p, v in pulya.items()}
    assert any(closed.values())


@pytest.mark.parametrize("name", ["rec_4_2_7_overstated_pulya", "rec_objection_after", "ex13_rounding_four"])
def test_the_timeline_is_the_picture_and_the_trace_at_every_event(name: str) -> None:
    events = fixture(name)
    doc = timeline(events)
    assert len(doc["points"]) == len(events)
    for n, point in enumerate(doc["points"], start=1):
        alone = picture(events, Point(at=n))
        assert {k: alone[k] for k in doc["pictures"][point["picture"]]} == doc["pictures"][point["picture"]]
        assert (point["event"], point["deals"]) == (alone["event"], alone["deals"])
        state = state_at(events, Point(at=n))
        trace = doc["traces"][point["trace"]]
        for cell in totals(state.sheet()):
            assert [doc["writes"][i] for i in trace[cell_key(cell)]] == [trace_row(w) for w in pulka_explain(state, cell)]


def test_the_deal_table() -> None:
    events = fixture("rec_4_2_7_overstated_pulya")
    doc = timeline(events)
    assert [d["deal"] for d in doc["deals"]] == [1, 2]
    # Deal 2 as the sheet counts it now: A's 7S down one (4 gora), the entry of 6 on his
    # pulya corrected to 2, and three equal-for-equal penalties of 4 gora (events 20, 23).
    assert doc["deals"][1]["writes"]["A"] == ["pulya +2", "gora +16"]
    assert doc["deals"][1]["game"] == "7S by A"
    for k, deal in enumerate(doc["deals"], start=1):
        assert deal["rounded"] == settlement_doc(state_at(events, Point(deal=k)))["rounded"]
        assert (deal["first"], deal["last"]) == (
            min(e["number"] for e in doc["events"] if e["deal"] == k),
            max(e["number"] for e in doc["events"] if e["deal"] == k))


def test_a_player_who_joins_has_his_sector_from_then_on() -> None:
    events = fixture("code_3_1_2_newcomer")
    joined = next(n for n, e in enumerate(events, start=1) if type(e).__name__ == "Joined")
    before, after = picture(events, Point(at=joined - 1)), picture(events, Point())
    assert before["players"] == ["A", "B", "C"]
    assert after["players"] == ["A", "B", "D", "C"]  # D sits to the left of the last dealer, B
    drawn = draw(after)
    assert 'data-players="4"' in drawn.svg and set(drawn.sectors) == {"A", "B", "C", "D"}
    check_layout(after)  # D's numbers in D's sector, nothing overlapping
    doc = timeline(events)
    assert doc["players"] == ["A", "B", "D", "C"]
    assert [doc["pictures"][p["picture"]]["players"] for p in doc["points"]][joined - 2:joined] == [
        ["A", "B", "C"], ["A", "B", "D", "C"]]
    assert all(set(d["writes"]) == {"A", "B", "C", "D"} for d in doc["deals"])


# -- layout ---------------------------------------------------------------------------------


def check_layout(doc: dict[str, Any]) -> None:
    drawn = draw(doc)
    boxes = [(b.text, b.corners) for b in drawn.boxes]
    assert overlapping(boxes) == []
    names = {b.text for b in drawn.boxes if b.player is not None and b.text == b.player}
    assert names == set(doc["players"])
    for b in drawn.boxes:
        if b.player is not None and b.text != b.player:
            assert inside(centre(b.corners), drawn.sectors[b.player]), (b.text, b.player)
    ET.fromstring(drawn.svg)  # well-formed


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_no_text_overlaps_on_any_fixture(path: Path) -> None:
    check_layout(picture(judged(path), Point()))


SVG = "{http://www.w3.org/2000/svg}"


def runs(svg: str) -> dict[str, list[list[tuple[float, str]]]]:
    """Each number's entries as drawn, line by line (by baseline, outermost first), each
    entry its x and text, in its sector's own frame (the sector's group: before it is
    rotated into place)."""
    out: dict[str, dict[float, list[tuple[float, str]]]] = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        cell = group.get("data-cell")
        if cell is None:
            continue
        mark = next(t for t in group.iter(f"{SVG}text") if "mark" in (t.get("class") or ""))
        out.setdefault(cell, {}).setdefault(float(mark.get("y") or 0), []).append(
            (float(mark.get("x") or 0), mark.text or ""))
    return {cell: [sorted(lines[y]) for y in sorted(lines, key=abs)] for cell, lines in out.items()}


@pytest.mark.parametrize("name", ["ex10_sochi_sixes"])
def test_a_running_sum_carried_onto_the_next_line_continues_under_the_first_entry(name: str) -> None:
    """Issue 20, item 7: a number's lines after the first begin under its first entry,
    past its label, so that the last running sum carried onto a line of its own cannot
    be read as a new entry; each line but the last ends with the dot that joins it to
    the next."""
    drawn = runs(draw(picture(fixture(name), Point()), settlement=True).svg)
    wrapped = {cell: lines for cell, lines in drawn.items() if len(lines) > 1}
    assert wrapped, "the fixture's sheet wraps no number"
    for cell, lines in wrapped.items():
        first = lines[0][0][0]
        for line in lines[1:]:
            assert line[0][0] >= first - 0.01, (cell, first, line[0])
        for line in lines[:-1]:
            assert line[-1][1].endswith("."), (cell, line[-1])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_logs(recording=True, max_deals=12))
def test_generated_pulkas_draw_their_running_entries_without_overlap(events: list[AnyEvent]) -> None:
    doc = check_picture_against_sheet(events, Point())
    revising = {r.number for r in audit(events)
                if r.type in ("correction", "objection", "annulled", "withdrawn") or r.effective is not None}
    for cell in doc["cells"]:
        for m in cell["marks"]:
            if m["struck_by"] is not None:
                assert m["struck_by"] in revising and m["event"] < m["struck_by"]
    check_layout(doc)


def test_a_fifth_player_after_one_left_makes_a_pentagon(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    runner = CliRunner()
    for args in (
        ["new", "five", "--players", "Anna,Boris,Vera,Gleb", "--pulya", "10"],
        ["deal", "6S pass pass | 6S | whist whist | 6 2 2"],
        ["leave", "Boris", "--reason", "a train"],
        ["deal", "pass 7H pass | 7H | whist pass | 6 3* 1"],
        ["join", "Dima", "--agreed-by", "Anna,Vera,Gleb"],  # to the left of the last dealer, Anna
        ["deal", "pass pass pass | 4 3 3"],
    ):
        result = runner.invoke(main, [*args, "--db", db], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    exported = runner.invoke(main, ["export", "five", "--db", db], catch_exceptions=False).stdout
    events = judge_log(parse_log(exported), clock=lambda: "2026-11-30T20:00:00+00:00")
    doc = check_picture_against_sheet(events, Point())
    assert doc["players"] == ["Anna", "Dima", "Boris", "Vera", "Gleb"]  # Boris keeps his side
    check_layout(doc)  # every opponent's part of the whists band in its sector, nothing overlapping


def cyrillic_game(db: str) -> None:
    runner = CliRunner()
    for args in (
        ["new", "клуб", "--players", "Анна,Борис,Вера,Глеб", "--convention", "leningrad", "--pulya", "10"],
        ["deal", "клуб", "6S pass pass | 6S | whist whist | 6 2 2"],
        ["deal", "клуб", "pass pass pass | 2 5 3"],
        ["entry", "клуб", "Вера", "whists", "4", "--on", "Глеб"],
        ["deal", "клуб", "7H pass pass | 7H | whist pass | 7 2 1"],
    ):
        result = runner.invoke(main, [*args, "--db", db], catch_exceptions=False)
        assert result.exit_code == 0, result.output


def test_sheet_svg_four_players_cyrillic(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    cyrillic_game(db)
    out = CliRunner().invoke(main, ["sheet", "клуб", "--svg", "--db", db], catch_exceptions=False)
    assert out.exit_code == 0
    root = ET.fromstring(out.stdout.split("\n", 1)[1])
    sectors = {g.get("data-player"): g for g in root.iter(f"{SVG}g") if g.get("data-player")}
    assert list(sectors) == ["Анна", "Борис", "Вера", "Глеб"]
    for name, g in sectors.items():
        assert [t.text for t in g.iter(f"{SVG}text") if t.get("class") == "name"] == [name]
        cells = {e.get("data-cell") for e in g.iter(f"{SVG}g") if e.get("data-cell")}
        assert cells and all(c.split(".")[0] == name for c in cells)


def test_sheet_svg_refuses_a_point_the_log_does_not_have(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    cyrillic_game(db)
    out = CliRunner().invoke(main, ["sheet", "клуб", "--svg", "--at", "999", "--db", db], catch_exceptions=False)
    assert out.exit_code == 1
    assert "there is no event 999" in out.stderr and "Traceback" not in out.output


def test_the_report_is_self_contained(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    cyrillic_game(db)
    out = CliRunner().invoke(main, ["report", "клуб", "--db", db], catch_exceptions=False)
    assert out.exit_code == 0
    page = out.stdout
    assert page.startswith("<!DOCTYPE html>")
    # Nothing to fetch: every src/href is a data: URI, no CSS import or url(), and the
    # page's own policy forbids loading anything else.
    assert all(v.startswith("data:") for v in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", page))
    assert "@import" not in page and "url(" not in page
    assert "default-src 'none'" in page
    assert not re.search(r"\{\{\w+\}\}", page)  # every placeholder filled
    assert "</script" not in page.split('id="pulka-data">', 1)[1].split("</script>", 1)[0]



def test_a_withdrawal_strikes_what_it_took_back() -> None:
    doc = picture(fixture("rec_4_2_8_withdrawn_deal"), Point())
    # A's 6S made (2 in his pulya, 4 whists each for B and C) is taken back by event 9;
    # the deal replayed as 7H, both passing: 4 in A's pulya.
    assert tokens(doc, "A.pulya") == [("2", 9, False), ("4", None, False)]
    assert tokens(doc, "B.whists.A") == [("4", 9, False)]
    table = timeline(fixture("rec_4_2_8_withdrawn_deal"))["deals"]
    assert table[0]["game"] == "7H by A" and table[0]["writes"]["A"] == ["pulya +4"]

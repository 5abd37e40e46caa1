"""The printed pages (issue 31, "Printing"): a pulka's sheet and settlement and a
tournament's standings as PDF on A4, in the reader's language, with the checkpoint that
covers them as text and as a QR code; from the command line (``--pdf FILE``) and the
service (``sheet.pdf``, ``settlement.pdf``, ``standings.pdf``), read back with pypdf."""

from __future__ import annotations

import io
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pypdf
import pytest
from click.testing import CliRunner

from cli.main import main
from helpers import ok, run
from projections.drawing.pdf import qr_modules
from tests.serving import client
from web.limits import Bounds

pytestmark = pytest.mark.sqlite_only  # the subject is the printing, not the store

A4 = (595.28, 841.89)  # points
PLAYERS = ["Анна", "Борис", "Вера", "Глеб"]
DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "7H pass pass | 7H | whist pass | 7 2 1"]


def read_pdf(data: bytes) -> tuple[pypdf.PdfReader, str]:
    """The PDF and its text, every page's; each page A4, upright or turned."""
    assert data.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(data))
    for page in reader.pages:
        size = (round(float(page.mediabox.width), 2), round(float(page.mediabox.height), 2))
        assert size in (A4, A4[::-1]), size
    return reader, "\n".join(page.extract_text() for page in reader.pages)


def club(db: str, tmp_path: Path) -> str:
    """A pulka of two deals with Cyrillic names under a signed checkpoint: the checkpoint's
    root hash."""
    ok(db, "new", "клуб", "--players", ",".join(PLAYERS), "--convention", "leningrad", "--pulya", "10", "-q")
    for line in DEALS:
        ok(db, "deal", "клуб", line)
    made = CliRunner().invoke(main, ["keygen", "club.example/pulka", "--out", str(tmp_path / "club.key")])
    assert made.exit_code == 0, made.output
    note = ok(db, "checkpoint", "--key", str(tmp_path / "club.key"))
    origin, size, root = note.splitlines()[:3]
    assert origin == "club.example/pulka" and size.isdigit()
    return root


def settlement_rows(text: str) -> dict[str, list[str]]:
    """The settlement table's rows as printed: player -> pulya, gora, whists."""
    rows = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 4 and words[0] in PLAYERS and re.fullmatch(r"[+-]?\d+", words[3]):
            rows[words[0]] = words[1:]
    return rows


def printed_whists(text: str) -> dict[str, int]:
    return {player: int(cells[2]) for player, cells in settlement_rows(text).items()}


@pytest.mark.parametrize("lang, words", [("en", ("settlement", "who pays whom", "pulya", "checkpoint")),
                                         ("ru", ("расчёт", "кто кому платит", "пуля", "контрольная точка"))])
def test_the_sheet_printed_from_the_command_line(tmp_path: Path, lang: str, words: tuple[str, ...]) -> None:
    db = str(tmp_path / "pulka.db")
    root = club(db, tmp_path)
    out = tmp_path / "sheet.pdf"
    result = run(db, "sheet", "клуб", "--pdf", str(out), "--lang", lang)
    assert result.exit_code == 0 and str(out) in result.stderr, result.output
    reader, text = read_pdf(out.read_bytes())
    for name in PLAYERS:
        assert text.count(name) >= 3, name  # its side of the sheet, the settlement, who pays whom
    for word in words:
        assert word in text, (word, text)
    assert root in text  # the checkpoint's root hash: the wall checked against the published log
    settled = json.loads(ok(db, "settle", "клуб", "--json"))
    assert printed_whists(text) == settled["rounded"]


def test_the_settlement_printed_is_the_settlement_read_at_any_point(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    root = club(db, tmp_path)
    for point in ([], ["--deal", "1"], ["--at", "5"]):
        out = tmp_path / "settlement.pdf"
        ok(db, "settle", "клуб", "--pdf", str(out), "--lang", "ru", *point)
        _reader, text = read_pdf(out.read_bytes())
        settled = json.loads(ok(db, "settle", "клуб", "--json", *point))
        assert printed_whists(text) == settled["rounded"], point
        sheet = settled["sheet"]
        assert {p: [int(c[0]), int(c[1])] for p, c in settlement_rows(text).items()} == {
            p: [sheet[p]["pulya"], sheet[p]["gora"]] for p in PLAYERS}, point
        for t in settled["transfers"]:
            assert f"{t['from']} платит, {t['to']} получает {t['whists']} " in text  # no declension needed
        assert root in text


def test_the_qr_code_printed_holds_the_signed_note(tmp_path: Path) -> None:
    """The QR code is drawn module by module as filled rectangles, one for each run of
    dark modules of the note's code: their number is that of the note's code, and the
    note is printed beside it."""
    db = str(tmp_path / "pulka.db")
    club(db, tmp_path)
    note = ok(db, "checkpoint")  # the stored checkpoint, printed
    out = tmp_path / "settlement.pdf"
    ok(db, "settle", "клуб", "--pdf", str(out))
    reader, text = read_pdf(out.read_bytes())
    for line in note.strip().splitlines():
        assert " ".join(line.split()) in " ".join(text.split()), line
    drawn = sum(len(re.findall(rb" re f\b", content_of(page))) for page in reader.pages)
    assert drawn == len(qr_modules(note))


def content_of(page: Any) -> bytes:
    data: bytes = page.get_contents().get_data()
    return data if b" re " in data or b"BT" in data else zlib.decompress(data)


def test_a_store_without_checkpoints_says_so_and_a_rubber_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    ok(db, "new", "g", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    ok(db, "deal", "g", DEALS[0])
    out = tmp_path / "g.pdf"
    ok(db, "sheet", "g", "--pdf", str(out))
    _reader, text = read_pdf(out.read_bytes())
    assert "no signed checkpoint of the club log covers this yet" in text
    ok(db, "bridge", "new", "r", "--players", "N,E,S,W")
    refused = run(db, "sheet", "r", "--pdf", str(tmp_path / "r.pdf"))
    assert refused.exit_code == 1 and "pulka" in refused.stderr and "Traceback" not in refused.output
    assert not (tmp_path / "r.pdf").exists()
    unwritable = run(db, "settle", "g", "--pdf", str(tmp_path / "no-such-folder" / "g.pdf"))
    assert unwritable.exit_code == 1 and "cannot write" in unwritable.stderr, unwritable.output
    exported = tmp_path / "g.jsonl"
    exported.write_text(ok(db, "export", "g"), encoding="utf-8")
    from_file = run(db, "sheet", "--file", str(exported), "--pdf", str(out))
    assert from_file.exit_code == 2 and "pulka import" in from_file.stderr, from_file.output


def tournament(db: str) -> None:
    """Six entrants at two tables of 3; tour 1 played to the deal cap and closed; tour 2
    seated, started and one deal in."""
    ok(db, "tournament", "new", "кубок", "--players", "Анна,Борис,Вера,Глеб,Дина,Егор", "--pulya", "4",
       "--table-size", "3", "--tours", "2", "--deal-cap", "2")
    ok(db, "tournament", "seat", "кубок", "1", "1", "Анна,Борис,Вера")
    ok(db, "tournament", "seat", "кубок", "1", "2", "Глеб,Дина,Егор")
    ok(db, "tournament", "start", "кубок", "1")
    for table in (1, 2):
        for line in DEALS:
            ok(db, "deal", f"кубок/1/{table}", line)
    ok(db, "tournament", "close", "кубок", "1")


def standings_cells(text: str, names: list[str]) -> dict[str, list[str]]:
    return {words[1]: words[2:] for words in (line.split() for line in text.splitlines())
            if len(words) > 3 and words[0].isdigit() and words[1] in names}


def test_the_standings_printed_are_the_standings_read(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    tournament(db)
    out = tmp_path / "standings.pdf"
    ok(db, "tournament", "standings", "кубок", "--pdf", str(out), "--lang", "ru")
    _reader, text = read_pdf(out.read_bytes())
    doc = json.loads(ok(db, "tournament", "standings", "кубок", "--json"))
    assert "кубок" in text and "после тура 1" in text, text
    names = [r["player"] for r in doc["standings"]]
    printed = standings_cells(text, names)
    assert {p: (c[0], c[1]) for p, c in printed.items()} == {
        r["player"]: (str(r["points"]), f"{r['whists']:+d}") for r in doc["standings"]}
    refused = run(db, "tournament", "standings", "кубок", "--pdf", str(out), "--time", "20:00")
    assert refused.exit_code == 2 and "--tour" in refused.stderr


# -- the service ----------------------------------------------------------------------------------


def test_the_service_prints_in_the_readers_language(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    root = club(db, tmp_path)
    tournament(db)
    with client(db, bounds=Bounds(rate=1000, burst=1000)) as c:  # many PDFs from one address
        for lang, word in (("ru", "расчёт"), ("en", "settlement")):
            r = c.get("/api/games/клуб/sheet.pdf", params={"lang": lang})
            assert r.status_code == 200 and r.headers["content-type"] == "application/pdf", r.text
            _reader, text = read_pdf(r.content)
            assert word in text and root in text and all(name in text for name in PLAYERS)
        r = c.get("/api/games/клуб/settlement.pdf", params={"lang": "ru", "deal": "1"})
        _reader, text = read_pdf(r.content)
        settled = c.get("/api/games/клуб/settlement", params={"deal": "1"}).json()
        assert printed_whists(text) == settled["rounded"]
        # A PDF kept for the next reader is made again once anything is stored.
        before = printed_whists(read_pdf(c.get("/api/games/клуб/settlement.pdf").content)[1])
        ok(db, "deal", "клуб", "pass pass pass | 2 5 3")
        after = printed_whists(read_pdf(c.get("/api/games/клуб/settlement.pdf").content)[1])
        assert after == c.get("/api/games/клуб/settlement").json()["rounded"] != before
        r = c.get("/api/tournaments/кубок/standings.pdf", params={"lang": "ru", "tour": "1"})
        _reader, text = read_pdf(r.content)
        assert "кубок" in text and "Дина" in text and "место" in text
        # Refusals: as every read's, the field named; nothing printed.
        r = c.get("/api/games/клуб/sheet.pdf", params={"at": "999"})
        assert r.status_code == 422 and "999" in r.json()["refused"]["message"]
        assert c.get("/api/games/клуб/sheet.pdf", params={"at": "1e3"}).json()["refused"]["field"] == "at"
        assert c.get("/api/games/nothing/settlement.pdf").status_code == 422


def test_anonymous_pdfs_are_charged_to_the_readers_budget(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    club(db, tmp_path)
    with client(db, bounds=Bounds(rate=0.0001, burst=0.03, cost=0.01)) as c:
        statuses = [c.get("/api/games/клуб/sheet.pdf").status_code for _ in range(4)]
        assert statuses[0] == 200 and 429 in statuses
        assert c.get("/api/games/клуб/settlement.pdf").status_code == 429


def print_links(html: str) -> dict[str, str]:
    return {m.group(1): m.group(2).replace("&amp;", "&")
            for m in re.finditer(r'<a id="(print-[a-z]+)" href="([^"]+)"', html)}


def test_the_pages_link_their_printed_pages_in_their_language(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    club(db, tmp_path)
    tournament(db)
    with client(db, bounds=Bounds(rate=1000, burst=1000)) as c:
        for page, wanted in (("/watch/клуб", {"print-sheet": "расчёт", "print-settlement": "кто кому платит"}),
                             ("/score/клуб", {"print-sheet": "расчёт", "print-settlement": "кто кому платит"}),
                             ("/tournament/кубок", {"print-standings": "место"})):
            r = c.get(page, params={"lang": "ru"})
            assert r.status_code == 200, r.text
            links = print_links(r.text)
            assert set(links) == set(wanted), (page, links)
            for link, word in wanted.items():
                printed = c.get(links[link])
                assert printed.headers["content-type"] == "application/pdf", (page, link, printed.text)
                assert word in read_pdf(printed.content)[1], (page, link)

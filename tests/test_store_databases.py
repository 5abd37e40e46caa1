"""The store on PostgreSQL databases as hosts and distributions make them (SQL_ASCII,
UTF8 with C, glibc's C.UTF-8, ICU's and glibc's Russian collations: ``pg_databases``),
against the same club on SQLite: the import, ``verify``, the player views, the rating and
the statistics say the same, byte for byte; and the store's contract (appends, reads,
the order of names, receipts, the change feed, rows edited behind its back) holds the
same.

A database in SQL_ASCII made the driver read every text column as bytes: every game
read as tampered (its topic, read as bytes, was not the one its number fixes). On a
database of a language's collation the kept rating folded the pulkas that end at the
same instant in the collation's order of their names, where ``pulka rating --at`` and
SQLite take them by code point.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import psycopg
import pytest
from psycopg import sql

from helpers import ok, run, stored_rows
from conftest import RawEvents, every_event
from ledger.store.backend import parse_postgres_url
from ledger.store.event_store import ReceiptTaken, Store
from ledger.store.layout import LAYOUT
from pg_databases import KINDS, collation, database_url, databases  # noqa: F401 (fixtures)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PLAYERS = {"A": "Анна", "B": "boris", "C": "Вера", "D": "Gleb"}
T1 = datetime(2026, 3, 6, 23, 0, tzinfo=timezone.utc)
T2 = datetime(2026, 3, 7, 23, 30, tzinfo=timezone.utc)
# Each pulka of the club: its golden log, and when its last event was recorded. Three
# pulkas of the same three players end at one instant (T1), two of four at another (T2):
# their names' order by code point ("apple" < "Пятница" < "вторник", "Ёлка" < "ель") is
# not a Russian collation's.
CLUB: dict[str, tuple[str, datetime]] = {
    "Пятница": ("ex13_rounding", T1),
    "вторник": ("ex07_leningrad_closing", T1),
    "apple": ("conv_help_pulya_to_gora_two", T1),
    "Ёлка": ("ex11_sochi_nine", T2),
    "ель": ("ex08_piter_21", T2),
    "вечер": ("conv_half_whist", T2 + timedelta(hours=1)),  # still in play
}
LATER = "2026-03-09T00:00:00+00:00"


def renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [renamed(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): renamed(v, names) for k, v in value.items()}
    return value


def club_logs(folder: Path) -> list[Path]:
    """The club's pulkas as log files, each event a minute after the one before, the last
    at its pulka's end."""
    paths = []
    for game, (source, end) in CLUB.items():
        lines = [json.loads(line) for line in (FIXTURES / f"{source}.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        events = []
        for i, data in enumerate(lines):
            data = renamed(data, {**PLAYERS, source: game})
            data["at"] = (end - timedelta(minutes=len(lines) - 1 - i)).isoformat()
            events.append(json.dumps(data, ensure_ascii=False))
        path = folder / f"{source}.jsonl"
        path.write_text("\n".join(events) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def said(db: str) -> dict[str, Any]:
    """Everything a club reads of its store: verify, each pulka's settlement and export,
    the players, the rating kept and recomputed, each player's history and statistics."""
    out: dict[str, Any] = {"verify": ok(db, "verify")}
    for game in CLUB:
        out[f"settle {game}"] = json.loads(ok(db, "settle", game, "--json"))
        out[f"export {game}"] = ok(db, "export", game)
    out["players"] = json.loads(ok(db, "players", "--json"))
    out["rating"] = json.loads(ok(db, "rating", "--json"))
    out["rating --at"] = json.loads(ok(db, "rating", "--at", LATER, "--json"))
    for player in PLAYERS.values():
        out[f"player {player}"] = json.loads(ok(db, "player", player, "--json"))
        out[f"stats {player}"] = json.loads(ok(db, "stats", player, "--json"))
        out[f"rating {player}"] = json.loads(ok(db, "rating", player, "--json"))
    return out


def stored_club(db: str, folder: Path) -> dict[str, Any]:
    for path in club_logs(folder):
        ok(db, "import", str(path))
    return said(db)


def ratings(doc: dict[str, Any]) -> list[tuple[str, float, int]]:
    return [(r["player"], r["rating"], r["matches"]) for r in doc["players"]]


@pytest.fixture(scope="module")
def on_sqlite(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("sqlite")
    return stored_club(str(folder / "club.db"), folder)


@pytest.mark.postgres
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_club_reads_the_same_on_every_database_a_host_may_give(
    kind: str, database_url: Callable[[str], str], on_sqlite: dict[str, Any], tmp_path: Path,
) -> None:
    db = database_url(kind)
    found = stored_club(db, tmp_path)
    assert "TAMPERED" not in found["verify"]
    assert found == on_sqlite, collation(db)
    # the rating kept pulka by pulka is the one folded again for a time after them all
    assert ratings(found["rating"]) == ratings(found["rating --at"])


def test_the_club_rating_takes_pulkas_that_end_together_by_the_code_points_of_their_names(
    on_sqlite: dict[str, Any],
) -> None:
    """The club's pulkas that end at one instant are rated in one order whatever the
    store (the order of their names by code point): kept or folded again, the same."""
    assert ratings(on_sqlite["rating"]) == ratings(on_sqlite["rating --at"])
    history = on_sqlite["rating Анна"]["matches"]
    at_t1 = [h["game"] for h in history if h["game"] in ("Пятница", "вторник", "apple")]
    assert at_t1 == sorted(at_t1) == ["apple", "Пятница", "вторник"]


@pytest.mark.postgres
def test_a_database_in_sql_ascii_keeps_the_text_it_is_given(database_url: Callable[[str], str]) -> None:
    """Names in Cyrillic stored in an SQL_ASCII database come back as they were written,
    and the topics of the rows as the text they are."""
    db = database_url("sql_ascii")
    assert collation(db)["encoding"] == "SQL_ASCII"
    result = run(db, "new", "пулька", "--players", "Анна,Борис,Вера", "--pulya", "10")
    assert result.exit_code == 0, result.output
    assert "Анна, Борис, Вера" in ok(db, "games")
    assert ok(db, "verify").startswith("пулька: 1 event, chain intact")


@pytest.mark.postgres
def test_a_database_that_cannot_hold_every_name_is_refused_at_once_saying_what_to_make(
    database_url: Callable[[str], str],
) -> None:
    db = database_url("latin1")
    for args in (("new", "пулька", "--players", "Анна,Борис,Вера", "--pulya", "10"), ("games",)):
        result = run(db, *args)
        assert result.exit_code == 1, result.output
        assert "in the encoding LATIN1" in result.stderr and "ENCODING 'UTF8' TEMPLATE template0" in result.stderr
        assert "Traceback" not in result.output
    assert stored_rows(db) == []


@pytest.mark.postgres
def test_a_store_kept_on_a_language_collation_by_an_earlier_pulka_is_upgraded_to_code_point_order(
    database_url: Callable[[str], str], on_sqlite: dict[str, Any], tmp_path: Path,
) -> None:
    """The club's store as an earlier pulka left it on an ICU ru-RU database: the views'
    text in the database's collation and no layout recorded. Its kept rating is SQLite's
    even so (since issue 34 the rating orders its matches in Python, by code point, never
    by the database); ``pulka upgrade`` drops those views all the same, and every number
    kept from then on is SQLite's."""
    db = database_url("icu_ru")
    stored_club(db, tmp_path)
    schema = parse_postgres_url(db).schema
    with psycopg.connect(db.partition("?")[0], autocommit=True) as conn:
        for table, column in conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = %s "
                "AND (table_name LIKE 'archive%%' OR table_name LIKE 'rating%%') AND data_type = 'text'",
                (schema,)).fetchall():
            conn.execute(sql.SQL("ALTER TABLE {}.{} ALTER COLUMN {} TYPE text COLLATE pg_catalog.\"default\"").format(
                sql.Identifier(schema), sql.Identifier(table), sql.Identifier(column)))
        ok(db, "views", "rebuild")
        assert ratings(json.loads(ok(db, "rating", "--json"))) == ratings(on_sqlite["rating"])
        conn.execute(sql.SQL("COMMENT ON TABLE {}.pulka_events IS NULL").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("DROP TABLE {}.pulka_layout").format(sql.Identifier(schema)))
    upgraded = ok(db, "upgrade")
    assert f"is upgraded from layout 6 to layout {LAYOUT}" in upgraded and "by the database's collation" in upgraded
    assert ratings(json.loads(ok(db, "rating", "--json"))) == ratings(on_sqlite["rating"])
    assert said(db) == on_sqlite


NAMES = ["пулька", "Пулька", "apple", "Banana", "ёлка", "Ель", "zebra", "Я"]


def contract(db: str) -> dict[str, Any]:
    """What the store says to the calls every command makes: appends and reads of
    streams named in several alphabets and cases, their order, a receipt and the same
    key again, the change feed, and a topic and a state edited behind its back."""
    out: dict[str, Any] = {}
    with Store(db) as store:
        for name in NAMES:
            stored = store.append(name, every_event(name), 0)
            out[f"digests {name}"] = [s.digest for s in stored]
        out["games"] = store.games()
        out["read"] = [(s.number, s.digest) for s in store.read("Ель", upto=7).stored]
        with store.receipted("ключ-1"):
            store.append("новая", every_event("новая")[:3], 0)
        with pytest.raises(ReceiptTaken), store.receipted("ключ-1"):
            store.append("новая", every_event("новая")[3:5], 3)
        out["receipt"] = store.receipt("ключ-1")
        out["changes"] = [(store.name_of(stream), number) for _position, stream, number in store.changes(0, 5000)]
        raw = RawEvents(db)
        raw.set("пулька", 3, topic="ledger.store:Opened")
        raw.set("Banana", 5, state=b'{"event":{},"digest":"0"}')
        out["verify"] = [(v.name, v.events, str(v.problem)) for v in store.verify_all()]
    return out


@pytest.mark.postgres
@pytest.mark.parametrize("kind", list(KINDS))
def test_the_stores_contract_holds_on_every_database_a_host_may_give(
    kind: str, database_url: Callable[[str], str], tmp_path: Path,
) -> None:
    on_sqlite = contract(str(tmp_path / "contract.db"))
    assert on_sqlite["games"] == sorted(NAMES) and on_sqlite["receipt"] == ("ключ-1", "новая", 1, 3, "")
    assert [(name, problem[:40]) for name, _, problem in on_sqlite["verify"] if problem != "None"] == [
        ("Banana", "event 5 cannot be read (edited?): Object"),
        ("пулька", "event 3: its topic was changed to 'ledge")]
    assert [name for name, _, _ in on_sqlite["verify"]] == sorted([*NAMES, "новая"])  # by code point
    assert contract(database_url(kind)) == on_sqlite

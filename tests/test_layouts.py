"""Stores and exports written by earlier pulkas, opened with this one: one per layout the
store has had (``ledger.store.layout``), each made by the commit of the project that
wrote it with that commit's own code (fixtures/layouts/README.md says which and how),
on SQLite (its file) and on PostgreSQL (its dump, loaded into the test's schema).

Each is read before it is upgraded (verify clean, the same settlements), upgraded in
place by ``pulka upgrade`` (once: again it says there is nothing to do), and then reads
as the earlier pulka read it: every sheet and settlement, the players, the rating, the
tournament's standings, the signed checkpoint; the service's accounts sign in, the
table's token still opens its table, the receipt of the phone's write is still known;
``verify`` clean; and a write is stored and verified. Each export of it imports into a
new store and settles the same.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any
from uuid import uuid4

import psycopg
import pytest
from psycopg import sql

from helpers import ok, run, stored_rows
from ledger.store.event_store import Store, parse_postgres_url
from ledger.store.layout import LAYOUT, RATING_MODELS
from web.accounts import Accounts

LAYOUTS = Path(__file__).resolve().parent.parent / "fixtures" / "layouts"
EARLIER = sorted(int(path.name.removeprefix("layout")) for path in LAYOUTS.glob("layout*"))
DUMP_SCHEMA = "pulka_layout_fixture"
PASSWORD = "correct horse battery"  # the earlier commits' test helpers made the accounts with it
RECEIPT = "7d3c8a52-0000-4000-8000-000000000001"  # the phone's id of its write (sent twice, stored once)


def within(found: Any, said: Any, where: str = "") -> None:
    """What the earlier pulka said is in what this one says (which may say more)."""
    if isinstance(said, dict):
        assert isinstance(found, dict), where
        for key, value in said.items():
            assert key in found, f"{where}.{key} missing"
            within(found[key], value, f"{where}.{key}")
    elif isinstance(said, list):
        assert isinstance(found, list) and len(found) == len(said), where
        for i, (a, b) in enumerate(zip(found, said, strict=True)):
            within(a, b, f"{where}[{i}]")
    else:
        assert found == said, f"{where}: {found!r} != {said!r}"


def placed(layout: int, db: str) -> dict[str, Any]:
    """The layout's store at ``db`` (SQLite: its file copied there; PostgreSQL: its dump
    loaded into the address's schema), and what the earlier pulka said of it."""
    folder = LAYOUTS / f"layout{layout}"
    if db.startswith("postgresql://"):
        folder = folder / "postgres"
        address = parse_postgres_url(db)
        lines = [line for line in (folder / "dump.sql").read_text(encoding="utf-8").splitlines()
                 if not line.startswith("\\") and line != f"CREATE SCHEMA {DUMP_SCHEMA};"]
        with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
            conn.execute("\n".join(lines).replace(DUMP_SCHEMA, address.schema).encode())
    else:
        shutil.copy(folder / "store.db", db)
    said: dict[str, Any] = json.loads((folder / "said.json").read_text(encoding="utf-8"))
    said["token"] = (folder / "token.txt").read_text(encoding="utf-8") if (folder / "token.txt").exists() else None
    return said


def reads_as_before(db: str, said: dict[str, Any]) -> None:
    for game, settled in said["games"].items():
        within(json.loads(ok(db, "settle", game, "--json")), settled, game)
    if "standings" in said:
        within(json.loads(ok(db, "tournament", "standings", "кубок", "--json")), said["standings"], "standings")
        within(json.loads(ok(db, "players", "--json")), said["players"], "players")
    if "rating" in said:
        # The rating the earlier pulka showed (OpenSkill by places) is the model openskill-places now: the
        # club's rating by default is whists-per-deal since issue 34, a change of model, not of the archive.
        earlier = json.loads(ok(db, "rating", "--model", "openskill-places", "--json"))
        within(earlier["players"], said["rating"]["players"], "rating")
    if "checkpoint" in said:
        assert ok(db, "checkpoint").strip() == said["checkpoint"].strip()


def verified(db: str, said: dict[str, Any]) -> None:
    result = run(db, "verify")
    assert result.exit_code == 0, result.output
    assert set(said["verify"].splitlines()) <= set(result.stdout.splitlines())


@pytest.mark.parametrize("layout", EARLIER)
def test_a_store_of_an_earlier_layout_reads_as_before_and_is_upgraded_in_place(layout: int, store_url: str) -> None:
    db = store_url
    said = placed(layout, db)
    with Store(db, create=False) as store:
        assert store.layout == layout  # read from its tables: it records none
    verified(db, said)
    for game, settled in said["games"].items():  # read before any upgrade
        within(json.loads(ok(db, "settle", game, "--json")), settled, game)

    assert ok(db, "upgrade").startswith(f"the store {Store(db, create=False).description} is upgraded from layout "
                                        f"{layout} to layout {LAYOUT}")
    assert f"is at layout {LAYOUT}, this pulka's" in ok(db, "upgrade")
    with Store(db, create=False) as store:
        assert store.layout == LAYOUT
    verified(db, said)
    reads_as_before(db, said)
    if layout >= 5:
        accounts = Accounts(db)
        try:
            signed = accounts.sign_in("dora", PASSWORD)
            assert signed.status == "ok" and signed.account is not None
            assert (signed.account.name, signed.account.role) == ("dora", "director")
            assert signed.account.id  # given by the upgrade: its sessions and events name it
            assert accounts.sign_in("igor", "not the password").status == "wrong"
            token = accounts.token(said["token"])
            assert token is not None and (token.game, token.by) == ("стол", "Boris")
        finally:
            accounts.close()
        with Store(db, create=False) as store:
            receipt = store.receipt(RECEIPT)
        assert receipt is not None and (receipt.stream, receipt.first, receipt.last) == ("стол", 2, 8)
    ok(db, "new", "после", "--players", "Анна,Boris,Вера", "--pulya", "10")
    ok(db, "deal", "после", "6S pass pass | 6S | whist pass | 6 3 1")
    assert "после: 8 events, chain intact" in ok(db, "verify")
    assert "после" in ok(db, "player", "Анна")


@pytest.mark.parametrize("layout", EARLIER)
def test_a_writing_command_upgrades_an_earlier_store_first_and_says_so(layout: int, tmp_path: Path) -> None:
    db = str(tmp_path / "club.db")
    placed(layout, db)
    result = run(db, "new", "после", "--players", "Анна,Boris,Вера", "--pulya", "10")
    assert result.exit_code == 0, result.output
    assert f"pulka: note: the store {Path(db).resolve()} was upgraded from layout {layout} to layout {LAYOUT}" \
        in result.stderr
    # Its club rating reads otherwise from now on, and the note says so and how to keep it.
    rerated = "the club rating is now computed by the model whists-per-deal"
    assert (rerated in result.stderr) == (layout < RATING_MODELS)
    assert "`pulka rating-model openskill-places` keeps it" in result.stderr or layout >= RATING_MODELS
    with Store(db, create=False) as store:
        assert store.layout == LAYOUT
    assert "upgraded" not in run(db, "deal", "после", "6S pass pass | 6S | whist pass | 6 3 1").stderr


@pytest.mark.parametrize("layout", [n for n in EARLIER if n >= 2])
def test_a_reader_of_an_earlier_store_folds_the_views_it_cannot_keep_and_changes_nothing(
    layout: int, tmp_path: Path,
) -> None:
    """Views of an earlier pulka (some of today's tables missing) are not read or kept by
    a reading command: it folds the archive for itself, says what upgrades the store,
    and leaves the file as it was."""
    db = str(tmp_path / "club.db")
    said = placed(layout, db)
    before = Path(db).read_bytes()
    result = run(db, "players", "--json")
    assert result.exit_code == 0, result.output
    within(json.loads(result.stdout), said["players"], "players")
    # Every earlier layout's views lack today's tables (layout 6's the rating's of issue 34).
    assert "was written by an earlier pulka" in result.stderr and "`pulka upgrade`" in result.stderr
    assert Path(db).read_bytes() == before


@pytest.mark.sqlite_only  # the subject is the events' words as each pulka wrote them, not the store
@pytest.mark.parametrize("layout", EARLIER)
def test_the_exports_of_an_earlier_pulka_import_and_settle_the_same(layout: int, store_url: str, tmp_path: Path) -> None:
    folder = LAYOUTS / f"layout{layout}"
    said = json.loads((folder / "said.json").read_text(encoding="utf-8"))
    club = [name for name, command in said["exports"].items() if "--club" in command]
    for name in said["exports"]:
        if name not in club:
            ok(store_url, "import", str(folder / name))
    for name in club:  # the whole club's file, into a store of its own
        whole = str(tmp_path / "club.db")
        ok(whole, "import", str(folder / name))
        for game, settled in said["games"].items():
            within(json.loads(ok(whole, "settle", game, "--json")), settled, f"club file: {game}")
    for game, settled in said["games"].items():
        within(json.loads(ok(store_url, "settle", game, "--json")), settled, game)
    assert run(store_url, "verify").exit_code == 0
    if "standings" in said:
        within(json.loads(ok(store_url, "tournament", "standings", "кубок", "--json")), said["standings"], "standings")


@pytest.mark.sqlite_only
def test_a_store_of_layout_7_has_its_rating_views_dropped_and_folded_again(tmp_path: Path) -> None:
    """Layout 7 (issue 28) kept the rating by OpenSkill in ``rating_matches`` and
    ``rating_changes``, without the tables of issue 34: there is no fixture of it yet, so
    a store of today's is taken back to it (its mark, its rating tables). ``pulka
    upgrade`` drops every view, the former tables too, and the next read folds the
    rating as it was."""
    db = str(tmp_path / "club.db")
    placed(6, db)
    ok(db, "upgrade")
    rated = ok(db, "rating", "--json")
    today = ("rating_pulkas", "rating_moves", "rating_models", "archive_known", "archive_rules", "archive_clock")
    with Store(db) as store, store.backend.writing() as tx:
        tx.mark_layout(7)
    with sqlite3.connect(db) as conn:
        for table in today:
            conn.execute(f"DROP TABLE {table}")
        conn.execute("CREATE TABLE rating_matches (game TEXT PRIMARY KEY, finished_utc BIGINT, entries TEXT)")
        conn.execute("CREATE TABLE rating_changes (game TEXT, player TEXT)")
    assert f"is upgraded from layout 7 to layout {LAYOUT}" in ok(db, "upgrade")
    assert ok(db, "rating", "--json") == rated
    with sqlite3.connect(db) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert not tables & {"rating_matches", "rating_changes"} and set(today) <= tables


def test_a_store_of_a_later_layout_is_refused_before_it_is_read(tmp_path: Path) -> None:
    db = str(tmp_path / "club.db")
    ok(db, "new", "g", "--players", "Анна,Boris,Вера", "--pulya", "10")
    with Store(db) as store, store.backend.writing() as tx:
        tx.mark_layout(LAYOUT + 1)
    for args in (("games",), ("new", "h", "--players", "A,B,C", "--pulya", "10"), ("upgrade",)):
        result = run(db, *args)
        assert result.exit_code == 1, result.output
        assert (f"it was written by a later pulka (its layout is {LAYOUT + 1}; this pulka knows layouts up to "
                f"{LAYOUT}): upgrade pulka to read it") in result.stderr


@pytest.mark.postgres
@pytest.mark.parametrize("layout", [n for n in EARLIER if n in (1, 5)])
def test_an_earlier_store_moves_to_postgresql_as_it_is(layout: int, tmp_path: Path, postgres_url: str) -> None:
    """An earlier pulka's store copied without being upgraded first: the copy is at this
    pulka's layout, reads as the earlier pulka read its store, and the store is left as
    it was."""
    db = str(tmp_path / "club.db")
    said = placed(layout, db)
    before = Path(db).read_bytes()
    ok(db, "copy", postgres_url)
    assert Path(db).read_bytes() == before
    with Store(postgres_url, create=False) as store:
        assert store.layout == LAYOUT
    verified(postgres_url, said)
    reads_as_before(postgres_url, said)


@pytest.mark.postgres
def test_a_role_that_may_not_alter_the_tables_is_told_who_upgrades_the_store(postgres_url: str) -> None:
    """A scorer's role that may write the events of an earlier store but not alter its
    tables: its command is refused, naming `pulka upgrade` and who may run it, and
    nothing is stored or changed; the owner's upgrade then lets it write."""
    placed(6, postgres_url)
    address = parse_postgres_url(postgres_url)
    role = f"pulka_scorer_{uuid4().hex[:10]}"
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'scorer-pw'").format(sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(address.schema),
                                                                     sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {} TO {}").format(
            sql.Identifier(address.schema), sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(
            sql.Identifier(address.schema), sql.Identifier(role)))
    scorer = postgres_url.replace(f"{address.user}:{address.password}@", f"{role}:scorer-pw@")
    try:
        before = stored_rows(postgres_url)
        result = run(scorer, "new", "после", "--players", "Анна,Boris,Вера", "--pulya", "10")
        assert result.exit_code == 1, result.output
        assert f"was written by an earlier pulka (layout 6) and this command cannot bring it to layout {LAYOUT}" \
            in result.stderr and "run `pulka upgrade` as a role that may alter its tables" in result.stderr
        assert stored_rows(postgres_url) == before
        with Store(postgres_url, create=False) as store:
            assert store.layout == 6
        ok(postgres_url, "upgrade")
        ok(scorer, "new", "после", "--players", "Анна,Boris,Вера", "--pulya", "10")
    finally:
        with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_an_upgrade_from_a_layout_with_the_rating_models_says_nothing_of_the_rating(tmp_path: Path) -> None:
    """A store already rated by a chosen model (layout 8 on) keeps its rating through an
    upgrade: only a store rated by OpenSkill before the models is told it is rated anew."""
    db = str(tmp_path / "club.db")
    placed(6, db)
    assert "the club rating is now computed by the model whists-per-deal" in ok(db, "upgrade")
    with Store(db) as store, store.backend.writing() as tx:
        tx.mark_layout(RATING_MODELS)
    said = ok(db, "upgrade")
    assert f"is upgraded from layout {RATING_MODELS} to layout {LAYOUT}" in said
    assert "the club rating" not in said

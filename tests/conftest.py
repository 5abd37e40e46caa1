"""Shared fixtures: the two stores, a sample pulka, raw SQL access, the browsers.

``store_url`` runs a test once on SQLite (a file in the test's tmp_path) and once on
PostgreSQL, at the address in ``PULKA_TEST_POSTGRES``, in a schema of its own that is
dropped afterwards; a test marked ``sqlite_only`` (its subject a rule, a command's
words or a fold, not the store) on SQLite alone. Without that variable the PostgreSQL
half is skipped, and says so; ``.ci/run`` always sets it.

``raw`` reaches past the ledger to the events table itself, as someone with database
access would: the tamper tests use it to edit, delete, insert and reorder rows.

``browser`` and ``phones`` are the test process's headless Chromium (tests/browsers.py),
started once and cleaned for each test. Passwords are hashed with the cheapest argon2id
in the suite's processes (below).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID, uuid4

import msgspec
import psycopg
import pytest
from psycopg import sql

from ledger.vocabulary.chain import GENESIS, link
from ledger.vocabulary.events import (
    Abandoned,
    AnyEvent,
    Annulled,
    Bid,
    Contract,
    Correction,
    Dealt,
    Joined,
    Left,
    PenaltyTrick,
    Ruling,
    Substituted,
    Talon,
    Defence,
    Entry,
    GameStarted,
    Objection,
    PencilDown,
    Penalty,
    Tricks,
    Withdrawn,
    decode_event,
)
from ledger.vocabulary.rules import SOCHI
from ledger.store.event_store import Store, is_postgres_url, parse_postgres_url
from ledger.store.stored import game_id
from ledger.judge import stored as judged_module

import browsers
import racing

# Passwords hashed with the cheapest argon2id in this process and every process it starts
# (web.accounts reads it once, at import, which is after this): the suite makes and
# checks hundreds of them; tests/test_serve.py checks that without it the hash is the
# strong one.
os.environ["PULKA_TEST_CHEAP_HASH"] = "1"

POSTGRES_ENV = "PULKA_TEST_POSTGRES"
POSTGRES_SKIP = (
    f"PostgreSQL half skipped: set {POSTGRES_ENV} to a postgresql:// address "
    "(.ci/run starts a server and sets it)"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgres: runs against the PostgreSQL store")
    config.addinivalue_line("markers", "sqlite_only: store_url is SQLite alone (the test's subject is a rule, a "
                                       "command's words or a fold, which do not depend on the store)")


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``store_url`` on both stores, or on SQLite alone for a test marked ``sqlite_only``.

    PostgreSQL is for what can differ between the stores: the store's contract and its
    faults, concurrency, the views, the archive and the rating kept in SQL, the proofs
    and the tree over stored rows, and the service's processes. A rule of the Code, a
    command's words or a fold read the same events from either store, and are tested
    once. A module whose own fixtures take the store as their parameter (``"sqlite"``
    or ``"postgres"``, say a module-scoped store played once per store) names them in
    ``STORE_FIXTURES``.

    The stores are given as a ``parametrize`` mark, which pytest's own hook (after this
    one) reads, and which takes the place of a fixture's params."""
    stores = [pytest.param("sqlite", id="sqlite")]
    if metafunc.definition.get_closest_marker("sqlite_only") is None:
        stores.append(pytest.param("postgres", marks=pytest.mark.postgres, id="postgres"))
    for name in ("store_url", *getattr(metafunc.module, "STORE_FIXTURES", ())):
        if name in metafunc.fixturenames:
            metafunc.definition.add_marker(pytest.mark.parametrize(name, stores, indirect=True), append=False)


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[psycopg.Connection[Any] | None]:
    """One connection per test process for making and dropping the tests' schemas (None
    without a server to test on)."""
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        yield None
        return
    with psycopg.connect(**parse_postgres_url(base).connect_kwargs(), autocommit=True) as conn:
        yield conn


def new_schema(admin: psycopg.Connection[Any] | None) -> Iterator[str]:
    """A PostgreSQL address whose schema is new, dropped when the generator is closed."""
    base = os.environ.get(POSTGRES_ENV)
    if not base or admin is None:
        pytest.skip(POSTGRES_SKIP)
    schema = f"pulka_test_{uuid4().hex[:12]}"
    admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    yield base + ("&" if "?" in base else "?") + f"schema={schema}"
    admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


@pytest.fixture
def postgres_url(postgres_admin: psycopg.Connection[Any] | None) -> Iterator[str]:
    """A PostgreSQL address whose schema is new for this test and dropped after it."""
    yield from new_schema(postgres_admin)


@pytest.fixture(scope="module")
def module_postgres_url(postgres_admin: psycopg.Connection[Any] | None) -> Iterator[str]:
    """The same for a module's tests together (a service they share)."""
    yield from new_schema(postgres_admin)


@pytest.fixture
def postgres_url_with_password(request: pytest.FixtureRequest) -> str:
    """``postgres_url`` for a test about the password in a PostgreSQL address (that no
    message or log shows it): skipped, saying why, when the address has none."""
    base = os.environ.get(POSTGRES_ENV)
    if base and not parse_postgres_url(base).password:
        pytest.skip(f"needs a password in the address in {POSTGRES_ENV} (this one has none): "
                    "the test checks that no message shows it")
    url: str = request.getfixturevalue("postgres_url")
    return url


# The params are the test's own parametrize mark (``pytest_generate_tests``), which takes
# their place; a parametrized fixture is also what tells hypothesis to draw a property
# test's examples from a seed of its own for each store.
@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """A fresh, empty store address: SQLite, then PostgreSQL (``pytest_generate_tests``)."""
    if request.param == "sqlite":
        return str(tmp_path / "pulka.db")
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """An open Store on ``store_url``, closed after the test."""
    with Store(store_url) as opened:
        yield opened


def every_event(game: str) -> list[AnyEvent]:
    """A short pulka that uses every event type once or more, game_started first."""
    players = ("Anna", "Boris", "Vera")
    return [
        GameStarted(
            game=game,
            players=players,
            pulya=20,
            convention="sochi",
            rules={"jump_bids": False},
            stake="0.10",
            first_dealer="Vera",
            rule_set=SOCHI,
            at="2024-03-01T19:00:00+03:00",
            by="Anna",
        ),
        Bid(player="Anna", bid="6S", at="2024-03-01T19:01:00+03:00", deal=1),
        Bid(player="Boris", bid="pass", deal=1),
        Bid(player="Vera", bid="pass", deal=1),
        Contract(player="Anna", contract="6S", deal=1),
        Defence(player="Boris", call="whist", deal=1),
        Defence(player="Vera", call="pass", open=True, deal=1),
        Tricks(tricks={"Anna": 6, "Boris": 3, "Vera": 1}, deal=1, by="Anna"),
        Entry(player="Vera", column="whists", amount=-4, on="Anna", by="Vera"),
        PencilDown(player="Boris"),
        Correction(target=8, replacement={"tricks": {"Anna": 7, "Boris": 2, "Vera": 1}}, penalty="waived", by="Anna"),
        Objection(player="Vera", deal=1, target=9),
        Penalty(player="Boris", column="gora", amount=10, on=None, reason="bid out of turn", by="arbiter:Oleg"),
        Annulled(reason="misdeal", deal=2),
        Entry(player="Anna", column="pulya", amount=2, by="Anna", deal=2),
        Withdrawn(first=15, by="Anna", deal=2),
        Dealt(player="Boris", deal=3),
        Talon(kind="peek", player="Vera", deal=3),
        Bid(player="Vera", bid="6S", dark=True, deal=3),
        Ruling(rule="3.3.16.3", offender="Anna", whists={"Boris": 10}, by="arbiter:Oleg", deal=3),
        Tricks(tricks={"Anna": 5, "Boris": 3, "Vera": 2}, deal=3,
               penalty_tricks=(PenaltyTrick(player="Anna", tricks=1, rule="3.4.9"),)),
        Joined(player="Gleb", agreed_by=players, deal=3),
        Substituted(player="Anna", substitute="Dima", agreed_by=("Boris", "Vera", "Gleb"), deal=3),
        Left(player="Gleb", reason="train", deal=3),
        Abandoned(agreed_by=players),
    ]


@pytest.fixture
def sample_events() -> Callable[[str], list[AnyEvent]]:
    """``sample_events(game)``: a pulka of 25 events covering every event type."""
    return every_event


class RawEvents:
    """Direct SQL on the store's events table, bypassing pulka and eventsourcing.

    Table and columns are eventsourcing's: SQLite ``stored_events``, PostgreSQL
    ``<schema>.pulka_events``; ``originator_id`` (the game's stream), ``originator_version``
    (the event number), ``topic`` and ``state`` (msgspec JSON of event and digest).
    """

    def __init__(self, url: str) -> None:
        self.postgres = is_postgres_url(url)
        if self.postgres:
            address = parse_postgres_url(url)
            self.schema = address.schema or "public"
            self.pg = psycopg.connect(**address.connect_kwargs(), autocommit=True)
            self.table = f'"{self.schema}"."pulka_events"'
        else:
            self.lite = sqlite3.connect(url, isolation_level=None)
            self.table = "stored_events"

    def _stream(self, game: str) -> Any:
        stream = game_id(game)
        return stream if self.postgres else stream.hex

    def execute(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement written with ``?`` placeholders and ``{table}``."""
        statement = statement.format(table=self.table)
        if self.postgres:
            cursor = self.pg.execute(statement.replace("?", "%s").encode(), params)
            return list(cursor.fetchall()) if cursor.description else []
        return self.lite.execute(statement, params).fetchall()

    def versions(self, game: str) -> list[int]:
        rows = self.execute(
            "SELECT originator_version FROM {table} WHERE originator_id = ? ORDER BY originator_version",
            (self._stream(game),),
        )
        return [row[0] for row in rows]

    def row(self, game: str, version: int) -> tuple[str, bytes]:
        """The topic and state of one stored event."""
        rows = self.execute(
            "SELECT topic, state FROM {table} WHERE originator_id = ? AND originator_version = ?",
            (self._stream(game), version),
        )
        assert len(rows) == 1, rows
        topic, state = rows[0]
        return topic, bytes(state)

    def set(self, game: str, version: int, *, state: bytes | None = None, topic: str | None = None) -> None:
        if state is not None:
            self.execute(
                "UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                (state, self._stream(game), version),
            )
        if topic is not None:
            self.execute(
                "UPDATE {table} SET topic = ? WHERE originator_id = ? AND originator_version = ?",
                (topic, self._stream(game), version),
            )

    def delete(self, game: str, version: int) -> None:
        self.execute(
            "DELETE FROM {table} WHERE originator_id = ? AND originator_version = ?",
            (self._stream(game), version),
        )

    def insert(self, game: str, version: int, topic: str, state: bytes) -> None:
        self.execute(
            "INSERT INTO {table} (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
            (self._stream(game), version, topic, state),
        )

    def renumber(self, game: str, from_version: int, by: int) -> None:
        """Shift the numbers of events ``from_version`` onwards by ``by``.

        Through negative numbers, so that the primary key holds at every row.
        """
        stream = self._stream(game)
        self.execute(
            "UPDATE {table} SET originator_version = -(originator_version + ?) "
            "WHERE originator_id = ? AND originator_version >= ?",
            (by, stream, from_version),
        )
        self.execute(
            "UPDATE {table} SET originator_version = -originator_version "
            "WHERE originator_id = ? AND originator_version < 0",
            (stream,),
        )

    def move(self, game: str, stream: UUID) -> None:
        """Move every row of a game into another stream."""
        self.execute(
            "UPDATE {table} SET originator_id = ? WHERE originator_id = ?",
            (stream if self.postgres else stream.hex, self._stream(game)),
        )

    def rechain(self, game: str, start: int, edit: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Rewrite a game's rows from event ``start`` on, as someone who knows the chain
        could: ``edit`` changes event ``start`` (as JSON), then every digest and link
        from there on is computed anew, so that the chain checks out."""
        previous = GENESIS
        for version in self.versions(game):
            topic, state = self.row(game, version)
            record = msgspec.json.decode(state)
            if version == start and edit is not None:
                edit(record["event"])
            if version >= start:
                event = decode_event(msgspec.json.encode(record["event"]))
                record["digest"] = link(previous, game, version, event)
                record["link"] = previous[:16]
                self.set(game, version, state=msgspec.json.encode(record))
            previous = record["digest"]

    def swap(self, game: str, first: int, second: int) -> None:
        """Exchange the contents (topic and state) of two stored events."""
        one, two = self.row(game, first), self.row(game, second)
        self.set(game, first, topic=two[0], state=two[1])
        self.set(game, second, topic=one[0], state=one[1])

    def refuse_insert_of(self, version: int) -> None:
        """Make the database itself refuse to store event number ``version`` (a trigger)."""
        if self.postgres:
            function = sql.Identifier(self.schema, "pulka_test_refuse")
            self.pg.execute(
                sql.SQL(
                    "CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    "IF NEW.originator_version = {version} THEN "
                    "RAISE EXCEPTION 'refused by the test trigger'; END IF; RETURN NEW; END $$"
                ).format(function=function, version=sql.Literal(version))
            )
            self.pg.execute(
                sql.SQL(
                    "CREATE TRIGGER pulka_test_refuse BEFORE INSERT ON {table} "
                    "FOR EACH ROW EXECUTE FUNCTION {function}()"
                ).format(table=sql.Identifier(self.schema, "pulka_events"), function=function)
            )
        else:
            self.lite.execute(
                f"CREATE TRIGGER pulka_test_refuse BEFORE INSERT ON stored_events "
                f"WHEN NEW.originator_version = {int(version)} "
                "BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END"
            )

    def close(self) -> None:
        if self.postgres:
            self.pg.close()
        else:
            self.lite.close()


@pytest.fixture
def raw(store: Store, store_url: str) -> Iterator[RawEvents]:
    """Raw SQL on the events table of ``store`` (which has created the table)."""
    tamperer = RawEvents(store_url)
    yield tamperer
    tamperer.close()


@pytest.fixture(scope="session", autouse=True)
def fork_server() -> Iterator[None]:
    """The fork server of the racing commands (tests/racing.py), if a test started it,
    stopped and waited for at the end."""
    yield
    racing.stop()


@pytest.fixture(scope="session")
def chromes() -> Iterator[browsers.Chromes]:
    """The browsers of this test process (tests/browsers.py): started once, when a test
    first asks for them."""
    if not browsers.available():
        pytest.skip(browsers.NO_BROWSER)
    started = browsers.Chromes()
    try:
        yield started
    finally:
        started.quit()


@pytest.fixture
def browser(chromes: browsers.Chromes) -> Any:
    """A browser at a desktop's size, cleaned for this test."""
    return browsers.clean(chromes.get(1)[0], browsers.DESKTOP)


@pytest.fixture
def phones(chromes: browsers.Chromes) -> tuple[Any, Any]:
    """Two phones (two browsers: each its own storage), cleaned for this test."""
    first, second = chromes.get(2)
    return browsers.clean(first, browsers.PHONE), browsers.clean(second, browsers.PHONE)


@pytest.fixture(autouse=True)
def own_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Every test keeps its current game (``pulka use``) in a directory of its own, with
    no current game, store, language or time zone from the environment of the run; the files of
    an internal error (``cli.output``) go to its own directory too."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    for name in ("PULKA_GAME", "PULKA_DB", "TZ", "PULKA_LANG", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")  # English, whatever the locale of the run


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every event the ledger judges from here on, by number (the judging loop of a
    stored stream, ``judge.stored.judged_onto``, spied on)."""
    seen: list[int] = []
    judge = judged_module.judge_events

    def spied(state: Any, decide: Any, events: list[tuple[int, AnyEvent]], *args: Any, **kwargs: Any) -> Any:
        seen.extend(number for number, _ in events)
        return judge(state, decide, events, *args, **kwargs)

    monkeypatch.setattr(judged_module, "judge_events", spied)
    return seen

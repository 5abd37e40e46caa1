"""PostgreSQL databases as distributions and hosts make them, created by the tests
themselves in the cluster of ``PULKA_TEST_POSTGRES`` (whose role may create databases:
``.ci/run``'s is the cluster's superuser): SQL_ASCII (``initdb --locale=C``), UTF8 with
the C locale, UTF8 with glibc's C.UTF-8, ICU's ru-RU, and glibc's ru_RU.UTF-8 (only
where the server's machine has that locale: the test is skipped, saying so, where it
has not).

``database_url(kind)`` gives an address in a schema of its own for the test, in a
database of that kind made once per test process (and dropped at its end).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any
from uuid import uuid4

import psycopg
import pytest
from psycopg import sql

from ledger.store.backend import parse_postgres_url

POSTGRES_ENV = "PULKA_TEST_POSTGRES"

# Each kind of database: how CREATE DATABASE makes it (after TEMPLATE template0), as
# `createdb -T template0 -E SQL_ASCII --locale=C`, `--locale-provider=icu --icu-locale=ru-RU`... do.
KINDS: dict[str, str] = {
    "sql_ascii": "ENCODING 'SQL_ASCII' LOCALE 'C'",
    "utf8_c": "ENCODING 'UTF8' LOCALE 'C'",
    "c_utf8": "ENCODING 'UTF8' LOCALE 'C.UTF-8'",
    "icu_ru": "ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER 'icu' ICU_LOCALE 'ru-RU'",
    "glibc_ru": "ENCODING 'UTF8' LOCALE 'ru_RU.UTF-8'",
}
# A database the store refuses: its encoding cannot hold a name in every alphabet.
REFUSED = {"latin1": "ENCODING 'LATIN1' LOCALE 'C'"}


class Databases:
    """The databases this test process made, by kind (or why a kind could not be made)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.address = parse_postgres_url(base)
        self.made: dict[str, str] = {}
        self.cannot: dict[str, str] = {}
        self.admin = psycopg.connect(**self.address.connect_kwargs(), autocommit=True)

    def url(self, kind: str) -> str:
        """The address of this process's database of ``kind`` (made on first use)."""
        if kind in self.cannot:
            pytest.skip(self.cannot[kind])
        if kind not in self.made:
            name = f"pulka_test_{kind}_{uuid4().hex[:8]}"
            try:
                self.admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0 ").format(sql.Identifier(name))
                                   + sql.SQL({**KINDS, **REFUSED}[kind]))
            except psycopg.Error as exc:
                self.cannot[kind] = f"a {kind} database cannot be made in this cluster: {' '.join(str(exc).split())}"
                pytest.skip(self.cannot[kind])
            self.made[kind] = name
        address = self.address._replace(dbname=self.made[kind])
        return f"postgresql://{address.user}:{address.password}@{address.host}:{address.port}/{address.dbname}"

    def close(self) -> None:
        for name in self.made.values():
            self.admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        self.admin.close()


@pytest.fixture(scope="session")
def databases() -> Iterator[Databases | None]:
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        yield None
        return
    made = Databases(base)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def database_url(databases: Databases | None) -> Iterator[Callable[[str], str]]:
    """``database_url(kind)``: a fresh schema of this test in the database of that kind,
    dropped after the test."""
    if databases is None:
        pytest.skip(f"set {POSTGRES_ENV} to a postgresql:// address of a role that may create databases")
    made: list[tuple[str, str]] = []

    def url(kind: str) -> str:
        base = databases.url(kind)
        schema = f"pulka_test_{uuid4().hex[:12]}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        made.append((base, schema))
        return f"{base}?schema={schema}"

    yield url
    for base, schema in made:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def collation(url: str) -> dict[str, Any]:
    """What the database of ``url`` says of its encoding and collation."""
    with psycopg.connect(url.partition("?")[0], autocommit=True) as conn:
        row = conn.execute("SELECT pg_encoding_to_char(encoding), datcollate, datlocprovider, daticulocale "
                           "FROM pg_database WHERE datname = current_database()").fetchone()
    assert row is not None
    return dict(zip(("encoding", "collate", "provider", "icu"), row, strict=True))

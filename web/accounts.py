"""Who may sign in and who holds a table's token: two tables in the store's own database
(not events of the club log: an account is no part of any pulka's history).

- ``pulka_accounts``: an arbiter's or a director's name, role, password hash (argon2id,
  memory-hard: ``argon2-cffi``), and the count of failed sign-ins with the time until
  which the account refuses them (the rate limit that holds across processes);
- ``pulka_tokens``: a table's scorer token, scoped to one game: its public id, the
  SHA-256 of its secret (the secret itself is shown once, as a link and a QR code, and
  never stored), who records with it (the ``by`` of its events), who issued it, when,
  and when it was revoked.

Both SQLite and PostgreSQL, on a connection of their own (the events are the store's);
every statement is written once with ``?`` placeholders. The tables are the store's
(``ledger.store.layout.KEPT`` makes them, and a copy of the store carries them).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ledger.store import layout
from ledger.store.backend import is_postgres_url, parse_postgres_url

ACCOUNTS, TOKENS, SECRETS = layout.ACCOUNTS, layout.TOKENS, layout.SECRET
ROLES = ("arbiter", "director")  # a director may do all an arbiter may, and run tournaments

FAILURES_FREE = 5  # failed sign-ins before the account makes one wait
LOCK_FIRST = 15.0  # seconds an account waits after its FAILURES_FREE-th failed sign-in
LOCK_MOST = 300.0  # seconds an account waits at most after failed sign-ins

CHEAP_HASH_ENV = "PULKA_TEST_CHEAP_HASH"


def password_hasher(environ: Mapping[str, str]) -> PasswordHasher:
    """argon2id with the library's defaults (RFC 9106's second choice: three passes over
    64 MiB), unless ``PULKA_TEST_CHEAP_HASH`` is ``1``: the test suite sets it, so that its
    hundreds of accounts and sign-ins, each a hash, cost one pass over 8 KiB instead of
    a tenth of a second each. A hash records its own parameters, so either kind is
    verified by either hasher."""
    if environ.get(CHEAP_HASH_ENV) == "1":
        return PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    return PasswordHasher()


_hasher = password_hasher(os.environ)


class Account(NamedTuple):
    name: str
    role: str


class Token(NamedTuple):
    """A table's token as stored: ``by`` is who its holder records as."""

    id: str
    game: str
    by: str
    issued_by: str
    issued: float
    revoked: float | None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Accounts:
    """The accounts and tokens of a store's database, on one connection (one thread)."""

    def __init__(self, db: str) -> None:
        self.postgres = is_postgres_url(db)
        self.conn: Any
        if self.postgres:
            import psycopg

            address = parse_postgres_url(db)
            self.schema = address.schema or "public"
            self.conn = psycopg.connect(autocommit=True, connect_timeout=10, application_name="pulka serve",
                                        **address.connect_kwargs())
        else:
            self.conn = sqlite3.connect(db, timeout=10, isolation_level=None, check_same_thread=False)
        self._made = False

    def _name(self, table: str) -> str:
        return f'"{self.schema}"."{table}"' if self.postgres else table

    def _run(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        text = statement.format(accounts=self._name(ACCOUNTS), tokens=self._name(TOKENS),
                                secrets=self._name(SECRETS))
        if self.postgres:
            text = text.replace("?", "%s")
        cursor = self.conn.execute(text, params)
        try:
            return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
        finally:
            cursor.close()

    def ensure(self) -> None:
        """Make both tables when they are missing."""
        if self._made:
            return
        kind = "postgres" if self.postgres else "sqlite"
        for table in (ACCOUNTS, TOKENS, SECRETS):  # the store's own tables (a copy of it carries them)
            self._run(layout.create_statement(table, self._name(table), kind))
        self._made = True

    def secret(self) -> str:
        """The key that signs the service's session cookies: made once, kept in the
        database, so that every process serving the store signs alike."""
        self.ensure()
        self._run("INSERT INTO {secrets} (name, value) VALUES ('session', ?) ON CONFLICT (name) DO NOTHING",
                  (secrets.token_urlsafe(32),))
        return str(self._run("SELECT value FROM {secrets} WHERE name = 'session'")[0][0])

    # -- accounts -------------------------------------------------------------------------

    def create(self, name: str, password: str, role: str) -> Account:
        """A new account (its name taken: ValueError)."""
        if role not in ROLES:
            raise ValueError(f"a role is one of {', '.join(ROLES)}, not {role!r}")
        self.ensure()
        if self._run("SELECT 1 FROM {accounts} WHERE name = ?", (name,)):
            raise ValueError(f"an account named {name!r} exists already")
        self._run("INSERT INTO {accounts} (name, role, hash) VALUES (?, ?, ?)", (name, role, _hasher.hash(password)))
        return Account(name, role)

    def account(self, name: str) -> Account | None:
        self.ensure()
        rows = self._run("SELECT name, role FROM {accounts} WHERE name = ?", (name,))
        return Account(*rows[0]) if rows else None

    def count(self) -> int:
        self.ensure()
        return int(self._run("SELECT COUNT(*) FROM {accounts}")[0][0])

    def sign_in(self, name: str, password: str, now: float | None = None) -> Account | float | None:
        """The account when the password is its own; the seconds to wait when it has
        refused too many sign-ins lately (the password is not even checked); else None.
        A name without an account costs a hash too, so that timing tells nothing."""
        self.ensure()
        now = time.time() if now is None else now
        rows = self._run("SELECT name, role, hash, failures, locked_until FROM {accounts} WHERE name = ?", (name,))
        if not rows:
            _verify(_DUMMY, password)
            return None
        account, role, stored, failures, locked_until = rows[0]
        if locked_until > now:
            return float(locked_until - now)
        if _verify(stored, password):
            self._run("UPDATE {accounts} SET failures = 0, locked_until = 0 WHERE name = ?", (account,))
            return Account(account, role)
        failures += 1
        # 15 s, then doubled at each further failure, to five minutes: a wait of a second or
        # two would let a guesser go on at the pace of the hash itself.
        wait = min(LOCK_MOST, LOCK_FIRST * 2.0 ** (failures - FAILURES_FREE)) if failures >= FAILURES_FREE else 0.0
        self._run("UPDATE {accounts} SET failures = ?, locked_until = ? WHERE name = ?",
                  (failures, now + wait if wait else 0.0, account))
        return None

    # -- tokens ---------------------------------------------------------------------------

    def issue(self, game: str, by: str, issued_by: str) -> str:
        """A new token for ``game``, recording as ``by``: ``ID.SECRET``, shown once."""
        self.ensure()
        token_id, secret = secrets.token_urlsafe(6), secrets.token_urlsafe(24)
        self._run("INSERT INTO {tokens} (id, digest, game, by_whom, issued_by, issued) VALUES (?, ?, ?, ?, ?, ?)",
                  (token_id, digest(secret), game, by, issued_by, time.time()))
        return f"{token_id}.{secret}"

    def token(self, text: str) -> Token | None:
        """The token ``ID.SECRET`` stands for, when it is one and not revoked."""
        token_id, dot, secret = text.partition(".")
        if not dot or not token_id or not secret or len(text) > 200:
            return None
        self.ensure()
        rows = self._run("SELECT id, digest, game, by_whom, issued_by, issued, revoked FROM {tokens} WHERE id = ?",
                         (token_id,))
        if not rows or not hmac.compare_digest(rows[0][1], digest(secret)) or rows[0][6] is not None:
            return None
        found = rows[0]
        return Token(found[0], found[2], found[3], found[4], found[5], found[6])

    def tokens(self, game: str) -> list[Token]:
        self.ensure()
        rows = self._run("SELECT id, game, by_whom, issued_by, issued, revoked FROM {tokens} WHERE game = ? "
                         "ORDER BY issued", (game,))
        return [Token(*row) for row in rows]

    def revoke(self, token_id: str) -> Token | None:
        self.ensure()
        self._run("UPDATE {tokens} SET revoked = ? WHERE id = ? AND revoked IS NULL", (time.time(), token_id))
        rows = self._run("SELECT id, game, by_whom, issued_by, issued, revoked FROM {tokens} WHERE id = ?",
                         (token_id,))
        return Token(*rows[0]) if rows else None

    def close(self) -> None:
        self.conn.close()


def _verify(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


_DUMMY = _hasher.hash(secrets.token_hex(8))  # what a sign-in with an unknown name is checked against

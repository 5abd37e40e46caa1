"""The service's tables beside the store's events (not events of the club log: an
account's password is no part of any pulka's history; who changed an account is, in
``@accounts``: ``ledger.desks.accounts``). Each is defined, named and upgraded by
``ledger.store.layout`` (``KEPT``).

- ``pulka_accounts``: an arbiter's or a director's account: its id (a name made again
  is a new account), name, role, password hash (argon2id, memory-hard:
  ``argon2-cffi``), whether it is disabled, and its second factor (a TOTP secret, the
  last step used, the digests of its recovery codes: ``second_factor``);
- ``pulka_sessions``: every session signed in, kept by the server: the SHA-256 of the
  secret its cookie holds, its account, until when, and whether it may only enrol a
  second factor. Signing out, a password changed or reset, a role changed, an account
  disabled or removed delete its rows, in every process at once;
- ``pulka_limits``: the counts of sign-in attempts, per name tried (known or not: the
  lock tells nothing of which names exist) and per client address, counted in the
  database by compare-and-set, so that simultaneous attempts, several workers and
  several processes count as one;
- ``pulka_tokens``: a table's scorer token, scoped to one game: its public id, the
  SHA-256 of its secret (the secret itself is shown once, as a link and a QR code, and
  never stored), who records with it (the ``by`` of its events), who issued it, when,
  and when it was revoked;
- ``pulka_serve_secret``: the key that signs the service's cookies.

Both SQLite and PostgreSQL, on a connection of their own (the events are the store's);
every statement is written once with ``?`` placeholders. The tables are the store's
(``ledger.store.layout.KEPT`` makes them, and a copy of the store carries them).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import secrets
import sqlite3
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ledger.judge.accounts import check_account_name, check_role
from ledger.store import layout
from ledger.store.sqlite import read_only_connection
from ledger.store.backend import StoreError, is_postgres_url, parse_postgres_url, reason, store_label
from ledger.vocabulary import language
from ledger.vocabulary.accounts import ROLES
from ledger.vocabulary.names import look_key, name_key
from web import second_factor

ACCOUNTS, TOKENS, SECRETS = layout.ACCOUNTS, layout.TOKENS, layout.SECRET
SESSIONS, LIMITS = layout.SESSIONS, layout.LIMITS
__all__ = ["ROLES", "Account", "Accounts", "Attempt", "Token"]

FAILURES_FREE = 5  # failed sign-ins to a name before it makes one wait
LOCK_FIRST = 15.0  # seconds a name waits after its FAILURES_FREE-th failed sign-in
LOCK_MOST = 300.0  # seconds a name waits at most after failed sign-ins
ATTEMPTS = 10  # sign-in attempts a client address may make in ``WINDOW`` seconds
WINDOW = 60.0
SESSION_HOURS = 12  # a session ends this long after its sign-in, used or not
QUIET = 86400.0  # a count of attempts untouched this long is forgotten
TRIES = 200  # compare-and-set rounds before a count that others keep changing is taken as locked

CONNECT_TIMEOUT = 10  # seconds to reach the server, or to wait for the pool's connection
RECONNECT_TIMEOUT = 5  # seconds the pool tries to replace a lost connection before the next use tries again

CHEAP_HASH_ENV = "PULKA_TEST_CHEAP_HASH"

_ = language._


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

ROW = "id, name, role, hash, disabled, totp, totp_step, recovery, created"


class Account(NamedTuple):
    name: str
    role: str
    id: str = ""
    disabled: bool = False
    second_factor: bool = False


class AccountRow(NamedTuple):
    """An account as its table holds it (what ``restore`` puts back)."""

    id: str
    name: str
    role: str
    hash: str
    disabled: int
    totp: str | None
    totp_step: int
    recovery: str | None
    created: float | None

    @property
    def account(self) -> Account:
        return Account(self.name, self.role, self.id, bool(self.disabled), bool(self.totp))


class Attempt(NamedTuple):
    """A sign-in's outcome: ``ok``; ``wrong`` (name or password); ``locked`` (the name
    waits ``wait`` seconds, known or not); ``code`` (the second factor's code missing
    or wrong); ``disabled``."""

    status: str
    account: Account | None = None
    wait: float = 0.0


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


def lock_wait(count: int) -> float:
    """How long a name waits after ``count`` failed sign-ins: none for the first
    ``FAILURES_FREE - 1``, then 15 s doubled at each further one, to five minutes (a
    wait of a second or two would let a guesser go on at the pace of the hash itself)."""
    return min(LOCK_MOST, LOCK_FIRST * 2.0 ** (count - FAILURES_FREE)) if count >= FAILURES_FREE else 0.0


def storable(text: str, limit: int = 200) -> bool:
    """A text a client sent that may go into a statement: no NUL (PostgreSQL's text
    refuses it), not too long."""
    return len(text) <= limit and "\x00" not in text


class Accounts:
    """The service's tables of a store's database, on a connection of their own (one
    thread's): SQLite's file, or a PostgreSQL pool of one connection, checked before
    each use and made again when the server ended it (a restart), so that a service
    outlives its database's restarts (a use waits ``pool_wait`` seconds at most for the
    connection). A database that cannot be reached, or that
    refuses, is a ``StoreError`` (its cause kept: ``backend.unreachable``)."""

    def __init__(self, db: str, *, read_only: bool = False, pool_wait: float = CONNECT_TIMEOUT) -> None:
        self.postgres = is_postgres_url(db)
        self.label = store_label(db)
        self.conn: Any = None
        self.pool: Any = None
        if self.postgres:
            from psycopg_pool import ConnectionPool

            address = parse_postgres_url(db)
            self.schema = address.schema or "public"
            self.pool = ConnectionPool(
                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT,
                        "fallback_application_name": "pulka serve", **address.connect_kwargs()},
                min_size=1, max_size=1, open=False, check=ConnectionPool.check_connection, name="pulka accounts",
                timeout=pool_wait, reconnect_timeout=RECONNECT_TIMEOUT, num_workers=1)
        elif read_only:  # a store served read-only (a read-only file or mount)
            self.conn = read_only_connection(db)
        else:
            self.conn = sqlite3.connect(db, timeout=10, isolation_level=None, check_same_thread=False)
        self._made = read_only  # nothing is made in a store served read-only

    def _name(self, table: str) -> str:
        return f'"{self.schema}"."{table}"' if self.postgres else table

    def _run(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        text = statement.format(accounts=self._name(ACCOUNTS), tokens=self._name(TOKENS),
                                secrets=self._name(SECRETS), sessions=self._name(SESSIONS),
                                limits=self._name(LIMITS))
        if not self.postgres:
            return _rows(self.conn, text, params, self.label)
        import psycopg

        if self.pool.closed:
            self.pool.open()
        try:
            with self.pool.connection() as conn:
                return _rows(conn, text.replace("?", "%s"), params, self.label)
        except psycopg.Error as exc:
            raise StoreError(_("cannot use the accounts of {store}: {why}").format(
                store=self.label, why=reason(exc))) from exc

    def ensure(self) -> None:
        """Make the tables when they are missing (a store of an earlier layout is
        upgraded before the service uses it: ``ledger.desks.upkeep.upgraded``)."""
        if self._made:
            return
        kind = "postgres" if self.postgres else "sqlite"
        for table in (ACCOUNTS, TOKENS, SECRETS, SESSIONS, LIMITS):  # the store's own (a copy of it carries them)
            self._run(layout.create_statement(table, self._name(table), kind))
        self._made = True

    def try_write(self) -> None:
        """A write that changes nothing (a delete of no row), so that a store that can be
        read but not written is found out before it is served (``ensure`` writes nothing
        once the tables are made, and SQLite opens a WAL file on a read-only mount as it
        is, when its -wal and -shm files are there): a ``StoreError``."""
        self._run("DELETE FROM {secrets} WHERE name = ''")

    def secret(self) -> str:
        """The key that signs the service's session cookies: made once, kept in the
        database, so that every process serving the store signs alike."""
        self.ensure()
        self._run("INSERT INTO {secrets} (name, value) VALUES ('session', ?) ON CONFLICT (name) DO NOTHING",
                  (secrets.token_urlsafe(32),))
        return str(self._run("SELECT value FROM {secrets} WHERE name = 'session'")[0][0])

    def kept_secret(self) -> str | None:
        """The key kept in the database (``secret``), read and never made (a store served
        read-only); None when there is none."""
        rows = self._run("SELECT value FROM {secrets} WHERE name = 'session'")
        return str(rows[0][0]) if rows else None

    # -- accounts -------------------------------------------------------------------------

    def create(self, name: str, password: str, role: str) -> Account:
        """A new account, its name judged beside every other account's
        (``judge.accounts.check_account_name``: Refused)."""
        check_role(role)
        self.ensure()
        check_account_name(name, [r[0] for r in self._run("SELECT name FROM {accounts}")])
        account_id = secrets.token_hex(8)
        self._run("INSERT INTO {accounts} (name, role, hash, id, name_key, created) VALUES (?, ?, ?, ?, ?, ?)",
                  (name, role, _hasher.hash(password), account_id, name_key(name), time.time()))
        return Account(name, role, account_id)

    def row(self, name: str) -> AccountRow | None:
        """The account ``name`` names: as written, else in another case or width."""
        if not storable(name):
            return None
        self.ensure()
        rows = self._run(f"SELECT {ROW} FROM {{accounts}} WHERE name = ?", (name,))
        if not rows:
            rows = self._run(f"SELECT {ROW} FROM {{accounts}} WHERE name_key = ?", (name_key(name),))
        return AccountRow(*rows[0]) if len(rows) == 1 else None

    def account(self, name: str) -> Account | None:
        found = self.row(name)
        return found.account if found is not None else None

    def all(self) -> list[AccountRow]:
        self.ensure()
        return [AccountRow(*r) for r in self._run(f"SELECT {ROW} FROM {{accounts}} ORDER BY name")]

    def count(self) -> int:
        self.ensure()
        return int(self._run("SELECT COUNT(*) FROM {accounts}")[0][0])

    def set_role(self, account_id: str, role: str) -> None:
        check_role(role)
        self._run("UPDATE {accounts} SET role = ? WHERE id = ?", (role, account_id))
        self.end_sessions(account_id)

    def set_password(self, account_id: str, password: str) -> None:
        self._run("UPDATE {accounts} SET hash = ? WHERE id = ?", (_hasher.hash(password), account_id))
        self.end_sessions(account_id)

    def set_disabled(self, account_id: str, disabled: bool) -> None:
        self._run("UPDATE {accounts} SET disabled = ? WHERE id = ?", (int(disabled), account_id))
        self.end_sessions(account_id)

    def remove(self, account_id: str) -> None:
        self._run("DELETE FROM {accounts} WHERE id = ?", (account_id,))
        self.end_sessions(account_id)

    def restore(self, row: AccountRow) -> None:
        """Put an account back as it was (a change whose event could not be stored)."""
        self._run("DELETE FROM {accounts} WHERE id = ?", (row.id,))
        self._run(f"INSERT INTO {{accounts}} ({ROW}, name_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  (*row, name_key(row.name)))

    # -- signing in -----------------------------------------------------------------------

    def sign_in(self, name: str, password: str, code: str | None = None, now: float | None = None) -> Attempt:
        """Whether ``password`` (and ``code``, for an account with a second factor) is
        the account's. Each attempt on a name is counted before the password is checked,
        in the database (``counted``): of simultaneous attempts only those before the
        lock are checked. A name without an account is counted, locked and checked
        against a hash alike, so that neither the answer nor its time tells it."""
        now = time.time() if now is None else now
        self.ensure()
        key = "name:" + digest(look_key(name))  # a digest: no NUL, no length a client chooses
        wait = self.counted(key, now)
        if wait:
            return Attempt("locked", wait=wait)
        found = self.row(name)
        if not _verify(found.hash if found is not None else _DUMMY, password) or found is None:
            return Attempt("wrong")
        if found.totp and not (code and self._second_factor(found, code, now)):
            return Attempt("code")
        self._run("DELETE FROM {limits} WHERE key = ?", (key,))
        if found.disabled:
            return Attempt("disabled", found.account)
        if _hasher.check_needs_rehash(found.hash):  # hashed with weaker parameters than now
            self._run("UPDATE {accounts} SET hash = ? WHERE id = ?", (_hasher.hash(password), found.id))
        return Attempt("ok", found.account)

    def check_password(self, name: str, password: str, now: float | None = None) -> Attempt:
        """Whether ``password`` is the account's (a person changing his own gives his
        current one first): counted as a sign-in is, so that a session left open is
        no way to guess it."""
        now = time.time() if now is None else now
        key = "name:" + digest(look_key(name))
        wait = self.counted(key, now)
        if wait:
            return Attempt("locked", wait=wait)
        found = self.row(name)
        if found is None or not _verify(found.hash, password):
            return Attempt("wrong")
        self._run("DELETE FROM {limits} WHERE key = ?", (key,))
        return Attempt("ok", found.account)

    def counted(self, key: str, now: float) -> float:
        """Count one attempt on ``key`` unless it is locked: 0 when counted, else the
        seconds to wait. Compare-and-set: each count is written only over the count it
        read, so that no two attempts are counted as one."""
        if random.random() < 0.01:  # forget the counts nobody touched for a day
            self._run("DELETE FROM {limits} WHERE since < ? AND until < ?", (now - QUIET, now))
        for _ in range(TRIES):
            rows = self._run("SELECT count, until, since FROM {limits} WHERE key = ?", (key,))
            if not rows:
                if self._run("INSERT INTO {limits} (key, count, since, until) VALUES (?, 1, ?, ?) "
                             "ON CONFLICT (key) DO NOTHING RETURNING count", (key, now, _until(1, now))):
                    return 0.0
                continue
            count, until, since = rows[0]
            if until > now:
                return float(until - now)
            fresh = 1 if since < now - QUIET else count + 1
            if self._run("UPDATE {limits} SET count = ?, since = ?, until = ? WHERE key = ? AND count = ? "
                         "AND since = ? RETURNING count", (fresh, now, _until(fresh, now), key, count, since)):
                return 0.0
        return LOCK_FIRST

    def attempt_from(self, address: str, now: float | None = None) -> float:
        """Count a sign-in attempt from ``address``: 0 when it may try (at most
        ``ATTEMPTS`` in ``WINDOW`` seconds), else the seconds until it may."""
        now = time.time() if now is None else now
        self.ensure()
        key = "address:" + address[:100]
        for _ in range(TRIES):
            rows = self._run("SELECT count, since FROM {limits} WHERE key = ?", (key,))
            if not rows:
                if self._run("INSERT INTO {limits} (key, count, since, until) VALUES (?, 1, ?, 0) "
                             "ON CONFLICT (key) DO NOTHING RETURNING count", (key, now)):
                    return 0.0
                continue
            count, since = rows[0]
            if since <= now - WINDOW:
                fresh = (1, now)
            elif count >= ATTEMPTS:
                return float(since + WINDOW - now)
            else:
                fresh = (count + 1, since)
            if self._run("UPDATE {limits} SET count = ?, since = ? WHERE key = ? AND count = ? AND since = ? "
                         "RETURNING count", (*fresh, key, count, since)):
                return 0.0
        return WINDOW

    # -- sessions -------------------------------------------------------------------------

    def open_session(self, account: Account, stage: str = "full", now: float | None = None) -> str:
        """A new session of ``account``: the secret its cookie holds (its digest is kept).
        ``stage``: ``full``, or ``enrol`` (it may only enrol a second factor)."""
        now = time.time() if now is None else now
        self.ensure()
        secret = secrets.token_urlsafe(32)
        self._run("DELETE FROM {sessions} WHERE expires < ?", (now,))
        self._run("INSERT INTO {sessions} (id, account, created, expires, stage) VALUES (?, ?, ?, ?, ?)",
                  (digest(secret), account.id, now, now + SESSION_HOURS * 3600, stage))
        return secret

    def session(self, secret: str, now: float | None = None) -> tuple[Account, str] | None:
        """The account of a session and its stage, while the session is open and its
        account may sign in; None otherwise."""
        if not storable(secret):
            return None
        now = time.time() if now is None else now
        self.ensure()
        rows = self._run(f"SELECT {', '.join('a.' + c.strip() for c in ROW.split(','))}, s.expires, s.stage "
                         "FROM {sessions} s JOIN {accounts} a ON a.id = s.account WHERE s.id = ?", (digest(secret),))
        if not rows:
            return None
        *fields, expires, stage = rows[0]
        found = AccountRow(*fields)
        if expires <= now or found.disabled:
            return None
        return found.account, str(stage)

    def close_session(self, secret: str) -> None:
        if storable(secret):
            self.ensure()
            self._run("DELETE FROM {sessions} WHERE id = ?", (digest(secret),))

    def end_sessions(self, account_id: str) -> None:
        """End every session of an account, in every process at once."""
        self._run("DELETE FROM {sessions} WHERE account = ?", (account_id,))

    def promote_session(self, secret: str) -> None:
        """A session that enrolled its second factor may do all its role may."""
        self._run("UPDATE {sessions} SET stage = 'full' WHERE id = ?", (digest(secret),))

    # -- the second factor ----------------------------------------------------------------

    def begin_enrolment(self, account_id: str) -> str:
        """A new TOTP secret for the account, taken once confirmed by a code of it."""
        secret = second_factor.new_secret()
        self._run("UPDATE {accounts} SET totp_pending = ? WHERE id = ?", (secret, account_id))
        return secret

    def confirm_enrolment(self, account_id: str, code: str, now: float | None = None) -> list[str] | None:
        """The recovery codes, when ``code`` is a code of the secret being enrolled (the
        secret is then the account's); None otherwise."""
        rows = self._run("SELECT totp_pending FROM {accounts} WHERE id = ?", (account_id,))
        if not rows or not rows[0][0] or not storable(code):
            return None
        step = second_factor.accepted(rows[0][0], code, -1, now)
        if step is None:
            return None
        codes = second_factor.recovery_codes()
        self._run("UPDATE {accounts} SET totp = totp_pending, totp_pending = NULL, totp_step = ?, recovery = ? "
                  "WHERE id = ?", (step, json.dumps([second_factor.recovery_digest(c) for c in codes]), account_id))
        return codes

    def remove_second_factor(self, account_id: str) -> None:
        self._run("UPDATE {accounts} SET totp = NULL, totp_pending = NULL, totp_step = 0, recovery = NULL "
                  "WHERE id = ?", (account_id,))

    def _second_factor(self, row: AccountRow, code: str, now: float) -> bool:
        """Whether ``code`` is the account's: a TOTP code of a step not used yet, or one
        of its recovery codes (each taken once). Compare-and-set, as the counts are."""
        if not storable(code, 40) or row.totp is None:
            return False
        step = second_factor.accepted(row.totp, code, row.totp_step, now)
        if step is not None:
            return bool(self._run("UPDATE {accounts} SET totp_step = ? WHERE id = ? AND totp_step = ? "
                                  "RETURNING id", (step, row.id, row.totp_step)))
        left = json.loads(row.recovery or "[]")
        wanted = second_factor.recovery_digest(code)
        if wanted not in left:
            return False
        rest = json.dumps([d for d in left if d != wanted])
        return bool(self._run("UPDATE {accounts} SET recovery = ? WHERE id = ? AND recovery = ? RETURNING id",
                              (rest, row.id, row.recovery)))

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
        if not dot or not token_id or not secret or not storable(text):
            return None
        self.ensure()
        rows = self._run("SELECT id, digest, game, by_whom, issued_by, issued, revoked FROM {tokens} WHERE id = ?",
                         (token_id,))
        if not rows or not hmac.compare_digest(rows[0][1], digest(secret)) or rows[0][6] is not None:
            return None
        found = rows[0]
        return Token(found[0], found[2], found[3], found[4], found[5], found[6])

    def tokens(self, game: str) -> list[Token]:
        if not storable(game):
            return []
        self.ensure()
        rows = self._run("SELECT id, game, by_whom, issued_by, issued, revoked FROM {tokens} WHERE game = ? "
                         "ORDER BY issued", (game,))
        return [Token(*row) for row in rows]

    def revoke(self, token_id: str) -> Token | None:
        if not storable(token_id):
            return None
        self.ensure()
        self._run("UPDATE {tokens} SET revoked = ? WHERE id = ? AND revoked IS NULL", (time.time(), token_id))
        rows = self._run("SELECT id, game, by_whom, issued_by, issued, revoked FROM {tokens} WHERE id = ?",
                         (token_id,))
        return Token(*rows[0]) if rows else None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        else:
            self.conn.close()


def _rows(conn: Any, text: str, params: tuple[Any, ...], label: str) -> list[tuple[Any, ...]]:
    """The rows of one statement on ``conn`` (none for a statement that returns none);
    SQLite's errors as a StoreError (PostgreSQL's are told by the caller)."""
    try:
        cursor = conn.execute(text, params)
        try:
            return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
        finally:
            cursor.close()
    except sqlite3.Error as exc:
        raise StoreError(_("cannot use the accounts of {store}: {why}").format(store=label, why=reason(exc))) from exc


def _until(count: int, now: float) -> float:
    wait = lock_wait(count)
    return now + wait if wait else 0.0


def _verify(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


_DUMMY = _hasher.hash(secrets.token_hex(8))  # what a sign-in with an unknown name is checked against

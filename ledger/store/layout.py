"""The store's layout: the tables its database holds beside the events table and which
version of them it is, so that a store written by an earlier pulka is brought up to
this one's in place (``migrate``) and one written by a later pulka is refused before
anything is read or written (``Store``).

The layouts, each the tables a released state of pulka wrote:

1. the events table alone (``stored_events`` in SQLite, ``pulka_events`` in PostgreSQL);
2. and the player views (``archive_games``, ``archive_results``,
   ``archive_tournaments``, ``archive_aliases``, and eventsourcing's ``tracking``);
3. and the club rating (``rating_matches``, ``rating_changes``);
4. and the Merkle tree's cache (``merkle_tiles``, ``merkle_state``, ``merkle_marks``);
5. and the receipts of client ids (``pulka_receipts``), the service's accounts, tokens
   and session secret (``pulka_accounts``, ``pulka_tokens``, ``pulka_serve_secret``);
6. and the streams the views leave out (``archive_broken``);
7. the layout itself recorded: marked where any role that reads the
   events reads it too (SQLite's ``user_version``, the comment ``pulka layout N`` on
   PostgreSQL's events table), and its history in ``pulka_layout`` (each version the
   store was brought to, when, by which pulka); on PostgreSQL the views' text ordered
   by code point (``COLLATE "C"``), never by the database's collation;
8. the club rating by a chosen model: ``rating_pulkas``,
   ``rating_moves`` (each move with what explains it) and ``rating_models`` (the
   club's choices of a model) in place of ``rating_matches`` and ``rating_changes``,
   and the archive's ``archive_known``, ``archive_rules`` and ``archive_clock`` (when
   the store held each event, each game's whists' worth);
9. the service's sessions and counts of sign-in attempts
   (``pulka_sessions``, ``pulka_limits``); the digest of each receipt's request
   (``pulka_receipts.digest``: an id reused with another request is told apart); each
   account's id, the key its name is read under, whether it is disabled, when it was
   made and its second factor (``pulka_accounts``' ``ADDED`` columns);
10. what each pulka's deals and records gave each person who held a seat
   in it, and the story of each deal in every reader's language, kept by the player
   views as its events arrive (``archive_stats``, ``archive_stories``): what ``pulka
   stats`` and the player's page add up instead of replaying his pulkas; and the judged
   marks (``pulka_judged``: for each stream, how many of its first events the ledger
   has judged and the digest of the last of them, written in the transaction that
   stores them), so that a read judges only what it has not judged before
   (``ledger.application``).
11. (this pulka's) each person's numbers added up over the pulkas counted
   (``archive_totals``), kept with ``archive_stats`` in the same transactions, so that a
   player's page reads his totals, not every deal of every pulka he played.

An earlier store records no layout: its tables say which it is (``inferred``: the last
layout whose tables it has; a table made only when first needed, such as the
receipts', may be missing from a store of a later layout, which changes nothing of
what upgrading it does). The events' rows never change (their digests are over them)
and read as they always have: rows without the link to the digest before them, the
topics of the first stores.

``migrate`` brings a store to this pulka's layout in one transaction, under the store's
write lock (another command upgrading at once waits, then finds it done): it drops the
player views' tables when they are not this pulka's (some missing, as in layouts 2-5)
or, on PostgreSQL, order their text by the database's collation; the next writing
command makes them again (``ledger.views.archive.ensure_views``) and the next read
folds them from the events, so that nothing kept was folded in another order. It adds
the columns later layouts gave the kept tables (``ADDED``), each account its id and
name key (``accounts_keyed``). Then it records the layout. Every other table and row
is kept as it is.

The tables a copy of a store carries (``KEPT``: the receipts, the service's accounts,
tokens, session key, sessions and counts of sign-in attempts) are made here, in the
words of both backends: what only a store holds, not folded from its events.
"""

from __future__ import annotations

from collections.abc import Collection

import msgspec

from ledger.store.backend import JUDGED, RECEIPTS, Backend, CannotOpen, Transaction
from ledger.vocabulary import language
from ledger.vocabulary.names import name_key
from ledger.vocabulary.times import now_iso

_ = language._  # every text a person reads, in the language in effect
LAYOUT = 11
TABLE = "pulka_layout"
# The layout that brought the club rating's models: a store of an earlier one was rated
# by OpenSkill by places, and is rated by the default model once upgraded.
RATING_MODELS = 8

# The player views (``ledger.views.recorders``, ``ledger.views.rating``) and their
# position (eventsourcing's tracking table, named by each backend): folded from the
# events, and folded again when they are dropped.
ARCHIVE = ("archive_games", "archive_results", "archive_tournaments", "archive_aliases", "archive_broken",
           "archive_known", "archive_rules", "archive_clock", "archive_stats",
           "archive_stories", "archive_totals")
RATING = ("rating_pulkas", "rating_moves", "rating_models")
VIEWS = ARCHIVE + RATING
# The player views' tables of earlier layouts that this one no longer has: dropped with
# the others when a store is upgraded.
FORMER = ("rating_matches", "rating_changes")
TRACKING = {"sqlite": "tracking", "postgres": "archive_tracking"}
# The Merkle tree's cache (``ledger.proofs.tree``), computed from the events.
TREE = ("merkle_tiles", "merkle_state", "merkle_marks")
# The service's accounts and tokens (``web.accounts``), the key that signs its cookies,
# its sessions and its counts of sign-in attempts.
ACCOUNTS, TOKENS, SECRET = "pulka_accounts", "pulka_tokens", "pulka_serve_secret"
SESSIONS, LIMITS = "pulka_sessions", "pulka_limits"

# What only the store holds beside its events (a copy carries them): each table's
# columns, ``{bigint}`` an integer of 64 bits in both backends' words.
KEPT: dict[str, str] = {
    RECEIPTS: "(key TEXT PRIMARY KEY, stream TEXT NOT NULL, first {bigint} NOT NULL, last {bigint} NOT NULL, "
              "digest TEXT)",
    # failures and locked_until: layout 5's count of failed sign-ins, kept (the counts
    # are pulka_limits' since layout 8)
    ACCOUNTS: "(name TEXT PRIMARY KEY, role TEXT NOT NULL, hash TEXT NOT NULL, failures INTEGER NOT NULL DEFAULT 0, "
              "locked_until DOUBLE PRECISION NOT NULL DEFAULT 0, id TEXT, name_key TEXT, "
              "disabled INTEGER NOT NULL DEFAULT 0, created DOUBLE PRECISION, totp TEXT, totp_pending TEXT, "
              "totp_step INTEGER NOT NULL DEFAULT 0, recovery TEXT)",
    TOKENS: "(id TEXT PRIMARY KEY, digest TEXT NOT NULL, game TEXT NOT NULL, by_whom TEXT NOT NULL, "
            "issued_by TEXT NOT NULL, issued DOUBLE PRECISION NOT NULL, revoked DOUBLE PRECISION)",
    SECRET: "(name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    SESSIONS: "(id TEXT PRIMARY KEY, account TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, "
              "expires DOUBLE PRECISION NOT NULL, stage TEXT NOT NULL)",
    LIMITS: "(key TEXT PRIMARY KEY, count INTEGER NOT NULL, since DOUBLE PRECISION NOT NULL, "
            "until DOUBLE PRECISION NOT NULL)",
}
# The columns a later layout added to a kept table an earlier one made (their types as
# ``KEPT`` says): added by ``migrate``, and left out of a copy from a store without them.
ADDED: dict[str, tuple[str, ...]] = {
    RECEIPTS: ("digest",),
    ACCOUNTS: ("id", "name_key", "disabled", "created", "totp", "totp_pending", "totp_step", "recovery"),
}
# The judged marks (``Store.judged_mark``): the stream's id (hex), how many of its first
# events the ledger has judged, and the digest of the last of them. Made with the layout
# (``record``); a copy does not carry them (``ledger.store.copy``).
JUDGED_COLUMNS = "(stream TEXT PRIMARY KEY, judged {bigint} NOT NULL, digest TEXT NOT NULL)"
LAYOUT_COLUMNS = "(version INTEGER PRIMARY KEY, at TEXT NOT NULL, pulka TEXT NOT NULL)"
BIGINT = {"sqlite": "INTEGER", "postgres": "bigint"}

# The table each earlier layout added first, latest first (``inferred``).
SINCE = ((6, "archive_broken"), (5, RECEIPTS), (5, ACCOUNTS), (5, TOKENS), (4, "merkle_tiles"),
         (3, "rating_matches"), (2, "archive_games"))


def create_statement(table: str, name: str, kind: str) -> str:
    """The statement that makes one of the ``KEPT`` tables, named ``name``, on the
    backend ``kind`` (``sqlite``, ``postgres``), when it is missing."""
    return f"CREATE TABLE IF NOT EXISTS {name} " + KEPT[table].format(bigint=BIGINT[kind])


def create_kept(tx: Transaction, table: str) -> None:
    """Make one of the ``KEPT`` tables when it is missing."""
    tx.run(create_statement(table, tx.name(table), tx.kind))


def columns(table: str) -> list[str]:
    """The columns of one of the ``KEPT`` tables, in order."""
    return [part.split()[0] for part in KEPT[table].strip("()").split(", ")]


def column_definition(table: str, column: str, kind: str) -> str:
    """One column of a ``KEPT`` table as ``ALTER TABLE … ADD COLUMN`` writes it."""
    parts = KEPT[table].format(bigint=BIGINT[kind]).strip("()").split(", ")
    return next(part for part in parts if part.split()[0] == column)


def columns_added(tx: Transaction, tables: Collection[str]) -> None:
    """The ``ADDED`` columns a kept table of an earlier layout lacks, added."""
    for table, added in ADDED.items():
        if table not in tables:
            continue
        have = set(tx.column_names(table))
        for column in added:
            if column not in have:
                tx.run(f"ALTER TABLE {tx.name(table)} ADD COLUMN {column_definition(table, column, tx.kind)}")


def accounts_keyed(tx: Transaction) -> None:
    """Each account of an earlier layout given an id (what its sessions and events name:
    a name made again is another account) and the key its name is read under
    (``names.name_key``)."""
    if ACCOUNTS not in tx.tables():
        return
    import secrets  # here: once, at an upgrade

    for (name,) in tx.run(f"SELECT name FROM {tx.name(ACCOUNTS)} WHERE id IS NULL OR name_key IS NULL"):
        tx.run(f"UPDATE {tx.name(ACCOUNTS)} SET id = COALESCE(id, ?), name_key = ? WHERE name = ?",
               (secrets.token_hex(8), name_key(name), name))


def inferred(tables: Collection[str]) -> int:
    """The layout an earlier store's tables are: the last one whose first table it has."""
    return next((layout for layout, table in SINCE if table in tables), 1)


def found(tx: Transaction) -> int | None:
    """The store's layout, recorded or read from its tables; None: no events table yet."""
    tables = tx.tables()
    if tx.events_table not in tables:
        return None
    return tx.marked_layout() or inferred(tables)


def views_outdated(tx: Transaction, tables: Collection[str]) -> str | None:
    """Why the player views' tables are not this pulka's (None: they are, or there are
    none): some of them missing, or on PostgreSQL text ordered by the database's collation."""
    present = [t for t in VIEWS if t in tables]
    if not present:
        return None
    missing = [t for t in VIEWS if t not in tables]
    if missing:
        return _("the player views were an earlier pulka's (without {tables})").format(tables=", ".join(missing))
    by_locale = tx.ordered_by_locale(VIEWS)
    if by_locale:
        return _("the player views ordered their text by the database's collation, not by code point ({columns})"
                 ).format(columns=", ".join(by_locale[:3]))
    return None


class Upgrade(msgspec.Struct, frozen=True):
    """What ``migrate`` did: the layout the store was at, the one it is at now, and why
    the player views were dropped (None: kept)."""

    was: int
    now: int
    views: str | None

    @property
    def rerated(self) -> bool:
        """Whether the club rating now reads otherwise: the store was rated by OpenSkill
        by places, before the club could choose a model."""
        return self.was < RATING_MODELS


def this_pulka() -> str:
    """The version of this pulka, as its layout's record names it."""
    from importlib import metadata  # here: read at a store's creation or upgrade alone (about 10 ms)

    try:
        return f"pulka {metadata.version('pulka')}"
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        return "pulka"


def record(tx: Transaction, at: str, pulka: str) -> None:
    """Record that the store is at this pulka's layout: marked where every reader of
    its events reads it (``Transaction.mark_layout``), and a row of the layout's history (the
    table made when missing); the table of judged marks made when missing (empty: an
    upgraded store's reads judge every event until the ledger marks its streams)."""
    tx.mark_layout(LAYOUT)
    tx.run(f"CREATE TABLE IF NOT EXISTS {tx.name(TABLE)} {LAYOUT_COLUMNS}")
    tx.run(f"CREATE TABLE IF NOT EXISTS {tx.name(JUDGED)} " + JUDGED_COLUMNS.format(bigint=BIGINT[tx.kind]))
    tx.run(f"INSERT INTO {tx.name(TABLE)} (version, at, pulka) VALUES (?, ?, ?) ON CONFLICT (version) DO NOTHING",
           (LAYOUT, at, pulka))


def migrate(tx: Transaction, at: str, pulka: str) -> Upgrade | None:
    """Bring the store of ``tx`` (a transaction under its write lock) to this pulka's
    layout; None when it is at it already (or has no events table: a store's layout is
    recorded when its events table is made). A later layout is not touched (the caller
    refused it)."""
    was = found(tx)
    if was is None or was >= LAYOUT:
        return None
    tables = tx.tables()
    why = views_outdated(tx, tables)
    if why is not None:
        for table in (*VIEWS, *FORMER, TRACKING[tx.kind]):
            if table in tables:
                tx.run(f"DROP TABLE {tx.name(table)}")
    columns_added(tx, tables)
    accounts_keyed(tx)
    record(tx, at, pulka)
    return Upgrade(was, LAYOUT, why)


# -- a store's layout, as the store opens, is made and is upgraded ----------------------------


def at_open(backend: Backend) -> int | None:
    """The layout of the store ``backend`` has just opened (None: no events table yet);
    one written by a later pulka is refused before anything is read or written."""
    if not backend.found():
        return None
    with backend.reading() as tx:
        layout = found(tx)
    if layout is not None and layout > LAYOUT:
        backend.close()
        why = _("it was written by a later pulka (its layout is {found}; this pulka knows layouts up to "
                "{known}): upgrade pulka to read it").format(found=layout, known=LAYOUT)
        raise CannotOpen(_("cannot open the store {store}: {why}").format(store=backend.description, why=why), why)
    return layout


def recorded(backend: Backend) -> int:
    """Record this pulka's layout in a store whose events table it has just made."""
    with backend.writing() as tx:
        record(tx, now_iso(), this_pulka())
    return LAYOUT


def make_kept(backend: Backend, table: str) -> None:
    """Make one of the ``KEPT`` tables of the store when it is missing."""
    with backend.writing() as tx:
        create_kept(tx, table)


def migrated(backend: Backend, layout: int | None) -> Upgrade | None:
    """Bring the store at ``layout`` (opened to write) to this pulka's, in one transaction
    (``migrate``); None when it is at it (or has no events table)."""
    if layout is None or layout >= LAYOUT:
        return None
    with backend.writing() as tx:
        return migrate(tx, now_iso(), this_pulka())


def outdated(backend: Backend, layout: int | None) -> str | None:
    """Why the player views' tables are not this pulka's, in a store of an earlier layout
    (None: they are, or the store is at this pulka's layout)."""
    if layout is None or layout >= LAYOUT:
        return None
    with backend.reading() as tx:
        return views_outdated(tx, tx.tables())

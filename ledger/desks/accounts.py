"""The desk of the service's accounts as the club log keeps them: each change of an
account stored as an event of ``@accounts``, judged first (``ledger.judge.accounts``),
the stream made with its first event; and what the stream says: its events, and the
club's setting of a second factor.

The service's table of accounts (``web.accounts``) holds the passwords and second
factors; this stream holds who changed which account, when, and how.
"""

from __future__ import annotations

from ledger.judge.accounts import judge_account_event
from ledger.store.event_store import Store
from ledger.store.stored import ConcurrentWriteError, StoredEvent
from ledger.vocabulary.accounts import ACCOUNTS_STREAM, AccountsStarted, SecondFactorRequired
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.times import now_iso

TRIES = 5  # the stream is short and its events independent: a write that lost a race is made again


def record_account_event(store: Store, event: AnyEvent) -> StoredEvent:
    """Store ``event`` (with the time now, when it has none) at the end of ``@accounts``."""
    if event.at is None:
        import msgspec

        event = msgspec.structs.replace(event, at=now_iso())
    judge_account_event(event)
    for attempt in range(TRIES):
        count = store.count(ACCOUNTS_STREAM)
        events: list[AnyEvent] = [event]
        if not count:
            events.insert(0, AccountsStarted(game=ACCOUNTS_STREAM, at=event.at, by=event.by))
        try:
            return store.append(ACCOUNTS_STREAM, events, expected=count)[-1]
        except ConcurrentWriteError:
            if attempt == TRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def account_events(store: Store) -> list[StoredEvent]:
    """The events of ``@accounts``, first to last (none before the first account)."""
    return store.sound(ACCOUNTS_STREAM, "accounts") if store.count(ACCOUNTS_STREAM) else []


def second_factor_required(events: list[StoredEvent]) -> bool:
    """The club's setting as the last ``second_factor_required`` left it (off without one)."""
    settings = [s.event for s in events if isinstance(s.event, SecondFactorRequired)]
    return bool(settings and settings[-1].required)

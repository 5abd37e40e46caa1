"""A command whose read went stale, decided again once: a command judged by a stream it
does not write (a table's record by its tournament, a tour's close by its tables, a
seating by the club register) stores only if that stream is unchanged when it writes
(``Store.append``'s ``unchanged``); when it changed, the command is decided again on
what is stored now (``retried``), so that it is judged by it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ledger.store.stored import ConcurrentWriteError

T = TypeVar("T")


class StaleReadError(Exception):
    """A write refused because a stream the command judged by, and does not write (a
    tournament, a table), changed after it was read; ``count``: the events of the
    stream written that the command had read."""

    def __init__(self, count: int, cause: ConcurrentWriteError) -> None:
        self.count = count
        self.cause = cause
        super().__init__(str(cause))


def stale_read(count: int, write: Callable[[], T]) -> T:
    """``write()``, whose ``unchanged`` streams changing meanwhile is a StaleReadError
    (``count``: the events of the written stream read); a change to the stream
    written stays a ConcurrentWriteError."""
    try:
        return write()
    except ConcurrentWriteError as exc:
        if exc.written:
            raise
        raise StaleReadError(count, exc) from exc


def retried(attempt: Callable[[int | None], T]) -> T:
    """``attempt(None)``; when a stream it judged by changed before it wrote (a tour
    closed while a table's record was decided, a table recorded into while its tour's
    close was), once more on what is stored now, so that the command is judged by it:
    refused because the tour is closed, or a close that sees the table's last record.
    The second attempt is given the count of events the first read of the stream it
    writes: when that stream changed too, it is refused as any concurrent write is."""
    try:
        return attempt(None)
    except StaleReadError as exc:
        try:
            return attempt(exc.count)
        except StaleReadError as again:
            raise again.cause from None

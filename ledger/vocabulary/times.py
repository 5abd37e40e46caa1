"""Times in the log: ISO 8601 with an offset (the README, "The log format").

The one place where a time of the log is read, so that the command side, the points
in time of the projections and the import all accept and refuse the same texts.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

EXAMPLE = "2026-11-30T20:14:03+01:00"


class TimeFormatError(ValueError):
    """A text that is not an ISO 8601 time with an offset."""


def parse_time(text: str) -> datetime:
    """The time ``text`` names, which must carry its offset; raises TimeFormatError."""
    try:
        when = datetime.fromisoformat(text)
    except (ValueError, TypeError):
        raise TimeFormatError(f"{text!r} is not an ISO 8601 time (e.g. {EXAMPLE})") from None
    if when.tzinfo is None:
        raise TimeFormatError(f"time {text!r} has no offset (e.g. {EXAMPLE}, or Z for UTC)")
    return when


def now_iso() -> str:
    """The time now, in UTC, to the second: what the ledger stamps on an event without one."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def utc_micros(text: str) -> int:
    """A time of the log as whole microseconds since 1970 UTC: comparable across offsets,
    and what the read models store to answer "as of time T"; raises TimeFormatError."""
    return (parse_time(text) - EPOCH) // timedelta(microseconds=1)

"""Times in the log: ISO 8601 with an offset (the README, "The log format").

The one place where a time of the log is read, so that the command side, the points
in time of the projections and the import all accept and refuse the same texts.
"""

from __future__ import annotations

import re
from functools import lru_cache
from datetime import date, datetime, timedelta, timezone, tzinfo
from datetime import time as dt_time

from ledger.vocabulary import language
from ledger.vocabulary.refusal import excerpt

_ = language._  # every text a person reads, in the language in effect

EXAMPLE = "2026-11-30T20:14:03+01:00"


class TimeFormatError(ValueError):
    """A text that is not an ISO 8601 time with an offset."""


# The last times read, remembered: the judge reads an event's time when it admits it and
# again when it compares it with the time of the event before, which it read one event
# ago (a refusal is not remembered: it is raised again, in the language in effect).
@lru_cache(maxsize=64)
def parse_time(text: str) -> datetime:
    """The time ``text`` names, which must carry its offset; raises TimeFormatError."""
    try:
        when = datetime.fromisoformat(text)
    except (ValueError, TypeError):
        raise TimeFormatError(_("{text} is not an ISO 8601 time (e.g. {example})").format(
            text=excerpt(text), example=EXAMPLE)) from None
    offset = when.utcoffset()
    if offset is None:
        raise TimeFormatError(_("time {text} has no offset (e.g. {example}, or Z for UTC)").format(
            text=excerpt(text), example=EXAMPLE))
    if offset.microseconds or offset.seconds % 60:  # not whole minutes (``offset % timedelta(minutes=1)``)
        raise TimeFormatError(_("time {text} has an offset in seconds; ISO 8601 offsets are hours and minutes "
                                "(e.g. {example})").format(text=excerpt(text), example=EXAMPLE))
    return in_range(when, text)


# The years a time may fall in: any time of them can be shown in any zone (a day's
# offsets either side of 1 and 9999 would not fit the calendar).
FIRST_YEAR, LAST_YEAR = 2, 9998


def in_range(when: datetime, text: str) -> datetime:
    """``when``, or TimeFormatError when it lies outside the years ``FIRST_YEAR`` to
    ``LAST_YEAR``."""
    if not FIRST_YEAR <= when.year <= LAST_YEAR:
        raise TimeFormatError(_("time {text} is outside the years {first} to {last}").format(
            text=excerpt(text), first=FIRST_YEAR, last=LAST_YEAR))
    return when


def now_iso() -> str:
    """The time now, in UTC, to the second: what the ledger stamps on an event without one."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# -- times as people write and read them -------------------------------------------------

LOCAL_EXAMPLE = "2026-12-01 20:14"


# A time of day alone: 20:14, 9:05, 20:14:03, 20:14:03.5, with an offset or Z if any.
TIME_OF_DAY = r"(\d{1,2}):(\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})?)"


def parse_local(text: str, zone: tzinfo, *, end_of_day: bool = False, now: datetime | None = None) -> datetime:
    """A time as a person types it: ISO 8601 with an offset (``2026-12-01T20:14:03+01:00``,
    ``…Z``), or without one, read in ``zone``: ``2026-12-01 20:14``, ``2026-12-01T20:14:03``,
    or a date alone (``2026-12-01``), which is the start of that day, or its end when
    ``end_of_day`` (the last moment of the day: what "as of 1 December" means); or a time
    of day alone (``20:14``, ``9:05:30``), which is that time today: the date of ``now``
    (the clock's, by default) in ``zone``, or in the offset the time carries."""
    given = text.strip()
    of_day = re.fullmatch(TIME_OF_DAY, given)
    if of_day is not None:
        try:
            clock = dt_time.fromisoformat(f"{int(of_day.group(1)):02d}:{of_day.group(2)}")
        except ValueError:
            raise TimeFormatError(_("{text} is not a time of day (e.g. 20:14)").format(text=excerpt(text))) from None
        where = clock.tzinfo or zone
        today = (now or datetime.now(timezone.utc)).astimezone(where).date()
        return in_range(datetime.combine(today, clock.replace(tzinfo=None), tzinfo=where), text)
    given = text.strip()
    try:
        day = date.fromisoformat(given)
    except ValueError:
        day = None
    if day is not None and len(given) == 10:
        if not FIRST_YEAR <= day.year <= LAST_YEAR:
            raise TimeFormatError(_("the date {text} is outside the years {first} to {last}").format(
                text=excerpt(text), first=FIRST_YEAR, last=LAST_YEAR))
        start = datetime.combine(day, dt_time(0), tzinfo=zone)
        if end_of_day:
            return datetime.combine(day + timedelta(days=1), dt_time(0), tzinfo=zone) - timedelta(microseconds=1)
        return start
    try:
        when = datetime.fromisoformat(given)
    except ValueError:
        raise TimeFormatError(
            _("{text} is not a time; write a local time {local}, a date '2026-12-01', a time of today '20:14', or "
              "an ISO 8601 time with its offset {example}").format(
                text=excerpt(text), local=repr(LOCAL_EXAMPLE), example=repr(EXAMPLE))
        ) from None
    return in_range(when if when.tzinfo is not None else when.replace(tzinfo=zone), text)


def show_local(text: str, zone: tzinfo) -> str:
    """A stored time as a person reads it: in ``zone``, to the second, with the zone's
    abbreviation (``2026-12-01 20:14:03 MSK``). A text that is not a time is shown as it is."""
    try:
        when = parse_time(text)
    except TimeFormatError:
        return text
    local = when.astimezone(zone)
    name = local.tzname() or local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M:%S} {name}"


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def utc_micros(text: str) -> int:
    """A time of the log as whole microseconds since 1970 UTC: comparable across offsets,
    and what the read models store to answer "as of time T"; raises TimeFormatError."""
    return (parse_time(text) - EPOCH) // timedelta(microseconds=1)

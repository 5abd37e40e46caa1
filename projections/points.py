"""Points in time of any stream (``--at``, ``--deal``, ``--time``): a stream cut to the
events recorded up to event N, the end of deal K, or time T."""

from __future__ import annotations

from datetime import datetime

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, StreamStart
from ledger.vocabulary.times import TimeFormatError, parse_time

_ = language._  # every text a person reads, in the language in effect


class PointError(ValueError):
    """A point in time that the log does not have (``--at 99`` on a 40-event log)."""


class Point(msgspec.Struct, frozen=True):
    at: int | None = None
    deal: int | None = None
    time: str | None = None

    def describe(self) -> str:
        if self.at is not None:
            return _("as of event {event}").format(event=self.at)
        if self.deal is not None:
            return _("as of the end of deal {deal}").format(deal=self.deal)
        if self.time is not None:
            return _("as of {time}").format(time=self.time)
        return _("now")


def cut(events: list[AnyEvent], point: Point) -> list[AnyEvent]:
    """The events recorded up to a point: event N, the end of deal K, or time T."""
    given = [x for x in (point.at, point.deal, point.time) if x is not None]
    if len(given) > 1:
        raise PointError(_("give only one of --at, --deal and --time"))
    if point.at is not None:
        if not 1 <= point.at <= len(events):
            raise PointError(_("the game has events 1 to {last}; there is no event {event}").format(
                last=len(events), event=point.at))
        return events[: point.at]
    if point.deal is not None:
        deals = max((e.deal or 0) for e in events)
        if not 0 <= point.deal <= deals:
            has = (_("no deal yet (deal 0 is its start)") if deals == 0 else _("deal 1 only") if deals == 1
                   else _("deals 1 to {last}").format(last=deals))
            raise PointError(_("the game has {has}; there is no deal {deal}").format(has=has, deal=point.deal))
        for i, e in enumerate(events):
            if i and (e.deal or 0) > point.deal:
                return events[:i]
        return events
    if point.time is not None:
        when = _time(point.time)
        kept = [e for e in events if e.at is None or _time(e.at) <= when]
        if not kept or not isinstance(kept[0], StreamStart):
            raise PointError(_("the game was started after {time}").format(time=point.time))
        return events[: len(kept)]
    return events


def _time(text: str) -> datetime:
    try:
        return parse_time(text)
    except TimeFormatError as exc:
        raise PointError(str(exc)) from None

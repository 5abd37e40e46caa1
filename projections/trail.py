"""The audit trail of any kind of stream, over the numbers of its sheet ("cells").

Every kind of stream (a pulka, a rubber) has a sheet whose numbers are cells: a
player's pulya, a side's points above the line. This module knows nothing of how a
kind scores; it works on what each kind gives it:

- ``AuditRow``: one event with what it did to the cells and the recording rules'
  verdict on it; ``row_doc`` and ``render_audit`` show a list of them (``trail_row_json`` and
  ``trail_json``: as the service sends them), ``select_rows`` keeps the rows an arbiter
  asks for;
- ``render_explain``: the writes behind one cell, as a kind's ``explain`` lists them;
- ``diff_numbers``: what changed between two points in time, from a kind's ``Numbers`` at
  each point and its audit rows in between.

``CellNames`` says how a kind names the parts of a cell in JSON and for people.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Correction
from ledger.vocabulary.refusal import cite
from ledger.vocabulary.times import TimeFormatError, parse_time
from ledger.vocabulary.wording import recorder_text
from projections.numbers import exact_fields, exact_of, exact_text, fmt, json_plain, number, signed
from projections.points import Point

_ = language._  # every text a person reads, in the language in effect

Cell = tuple[str, str, str | None]  # owner (a player, a side), column, on (whists: on whom)


def cell_text(cell: Cell) -> str:
    player, column, on = cell
    if on:
        return _("{player} whists on {on}").format(player=player, on=on)
    return _("{player} pulya").format(player=player) if column == "pulya" else \
        _("{player} gora").format(player=player) if column == "gora" else f"{player} {column}"


if TYPE_CHECKING:  # a type for mypy alone: no class made as a command starts

    class JudgedState(Protocol):
        """What ``corrections_in_effect`` reads of any kind's folded state."""

        events: list[AnyEvent]

        @property
        def effects(self) -> Mapping[int, Any]: ...


def corrections_in_effect(state: JudgedState) -> dict[int, list[int]]:
    """For each corrected event, the effective corrections of it, in order: what a
    kind's ``explain`` shows beside each write."""
    corrected_by: dict[int, list[int]] = {}
    effects, events = state.effects, state.events
    for n in sorted(effects):  # the judged events only: a correction is one
        e = events[n - 1] if n <= len(events) else None
        if isinstance(e, Correction) and effects[n] is not None and effects[n].effective:
            corrected_by.setdefault(e.target, []).append(n)
    return corrected_by


class CellNames(msgspec.Struct, frozen=True):
    """How a kind of stream names a cell: the JSON keys of its owner and column, and its
    text for people."""

    owner: str = "player"
    column: str = "column"
    text: Callable[[Cell], str] = cell_text

    def doc(self, cell: Cell) -> dict[str, Any]:
        return {self.owner: cell[0], self.column: cell[1], **({"on": cell[2]} if cell[2] else {})}

    def of_doc(self, doc: dict[str, Any]) -> Cell:
        return doc[self.owner], doc[self.column], doc.get("on")


PLAYER_CELLS = CellNames()


class AuditRow(msgspec.Struct, frozen=True):
    number: int
    at: str | None
    by: str | None
    type: str
    deal: int | None
    text: str
    changes: dict[Cell, Fraction]
    effective: bool | None  # None: not a record the recording rules judge
    rule: str | None
    reason: str | None
    note: str | None = None  # e.g. a deal left without its result
    about: int | None = None  # the deal a correction's target belongs to, when it names one
    # The record its changes are credited to, when not this event (a deal's result
    # written at the call that closed the deal), and that said for people.
    credited_to: int | None = None
    credit: str | None = None
    # When it happened at the table, where the event says so (an entry made offline and
    # delivered later); ``at`` is when it reached the ledger.
    played_at: str | None = None


def deal_corrected(events: list[AnyEvent], event: AnyEvent) -> int | None:
    """The deal of the record a correction changes (``events``: the events recorded so
    far), for an arbiter asking about that deal; None for any other event."""
    if isinstance(event, Correction) and 1 <= event.target <= len(events):
        return events[event.target - 1].deal
    return None


Amount = TypeVar("Amount", int, Fraction)  # exact numbers, or a sheet's integer sub-units


def changes(before: Mapping[Cell, Amount], after: Mapping[Cell, Amount]) -> dict[Cell, Amount]:
    """The cells whose number differs, and by how much."""
    return {cell: value - before.get(cell, 0) for cell, value in after.items() if value != before.get(cell, 0)}


def row_doc(row: AuditRow, names: CellNames = PLAYER_CELLS) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "number": row.number,
        "at": row.at,
        "by": row.by,
        "type": row.type,
        "deal": row.deal,
        "text": row.text,
        "changes": [{**names.doc(c), **exact_fields("amount", v)} for c, v in row.changes.items()],
    }
    if row.effective is not None:
        doc["effective"] = row.effective
        doc["rule"] = row.rule
        doc["reason"] = row.reason
    if row.note is not None:
        doc["note"] = row.note
    if row.credited_to is not None:
        doc["credited_to"] = row.credited_to
        doc["credit"] = row.credit
    if row.played_at is not None:
        doc["played_at"] = row.played_at
    return doc


def trail_row_json(row: AuditRow, names: CellNames = PLAYER_CELLS) -> bytes:
    """``row_doc`` in JSON, as the service sends it (``numbers.json_plain``)."""
    return msgspec.json.encode(row_doc(row, names), enc_hook=json_plain)


def trail_json(game: str, version: int, rows: Iterable[bytes]) -> bytes:
    """The audit trail as the service sends it, ``{"game", "version", "events"}``, from
    its rows already in JSON (``trail_row_json``): the bytes of that document encoded whole."""
    return b"".join((b'{"game":', msgspec.json.encode(game), b',"version":', msgspec.json.encode(version),
                     b',"events":[', b",".join(rows), b"]}"))


def select_rows(
    rows: Iterable[AuditRow],
    *,
    deal: int | None = None,
    by: str | None = None,
    types: Iterable[str] = (),
    verdicts: bool = False,
    since: str | None = None,
    until: str | None = None,
) -> list[AuditRow]:
    """The rows an arbiter asks for: of one deal (its events, and the corrections of its
    records made later), recorded by one person (any case), of
    some event types, only those with a verdict or a note, recorded within a time span
    (ISO 8601 with offsets; a row without a time is kept)."""
    wanted = set(types)
    low, high = (_when(since), _when(until))
    out = []
    for row in rows:
        if deal is not None and row.deal != deal and row.about != deal:
            continue
        if by is not None and (row.by or "").casefold() != by.casefold():
            continue
        if wanted and row.type not in wanted:
            continue
        if verdicts and row.effective is None and row.note is None:
            continue
        at = _when(row.at)
        if at is not None and ((low is not None and at < low) or (high is not None and at > high)):
            continue
        out.append(row)
    return out


def _when(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return parse_time(text)
    except TimeFormatError:
        return None


def render_audit(rows: list[AuditRow], when: Callable[[str], str] | None = None,
                 names: CellNames = PLAYER_CELLS) -> str:
    """The audit trail for people; ``when`` shows a stored time (default: as stored). A
    row's time is its arrival; when it was played at the table at another time, a line
    under it says when."""
    show = when or (lambda at: at[:19].replace("T", " "))
    width = max((len(show(row.at)) for row in rows if row.at), default=19)
    pad = " " * (4 + 2 + width + 2 + 4 + 2 + 14 + 2 - 2)
    lines = []
    for row in rows:
        at = show(row.at) if row.at else ""
        deal = f"d{row.deal}" if row.deal else "  "
        head = f"{row.number:>4}  {at:<{width}}  {deal:>4}  {recorder_text(row.by):<14}  {row.text}"
        lines.append(head)
        if row.played_at is not None and row.played_at != row.at:
            lines.append(f"{pad}" + _("played at {time}").format(time=show(row.played_at)))
        if row.changes:
            changed = ", ".join(f"{names.text(c)} {'+' if v > 0 else ''}{fmt(v)}" for c, v in row.changes.items())
            lines.append(f"{pad}-> {changed}")
            if row.credit is not None:
                lines.append(f"{pad}   {row.credit}")
        if row.effective is not None and row.rule is not None:
            mark = _("effective") if row.effective else _("NO EFFECT")
            lines.append(f"{pad}{mark} [{cite(row.rule)}]: {row.reason}")
        if row.note is not None:
            lines.append(f"{pad}" + _("note: {note}").format(note=row.note))
    return "\n".join(lines) + "\n"


# -- explain ---------------------------------------------------------------------------------


def render_explain(cell: Cell, rows: list[dict[str, Any]], when: Callable[[str], str] | None = None,
                   names: CellNames = PLAYER_CELLS) -> str:
    """One cell and the writes behind it, each a dict with ``event``, ``deal``, ``amount``,
    ``total``, ``why``, ``recorded_by``, ``at``, ``event_text`` and ``corrected_by``."""
    show = when or (lambda at: at)
    lines = [f"{names.text(cell)}: {fmt(exact_of(rows[-1], 'total')) if rows else 0}"]
    for r in rows:
        corr = ("; " + _("corrected by event {events}").format(events=", ".join(map(str, r["corrected_by"])))
                if r["corrected_by"] else "")
        if "written_at" in r:
            corr += "; " + _("written when event {event} closed the deal").format(event=r["written_at"])
        at = show(r["at"]) if r["at"] else _("an unknown time")
        lines.append(
            f"  {signed(exact_of(r, 'amount')):>6}  = {fmt(exact_of(r, 'total')):<6} "
            + _("event {event} (deal {deal}, {text}, recorded by {by} at {at}): {why}").format(
                event=r["event"], deal=r["deal"], text=r["event_text"], by=r["recorded_by"], at=at, why=r["why"])
            + corr
        )
    return "\n".join(lines) + "\n"


# -- diff ------------------------------------------------------------------------------------


class Numbers(msgspec.Struct, frozen=True):
    """A stream's numbers at one point, as ``diff`` compares them: the last event folded,
    every cell of the sheet, and each player's exact and rounded settlement result."""

    folded: int
    cells: dict[Cell, Fraction]
    result: dict[str, Fraction]
    rounded: dict[str, int]


def diff_numbers(
    events: list[AnyEvent],
    a: Point,
    b: Point,
    numbers_at: Callable[[list[AnyEvent], Point], Numbers],
    audit: Callable[[list[AnyEvent]], list[AuditRow]],
    names: CellNames = PLAYER_CELLS,
) -> dict[str, Any]:
    """What changed on the sheet and in the settlement between two points, and which
    events changed it."""
    na, nb = numbers_at(events, a), numbers_at(events, b)
    ta, tb = na.cells, nb.cells
    lo, hi = sorted((na.folded, nb.folded))
    rows = audit(events[:hi])  # verdicts as they stood at the later point
    between = [row_doc(r, names) for r in rows[lo:hi] if r.changes or r.effective is not None]
    zero = Fraction(0)
    # A player who joined between the points (Code 3.1.2) has nothing at the earlier one.
    cells = list(dict.fromkeys([*tb, *ta]))
    players = list(dict.fromkeys([*nb.result, *na.result]))
    return {
        "from": {"point": a.describe(), "event": na.folded},
        "to": {"point": b.describe(), "event": nb.folded},
        "sheet": [
            {**names.doc(c), **exact_fields("from", ta.get(c, zero)), **exact_fields("to", tb.get(c, zero)),
             **exact_fields("change", tb.get(c, zero) - ta.get(c, zero))}
            for c in cells if tb.get(c, zero) != ta.get(c, zero)
        ],
        "result": {p: number(nb.result.get(p, zero) - na.result.get(p, zero)) for p in players},
        "rounded": {p: nb.rounded.get(p, 0) - na.rounded.get(p, 0) for p in players},
        "events": between,
        "result_exact": {p: exact_text(nb.result.get(p, zero) - na.result.get(p, zero)) for p in players},
    }


def point_text(end: dict[str, Any]) -> str:
    """One end of a diff for people: ``event 15``, ``the end of deal 3 (event 27)``,
    ``2026-12-01T20:14:00+03:00 (event 12)``, ``now (event 40)``: the event it stands
    at, said once."""
    text = str(end["point"]).removeprefix("as of ")
    event = _("event {event}").format(event=end["event"])
    return text if text == event else f"{text} ({event})"


def render_diff(doc: dict[str, Any], names: CellNames = PLAYER_CELLS) -> str:
    lines = [_("from {first} to {last}").format(first=point_text(doc["from"]), last=point_text(doc["to"])), "",
             _("sheet:")]
    for c in doc["sheet"]:
        lines.append(f"  {names.text(names.of_doc(c))}: {fmt(exact_of(c, 'from'))} -> {fmt(exact_of(c, 'to'))} "
                     f"({signed(exact_of(c, 'change'))})")
    if not doc["sheet"]:
        lines.append("  " + _("no change"))
    lines.append(_("settlement (exact, rounded):"))
    for p, v in doc["result_exact"].items():
        lines.append(f"  {p}: {signed(Fraction(v)) or '0'} ({doc['rounded'][p]:+})")
    lines.append(_("events that changed it:"))
    for e in doc["events"]:
        effect = ""
        if "effective" in e:
            verdict = _("effective") if e["effective"] else _("no effect")
            effect = f" [{verdict} ({cite(e['rule'])}): {e['reason']}]"
        lines.append(f"  {e['number']}: {e['text']} " + _("(by {by})").format(by=e["by"]) + effect)
    return "\n".join(lines) + "\n"

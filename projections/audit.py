"""The audit trail: every event with what it did to the sheet, and why.

``audit`` replays a game event by event and records, for each one, its number,
time, recorder, a one-line description, the change it made to the sheet, and the
verdict of the recording rules for corrections, objections and late records.
``explain`` traces one number of the sheet back to the writes and events behind
it; ``diff`` compares two points in time. These are how an arbiter reconstructs
a dispute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from fractions import Fraction
from typing import Any, assert_never

from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Defence,
    Entry,
    GameStarted,
    Objection,
    PencilDown,
    Penalty,
    Tricks,
    Withdrawn,
    event_type,
)
from ledger.vocabulary.refusal import cite
from ledger.vocabulary.times import TimeFormatError, parse_time
from projections.game import GameState
from projections.numbers import exact_text, fmt, number
from projections.report import Point, exact_fields, settlement_of, state_at
from projections.sheet import Sheet, exact

Cell = tuple[str, str, str | None]  # player, column, on


@dataclass(frozen=True)
class AuditRow:
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


def totals(sheet: Sheet) -> dict[Cell, Fraction]:
    cells: dict[Cell, Fraction] = {}
    for p in sheet.players:
        cells[(p, "pulya", None)] = exact(sheet.pulya[p])
        cells[(p, "gora", None)] = exact(sheet.gora[p])
        for q, v in sheet.whists[p].items():
            cells[(p, "whists", q)] = exact(v)
    return cells


def changes(before: dict[Cell, Fraction], after: dict[Cell, Fraction]) -> dict[Cell, Fraction]:
    return {cell: after[cell] - before.get(cell, Fraction(0)) for cell in after if after[cell] != before.get(cell, 0)}


def describe(event: AnyEvent) -> str:
    match event:
        case GameStarted():
            return f"game {event.game} started: {', '.join(event.players)}; {event.convention}, pulya to {event.pulya}"
        case Bid():
            return f"{event.player} bids {event.bid}"
        case Contract():
            return f"{event.player} declares {event.contract}"
        case Defence():
            return f"{event.player}: {event.call.replace('_', '-')}" + (" (open)" if event.open else "")
        case Tricks():
            return "tricks " + ", ".join(f"{p} {t}" for p, t in event.tricks.items())
        case Entry():
            on = f" on {event.on}" if event.on else ""
            return f"entry: {event.player} {event.column}{on} {event.amount:+d}"
        case Penalty():
            on = f" on {event.on}" if event.on else ""
            return f"penalty: {event.player} {event.column}{on} {event.amount:+d} ({event.reason})"
        case PencilDown():
            return f"{event.player} puts the pencil down"
        case Correction():
            fields = ", ".join(
                f"{k} " + ", ".join(f"{p} {t}" for p, t in v.items()) if isinstance(v, dict) else f"{k}={v}"
                for k, v in event.replacement.items()
            )
            waived = " (penalty waived)" if event.penalty == "waived" else ""
            return f"correction of event {event.target}: {fields}{waived}"
        case Objection():
            what = f"event {event.target}" if event.target else f"late records of deal {event.deal}"
            return f"{event.player} objects to {what}"
        case Abandoned():
            return f"abandoned by agreement of {', '.join(event.agreed_by)}"
        case Annulled():
            return "deal annulled" + (f": {event.reason}" if event.reason else "")
        case Withdrawn():
            return f"withdrawn while in hand: events from {event.first} on"
        case _:
            assert_never(event)


def audit(events: list[AnyEvent], progress: Callable[[int], None] | None = None) -> list[AuditRow]:
    """Every event with what it did; ``progress(done)`` is told how far the replay is."""
    first = events[0]
    assert isinstance(first, GameStarted)
    state = GameState.start(first)
    before = totals(state.sheet())
    rows = [AuditRow(1, first.at, first.by, "game_started", None, describe(first), {}, None, None, None)]
    for event in events[1:]:
        if progress is not None and state.folded % 500 == 0:
            progress(state.folded)
        previous = state.current
        state.apply(event)
        after = totals(state.sheet())
        row = _row(state, state.folded, event, changes(before, after))
        if previous is not None and state.current is not previous and previous.phase == "play":
            row = replace(row, note=f"deal {previous.number} was played but its result is not recorded; "
                                    "it may still be added as a forgotten record [Code 4.2.10]")
        rows.append(row)
        before = after
    # Verdicts can change later (an objection withdraws a late record): show the final ones.
    return [_final(state, row) for row in rows]


def _row(state: GameState, n: int, event: AnyEvent, delta: dict[Cell, Fraction]) -> AuditRow:
    effect = state.effects.get(n)
    return AuditRow(
        n, event.at, event.by, event_type(event), event.deal, describe(event), delta,
        effect.effective if effect else None, effect.rule if effect else None, effect.reason if effect else None,
    )


def _final(state: GameState, row: AuditRow) -> AuditRow:
    effect = state.effects.get(row.number)
    if effect is None:
        return row
    return replace(row, effective=effect.effective, rule=effect.rule, reason=effect.reason)


def cell_text(cell: Cell) -> str:
    player, column, on = cell
    return f"{player} {column} on {on}" if on else f"{player} {column}"


def row_doc(row: AuditRow) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "number": row.number,
        "at": row.at,
        "by": row.by,
        "type": row.type,
        "deal": row.deal,
        "text": row.text,
        "changes": [
            {"player": c[0], "column": c[1], **({"on": c[2]} if c[2] else {}), **exact_fields("amount", v)}
            for c, v in row.changes.items()
        ],
    }
    if row.effective is not None:
        doc["effective"] = row.effective
        doc["rule"] = row.rule
        doc["reason"] = row.reason
    if row.note is not None:
        doc["note"] = row.note
    return doc


def select(
    rows: Iterable[AuditRow],
    *,
    deal: int | None = None,
    by: str | None = None,
    types: Iterable[str] = (),
    verdicts: bool = False,
    since: str | None = None,
    until: str | None = None,
) -> list[AuditRow]:
    """The rows an arbiter asks for: of one deal, recorded by one person (any case), of
    some event types, only those with a verdict or a note, recorded within a time span
    (ISO 8601 with offsets; a row without a time is kept)."""
    wanted = set(types)
    low, high = (_when(since), _when(until))
    out = []
    for row in rows:
        if deal is not None and row.deal != deal:
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


def render_audit(rows: list[AuditRow], when: Callable[[str], str] | None = None) -> str:
    """The audit trail for people; ``when`` shows a stored time (default: as stored)."""
    show = when or (lambda at: at[:19].replace("T", " "))
    width = max((len(show(row.at)) for row in rows if row.at), default=19)
    pad = " " * (4 + 2 + width + 2 + 4 + 2 + 14 + 2 - 2)
    lines = []
    for row in rows:
        at = show(row.at) if row.at else ""
        deal = f"d{row.deal}" if row.deal else "  "
        head = f"{row.number:>4}  {at:<{width}}  {deal:>4}  {row.by or '':<14}  {row.text}"
        lines.append(head)
        if row.changes:
            changed = ", ".join(f"{cell_text(c)} {'+' if v > 0 else ''}{fmt(v)}" for c, v in row.changes.items())
            lines.append(f"{pad}-> {changed}")
        if row.effective is not None and row.rule is not None:
            mark = "effective" if row.effective else "NO EFFECT"
            lines.append(f"{pad}{mark} [{cite(row.rule)}]: {row.reason}")
        if row.note is not None:
            lines.append(f"{pad}note: {row.note}")
    return "\n".join(lines) + "\n"


# -- explain ---------------------------------------------------------------------------------


def parse_cell(text: str, players: tuple[str, ...]) -> Cell:
    """``Anna.pulya``, ``Anna.gora`` or ``Anna.whists.Boris``."""
    parts = text.split(".")
    if len(parts) == 2 and parts[1] in ("pulya", "gora") and parts[0] in players:
        return parts[0], parts[1], None
    if len(parts) == 3 and parts[1] == "whists" and parts[0] in players and parts[2] in players and parts[0] != parts[2]:
        return parts[0], "whists", parts[2]
    raise ValueError(
        f"{text!r} is not a number of the sheet; write PLAYER.pulya, PLAYER.gora or PLAYER.whists.OTHER "
        f"with players {', '.join(players)}"
    )


def explain(state: GameState, cell: Cell) -> list[dict[str, Any]]:
    """Every write behind one number, with the event, its recorder and any correction of it."""
    player, column, on = cell
    corrected_by: dict[int, list[int]] = {}
    for n, e in enumerate(state.events, start=1):
        if isinstance(e, Correction) and state.effects.get(n) and state.effects[n].effective:
            corrected_by.setdefault(e.target, []).append(n)
    out = []
    total = Fraction(0)
    for w in state.sheet().writes:
        if (w.player, w.column, w.on) != cell:
            continue
        total += w.exact
        event = state.events[w.event - 1]
        out.append({
            "event": w.event,
            "deal": w.deal,
            **exact_fields("amount", w.exact),
            **exact_fields("total", total),
            "why": w.why,
            "recorded_by": event.by,
            "at": event.at,
            "event_text": describe(state.content(w.event)),
            "corrected_by": corrected_by.get(w.event, []),
        })
    return out


def exact_of(doc: dict[str, Any], key: str) -> Fraction:
    """A number of a JSON document, exactly: its ``key_exact`` string when it has one."""
    return Fraction(doc.get(f"{key}_exact", doc[key]))


def signed(x: Fraction) -> str:
    return ("+" if x > 0 else "") + fmt(x)


def render_explain(cell: Cell, rows: list[dict[str, Any]], when: Callable[[str], str] | None = None) -> str:
    show = when or (lambda at: at)
    lines = [f"{cell_text(cell)}: {fmt(exact_of(rows[-1], 'total')) if rows else 0}"]
    for r in rows:
        corr = f"; corrected by event {', '.join(map(str, r['corrected_by']))}" if r["corrected_by"] else ""
        at = show(r["at"]) if r["at"] else "an unknown time"
        lines.append(
            f"  {signed(exact_of(r, 'amount')):>6}  = {fmt(exact_of(r, 'total')):<6} event {r['event']} "
            f"(deal {r['deal']}, {r['event_text']}, recorded by {r['recorded_by']} at {at}): {r['why']}{corr}"
        )
    return "\n".join(lines) + "\n"


# -- diff ------------------------------------------------------------------------------------


def diff(events: list[AnyEvent], a: Point, b: Point) -> dict[str, Any]:
    """What changed on the sheet and in the settlement between two points, and which
    events changed it."""
    sa, sb = state_at(events, a), state_at(events, b)
    ta, tb = totals(sa.sheet()), totals(sb.sheet())
    ra, rb = settlement_of(sa), settlement_of(sb)
    lo, hi = sorted((sa.folded, sb.folded))
    rows = audit(events[:hi])  # verdicts as they stood at the later point
    between = [row_doc(r) for r in rows[lo:hi] if r.changes or r.effective is not None]
    return {
        "from": {"point": a.describe(), "event": sa.folded},
        "to": {"point": b.describe(), "event": sb.folded},
        "sheet": [
            {"player": c[0], "column": c[1], **({"on": c[2]} if c[2] else {}), **exact_fields("from", ta[c]),
             **exact_fields("to", tb[c]), **exact_fields("change", tb[c] - ta[c])}
            for c in tb if tb[c] != ta[c]
        ],
        "result": {p: number(rb.result[p] - ra.result[p]) for p in rb.players},
        "rounded": {p: rb.rounded[p] - ra.rounded[p] for p in rb.players},
        "events": between,
        "result_exact": {p: exact_text(rb.result[p] - ra.result[p]) for p in rb.players},
    }


def render_diff(doc: dict[str, Any]) -> str:
    lines = [f"from {doc['from']['point']} (event {doc['from']['event']}) to {doc['to']['point']} "
             f"(event {doc['to']['event']})", "", "sheet:"]
    for c in doc["sheet"]:
        on = f" on {c['on']}" if "on" in c else ""
        lines.append(f"  {c['player']} {c['column']}{on}: {fmt(exact_of(c, 'from'))} -> {fmt(exact_of(c, 'to'))} "
                     f"({signed(exact_of(c, 'change'))})")
    if not doc["sheet"]:
        lines.append("  no change")
    lines.append("settlement (exact, rounded):")
    for p, v in doc["result_exact"].items():
        lines.append(f"  {p}: {signed(Fraction(v)) or '0'} ({doc['rounded'][p]:+})")
    lines.append("events that changed it:")
    for e in doc["events"]:
        effect = ""
        if "effective" in e:
            effect = f" [{'effective' if e['effective'] else 'no effect'} ({cite(e['rule'])}): {e['reason']}]"
        lines.append(f"  {e['number']}: {e['text']} (by {e['by']}){effect}")
    return "\n".join(lines) + "\n"

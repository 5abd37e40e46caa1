"""The audit trail: every event with what it did to the sheet, and why.

``audit`` replays a game event by event and records, for each one, its number,
time, recorder, a one-line description, the change it made to the sheet, and the
verdict of the recording rules for corrections, objections and late records.
``explain`` traces one number of the sheet back to the writes and events behind
it; ``diff`` compares two points in time. These are how an arbiter reconstructs
a dispute.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, assert_never

from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Dealt,
    Defence,
    Entry,
    GameStarted,
    Joined,
    Left,
    Objection,
    PencilDown,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
    Withdrawn,
    event_type,
)
from projections.game import GameState
from projections.numbers import fmt, number
from projections.report import Point, settlement_of, state_at
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
    """One line for an event, with the rule of the Code it applies where it applies one."""
    match event:
        case GameStarted():
            return f"game {event.game} started: {', '.join(event.players)}; {event.convention}, pulya to {event.pulya}"
        case Bid():
            dark = " dark [Code 3.3.19]" if event.dark else ""
            return f"{event.player} bids {event.bid}{dark}"
        case Contract():
            shared = f", shared in halves with the dealer {event.shared_with} [Code 3.6.9]" if event.shared_with else ""
            return f"{event.player} declares {event.contract}{shared}"
        case Defence():
            hand = f" with {event.hand}'s cards [Code 3.8.8]" if event.hand else ""
            return f"{event.player}: {event.call.replace('_', '-')}" + (" (open)" if event.open else "") + hand
        case Tricks():
            text = "tricks " + ", ".join(f"{p} {t}" for p, t in event.tricks.items())
            for pt in event.penalty_tricks:
                text += f"; penalty {pt.player} {pt.tricks} [Code {pt.rule}]"
            return text
        case Entry():
            on = f" on {event.on}" if event.on else ""
            return f"entry: {event.player} {event.column}{on} {event.amount:+d}"
        case Penalty():
            if event.column == "whists" and event.wronged:
                return (f"penalty on {event.player}: {event.wronged} writes {event.amount} whists on him "
                        f"({event.reason}) [Code 4.2.16]")
            on = f" on {event.on}" if event.on else ""
            return f"penalty: {event.player} {event.column}{on} {event.amount:+d} ({event.reason}) [Code 4.2.16]"
        case PencilDown():
            return f"{event.player} puts the pencil down"
        case Correction():
            fields = ", ".join(f"{k}={v}" for k, v in event.replacement.items())
            waived = " (penalty waived)" if event.penalty == "waived" else ""
            return f"correction of event {event.target}: {fields}{waived}"
        case Objection():
            what = f"event {event.target}" if event.target else f"late records of deal {event.deal}"
            return f"{event.player} objects to {what}"
        case Abandoned():
            if event.demanded_by:
                return f"settled at once on {event.demanded_by}'s demand: {event.reason} [Code 4.2.15, 5.4.18]"
            return f"abandoned by agreement of {', '.join(event.agreed_by)} [Code 4.2.3]"
        case Annulled():
            fault = " (the dealer's error) [Code 3.2.17]" if event.dealer_error else ""
            return "deal annulled" + (f": {event.reason}" if event.reason else "") + fault
        case Withdrawn():
            return f"withdrawn while in hand: events from {event.first} on"
        case Dealt():
            return f"{event.player} dealt out of turn; the deal stands [Code 3.2.14]"
        case Ruling():
            return describe_ruling(event)
        case Joined():
            return f"{event.player} joins with the consent of {', '.join(event.agreed_by)} [Code 3.1.2]"
        case Left():
            return f"{event.player} leaves the table" + (f": {event.reason}" if event.reason else "") + " [Code 5.4.18]"
        case Substituted():
            return (f"{event.substitute} takes {event.player}'s seat with the consent of "
                    f"{', '.join(event.agreed_by)} [Code 5.4.7]")
        case Talon():
            if event.kind == "peek":
                return f"{event.player} looked at the talon before it was bought [Code 3.2.21]"
            if event.kind == "refused":
                return f"{event.player} refused the talon [Code 3.4.10]"
            return f"the talon gave {event.player} {event.tricks} trick(s): the dealer's premium [Code 3.4.11]"
        case _:
            assert_never(event)


def describe_ruling(r: Ruling) -> str:
    """A ruling, marked as agreed, conceded or ruled."""
    why = f" ({r.reason})" if r.reason else ""
    if r.rule == "3.3.16.3":
        who = ", ".join(f"{p} {a}" for p, a in (r.whists or {}).items())
        return f"ruled [Code 3.3.16.3]: the talon exposed by {r.offender}; whists on him: {who}{why}"
    if r.rule == "3.4.4":
        return f"ruled [Code 3.4.4]: a declaration against the rules stands: remiz without all{why}"
    if r.rule == "3.5.4":
        split = ", ".join(f"{p} {t}" for p, t in (r.tricks or {}).items())
        return f"conceded [Code 3.5.4]: the declarer is without all{f' ({split})' if split else ''}{why}"
    tricks = ", ".join(f"{p} {t}" for p, t in (r.tricks or {}).items())
    return f"agreed [Code 3.9.22] by {', '.join(r.agreed_by)}: the result without play: {tricks}{why}"


def audit(events: list[AnyEvent]) -> list[AuditRow]:
    first = events[0]
    assert isinstance(first, GameStarted)
    state = GameState.start(first)
    before = totals(state.sheet())
    rows = [AuditRow(1, first.at, first.by, "game_started", None, describe(first), {}, None, None, None)]
    for event in events[1:]:
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
            {"player": c[0], "column": c[1], **({"on": c[2]} if c[2] else {}), "amount": number(v)}
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


def render_audit(rows: list[AuditRow]) -> str:
    lines = []
    for row in rows:
        when = (row.at or "")[:19].replace("T", " ")
        deal = f"d{row.deal}" if row.deal else "  "
        head = f"{row.number:>4}  {when:<19}  {deal:>4}  {row.by or '':<14}  {row.text}"
        lines.append(head)
        if row.changes:
            shown = ", ".join(f"{cell_text(c)} {'+' if v > 0 else ''}{fmt(v)}" for c, v in row.changes.items())
            lines.append(f"{'':>33}-> {shown}")
        if row.effective is not None:
            mark = "effective" if row.effective else "NO EFFECT"
            lines.append(f"{'':>33}{mark} [rule {row.rule}]: {row.reason}")
        if row.note is not None:
            lines.append(f"{'':>33}note: {row.note}")
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
            "amount": number(w.exact),
            "total": number(total),
            "why": w.why,
            "recorded_by": event.by,
            "at": event.at,
            "event_text": describe(state.content(w.event)),
            "corrected_by": corrected_by.get(w.event, []),
        })
    return out


def render_explain(cell: Cell, rows: list[dict[str, Any]]) -> str:
    lines = [f"{cell_text(cell)}: {fmt(Fraction(rows[-1]['total'])) if rows else 0}"]
    for r in rows:
        corr = f"; corrected by event {', '.join(map(str, r['corrected_by']))}" if r["corrected_by"] else ""
        lines.append(
            f"  {r['amount']:>+6}  = {r['total']:<6} event {r['event']} (deal {r['deal']}, {r['event_text']}, "
            f"recorded by {r['recorded_by']} at {r['at']}): {r['why']}{corr}"
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
    # A newcomer has no columns before he joins: there, everything of his counts as 0.
    players = tuple(dict.fromkeys(rb.players + ra.players))
    zero = Fraction(0)
    return {
        "from": {"point": a.describe(), "event": sa.folded},
        "to": {"point": b.describe(), "event": sb.folded},
        "sheet": [
            {"player": c[0], "column": c[1], **({"on": c[2]} if c[2] else {}), "from": number(ta.get(c, zero)),
             "to": number(tb.get(c, zero)), "change": number(tb.get(c, zero) - ta.get(c, zero))}
            for c in dict.fromkeys([*tb, *ta]) if tb.get(c, zero) != ta.get(c, zero)
        ],
        "result": {p: number(rb.result.get(p, zero) - ra.result.get(p, zero)) for p in players},
        "rounded": {p: rb.rounded.get(p, 0) - ra.rounded.get(p, 0) for p in players},
        "events": between,
    }


def render_diff(doc: dict[str, Any]) -> str:
    lines = [f"from {doc['from']['point']} (event {doc['from']['event']}) to {doc['to']['point']} "
             f"(event {doc['to']['event']})", "", "sheet:"]
    for c in doc["sheet"]:
        on = f" on {c['on']}" if "on" in c else ""
        lines.append(f"  {c['player']} {c['column']}{on}: {c['from']} -> {c['to']} ({c['change']:+})")
    if not doc["sheet"]:
        lines.append("  no change")
    lines.append("settlement (exact, rounded):")
    for p, v in doc["result"].items():
        lines.append(f"  {p}: {v:+} ({doc['rounded'][p]:+})")
    lines.append("events that changed it:")
    for e in doc["events"]:
        effect = ""
        if "effective" in e:
            effect = f" [{'effective' if e['effective'] else 'no effect'}: {e['reason']}]"
        lines.append(f"  {e['number']}: {e['text']} (by {e['by']}){effect}")
    return "\n".join(lines) + "\n"

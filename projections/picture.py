"""The pulka as players draw it: the documents behind the drawn sheet and the report.

A drawn sheet shows each number as running entries (``2.4.8.12``), one per event
that wrote to it, with entries that a later event changed struck through and
marked with that event's number, and penalties marked. These documents are
composed from the ledger's own read models (``report``, ``audit``, ``settlement``):
nothing here scores a deal or settles a pulka again.

- ``picture(events, point)``: one point in time: every cell of the sheet with its
  running entries (current and struck), the settlement and who pays whom.
- ``timeline(events)``: the report's data: the picture as of every event (equal
  pictures shared), the explain trace of every number as of every event, the audit
  trail and the deal-by-deal table.

Which events strike entries: a correction, an objection, an annulment, a withdrawal
and a late record (any event the recording rules judged) can change what earlier
events wrote; an entry whose amount such an event changed, or that it removed, is struck
through with that event's number. A penalty mark is any write of an arbiter's
``penalty`` event or of a correction itself (the 4.2.7 "equal for equal" writes).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ledger.vocabulary.events import AnyEvent, GameStarted
from ledger.vocabulary.wording import spoken_text
from projections.audit import AuditRow, Cell, audit, ignored_records, pulka_explain, row_doc, totals
from projections.game import GameState
from projections.numbers import fmt, signed
from projections.deal_text import cells as sheet_cells
from projections.deal_text import deal_table as deals_of
from projections.report import Point, cut, money_text, settlement_doc, settlement_of
from projections.sheet import Write, cell_units, shown
from projections.trail import corrections_in_effect

Marks = dict[Cell, list[dict[str, Any]]]

# Event types whose writes are penalties, and those that can change earlier writes.
PENALTY_TYPES = ("penalty", "correction")
REVISING_TYPES = ("correction", "objection", "annulled", "withdrawn")


def exact_fraction(x: Fraction | int | float) -> Fraction:
    """A number of a document as an exact fraction. Documents give fractions of a whist
    as the nearest float (event-log.md); their denominators are small, so the nearest
    fraction with a denominator below a million is the exact one."""
    if isinstance(x, float):
        return Fraction(x).limit_denominator(1_000_000)
    return Fraction(x)


def cell_key(cell: Cell) -> str:
    """``Anna.pulya``, ``Anna.gora``, ``Anna.whists.Boris``: the name ``pulka explain`` takes."""
    player, column, on = cell
    return f"{player}.{column}.{on}" if on else f"{player}.{column}"


# -- running entries ------------------------------------------------------------------------


Traces = dict[Cell, list[dict[str, Any]]]


def traces_of(state: GameState) -> Traces:
    """The ``explain`` trace of every number of the sheet (a record without effect named
    where it would have written: see ``explain``)."""
    ignored = ignored_records(state)
    return {cell: pulka_explain(state, cell, ignored) for cell in totals(state.sheet())}


def marks_of(traces: Traces, types: dict[int, str]) -> Marks:
    """Each cell's running entries: one per event that wrote to it, as ``pulka sheet``
    shows them, from the ``explain`` trace of the cell."""
    out: Marks = {}
    for cell, trace in traces.items():
        groups: list[list[dict[str, Any]]] = []
        for w in trace:
            if w.get("ignored"):
                continue  # named in the trace; it wrote nothing on the sheet
            # Consecutive writes of one event make one entry (a whist and its consolation).
            if groups and groups[-1][0]["event"] == w["event"]:
                groups[-1].append(w)
            else:
                groups.append([w])
        out[cell] = [
            {
                "event": g[0]["event"],
                "deal": g[0]["deal"],
                "total": fmt(exact_fraction(g[-1]["total"])),
                "amount": signed(sum((exact_fraction(w["amount"]) for w in g), Fraction(0))),
                "why": "; ".join(w["why"] for w in g),
                "penalty": types.get(g[0]["event"]) in PENALTY_TYPES,
                "corrected_by": list(g[0]["corrected_by"]),
                "struck_by": None,
            }
            for g in groups
        ]
    return out


KEPT_REASONS = 4096  # reasons kept said by ``marks_at``'s caller, all forgotten when more

# A cell's running entries as far as some writes: each entry as ``marks_at`` gives it (but
# for its ``corrected_by``, which a later correction changes: added per read), and the last
# run as (credited event, deal, amount, total, reasons said), which the next write extends
# when it is of the same event. By cell, after a frozen chunk of a sheet's writes.
Run = tuple[int, int, int, int, tuple[str, ...]]
Runs = dict[Cell, tuple[tuple[dict[str, Any], ...], Run]]
KEPT_RUNS = 1024  # chunks' runs kept by ``marks_at``'s caller (a few kB each), all forgotten when more


def marks_at(state: GameState, types: dict[int, str], spoken: dict[int, tuple[str, str]] | None = None,
             kept: dict[int, tuple[object, Runs]] | None = None) -> Marks:
    """``marks_of(traces_of(state), types)`` made straight from the sheet's writes, in
    sub-units, without the rest of each write's trace (its recorder, its event told):
    what the drawn sheet of a read at a point needs. ``spoken``: each reason said in
    the language in effect, by the reason's ``id``; ``kept``: the runs after each frozen
    chunk of writes (``Sheet.chunks``), by the chunk's ``id``, so that a read makes only
    the entries of the chunks no read before it made (both kept by the caller, per
    language; the entries they hold are shared by the reads: never change one)."""
    sheet = state.sheet()
    said = {} if spoken is None else spoken
    if len(said) > KEPT_REASONS:  # a penalty's reason is made anew by every fold: kept, they would pile up
        said.clear()
    made: dict[int, tuple[object, Runs]] = {} if kept is None else kept
    if len(made) > KEPT_RUNS:  # the chunks of the deals a read folds after its fork are its own
        made.clear()
    # The writes ``state.credited`` credits to another event than their own: a deal's last
    # call, when the calls let the game stand unplayed.
    last_calls = {deal.number: deal.call_events[-1] for deal in state.deals
                  if deal.tricks_event is None and deal.ruling_at is None and deal.call_events}
    nodes, own = sheet.chunks()
    runs: Runs = {}
    start = 0
    for i in range(len(nodes) - 1, -1, -1):
        found = made.get(id(nodes[i]))
        if found is not None and found[0] is nodes[i]:
            runs, start = found[1], i + 1
            break
    for node in nodes[start:]:
        runs = runs_after(runs, node.chunk, state, types, said, last_calls)
        made[id(node)] = (node, runs)
    runs = runs_after(runs, own, state, types, said, last_calls)
    corrected_by = corrections_in_effect(state)
    out: Marks = {}
    for cell in cell_units(sheet):
        found_runs = runs.get(cell)
        entries = list(found_runs[0]) if found_runs is not None else []
        if corrected_by:
            entries = [m if m["event"] not in corrected_by else {**m, "corrected_by": list(corrected_by[m["event"]])}
                       for m in entries]
        out[cell] = entries
    return out


def runs_after(runs: Runs, writes: Sequence[Write], state: GameState, types: dict[int, str],
               said: dict[int, tuple[str, str]], last_calls: dict[int, int]) -> Runs:
    """``runs`` with ``writes`` written after them (``marks_at``: a whist and its
    consolation, consecutive writes of one event in a cell, make one entry); ``runs``
    itself unchanged."""
    out = dict(runs)
    touched: dict[Cell, tuple[list[dict[str, Any]], list[Run]]] = {}
    for w in writes:
        cell: Cell = (w.player, w.column, w.on)
        mine = touched.get(cell)
        if mine is None:
            had = out.get(cell)
            mine = touched[cell] = (list(had[0]), [had[1]]) if had is not None else ([], [])
        known = said.get(id(w.why))
        if known is None or known[0] is not w.why:
            known = said[id(w.why)] = (w.why, spoken_text(w.why))
        credited = state.credited(w.event, w.deal) if last_calls.get(w.deal) == w.event else w.event
        entries, lasts = mine
        if lasts and lasts[0][0] == credited:
            event, deal, amount, total, whys = lasts[0]
            lasts[0] = (event, deal, amount + w.amount, total + w.amount, (*whys, known[1]))
            entries[-1] = entry_of(lasts[0], types)
        else:
            total = (lasts[0][3] if lasts else 0) + w.amount
            lasts[:] = [(credited, w.deal, w.amount, total, (known[1],))]
            entries.append(entry_of(lasts[0], types))
    for cell, (entries, lasts) in touched.items():
        out[cell] = (tuple(entries), lasts[0])
    return out


def entry_of(run: Run, types: dict[int, str]) -> dict[str, Any]:
    """A running entry as ``marks_of`` makes it (corrected by nothing)."""
    event, deal, amount, total, whys = run
    return {"event": event, "deal": deal, "total": shown(total), "amount": ("+" if amount > 0 else "") + shown(amount),
            "why": "; ".join(whys), "penalty": types.get(event) in PENALTY_TYPES, "corrected_by": [],
            "struck_by": None}


def struck(before: Marks, after: Marks, by: int) -> Marks:
    """The entries of ``before`` that event ``by`` changed or removed, struck with its number."""
    out: Marks = {}
    for cell, old in before.items():
        new = {m["event"]: m["amount"] for m in after.get(cell, [])}
        gone = [
            {**m, "struck_by": by}
            for m in old
            if m["event"] < by and new.get(m["event"]) != m["amount"]
        ]
        if gone:
            out[cell] = gone
    return out


def revising(rows: list[AuditRow]) -> list[int]:
    """The events that can change what earlier events wrote (see the module's docstring)."""
    return [r.number for r in rows if r.type in REVISING_TYPES or r.effective is not None]


def with_struck(current: Marks, strikes: list[Marks]) -> Marks:
    """Current entries in the sheet's order, each struck entry just before the current
    entry of the same event (or, when that event no longer writes there, before the first
    entry of a later event)."""
    out: Marks = {}
    for cell, marks in current.items():
        old = sorted((m for s in strikes for m in s.get(cell, [])), key=lambda m: (m["event"], m["struck_by"]))
        if not old:
            out[cell] = list(marks)
            continue
        placed: list[list[dict[str, Any]]] = [[] for _ in range(len(marks) + 1)]
        first: dict[int, int] = {}  # each event's first entry in the cell
        for i, c in enumerate(marks):
            first.setdefault(c["event"], i)
        for m in old:
            at = first.get(m["event"])
            if at is None:
                at = next((i for i, c in enumerate(marks) if c["event"] > m["event"]), len(marks))
            placed[at].append(m)
        out[cell] = [m for i, c in enumerate(marks) for m in (*placed[i], c)] + placed[len(marks)]
    return out


# -- one point in time ----------------------------------------------------------------------


def settlement_picture(doc: dict[str, Any], cells: dict[Cell, Fraction], stake: str | None) -> dict[str, Any]:
    """The settlement (``settlement_doc``) as a table for people, and who pays whom in
    the fewest payments."""
    rows = [
        {
            "player": p,
            "pulya": fmt(cells[(p, "pulya", None)]),
            "gora": fmt(cells[(p, "gora", None)]),
            "exact": signed(Fraction(doc["result_exact"][p])),
            "rounded": doc["rounded"][p],
            "money": money_text(Decimal(doc["money"][p])) if "money" in doc else None,
        }
        for p in doc["players"]
    ]
    pays = [
        {"from": t["from"], "to": t["to"], "whists": t["whists"],
         "money": money_text(Decimal(t["money"])) if "money" in t else None}
        for t in doc["transfers"]
    ]
    status = "abandoned" if doc["abandoned"] else ("finished" if doc["finished"] else
                                                    "capped" if doc.get("capped") else "in play")
    return {"status": status, "stake": stake, "rows": rows, "transfers": pays}


def sheet_picture(state: GameState, started: GameStarted, marks: Marks, deal_cap: int | None = None) -> dict[str, Any]:
    """What the drawing needs at one point: the cells with their entries and the
    settlement (over at ``deal_cap``, a tournament table's)."""
    sheet = state.sheet()
    cells = totals(sheet)
    settlement = settlement_doc(state, deal_cap, with_sheet=False)
    return {
        "game": started.game,
        "convention": settlement["convention"],
        # The sheet's players at this point around the table: a player who joined has
        # his sector from then on [Code 3.1.2], one who left keeps his [Code 5.4.18].
        "players": around_the_table(state),
        "target": started.pulya,
        "cells": [
            {
                "key": cell_key(cell),
                "player": cell[0],
                "column": cell[1],
                "on": cell[2],
                "total": fmt(value),
                "closed": cell[1] == "pulya" and value >= started.pulya,
                "marks": marks.get(cell, []),
            }
            for cell, value in cells.items()
        ],
        "settlement": settlement_picture(settlement, cells, started.stake),
    }


def around_the_table(state: GameState) -> list[str]:
    """The players on the sheet clockwise from the first: each newcomer where he sat
    down (to the left of the player before him in the seating of that time), and a
    player who left where he sat."""
    order = list(state.started.players)
    for seats in [*state.opened_with, state.seats]:
        seating = seats.seating
        for i, name in enumerate(seating):
            if name not in order:
                before = seating[i - 1]
                order.insert(order.index(before) + 1 if before in order else len(order), name)
    players = state.sheet().players
    return [p for p in order if p in players] + [p for p in players if p not in order]


def picture(events: list[AnyEvent], point: Point, deal_cap: int | None = None) -> dict[str, Any]:
    """The drawn sheet as of a point: ``pulka sheet --svg`` (``deal_cap``: its
    tournament's, for a table)."""
    kept = cut(events, point)
    rows = audit(kept)
    types = {r.number: r.type for r in rows}
    revisions = revising(rows)
    wanted = {k - 1 for k in revisions} | set(revisions)
    marks: dict[int, Marks] = {}
    for n, state in states_by_event(kept):
        if n in wanted:
            marks[n] = marks_of(traces_of(state), types)
    strikes = [struck(marks[k - 1], marks[k], k) for k in revisions]
    return picture_doc(state, kept, point, types, strikes, deal_cap)


def picture_doc(state: GameState, kept: list[AnyEvent], point: Point, types: dict[int, str], strikes: list[Marks],
                deal_cap: int | None = None, current: Marks | None = None, deals: int | None = None) -> dict[str, Any]:
    """The drawn sheet of ``state``, the game folded through ``kept``, as of ``point``:
    its entries (``types``: the type of each event; ``current``: those standing, when
    made already), with the entries each revising event struck (``strikes``: ``struck``
    for each event ``revising`` names, in order); ``deals``: the highest deal number of
    ``kept``, when known (``point_doc``)."""
    started = kept[0]
    assert isinstance(started, GameStarted)
    if current is None:
        current = marks_of(traces_of(state), types)
    doc = sheet_picture(state, started, with_struck(current, strikes), deal_cap)
    doc.update(point_doc(kept, point, deals))
    return doc


def states_by_event(events: list[AnyEvent]) -> Iterator[tuple[int, GameState]]:
    """The game as of each event in turn, folded once: ``(n, state)`` for n = 1, 2, ...;
    the state is the same object, moved on by one event at each step."""
    started = events[0]
    assert isinstance(started, GameStarted)
    state = GameState.start(started)
    yield 1, state
    for n, event in enumerate(events[1:], start=2):
        state.apply(event)
        yield n, state


def point_doc(kept: list[AnyEvent], point: Point, deals: int | None = None) -> dict[str, Any]:
    """The point of ``kept``, the events up to it (``deals``: their highest deal number, when known)."""
    return {
        "event": len(kept),
        "deals": max((e.deal or 0) for e in kept) if deals is None else deals,
        "point": point.describe(),
    }


# -- the report: every point at once --------------------------------------------------------


def timeline(events: list[AnyEvent], deal_cap: int | None = None) -> dict[str, Any]:
    """The report's data: the picture and the explain traces as of every event.

    ``points[n - 1]`` describes the sheet as of event n: its picture (an index into
    ``pictures``) and its explain traces (an index into ``traces``: per number of the
    sheet, a list of indexes into ``writes``). Equal pictures, traces and trace rows
    are kept once, so a long log stays small.
    """
    started = events[0]
    assert isinstance(started, GameStarted)
    rows = audit(events)
    types = {r.number: r.type for r in rows}
    revisions = set(revising(rows))
    pictures, traces, writes = Interned(), Interned(), Interned()
    points: list[dict[str, Any]] = []
    strikes: list[Marks] = []
    previous: Marks = {}
    players: list[str] = list(started.players)
    for n, state in states_by_event(events):
        cell_traces = traces_of(state)
        marks = marks_of(cell_traces, types)
        if n in revisions:
            strikes.append(struck(previous, marks, n))
        previous = marks
        doc = sheet_picture(state, started, with_struck(marks, strikes), deal_cap)
        players = doc["players"]
        trace = {cell_key(cell): [writes.index(trace_row(w)) for w in rows_] for cell, rows_ in cell_traces.items()}
        points.append({**point_doc(events[:n], Point(at=n)), "picture": pictures.index(doc),
                       "trace": traces.index(trace)})
    return {
        "game": started.game,
        "convention": pictures.items[0]["convention"],
        "players": players,  # everyone on the sheet at the end (a newcomer included)
        "target": started.pulya,
        "stake": started.stake,
        "events": [audit_entry(r) for r in rows],
        "points": points,
        "pictures": pictures.items,
        "traces": traces.items,
        "writes": writes.items,
        "deals": report_deals(events, rows),
    }


class Interned:
    """Documents kept once each, by their JSON text."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.numbers: dict[str, int] = {}

    def index(self, doc: Any) -> int:
        key = json.dumps(doc, sort_keys=True, ensure_ascii=False)
        if key not in self.numbers:
            self.numbers[key] = len(self.items)
            self.items.append(doc)
        return self.numbers[key]


def trace_row(w: dict[str, Any]) -> dict[str, Any]:
    """A row of ``explain`` with its numbers written for people."""
    return {**w, "amount": signed(exact_fraction(w["amount"])), "total": fmt(exact_fraction(w["total"]))}


def audit_entry(row: AuditRow) -> dict[str, Any]:
    """An audit row with its changes written for people (``Anna pulya +2``), and the
    record they are credited to when it is not this event (a deal's result)."""
    doc = row_doc(row)
    doc["shown"] = [
        f"{c[0]} {c[1]}{' on ' + c[2] if c[2] else ''} {signed(exact_fraction(v))}" for c, v in row.changes.items()
    ] + ([f"({row.credit})"] if row.credit else [])
    return doc


def report_deals(events: list[AnyEvent], rows: list[AuditRow]) -> list[dict[str, Any]]:
    """The table of deals (``projections.deal_text``) for the report: per deal, who dealt and
    led, the game and its line, what each player's numbers got from it as the sheet counts
    it now, the events it spans, and the rounded settlement as it stood at its end."""
    started = events[0]
    assert isinstance(started, GameStarted)
    # The rounded settlement at the end of each deal, folding the log once: deal K ends
    # just before the first event of a later deal (``cut``'s --deal K).
    rounded: dict[int, dict[str, int]] = {}
    state = GameState.start(started)
    deal = 0
    for event in events[1:]:
        if (event.deal or 0) > deal:
            now = dict(settlement_of(state).rounded)
            for ended in range(deal, event.deal or 0):
                rounded[ended] = now
            deal = event.deal or 0
        state.apply(event)
    rounded[deal] = dict(settlement_of(state).rounded)
    final = state
    columns = sheet_cells(final)
    _, table = deals_of(final)
    players = around_the_table(final)
    out = []
    for deal, dealer, leads, game, line, *written in table:
        numbers = [r.number for r in rows if r.deal == deal]
        out.append({
            "deal": deal,
            "dealer": dealer,
            "leads": leads,
            "game": game,
            "line": line,
            "first": min(numbers, default=None),
            "last": max(numbers, default=None),
            "writes": {
                p: [f"{column}{' on ' + on if on else ''} {signed(v)}"
                    for (player, column, on), v in zip(columns, written) if player == p and v != "" and v != 0]
                for p in players
            },
            "rounded": rounded[deal],
        })
    return out

"""What the command line shows of a rubber: the МЫ/ВЫ sheet as text and JSON, the
settlement, the audit trail, and the numbers ``explain`` and ``diff`` trace.

Pure functions from a rubber's events to data; ``cli`` only prints them. The rows,
their documents and the comparison of two points are the shared ones of
``projections.trail``; what is a rubber's own is here: how its events read, its cells
(each side's points above and below the line), and its documents.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.bridge import SIDE_NAMES, SIDES, BridgeDeal, BridgePenalty, PassedOut, RubberStarted, Side
from ledger.vocabulary.bridge import contract_text, needed, parse_contract
from ledger.vocabulary.refusal import excerpt
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction, event_type
from projections.audit import describe as describe_shared
from projections.bridge_scoring import other
from projections.points import Point, cut
from projections.rubber import BridgeWrite, RubberState, replay_rubber
from projections.rubber import rubber_totals
from projections.rubber_settlement import RubberSettlement, round_hundred, settle_rubber
from projections.trail import AuditRow, Cell, CellNames, Numbers, changes, corrections_in_effect, deal_corrected
from ledger.vocabulary.wording import spoken_count

_ = language._  # every text a person reads, in the language in effect

WE, THEY = "МЫ", "ВЫ"
LABEL: dict[str, str] = {"NS": WE, "EW": THEY}
LINES = ("above", "below")


def side_cell_text(cell: Cell) -> str:
    side, line, _on = cell
    said = _("above") if line == "above" else _("below") if line == "below" else line
    return f"{LABEL.get(side, side)} ({SIDE_NAMES.get(side, side)}) {said}"


SIDE_CELLS = CellNames(owner="side", column="line", text=side_cell_text)

# What a player may write for a side in ``pulka explain``: NS.above, we.below, МЫ.above.
SIDE_WORDS: dict[str, Side] = {
    "ns": "NS", "n-s": "NS", "n–s": "NS", "we": "NS", "мы": "NS",
    "ew": "EW", "e-w": "EW", "e–w": "EW", "they": "EW", "вы": "EW",
}


def rubber_at(events: list[AnyEvent], point: Point) -> RubberState:
    return replay_rubber(cut(events, point))


# -- describing events -------------------------------------------------------------------


def rubber_event_text(state: RubberState, event: AnyEvent) -> str:
    """One line for the audit trail; ``state`` names the players' sides."""
    if isinstance(event, RubberStarted):
        seats = ", ".join(f"{s} {p}" for s, p in zip("NESW", event.players))
        stake = "; " + _("{stake} per 100 points").format(stake=event.stake) if event.stake else ""
        return _("rubber {game} started: {seats}; {dealer} deals first").format(
            game=event.game, seats=seats, dealer=state.dealer(1)) + stake
    if isinstance(event, BridgeDeal):
        return describe_deal(state, event)
    if isinstance(event, PassedOut):
        return _("passed out (dealt by {dealer})").format(dealer=state.dealer(event.deal or state.current_deal_number))
    if isinstance(event, BridgePenalty):
        return _("penalty: {points} above the line to {side} ({reason})").format(
            points=event.points, side=SIDE_NAMES[event.side], reason=event.reason)
    if isinstance(event, (Correction, Abandoned)):
        return describe_shared(event)
    return _("{type}: not an event of a rubber").format(type=event_type(event))


def describe_deal(state: RubberState, deal: BridgeDeal) -> str:
    """The deal in one line, its contract in canonical form (a rubber stored before
    contracts were stored canonical may hold ``3nt``), who doubled and who redoubled."""
    level, denomination = parse_contract(deal.contract)
    over = deal.tricks - needed(level)
    how = {None: "", "X": " " + _("doubled"), "XX": " " + _("redoubled")}[deal.double]
    result = (_("made") if over == 0 else
              (_("made +{n}").format(n=over) if over > 0 else _("{n} down").format(n=-over)))
    side = SIDE_NAMES[state.side_of(deal.declarer)] if deal.declarer in state.players else "?"
    text = _("{contract} by {declarer} ({side}), {tricks} tricks: {result}").format(
        contract=f"{contract_text(level, denomination)}{how}", declarer=deal.declarer, side=side, tricks=deal.tricks,
        result=result)
    doublers = [(_("the double by {player}") if call == "double" else _("the redouble by {player}")).format(player=who)
                for call, who in (("double", deal.doubled_by), ("redouble", deal.redoubled_by)) if who is not None]
    if doublers:
        text += "; " + ", ".join(doublers)
    if deal.honours is not None:
        text += "; " + _("honours {points} in {player}'s hand").format(
            points=deal.honours.points, player=deal.honours.player)
    return text


# -- cells: each side's points above and below the line -----------------------------------------


def parse_side_cell(text: str) -> Cell:
    """``NS.above``, ``we.below``, ``МЫ.above``, ``EW.below``..."""
    owner, sep, line = text.partition(".")
    side = SIDE_WORDS.get(owner.strip().lower())
    if not sep or side is None or line not in LINES:
        raise ValueError(_("{text} is not a number of the sheet; write SIDE.above or SIDE.below, the side being NS "
                           "(we, МЫ) or EW (they, ВЫ)").format(text=excerpt(text)))
    return side, line, None


def rubber_audit(events: list[AnyEvent], progress: Callable[[int], None] | None = None) -> list[AuditRow]:
    """Every event of a rubber with what it did; ``progress(done)`` is told how far it is."""
    first = events[0]
    assert isinstance(first, RubberStarted)
    state = RubberState.start(first)
    before = rubber_totals(state.sheet())
    rows = [AuditRow(1, first.at, first.by, event_type(first), None, rubber_event_text(state, first), {}, None, None, None)]
    for event in events[1:]:
        if progress is not None and state.folded % 500 == 0:
            progress(state.folded)
        state.apply(event)
        after = rubber_totals(state.sheet())
        n = state.folded
        effect = state.effects.get(n)
        rows.append(AuditRow(
            n, event.at, event.by, event_type(event), event.deal, rubber_event_text(state, event), changes(before, after),
            effect.effective if effect else None, effect.rule if effect else None, effect.reason if effect else None,
            about=deal_corrected(state.events, event), played_at=event.played_at,
        ))
        before = after
    return rows


def rubber_explain(state: RubberState, cell: Cell) -> list[dict[str, Any]]:
    """Every write behind one number, with the event, its recorder and any correction of it."""
    side, line, _on = cell
    corrected_by = corrections_in_effect(state)
    out = []
    total = 0
    for w in state.sheet().writes:
        if (w.side, w.line) != (side, line):
            continue
        total += w.points
        event = state.events[w.event - 1]
        out.append({
            "event": w.event,
            "deal": w.deal,
            "amount": w.points,
            "total": total,
            "why": w.why,
            "recorded_by": event.by,
            "at": event.at,
            "event_text": rubber_event_text(state, state.content(w.event)),
            "corrected_by": corrected_by.get(w.event, []),
        })
    return out


def rubber_numbers_at(events: list[AnyEvent], point: Point) -> Numbers:
    state = rubber_at(events, point)
    s = settle_rubber(state)
    return Numbers(state.folded, rubber_totals(state.sheet()), {p: Fraction(v) for p, v in s.result.items()},
                   dict(s.rounded))


# -- documents ------------------------------------------------------------------------------


def _entry(w: BridgeWrite) -> dict[str, Any]:
    return {"points": w.points, "deal": w.deal, "event": w.event, "why": w.why}


def status(state: RubberState) -> str:
    sheet = state.sheet()
    winner = sheet.winner
    if winner is not None:
        return _("finished: {side} won the rubber {won}-{lost}").format(
            side=SIDE_NAMES[winner], won=sheet.won(winner), lost=sheet.won(other(winner)))
    if state.abandoned_at is not None:
        return _("abandoned")
    return _("in play")


def rubber_sheet_doc(state: RubberState) -> dict[str, Any]:
    sheet = state.sheet()
    played = len(sheet.games) + (0 if sheet.over else 1)

    def side_doc(side: Side) -> dict[str, Any]:
        mine = [w for w in sheet.writes if w.side == side]
        return {
            "side": side,
            "players": list(state.members(side)),
            "above": [_entry(w) for w in mine if w.line == "above"],
            "below": [[_entry(w) for w in mine if w.line == "below" and w.game == g] for g in range(1, played + 1)],
            "above_total": sheet.total(side, "above"),
            "below_total": sheet.total(side, "below"),
            "total": sheet.total(side),
            "games": sheet.won(side),
            "vulnerable": sheet.vulnerable(side),
        }

    return {
        "we": side_doc("NS"),
        "they": side_doc("EW"),
        "games": [{"game": i, "winner": s, "deal": k} for i, (s, k) in enumerate(sheet.games, start=1)],
        "deals": state.current_deal_number,
        "finished": sheet.over,
        "abandoned": state.abandoned_at is not None,
    }


def rubber_settlement_doc(state: RubberState) -> dict[str, Any]:
    s = settle_rubber(state)
    doc: dict[str, Any] = {
        "game": state.started.game,
        "kind": "rubber",
        "players": {side: list(state.members(side)) for side in SIDES},
        "finished": state.finished,
        "abandoned": state.abandoned_at is not None,
        "sheet": rubber_sheet_doc(state),
        "bonuses": [{"side": b.side, "points": b.points, "why": b.why} for b in s.bonuses],
        "totals": dict(s.totals),
        "winner": s.winner,
        "margin": s.margin,
        "result": dict(s.result),
        "rounded": dict(s.rounded),
    }
    if s.money is not None:
        doc["stake"] = state.started.stake
        doc["money"] = {p: str(v) for p, v in s.money.items()}
    return doc


def rubber_summary_doc(name: str, state: RubberState) -> dict[str, Any]:
    """A rubber as ``pulka games`` lists it."""
    times = [e.at for e in state.events if e.at]
    sheet = state.sheet()
    return {
        "game": name,
        "kind": "rubber",
        "players": list(state.players),
        "events": state.folded,
        "deals": state.current_deal_number,
        "games": {s: sheet.won(s) for s in SIDES},
        "status": "abandoned" if state.abandoned_at is not None else ("finished" if sheet.over else "playing"),
        "first": times[0] if times else None,
        "last": times[-1] if times else None,
    }


# -- for people -----------------------------------------------------------------------------

WIDTH = 12


def _row(side: Side, points: int, note: str) -> str:
    we = f"{points}" if side == "NS" else ""
    they = f"{points}" if side == "EW" else ""
    return f"  {we:>{WIDTH}} | {they:<{WIDTH}}  {note}"


def render_rubber_sheet(state: RubberState, point: Point) -> str:
    """The МЫ/ВЫ sheet as it is kept on paper: premiums above the line, the newest on
    top; trick points below it, game by game, a line drawn under each game won."""
    sheet = state.sheet()
    lines = [
        _("rubber {game}: {seats}; {deals}, {status} ({point}, event {event})").format(
            game=state.started.game, seats=", ".join(f"{s} {p}" for s, p in zip("NESW", state.players)),
            deals=spoken_count(state.current_deal_number, "deal"), status=status(state), point=point.describe(),
            event=state.folded),
    ]
    for side in SIDES:
        vul = _("vulnerable") if sheet.vulnerable(side) else _("not vulnerable")
        games = sheet.won(side)
        lines.append(f"{LABEL[side]} = {state.side_text(side)}: {spoken_count(games, 'game')}, {vul}")
    rule = f"  {'-' * WIDTH}-+-{'-' * WIDTH}"
    lines += ["", f"  {WE:>{WIDTH}} | {THEY:<{WIDTH}}"]
    for w in reversed([w for w in sheet.writes if w.line == "above"]):
        lines.append(_row(w.side, w.points, f"d{w.deal} {w.why}"))
    lines.append(rule)
    played = len(sheet.games) + (0 if sheet.over else 1)
    for g in range(1, played + 1):
        for w in sheet.writes:
            if w.line == "below" and w.game == g:
                lines.append(_row(w.side, w.points, f"d{w.deal} {w.why}"))
        if g <= len(sheet.games):
            winner = sheet.games[g - 1][0]
            game = _("game {n}: {label} ({side})").format(n=g, label=LABEL[winner], side=SIDE_NAMES[winner])
            lines.append(f"  {'-' * WIDTH}-+-{'-' * WIDTH}  {game}")
    lines.append(f"  {'=' * WIDTH}=+={'=' * WIDTH}")
    total = _("total")
    lines.append(f"  {sheet.total('NS'):>{WIDTH}} | {sheet.total('EW'):<{WIDTH}}  {total}")
    return "\n".join(lines) + "\n"


def render_rubber_settlement(state: RubberState, point: Point) -> str:
    s: RubberSettlement = settle_rubber(state)
    sheet = state.sheet()
    how = status(state)
    if not sheet.over and state.abandoned_at is None:
        how = _("not finished: settled as if stopped now [Law 80]")
    lines = [_("settlement of rubber {game} ({point}): {status}").format(
        game=state.started.game, point=point.describe(), status=how), ""]
    for b in s.bonuses:
        lines.append("  " + _("+ {points} to {label} ({side}): {why}").format(
            points=b.points, label=LABEL[b.side], side=SIDE_NAMES[b.side], why=b.why))
    if s.bonuses:
        lines.append("")
    above_head, below_head, total_head = _("above"), _("below"), _("total")
    lines.append(f"{'':<12}{above_head:>8}{below_head:>8}{total_head:>8}")
    for side in SIDES:
        above = sheet.total(side, "above") + sum(b.points for b in s.bonuses if b.side == side)
        lines.append(f"{LABEL[side] + ' ' + SIDE_NAMES[side]:<12}{above:>8}{sheet.total(side, 'below'):>8}"
                     f"{s.totals[side]:>8}")
    lines.append("")
    if s.winner is None:
        lines.append(_("equal totals: nobody wins [Law 74]"))
    else:
        lines.append(_("{side} win by {margin} points [Law 74]").format(side=SIDE_NAMES[s.winner], margin=s.margin)
                     + (_(", rounded to {points}").format(points=round_hundred(s.margin))
                        if state.rules.rounding == "hundred" else ""))
    player_head, side_head, points_head, money_head = _("player"), _("side"), _("points"), _("money")
    head = f"{player_head:<12}{side_head:>6}{points_head:>9}"
    if s.money is not None:
        head += f"{money_head:>10}   " + _("(stake {stake} per 100 points)").format(stake=state.started.stake)
    lines.append(head)
    for p in state.players:
        row = f"{p:<12}{SIDE_NAMES[state.side_of(p)]:>6}{s.rounded[p]:>+9}"
        if s.money is not None:
            row += f"{s.money[p]:>+10}"
        lines.append(row)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class RubberView:
    """A rubber folded to a point in time, and what the command line shows of it."""

    state: RubberState
    point: Point

    @property
    def folded(self) -> int:
        return self.state.folded

    def sheet_doc(self) -> dict[str, Any]:
        return rubber_sheet_doc(self.state)

    def sheet_text(self) -> str:
        return render_rubber_sheet(self.state, self.point)

    def settlement_doc(self) -> dict[str, Any]:
        return rubber_settlement_doc(self.state)

    def settlement_text(self) -> str:
        return render_rubber_settlement(self.state, self.point)

    def parse_cell(self, text: str) -> Cell:
        return parse_side_cell(text)

    def explain(self, cell: Cell) -> list[dict[str, Any]]:
        return rubber_explain(self.state, cell)


def rubber_view(events: list[AnyEvent], point: Point, progress: Callable[[int], None] | None = None) -> RubberView:
    """A rubber as of a point; a rubber is short, so ``progress`` is told only the end."""
    state = rubber_at(events, point)
    if progress is not None:
        progress(state.folded)
    return RubberView(state, point)


def rubber_view_of(state: RubberState, point: Point) -> RubberView:
    """The rubber folded already to ``point`` (by the read that judged it), as shown."""
    return RubberView(state, point)


# The names every kind's read side offers (projections.kinds.Kind).
view = rubber_view
view_of = rubber_view_of
audit = rubber_audit
numbers_at = rubber_numbers_at
CELLS = SIDE_CELLS

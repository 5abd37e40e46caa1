"""Judging the events of a rubber of bridge before they are stored.

- ``start_rubber`` judges a ``rubber_started`` and records the complete rule set in it;
- ``decide_rubber`` judges any later event: a deal (``bridge_deal``, ``passed_out``), a
  ruling (``bridge_penalty``), a correction, the agreed end (``abandoned``); the events
  of a pulka are refused;
- ``same_rubber_start`` says whether a file that appends begins with the stored rubber's start.

Refusals name the rule: the Laws of rubber bridge by number ([Law 18]: a level of one
to seven; [Law 19]: a double by a defender, a redouble by the declaring side; [Law 74]:
no deal after the rubber is won; [Law 81]: which honours score), seed 003 (thirteen
tricks), or the log format. Whether a correction takes effect is the projection's
verdict [Law 77] (``projections.rubber``); here a correction is checked to be well
formed and to leave the log valid, and is scored as replay will score it.

A contract is stored in its canonical form (``3NT`` for ``3nt`` or `` 3N ``), in a deal
and in a correction, as a pulka stores a bid; a rubber stored before that keeps its
contracts as typed (``RubberStarted.canonical_contracts``).
"""

from __future__ import annotations

import msgspec

from ledger.judge.checks import STAKE_TEXT, check_recorder, correction_of, check_time, filled, is_arbiter, is_stake
from ledger.vocabulary import language
from ledger.vocabulary.bridge import SIDE_NAMES, BridgeDeal, BridgePenalty, ContractError, PassedOut, RubberStarted
from ledger.vocabulary.bridge import contract_text, parse_contract
from ledger.vocabulary.bridge_rules import HONOURS_NT, HONOURS_SUIT, LEVELS, TRICKS, BridgeRulesError, check_bridge
from ledger.vocabulary.bridge_rules import resolve_bridge
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction, event_type
from ledger.vocabulary.stream import StreamStart
from ledger.vocabulary.refusal import Refused, excerpt
from projections.bridge_scoring import other
from projections.rubber import RubberState

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

RUBBER_EVENTS = "bridge_deal, passed_out, bridge_penalty, correction, abandoned"
# Fields a correction may change, per event type; type, by and deal never change.
CORRECTABLE: dict[str, tuple[str, ...]] = {
    "bridge_deal": ("declarer", "contract", "double", "tricks", "honours", "doubled_by", "redoubled_by"),
    "bridge_penalty": ("side", "points", "reason"),
}


def start_rubber(event: AnyEvent) -> RubberStarted:
    """Judge a ``rubber_started`` and return it with the resolved rule set recorded."""
    if not isinstance(event, RubberStarted):
        raise Refused("event-log", _("a rubber begins with rubber_started, not {type}").format(type=event_type(event)),
                      _("a rubber_started line first"))
    players = event.players
    if len(players) != 4:
        raise Refused("seed 003", _("rubber bridge is played by four players in two sides, not {n}").format(
            n=len(players)), _("four names, clockwise from North: N,E,S,W"))
    if len(set(players)) != 4 or any(not p.strip() for p in players):
        raise Refused("event-log", _("player names must be distinct and not empty"))
    if any(p.startswith("arbiter:") for p in players):
        raise Refused("event-log", _("a player's name may not begin with 'arbiter:'"))
    if not event.game.strip():
        raise Refused("event-log", _("the rubber needs a name"))
    if event.first_dealer is not None and event.first_dealer not in players:
        raise Refused("event-log", _("first_dealer {dealer} is not a player").format(dealer=repr(event.first_dealer)),
                      ", ".join(players))
    if event.stake is not None and not is_stake(event.stake):
        raise Refused("event-log", _("the stake {stake} is not money per 100 points").format(
            stake=excerpt(event.stake)), _(STAKE_TEXT))
    try:
        resolved = resolve_bridge("laws", event.rules)
        if event.rule_set is not None and event.rule_set != resolved:
            # An exported rubber carries its full rule set; it is what replay uses.
            check_bridge(event.rule_set)
            resolved = event.rule_set
    except BridgeRulesError as exc:
        raise Refused("docs/conventions.md", str(exc)) from None
    if event.by is not None and event.by not in players and not is_arbiter(event.by):
        raise Refused("event-log", _("unknown recorder {by}").format(by=repr(event.by)),
                      _("a player ({players}) or arbiter:NAME").format(players=", ".join(players)))
    fd = event.first_dealer if event.first_dealer is not None else players[0]
    # A start with its rule set and without canonical_contracts is that of a rubber
    # stored before contracts were stored canonical (an export, or the store itself
    # judged again): it keeps its form. Any other start is a new rubber's.
    canonical = event.canonical_contracts or event.rule_set is None
    return msgspec.structs.replace(event, rule_set=resolved, first_dealer=fd, by=event.by or fd, deal=None,
                                   canonical_contracts=canonical)


def same_rubber_start(a: StreamStart, b: StreamStart) -> bool:
    """A file that appends must begin with the stored rubber's own rubber_started (both
    are rubber_started lines: the caller has checked their type)."""
    keys = ("game", "players", "stake", "first_dealer", "rule_set")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def decide_rubber(state: RubberState, event: AnyEvent) -> AnyEvent:
    """Judge one event against the rubber so far; return it as it will be stored."""
    check_time(state, event)
    check_recorder(state, event.by)
    if isinstance(event, BridgeDeal):
        _no_deal_after_end(state)
        canonical = check_deal(state, event)
        return filled(state, event, by=event.by or event.declarer, deal=state.current_deal_number + 1,
                      contract=stored_contract(state, event.contract, canonical))
    if isinstance(event, PassedOut):
        _no_deal_after_end(state)
        k = state.current_deal_number + 1
        return filled(state, event, by=event.by or state.dealer(k), deal=k)
    if isinstance(event, BridgePenalty):
        check_penalty(event)
        if event.by is None:
            raise Refused("event-log", _("a penalty names who ruled it"), _("by: arbiter:NAME, or a player"))
        return filled(state, event, by=event.by)
    if isinstance(event, Correction):
        return judge_rubber_correction(state, event)
    if isinstance(event, Abandoned):
        return _abandoned(state, event)
    if isinstance(event, RubberStarted):
        raise Refused("event-log", _("a rubber has only one rubber_started line"))
    raise Refused("event-log", _("a {type} event is not an event of a rubber").format(type=event_type(event)),
                  RUBBER_EVENTS)


def _no_deal_after_end(state: RubberState) -> None:
    if state.abandoned_at is not None:
        raise Refused("Law 80", _("the rubber was stopped at event {event}; no deal may follow").format(
            event=state.abandoned_at), _("a new rubber (pulka bridge new)"))
    sheet = state.sheet()
    if sheet.winner is not None:
        w = sheet.winner
        raise Refused("Law 74", _("the rubber is over: {side} won it {won}-{lost}; no deal may follow").format(
            side=SIDE_NAMES[w], won=sheet.won(w), lost=sheet.won(other(w))), _("a new rubber (pulka bridge new)"))


def stored_contract(state: RubberState, typed: str, canonical: str) -> str:
    """A contract as the rubber stores it: in its canonical form (``3NT``, ``4S``) as a
    pulka stores a bid, or as typed in a rubber stored before that (see
    ``RubberStarted.canonical_contracts``)."""
    return canonical if state.started.canonical_contracts else typed


def check_deal(state: RubberState, deal: BridgeDeal) -> str:
    """The fields of a deal: the declarer, a contract of one to seven in a denomination,
    0 to 13 tricks, who doubled and redoubled, and honours only as the rules allow.
    Returns the contract in its canonical form."""
    if deal.declarer not in state.players:
        raise Refused("event-log", _("unknown declarer {declarer}").format(declarer=repr(deal.declarer)),
                      ", ".join(state.players))
    try:
        level, denomination = parse_contract(deal.contract)
    except ContractError as exc:
        raise Refused("Law 18", str(exc), _("a level 1-7 and C, D, H, S or NT, e.g. 4S, 3NT")) from None
    if level not in LEVELS:
        raise Refused("Law 18", _("a contract names one to seven odd tricks, not {level}").format(level=level),
                      _("1 to 7"))
    if deal.tricks not in TRICKS:
        raise Refused("seed 003", _("a deal has thirteen tricks; the declarer's side cannot take {tricks}").format(
            tricks=deal.tricks), _("0 to 13"))
    check_doubles(state, deal)
    honours = deal.honours
    if honours is None:
        return contract_text(level, denomination)
    if not state.rules.honours:
        raise Refused("docs/conventions.md", _("this rubber does not score honours (rule honours=false)"),
                      _("no honours"))
    if honours.player not in state.players:
        raise Refused("event-log", _("unknown holder of honours {player}").format(player=repr(honours.player)),
                      ", ".join(state.players))
    allowed = HONOURS_NT if denomination == "NT" else HONOURS_SUIT
    if honours.points not in allowed:
        what = (_("at no trump only the four aces in one hand score: 150") if denomination == "NT" else
                _("in a suit contract four of the five trump honours in one hand score 100, all five 150"))
        raise Refused("Law 81", _("honours of {points}: {what}").format(points=honours.points, what=what),
                      _(" or ").join(map(str, allowed)))
    return contract_text(level, denomination)


def check_doubles(state: RubberState, deal: BridgeDeal) -> None:
    """Who doubled and who redoubled, when recorded: a double is of a bid made by an
    opponent, so it is a defender's [Law 19 A1]; a redouble is of a double made by an
    opponent, so it is the declaring side's [Law 19 B1]; and only a doubled (a
    redoubled) contract names its doubler (its redoubler)."""
    declaring = state.side_of(deal.declarer)
    for field, doubler, needs in (("doubled_by", deal.doubled_by, ("X", "XX")),
                                  ("redoubled_by", deal.redoubled_by, ("XX",))):
        if doubler is None:
            continue
        if deal.double not in needs:
            reason = (_("{field} {player}: the contract is not doubled") if deal.double is None else
                      _("{field} {player}: the contract is doubled, not redoubled"))
            raise Refused("event-log", reason.format(field=field, player=repr(doubler)),
                          _("double {calls} with {field}, or no {field}").format(
                              calls=_(" or ").join(needs), field=field))
        if doubler not in state.players:
            raise Refused("event-log", _("unknown {field} {player}").format(field=field, player=repr(doubler)),
                          ", ".join(state.players))
        redouble = field == "redoubled_by"
        if (state.side_of(doubler) == declaring) != redouble:
            right = declaring if redouble else other(declaring)
            why = (_("a player may redouble only a double made by an opponent: the declaring side {side} "
                     "redoubles").format(side=state.side_text(declaring)) if redouble else
                   _("a player may double only a bid made by an opponent: the defending side {side} "
                     "doubles").format(side=state.side_text(other(declaring))))
            cannot = (_("{player} cannot have redoubled {declarer}'s {contract}: {why}") if redouble else
                      _("{player} cannot have doubled {declarer}'s {contract}: {why}"))
            raise Refused("Law 19", cannot.format(player=doubler, declarer=deal.declarer, contract=deal.contract,
                                                  why=why), _(" or ").join(state.members(right)))


def check_penalty(penalty: BridgePenalty) -> None:
    if penalty.points <= 0:
        raise Refused("Law 72", _("a ruling writes points above the line for a side, not {points}").format(
            points=penalty.points), _("a positive number of points, for the side that receives them"))
    if not penalty.reason.strip():
        raise Refused("event-log", _("a penalty gives its reason"), _("reason: the irregularity and the law applied"))


def _abandoned(state: RubberState, event: Abandoned) -> AnyEvent:
    unknown = [p for p in event.agreed_by if p not in state.players]
    if unknown:
        raise Refused("event-log", _("unknown player(s) {players}").format(players=", ".join(unknown)),
                      ", ".join(state.players))
    missing = [p for p in state.players if p not in event.agreed_by]
    if missing:
        raise Refused("Law 80", _("stopping a rubber needs the agreement of all four players; {players} did not "
                                  "agree").format(players=", ".join(missing)), ", ".join(state.players))
    _no_deal_after_end(state)
    return filled(state, event, by=event.by or event.agreed_by[0])


def judge_rubber_correction(state: RubberState, c: Correction) -> AnyEvent:
    """A correction of a deal or a ruling: well formed, and leaving the log valid."""
    number = state.folded + 1
    target, merged = correction_of(state, c, CORRECTABLE, "Law 77", N_("type, by and deal"),
                                   N_("a record of the score"))
    replacement = c.replacement
    try:
        if isinstance(merged, BridgeDeal):
            canonical = check_deal(state, merged)
            if "contract" in replacement:
                replacement = {**replacement, "contract": stored_contract(state, merged.contract, canonical)}
        elif isinstance(merged, BridgePenalty):
            check_penalty(merged)
    except Refused as exc:
        raise Refused(exc.rule, _("the corrected event {event}: {reason}").format(event=c.target, reason=exc.reason),
                      exc.allowed) from None
    stored = filled(state, c, by=c.by or target.by, replacement=replacement)
    # What the correction would do, folded and scored as it will be (what is judged
    # here is what replay and verify will score): when it takes effect, no deal (and
    # no agreed end) may come after the end of the rubber it makes.
    trial = state.fork()
    trial.apply(stored)
    trial.sheet()
    if trial.effects[number].effective:
        after = trial.first_after_end(since=target.deal or 1)
        if after is not None:
            raise Refused("Law 74", _("the correction of event {event} would end the rubber before event {after}, "
                                      "which the log records after it").format(event=c.target, after=after),
                          _("a correction that keeps the rubber going until its last deal"))
    return stored

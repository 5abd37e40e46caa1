"""Judging an arbiter's decisions and the agreements that stand for them: a penalty that
never benefits the penalised player [Code 4.2.16], and the rulings on a deal: the talon
exposed in the auction [3.3.16.2, 3.3.16.3], a declaration against the rules [3.4.4], a
conceded game [3.5.4], a plan of play disputed [3.8.5.1], an agreed result [3.9.22].
"""

from __future__ import annotations

from ledger.judge.by_hand import check_deal_exists, column_check
from ledger.judge.checks import filled, in_deal, is_arbiter, not_abandoned, person_of, waiting_for
from ledger.judge.result import check_result
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Penalty, Ruling
from ledger.vocabulary.refusal import Refused
from projections.deal_state import DealState
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

RULINGS = ("3.3.16.2", "3.3.16.3", "3.4.4", "3.5.4", "3.8.5.1", "3.9.22")


def judge_penalty(state: GameState, event: Penalty) -> AnyEvent:
    """An arbiter's penalty never benefits the penalised ``player`` [Code 4.2.16]: gora
    goes up, pulya comes down, and whists are written on him by the wronged player."""
    if event.by is None or not is_arbiter(event.by):
        raise Refused("4.2.16", _("a penalty is an arbiter's ruling: `by` must be arbiter:NAME"))
    penalised = person_of(state, event.player)
    if event.column == "whists":
        if event.wronged is not None:
            if event.on is not None:
                raise Refused("4.2.16", _("a penalty in whists names the wronged player (wronged), not `on`"))
            if person_of(state, event.wronged) == penalised:
                raise Refused("4.2.16", _("{player} cannot be wronged by his own penalty").format(player=event.player),
                              ", ".join(p for p in state.players if p != event.player))
        elif event.on is not None:
            # The form of logs older than ``wronged``: ``player`` writes on ``on``.
            column_check(state, event.player, event.column, event.on)
        else:
            raise Refused("4.2.16", _("a penalty in whists is written by the wronged player on the penalised one: "
                                    "name him (wronged)"), ", ".join(p for p in state.players if p != event.player))
        if event.amount <= 0:
            raise Refused("4.2.16", _("a penalty never benefits the penalised player: the whists written on him "
                                    "are positive"), _("an amount of 1 or more"))
    else:
        if event.wronged is not None or event.on is not None:
            raise Refused("4.2.1", _("a penalty in {column} names nobody else (no wronged, no on)").format(
                column=event.column))
        if event.column == "gora" and event.amount <= 0:
            raise Refused("4.2.16", _("a penalty never benefits the penalised player: his gora goes up"),
                          _("an amount of 1 or more"))
        if event.column == "pulya" and event.amount >= 0:
            raise Refused("4.2.16", _("a penalty never benefits the penalised player: his pulya comes down"),
                          _("an amount of -1 or less"))
    check_deal_exists(state, event.deal, (event.player, event.on, event.wronged))
    return filled(state, event, by=event.by, late_ok=True)


# -- rulings on a deal -----------------------------------------------------------------


def judge_ruling(state: GameState, event: Ruling) -> AnyEvent:
    """A ruling or an agreement on the current deal [Code 3.3.16.2, 3.3.16.3, 3.4.4, 3.5.4,
    3.8.5.1, 3.9.22]: each names the fields its rule needs and no other."""
    rule = event.rule
    if rule not in RULINGS:
        raise Refused("4.2.16", _("a ruling on a deal cites one of {rules}, not {rule}").format(
            rules=", ".join(RULINGS), rule=repr(event.rule)),
                      ", ".join(RULINGS))
    not_abandoned(state)
    _ruling_fields(event)
    deal = state.current
    if rule == "3.8.5.1":
        return _plan_ruling(state, deal, event)
    if deal is None or deal.annulled_at is not None or deal.resolved:
        raise Refused(rule, _("there is no deal in progress to rule on"), _("a bid"))
    if rule in ("3.3.16.2", "3.3.16.3"):
        by = _exposed_talon(state, deal, event)
    elif rule == "3.4.4":
        by = _declaration(state, deal, event)
    elif rule == "3.5.4":
        by = _concession(state, deal, event)
    else:
        by = _agreed_result(state, deal, event)
    return filled(state, event, by=by, deal=deal.number)


def _declaration(state: GameState, deal: DealState, event: Ruling) -> str:
    """A declaration against the rules, before any contract stands: a remiz without all
    [Code 3.4.4]. Returns the default recorder."""
    rule = event.rule
    if deal.phase != "contract" or deal.declarer is None:
        raise Refused(rule, _("this ruling is for a declaration against the rules, before any contract stands"),
                      waiting_for(state, deal))
    if deal.own_level.get(deal.declarer) is None:
        raise Refused(rule, _("the declarer reached no level in the auction for a remiz without all: he took "
                               "the talon without bidding (3.3.15)"), _("a contract by the declarer"))
    return event.by or deal.persons[deal.defenders[0]]


def _concession(state: GameState, deal: DealState, event: Ruling) -> str:
    """A whisted game conceded in play: the declarer without all [Code 3.5.4]. Returns the
    default recorder."""
    rule = event.rule
    names = deal.persons
    if deal.phase != "play" or deal.raspasy or deal.contract is None or deal.contract.is_misere:
        raise Refused(rule, _("a declarer concedes a whisted game in play"), waiting_for(state, deal))
    if deal.no_defence or not deal.defence().whisters:
        raise Refused(rule, _("only a whisted game is conceded without all"))
    assert deal.declarer is not None
    if event.tricks is not None:
        check_result(state, deal, event.tricks, N_("the conceded tricks"))
        if event.tricks.get(names[deal.declarer], 0) != 0:
            raise Refused(rule, _("conceding means the declarer is without all: he takes no trick"), "0")
    return event.by or names[deal.declarer]


def _agreed_result(state: GameState, deal: DealState, event: Ruling) -> str:
    """A declared contract settled by everyone's agreement instead of its play [Code
    3.9.22]. Returns the default recorder."""
    rule = event.rule
    if deal.phase != "play" or deal.raspasy:
        raise Refused(rule, _("an agreed result settles a declared contract instead of its play"),
                      waiting_for(state, deal))
    missing = [p for p in state.players if p not in event.agreed_by]
    if missing:
        raise Refused(rule, _("a result without play needs everyone's agreement; {missing} did not agree").format(
            missing=", ".join(missing)), ", ".join(state.players))
    if event.tricks is None:
        raise Refused(rule, _("an agreed result gives the tricks it stands for"), '"tricks": {NAME: N}')
    check_result(state, deal, event.tricks, N_("the agreed tricks"))
    return event.by or event.agreed_by[0]


# The fields of a ruling beside ``rule``, ``reason`` and ``agreed_by`` (which any ruling
# may carry, as it always could), and the rulings that take each.
RULING_FIELDS: dict[str, tuple[str, ...]] = {
    "offender": ("3.3.16.2", "3.3.16.3"),
    "whists": ("3.3.16.3", "3.8.5.1"),
    "tricks": ("3.5.4", "3.8.5.1", "3.9.22"),
    "planner": ("3.8.5.1",),
    "compensated": ("3.8.5.1",),
    "declarer_result": ("3.8.5.1",),
}


def _ruling_fields(event: Ruling) -> None:
    """A field that belongs to another rule is refused, naming the rule it belongs to."""
    for name, rules in RULING_FIELDS.items():
        if getattr(event, name) not in (None, ()) and event.rule not in rules:
            raise Refused(event.rule, _("{field} belongs to a ruling under {rules}, not {rule}").format(
                field=name, rules=_(" or ").join(rules), rule=event.rule))


def _exposed_talon(state: GameState, deal: DealState, event: Ruling) -> str:
    """The talon exposed to all during the auction [Code 3.3.16]: with one player besides
    the offender still bidding, the talon is his and the deal is played [3.3.16.2]; with
    two or more, the cards are opened and each writes on the offender what his contract
    would have given him [3.3.16.3]. Returns the default recorder."""
    rule = event.rule
    names = deal.persons
    if deal.phase != "auction":
        raise Refused(rule, _("the talon counts as exposed in the auction only while it is open; deal {deal} "
                             "waits for {what}").format(deal=deal.number, what=waiting_for(state, deal)))
    if event.offender is None:
        raise Refused(rule, _("name the offender, who exposed the talon"), '"offender": NAME')
    offender = in_deal(state, deal, event.offender)
    still = deal.still_bidding(offender)
    if not still:
        raise Refused(rule, _("nobody besides {offender} still bids: the auction is his, and so is the talon "
                               "(3.3.15)").format(offender=event.offender), waiting_for(state, deal))
    who = _(" and ").join(names[s] for s in still)
    if len(still) == 1:
        if rule == "3.3.16.2":
            return event.by or names[still[0]]
        level = deal.own_level.get(still[0])
        allowed = (_("a ruling under 3.3.16.2 (offender {offender}): {who} takes the talon and declares {level} or "
                      "higher").format(offender=event.offender, who=who, level=level) if level is not None else
                   _("a ruling under 3.3.16.2 (offender {offender}): {who} takes the talon and declares a contract, "
                     "as the third hand does (3.3.15)").format(offender=event.offender, who=who))
        raise Refused("3.3.16.2", _("only {who} besides the offender {offender} still bids: the talon goes to "
                                    "{who} and the deal is played; 3.3.16.3 is for a talon exposed while two players "
                                    "still bid").format(who=who, offender=event.offender), allowed)
    if rule == "3.3.16.2":
        raise Refused(rule, _("two players besides the offender {offender} still bid ({who}): the talon cannot "
                               "go to one of them").format(offender=event.offender, who=who),
                      _("a ruling under 3.3.16.3: each writes on {offender} what his contract would have given "
                        "him").format(offender=event.offender))
    if not event.whists:
        raise Refused(rule, _("name the whists each wronged player writes on the offender"), '"whists": {NAME: N}')
    for name, amount in event.whists.items():
        if in_deal(state, deal, name) == offender:
            raise Refused(rule, _("{player} exposed the talon and writes nothing").format(player=name))
        if amount <= 0:
            raise Refused(rule, _("{player}'s whists on the offender must be positive").format(player=name),
                          _("1 or more"))
    return event.by or next(iter(event.whists))


def _plan_ruling(state: GameState, deal: DealState | None, event: Ruling) -> AnyEvent:
    """A defender's plan of play carried out though his partner (or the four-player
    dealer) did not support it [Code 3.8.5, 3.8.5.1]: a) the compensation the dissenters
    agreed to write on him, whatever the play gives; b) the arbiter's ruling: the
    dissenters are given the other plan's result, the declarer one of the two by lot
    (footnote 58: the arbiter must be there). It comes with the deal in play or just
    played, before the next deal begins."""
    rule = event.rule
    if deal is None or deal.annulled_at is not None or deal.raspasy or deal.contract is None or (
        deal.ruling is not None or not (deal.phase == "play" or deal.tricks_event is not None)
    ):
        raise Refused(rule, _("a plan of play is disputed in a declared game being played (or just played, before "
                               "the next deal)"), waiting_for(state, deal) if deal is not None else _("a bid"))
    if deal.plan is not None:
        raise Refused(rule, _("deal {deal} has its ruling on the plan of play already (event {event})").format(
            deal=deal.number, event=deal.plan_at))
    planner, dissenters = _plan_sides(state, deal, event)
    if event.whists is not None:
        return _agreed_compensation(state, deal, event, planner, dissenters)
    return _compensating_result(state, deal, event, dissenters)


def _agreed_compensation(state: GameState, deal: DealState, event: Ruling, planner: int,
                         dissenters: tuple[int, ...]) -> AnyEvent:
    """a) The whists each dissenter writes on the planner, agreed by them all [Code 3.8.5.1 a]."""
    rule = event.rule
    names = deal.persons
    assert event.whists is not None
    if event.tricks is not None or event.compensated or event.declarer_result is not None:
        raise Refused(rule, _("agreed compensation (a) and the arbiter's compensating result (b) are two ways; "
                               "a ruling records one"), _('"whists" and "agreed_by", or "tricks", "compensated" and '
                                                         '"declarer_result"'))
    for name, amount in event.whists.items():
        if in_deal(state, deal, name) not in dissenters:
            raise Refused(rule, _("{player} is not a partner of {planner} who could dissent from his plan").format(
                player=name, planner=event.planner), ", ".join(names[s] for s in dissenters))
        if amount <= 0:
            raise Refused(rule, _("{player}'s compensation on {planner} must be positive").format(
                player=name, planner=event.planner), _("1 or more"))
    needed = [names[planner]] + list(event.whists)
    missing = [p for p in needed if p not in event.agreed_by]
    if missing:
        raise Refused(rule, _("agreed compensation needs the agreement of {needed}; {missing} did not agree").format(
            needed=", ".join(needed), missing=", ".join(missing)), ", ".join(needed))
    return filled(state, event, by=event.by or next(iter(event.whists)), deal=deal.number)


def _compensating_result(state: GameState, deal: DealState, event: Ruling, dissenters: tuple[int, ...]) -> AnyEvent:
    """b) The arbiter, at the table, gives the dissenters the other plan's result, and the
    declarer the result drawn by lot [Code 3.8.5.1 b, footnote 58]."""
    rule = event.rule
    names = deal.persons
    if event.by is None or not is_arbiter(event.by):
        raise Refused(rule, _("without agreed compensation (a) the arbiter rules (b), and he must be at the table "
                               "(footnote 58): `by` must be arbiter:NAME"),
                      _('"whists" agreed by the partners, or by arbiter:NAME'))
    if event.tricks is None or not event.compensated or event.declarer_result is None:
        raise Refused(rule, _("the arbiter's ruling gives the other plan's result (tricks), the dissenters given it "
                               "(compensated) and the declarer's result drawn by lot (declarer_result)"),
                      '"tricks": {NAME: N}, "compensated": [NAME], "declarer_result": "played"' + _(" or ") + '"other"')
    for name in event.compensated:
        if in_deal(state, deal, name) not in dissenters:
            raise Refused(rule, _("{player} is not a partner of {planner} who could dissent from his plan").format(
                player=name, planner=event.planner), ", ".join(names[s] for s in dissenters))
    if len(set(event.compensated)) != len(event.compensated):
        raise Refused(rule, _("each dissenter is named once"), ", ".join(names[s] for s in dissenters))
    check_result(state, deal, event.tricks, N_("the other plan's tricks"))
    return filled(state, event, by=event.by, deal=deal.number)


def _plan_sides(state: GameState, deal: DealState, event: Ruling) -> tuple[int, tuple[int, ...]]:
    """The defender whose plan was carried out, and those who could dissent from it: on a
    game whisted by one, the whister, and the passer or the four-player dealer [Code
    3.8.5]; on a misère, one of its catchers, and the other or the dealer [3.8.5.1 a,
    its example]."""
    rule = event.rule
    names = deal.persons
    assert deal.contract is not None and deal.declarer is not None
    if event.planner is None:
        raise Refused(rule, _("name the defender whose plan of play was carried out"), '"planner": NAME')
    planner = in_deal(state, deal, event.planner)
    if deal.contract.is_misere:
        catchers = deal.defenders
        if planner not in catchers:
            raise Refused(rule, _("{planner} did not catch the misère").format(planner=event.planner),
                          _(" or ").join(names[s] for s in catchers))
    elif deal.no_defence:
        raise Refused(rule, _("a checked 10 has no whister to plan the play"))
    else:
        whisters = deal.defence().whisters
        if len(whisters) != 1:
            raise Refused(rule, _("a plan of play is the single whister's, who plays his partner's cards too; both "
                                     "whisted and each plays his own [3.8.4]") if whisters else
                          _("a plan of play is the single whister's, who plays his partner's cards too; nobody "
                            "whisted"))
        if planner != whisters[0]:
            raise Refused(rule, _("{whister} whisted alone and decides the plan of play, not {planner}").format(
                whister=names[whisters[0]], planner=event.planner), names[whisters[0]])
    others = tuple(s for s in range(deal.n_players) if s not in (deal.declarer, planner, deal.shared_with))
    return planner, others

"""Scoring one resolved deal onto the sheet [rules.md §3-§5, Code 3.7, 3.8, 3.9, 4.1, 4.2].

Pure arithmetic from a ``DealState`` to writes on a ``Sheet``, in the sheet's exact
integer sub-units (``UNIT`` to a point or a whist). Where conventions
differ, a parameter of the rule set selects the hook (``raspasy_scoring.RASPASY_MODELS``,
``responsibility``, the split of ``single_whist_split``); nothing here asks for a
convention by name. Nothing here judges: the command side has done that already. A
raspasy is scored in ``raspasy_scoring``; the penalty tricks are counted in
``penalty_tricks``.

Beside the tricks actually taken a result may carry the Code's penalty tricks: the
offender's own result counts them, everybody else is paid on the tricks actually taken
[Code 3.4.6, 3.4.9, 3.9.11.2, 3.9.12, 3.9.18 and footnote 34]. A game on a bomb or bid
dark is worth a multiple of its price, every write of it multiplied [Code 4.1.2,
3.3.19, footnotes 29-31].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

import msgspec
from msgspec.structs import replace

from ledger.vocabulary.bids import MISERE_PRICE
from ledger.vocabulary.rules import RuleSet
from ledger.vocabulary.wording import joined, joined_by, said, said_count
from projections.deal_state import DealState, DefenceView
from projections.penalty_tricks import NO_PENALTIES, penalty_counts, penalty_rules
from projections.raspasy_scoring import score_raspasy
from projections.sheet import UNIT, ColumnName, Sheet, share

# What a deal came to (``deal_outcome``).
DealOutcome = Literal["raspasy", "unwhisted", "made", "remiz", "misere", "ruled", "open"]


if TYPE_CHECKING:  # a type for mypy alone: no class made as a command starts

    class Writer(Protocol):
        """What scoring writes through: the sheet itself, or the sheet with a multiplier."""

        @property
        def rules(self) -> RuleSet: ...

        def write(
            self, event: int, deal: int, player: str, column: ColumnName, amount: int, on: str | None = None,
            why: str = "",
        ) -> None: ...

        def write_pulya(self, event: int, deal: int, player: str, amount: int, why: str) -> None: ...

        def closed(self, player: str) -> bool: ...


class Scaled:
    """Writes on a sheet with every amount multiplied by ``factor``: a game on a bomb, or
    bid dark, is worth a multiple of its price [Code 4.1.2]."""

    def __init__(self, sheet: Sheet, factor: int, note: str = "") -> None:
        self.sheet = sheet
        self.rules: RuleSet = sheet.rules
        self.factor = factor
        self.note = note

    def _why(self, why: str) -> str:
        return joined(why, " ", self.note) if self.note else why

    def write(
        self, event: int, deal: int, player: str, column: ColumnName, amount: int, on: str | None = None,
        why: str = "",
    ) -> None:
        self.sheet.write(event, deal, player, column, amount * self.factor, on, self._why(why))

    def write_pulya(self, event: int, deal: int, player: str, amount: int, why: str) -> None:
        self.sheet.write_pulya(event, deal, player, amount * self.factor, self._why(why))

    def closed(self, player: str) -> bool:
        return self.sheet.closed(player)


ALL_TRICKS = 10  # the tricks of a deal: a misère "without all" takes them all


def score_deal(sheet: Sheet, deal: DealState) -> None:
    """Write the result of a resolved deal; a void or unresolved deal writes nothing, but
    for the dealer's second error at a deal [Code 3.2.17]."""
    if deal.annulled_at is not None:
        if deal.passes_on and sheet.rules.dealer_error_gora:
            sheet.write(deal.annulled_at, deal.number, deal.names[deal.dealer], "gora",
                        sheet.rules.dealer_error_gora * UNIT,
                        why=said("the dealer's second error at one deal: the agreed remiz [Code 3.2.17]"))
        return
    if not deal.resolved:
        return
    ruling = deal.ruling
    if ruling is not None and ruling.rule == "3.3.16.3":
        _score_exposed_talon(sheet, deal)
        return
    if deal.raspasy:
        score_raspasy(sheet, deal)
        return
    assert deal.declarer is not None
    declarer = deal.names[deal.declarer]
    bombs = sheet.bombs.get(declarer, ())
    bomb = bombs[0] if bombs else 1
    dark = 2 if deal.dark_contract else 1
    out: Writer = sheet
    if bomb > 1 or dark > 1:
        notes = ([said("x{bomb} bomb, Code 4.1.2", bomb=bomb)] if bomb > 1 else []) + (
            [said("x2 dark, Code 3.3.19")] if dark > 1 else [])
        out = Scaled(sheet, bomb * dark, joined("(", joined_by(", ", notes), ")"))
    if ruling is not None and ruling.rule == "3.4.4":
        made = _score_illegal_declaration(out, deal)
    elif deal.plan is not None and deal.other_tricks is not None and deal.tricks is not None:
        # however the plan played ended: played out, conceded [3.5.4] or agreed [3.9.22]
        made = _score_two_plans(out, deal)
    else:
        made = _score_played(out, deal)
    if made and bomb > 1:
        # A bomb is used up by a game made; a game lost keeps it [Code footnotes 29, 30].
        sheet.bombs[declarer] = bombs[1:]


def _score_played(out: Writer, deal: DealState) -> bool:
    """A declared game as played (or as a ruling gave its tricks); whether it was made."""
    if deal.contract is not None and deal.contract.is_misere:
        return _score_misere(out, deal)
    return _score_contract(out, deal)


class Only:
    """Writes on ``out`` only those of the players in ``notes``, each with its note added
    to the reason and, where ``event`` is given, credited to that event: the writes of a
    deal that the result of one plan of play decides [Code 3.8.5.1 b]."""

    def __init__(self, out: Writer, notes: dict[str, str], event: int | None = None) -> None:
        self.out = out
        self.rules: RuleSet = out.rules
        self.notes = notes
        self.event = event

    def write(
        self, event: int, deal: int, player: str, column: ColumnName, amount: int, on: str | None = None,
        why: str = "",
    ) -> None:
        note = self.notes.get(player)
        if note is not None:
            self.out.write(self.event or event, deal, player, column, amount, on, joined(why, note))

    def write_pulya(self, event: int, deal: int, player: str, amount: int, why: str) -> None:
        note = self.notes.get(player)
        if note is not None:
            self.out.write_pulya(self.event or event, deal, player, amount, joined(why, note))

    def closed(self, player: str) -> bool:
        return self.out.closed(player)


def other_plan(deal: DealState) -> DealState:
    """The deal as the other plan of play would have ended it: its tricks are the ones the
    arbiter found [Code 3.8.5.1 b]; the penalty tricks of the play are not carried over."""
    assert deal.other_tricks is not None
    return replace(deal, tricks=dict(deal.other_tricks), penalties=(), owner=None)


def drawn(deal: DealState) -> DealState:
    """The deal as it is scored for the declarer: with the result the lot gave him when an
    arbiter ruled on a disputed plan of play [Code 3.8.5.1 b]."""
    plan = deal.plan
    if plan is not None and plan.declarer_result == "other" and deal.other_tricks is not None:
        return other_plan(deal)
    return deal


def _score_two_plans(out: Writer, deal: DealState) -> bool:
    """The whister's plan was carried out, a partner (or the dealer) disagreeing, and the
    arbiter ruled [Code 3.8.5.1 b, footnote 58]: each dissenter is given the result the
    other plan would have had, the declarer the result drawn by lot, everybody else the
    result played. A dealer who shares the declarer's misère shares the result drawn: one
    game, its win or loss written in halves [Code 3.6.9]. Returns whether the declarer's
    result, as drawn, was made."""
    assert deal.declarer is not None and deal.plan is not None
    names = deal.names
    declaring = {deal.declarer} | ({deal.shared_with} if deal.shared_with is not None else set())
    other_wins = deal.plan.declarer_result == "other"
    others = {names[s] for s in deal.compensated}
    played_notes = {names[s]: "" for s in range(deal.n_players) if s not in declaring and names[s] not in others}
    other_notes = {p: said(", the result of the other plan [Code 3.8.5.1 b]") for p in others}
    drawn_note = (said(", the other plan's result drawn by lot [Code 3.8.5.1 b]") if other_wins
                  else said(", the plan played's result drawn by lot [Code 3.8.5.1 b]"))
    lot = {names[s]: drawn_note for s in declaring}
    (other_notes if other_wins else played_notes).update(lot)
    made_played = _score_played(Only(out, played_notes), deal)
    made_other = _score_played(Only(out, other_notes, deal.plan_at), other_plan(deal))
    return made_other if other_wins else made_played


def score_compensation(sheet: Sheet, deal: DealState) -> None:
    """The compensation each dissenter agreed to write on the defender whose plan of play
    was carried out, whatever the play gave [Code 3.8.5.1 a]: a record of its own, written
    at the ruling's event, whether or not the deal's result is ever recorded."""
    if not deal.plan_whists:
        return
    assert deal.planner is not None and deal.plan_at is not None
    planner = deal.names[deal.planner]
    for seat, amount in deal.plan_whists:
        sheet.write(deal.plan_at, deal.number, deal.names[seat], "whists", amount * UNIT, on=planner,
                    why=said("compensation agreed for {planner}'s plan of play [Code 3.8.5.1 a]", planner=planner))


def consolation_per_undertrick(rules: RuleSet, price: int) -> int:
    """Whists (in sub-units) each other player writes on a failed declarer per undertrick
    [Code 3.8.1.2]."""
    if rules.consolation == "price":
        return price * rules.gora_whist_multiplier * UNIT
    return rules.consolation * UNIT


def responsibility(rules: RuleSet, closed: bool) -> int:
    """Halves of the price a defender writes to gora per trick the defence lacks
    (2: the whole price, 1: half of it) [Code 3.8.11-3.8.12]."""
    if rules.defence_responsibility == "full":
        return 2
    if rules.defence_responsibility == "half":
        return 1
    return 2 if closed else 1


def _ruled(deal: DealState) -> str:
    r = deal.ruling
    if r is None:
        return ""
    if r.rule == "3.9.22":
        return said(" [Code {rule}, agreed]", rule=r.rule)
    if r.rule == "3.5.4":
        return said(" [Code {rule}, conceded]", rule=r.rule)
    return said(" [Code {rule}, ruled]", rule=r.rule)


def _score_exposed_talon(sheet: Sheet, deal: DealState) -> None:
    """The talon exposed while two still bid: each wronged player writes on the offender
    the whists the ruling found [Code 3.3.16.3]."""
    assert deal.offender is not None and deal.ruling_at is not None
    offender = deal.names[deal.offender]
    for seat, amount in deal.ruled_whists:
        sheet.write(deal.ruling_at, deal.number, deal.names[seat], "whists", amount * UNIT, on=offender,
                    why=said("the talon exposed by {offender}: a possible result{ruled}", offender=offender,
                             ruled=_ruled(deal)))


def _score_illegal_declaration(out: Writer, deal: DealState) -> bool:
    """A declaration against the rules that its maker will not change: a remiz without all
    at the level he reached in the auction [Code 3.4.4]; every other player writes his
    consolation for each trick as on any remiz [Code 3.8.1.2]. At a misère (he bid it and
    will not declare it) without all is every trick taken: ten."""
    assert deal.declarer is not None and deal.ruling_at is not None
    level = deal.own_level[deal.declarer]
    names, rules = deal.names, out.rules
    declarer = names[deal.declarer]
    ev, k = deal.ruling_at, deal.number
    if level.is_misere:
        # Without all on a misère: all ten tricks taken (the Code counts a misère's remiz
        # by the tricks taken, "без одной" for one [3.8.5.1 a]); a misère writes no
        # consolation [rules.md §4.5].
        out.write(ev, k, declarer, "gora", MISERE_PRICE * rules.gora_whist_multiplier * ALL_TRICKS * UNIT,
                  why=said("misère without all: {n} tricks{ruled}", n=ALL_TRICKS, ruled=_ruled(deal)))
        return False
    need = level.needed
    out.write(ev, k, declarer, "gora", level.price * rules.gora_whist_multiplier * UNIT * need,
              why=said("{contract} without all{ruled}", contract=str(level), ruled=_ruled(deal)))
    cons = consolation_per_undertrick(rules, level.price) * need
    for s in range(deal.n_players):
        if s == deal.declarer or (s == deal.sitting_out and not rules.dealer_consolation):
            continue
        out.write(ev, k, names[s], "whists", cons, on=declarer, why=said("consolation, {contract} without all", contract=str(level)))
    return False


def _score_misere(out: Writer, deal: DealState) -> bool:
    """Made: 10 in pulya; failed: 10 x multiplier per trick to gora [rules.md §4.5]. The
    offender's penalty tricks are added to those he took [Code 3.9.11.2]. A misère shared
    with the dealer is written in halves [Code 3.6.9]."""
    assert deal.declarer is not None and deal.tricks is not None and deal.resolved_at is not None
    lost, remiz = penalty_counts(deal)
    taken = deal.tricks.get(deal.declarer, 0)
    counted = taken + lost.get(deal.declarer, 0) + remiz.get(deal.declarer, 0)
    writers = [deal.declarer] + ([deal.shared_with] if deal.shared_with is not None else [])
    parts = len(writers)
    extra = (said(", {n} penalty{rules}", n=counted - taken, rules=penalty_rules(deal, deal.declarer))
             if counted != taken else "")
    halves = said(" (shared in halves with the dealer, 3.6.9)") if parts > 1 else ""
    for s in writers:
        name = deal.names[s]
        if counted == 0:
            out.write_pulya(deal.resolved_at, deal.number, name, share(MISERE_PRICE * UNIT, parts),
                            said("misère made{halves}{ruled}", halves=halves, ruled=_ruled(deal)))
        else:
            amount = MISERE_PRICE * out.rules.gora_whist_multiplier * counted * UNIT
            out.write(deal.resolved_at, deal.number, name, "gora", share(amount, parts),
                      why=said("misère, {taken} taken{extra}{halves}{ruled}", taken=taken, extra=extra, halves=halves,
                               ruled=_ruled(deal)))
    return counted == 0


def _score_contract(out: Writer, deal: DealState) -> bool:
    """A suit contract, played or not; returns whether the declarer made it as scored."""
    rules = out.rules
    assert deal.declarer is not None and deal.contract is not None and deal.resolved_at is not None
    ev, k = deal.resolved_at, deal.number
    names = deal.names
    c = deal.contract
    p, need, obligation = c.price, c.needed, c.obligation
    pm = p * rules.gora_whist_multiplier * UNIT  # one trick's whists or gora, in sub-units
    pulya = p * UNIT
    declarer = names[deal.declarer]
    label = str(c)
    tag = _ruled(deal)

    if not deal.no_defence and deal.defence().settled:
        # Both passed, or a half-whist stands [Code 4.2.3.2, 3.8.7, 3.8.14].
        view = deal.defence()
        out.write_pulya(ev, k, declarer, pulya, said("{contract} unplayed", contract=label))
        if view.half_whister is not None:
            out.write(ev, k, names[view.half_whister], "whists", share(obligation * pm, 2),
                      on=declarer, why=said("half-whist on {contract}", contract=label))
        return True

    assert deal.tricks is not None
    tricks = deal.tricks
    lost, remiz = penalty_counts(deal)
    taken = tricks.get(deal.declarer, 0)
    # The declarer's result counts his penalty tricks [Code 3.4.6, 3.4.9, 3.9.18]...
    under_scored = max(0, need - (taken - lost.get(deal.declarer, 0))) + remiz.get(deal.declarer, 0)
    penal = ""
    if deal.declarer in lost or deal.declarer in remiz:
        penal = said(", penalty tricks {n}{rules}", n=lost.get(deal.declarer, 0) + remiz.get(deal.declarer, 0),
                     rules=penalty_rules(deal, deal.declarer))
    # Responsibility is judged on the sheet before this deal writes anything.
    closed = {s: out.closed(names[s]) for s in deal.playing} if rules.defence_responsibility == "half_until_closed" else {}
    if under_scored == 0:
        out.write_pulya(ev, k, declarer, pulya, said("{contract} made{penal}{ruled}", contract=label, penal=penal,
                                                     ruled=tag))
    else:
        out.write(ev, k, declarer, "gora", pm * under_scored,
                  why=said("{contract} down {n}{penal}{ruled}", contract=label, n=under_scored, penal=penal, ruled=tag))

    # ...and everybody else is paid on the tricks actually taken: a defender's penalty
    # tricks count in his own writes only, never in his partner's or the declarer's
    # [Code 3.9.12, 3.9.18 example 1, footnote 34].
    writes = _defence_writes(deal, rules, pm, closed, NO_PENALTIES, NO_PENALTIES)
    for s in sorted(set(lost) | set(remiz)) if deal.penalties else ():
        if s == deal.declarer:
            continue
        own = _defence_writes(deal, rules, pm, closed, {s: lost.get(s, 0)}, {s: remiz.get(s, 0)})
        writes = [w for w in writes if w[0] != s] + [
            (seat, column, amount, joined(why, said(" (own penalty tricks{rules})", rules=penalty_rules(deal, s))))
            for seat, column, amount, why in own if seat == s
        ]
    for seat, column, amount, why in writes:
        out.write(ev, k, names[seat], column, amount, on=declarer if column == "whists" else None,
                  why=joined(why, tag))
    return under_scored == 0


DefenceWrite = tuple[int, ColumnName, int, str]  # seat, column, sub-units, why


def _defence_writes(
    deal: DealState, rules: RuleSet, pm: int, closed: dict[int, bool], lost: dict[int, int], remiz: dict[int, int]
) -> list[DefenceWrite]:
    """What the defence writes on a played contract, the declarer's actual tricks deciding
    made or remiz, with the defenders' penalty tricks ``lost`` and ``remiz`` counted
    [rules.md §4; Code 3.8.1-3.8.14, 3.9.11.2, 3.9.18]: the whisters' tricks and
    consolations, the consolations of those who do not whist, and the defence's
    shortfall, in that order."""
    assert deal.declarer is not None and deal.contract is not None and deal.tricks is not None
    c = deal.contract
    tricks = deal.tricks
    under = max(0, c.needed - tricks.get(deal.declarer, 0))
    # A defender's tricks as the defence counts them: less those he lost [3.9.11.2].
    counted = {s: tricks.get(s, 0) - lost.get(s, 0) for s in tricks.keys() | lost.keys()} if lost else tricks
    d = _Defended(deal, rules, pm, str(c), tricks, counted, under, consolation_per_undertrick(rules, c.price) * under)
    if deal.no_defence:  # a checked 10 (seed 002): no calls, no obligation
        return _checked_ten(d)
    view = deal.defence()
    defence_tricks = 0
    for s in view.whisters + deal.passers:
        defence_tricks += counted.get(s, 0)
    return _whisting(d, view, defence_tricks) + _consolations(d, view) + _shortfall(d, view, closed, remiz,
                                                                                      defence_tricks)


class _Defended(msgspec.Struct, frozen=True):
    """A played contract as the defence's writes see it."""

    deal: DealState
    rules: RuleSet
    pm: int  # one trick's whists, in sub-units
    label: str  # the contract as written
    tricks: dict[int, int]  # as taken
    counted: dict[int, int]  # as the defence counts them: less each one's lost tricks
    under: int  # the declarer's undertricks
    cons: int  # the consolation on them, of each defender who writes one


def _checked_ten(d: _Defended) -> list[DefenceWrite]:
    """A checked 10: no calls, no obligation; each defender writes half a whister's."""
    out: list[DefenceWrite] = []
    for s in d.deal.defenders:
        out.append((s, "whists", share(max(0, d.counted.get(s, 0)) * d.pm + d.cons, 2),
                    said("checked {contract}: half a whister's", contract=d.label)))
    so = d.deal.sitting_out
    if so is not None and d.under and d.rules.dealer_consolation:
        out.append((so, "whists", d.cons, said("consolation")))
    return out


def _whisting(d: _Defended, view: DefenceView, defence_tricks: int) -> list[DefenceWrite]:
    """The whisters' tricks and consolations: each his own when both whist [Code 3.8.1],
    the defence's all when one whists alone [3.8.13-3.8.14]."""
    out: list[DefenceWrite] = []
    whisters = view.whisters
    if len(whisters) == 2:
        for s in whisters:
            out.append((s, "whists", max(0, d.counted.get(s, 0)) * d.pm,
                        said("{tricks} on {contract}", tricks=said_count(d.tricks.get(s, 0), "trick"),
                             contract=d.label)))
            if d.under:
                out.append((s, "whists", d.cons, said("consolation")))
    elif len(whisters) == 1:
        out += _whisting_alone(d, view, defence_tricks)
    return out


def _whisting_alone(d: _Defended, view: DefenceView, defence_tricks: int) -> list[DefenceWrite]:
    """One whister: on a made contract he writes the defence's tricks; on a remiz the
    greedy whist gives him all tricks and the passer only his consolation (and so after a
    return, while under the gentleman's whist the half-whister writes nothing), and the
    gentleman's whist splits everything both would write equally [Code 3.8.8.2,
    3.8.13-3.8.14]."""
    w = view.whisters[0]
    passers = d.deal.passers
    passer = passers[0] if passers else None
    gentleman = d.rules.single_whist_split == "gentleman"
    all_tricks = max(0, defence_tricks) * d.pm
    label = d.label
    if d.under == 0:
        return [(w, "whists", all_tricks, said("{tricks} on {contract}, whisting alone",
                                               tricks=said_count(defence_tricks, "trick"), contract=label))]
    if view.returned or not gentleman or passer is None:
        out: list[DefenceWrite] = [(w, "whists", all_tricks + d.cons,
                                    said("{tricks} and consolation on {contract}",
                                         tricks=said_count(defence_tricks, "trick"), contract=label))]
        if passer is not None and not (gentleman and passer == view.half_whister):
            out.append((passer, "whists", d.cons, said("consolation")))
        return out
    half = share(all_tricks + 2 * d.cons, 2)
    return [(w, "whists", half, said("half of tricks and consolations on {contract} (gentleman's)", contract=label)),
            (passer, "whists", half, said("half of tricks and consolations on {contract} (gentleman's)",
                                          contract=label))]


def _consolations(d: _Defended, view: DefenceView) -> list[DefenceWrite]:
    """The sitting-out dealer's consolation, unless he whists [Code 3.8.1.2]; that of the
    defender whose cards the dealer played, like every other player's [Code 3.8.1.2,
    footnote 36; 3.8.8] (as a half-whister under the gentleman's whist he writes nothing,
    like any half-whister there [Code 3.8.14])."""
    out: list[DefenceWrite] = []
    rules = d.rules
    so = d.deal.sitting_out
    if so is not None and so not in view.whisters and d.under and rules.dealer_consolation:
        out.append((so, "whists", d.cons, said("consolation")))
    hand = d.deal.dealer_hand
    if hand is not None and d.under and rules.hand_consolation and not (
        rules.single_whist_split == "gentleman" and hand == view.half_whister
    ):
        out.append((hand, "whists", d.cons, said("consolation (his cards played by the dealer, Code 3.8.8)")))
    return out


def _shortfall(d: _Defended, view: DefenceView, closed: dict[int, bool], remiz: dict[int, int],
               defence_tricks: int) -> list[DefenceWrite]:
    """The defence's shortfall on its obligation [Code 3.8.6, 3.8.11-3.8.12], and the
    remiz on the whist of penalty tricks [Code 3.9.18], in gora."""
    assert d.deal.contract is not None
    c = d.deal.contract
    whisters = view.whisters
    obligation = c.obligation
    lack = obligation - defence_tricks
    shortfall: dict[int, int] = {}
    if lack > 0 and whisters:
        if len(whisters) == 1:
            shortfall[whisters[0]] = lack
        elif c.level in (6, 7):
            each = obligation // 2  # each answers for half the obligation [Code 3.8.6]
            for s in whisters:
                shortfall[s] = min(max(0, each - d.counted.get(s, 0)), lack)
        else:
            shortfall[whisters[1]] = lack
    for s in whisters + d.deal.passers if remiz else ():
        if remiz.get(s):
            shortfall[s] = shortfall.get(s, 0) + remiz[s]
    out: list[DefenceWrite] = []
    for s, missing in shortfall.items():
        if missing:
            halves = responsibility(d.rules, closed.get(s, False))
            extra = said(" ({n} of them penalty)", n=remiz[s]) if remiz.get(s) else ""
            out.append((s, "gora", share(halves * d.pm * missing, 2),
                        said("defence short {n} on {contract}{extra}", n=missing, contract=d.label, extra=extra)))
    return out


def deal_outcome(deal: DealState) -> DealOutcome:
    """What a deal came to, for the rules that end a run of raspasy [Code 3.7.4, 3.7.8]:
    a raspasy, an unwhisted contract, a contract made or failed (as the declarer's
    result is scored), a misère, a ruling without a contract result, or no result yet."""
    if deal.raspasy:
        return "raspasy"
    if not deal.resolved or deal.declarer is None:
        return "ruled" if deal.ruling is not None else "open"
    ruling = deal.ruling
    if ruling is not None and ruling.rule == "3.3.16.3":
        return "ruled"
    if ruling is not None and ruling.rule == "3.4.4":
        return "remiz"
    deal = drawn(deal)
    assert deal.declarer is not None
    c = deal.contract
    if c is None:
        return "open"
    if c.is_misere:
        return "misere"
    if not deal.no_defence and deal.defence().settled:
        return "made" if deal.defence().half_whister is not None else "unwhisted"
    assert deal.tricks is not None
    lost, remiz = penalty_counts(deal)
    taken = deal.tricks.get(deal.declarer, 0) - lost.get(deal.declarer, 0)
    under = max(0, c.needed - taken) + remiz.get(deal.declarer, 0)
    return "made" if under == 0 else "remiz"

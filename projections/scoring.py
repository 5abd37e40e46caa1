"""Scoring one resolved deal onto the sheet [rules.md §3-§5, Code 3.7, 3.8, 4.2].

Pure arithmetic from a ``DealState`` to writes on a ``Sheet``, in the sheet's exact
integer sub-units (``UNIT`` to a point or a whist). Where conventions
differ, a parameter of the rule set selects the hook (``RASPASY_MODELS``,
``responsibility``, the split of ``single_whist_split``); nothing here asks for a
convention by name. Nothing here judges: the command side has done that already.
"""

from __future__ import annotations

from collections.abc import Callable

from ledger.vocabulary.bids import MISERE_PRICE
from ledger.vocabulary.rules import RuleSet
from projections.deal import DealState
from projections.sheet import UNIT, Sheet, share


def score_deal(sheet: Sheet, deal: DealState) -> None:
    """Write the result of a resolved deal; a void or unresolved deal writes nothing."""
    if deal.annulled_at is not None or not deal.resolved:
        return
    if deal.raspasy:
        RASPASY_MODELS[sheet.rules.raspasy_model](sheet, deal)
    elif deal.contract is not None and deal.contract.is_misere:
        _score_misere(sheet, deal)
    else:
        _score_contract(sheet, deal)


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


def _score_misere(sheet: Sheet, deal: DealState) -> None:
    assert deal.declarer is not None and deal.tricks is not None and deal.resolved_at is not None
    name = sheet.players[deal.declarer]
    taken = deal.tricks.get(deal.declarer, 0)
    if taken == 0:
        sheet.write_pulya(deal.resolved_at, deal.number, name, MISERE_PRICE * UNIT, "misère made")
    else:
        amount = MISERE_PRICE * sheet.rules.gora_whist_multiplier * taken * UNIT
        sheet.write(deal.resolved_at, deal.number, name, "gora", amount, why=f"misère, {taken} taken")


def _score_contract(sheet: Sheet, deal: DealState) -> None:
    rules = sheet.rules
    assert deal.declarer is not None and deal.contract is not None and deal.resolved_at is not None
    ev, k = deal.resolved_at, deal.number
    names = sheet.players
    c = deal.contract
    p, need, obligation = c.price, c.needed, c.obligation
    pm = p * rules.gora_whist_multiplier * UNIT  # one trick's whists or gora, in sub-units
    pulya = p * UNIT
    declarer = names[deal.declarer]
    label = str(c)
    d1, d2 = deal.defenders
    sitting_out = [s for s in range(len(names)) if s not in deal.bidders]

    if deal.no_defence:  # a checked 10 (seed 002): no calls, no obligation
        assert deal.tricks is not None
        taken = deal.tricks.get(deal.declarer, 0)
        if taken >= need:
            sheet.write_pulya(ev, k, declarer, pulya, f"{label} made")
            return
        under = need - taken
        sheet.write(ev, k, declarer, "gora", pm * under, why=f"{label} down {under}")
        cons = consolation_per_undertrick(rules, p) * under
        for d in (d1, d2):
            half = share(deal.tricks.get(d, 0) * pm + cons, 2)
            sheet.write(ev, k, names[d], "whists", half, on=declarer, why=f"checked {label}: half a whister's")
        for s in sitting_out:
            sheet.write(ev, k, names[s], "whists", cons, on=declarer, why="consolation")
        return

    view = deal.defence()
    if view.settled:  # both passed, or a half-whist stands [Code 4.2.3.2, 3.8.14]
        sheet.write_pulya(ev, k, declarer, pulya, f"{label} unplayed")
        if view.half_whister is not None:
            sheet.write(
                ev, k, names[view.half_whister], "whists", share(obligation * pm, 2),
                on=declarer, why=f"half-whist on {label}",
            )
        return

    assert deal.tricks is not None
    tricks = deal.tricks
    taken = tricks.get(deal.declarer, 0)
    defence_tricks = tricks.get(d1, 0) + tricks.get(d2, 0)
    made = taken >= need
    under = 0 if made else need - taken
    # Responsibility is judged on the sheet before this deal writes anything.
    closed = {s: sheet.closed(names[s]) for s in (d1, d2)}

    if made:
        sheet.write_pulya(ev, k, declarer, pulya, f"{label} made")
    else:
        sheet.write(ev, k, declarer, "gora", pm * under, why=f"{label} down {under}")
    cons = consolation_per_undertrick(rules, p) * under

    def whists(seat: int, amount: int, why: str) -> None:
        sheet.write(ev, k, names[seat], "whists", amount, on=declarer, why=why)

    whisters = view.whisters
    if len(whisters) == 2:
        for s in whisters:
            whists(s, tricks.get(s, 0) * pm, f"{tricks.get(s, 0)} tricks on {label}")
            if under:
                whists(s, cons, "consolation")
    elif len(whisters) == 1:
        w = whisters[0]
        passer = d2 if w == d1 else d1
        all_tricks = defence_tricks * pm
        if made:
            whists(w, all_tricks, f"{defence_tricks} tricks on {label}, whisting alone")
        elif view.returned or rules.single_whist_split == "greedy":
            # Greedy whist: the whister writes all tricks, the passer only his consolation;
            # after a return under the gentleman's whist the half-whister writes nothing
            # [Code 3.8.13-3.8.14].
            whists(w, all_tricks + cons, f"{defence_tricks} tricks and consolation on {label}")
            if not (view.returned and rules.single_whist_split == "gentleman"):
                whists(passer, cons, "consolation")
        else:
            # Gentleman's whist: everything both would write is split equally.
            half = share(all_tricks + 2 * cons, 2)
            whists(w, half, f"half of tricks and consolations on {label} (gentleman's)")
            whists(passer, half, f"half of tricks and consolations on {label} (gentleman's)")
    for s in sitting_out:
        if under:
            whists(s, cons, "consolation")

    # Defence shortfall [Code 3.8.6, 3.8.11-3.8.12].
    lack = obligation - defence_tricks
    if lack <= 0 or not whisters:
        return
    shortfall: dict[int, int] = {}
    if len(whisters) == 1:
        shortfall[whisters[0]] = lack
    elif c.level in (6, 7):
        each = obligation // 2  # each answers for half the obligation [Code 3.8.6]
        for s in whisters:
            shortfall[s] = min(max(0, each - tricks.get(s, 0)), lack)
    else:
        shortfall[whisters[1]] = lack
    for s, missing in shortfall.items():
        if missing:
            halves = responsibility(rules, closed[s])
            sheet.write(
                ev, k, names[s], "gora", share(halves * pm * missing, 2),
                why=f"defence short {missing} on {label}",
            )


def _raspasy_multiplier(rules: RuleSet, deal: DealState) -> int:
    progression = rules.raspasy_progression
    return progression[min(deal.raspasy_before, len(progression) - 1)]


def _raspasy_counts(rules: RuleSet, deal: DealState) -> dict[int, int]:
    """Tricks of every seat that played, the 4-player dealer's talon tricks included."""
    assert deal.tricks is not None
    counts = {s: deal.tricks.get(s, 0) for s in deal.active}
    if len(deal.active) < deal.n_players and rules.raspasy_talon:
        counts[deal.dealer] = deal.tricks.get(deal.dealer, 0)
    return counts


def _raspasy_pulya(sheet: Sheet, deal: DealState, k: int) -> None:
    """Zero-trick pulya, in seat order from the forehand, and the sitting-out dealer's."""
    rules = sheet.rules
    assert deal.tricks is not None and deal.resolved_at is not None
    zero = rules.raspasy_zero_pulya
    points = (k * rules.gora_whist_multiplier if zero == "price" else zero) * UNIT
    if points:
        for s in deal.active:
            if deal.tricks.get(s, 0) == 0:
                sheet.write_pulya(deal.resolved_at, deal.number, sheet.players[s], points, "no trick on raspasy")
    if rules.raspasy_dealer_pulya and len(deal.active) < deal.n_players:
        sheet.write_pulya(
            deal.resolved_at, deal.number, sheet.players[deal.dealer],
            rules.raspasy_dealer_pulya * UNIT, "dealer on raspasy",
        )


def _score_raspasy_gora(sheet: Sheet, deal: DealState) -> None:
    """Tricks to gora at k x multiplier each, after the amnesty [Code 3.7.2.1, 3.7.3]."""
    rules = sheet.rules
    assert deal.resolved_at is not None
    k = _raspasy_multiplier(rules, deal)
    counts = _raspasy_counts(rules, deal)
    amnesty = min(counts.values()) if rules.raspasy_amnesty else 0
    for s, t in counts.items():
        written = t - amnesty
        sheet.write(
            deal.resolved_at, deal.number, sheet.players[s], "gora",
            written * k * rules.gora_whist_multiplier * UNIT,
            why=f"raspasy x{k}: {t} tricks" + (f", amnesty {amnesty}" if amnesty else ""),
        )
    _raspasy_pulya(sheet, deal, k)


def _score_raspasy_whists(sheet: Sheet, deal: DealState) -> None:
    """Rostov: the player with the fewest tricks writes whists on the others for each
    trick they took; two tied for fewest write on the third half each [Code 3.7.2.2]."""
    rules = sheet.rules
    assert deal.resolved_at is not None
    k = _raspasy_multiplier(rules, deal)
    counts = _raspasy_counts(rules, deal)
    fewest = min(counts.values())
    low = [s for s, t in counts.items() if t == fewest]
    price = rules.raspasy_whist_price * k * rules.gora_whist_multiplier * UNIT
    for s in low:
        for other, t in counts.items():
            if other in low:
                continue
            sheet.write(
                deal.resolved_at, deal.number, sheet.players[s], "whists", share(t * price, len(low)),
                on=sheet.players[other], why=f"raspasy: fewest tricks, {t} taken by {sheet.players[other]}",
            )
    _raspasy_pulya(sheet, deal, k)


RASPASY_MODELS: dict[str, Callable[[Sheet, DealState], None]] = {
    "gora": _score_raspasy_gora,
    "whists": _score_raspasy_whists,
}

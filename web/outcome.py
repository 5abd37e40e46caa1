"""A deal's outcome as a phone enters it — the contract, the declarer, the defence's calls
and the tricks, each named by player — as the desk's deal line (``ledger.words.deal_line``).

This is the one place that turns the structured outcome into a desk call. Without the
auction it is the desk's outcome form, ``Vera 7H whist pass Vera=7 Anna=2 Boris=1``: the
desk itself makes the auction it stands for (the declarer bids, the others pass; one
step at a time where ``jump_bids`` is off [Code 3.3.8, 3.4.3]) and marks those bids
``implied`` in the log, so that an arbiter can tell them from an auction spoken. The
tricks go by name, as the phone took them: no order to read them in, none to slip.
A name the line cannot carry as one word (a space, ``=``, or a word of the table such as
``w``) leaves the outcome form for the whole deal, which names nobody: the declarer's
contract at his turn and a pass from everyone else, the tricks from the forehand. A
table that wants the auction it spoke recorded sends its bids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from ledger.words.deal_line import is_table_word
from ledger.vocabulary.refusal import Refused
from projections.game import GameState


class DealOutcome(msgspec.Struct, forbid_unknown_fields=True):
    """A deal as the table tells it: ``contract`` (``6S``, ``misere``; None or
    ``raspasy`` when all passed), ``declarer``, the ``defence`` calls by name (``whist``,
    ``pass``, ``half_whist``, ``whist:open``) or, for a defence of several rounds, a list
    in the order spoken, the ``tricks`` by name, and the ``bids`` in turn order when the
    whole auction is given."""

    tricks: dict[str, int] = {}
    contract: str | None = None
    declarer: str | None = None
    defence: dict[str, str] | list[str] = {}
    bids: list[str] | None = None


def outcome_line(state: GameState, outcome: DealOutcome) -> str:
    """The deal line of ``outcome`` on the game as it stands (its next deal's seats)."""
    deal = state.in_auction or state.next_deal()
    order = [deal.persons[s] for s in deal.bidders]  # the players in the deal, forehand first
    raspasy = outcome.contract is None or outcome.contract.strip().lower() in ("raspasy", "распасы", "pass")
    if outcome.bids is None and not raspasy and all(_one_word(p) for p in deal.persons):
        return _outcome_form(order, outcome)
    if outcome.bids is not None:
        bids = list(outcome.bids)
    elif raspasy:
        bids = ["pass"] * len(order)
    else:
        declarer = _named(order, outcome.declarer, "declarer")
        bids = [outcome.contract if name == declarer else "pass" for name in order]  # type: ignore[misc]
    sections = [" ".join(bids)]
    if not raspasy:
        sections.append(str(outcome.contract))
        calls = _calls(order, outcome)
        if calls:  # a misère has none [Code 3.6]
            sections.append(" ".join(calls))
    everyone = order + ([deal.persons[deal.dealer]] if len(deal.persons) > len(order) else [])
    named = {_named(everyone, name, "tricks"): count for name, count in outcome.tricks.items()}
    if named:
        sections.append(" ".join(str(named[name]) for name in everyone if name in named))
    return " | ".join(sections)


def _outcome_form(order: Sequence[str], outcome: DealOutcome) -> str:
    """DECLARER CONTRACT CALLS… NAME=N…: the auction left to the desk, which marks it
    ``implied``; the tricks by name."""
    declarer = _named(order, outcome.declarer, "declarer")
    tricks = {_named(order, name, "tricks"): count for name, count in outcome.tricks.items()}
    first = [declarer, *[p for p in order if p != declarer]]
    return " ".join([declarer, str(outcome.contract), *_calls(order, outcome),
                     *(f"{p}={tricks[p]}" for p in first if p in tricks)])


def _one_word(name: str) -> bool:
    """A name a deal line reads as that player, and only as him: one word, no ``=`` (a
    count by name), no ``:``, ``@`` or ``|``, and no word of the table."""
    return name.split() == [name] and not any(c in name for c in "=:@|") and not is_table_word(name)


def _calls(order: Sequence[str], outcome: DealOutcome) -> list[str]:
    """The defence's calls in their order: from the declarer's left [Code 3.8.1]."""
    if isinstance(outcome.defence, list):
        return list(outcome.defence)
    calls: Mapping[str, str] = {_named(order, name, "defence"): call for name, call in outcome.defence.items()}
    if not calls:
        return []
    declarer = _named(order, outcome.declarer, "declarer")
    start = order.index(declarer)
    return [calls[name] for name in [*order[start + 1:], *order[:start]] if name in calls]


def _named(players: Sequence[str], name: str | None, field: str) -> str:
    """A player of the deal named in any case, or a refusal naming the field."""
    for player in players:
        if name is not None and player.casefold() == name.strip().casefold():
            return player
    raise Refused("3.2.8", f"{name!r} is not one of the players in the deal", ", ".join(players), field=field)

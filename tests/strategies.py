"""Hypothesis strategies that generate legal pulka logs by playing them.

``legal_logs`` walks a game with the real command side: at every step it looks at
the current ``GameState``, draws one of the events the rules allow next (a bid, a
contract, a defence call, the tricks, an entry, an annulment, the abandonment), has
``ledger.command.judge.decide`` judge it and folds the judged event in with
``GameState.apply``. The log is therefore legal by construction, and when ``decide``
refuses an event the generator believed legal, the ``Refused`` propagates: the
generator and the command side disagree about the rules, which is a bug in one of
them (hypothesis shrinks it to a minimal game).

The generator reads only the facts of the projection (whose turn, the highest bid,
the defence automaton's expected call); what is legal is derived here from
rules.md, independently of the checks in ``ledger.command.judge``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import msgspec
from hypothesis import strategies as st

from ledger.vocabulary.bids import BY_RANK, LADDER, MISERE, Level
from ledger.command.judge import Refused, decide, start
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
)
from ledger.vocabulary.rules import PRESETS
from projections.deal import DealState
from projections.game import GameState

NAMES = ("Anna", "Boris", "Vera", "Gleb")
CONVENTIONS = tuple(PRESETS)  # sochi, leningrad, rostov, classic
ARBITER = "arbiter:Oleg"
START_TIME = datetime(2026, 11, 30, 19, 0, tzinfo=timezone.utc)
MISERE_RANK = LADDER[MISERE].rank

Draw = Any  # hypothesis' draw function inside a composite strategy


class Walk:
    """A game being played: the judged events so far and the state they fold into."""

    def __init__(self, draw: Draw, started: GameStarted) -> None:
        self.draw = draw
        self.seconds = 0
        started = self.stamp(start(started))
        assert isinstance(started, GameStarted)
        self.state = GameState.start(started)
        self.events: list[AnyEvent] = [started]
        # How readily players pass, per game: some games are mostly raspasy.
        self.passiness = draw(st.integers(20, 75))

    def stamp(self, event: AnyEvent) -> AnyEvent:
        """Give the event a time, never earlier than the previous one (ties allowed)."""
        self.seconds += self.draw(st.integers(0, 120))
        at = (START_TIME + timedelta(seconds=self.seconds)).isoformat()
        return msgspec.structs.replace(event, at=at)

    def record(self, event: AnyEvent) -> AnyEvent:
        """Judge the event on the real command side and fold it in; Refused propagates."""
        judged = decide(self.state, self.stamp(event))
        self.state.apply(judged)
        self.events.append(judged)
        return judged

    def chance(self, percent: int) -> bool:
        """True with about that probability; shrinks towards False."""
        return bool(self.draw(st.integers(0, 99)) >= 100 - percent)

    def player(self) -> str:
        return self.draw(st.sampled_from(self.state.players))


# -- what is legal next, from rules.md ------------------------------------------------------


def bid_levels(deal: DealState) -> list[Level]:
    """Suit bids the player whose turn it is may make: above the highest, at least the
    deal's minimum; one step only when ``jump_bids`` is off (rules.md §2)."""
    floor = deal.highest.rank if deal.highest is not None else -1
    levels = [lv for lv in BY_RANK if not lv.is_misere and lv.rank > floor and lv.level >= deal.min_level]
    if not deal.rules.jump_bids:
        levels = levels[:1]
    return levels


def may_bid_misere(deal: DealState, seat: int) -> bool:
    """Misère only as a player's first bid while the highest bid is below it [Code 3.3.9]."""
    return seat not in deal.spoken and (deal.highest is None or deal.highest.rank < MISERE_RANK)


def may_say_here(deal: DealState, seat: int) -> bool:
    """The forehand holds another player's bid; never a misère [Code 3.3.8, 3.6.4]."""
    return (
        seat == deal.bidders[0]
        and deal.highest is not None
        and deal.highest_by != seat
        and not deal.highest.is_misere
        and deal.misere_bidder != seat
    )


def contract_levels(deal: DealState, seat: int) -> list[Level]:
    """What the declarer may declare: a misère iff he bid one, else at least his bid
    (at least the deal's minimum after taking the talon without bidding) [Code 3.4]."""
    own = deal.own_level.get(seat)
    if own is not None and own.is_misere:
        return [LADDER[MISERE]]
    floor = own.rank if own is not None else -1
    return [lv for lv in BY_RANK if not lv.is_misere and lv.rank >= floor and lv.level >= deal.min_level]


def may_change_contract(deal: DealState) -> bool:
    """The declarer may change his contract until a defender has whisted [Code 3.4.7-3.4.8]."""
    return (
        deal.contract is not None
        and not deal.contract.is_misere
        and not deal.no_defence
        and deal.phase == "defence"
        and all(call == "pass" for _, call in deal.calls)
    )


W, P, H = "whist", "pass", "half_whist"


def defenders_of(deal: DealState) -> tuple[int, int]:
    """The two defenders: the bidders after the declarer, clockwise (rules.md §3)."""
    assert deal.declarer is not None
    n = deal.n_players
    after = [(deal.declarer + i) % n for i in range(1, n)]
    first, second = [s for s in after if s in deal.bidders]
    return first, second


def defence_options(deal: DealState) -> tuple[int, list[str], bool, str]:
    """What rules.md §3 allows next in the defence, derived here from the rules'
    wording and not from the projection's automaton: the seat to speak, the calls it
    may make, whether it must speak (False: the deal may go on without it: a return,
    or the gentleman's own half-whist), and what the calls so far amount to: "calls"
    (more calls are due), "play" (the deal is played) or "settled" (no play)."""
    assert deal.contract is not None
    d1, d2 = defenders_of(deal)
    half = deal.contract.level in deal.rules.half_whist_levels
    gentleman = deal.rules.single_whist_split == "gentleman"
    so_far = tuple((1 if seat == d1 else 2, call) for seat, call in deal.calls)
    options: dict[tuple[tuple[int, str], ...], tuple[int, list[str], bool, str]] = {
        # the first defender (after the declarer) speaks first: whist or pass
        (): (d1, [W, P], True, "calls"),
        # then the second; half-whist only after the first passed, on the allowed levels
        ((1, W),): (d2, [W, P], True, "calls"),
        ((1, P),): (d2, [W, P] + ([H] if half else []), True, "calls"),
        ((1, W), (2, W)): (d1, [], False, "play"),
        # one whists, one passes: played; under the gentleman's whist the first may go to
        # half-whist himself, and the second may then return
        ((1, W), (2, P)): (d1, [H] if gentleman and half else [], False, "play"),
        ((1, W), (2, P), (1, H)): (d2, [W], False, "settled"),
        ((1, W), (2, P), (1, H), (2, W)): (d2, [], False, "play"),
        ((1, P), (2, W)): (d1, [], False, "play"),
        ((1, P), (2, P)): (d1, [], False, "settled"),
        # a half-whist stands unless the first defender returns with a whist
        ((1, P), (2, H)): (d1, [W], False, "settled"),
        ((1, P), (2, H), (1, W)): (d1, [], False, "play"),
    }
    assert so_far in options, f"calls the rules do not allow were recorded: {so_far}"
    return options[so_far]


def pending_return(deal: DealState | None) -> tuple[int, list[str]] | None:
    """A standing half-whist the other defender may still return with a whist."""
    if deal is None or deal.annulled_at is not None or deal.raspasy or deal.contract is None:
        return None
    if deal.no_defence or deal.tricks is not None:
        return None
    seat, calls, _, outcome = defence_options(deal)
    if deal.phase == "done":
        assert outcome == "settled", f"deal {deal.number}: the projection ends it unplayed, the rules say {outcome}"
    return (seat, calls) if outcome == "settled" and calls else None


# -- drawing one event ----------------------------------------------------------------------


def pick(walk: Walk, options: list[Any], near: int = 3) -> Any:
    """One of the options, usually among the first ``near`` (shrinks to the first)."""
    if walk.chance(80):
        return options[walk.draw(st.integers(0, min(near, len(options)) - 1))]
    return options[walk.draw(st.integers(0, len(options) - 1))]


def split(walk: Walk, total: int, parts: int) -> list[int]:
    """A random split of ``total`` tricks into ``parts`` counts."""
    counts = []
    for _ in range(parts - 1):
        t = walk.draw(st.integers(0, total))
        counts.append(t)
        total -= t
    counts.append(total)
    return walk.draw(st.permutations(counts))


def auction_event(walk: Walk, deal: DealState) -> AnyEvent:
    names = walk.state.players
    seat = deal.turn()
    assert seat is not None
    player = names[seat]
    if deal.third_hand_may_take_talon(seat) and walk.chance(25):
        level = pick(walk, contract_levels(deal, seat))
        return Contract(player=player, contract=str(level))
    # Passing grows likelier as the auction climbs, so auctions end.
    climbed = deal.highest.rank if deal.highest is not None else 0
    if deal.misere_bidder == seat or walk.draw(st.integers(0, 99)) < walk.passiness + climbed * 2:
        return Bid(player=player, bid="pass")
    options: list[str] = [str(lv) for lv in bid_levels(deal)]
    extras = []
    if may_bid_misere(deal, seat) and walk.chance(8):
        extras.append(MISERE)
    if may_say_here(deal, seat) and walk.chance(40):
        extras.append("here")
    if extras:
        return Bid(player=player, bid=walk.draw(st.sampled_from(extras)))
    if not options:
        return Bid(player=player, bid="pass")
    return Bid(player=player, bid=pick(walk, options))


def contract_event(walk: Walk, deal: DealState) -> AnyEvent:
    assert deal.declarer is not None
    level = pick(walk, contract_levels(deal, deal.declarer), near=2)
    return Contract(player=walk.state.players[deal.declarer], contract=str(level))


def defence_event(walk: Walk, deal: DealState) -> AnyEvent:
    names = walk.state.players
    assert deal.declarer is not None
    if may_change_contract(deal) and walk.chance(5):
        return contract_event(walk, deal)
    seat, calls, must, outcome = defence_options(deal)
    assert must and outcome == "calls", f"deal {deal.number} is in defence but the rules expect {outcome}"
    call = walk.draw(st.sampled_from(sorted(calls)))
    is_open = True if call == "whist" and walk.chance(20) else None
    return Defence(player=names[seat], call=call, open=is_open)


def tricks_event(walk: Walk, deal: DealState) -> AnyEvent:
    state = walk.state
    names = state.players
    if deal.raspasy:
        seats = list(deal.active)
        tricks: dict[str, int] = {}
        rest = 10
        sitting_out = state.n > len(seats)
        if sitting_out and deal.rules.raspasy_talon:
            talon = walk.draw(st.integers(0, 2))
            tricks[names[deal.dealer]] = talon
            rest -= talon
        elif sitting_out and walk.chance(20):
            tricks[names[deal.dealer]] = 0  # named, without talon tricks
        for s, t in zip(seats, split(walk, rest, len(seats))):
            tricks[names[s]] = t
        return Tricks(tricks=tricks)
    assert deal.declarer is not None and deal.contract is not None
    declarer = deal.declarer
    if deal.contract.is_misere:
        taken = walk.draw(st.integers(0, 2)) if walk.chance(80) else walk.draw(st.integers(0, 10))
        if walk.chance(30):
            return Tricks(tricks={names[declarer]: taken})
    else:
        need = deal.contract.needed
        if walk.chance(70):
            taken = max(0, min(10, need + walk.draw(st.integers(-2, 2))))
        else:
            taken = walk.draw(st.integers(0, 10))
    d1, d2 = defenders_of(deal)
    a, b = split(walk, 10 - taken, 2)
    return Tricks(tricks={names[declarer]: taken, names[d1]: a, names[d2]: b})


def by_hand_event(walk: Walk) -> AnyEvent:
    """An entry, a pencil down or an arbiter's penalty: small numbers in any column."""
    state = walk.state
    kind = walk.draw(st.integers(0, 9))
    player = walk.player()
    if kind >= 8:
        return PencilDown(player=player)
    column = walk.draw(st.sampled_from(("pulya", "gora", "whists")))
    on = walk.draw(st.sampled_from([p for p in state.players if p != player])) if column == "whists" else None
    amount = walk.draw(st.integers(-3, 8))
    if kind == 7:
        return Penalty(player=player, column=column, amount=amount, on=on, reason="ruling", by=ARBITER)
    return Entry(player=player, column=column, amount=amount, on=on)


def recording_step(walk: Walk, forgotten: set[int]) -> None:
    """One event of the recording rules (rules.md §8): a late record, an objection, or
    a correction of an entry, a penalty or tricks.

    A correction is an attempt: the command side refuses one that would make a later
    recorded event invalid (a changed result can end the pulka before a recorded
    deal), which only a replay of the corrected log can tell; such a refusal is
    skipped, any other propagates.
    """
    state = walk.state
    current = state.current_deal_number
    kind = walk.draw(st.integers(0, 3))
    waiting = [k for k in sorted(forgotten) if k < current and state.deals[k - 1].phase == "play"]
    if kind == 0 and waiting:
        k = walk.draw(st.sampled_from(waiting))
        late = tricks_event(walk, state.deals[k - 1])
        walk.record(msgspec.structs.replace(late, deal=k))
        return
    if kind <= 1 and current >= 2:
        entry = by_hand_event(walk)
        if isinstance(entry, (Entry, Penalty)):
            k = current - 1 if walk.chance(70) else walk.draw(st.integers(1, current - 1))
            walk.record(msgspec.structs.replace(entry, deal=k))
        return
    if kind == 2 and current >= 1:
        player = walk.player()
        k = walk.draw(st.integers(max(1, current - 1), current))
        late = [
            i for i, e in enumerate(state.events, start=1)
            if isinstance(e, (Entry, Tricks)) and e.deal == k and e.by != player
        ]
        target = walk.draw(st.sampled_from(late)) if late and walk.chance(50) else None
        walk.record(Objection(player=player, deal=k, target=target))
        return
    targets = [
        i for i in range(2, state.folded + 1)
        if isinstance(state.content(i), (Entry, Penalty, Tricks))
    ]
    if not targets:
        return
    number = walk.draw(st.sampled_from(targets))
    target = state.content(number)
    replacement: dict[str, Any]
    if isinstance(target, Tricks):
        deal = state.deals[(target.deal or current) - 1]
        movable = [p for p in target.tricks if not (deal.raspasy and state.players.index(p) not in deal.active)]
        if len(movable) < 2:
            return
        giver, taker = walk.draw(st.permutations(movable))[:2]
        if target.tricks[giver] == 0:
            return
        tricks = dict(target.tricks)
        tricks[giver] -= 1
        tricks[taker] += 1
        replacement = {"tricks": tricks}
    else:
        replacement = {"amount": target.amount + walk.draw(st.sampled_from((-2, -1, 1, 3)))}
    by = walk.draw(st.sampled_from((target.by,) + state.players))
    penalty = "waived" if walk.chance(20) else None
    try:
        walk.record(Correction(target=number, replacement=replacement, penalty=penalty, by=by))
    except Refused as exc:
        if not (exc.rule == "4.2.7" and "would make" in exc.reason):
            raise


def deal_event(walk: Walk, deal: DealState) -> AnyEvent:
    """The next event of a deal in progress."""
    phase = deal.phase
    if phase == "auction":
        if walk.chance(2):
            return Annulled(reason="misdeal found during the auction")
        return auction_event(walk, deal)
    if phase == "contract":
        return contract_event(walk, deal)
    if phase == "defence":
        return defence_event(walk, deal)
    assert phase == "play", phase
    if deal.contract is not None and not deal.raspasy and not deal.no_defence:
        seat, calls, _, outcome = defence_options(deal)
        assert outcome == "play", f"deal {deal.number}: the projection plays it, the rules say {outcome}"
        if calls and walk.chance(25):  # the gentleman's own half-whist [Code 3.8.14]
            return Defence(player=walk.state.players[seat], call=walk.draw(st.sampled_from(calls)))
    return tricks_event(walk, deal)


def first_bid(walk: Walk) -> AnyEvent:
    """The bid that opens the next deal: its forehand's."""
    nxt = walk.state.next_deal()
    return auction_event(walk, nxt)


# -- the strategy ---------------------------------------------------------------------------


def rule_overrides() -> st.SearchStrategy[dict[str, Any]]:
    """A club's overrides of any parameters (rules.md §9), as a JSON log carries them."""
    return st.fixed_dictionaries(
        {},
        optional={
            "gora_whist_multiplier": st.integers(1, 3),
            "consolation": st.sampled_from(["price", 10, 15]),
            "single_whist_split": st.sampled_from(["greedy", "gentleman"]),
            "defence_responsibility": st.sampled_from(["full", "half", "half_until_closed"]),
            "raspasy_model": st.sampled_from(["gora", "whists"]),
            "raspasy_progression": st.lists(st.integers(1, 3), min_size=1, max_size=3),
            "raspasy_zero_pulya": st.sampled_from(["price", 0, 1]),
            "raspasy_amnesty": st.booleans(),
            "raspasy_talon": st.booleans(),
            "raspasy_dealer_pulya": st.integers(0, 2),
            "raspasy_exit": st.sampled_from([6, 7, 8]),
            "raspasy_same_dealer": st.booleans(),
            "help": st.booleans(),
            "pulya_to_gora": st.integers(1, 2),
            "half_whist_levels": st.lists(st.sampled_from([6, 7, 8, 9, 10]), unique=True),
            "ten_checked": st.booleans(),
            "jump_bids": st.booleans(),
        },
    )


@st.composite
def game_starts(
    draw: Draw,
    convention: str | None = None,
    players: int | None = None,
    overrides: dict[str, Any] | None = None,
) -> GameStarted:
    """A ``game_started`` line: a preset, 3 or 4 players, often a small pulya target."""
    convention = convention or draw(st.sampled_from(CONVENTIONS))
    n = players or draw(st.sampled_from((3, 4)))
    names = tuple(NAMES[:n])
    target = draw(st.one_of(st.integers(2, 10), st.sampled_from((10, 20))))
    first_dealer = draw(st.one_of(st.none(), st.sampled_from(names)))
    stake = draw(st.sampled_from((None, "0.10", "1", "0.25")))
    return GameStarted(
        game=f"prop-{convention}-{n}",
        players=names,
        pulya=target,
        convention=convention,
        rules=dict(overrides or {}),
        stake=stake,
        first_dealer=first_dealer,
    )


@st.composite
def legal_logs(
    draw: Draw,
    convention: str | None = None,
    players: int | None = None,
    max_deals: int = 8,
    finish: bool = False,
    overrides: dict[str, Any] | None = None,
    club_rules: bool = False,
    recording: bool = False,
) -> list[AnyEvent]:
    """A legal pulka log, judged event by event: ``game_started`` first, then deals.

    ``convention``: one of the presets (default: any); ``players``: 3 or 4 (default:
    either); ``max_deals``: deal numbers to play at most (annulled deals count);
    ``finish``: end with the pulka over, abandoning it if it has not finished;
    ``overrides``: rule parameters the game starts with; ``club_rules``: draw them
    (``rule_overrides``) when none are given; ``recording``: also the recording rules
    of rules.md §8 (corrections, objections, late entries, tricks forgotten at the
    table and recorded later).
    """
    if overrides is None and club_rules:
        overrides = draw(rule_overrides())
    walk = Walk(draw, draw(game_starts(convention, players, overrides)))
    state = walk.state
    forgotten: set[int] = set()  # deals whose tricks were not recorded at the table
    while True:
        deal = state.current
        between = deal is None or deal.phase in ("done", "void") or deal.number in forgotten
        if walk.chance(12):
            walk.record(by_hand_event(walk))
            continue
        if recording and walk.chance(10):
            recording_step(walk, forgotten)
            continue
        if not between:
            assert deal is not None
            if (
                recording and deal.phase == "play" and state.current_deal_number < max_deals
                and not state.over and walk.chance(5)
            ):
                forgotten.add(deal.number)  # the next deal starts; the tricks may come late
                continue
            walk.record(deal_event(walk, deal))
            continue
        if state.over:
            break
        if deal is not None and deal.number in forgotten and deal.phase == "play":
            # Only the next deal's bid can follow a deal waiting for its tricks.
            walk.record(first_bid(walk))
            continue
        back = pending_return(deal)
        if back is not None and walk.chance(30):
            seat, calls = back
            walk.record(Defence(player=state.players[seat], call=walk.draw(st.sampled_from(sorted(calls)))))
            continue
        if state.current_deal_number >= max_deals:
            if finish or walk.chance(20):
                walk.record(Abandoned(agreed_by=tuple(walk.draw(st.permutations(state.players)))))
            break
        roll = walk.draw(st.integers(0, 99))
        if roll >= 97:
            walk.record(Abandoned(agreed_by=state.players))
            break
        if roll >= 92:
            walk.record(Annulled(reason="misdeal"))
            continue
        walk.record(first_bid(walk))
    return walk.events

"""A player's statistics over the archive's pulkas, every number with what is behind it.

A pure fold, like every projection: ``player_stats`` takes the archive's rows of the
player's pulkas (``projections.archive.PulkaRow``) and each pulka's events, replays
each one, and counts. What a pulka's deals and records give each person who held a seat
in it (``pulka_counts``) is the same whatever else the archive holds: the archive's
views keep it as the pulka's events arrive (``counted_text``, ``ledger.views``), and
``gathered_stats`` adds the kept counts up with what the rows say of each pulka (its
result, head to head), to the same numbers. Every number is a ``StatTally``: how
many, what they brought him in whists where that means something, and the references
behind it (game, deal, event), so that ``pulka stats NAME contracts.7 --deals`` lists
them as ``explain`` lists the writes behind a number of the sheet.

What counts, and by which rule:

- ``pulkas``: the pulkas over (finished, abandoned, or stopped at a tournament's deal
  cap), their rounded results [Code 4.2.12]; ``pulkas.first``, where his result was
  the highest (shared included); ``pulkas.in_play`` are not counted in the others.
- ``deals``: every deal dealt while he held a seat, in every selected pulka (a
  misdeal [Code 3.2.13] and a deal left without its result included: they may bring
  something, the dealer's second error a remiz [Code 3.2.17]); what a deal *brought*
  him is the change of his exact result [Code 4.2.14] from the end of the deal before
  (for the first, from nothing) to the end of this one, records by hand made during it
  included, so that a pulka's deals bring what its settlement says. The other numbers
  count only deals played to a result.
- ``contracts``: games he declared (not misère), by level (``contracts.7``) and by
  level and suit (``contracts.7S``, ``contracts.6NT``); ``made``: the declarer took
  the tricks the contract needs (his penalty tricks counted) or nobody whisted
  [Code 4.2.1, 4.2.3.2]; ``remiz``: he did not [Code 4.2.1, 3.8.1.2], a remiz without
  all ruled under 3.4.4 and a concession without all [Code 3.5.4] included.
- ``misere``: misères he declared; ``made``: no trick, penalty tricks counted [Code
  3.6.1, 3.9.11.2]; ``failed`` otherwise.
- ``defence``: the call that stood in each game he defended: ``whist`` (he whisted,
  the four-player dealer who whisted too [Code 3.8.8]), ``half_whist`` (his half-whist
  stood [Code 3.8.7]; one returned is a pass), ``pass`` (he passed, or half-whisted and
  the whist was returned); misères and checked tens have no calls and are left out.
- ``remizes``: ``remizes.declarer``, his games not made and misères failed, and
  ``remizes.whist``, the games where the defence fell short and gora was written on
  him [Code 3.8.1.3, 3.8.11, 3.8.12].
- ``raspasy``: raspasy he played; ``raspasy.clean``, without a trick [Code 3.7.2].
- ``errors``: his records whose correction the recording rules charged to him:
  ``errors.warning`` (the first counted error, [Code 4.2.7]), ``errors.equal_for_equal``
  (a counted error after it [Code 4.2.7], or a late one by himself [Code 4.2.9]), and
  ``errors.late`` (his forgotten records without effect, too late or objected to [Code
  4.2.10]); corrections while the record was in hand are free [Code 4.2.8] and not
  errors. ``penalties``: arbiters' penalties on him [Code 4.2.16].
- ``vs.NAME``: the pulkas over he played with NAME; ``ahead``, ``behind``, ``level``
  by the rounded results; the whists are his results less NAME's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.refusal import cite
from ledger.vocabulary.events import AnyEvent, Correction, Entry, GameStarted, Joined, Penalty, Substituted, Tricks
from ledger.vocabulary.names import name_key
from ledger.vocabulary.wording import said, spoken_text
from projections.archive import Alias, Identities, PulkaRow, identities
from projections.audit import describe as event_line
from projections.deal_state import DealState
from projections.deal_text import events_by_deal, deal_story
from projections.game import GameState, replay
from projections.numbers import exact_text, number
from projections.penalty_tricks import penalty_counts
from projections.scoring import deal_outcome
from projections.settlement import player_result
from projections.sheet import Sheet, Write
from projections.stat_totals import Total, totals_of_counted, totals_text

_ = language._  # every text a person reads, in the language in effect


@dataclass(frozen=True)
class Ref:
    """One thing behind a number: a pulka, a deal of it, the event that decided it."""

    game: str
    deal: int | None
    event: int | None
    whists: Fraction | None  # what it brought, where that is counted
    text: str


@dataclass
class StatTally:
    count: int = 0
    whists: Fraction | None = None
    refs: list[Ref] = field(default_factory=list)

    def add(self, ref: Ref) -> None:
        self.count += 1
        if ref.whists is not None:
            self.whists = (self.whists or Fraction(0)) + ref.whists
        self.refs.append(ref)

    def merge(self, other: StatTally) -> None:
        """Another tally's count and whists added, and its references after these."""
        self.count += other.count
        if other.whists is not None:
            self.whists = (self.whists or Fraction(0)) + other.whists
        self.refs.extend(other.refs)


# The numbers every player has, in the order they are shown; by level and suit, and
# head to head, follow as the player has them.
FIXED = (
    "pulkas", "pulkas.finished", "pulkas.abandoned", "pulkas.first", "pulkas.in_play",
    "deals",
    "contracts", "contracts.made", "contracts.remiz",
    "misere", "misere.made", "misere.failed",
    "defence.whist", "defence.half_whist", "defence.pass",
    "remizes", "remizes.declarer", "remizes.whist",
    "raspasy", "raspasy.clean",
    "errors", "errors.warning", "errors.equal_for_equal", "errors.late",
    "penalties",
)
SUITS = ("S", "C", "D", "H", "NT")


@dataclass(frozen=True)
class PulkaLine:
    """One pulka of the player, for his results per pulka."""

    game: str
    date: str
    status: str
    whists: int


@dataclass(frozen=True)
class Stats:
    player: str
    numbers: dict[str, StatTally]
    pulkas: tuple[PulkaLine, ...]

    def find(self, name: str) -> StatTally | None:
        """A number by its name; head to head is found whatever the case of the name."""
        if name in self.numbers:
            return self.numbers[name]
        wanted = name_key(name)
        for known, tally in self.numbers.items():
            if name_key(known) == wanted:
                return tally
        return None


# What one pulka's deals and records gave a player (``pulka_counts``): each number's
# name with a reference behind it, in the order they were counted; and how they are added.
Counted = list[tuple[str, Ref]]
Add = Callable[[str, Ref], None]
# One pulka as the statistics read it: its archive row, everyone who held a seat in it
# (``seated_persons``), and what its deals and records gave the names of the player
# among them (counted from its events, or as the views keep it: ``kept_pulka``).
Pulka = tuple[PulkaRow, Collection[str], Callable[[Collection[str]], Counted]]


def player_stats(rows: Sequence[PulkaRow], aliases: Sequence[Alias], name: str,
                 events: Iterable[tuple[PulkaRow, list[AnyEvent]]]) -> Stats | None:
    """The statistics of the player ``name`` over ``rows`` (the archive's pulkas, already
    selected by date and convention); ``events`` gives the events of each of his pulkas
    (``mine`` says which). None when he has no pulka among them."""
    return gathered_stats(rows, aliases, name, ((row, seated_persons(log), _recount(row.game, log))
                                                for row, log in events))


def _recount(game: str, log: list[AnyEvent]) -> Callable[[Collection[str]], Counted]:
    return lambda names: pulka_counts(game, replay(log), names)


def gathered_stats(rows: Sequence[PulkaRow], aliases: Sequence[Alias], name: str,
                   pulkas: Iterable[Pulka], totals: Mapping[str, Total] | None = None,
                   who: Identities | None = None) -> Stats | None:
    """``player_stats`` over pulkas whose deals and records are counted already, or are
    counted as they are read (``Pulka``), and ``totals``: what other deals and records
    gave him, added up without their references (``projections.stat_totals``). None
    when he has no pulka among them. ``who``: the identities of ``rows`` and ``aliases``,
    when the caller has them."""
    who = who or identities(rows, aliases)
    key = who.key(name)
    numbers: dict[str, StatTally] = {n: StatTally() for n in FIXED}
    lines: list[PulkaLine] = []
    found = False
    for row, persons, counted in pulkas:
        names = {p for p in persons if who.key(p) == key}
        if not names:
            continue
        found = True
        _count_pulka(numbers, row, names, who.key, who.name, lines)
        for number_, ref in counted(names):
            numbers.setdefault(number_, StatTally()).add(ref)
    if not found:
        return None
    for number_, total in (totals or {}).items():
        numbers.setdefault(number_, StatTally()).merge(StatTally(total.count, total.whists_or_none()))
    numbers["remizes"] = _joined(numbers["remizes.declarer"], numbers["remizes.whist"])
    numbers["errors"] = _joined(numbers["errors.warning"], numbers["errors.equal_for_equal"], numbers["errors.late"])
    return Stats(who.name(key), _ordered(numbers), tuple(lines))


def pulka_counts(game: str, state: GameState, names: Collection[str]) -> Counted:
    """What the deals and records of one pulka (``state``, folded from its events) gave
    the player who held a seat in it under ``names``: every number but the pulka's own
    (its result and head to head, read from its archive row)."""
    out: Counted = []

    def add(number_: str, ref: Ref) -> None:
        out.append((number_, ref))

    _count_deals(add, game, state, names)
    _count_records(add, game, state, names)
    return out


def counted_text(state: GameState, person: str) -> tuple[str, str]:
    """What ``pulka_counts`` gives the person who held a seat in a pulka under his name
    alone, as the views keep it (JSON): each reference once, with the names of the
    numbers it counts in, in the order they were counted; a deal's story and a record's
    text left out (the same for every player of the pulka, but not in every language:
    ``stories_text``); and the same added up number by number (``stat_totals.totals_text``)."""
    deals: Counted = []
    records: Counted = []
    _count_deals(lambda number_, ref: deals.append((number_, ref)), "", state, {person}, told=False)
    _count_records(lambda number_, ref: records.append((number_, ref)), "", state, {person}, told=False)
    text = json.dumps({"deals": _groups(deals), "records": _groups(records)}, ensure_ascii=False,
                      separators=(",", ":"))
    return text, totals_text(totals_of_counted(deals + records))


def _groups(counted: Counted) -> list[list[Any]]:
    groups: list[list[Any]] = []
    last: Ref | None = None
    for number_, ref in counted:
        if ref is last:
            groups[-1][0].append(number_)
            continue
        last = ref
        groups.append([[number_], ref.deal, ref.event, _kept_whists(ref.whists)])
    return groups


def _kept_whists(whists: Fraction | None) -> int | list[int] | None:
    """What a reference brought as ``counted_text`` keeps it: an integer, or [numerator,
    denominator] (read back without parsing text)."""
    if whists is None:
        return None
    return whists.numerator if whists.denominator == 1 else [whists.numerator, whists.denominator]


def stories_text(state: GameState) -> str:
    """The story of each deal of a pulka (``deal_story``), in the order of its deals, and
    the text of each record the statistics count (under ``#`` and its event's number:
    ``_count_records``), in the language in effect, as the views keep it (JSON) beside
    ``counted_text``."""
    played = events_by_deal(state)
    told: dict[str, str] = {str(deal.number): deal_story(state, deal, played.get(deal.number, []))
                            for deal in state.deals}

    def record(_number: str, ref: Ref) -> None:
        told.setdefault(f"#{ref.event}", ref.text)

    _count_records(record, "", state, seated_persons(state.events))
    return json.dumps(told, ensure_ascii=False, separators=(",", ":"))


class NotKept(LookupError):
    """A reference whose text the views keep in no row of the reader's language (views
    written before they kept records' texts in every language): counted again instead."""


def counted_of(game: str, text: str, stories: Mapping[str, str]) -> Counted:
    """``counted_text`` read back, each reference with its deal's story or its record's
    text (``stories``: the pulka's ``stories_text``, read): what ``pulka_counts`` gave,
    in the same order. ``NotKept`` when a text is not among ``stories``."""
    doc = json.loads(text)
    out: Counted = []
    for records, groups in ((False, doc["deals"]), (True, doc["records"])):
        for numbers_, deal, event, whists, *_kept in groups:
            told = stories.get(f"#{event}" if records else str(deal))
            if told is None:
                raise NotKept(game, deal, event)
            ref = Ref(game, deal, event, None if whists is None else Fraction(*whists) if isinstance(whists, list)
                      else Fraction(whists), told)
            out.extend((number_, ref) for number_ in numbers_)
    return out


def kept_pulka(row: PulkaRow, kept: Mapping[str, str | None], stories: str,
               recount: Callable[[Collection[str]], Counted]) -> Pulka:
    """A pulka whose counts the views keep for each person who held a seat in it
    (``kept``: person -> ``counted_text``, or None where it was not read; ``stories``: its
    ``stories_text`` in the language in effect): read back for a player who sat under one
    name; counted again (``recount``) for one who sat under two or more, whose deals are
    counted once, at the first seat he held, or whose counts were not read."""

    def counted(names: Collection[str]) -> Counted:
        text = kept[next(iter(names))] if len(names) == 1 else None
        if text is None:
            return recount(names)
        try:
            return counted_of(row.game, text, json.loads(stories))
        except NotKept:
            return recount(names)

    return row, tuple(kept), counted


def mine(rows: Sequence[PulkaRow], aliases: Sequence[Alias], name: str,
         who: Identities | None = None) -> list[PulkaRow]:
    """The rows of the pulkas the archive counts the player in, oldest first (a seat
    held by a substitute counts for its first player, so a substitute's deals are read
    only in pulkas he has a seat of his own in); ``who``: the identities of ``rows`` and
    ``aliases``, when the caller has them."""
    who = who or identities(rows, aliases)
    key = who.key(name)
    keys: dict[str, str] = {}  # each name's key worked out once, not once a pulka
    for row in rows:
        for p in row.everyone:
            if p not in keys:
                keys[p] = who.key(p)
    return sorted((r for r in rows if any(keys[p] == key for p in r.everyone)), key=lambda r: (r.started_utc, r.game))


def seated_persons(log: Sequence[AnyEvent]) -> set[str]:
    """Everyone who held a seat in a pulka: its players, newcomers and substitutes."""
    out: set[str] = set()
    for e in log:
        if isinstance(e, GameStarted):
            out.update(e.players)
        elif isinstance(e, Joined):
            out.add(e.player)
        elif isinstance(e, Substituted):
            out.add(e.substitute)
    return out


def _joined(*tallies: StatTally) -> StatTally:
    out = StatTally()
    for t in tallies:
        out.merge(t)
    out.refs.sort(key=lambda r: (r.game, r.deal or 0, r.event or 0))
    return out


def _ordered(numbers: dict[str, StatTally]) -> dict[str, StatTally]:
    def rank(name: str) -> tuple[Any, ...]:
        if name in FIXED:
            return (0, FIXED.index(name))
        if name.startswith("contracts."):
            level, _sep, rest = name[len("contracts."):].partition(".")
            digits = "".join(ch for ch in level if ch.isdigit())
            suit = level[len(digits):]
            return (1, int(digits), SUITS.index(suit) + 1 if suit else 0, rest)
        return (2, name_key(name), name)

    return {n: numbers[n] for n in sorted(numbers, key=rank)}


def _count_pulka(numbers: dict[str, StatTally], row: PulkaRow, names: set[str], key: Callable[[str], str],
                 display: Callable[[str], str], lines: list[PulkaLine]) -> None:
    result = row.result
    own = [p for p in row.everyone if p in names]
    if not own:
        return  # he only held another's seat: the archive counts it for its first player
    me = own[0]
    whists = result.whists[me]
    lines.append(PulkaLine(row.game, row.date, result.status, whists))
    # Said, not formatted: made in English, read in the reader's language (its status too).
    ref = Ref(row.game, None, None, Fraction(whists), said("{date} {game}: {whists} ({status})", date=row.date,
                                                             game=row.game, whists=f"{whists:+d}",
                                                             status=said(result.status)))
    if not result.over:
        numbers["pulkas.in_play"].add(ref)
        return
    numbers["pulkas"].add(ref)
    numbers["pulkas.finished" if result.status == "finished" else "pulkas.abandoned"].add(ref)
    if whists == max(result.whists.values()):
        numbers["pulkas.first"].add(ref)
    for other in row.everyone:
        if other == me:
            continue
        theirs = result.whists[other]
        base = f"vs.{display(key(other))}"
        diff = whists - theirs
        vs = Ref(row.game, None, None, Fraction(diff), said("{date} {game}: {whists} against {theirs}", date=row.date,
                                                            game=row.game, whists=f"{whists:+d}", theirs=f"{theirs:+d}"))
        numbers.setdefault(base, StatTally()).add(vs)
        side = "ahead" if diff > 0 else "behind" if diff < 0 else "level"
        numbers.setdefault(f"{base}.{side}", StatTally()).add(vs)


def _count_deals(add: Add, game: str, state: GameState, names: Collection[str], told: bool = True) -> None:
    """Each deal he held a seat in, with what it brought him; ``told``: each reference
    with the deal's story (``deal_story``), else with none (the views keep the stories
    apart, once for every reader's language: ``stories_text``)."""
    final = state.sheet()
    sheets = state.checkpoints.sheets  # the sheet at the end of every deal, computed by ``sheet()``
    gora = _gora_writes(final.writes)
    played = events_by_deal(state) if told else {}  # each deal's events, read once
    results: dict[tuple[int, str], Fraction] = {}  # (deal, seat): his result at its end
    for deal in state.deals:
        seat = next((s for s, person in enumerate(deal.persons) if person in names), None)
        if seat is None:
            continue
        k = deal.number
        seat_name = deal.names[seat]
        after = sheets[k] if k < len(sheets) else final
        before = results.get((k - 1, seat_name)) if k > 1 else Fraction(0)
        if before is None:
            before = _result(sheets[k - 1], seat_name)
        results[(k, seat_name)] = now = _result(after, seat_name)
        decided = deal.resolved_at or deal.annulled_at or state.starts[k - 1]
        ref = Ref(game, k, decided, now - before, deal_story(state, deal, played.get(k, [])) if told else "")
        add("deals", ref)
        if deal.annulled_at is not None or not deal.resolved:
            continue
        _classify(add, deal, seat, ref, gora.get((k, seat_name, deal.resolved_at), False))


def _result(sheet: Sheet, seat: str) -> Fraction:
    return player_result(sheet, seat) if seat in sheet.players else Fraction(0)


def _gora_writes(writes: list[Write]) -> dict[tuple[int, str, int | None], bool]:
    """Which seats had gora written by which deal's result (deal, seat, event)."""
    return {(w.deal, w.player, w.event): True for w in writes if w.column == "gora" and w.amount > 0}


def _classify(add: Add, deal: DealState, seat: int, ref: Ref, gora: bool) -> None:
    if deal.raspasy:
        if seat in deal.active:
            add("raspasy", ref)
            if deal.tricks is not None and deal.tricks.get(seat, 0) == 0:
                add("raspasy.clean", ref)
        return
    contract = deal.contract
    if deal.declarer == seat:
        _declared(add, deal, ref)
        return
    if deal.declarer is None or contract is None:
        return
    if deal.no_defence or not deal.calls:
        return
    view = deal.defence()
    if seat in view.whisters:
        call = "whist"
    elif seat == view.half_whister and not view.returned:
        call = "half_whist"
    elif seat in deal.defenders:
        call = "pass"
    else:
        return  # the four-player dealer who did not whist
    add(f"defence.{call}", ref)
    if gora and seat in view.whisters:
        add("remizes.whist", ref)


def _declared(add: Add, deal: DealState, ref: Ref) -> None:
    assert deal.declarer is not None
    outcome = deal_outcome(deal)
    ruling = deal.ruling
    if ruling is not None and ruling.rule == "3.4.4":
        # A remiz without all at the level he reached in the auction [Code 3.4.4].
        contract = deal.own_level.get(deal.declarer, deal.contract)
    else:
        contract = deal.contract
    if contract is None:
        return
    if contract.is_misere:
        add("misere", ref)
        lost, remiz = penalty_counts(deal)
        s = deal.declarer
        taken = (deal.tricks or {}).get(s, 0) + lost.get(s, 0) + remiz.get(s, 0)
        clean = outcome != "remiz" and taken == 0  # a remiz without all ruled [Code 3.4.4] fails it
        add("misere.made" if clean else "misere.failed", ref)
        if not clean:
            add("remizes.declarer", ref)
        return
    if outcome not in ("made", "unwhisted", "remiz"):
        return
    result = "remiz" if outcome == "remiz" else "made"
    level, suit = str(contract.level), contract.suit
    for name in ("contracts", f"contracts.{level}", f"contracts.{level}{suit}"):
        add(name, ref)
        add(f"{name}.{result}", ref)
    if result == "remiz":
        add("remizes.declarer", ref)


def _count_records(add: Add, game: str, state: GameState, names: Collection[str], told: bool = True) -> None:
    """Errors the recording rules charged to him, and arbiters' penalties on him; ``told``:
    each reference with the record's text in the language in effect, else with none (the
    views keep the texts apart, once for every reader's language: ``stories_text``)."""
    for number_, effect in sorted(state.effects.items()):
        event = state.events[number_ - 1]
        if isinstance(event, Correction):
            # Charged to whoever wrote the record (his seat takes the penalty) [Code 4.2.7].
            target = state.events[event.target - 1]
            if not effect.effective or effect.free or target.by not in names or not (effect.warning or "equal for equal" in effect.reason):
                continue
            kind = "errors.warning" if effect.warning else "errors.equal_for_equal"
            add(kind, Ref(game, event.deal, number_, None, _("event {event} corrected event {target}: {reason} [{rule}]").format(
                event=number_, target=event.target, reason=spoken_text(effect.reason), rule=cite(effect.rule))
                if told else ""))
        elif isinstance(event, (Entry, Tricks)) and not effect.effective and effect.rule == "4.2.10" \
                and event.by in names:
            add("errors.late", Ref(game, event.deal, number_, None, _("event {event}: {what}").format(
                event=number_, what=f"{spoken_text(effect.reason)} [{cite(effect.rule)}]") if told else ""))
    for number_, event in enumerate(state.events, start=1):
        if isinstance(event, Penalty) and event.player in names and number_ not in state.void:
            add("penalties", Ref(game, event.deal, number_, None, _("event {event}: {what}").format(
                event=number_, what=event_line(event)) if told else ""))


# -- documents ------------------------------------------------------------------------


def _whists_fields(x: Fraction | None) -> dict[str, Any]:
    if x is None:
        return {}
    out: dict[str, Any] = {"whists": number(x)}
    if x.denominator != 1:
        out["whists_exact"] = exact_text(x)
    return out


def stats_doc(s: Stats, describe: str) -> dict[str, Any]:
    return {
        "player": s.player,
        "as_of": describe,
        "numbers": {name: {"count": t.count, **_whists_fields(t.whists)} for name, t in s.numbers.items()},
        "pulkas": [{"game": p.game, "date": p.date, "status": p.status, "whists": p.whists} for p in s.pulkas],
    }


def refs_doc(s: Stats, name: str, t: StatTally) -> dict[str, Any]:
    return {
        "player": s.player,
        "number": name,
        "count": t.count,
        **_whists_fields(t.whists),
        "deals": [{"game": r.game, "deal": r.deal, "event": r.event, **_whists_fields(r.whists), "text": r.text}
                  for r in t.refs],
    }


def _w(x: Fraction | None) -> str:
    if x is None:
        return ""
    return f"{float(x):+.2f}".rstrip("0").rstrip(".") if x.denominator != 1 else f"{int(x):+d}"


def render_stats(s: Stats, describe: str) -> str:
    out = [_("{player}: statistics ({point})").format(player=s.player, point=describe), ""]
    width = max(24, *(len(n) + 2 for n in s.numbers))
    # The header's words as a person reads them; the numbers' names (the rows) are
    # what `pulka stats NAME NUMBER` is typed with, and stay as they are.
    out.append(f"{_('number'):<{width}}{_('count'):>7}{_('whists'):>11}")
    for name, t in s.numbers.items():
        out.append(f"{name:<{width}}{t.count:>7}{_w(t.whists):>11}")
    out.append("")
    out.append(_("whists: what they brought him (his exact result [Code 4.2.14], deal by deal; pulkas: the "
                 "rounded results [Code 4.2.12]). `pulka stats NAME NUMBER --deals` lists what is behind a number."))
    return "\n".join(out) + "\n"


def render_refs(s: Stats, name: str, t: StatTally) -> str:
    out = [f"{s.player} {name}: {t.count}"
           + (_(", {whists} whists").format(whists=_w(t.whists)) if t.whists is not None else ""), ""]
    for r in t.refs:
        where = (r.game + (" " + _("deal {deal}").format(deal=r.deal) if r.deal is not None else "")
                 + (" " + _("event {event}").format(event=r.event) if r.event else ""))
        out.append(f"  {where:<36} {_w(r.whists):>9}  {r.text}")
    return "\n".join(out) + "\n"


CSV_COLUMNS = ("number", "count", "whists")


def csv_rows(s: Stats) -> list[list[str]]:
    return [[name, str(t.count), "" if t.whists is None else exact_text(t.whists)] for name, t in s.numbers.items()]

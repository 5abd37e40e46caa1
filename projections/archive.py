"""The club archive: many pulkas, one player's history across them.

Pure folds, like every projection: ``game_result`` reads what one game says for the
archive (how it stands and each player's rounded result); ``summaries`` and
``player_pulkas`` fold the archive's pulkas, as rows, into the table of ``pulka players``
and the history of ``pulka player``. The rows come from the read model the command
side keeps (``ledger.views.archive``) or from replaying the store; the folds do not
care which, so a rebuilt view can be checked against the kept one.

A pulka counts in a player's totals once it is over: finished, abandoned, or (in a
tournament) stopped at the deal cap, which settles as abandoned [Code 4.2.15]. A pulka
still in play is listed, with the result that abandoning it now would give, but not
counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Bid, Contract, Defence, ForeignEvent
from ledger.vocabulary.names import name_key
from ledger.vocabulary.rules import ALIASES
from projections.game import GameState
from projections.numbers import money_context, number
from projections.report import capped, settlement_of
from projections.report import deals_done as deals_done
from ledger.vocabulary.wording import convention_name, spoken_count

_ = language._  # every text a person reads, in the language in effect

Status = Literal["playing", "finished", "abandoned", "capped"]
OVER: frozenset[str] = frozenset({"finished", "abandoned", "capped"})


@dataclass(frozen=True)
class GameResult:
    """What one game says for the archive at one moment."""

    status: Status
    deals: int  # deals dealt and done (a deal in progress is not counted)
    whists: dict[str, int]  # each player's rounded result [Code 4.2.12]
    money: dict[str, str] | None = None  # rounded result x stake, when there is a stake

    @property
    def over(self) -> bool:
        return self.status in OVER


def game_result(state: GameState, deal_cap: int | None = None) -> GameResult:
    """The game as the archive sees it now; an unfinished pulka is settled as if
    abandoned now, and one that has reached ``deal_cap`` deals is over, settled so."""
    settlement = settlement_of(state)
    done = deals_done(state)
    status: Status
    if state.abandoned_at is not None:
        status = "abandoned"
    elif state.finished:
        status = "finished"
    elif capped(state, deal_cap):
        status = "capped"
    else:
        status = "playing"
    money = None if settlement.money is None else {p: str(v) for p, v in settlement.money.items()}
    return GameResult(status, done, dict(settlement.rounded), money)


def may_change_result(event: AnyEvent, state: GameState, done_before: int) -> bool:
    """Whether ``event``, just folded into ``state``, can have changed ``game_result``;
    ``done_before`` is ``deals_done`` of the state before it.

    A bid, a contract or a defence call that leaves a deal in progress and the count of
    deals done as it was writes nothing: it continues an auction or a defence, or opens
    the next deal after one resolved. Every other event may change the sheet: one that
    resolves a deal, reopens one (a return after a half-whist), opens a deal after one
    left without its result, and every record by hand, correction, objection and
    abandonment. The archive settles only after events that may change the result
    (settling is what costs); ``tests/test_archive.py`` checks this rule against every
    prefix of the fixture logs.
    """
    if isinstance(event, ForeignEvent):
        return False
    if isinstance(event, Bid | Contract | Defence):
        return state.deal_in_progress() is None or deals_done(state) != done_before
    return True


# -- the archive as rows -----------------------------------------------------------------


@dataclass(frozen=True)
class PulkaRow:
    """One pulka of the archive as it stood at some moment."""

    game: str
    started_at: str  # the time game_started records (ISO 8601 with offset)
    started_utc: int  # the same, microseconds since 1970 UTC, for ordering
    convention: str
    players: tuple[str, ...]  # as written in the game's start, in seat order
    result: GameResult
    tournament: str | None = None

    @property
    def everyone(self) -> tuple[str, ...]:
        """Everyone on the sheet: the players of the start in seat order, then those who
        joined [Code 3.1.2] in the order they joined (the result has a number for each).
        A player who joins or leaves counts in the archive like any other."""
        players = self.players
        joined = tuple(p for p in self.result.whists if p not in players)
        return players + joined if joined else players

    @property
    def date(self) -> str:
        """The date written on the sheet: the day of the recorded start, in its own offset."""
        return self.started_at[:10]


@dataclass(frozen=True)
class Alias:
    """``name`` is written for ``same_as`` (both as written)."""

    name: str
    same_as: str


@dataclass(frozen=True)
class Identities:
    """Who is who: every key mapped to the key of the player it is, and that player's name."""

    root: dict[str, str]
    display: dict[str, str]
    spellings: dict[str, set[str]] = field(default_factory=dict)

    def key(self, name: str) -> str:
        key = name_key(name)
        return self.root.get(key, key)

    def name(self, key: str) -> str:
        return self.display.get(key, key)


def identities(rows: Iterable[PulkaRow], aliases: Sequence[Alias]) -> Identities:
    """Keys joined by aliases (in the order recorded, transitively), and each player's
    name: the spelling an alias made canonical, else the one of his latest pulka."""
    target: dict[str, str] = {}
    named: dict[str, str] = {}
    for alias in aliases:
        target[name_key(alias.name)] = name_key(alias.same_as)
        named[name_key(alias.same_as)] = alias.same_as

    def root(key: str) -> str:
        seen = {key}
        while key in target and target[key] not in seen:
            key = target[key]
            seen.add(key)
        return key

    roots: dict[str, str] = {}
    display: dict[str, str] = {}
    spellings: dict[str, set[str]] = {}
    latest: dict[str, tuple[int, str]] = {}
    keys: dict[str, str] = {}  # each spelling's key worked out once, not once a pulka
    for row in rows:
        for player in row.everyone:
            key = keys.get(player) or keys.setdefault(player, name_key(player))
            r = roots.get(key) or roots.setdefault(key, root(key))
            spellings.setdefault(r, set()).add(player)
            when = (row.started_utc, row.game)
            if r not in latest or when > latest[r]:
                latest[r] = when
                display[r] = player
    for key in list(target) + list(named):
        r = roots.setdefault(key, root(key))
        if r in named:
            display[r] = named[r]
        display.setdefault(r, named.get(key, key))
    return Identities(roots, display, spellings)


def select_pulkas(
    rows: Iterable[PulkaRow],
    date_from: str | None = None,
    date_to: str | None = None,
    convention: str | None = None,
) -> list[PulkaRow]:
    """The pulkas started between two dates (inclusive, ``YYYY-MM-DD``) under a convention."""
    wanted = None if convention is None else ALIASES.get(convention.lower(), convention.lower())
    return [
        row
        for row in rows
        if (date_from is None or row.date >= date_from)
        and (date_to is None or row.date <= date_to)
        and (wanted is None or row.convention.lower() == wanted)
    ]


@dataclass(frozen=True)
class Summary:
    """A player's totals over the pulkas that are over."""

    player: str
    pulkas: int
    finished: int
    abandoned: int  # abandoned, or stopped at a tournament's deal cap
    in_play: int
    whists: int
    money: Decimal | None
    best: int | None
    worst: int | None

    @property
    def average(self) -> Fraction | None:
        return Fraction(self.whists, self.pulkas) if self.pulkas else None


def summaries(rows: Sequence[PulkaRow], aliases: Sequence[Alias]) -> list[Summary]:
    """Every player's totals, the best first (most whists won, then by name)."""
    who = identities(rows, aliases)
    per: dict[str, list[tuple[PulkaRow, str]]] = {}
    for row in rows:
        for player in row.everyone:
            per.setdefault(who.key(player), []).append((row, player))
    out = [_summary(who.name(key), games) for key, games in per.items()]
    return sorted(out, key=lambda s: (-s.whists, name_key(s.player), s.player))


def _summary(name: str, games: list[tuple[PulkaRow, str]]) -> Summary:
    over = [(row, player) for row, player in games if row.result.over]
    results = [row.result.whists[player] for row, player in over]
    money = [Decimal(row.result.money[player]) for row, player in over if row.result.money is not None]
    with money_context():
        total = sum(money, Decimal(0)) if money else None
    return Summary(
        player=name,
        pulkas=len(over),
        finished=sum(1 for row, _ in over if row.result.status == "finished"),
        abandoned=sum(1 for row, _ in over if row.result.status != "finished"),
        in_play=len(games) - len(over),
        whists=sum(results),
        money=total,
        best=max(results) if results else None,
        worst=min(results) if results else None,
    )


@dataclass(frozen=True)
class HistoryLine:
    row: PulkaRow
    seat: int  # 1-based, in the game's order of players
    whists: int
    money: str | None
    running: int  # the running total of the pulkas over, this one included if over


@dataclass(frozen=True)
class PlayerPulkas:
    player: str
    spellings: tuple[str, ...]
    lines: tuple[HistoryLine, ...]
    summary: Summary


def player_pulkas(rows: Sequence[PulkaRow], aliases: Sequence[Alias], name: str) -> PlayerPulkas | None:
    """One player's pulkas in the order they were started, with a running total;
    None when the archive has no pulka of that player."""
    who = identities(rows, aliases)
    key = who.key(name)
    mine = [
        (row, player)
        for row in sorted(rows, key=lambda r: (r.started_utc, r.game))
        for player in row.everyone
        if who.key(player) == key
    ]
    if not mine:
        return None
    running = 0
    lines = []
    for row, player in mine:
        whists = row.result.whists[player]
        if row.result.over:
            running += whists
        money = row.result.money[player] if row.result.money is not None else None
        lines.append(HistoryLine(row, row.everyone.index(player) + 1, whists, money, running))
    display = who.name(key)
    spellings = tuple(sorted(who.spellings.get(key, {display})))
    return PlayerPulkas(display, spellings, tuple(lines), _summary(display, mine))


# -- documents --------------------------------------------------------------------------


def summary_doc(s: Summary) -> dict[str, Any]:
    average = s.average
    return {
        "player": s.player,
        "pulkas": s.pulkas,
        "finished": s.finished,
        "abandoned": s.abandoned,
        "in_play": s.in_play,
        "whists": s.whists,
        "money": None if s.money is None else str(s.money),
        "average": None if average is None else number(average),
        "best": s.best,
        "worst": s.worst,
    }


def player_pulkas_doc(h: PlayerPulkas) -> dict[str, Any]:
    return {
        "player": h.player,
        "spellings": list(h.spellings),
        "pulkas": [
            {
                "date": line.row.date,
                "game": line.row.game,
                "convention": line.row.convention,
                "seat": line.seat,
                "players": list(line.row.everyone),
                "status": line.row.result.status,
                "whists": line.whists,
                "money": line.money,
                "running": line.running,
            }
            for line in h.lines
        ],
        "total": summary_doc(h.summary),
    }


def _avg(x: Fraction | None) -> str:
    if x is None:
        return "-"
    return f"{x.numerator / x.denominator:.1f}" if x.denominator != 1 else str(x.numerator)


def render_summaries(items: Sequence[Summary], describe: str) -> str:
    """The table of ``pulka players``."""
    lines = [_("players ({point})").format(point=describe), ""]
    if not items:
        return "\n".join(lines + [_("no pulkas")]) + "\n"
    width = max(12, *(len(s.player) + 2 for s in items))
    with_money = any(s.money is not None for s in items)
    # the columns' words outside the f-string, where the catalogue's extraction sees them
    player, pulkas, fin, aband, play, whists = _("player"), _("pulkas"), _("fin"), _("aband"), _("play"), _("whists")
    average, best, worst, money = _("average"), _("best"), _("worst"), _("money")
    head = f"{player:<{width}}{pulkas:>7}{fin:>5}{aband:>6}{play:>5}{whists:>9}{average:>9}{best:>7}{worst:>7}"
    lines.append(head + (f"{money:>11}" if with_money else ""))
    for s in items:
        row = (f"{s.player:<{width}}{s.pulkas:>7}{s.finished:>5}{s.abandoned:>6}{s.in_play:>5}{s.whists:>+9}"
               f"{_avg(s.average):>9}{_opt(s.best):>7}{_opt(s.worst):>7}")
        if with_money:
            row += f"{'-' if s.money is None else str(s.money):>11}"
        lines.append(row)
    lines.append("")
    lines.append(_("Counted: pulkas finished, abandoned or stopped at a deal cap; whists are rounded "
                   "settlements [Code 4.2.12]; 'play' are still in play (not counted)."))
    return "\n".join(lines) + "\n"


def _opt(x: int | None) -> str:
    return "-" if x is None else f"{x:+d}"


def render_player_pulkas(h: PlayerPulkas, describe: str) -> str:
    """The history of ``pulka player``."""
    also = [s for s in h.spellings if s != h.player]
    lines = [f"{h.player} ({describe})" + ("; " + _("also written {names}").format(names=", ".join(also)) if also else ""),
             ""]
    gw = max(6, *(len(line.row.game) + 2 for line in h.lines))
    with_money = any(line.money is not None for line in h.lines)
    date, game, convention, seat, players = _("date"), _("game"), _("convention"), _("seat"), _("players")
    result, running, money = _("result"), _("running"), _("money")
    lines.append(f"{date:<12}{game:<{gw}}{convention:<12}{seat:<6}{players:<30}{result:>8}{running:>9}"
                 + (f"{money:>10}" if with_money else "") + "  " + _("status"))
    for line in h.lines:
        row = line.row
        players = ", ".join(row.everyone)
        seat = f"{line.seat}/{len(row.everyone)}"
        text = (f"{row.date:<12}{row.game:<{gw}}{convention_name(row.convention):<12}{seat:<6}{players:<30}"
                f"{line.whists:>+8}{line.running:>+9}")
        if with_money:
            text += f"{line.money or '-':>10}"
        lines.append(text + f"  {_(row.result.status)}")
    s = h.summary
    lines.append("")
    lines.append(_("{pulkas} over ({finished} finished, {abandoned} abandoned), {in_play} in play; total {whists} "
                   "whists, average {average}").format(pulkas=spoken_count(s.pulkas, "pulka"), finished=s.finished,
                                                       abandoned=s.abandoned, in_play=s.in_play,
                                                       whists=f"{s.whists:+d}", average=_avg(s.average)))
    return "\n".join(lines) + "\n"

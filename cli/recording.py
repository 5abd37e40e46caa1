"""What every recording command of a pulka shares (``cli.record``, ``cli.deal``,
``cli.table``; ``cli.bridge`` and ``cli.play`` say what they did the same way): the
scorer's desk on the store for one command, who records it, and what the command says
it did (``--quiet``: nothing; ``--json``: the events and their effects): the writes on
the sheet, who deals and leads next, the end of the pulka, and every verdict of the
recording rules; a verdict the scorer must not miss (no effect, a warning, a counted
error) goes to standard error.

Apart from the commands themselves, so that a command that runs imports its own module
and this one, not every recording command's options (``pulka deal``: ``cli.deal``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from cli.common import emit, game_name, opened, session_kept
from ledger.desks.pulka import PulkaDesk
from ledger.desks.told import Told, ToldWrite, told_doc
from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from ledger.vocabulary.refusal import cite
from ledger.vocabulary.wording import spoken_text
from projections.numbers import fmt

_ = language._  # every text a person reads, in the language in effect


# -- what a command did -------------------------------------------------------------------


def report_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--json", "as_json", is_flag=True, help="Print the events and their effects as JSON.")(f)
    f = click.option("--quiet", "-q", is_flag=True, help="Print nothing.")(f)
    return f


# The recording rules' verdicts as the scorer reads them (``Verdict.kind``, the JSON's word).
VERDICT_WORDS = {"free": N_("free"), "accepted": N_("accepted"), "effective": N_("effective"),
                 "warning": N_("warning"), "counted": N_("counted"), "withdrawn": N_("withdrawn"),
                 "no effect": N_("no effect")}


def verdict_text(number: int, kind: str, rule: str, reason: str) -> str:
    return _("event {event}: {verdict} [{rule}]: {reason}").format(
        event=number, verdict=_(VERDICT_WORDS[kind]) if kind in VERDICT_WORDS else kind, rule=cite(rule),
        reason=spoken_text(reason))


def writes_text(writes: tuple[ToldWrite, ...]) -> list[str]:
    return [f"  {w.text} {'+' if w.amount > 0 else ''}{fmt(w.amount)}" for w in writes]


def tell(told: Told, *, quiet: bool = False, as_json: bool = False) -> None:
    """Print what a command did (a pulka's or a rubber's): on standard output for the
    scorer, the verdicts and reminders he must not miss on standard error."""
    if quiet:
        return
    if as_json:
        emit(told_doc(told))
    else:
        events = told.events
        span = (_("event {event}").format(event=events[0].number) if len(events) == 1
                else _("events {first}-{last}").format(first=events[0].number, last=events[-1].number))
        if len(events) == 1:
            click.echo(f"{span}: {events[0].text}")
        elif events and not told.deals:
            click.echo(f"{span}:")
            for e in events:
                click.echo(f"  {e.number}: {e.text}")
        for k, story in told.deals:
            click.echo(_("deal {deal}").format(deal=k) + (f" ({span})" if len(events) > 1 else "") + f": {story}")
        for text in writes_text(told.writes):
            click.echo(text)
        for v in told.verdicts:
            if not v.loud and (v.new or v.kind != "withdrawn"):
                click.echo(_("verdict on {verdict}").format(
                    verdict=verdict_text(v.number, v.kind, v.effect.rule, v.effect.reason)))
        click.echo(told.next)
    for v in told.verdicts:
        if v.loud:
            click.echo("pulka: " + verdict_text(v.number, v.kind, v.effect.rule, v.effect.reason), err=True)
    for notice in told.notices:
        click.echo(f"pulka: {notice.text} [{cite(notice.rule)}]", err=True)



# -- the desk, and who records ---------------------------------------------------------------


@contextmanager
def pulka_desk(db: str | None) -> Iterator[PulkaDesk]:
    """The desk of a pulka on the store, for one command (in a ``pulka play`` session,
    on the game the session keeps loaded)."""
    with opened(db, write=True) as ledger:
        yield PulkaDesk(ledger, kept=session_kept())


def record_pulka(db: str | None, game: str, act: Callable[[PulkaDesk, str], Told], *, quiet: bool,
                 as_json: bool) -> None:
    """Run one recording command of the desk on the game and say what it did."""
    name = game_name(game, db)
    with pulka_desk(db) as desk:
        told = act(desk, name)
    tell(told, quiet=quiet, as_json=as_json)


def with_leave_open(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--leave-open", is_flag=True,
                        help="Start the next deal although the deal before waits for its tricks [Code 4.2.10].")(f)


def by_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """Who records it [Code 4.2.4-4.2.7]: a player, a scorer who is not a player
    (scorer:NAME) or an arbiter; a club's scorer sets PULKA_BY once."""
    return click.option("--by", metavar="NAME", envvar="PULKA_BY",
                        help="Who records it: a player, scorer:NAME or arbiter:NAME (default: PULKA_BY).")(f)

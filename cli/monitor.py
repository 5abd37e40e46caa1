"""``pulka monitor URL --trust FILE``: follow a club's log from what its service publishes
(``ledger.proofs.monitor`` does the work; this parses and prints).

Each run fetches the checkpoint and, when it is new, every event since the last one
accepted: the checkpoint checked against the trust file, the tree recomputed from the
events and its root compared, every digest recomputed, each game touched replayed.
``--follow`` runs again every N seconds. The state is kept in a folder of its own
(``--state``; by default the user's state folder, one per log).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click
import platformdirs

from cli.common import UserError
from cli.proofs import read_trust
from ledger.proofs.monitor import Monitor, MonitorError, Progress, LogClient, origin_file
from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect


@click.command()
@click.argument("url")
@click.option("--trust", "trust", required=True, metavar="FILE", help="The club's trust file, which you pin.")
@click.option("--state", metavar="DIR", help="Where the monitor keeps what it accepted (default: the user's state "
              "folder, one per log).")
@click.option("--follow", type=click.IntRange(1), metavar="SECONDS", help="Run again every SECONDS, until stopped.")
@click.option("--sheet", metavar="GAME", help="Print the sheet of GAME as the monitor recomputed it (JSON).")
def monitor(url: str, trust: str, state: str | None, follow: int | None, sheet: str | None) -> None:
    """Follow a club's log from what its service publishes alone (pulka serve): every
    new checkpoint checked against the trust file and for consistency with the last
    one seen, every event's chain, and each game replayed; the state kept between runs."""
    policy = read_trust(trust)
    folder = Path(state) if state else platformdirs.user_state_path("pulka", appauthor=False) / "monitor" / origin_file(
        policy.origin)
    watcher = Monitor(policy, LogClient(url), folder)
    try:
        if sheet is not None:
            _print_sheet(watcher, sheet)
            return
        problems = _once(watcher)
        while follow is not None:
            time.sleep(follow)
            problems += _once(watcher)
    finally:
        watcher.close()
    if problems:
        raise UserError(_("{count} game(s) of the log could not be replayed (named above)").format(count=problems))


def _once(watcher: Monitor) -> int:
    """One step; how many games could not be replayed."""
    last = watcher.last()
    try:
        done = watcher.step()
    except MonitorError as exc:
        raise UserError(str(exc)) from None
    if done is None:
        size = last[0] if last else 0
        click.echo(_("checkpoint #{size} of {origin}: nothing new").format(size=size, origin=watcher.trust.origin))
        return 0
    _report(watcher, done)
    return len(done.problems)


def _report(watcher: Monitor, done: Progress) -> None:
    witnesses = watcher.trust.quorum
    since = (_("consistent with #{previous}, the last accepted").format(previous=done.previous) if done.previous
             else _("the first accepted"))
    click.echo(_("checkpoint #{size} of {origin}: signed by the log's key, cosigned by the witnesses the trust file "
                 "requires ({quorum}); {since}").format(size=done.size, origin=watcher.trust.origin, quorum=witnesses,
                                                          since=since))
    click.echo(_("  {events} new event(s) read from the service, each digest recomputed, the tree's root recomputed: "
                 "the checkpoint's").format(events=done.events))
    click.echo(_("  {games} game(s) replayed, their sheets kept").format(games=len(done.games)))
    for problem in done.problems:
        click.echo(_("  cannot replay {problem}").format(problem=problem))


def _print_sheet(watcher: Monitor, game: str) -> None:
    found = watcher.sheet(game)
    if found is None:
        raise UserError(_("the monitor has replayed no game named {game}").format(game=repr(game)))
    events, sheet, problem = found
    if problem is not None or sheet is None:
        raise UserError(_("{game} could not be replayed: {problem}").format(game=game, problem=problem))
    click.echo(json.dumps({"game": game, "events": events, "sheet": json.loads(sheet)}, ensure_ascii=False, indent=1))

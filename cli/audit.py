"""The arbiter's commands: the audit trail with its filters, one number traced to its
events, what changed between two points, the check of the hash chains, and a game's
head digest. Each reads the store, or an export directly (``--file``); times are shown
in the local zone. A game of any kind (a pulka, a rubber) is audited, explained and
compared by its kind's own projections (``projections.kinds``)."""

from __future__ import annotations

import os

import click

from cli.common import (
    CURRENT,
    GameCommand,
    UserError,
    db_option,
    emit,
    game_argument,
    game_name,
    local_zone,
    opened,
    point_options,
    progress,
    refusals,
    shown_time,
    store_address,
    user_time,
    zone_name,
)
from ledger.application import Ledger
from ledger.store.event_store import bulk
from ledger.judge.stored import judge_stream, pinpointed
from ledger.store.stored import Verified
from cli.logs import log_lines, log_shape, read_log
from cli.reading import file_option, read_anyway_option, read_file, read_game, view
from ledger.vocabulary import language
from ledger.vocabulary.chain import ChainProblem, compare_head_to, compare_saved, head_token, parse_head
from ledger.vocabulary.events import EVENT_TYPES
from ledger.judge.streams import judge_streams
from ledger.desks.verify import WorkerLost, default_workers, verdicts
from ledger.vocabulary.logfile import NotAsExported, check_export, checked_export, export_problem, game_of, split_streams
from ledger.vocabulary.refusal import excerpt
from ledger.vocabulary.tournament_events import TournamentStarted
from ledger.vocabulary.club import ClubStarted
from projections.points import Point, cut
from projections.trail import render_audit, render_diff, render_explain, row_doc, select_rows
from ledger.vocabulary.wording import digits, spoken_count

_ = language._  # every text a person reads, in the language in effect


def parse_point(text: str) -> Point:
    """``12`` (event 12), ``deal:3`` (end of deal 3) or a time (local unless it has an
    offset; a date is its end)."""
    if digits(text):
        return Point(at=int(text))
    if text.startswith("deal:") and digits(text[5:]):
        return Point(deal=int(text[5:]))
    return Point(time=user_time(text, end_of_day=True))


def _since(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    return None if value is None else user_time(value, end_of_day=False)


def _until(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    return None if value is None else user_time(value, end_of_day=True)


@click.command("log", cls=GameCommand)
@game_argument
@click.option("--json", "as_json", is_flag=True)
@click.option("--only-deal", type=int, metavar="K", help="Only the events of deal K, and the corrections of its records made later.")
@click.option("--by", "by", metavar="NAME", help="Only the events recorded by NAME (a player or arbiter:NAME).")
@click.option("--type", "types", multiple=True, type=click.Choice(sorted(EVENT_TYPES)), metavar="TYPE",
              help="Only events of this type (again for more types).")
@click.option("--verdicts", is_flag=True, help="Only events with a verdict of the recording rules or a note.")
@click.option("--since", callback=_since, metavar="T", help="Only events recorded at or after T (20:14: today; a date: its start).")
@click.option("--until", callback=_until, metavar="T", help="Only events recorded at or before T (20:14: today; a date: its end).")
@point_options
@file_option
@read_anyway_option
@db_option
def log_(game: str, as_json: bool, only_deal: int | None, by: str | None, types: tuple[str, ...], verdicts: bool,
         since: str | None, until: str | None, at: int | None, deal: int | None, time_: str | None,
         file: str | None, read_anyway: bool, db: str | None) -> None:
    """Every event with its number, time, recorder, what it did to the sheet and, for
    a correction, objection or late record, the rule and the verdict."""
    point = Point(at, deal, time_)
    read = read_game(game, db, file, point, read_anyway)
    kind = read.kind
    with refusals():
        events = cut(read.events, point)
    with refusals(), bulk(), progress(_("auditing {game}").format(game=read.game), len(events)) as update:
        rows = pinpointed(read.game, events, lambda evs: kind.audit(evs, update))
        update(len(events))
    rows = select_rows(rows, deal=only_deal, by=by, types=types, verdicts=verdicts, since=since, until=until)
    from cli.proofs import signed_lines  # who signed which decision (@signatures)

    signed = [] if file is not None else signed_lines(db, read.game, {r.number for r in rows})
    if as_json:
        emit({"game": read.game, "events": [row_doc(r, kind.cells) for r in rows], "signed": signed})
        return
    zone = local_zone()
    click.echo(_("log of {game}: {shown} of {events}; times in {zone}").format(
        game=read.game, shown=len(rows), events=spoken_count(len(events), "event"), zone=zone_name(zone)))
    if rows:
        click.echo(render_audit(rows, shown_time, kind.cells), nl=False)
    for line in signed:
        click.echo(line)


@click.command(cls=GameCommand)
@game_argument
@click.argument("number", metavar="CELL")
@click.option("--json", "as_json", is_flag=True)
@point_options
@file_option
@read_anyway_option
@db_option
def explain(game: str, number: str, as_json: bool, at: int | None, deal: int | None, time_: str | None,
            file: str | None, read_anyway: bool, db: str | None) -> None:
    """Trace one number of the sheet to its events: a pulka's Anna.pulya, Anna.gora,
    Anna.whists.Boris; a rubber's NS.above, EW.below (also we/МЫ, they/ВЫ)."""
    point = Point(at, deal, time_)
    try:
        read = read_game(game, db, file, point, read_anyway)
    except UserError as exc:
        if "." not in number and file is None and game != CURRENT and _unknown(game, db):
            # `pulka explain Anna pulya`: a player and a column, the game left out.
            raise UserError(_("{reason}; a number of the sheet is one word, PLAYER.COLUMN: did you mean "
                              "`pulka explain {game}.{number}`?").format(reason=exc.message, game=game,
                                                                         number=number)) from None
        raise
    shown_at = view(read, point)
    try:
        cell = shown_at.parse_cell(number)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    rows = shown_at.explain(cell)
    if as_json:
        emit({"game": read.game, "number": number, "writes": rows})
    else:
        click.echo(render_explain(cell, rows, shown_time, read.kind.cells), nl=False)


def _unknown(game: str, db: str | None) -> bool:
    """Whether the store holds no game of that name (asked of the store, not read from a
    message, which may be in either language)."""
    try:
        with opened(db) as ledger:
            return not ledger.store.count(game)
    except UserError:
        return False


@click.command(cls=GameCommand)
@game_argument
@click.argument("from_", metavar="FROM")
@click.argument("to", metavar="TO")
@click.option("--json", "as_json", is_flag=True)
@file_option
@read_anyway_option
@db_option
def diff(game: str, from_: str, to: str, as_json: bool, file: str | None, read_anyway: bool, db: str | None) -> None:
    """What changed between two points (event N, deal:K, or a time), and which events did it."""
    read = read_game(game, db, file, anyway=read_anyway)
    kind = read.kind
    with refusals():
        doc = pinpointed(read.game, read.events, lambda events: kind.diff(events, parse_point(from_), parse_point(to)))
    if as_json:
        emit(doc)
    else:
        click.echo(render_diff(doc, kind.cells), nl=False)


@click.command(cls=GameCommand)
@game_argument
@db_option
def head(game: str, db: str | None) -> None:
    """Print the game's head digest (its last event's number and digest), to keep
    elsewhere and check later with `pulka verify GAME --against HEAD`."""
    with opened(db) as ledger:
        name = game_name(game, db)
        last = ledger.store.head(name)  # the chain checked a page at a time, nothing kept
        if last is None:
            raise ledger.unknown(name)
        click.echo(str(head_token(last.number, last.digest)))


def _verify_export(file: str) -> None:
    """``verify --file``: an export's digests checked and every event of it judged."""
    shape = log_shape(file)  # refuses a log larger than this machine can judge
    if shape.starts == 1 and _verified_file(file):
        return
    streams = split_streams(read_log(file))
    bad = []
    for lines in streams:  # a tournament's export holds several streams
        problem = export_problem(lines)
        if problem is not None:
            bad.append(_("export of {game}: {problem}").format(game=game_of(lines), problem=problem))
    if bad:
        raise UserError("; ".join(bad))
    if len(streams) == 1 and not isinstance(streams[0][0].event, TournamentStarted | ClubStarted):
        read_file(file)  # every event judged as import would
    else:
        with refusals():
            judge_streams(streams)  # tournaments, games and the club's register, judged together
    for lines in streams:
        click.echo(_("export of {game}: {events}, chain intact").format(
            game=game_of(lines), events=spoken_count(len(lines), "event")))


@click.command()
@click.argument("game", required=False)
@file_option
@click.option("--against", metavar="SAVED.jsonl|HEAD",
              help="Also compare GAME with a saved export of it, or with a head digest from `pulka head`.")
@click.option("--key", "keys", multiple=True, metavar="PUBKEY",
              help="Trust only checkpoints and signatures by these public keys (NAME.pub, or its text; again for more).")
@click.option("--checkpoint", "published", multiple=True, metavar="FILE",
              help="Also check a published checkpoint (a file) against the store.")
@click.option("--jobs", type=click.IntRange(1), metavar="N",
              help="Judge the games in N processes (default: up to 2, the machine's cores, on a store of "
                   "50,000 events or more; 1: in this one).")
@db_option
def verify(game: str | None, file: str | None, against: str | None, keys: tuple[str, ...],
           published: tuple[str, ...], jobs: int | None, db: str | None) -> None:
    """Check the hash chain of one game or of every game, and judge every stored event
    again as import would; exit 1 naming the first bad event. With --file, check an
    export against its digests and judge every event; with --against, compare the game
    with a head digest or a saved export."""
    if file is not None:
        _verify_export(file)
        return
    if against is not None and game is None:
        raise UserError(_("--against compares one game: give its name"))
    with opened(db) as ledger:
        if game is not None:
            count = ledger.store.count(game)
            if not count:
                raise ledger.unknown(game)
            chains = [Verified(game, count, None)]
        else:
            chains = ledger.store.found_streams()
        total = sum(v.events for v in chains)
        failed: list[str] = []
        # Each stream read once: its chain checked, then every event judged again (in a
        # pool of processes for a big store, while this one computes the club log's tree).
        unchecked = [name for name, _count, problem in chains if problem is None]
        from cli.proofs import history_findings, told_history

        with progress(_("verifying"), total) as update, verdicts(
                ledger, store_address(db), unchecked, default_workers(total) if jobs is None else jobs) as judged:
            history = (history_findings(ledger, keys, published) if game is None or keys or published else None)
            done = 0
            for name, count, problem in chains:
                if problem is None:
                    try:
                        problem = next(judged)
                    except WorkerLost as exc:
                        raise UserError(str(exc)) from None
                done += count
                update(done)
                if problem is None:
                    click.echo(_("{game}: {events}, chain intact").format(game=name, events=spoken_count(count, "event")))
                else:
                    failed.append(name)
                    click.echo(_("{game}: TAMPERED: {problem}").format(game=name, problem=problem))
        unverified: list[str] = []
        if history is not None:
            tampered, unverified = told_history(history)
            failed += tampered
        if failed:
            raise UserError(_("{games}: tampered (the first bad event of each is named above)").format(
                games=", ".join(failed)))
        if unverified:
            raise UserError(_("{what}: not signed by the keys given (--key); nothing was found tampered").format(
                what=", ".join(unverified)))
        if game is not None and against is not None:
            compare(ledger, game, against)


def _verified_file(file: str) -> bool:
    """``verify --file`` of the export of one game, a line at a time: its digests checked
    and every event judged as they come, nothing of the file kept (only the judge's fold).
    False when the file must be read whole (a tournament's, or one whose digests do not
    hold: the whole file's check names the line)."""
    try:
        with log_lines(file) as lines:
            checked = checked_export(lines, required=True)
            first = next(checked)
            if isinstance(first.event, TournamentStarted):
                return False
            count = 1 + judge_stream(first, ((line.line, line.event) for line in checked))
    except NotAsExported:
        return False
    click.echo(_("export of {game}: {events}, chain intact").format(
        game=game_of([first]), events=spoken_count(count, "event")))
    return True


def compare(ledger: Ledger, game: str, against: str) -> None:
    """Compare the (intact) stored game with a head digest or a saved export of it, a
    page of each at a time (neither is held whole)."""
    count = ledger.store.count(game)
    anchor = parse_head(against)
    problem: ChainProblem | None
    if anchor is not None and not os.path.exists(against):
        at = ledger.store.at(game, anchor.number) if 1 <= anchor.number <= count else None
        problem = compare_head_to(count, None if at is None else at.digest, anchor)
        what, covered = _("the head {head}").format(head=anchor), anchor.number
    else:
        saved = saved_export(against, game)
        with log_lines(against) as lines:
            problem = compare_saved(ledger.store.stored(game),
                                    ((n, line.event, line.digest or "") for n, line in enumerate(lines, 1)))
        what, covered = _("the saved export {path} ({events})").format(
            path=against, events=spoken_count(saved, "event")), saved
    if problem is not None:
        raise UserError(_("{game} differs from {what}: {problem}").format(game=game, what=what, problem=problem))
    since = (_("; {events} recorded since").format(events=spoken_count(count - covered, "event"))
             if count > covered else "")
    click.echo(_("{game}: matches {what}{since}").format(game=game, what=what, since=since))


def saved_export(path: str, game: str) -> int:
    """The number of events of an export of ``game`` saved in ``path``, whose own chain
    is intact (checked a batch of lines at a time)."""
    if not os.path.isfile(path):
        raise UserError(_("--against {path} is neither a head digest (N:HEX, from `pulka head`) nor an export's "
                          "file").format(path=excerpt(path)))
    count = 0
    saved = "?"
    with log_lines(path) as lines:
        for line in lines:
            if line.digest is None:
                raise UserError(_("--against {path}: not an export of pulka (line {line} has no digest); save one "
                                  "with `pulka export`").format(path=path, line=line.line))
            saved = game_of([line]) if count == 0 else saved
            count += 1
    try:
        with log_lines(path) as lines:
            for _line in checked_export(lines, required=True):
                pass
    except NotAsExported:
        with refusals():
            check_export(read_log(path))  # names the line
    if saved != game:
        raise UserError(_("--against {path}: the saved export is of game {saved}, not {game}").format(
            path=path, saved=repr(saved), game=repr(game)))
    return count

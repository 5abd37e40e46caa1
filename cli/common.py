"""What every command of ``pulka`` shares: the store it opens and the refusals inside
it turned into messages, the current game and a command about a game (GAME left out,
negative numbers as arguments), shell completion, times in the local zone and the
points in time a reading command takes, progress bars, and printing JSON. Reading a
game is ``cli.reading``, a log file ``cli.logs``, a table for a spreadsheet
``cli.spreadsheet``.

A refused input prints ``pulka: <reason>`` on standard error and exits with status 1;
it never shows a traceback. A command line click cannot parse exits with status 2; an
internal error, 3 (``cli.main``, ``cli.output``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, TypeVar

import click

from cli.output import clean, uncleaned
from ledger.judge.stored import ImpossibleEventError, RefusedEventError
from ledger.application import Kept, Ledger
from ledger.store.event_store import bulk
from ledger.judge.kinds import GAME_STARTS
from ledger.store.backend import mask
from ledger.store.layout import LAYOUT
from ledger.store.stored import BrokenChainError, ConcurrentWriteError, UnreadableEventError
from ledger.store.event_store import CannotOpen, Store, StoreError, is_postgres_url, parse_postgres_url
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused, UnreadableInput, bounded
from ledger.vocabulary.rules import RuleSetError
from ledger.vocabulary.times import TimeFormatError, parse_local, show_local
from ledger.vocabulary.club import RESERVED_PREFIX
from ledger.vocabulary.tournament_events import TournamentStarted
from projections.kinds import UnknownKind
from projections.points import PointError

_ = language._  # every text a person reads, in the language in effect

F = TypeVar("F", bound=Callable[..., Any])

STORE_FILE = "pulka.db"  # the SQLite store's name, in the user's data folder (or a legacy one here)
MESSAGE_MAX = 4000  # characters of a refusal's message
PROGRESS_FROM = 2000  # events (or games): shorter work shows no progress bar


class UserError(click.ClickException):
    """A refusal: reason on standard error, exit status 1. However long what it says
    (an input it quotes whole, a store's list of games), it says at most ``MESSAGE_MAX``
    characters of it."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(bounded(message, MESSAGE_MAX))

    def show(self, file: Any = None) -> None:
        click.echo(f"pulka: {self.message}", err=True)


# -- the store ------------------------------------------------------------------------------


def db_option(f: F) -> F:
    return click.option(
        "--db",
        metavar="ADDRESS",
        help="SQLite file, or a postgresql:// address (default: --db before the command, "
        "$PULKA_DB, ./pulka.db when there is one, else pulka.db in your data folder).",
    )(f)


def root_obj() -> dict[str, Any]:
    """What the ``pulka`` group (or a ``pulka play`` session) holds for its commands."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return {}
    root = ctx.find_root()
    if not isinstance(root.obj, dict):
        root.obj = {}
    obj: dict[str, Any] = root.obj
    return obj


def store_address(db: str | None) -> str:
    """The store a command uses: its own --db, else the one given before the command
    (or $PULKA_DB), else the default store (``default_store``)."""
    return db or root_obj().get("db") or os.environ.get("PULKA_DB") or default_store()


def data_store() -> Path:
    """The default store: pulka.db in the user's data folder, where the platform keeps an
    application's data (platformdirs: ``$XDG_DATA_HOME/pulka``, else
    ``~/.local/share/pulka``, on Linux; ``~/Library/Application Support/pulka`` on macOS;
    ``%LOCALAPPDATA%\\pulka`` on Windows), so that the evening is found from any folder."""
    import platformdirs  # here: a command given its store never needs it

    return platformdirs.user_data_path("pulka", appauthor=False) / STORE_FILE


def default_store() -> str:
    """The store when nothing names one: a ``pulka.db`` in the working folder when there
    is one (a store made before the data folder was the default: its evening is not
    lost, and a note on standard error says which store is used and how to choose),
    else ``data_store``."""
    if Path(STORE_FILE).is_file():
        _note_folder_store()
        return STORE_FILE
    return str(data_store())


@functools.cache
def _note_folder_store() -> None:
    """Said once a process (a ``pulka play`` session runs many commands), and never while
    the shell completes a word (it would print over the line being typed)."""
    if os.environ.get("_PULKA_COMPLETE"):
        return
    click.echo("pulka: " + _("note: using {path} of this folder; the default store is {store} (move the file "
                             "there, or choose one with --db or PULKA_DB)").format(
        path=Path(STORE_FILE).resolve(), store=data_store()), err=True)


def made_folder(address: str) -> None:
    """The data folder of the default store made before its first write (a folder a
    user named himself is not made: a path mistyped is refused, not created)."""
    # The name first: a store of another name is not the default one, and platformdirs
    # is not imported for it.
    if Path(address).name == STORE_FILE and address == str(data_store()):
        try:
            data_store().parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(_("cannot make the folder of the store {address}: {reason}").format(
                address=address, reason=exc.strerror)) from None


@contextmanager
def opened(db: str | None, *, write: bool = False, upgrade: bool = True) -> Iterator[Ledger]:
    """The ledger on the store ``db``; every refusal inside becomes a UserError, and no
    message shows the address's password.

    Only a command that records (``write``) creates the store's table when it is
    missing, and brings a store written by an earlier pulka to this one's layout first
    (``upgrade_noted``; not ``pulka upgrade`` itself, which says it); a reading command
    never changes the database. The garbage collector
    rests meanwhile (``bulk``): loading and replaying a game frees nothing cyclic.
    """
    address = store_address(db)
    if write:
        made_folder(address)
    try:
        try:
            store = Store(address, create=write)
        except StoreError as exc:
            said = str(exc)
            raise UserError(said if isinstance(exc, CannotOpen)
                            else _("cannot open the store: {reason}").format(reason=said)) from None
        try:
            with refusals(), bulk():
                if write and upgrade:
                    upgrade_noted(store)
                try:
                    yield Ledger(store)
                except ConcurrentWriteError as exc:
                    raise UserError(_("not stored: {reason}").format(reason=concurrent_write(exc, store))) from None
        finally:
            store.close()
    except click.ClickException as exc:
        masked = mask(exc.message, address)
        if masked == exc.message:
            raise
        raise UserError(masked) from None


def upgrade_noted(store: Store) -> None:
    """A store written by an earlier pulka, brought to this one's layout before a command
    writes it (``ledger.desks.upkeep.upgraded``), with a note on standard error."""
    if store.layout is None or store.layout >= LAYOUT:
        return
    from ledger.desks.upkeep import upgraded  # loaded only for a store to upgrade: the views, the tree

    done = upgraded(store)
    if done is not None:
        click.echo("pulka: " + _("note: the store {store} was upgraded from layout {was} to layout {now}").format(
            store=store.description, was=done.was, now=done.now) + (
            "; " + _("its player views are folded again ({why})").format(why=done.views) if done.views else ""),
            err=True)
        if done.rerated:
            click.echo("pulka: " + _("note: {what}").format(what=rerated_note()), err=True)


def rerated_note() -> str:
    """What an upgrade from before the rating's models changes that a club will notice."""
    from projections.rating_models import DEFAULT as DEFAULT_MODEL, OpenSkillPlaces  # only after an upgrade

    return _("the club rating is now computed by the model {model}; the rating earlier pulkas showed is "
             "`pulka rating --model {former}`, and `pulka rating-model {former}` keeps it as the club's").format(
                 model=DEFAULT_MODEL, former=OpenSkillPlaces.name)


def concurrent_write(exc: ConcurrentWriteError, store: Store) -> str:
    """Another writer came first: what happened, and what to do at a command line (the
    command decides anew when run again; the log shows what the other one recorded)."""
    try:
        first = store.read(exc.game, upto=1).stored
    except StoreError:  # the advice without the log's name
        first = []
    log = (f"pulka tournament log {exc.game}" if first and isinstance(first[0].event, TournamentStarted)
           else None if exc.game.startswith(RESERVED_PREFIX) else f"pulka log {exc.game}")
    shows = _(" (`{log}` shows what the other scorer recorded)").format(log=log) if log else ""
    return _("{game} was changed by someone else: expected {expected} stored event(s), found {found}. Nothing of "
             "this command was stored; try again: run the same command, which decides on what is stored "
             "now{shows}").format(game=repr(exc.game), expected=exc.expected, found=exc.found, shows=shows)


@contextmanager
def refusals() -> Iterator[None]:
    """Refusals of the ledger as messages for the user (exit status 1)."""
    try:
        yield
    except Refused as exc:
        raise UserError(_("refused: {reason}").format(reason=exc)) from None
    except (PointError, RuleSetError, TimeFormatError, UnknownKind) as exc:
        raise UserError(str(exc)) from None
    except ConcurrentWriteError as exc:
        raise UserError(_("not stored: {reason}").format(reason=exc)) from None
    except (BrokenChainError, ImpossibleEventError, RefusedEventError, UnreadableEventError, UnreadableInput) as exc:
        raise UserError(_("refused: {reason}").format(reason=exc)) from None
    except StoreError as exc:
        raise UserError(_("store error: {reason}").format(reason=exc)) from None


# -- the current game -----------------------------------------------------------------------

CURRENT = ""  # the GAME argument when it was left out: the current game


def state_file() -> Path:
    """Where ``pulka use`` keeps the current game of each store: the user's state folder
    (platformdirs: ``$XDG_STATE_HOME/pulka``, else ``~/.local/state/pulka``, on Linux)."""
    import platformdirs  # here: a command told its game never needs it

    return platformdirs.user_state_path("pulka", appauthor=False) / "current.json"


def store_key(db: str | None) -> str:
    """A store's name in the state file: the SQLite file's full path, or the PostgreSQL
    address without its password."""
    address = store_address(db)
    if is_postgres_url(address):
        try:
            return parse_postgres_url(address).display()
        except StoreError:
            return address
    return str(Path(address).resolve())


def read_current() -> dict[str, str]:
    try:
        data = json.loads(state_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def current_game(db: str | None) -> tuple[str, str] | None:
    """The current game and where it was chosen: a ``pulka play`` session, $PULKA_GAME,
    or ``pulka use`` for this store (shown as ``_(where)``: only the session's is a word
    of the catalogue)."""
    session = root_obj().get("game")
    if session:
        return str(session), language.N_("this session")  # the others are words one types
    env = os.environ.get("PULKA_GAME")
    if env:
        return env, "PULKA_GAME"
    chosen = read_current().get(store_key(db))
    return (chosen, "pulka use") if chosen else None


def session_kept() -> Kept | None:
    """The game a ``pulka play`` session keeps loaded (``Ledger.keep``), which the commands
    typed in the session record into without loading it again; None outside a session."""
    kept = root_obj().get("kept")
    return kept if isinstance(kept, Kept) else None


def set_current(db: str | None, game: str | None) -> None:
    data = read_current()
    key = store_key(db)
    if game is None:
        data.pop(key, None)
    else:
        data[key] = game
    path = state_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(_("cannot keep the current game in {path}: {reason}").format(
            path=path, reason=exc.strerror)) from None


def made_current(db: str | None, game: str) -> bool:
    """Make a game just stored the current one (``pulka new``): whether it could be. The
    game is stored whatever happens here, so a state file that cannot be written is a
    warning on standard error, not a refusal (exit 1 would say that nothing was stored)."""
    try:
        set_current(db, game)
    except UserError as exc:
        click.echo("pulka: " + _("warning: {game} is stored, but is not the current game: {reason}; name it in "
                                 "each command, or `pulka use {name}` once the file can be written").format(
            game=repr(game), reason=exc.message, name=game), err=True)
        return False
    return True


def game_name(game: str, db: str | None) -> str:
    """The game a command is about: as given, else the current game."""
    if game != CURRENT:
        return game
    current = current_game(db)
    if current is None:
        raise click.UsageError(_("no game given and no current game for the store {store}: name the game, or "
                                 "choose one with `pulka use GAME` (or PULKA_GAME)").format(store=store_key(db)))
    return current[0]


NEGATIVE = re.compile(r"-\d+")


def is_phrase(word: str) -> bool:
    """An argument of several words that begins with ``-``: a deal line opening with a
    pass (``- 6S - | …``), never an option, whose name has no blank."""
    return word.startswith("-") and any(c.isspace() for c in word.partition("=")[0])


def is_option(word: str) -> bool:
    """A word that is an option (``--yes``, ``--by=Anna``, ``-q``): not ``-`` alone, a
    negative number, or a phrase beginning with ``-``."""
    return word.startswith("-") and len(word) > 1 and not NEGATIVE.fullmatch(word) and not is_phrase(word)


class NumbersCommand(click.Command):
    """A command where a negative number is an argument, not an option
    (``pulka tournament seat T 1 -1 …`` is refused by its rule, not as an unknown
    option), and so is a phrase beginning with ``-`` (``pulka deal "- 6S - | …"``, ``-``
    being a pass): the options (with their values) are read first, then the arguments."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.resilient_parsing or not any(NEGATIVE.fullmatch(word) or is_phrase(word) for word in args):
            return super().parse_args(ctx, args)
        options, positionals = self.split(ctx, args)
        return super().parse_args(ctx, [*options, "--", *positionals])

    def split(self, ctx: click.Context, args: list[str]) -> tuple[list[str], list[str]]:
        """The options (with their values) and the arguments, as typed."""
        takes_value: dict[str, bool] = {}
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                for name in (*param.opts, *param.secondary_opts):
                    takes_value[name] = not (param.is_flag or param.count)
        options: list[str] = []
        positionals: list[str] = []
        words = iter(args)
        for word in words:
            if word == "--":
                positionals.extend(words)
                break
            if is_option(word):
                options.append(word)
                if "=" not in word and takes_value.get(word, False):
                    value = next(words, None)
                    if value is not None:
                        options.append(value)
                continue
            positionals.append(word)
        return options, positionals


class GameCommand(NumbersCommand):
    """A command about one game, whose first argument GAME may be left out for the
    current game, and where a negative number is an argument, not an option
    (``pulka entry Vera whists -4``).

    Whether GAME was given is decided from the arguments alone: by default, when all
    of them are there; ``game_given`` decides for the commands whose last argument
    takes any number of words.
    """

    def __init__(self, *args: Any, game_given: Callable[[list[str]], bool] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game_given = game_given

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.resilient_parsing:  # shell completion: the words as typed
            return click.Command.parse_args(self, ctx, args)
        options, positionals = self.split(ctx, args)
        arguments = [p for p in self.get_params(ctx) if isinstance(p, click.Argument)]
        given = self.game_given(positionals) if self.game_given else len(positionals) >= len(arguments)
        if not given:
            positionals = [CURRENT, *positionals]
        return click.Command.parse_args(self, ctx, [*options, "--", *positionals])


def game_argument(f: F) -> F:
    return click.argument("game", metavar="[GAME]", shell_complete=complete_game)(f)


# -- shell completion -------------------------------------------------------------------------


def _completion_db(ctx: click.Context) -> str | None:
    db = ctx.params.get("db")
    if db:
        return str(db)
    root = ctx.find_root()
    value = root.params.get("db")
    return str(value) if value else None


def complete_game(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """The stored games whose names begin with what was typed; where the game may be
    left out and the next argument is a player, the current game's players too."""
    try:
        with Store(store_address(_completion_db(ctx)), create=False) as store:
            names = [g for g in store.games(GAME_STARTS) if g.startswith(incomplete)]
    except Exception:  # completion must never break the shell
        return []
    arguments = [p for p in ctx.command.params if isinstance(p, click.Argument)]
    if isinstance(ctx.command, GameCommand) and len(arguments) > 1 and arguments[1].name == "player":
        names += players_of(ctx, CURRENT, incomplete)
    return names


def complete_player(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """The players of the game named on the line (or the current game)."""
    return players_of(ctx, str(ctx.params.get("game") or CURRENT), incomplete)


def players_of(ctx: click.Context, game: str, incomplete: str) -> list[str]:
    db = _completion_db(ctx)
    if game == CURRENT:
        game = (current_game(db) or ("", ""))[0]
    if not game:
        return []
    try:
        with Store(store_address(db), create=False) as store:
            stored = store.load(str(game))
    except Exception:
        return []
    if not stored:
        return []
    players: tuple[str, ...] = getattr(stored[0].event, "players", ())
    return [p for p in players if p.casefold().startswith(incomplete.casefold())]


# -- points in time, and times in the local zone --------------------------------------------


def local_zone() -> tzinfo:
    """The local time zone: $TZ, else the system's (/etc/localtime), else the offset now."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # here: most commands show no time

    for name in (os.environ.get("TZ", "").lstrip(":"), _system_zone_name()):
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    found = datetime.now().astimezone().tzinfo
    assert found is not None
    return found


@functools.cache
def _system_zone_name() -> str:
    """The name of the system's zone, looked up once a process (the link is resolved
    on the file system: done for every time shown, it was half of `pulka log`)."""
    link = os.path.realpath("/etc/localtime")
    return link.split("zoneinfo/", 1)[1] if "zoneinfo/" in link else ""


def zone_name(zone: tzinfo) -> str:
    key = getattr(zone, "key", None)
    return str(key) if key else (datetime.now(zone).tzname() or _("local time"))


def shown_time(text: str | None) -> str:
    """A stored time in the local zone, for people."""
    return show_local(text, local_zone()) if text else ""


def user_time(text: str, *, end_of_day: bool) -> str:
    """A time typed by a person (local unless it has an offset; a date is a whole day)
    as the ISO 8601 text the projections compare."""
    try:
        return parse_local(text, local_zone(), end_of_day=end_of_day).isoformat()
    except TimeFormatError as exc:
        raise UserError(str(exc)) from None


def _as_of(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    return None if value is None else user_time(value, end_of_day=True)


def point_options(f: F) -> F:
    f = click.option("--time", "time_", metavar="T", callback=_as_of,
                     help="As of this time, by when the events reached the ledger (their at, not a phone's played_at): local "
                          "('2026-12-01 20:14'; '20:14' today; a date: its end) or with an offset.")(f)
    f = click.option("--deal", "deal", type=int, metavar="K", help="As of the end of deal K.")(f)
    f = click.option("--at", "at", type=int, metavar="N", help="As of the N-th event of the game.")(f)
    return f


# -- progress ---------------------------------------------------------------------------------


@contextmanager
def progress(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """``update(done)`` moves a progress bar on standard error: only on a terminal, and
    only for long work (``PROGRESS_FROM`` items or more)."""
    if total < PROGRESS_FROM or not sys.stderr.isatty():
        yield lambda done: None
        return
    # The bar writes its own control sequences: to the terminal itself, not through
    # ``clean``, which would show them (it never carries stored text but its label).
    with click.progressbar(length=total, label=clean(label), file=uncleaned(sys.stderr)) as bar:
        def update(done: int) -> None:
            bar.update(done - bar.pos)

        yield update


# -- output -----------------------------------------------------------------------------------


def emit(doc: Any) -> None:
    click.echo(json.dumps(doc, ensure_ascii=False))

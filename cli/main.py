"""The ``pulka`` command: the group and the table of its subcommands.

Each subcommand lives in the module of its kind (``record``, ``read``, ``audit``,
``rules``, ``report``) and is imported only when it runs, so that ``pulka --help`` and a single
command start quickly. ``cli`` parses arguments, calls the ledger or a projection,
and prints; it never judges or computes. ``pulka serve`` is web's, the other face,
which cli never imports: it is loaded by its entry point (``ENTRY_POINTS``).
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any


@contextmanager
def resting_collector() -> Iterator[None]:
    """The garbage collector off while a command's modules load: they make tens of
    thousands of objects that live as long as the process and no garbage, and the
    collector's passes over them were about 4 ms of a ``pulka deal`` (bench/bench.py's
    start-up figure). It works again once they are loaded, as it was before. The twin of
    ``ledger.store.collector.bulk``, kept here: this runs before ``cli.installed`` has
    checked that ``ledger`` is pulka's own, so it imports nothing of ``ledger``."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


with resting_collector():
    import click

    from cli.installed import shadowed
    from cli.output import INTERNAL_ERROR, cleaned_streams, internal_error

# The group of entry points (pyproject.toml's ``[project.entry-points."pulka.commands"]``)
# that holds the commands of ``pulka`` living beside cli rather than in it.
ENTRY_POINTS = "pulka.commands"

# name -> ("module:function", its one-line help), or ("pulka.commands:NAME", its help)
# for a command of the entry points; the order is the order of ``pulka --help``, which
# prints the help from here without importing any command (a test keeps each line
# equal to the command's own).
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("cli.record:new", 'Start a pulka; it becomes the current game.'),
    "use": ("cli.record:use", 'Choose the current game of the store (or show it): commands then take GAME as optional.'),
    "play": ("cli.play:play", 'An interactive session for the scorer: prompts with the dealer and the leader, takes deal lines and commands, shows the writes and the sheet after each deal, offers undo, and ends with the settlement.'),
    "deal": ("cli.deal:deal", 'Record a whole deal in one line.'),
    "bid": ("cli.record:bid", 'A bid: 6S ...'),
    "contract": ("cli.record:contract", "The declarer's contract (again to change it before anyone whists, or after with --evident-correction)."),
    "defence": ("cli.record:defence", "A defender's call: whist, pass or half_whist (вист, пас, полвиста); with four players the dealer's too."),
    "tricks": ("cli.record:tricks", 'Tricks taken: Anna=6 Boris=3 Vera=1.'),
    "entry": ("cli.record:entry", 'A number written by hand: COLUMN is pulya, gora or whists (пуля, гора, висты); AMOUNT may be negative (entry Vera whists -4 --on Boris).'),
    "pencil": ("cli.record:pencil", 'The recorder (a player, or scorer:NAME) puts his pencil down [Code 4.2.8]: his records are no longer in hand.'),
    "annul": ("cli.record:annul", 'The current deal is void (a misdeal, a wrong number of cards): the same dealer deals again, and nothing of the deal is written.'),
    "abandon": ("cli.record:abandon", "Stop the pulka early: by agreement of all players, or on one player's demand."),
    "undo": ("cli.record:undo", 'Withdraw the last record while it is still in hand [Code 4.2.8]: the last deal line (the events of play of the last deal since anything else was recorded), or the last record when it is something else.'),
    "redo": ("cli.record:redo", 'Record again what the last undo took back, while nothing was recorded after it [Code 4.2.8]: new events, by the one redoing; the undo stays in `pulka log`.'),
    "correct": ("cli.record:correct", 'Correct a record [Code 4.2.7-4.2.9], named by its event number or its deal (deal:5, deal:5.tricks, deal:5.contract), in the table\'s words:'),
    "object": ("cli.record:object_", 'A partner refuses a late record of DEAL [Code 4.2.10].'),
    "penalty": ("cli.record:penalty", "An arbiter's penalty on PLAYER [Code 4.2.16]; it never benefits him: gora up, pulya down (a negative AMOUNT), whists written on him by the wronged player."),
    # the rest of the Code: irregularities, rulings, changes of players, the talon
    "dealt": ("cli.table:dealt", 'PLAYER dealt the next deal out of turn and it stands [Code 3.2.14]; the deal after it is dealt by the player to his left.'),
    "ruling": ("cli.table:ruling", 'A ruling or an agreement on the current deal [Code 3.3.16.2, 3.3.16.3, 3.4.4, 3.5.4, 3.8.5.1, 3.9.22].'),
    "join": ("cli.table:join", "A fourth player joins with everyone's consent [Code 3.1.2]: he writes the mean pulya and gora, sits to the left of the last dealer and deals next; with --replaces, in the place of the player who left, and the deal goes round as before."),
    "leave": ("cli.table:leave", 'PLAYER leaves a four-handed pulka; his columns stay and are settled at the end [Code 5.4.18].'),
    "substitute": ("cli.table:substitute", "SUBSTITUTE takes PLAYER's seat and its columns with the others' consent [Code 5.4.7]."),
    "talon": ("cli.table:talon", "The talon [Code 3.2.21, 3.4.10, 3.4.11]: PLAYER looked at it before it was bought (peek); the declarer refused it (refused); it gave the declarer tricks, the dealer's premium (premium)."),
    "import": ("cli.importing:import_", 'Store a log (a new game, or events appended to a stored game).'),
    "init": ("cli.importing:init", 'Create the store (its table), once; recording commands also do it when needed.'),
    "export": ("cli.read:export", "Print the game's log as JSON Lines, with what the ledger filled in and each event's chain digest (check a copy with `pulka verify --file`); or, with --csv, its sheet, deals, settlement and payments for a spreadsheet."),
    "games": ("cli.read:games", 'List the stored games (tournaments: `pulka tournament list`): players, convention, events, deals, status (playing, finished, abandoned), and the times of the first and last event.'),
    "sheet": ("cli.read:sheet", "The sheet: a pulka's pulya, gora and whists per player, with running entries; a rubber's МЫ/ВЫ sheet above and below the line."),
    "settle": ("cli.read:settle", 'The settlement [Code 4.2.14] and who pays whom; an unfinished pulka settles as if abandoned now, an unfinished rubber as if stopped now [Law 80].'),
    "report": ("cli.report:report", "One HTML file, nothing fetched: the drawn sheet and settlement as of any event (a slider), the deal-by-deal table, the audit trail, and each number's trace."),
    "log": ("cli.audit:log_", 'Every event with its number, time, recorder, what it did to the sheet and, for a correction, objection or late record, the rule and the verdict.'),
    "explain": ("cli.audit:explain", "Trace one number of the sheet to its events: a pulka's Anna.pulya, Anna.gora, Anna.whists.Boris; a rubber's NS.above, EW.below (also we/МЫ, they/ВЫ)."),
    "diff": ("cli.audit:diff", 'What changed between two points (event N, deal:K, or a time), and which events did it.'),
    "verify": ("cli.audit:verify", 'Check the hash chain of one game or of every game, and judge every stored event again as import would; exit 1 naming the first bad event.'),
    "head": ("cli.audit:head", "Print the game's head digest (its last event's number and digest), to keep elsewhere and check later with `pulka verify GAME --against HEAD`."),
    "keygen": ("cli.proofs:keygen", 'Make an Ed25519 key pair for signed notes: the private key (readable by its owner alone) and the public key to hand out.'),
    "checkpoint": ("cli.proofs:checkpoint", 'Make a signed checkpoint of the whole club log (every event stored, in store order) and print it to publish; without --key, print a stored one.'),
    "cosign": ("cli.proofs:cosign", 'Add your signature to a stored checkpoint, once the store is seen to hold it and every checkpoint before it; print the checkpoint with every signature.'),
    "sign": ("cli.proofs:sign", "An arbiter signs his decision, event EVENT of GAME (a ruling, a penalty, a card, a removal, a tour's results): his Ed25519 signature over the event's digest, kept in the ledger and shown by log and the report."),
    "rotate": ("cli.proofs:rotate", "Change the log's key: the key in effect and the new one both sign the change, stored in the log; checkpoints after the latest are signed by the new key, none by the old."),
    "trust": ("cli.proofs:trust", "Print the club's trust file to publish: the log's origin and key as the store names them (and the keys it retired), its witnesses, how many must cosign, and its arbiters."),
    "monitor": ("cli.monitor:monitor", "Follow a club's log from what its service publishes alone (pulka serve): every new checkpoint checked against the trust file and for consistency with the last one seen, every event's chain, and each game replayed; the state kept between runs."),
    "prove": ("cli.proofs:prove", "Write a bundle (JSON) that a player checks on his own machine with pulka_verify.py: the game's events, the proof that its last event is in the club log under a checkpoint, the checkpoint with its signatures, and the arbiter's signatures on its decisions."),
    "rules": ("cli.rules:rules", 'List the presets, or show every parameter of one.'),
    "bridge": ("cli.bridge:bridge", 'Rubber bridge on the same ledger: start a rubber and record it deal by deal.'),
    "players": ("cli.players:players", 'Every player across the stored pulkas: pulkas played (finished and abandoned), total whists and money from the rounded settlements, average, best and worst.'),
    "player": ("cli.players:player", "One player's pulkas, one line each (date, game, convention, seat, result), with a running total."),
    "alias": ("cli.players:alias", 'Record that NAME is written for the player SAME_AS (one person, two spellings).'),
    "rating": ("cli.rating:rating", "The club rating over every pulka over (the whists a player wins a deal against the club's average player, how sure that is, and a provisional mark); with NAME, his rating pulka by pulka, each move explained: expected, got, the opponents, the uncertainty's share."),
    "rating-model": ("cli.rating:rating_model", "The club's rating model: without MODEL, the one in effect and the models there are; with MODEL, record in the club's log that the club is rated by it from now on (compare the tables before and after with `pulka rating --as-known` and `--model`)."),
    "stats": ("cli.rating:stats", "A player's statistics: pulkas and results, contracts by level and suit and how many made, misères, whists, passes and half-whists and what they brought, raspasy, remizes, errors charged by the recording rules, head to head; NUMBER --deals lists the deals behind a number (contracts.7, defence.whist, vs.Boris.ahead)."),
    "tournament": ("cli.tournament:tournament", 'Tournaments: tours of tables, seated by hand, by lot or Swiss; standings as of any tour or time.'),
    "views": ("cli.players:views", 'The read models of the archive: their state, a full rebuild, a follower.'),
    # the store over the years: upgrades, the move to another store, backups
    "upgrade": ("cli.upkeep:upgrade", "Bring a store written by an earlier pulka to this pulka's layout, in one transaction (a writing command does it too)."),
    "copy": ("cli.upkeep:copy_", 'Copy the whole store into the empty store ADDRESS (SQLite to PostgreSQL and back): every event in its order, the register, tournaments, receipts, accounts, tokens, checkpoints.'),
    "backup": ("cli.upkeep:backup", 'Back the store up into the new SQLite file FILE, safely while the service writes it: SQLite by its online backup, PostgreSQL by a copy.'),
    # The service stands beside cli (web, the other face), which never imports it: its
    # command is the entry point ``serve`` of the group ``pulka.commands`` (pyproject.toml),
    # loaded only when run; its help is kept here.
    "serve": (f"{ENTRY_POINTS}:serve", "The club's live scoring service: the scorer's phone, the spectators' pages, the arbiter's and the director's desks, and the JSON API (docs/api.md)."),
    "witness": (f"{ENTRY_POINTS}:witness", "A witness of clubs' logs (C2SP tlog-witness): its own process and state, no club's database; it cosigns a checkpoint only when it is consistent with the last one it cosigned for that log."),
}


# Whether this command line runs inside another (a command typed in ``pulka play``),
# which speaks the session's language unless it says otherwise.
_INSIDE: ContextVar[bool] = ContextVar("pulka_inside_a_command", default=False)
LANG = "pulka_lang"  # where ``ctx.meta`` keeps the language a --lang asked for
# The language the command ran in (set by ``LazyGroup.invoke``), which the messages of
# ``LazyGroup.main`` speak after the command has ended; None before a command runs.
_SPOKEN: ContextVar[str | None] = ContextVar("pulka_spoken", default=None)


def choose_language(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--lang``: the language of everything the command prints (it comes before
    PULKA_LANG and the locale). Given before the command, it is kept for
    ``LazyGroup.invoke``; after it, the command is already running in the language
    chosen there, and this changes it for the rest of the command."""
    if value is None:
        return None
    from ledger.vocabulary import language  # after the check that ledger is pulka's (cli.installed)

    if not language.known(value):
        raise click.BadParameter(language._("{value!r} is not a language of pulka: en or ru").format(value=value))
    ctx.meta[LANG] = value
    if ctx.parent is not None:
        language.set_language(value)
        _SPOKEN.set(value)
    return value


def language_option() -> click.Option:
    return click.Option(["--lang"], metavar="LANG", expose_value=False, is_eager=True, callback=choose_language,
                        help="The language of the output: en or ru (default: $PULKA_LANG, else the locale's).")


def with_language(command: click.Command) -> click.Command:
    """``command`` (and, for a group, each of its commands) taking ``--lang`` after it,
    as every command takes ``--db``: ``pulka sheet --lang ru`` as ``pulka --lang ru sheet``."""
    if not any(param.name == "lang" for param in command.params):
        command.params.append(language_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_language(sub)
    return command


def load(target: str) -> click.Command:
    """The command a target of ``COMMANDS`` names: ``module:function`` imported, or
    ``pulka.commands:NAME`` the entry point of that name of the installed pulka (found
    through ``importlib.metadata``; a pulka run from its sources without being installed
    has none, and says how to install it)."""
    module, _sep, name = target.partition(":")
    if module == ENTRY_POINTS:
        from importlib.metadata import entry_points

        found = next(iter(entry_points(group=ENTRY_POINTS, name=name)), None)
        if found is None:
            from cli.common import UserError  # after the check that ledger is pulka's (cli.installed)
            from ledger.vocabulary import language

            raise UserError(language._("pulka {command} is not installed: install pulka (pip install .), which "
                                       "declares its commands").format(command=name))
        command: Any = found.load()
    else:
        with resting_collector():
            command = getattr(importlib.import_module(module), name)
    assert isinstance(command, click.Command), target
    return command


class LazyGroup(click.Group):
    """A group whose subcommands are imported from ``COMMANDS`` when first needed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        command = load(COMMANDS[cmd_name][0])
        command.name = cmd_name
        return with_language(command)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line with its output cleaned (``cli.output.clean``): the one
        exit-status contract is kept here. 0 done; 1 refused (click's ``ClickException``,
        which every refusal becomes); 2 a command line that cannot be parsed (click's
        usage errors); 3 anything else, a fault of pulka: a short message on standard
        error, and the traceback in a file whose path it gives."""
        standalone = kwargs.get("standalone_mode", True)
        stranger = shadowed()
        if stranger is not None:  # pulka would run another package's code: say so, run nothing
            click.echo(f"Error: {stranger}", err=True)
            if standalone:
                sys.exit(1)
            raise click.exceptions.Exit(1)
        inside = _INSIDE.set(click.get_current_context(silent=True) is not None)
        spoken = _SPOKEN.set(None)
        try:
            with cleaned_streams():
                try:
                    return super().main(*args, **kwargs)
                except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
                    raise
                except MemoryError:
                    # Refused, not a fault: a store's write is all or nothing, so nothing was stored.
                    from ledger.vocabulary import language

                    with language.using(_SPOKEN.get() or language.chosen()):
                        click.echo("pulka: " + language._("refused: not enough memory for this command on this "
                                                          "machine; nothing was stored"), err=True)
                    if standalone:
                        sys.exit(1)
                    raise click.exceptions.Exit(1) from None
                except Exception as exc:  # noqa: BLE001 - the one place that catches everything
                    from ledger.vocabulary import language

                    with language.using(_SPOKEN.get() or language.chosen()):
                        click.echo(internal_error(exc), err=True)
                    if standalone:
                        sys.exit(INTERNAL_ERROR)
                    raise click.exceptions.Exit(INTERNAL_ERROR) from None
        finally:
            _SPOKEN.reset(spoken)
            _INSIDE.reset(inside)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command in its language: a --lang given before it, else PULKA_LANG,
        else the locale's; a command typed in a session speaks the session's. Chosen
        here, once the command line is parsed, so that ``pulka --help`` loads nothing of
        pulka (tests/test_startup.py), and reset after, so that one run's language is
        not the next one's."""
        from ledger.vocabulary import language  # main() has checked that ledger is pulka's

        wanted = ctx.meta.get(LANG)
        if wanted is None:
            wanted = language.language() if _INSIDE.get() else language.chosen()
        _SPOKEN.set(wanted)
        with language.using(wanted):
            return super().invoke(ctx)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the table: no command module is imported."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        with formatter.section("Commands"):
            formatter.write_dl([(name, shortened(text, limit)) for name, (_, text) in COMMANDS.items()])


def shortened(text: str, limit: int) -> str:
    """``text`` cut at a word to fit ``limit`` characters, as click shortens a help."""
    if len(text) <= limit:
        return text
    return text[: limit - 3].rsplit(" ", 1)[0].rstrip(",;:") + "..."


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", envvar="PULKA_DB", metavar="ADDRESS",
              help="The store of every command: a SQLite file or a postgresql:// address (default: ./pulka.db "
                   "when there is one, else pulka.db in your data folder).")
@click.option("--lang", metavar="LANG", expose_value=False, is_eager=True, callback=choose_language,
              help="The language of the output: en or ru (default: $PULKA_LANG, else the locale's).")
@click.version_option(package_name="pulka")
@click.pass_context
def main(ctx: click.Context, db: str | None) -> None:
    """pulka: an event-sourced ledger for Preferans scores, and for rubber bridge.

    Record a pulka (or a rubber: pulka bridge ...) as immutable events, show its
    sheet, settle it, and replay it to any point in time. GAME may be left out once `pulka use GAME` (or PULKA_GAME)
    has chosen the current game.

    Exit status: 0 done, 1 refused (the reason on standard error), 2 a command line
    that cannot be parsed, 3 an internal error (a fault of pulka: the message names the
    file that holds the details).

    The output is in English or Russian: --lang (before or after the command), else
    $PULKA_LANG, else the locale's language (LC_ALL, LC_MESSAGES, LANG).
    """
    ctx.ensure_object(dict)
    if db:
        ctx.obj.setdefault("db", db)


def run() -> None:
    """The ``pulka`` command as a process of its own: the installed script
    (pyproject.toml) and ``python -m cli.main``. ``main`` runs, and as the process ends
    its heap is frozen (``gc.freeze``): the interpreter's last collection would
    otherwise walk every object the command's modules made, to free nothing that a
    process about to exit needs freed (14 ms of a ``pulka deal``'s 135, bench/bench.py's
    start-up figure). Not in ``main`` itself: a test's process calls it again and again,
    and a frozen object is never collected."""
    try:
        main()
    finally:
        gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    run()

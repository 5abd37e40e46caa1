"""``pulka play``: the scorer's session at the table.

It prompts with the deal to come (who deals, who leads), takes a deal line, shows what
it wrote and the sheet in one line after each deal, offers undo, and ends with the
settlement when the scorer types ``end`` (or Ctrl-D, or Ctrl-C at the prompt). When the
pulka ends the session says so and waits for a last command — a correction, an undo,
a look at the sheet, or ``end`` — so that what the scorer was typing still reaches the
session, not the shell. A result a slip of the tricks' order would explain is asked
about before it is stored (``--yes`` on the line stores it as typed). Any other command
of ``pulka`` may be typed without the game's name (``entry Vera whists 4 --on Boris``,
``correct 16 2``, ``sheet``, ``log --only-deal 3``); each runs exactly as it would on
the command line, on the same store.

The session loads the game once (``Ledger.keep``) and keeps its fold: a deal line and
``u`` go straight to the scorer's desk (``PulkaDesk.deal``, ``PulkaDesk.undo``), and
the recording commands typed in the session record through the same kept game. Each
reads only the game's head, so that a scorer at another terminal writing to the same
game is caught (``not stored: … changed by someone else``), and the session then loads
the game again.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from cli.common import UserError, complete_game, current_game, db_option, opened, store_address
from cli.main import COMMANDS, main
from cli.output import clean, internal_error
from cli.deal import settle_doubt
from cli.recording import tell
from ledger.application import Kept
from ledger.desks.pulka import PulkaDesk
from ledger.desks.told import Doubtful, Told, next_text
from projections.deal_text import next_deal_text, sheet_line
from projections.game import GameState
from projections.report import Point, render_settlement
from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from ledger.vocabulary.wording import convention_name
from ledger.words.table import opens_with_declarer

_ = language._  # every text a person reads, in the language in effect

END = {"end", "q", "quit", "exit"}
UNDO = {"u", "undo"}
HELP = {"?", "help", "h"}
NOT_HERE = {"play", "new", "use", "import"}
FLAGS = {"--again", "--leave-open", "--yes", "-y"}

HELP_TEXT = N_("""\
Type a deal line: the outcome, the declarer's tricks first, or the whole deal, e.g.
  Anna 6S w w 6 2 2      Vera 7H w p Vera=7 Anna=2 Boris=1      Boris miz 0      rasp 2 5 3
  6D 7S p p | Vera w w 5* 2 3      6S pass pass | 6S | whist whist | 6 2 2 (tricks from the forehand)
Counts that read for other players in the other order are asked about: mark the declarer's (5*).
(table words too: 6♠ пас п вист в полвиста пв мизер миз здесь; add --again, --leave-open or --yes when asked).
Or any pulka command without the game's name: entry Vera whists 4 --on Boris, pencil Vera,
correct 16 2, tricks Anna=6 Boris=2 Vera=2 --deal 3, annul, sheet, log --only-deal 3, settle.
u (undo) withdraws the last record while it is in hand; end (q) ends the session.""")


OVER = N_("the pulka has ended: a correction, undo, sheet, or end to settle")


def prompt_of(state: GameState) -> str:
    if state.over:
        return _("the pulka has ended; end") + " > "
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        return next_deal_text(state) + " > "
    return next_text(state) + " > "


def run_in_session(args: list[str], obj: dict[str, Any]) -> bool:
    """Run one pulka command inside the session; True when it succeeded."""
    try:
        main.main(args=args, prog_name="pulka", standalone_mode=False, obj=dict(obj))
    except click.exceptions.Exit as exc:
        return exc.exit_code == 0
    except click.ClickException as exc:
        exc.show()
        return False
    except click.Abort:
        click.echo("pulka: " + _("not done"), err=True)
        return False
    return True


def words_of(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError as exc:
        click.echo("pulka: " + _("cannot read that line: {reason}").format(reason=exc), err=True)
        return None


@dataclass
class Session:
    """The scorer's session on one game: the store, the game kept loaded, who records."""

    address: str
    game: str
    kept: Kept
    by: str | None  # PULKA_BY, as the commands' --by

    @property
    def state(self) -> GameState:
        state = self.kept.state
        assert isinstance(state, GameState)
        return state

    def obj(self) -> dict[str, Any]:
        """What the commands typed in the session find in click's context: the store, the
        game, and the kept game they record into."""
        return {"db": self.address, "game": self.game, "kept": self.kept}

    def take(self, text: str, first: str) -> None:
        """One line: a deal line or ``u`` through the desk, anything else as a command. A
        line that opens with its declarer and his contract is a deal line whatever its first
        word is also (``u 6S w w 6 2 2`` is Uma's deal, ``log 7H …`` Logan's)."""
        if opens_with_declarer(self.state.players, text):
            self.deal_line(text)
        elif first in UNDO and len(text.split()) == 1:
            self.record(lambda desk: desk.undo(self.game, by=self.by))
        elif first in UNDO:
            run_in_session(["undo", *text.split()[1:]], self.obj())
        elif first in COMMANDS:
            if first in NOT_HERE:
                click.echo("pulka: " + _("`{command}` is not for a session; end it first").format(command=first),
                           err=True)
                return
            words = words_of(text)
            if words is not None:
                run_in_session(words, self.obj())
        else:
            self.deal_line(text)

    def deal_line(self, text: str) -> None:
        words = text.split()
        line = " ".join(w for w in words if w not in FLAGS)
        again, leave_open = "--again" in words, "--leave-open" in words
        yes = "--yes" in words or "-y" in words
        self.record(lambda desk: self.deal(desk, line, again, leave_open, yes))

    def deal(self, desk: PulkaDesk, line: str, again: bool, leave_open: bool, yes: bool) -> Told:
        """A deal line through the desk; a result the desk doubts is asked about
        (``record.settle_doubt``) and recorded as the scorer chooses."""
        try:
            return desk.deal(self.game, line, by=self.by, again=again, leave_open=leave_open, confirmed=yes)
        except Doubtful as doubt:
            chosen = settle_doubt(doubt, line)
        if chosen is None:
            raise UserError(_("not stored"))
        return desk.deal(self.game, chosen, by=self.by, again=again, leave_open=leave_open, confirmed=True)

    def record(self, act: Callable[[PulkaDesk], Told]) -> None:
        """Record a line through the desk, on the kept game, and say what it did; a
        refusal, or a fault of pulka, is said as the command would say it (as
        ``cli.main`` does for a command), and the session goes on."""
        try:
            with opened(self.address, write=True) as ledger:
                told = act(PulkaDesk(ledger, kept=self.kept))
        except click.ClickException as exc:
            exc.show()
            return
        except (KeyboardInterrupt, click.Abort):
            click.echo("pulka: " + _("not done"), err=True)
            return
        except Exception as exc:  # noqa: BLE001 - as LazyGroup.main: a fault of pulka, reported; the session goes on
            click.echo(internal_error(exc), err=True)
            return
        tell(told)

    def renew(self) -> None:
        """The game as stored: kept as it is when nobody else has written to it, else
        loaded again."""
        with opened(self.address) as ledger:
            self.kept = ledger.renewed(self.kept)


@click.command()
@click.argument("game", required=False, shell_complete=complete_game)
@db_option
def play(game: str | None, db: str | None) -> None:
    """An interactive session for the scorer: prompts with the dealer and the leader,
    takes deal lines and commands, shows the writes and the sheet after each deal,
    offers undo, and ends with the settlement."""
    address = store_address(db)
    if game is None:
        chosen = current_game(db)
        if chosen is None:
            raise click.UsageError(_("name the game, or choose one with `pulka use GAME`"))
        game = chosen[0]
    with opened(address) as ledger:
        kept = ledger.keep(game)
    if not isinstance(kept.state, GameState):
        raise UserError(_("pulka play is a pulka's session; {game} is a rubber of bridge: record it with pulka "
                          "bridge deal").format(game=repr(game)))
    s = Session(address, game, kept, os.environ.get("PULKA_BY") or None)
    r = s.state.rules
    click.echo("pulka play: " + _("{game} ({convention}, pulya to {pulya}): {players}").format(
        game=game, convention=convention_name(r.convention), pulya=s.state.started.pulya,
        players=", ".join(s.state.players)))
    click.echo(_("A deal line, a command, u to undo, ? for help, end to stop."))
    click.echo(_("sheet (pulya/gora, result if settled now): {sheet}").format(sheet=sheet_line(s.state)))
    try:
        import readline  # noqa: F401  (line editing and history, where the platform has it)
    except ImportError:  # pragma: no cover
        pass
    if s.state.over:
        click.echo(_(OVER))
    while True:
        try:
            # input() may write its prompt to the terminal itself, past the cleaned
            # standard output: the prompt (players' names) is cleaned here.
            text = input(clean(prompt_of(s.state))).strip()
        except (EOFError, KeyboardInterrupt):  # Ctrl-D, Ctrl-C: the session ends, settled
            click.echo()
            break
        first = text.split()[0].lower() if text else ""
        deal = opens_with_declarer(s.state.players, text)  # Quinn's "q 6S w w 6 2 2" is his deal, not the end
        if first in END and not deal:
            break
        if first in HELP and not deal:
            click.echo(_(HELP_TEXT))
        elif text:
            before, over = s.state.folded, s.state.over
            s.take(text, first)
            try:
                s.renew()
            except UserError as exc:
                exc.show()
                return
            if s.state.folded != before:
                click.echo(_("sheet: {sheet}").format(sheet=sheet_line(s.state)))
            if s.state.over and not over:
                click.echo(_(OVER))
    click.echo()
    click.echo(render_settlement(s.state, Point()), nl=False)

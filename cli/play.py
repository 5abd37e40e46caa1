"""``pulka play``: the scorer's session at the table.

It prompts with the deal to come (who deals, who leads), takes a deal line, shows what
it wrote and the sheet in one line after each deal, offers undo, and ends with the
settlement when the pulka ends (or when the scorer types ``end``). Any other command
of ``pulka`` may be typed without the game's name (``entry Vera whists 4 --on Boris``,
``correct 16 2``, ``sheet``, ``log --only-deal 3``); each runs exactly as it would on
the command line, on the same store.
"""

from __future__ import annotations

import shlex
from typing import Any

import click

from cli.common import UserError, complete_game, current_game, db_option, opened, store_address
from cli.main import COMMANDS, main
from cli.output import clean
from ledger.command.scorer import next_text
from projections.deals import next_deal_text, sheet_line
from projections.game import GameState
from projections.report import Point, render_settlement

END = {"end", "q", "quit", "exit"}
UNDO = {"u", "undo"}
HELP = {"?", "help", "h"}
NOT_HERE = {"play", "new", "use", "import"}
FLAGS = {"--again", "--leave-open"}

HELP_TEXT = """\
Type a deal line: BIDS | CONTRACT | CALLS | TRICKS, e.g.
  6S pass pass | 6S | whist whist | 6 2 2      pass pass pass | 2 5 3      misere pass pass | misere | 0
(table words too: 6♠ пас вист полвиста мизер здесь; add --again or --leave-open when asked).
Or any pulka command without the game's name: entry Vera whists 4 --on Boris, pencil Vera,
correct 16 2, tricks Anna=6 Boris=2 Vera=2 --deal 3, annul, sheet, log --only-deal 3, settle.
u (undo) withdraws the last record while it is in hand; end (q) ends the session."""


def prompt_of(state: GameState) -> str:
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        return next_deal_text(state) + " > "
    return next_text(state) + " > "


def run(args: list[str], obj: dict[str, Any]) -> bool:
    """Run one pulka command inside the session; True when it succeeded."""
    try:
        main.main(args=args, prog_name="pulka", standalone_mode=False, obj=dict(obj))
    except click.exceptions.Exit as exc:
        return exc.exit_code == 0
    except click.ClickException as exc:
        exc.show()
        return False
    except click.Abort:
        click.echo("pulka: not done", err=True)
        return False
    return True


def words_of(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError as exc:
        click.echo(f"pulka: cannot read that line: {exc}", err=True)
        return None


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
            raise click.UsageError("name the game, or choose one with `pulka use GAME`")
        game = chosen[0]
    with opened(address) as ledger:
        state = ledger.state(game)
    if not isinstance(state, GameState):
        raise UserError(f"pulka play is a pulka's session; {game!r} is a rubber of bridge: record it with "
                        "pulka bridge deal")
    obj = {"db": address, "game": game}
    r = state.rules
    click.echo(f"pulka play: {game} ({r.convention}, pulya to {state.started.pulya}): {', '.join(state.players)}")
    click.echo("A deal line, a command, u to undo, ? for help, end to stop.")
    click.echo(f"sheet (pulya/gora, result if settled now): {sheet_line(state)}")
    try:
        import readline  # noqa: F401  (line editing and history, where the platform has it)
    except ImportError:  # pragma: no cover
        pass
    while not state.over:
        try:
            # input() may write its prompt to the terminal itself, past the cleaned
            # standard output: the prompt (players' names) is cleaned here.
            text = input(clean(prompt_of(state))).strip()
        except EOFError:
            click.echo()
            break
        if not text:
            continue
        first = text.split()[0].lower()
        if first in END:
            break
        if first in HELP:
            click.echo(HELP_TEXT)
            continue
        if first in UNDO:
            args = ["undo", *text.split()[1:]]
        elif first in COMMANDS:
            if first in NOT_HERE:
                click.echo(f"pulka: `{first}` is not for a session; end it first", err=True)
                continue
            words = words_of(text)
            if words is None:
                continue
            args = words
        else:
            words = text.split()
            flags = [w for w in words if w in FLAGS]
            args = ["deal", *flags, "--", " ".join(w for w in words if w not in FLAGS)]
        before = state.folded
        run(args, obj)
        try:
            with opened(address) as ledger:
                state = ledger.state(game)
            assert isinstance(state, GameState)  # a pulka it was, a pulka it stays
        except UserError as exc:
            exc.show()
            return
        if state.folded != before:
            click.echo(f"sheet: {sheet_line(state)}")
    click.echo()
    click.echo(render_settlement(state, Point()), nl=False)

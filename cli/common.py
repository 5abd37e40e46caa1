"""What every command of ``pulka`` shares: the store option, the points in time, opening
the ledger, turning refusals into messages, and printing JSON.

A refused input prints ``pulka: <reason>`` on standard error and exits with status 1;
it never shows a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from ledger.command.application import BrokenChainError, ImpossibleEventError, Ledger, bulk
from ledger.command.storage import mask
from ledger.command.store import ConcurrentWriteError, Reading, Store, StoreError, UnreadableEventError
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.rules import RuleSetError
from projections.report import PointError

F = TypeVar("F", bound=Callable[..., Any])


class UserError(click.ClickException):
    """A refusal: reason on standard error, exit status 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"pulka: {self.message}", err=True)


def db_option(f: F) -> F:
    return click.option(
        "--db",
        envvar="PULKA_DB",
        default="pulka.db",
        show_default=True,
        help="SQLite file, or a postgresql:// address.",
    )(f)


def point_options(f: F) -> F:
    f = click.option("--time", "time_", metavar="T", help="As of this ISO 8601 time.")(f)
    f = click.option("--deal", "deal", type=int, metavar="K", help="As of the end of deal K.")(f)
    f = click.option("--at", "at", type=int, metavar="N", help="As of the N-th event of the game.")(f)
    return f


def read_anyway_option(f: F) -> F:
    return click.option(
        "--read-anyway",
        is_flag=True,
        help="Show a game whose hash chain is broken (the break is named on standard error).",
    )(f)


@contextmanager
def opened(db: str, *, write: bool = False) -> Iterator[Ledger]:
    """The ledger on the store ``db``; every refusal inside becomes a UserError, and
    no message shows the address's password.

    Only a command that records (``write``) creates the store's table when it is
    missing; a reading command never changes the database.
    """
    try:
        try:
            store = Store(db, create=write)
        except StoreError as exc:
            raise UserError(f"store error: {exc}") from None
        try:
            with refusals(), bulk():
                yield Ledger(store)
        finally:
            store.close()
    except click.ClickException as exc:
        masked = mask(exc.message, db)
        if masked == exc.message:
            raise
        raise UserError(masked) from None


def sound(reading: Reading, game: str, anyway: bool) -> Reading:
    """What a reading command shows: a game whose chain is broken is refused, or,
    with ``--read-anyway``, shown with the break named on standard error."""
    if reading.problem is not None:
        broken = BrokenChainError(game, reading.problem)
        if not anyway:
            raise UserError(f"refused: {broken}; --read-anyway shows it regardless")
        click.echo(f"pulka: warning: {broken}; shown because of --read-anyway", err=True)
    return reading


@contextmanager
def refusals() -> Iterator[None]:
    """Refusals of the ledger as messages for the user (exit status 1)."""
    try:
        yield
    except Refused as exc:
        raise UserError(f"refused: {exc}") from None
    except (PointError, RuleSetError) as exc:
        raise UserError(str(exc)) from None
    except ConcurrentWriteError as exc:
        raise UserError(f"not stored: {exc}") from None
    except (BrokenChainError, ImpossibleEventError, UnreadableEventError) as exc:
        raise UserError(f"refused: {exc}") from None
    except StoreError as exc:
        raise UserError(f"store error: {exc}") from None


def emit(doc: Any) -> None:
    click.echo(json.dumps(doc, ensure_ascii=False))

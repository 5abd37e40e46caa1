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

from ledger.command.application import Ledger
from ledger.command.store import ConcurrentWriteError, Store, StoreError
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


def by_option(f: F) -> F:
    """Who records it: a player, scorer:NAME or arbiter:NAME [Code 4.2.4-4.2.7]; a
    scorer at a club table sets PULKA_BY once."""
    return click.option(
        "--by",
        envvar="PULKA_BY",
        help="Who records it: a player, scorer:NAME or arbiter:NAME (default: PULKA_BY, else the rules' default).",
    )(f)


def point_options(f: F) -> F:
    f = click.option("--time", "time_", metavar="T", help="As of this ISO 8601 time.")(f)
    f = click.option("--deal", "deal", type=int, metavar="K", help="As of the end of deal K.")(f)
    f = click.option("--at", "at", type=int, metavar="N", help="As of the N-th event of the game.")(f)
    return f


@contextmanager
def opened(db: str) -> Iterator[Ledger]:
    """The ledger on the store ``db``; every refusal inside becomes a UserError."""
    try:
        store = Store(db)
    except StoreError as exc:
        raise UserError(f"cannot open the store {db!r}: {exc}") from None
    try:
        with refusals():
            yield Ledger(store)
    finally:
        store.close()


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
    except StoreError as exc:
        raise UserError(f"store error: {exc}") from None


def emit(doc: Any) -> None:
    click.echo(json.dumps(doc, ensure_ascii=False))

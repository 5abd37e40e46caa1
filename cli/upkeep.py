"""The store over the years (README, "Operations"): ``pulka upgrade`` brings a store
written by an earlier pulka to this one's layout, ``pulka copy ADDRESS`` copies the whole
store into another (SQLite to PostgreSQL and back), ``pulka backup FILE`` backs a store
up while the service writes it. What they do is ``ledger.desks.upkeep``; here they are
parsed and said.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from cli.common import UserError, db_option, opened, refusals, rerated_note, store_address
from ledger.store.backend import mask, store_label
from ledger.store.layout import LAYOUT
from ledger.vocabulary import language
from ledger.vocabulary.wording import spoken_count

_ = language._  # every text a person reads, in the language in effect


@click.command()
@db_option
def upgrade(db: str | None) -> None:
    """Bring a store written by an earlier pulka to this pulka's layout, in one
    transaction (a writing command does it too)."""
    from ledger.desks.upkeep import upgraded

    with opened(db, write=True, upgrade=False) as ledger:
        store = ledger.store
        if not store.has_events_table():
            raise UserError(_("the store {store} has no events table yet: nothing to upgrade").format(
                store=store.description))
        done = upgraded(store)
        if done is None:
            click.echo(_("the store {store} is at layout {now}, this pulka's").format(
                store=store.description, now=LAYOUT))
            return
        click.echo(_("the store {store} is upgraded from layout {was} to layout {now}").format(
            store=store.description, was=done.was, now=done.now))
        if done.views is not None:
            click.echo(_("its player views were dropped and are folded again from the events by the next read "
                         "({why})").format(why=done.views))
        if done.rerated:
            click.echo(rerated_note())


@contextmanager
def masked(*addresses: str) -> Iterator[None]:
    """Refusals as messages (exit status 1), no password of these addresses in them."""
    try:
        with refusals():
            yield
    except click.ClickException as exc:
        message = exc.message
        for address in addresses:
            message = mask(message, address)
        if message == exc.message:
            raise
        raise UserError(message) from None


@click.command("copy")
@click.argument("target", metavar="ADDRESS")
@db_option
def copy_(target: str, db: str | None) -> None:
    """Copy the whole store into the empty store ADDRESS (SQLite to PostgreSQL and back):
    every event in its order, the register, tournaments, receipts, accounts, tokens,
    checkpoints."""
    from ledger.desks.upkeep import copied

    source = store_address(db)
    with masked(source, target):
        done = copied(source, target)
    click.echo(_("copied {events} of {streams} into {target}").format(
        events=spoken_count(done.events, "event"), streams=spoken_count(done.streams, "stream"),
        target=store_label(target)))
    for table, rows in done.kept.items():
        click.echo(f"  {table}: {spoken_count(rows, 'row')}")
    click.echo(_("its player views are folded; check it: pulka --db {target} verify").format(
        target=store_label(target)))


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@db_option
def backup(file: str, db: str | None) -> None:
    """Back the store up into the new SQLite file FILE, safely while the service writes
    it: SQLite by its online backup, PostgreSQL by a copy."""
    from ledger.desks.upkeep import backed_up

    source = store_address(db)
    with masked(source):
        done = backed_up(source, file)
    how = (_("SQLite's online backup") if done.how == "sqlite" else _("a copy of the store"))
    click.echo(_("backed up {store} into {file}: {events} ({how})").format(
        store=store_label(source), file=file, events=spoken_count(done.events, "event"), how=how))

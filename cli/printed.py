"""The printed pages written to a file (``--pdf FILE`` of ``pulka sheet``, ``pulka settle``
and ``pulka tournament standings``): the PDF is made by ``ledger.reads.printing``; here
the store is opened, the file written, and what happened said."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from cli.common import UserError, opened, refusals
from ledger.application import Ledger
from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect


def write_pdf(target: str, db: str | None, make: Callable[[Ledger], bytes]) -> None:
    """``make``'s PDF of the store ``db`` written into the file ``target`` (replaced
    if it is there); a refusal writes nothing."""
    with opened(db) as ledger, refusals():
        data = make(ledger)
    path = Path(target)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise UserError(_("cannot write {path}: {reason}").format(path=path, reason=exc.strerror or exc)) from None
    click.echo(_("printed to {path} (PDF, A4)").format(path=path), err=True)

"""Tables for a spreadsheet (``--csv``): a number as a spreadsheet reads it, a table as
CSV text, on standard output or into a file."""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import click

from cli.common import UserError
from cli.output import clean, uncleaned
from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect

# A table for a spreadsheet: one header row, then one row per line (commas, quotes where
# needed, as RFC 4180, but lines end in LF alone: a carriage return is one of the
# characters ``clean`` shows as an escape, and spreadsheets read either). UTF-8 begins
# with the byte order mark, which is how a spreadsheet (Excel, LibreOffice) knows the
# file is UTF-8 and shows "Вера", not mojibake; Python's csv.DictReader reads it with
# encoding="utf-8-sig".
BOM = "\ufeff"


def cell(value: Any) -> Any:
    """A number as a spreadsheet reads it: whole, or a decimal when exact, else n/d."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        d = value.denominator
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d == 1:
            return str(Decimal(value.numerator) / Decimal(value.denominator))
        return str(value)
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """One table as CSV text, without the byte order mark."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def emit_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """One table on standard output: the byte order mark (written past ``clean``, which
    would show it as an escape, being an invisible character), then the table (through
    it, as everything printed)."""
    text = csv_text(header, rows)
    sys.stdout.flush()
    click.echo(BOM, nl=False, file=uncleaned(sys.stdout))
    click.echo(text, nl=False)


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """One table into the file ``path``, the byte order mark first."""
    try:
        path.write_text(BOM + clean(csv_text(header, rows)), encoding="utf-8", newline="")
    except OSError as exc:
        raise UserError(_("cannot write {path}: {reason}").format(path=path, reason=exc.strerror)) from None

"""Exact numbers as people and the JSON documents show them.

``fmt`` writes a number of the sheet for people (``12``, ``6½``, ``-40/3``); ``number``
gives the JSON value event-log.md specifies (whole values as integers, others as the
nearest float); ``exact_text`` the exact value as a string (``"40/3"``) for the fields
that carry it beside a float; ``exact_fields`` puts both in a document and
``exact_of`` reads the exact one back. ``json_plain`` is the JSON encoder's hook of every
document the projections make and the service sends.
"""

from __future__ import annotations

from decimal import Context, localcontext
from fractions import Fraction
from typing import Any

# Money is a stake times whists (or points), exact: decimal arithmetic with room for
# every digit of the largest amounts the ledger admits (a stake of seven digits and
# six decimals, results of a billion whists), which Python's default 28 would not give.
MONEY = Context(prec=60)


def money_context() -> Any:
    """Decimal arithmetic exact for money (``MONEY``), meanwhile."""
    return localcontext(MONEY)


def number(x: Fraction | int) -> int | float:
    """Whole values as integers, others as the nearest float (event-log.md)."""
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else float(x)


def exact_text(x: Fraction | int) -> str:
    """The exact value as text: ``"12"``, ``"-40/3"``."""
    return str(Fraction(x))


def fmt(x: Fraction | int) -> str:
    """A number for people: whole, with ½, or as a fraction."""
    if isinstance(x, int):
        return str(x)
    if x.denominator == 1:
        return str(x.numerator)
    whole, rest = divmod(abs(x.numerator), x.denominator)
    sign = "-" if x < 0 else ""
    if rest * 2 == x.denominator:
        return f"{sign}{whole}½" if whole else f"{sign}½"
    return f"{sign}{abs(x.numerator)}/{x.denominator}"


def exact_fields(key: str, x: Fraction | int) -> dict[str, Any]:
    """``{key: number}``, and ``{key_exact: "n/d"}`` beside it when the number is not whole
    (the JSON number is then the nearest float; the string is exact)."""
    x = Fraction(x)
    doc: dict[str, Any] = {key: number(x)}
    if x.denominator != 1:
        doc[f"{key}_exact"] = exact_text(x)
    return doc


def exact_of(doc: dict[str, Any], key: str) -> Fraction:
    """A number of a JSON document, exactly: its ``key_exact`` string when it has one."""
    return Fraction(doc.get(f"{key}_exact", doc[key]))


def signed(x: Fraction | int) -> str:
    """A change for people: ``+2``, ``-1½``, ``0``."""
    return ("+" if x > 0 else "") + fmt(x)


def json_plain(value: Any) -> Any:
    """msgspec's ``enc_hook`` for the documents people read: a fraction as its exact text,
    a text a fold made (``wording.said``, a ``str`` of its own kind) as the plain text."""
    if isinstance(value, Fraction | str):
        return str(value)
    raise NotImplementedError(type(value))

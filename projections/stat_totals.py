"""A person's numbers added up over pulkas, without the references behind them: what the
archive's views keep for each person as the counts of his pulkas change (``archive_totals``,
``ledger.views.totals``), so that a player's page reads one row per name of his instead
of adding up every deal of every pulka he played.

A ``Totals`` maps a number's name (``contracts.7``, ``deals``, ...) to a ``Total``: how
many references count in it, how many of them brought whists (a number whose references
bring none has no whists: ``StatTally.whists`` is None), and the exact sum of what they
brought (an integer, or a Fraction; never a float). Totals are added and taken away
(``add``): a pulka counted again replaces its old counts by its new ones, a pulka left
out takes its counts away. ``totals_of_text`` reads one pulka's kept counts
(``projections.stats.counted_text``) as totals, ``totals_of_counted`` counts made from
the events (``projections.stats.pulka_counts``); ``totals_text`` and ``read_totals``
are a person's totals as the views store them (JSON: number -> [count, weighed,
numerator, denominator]).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any


@dataclass
class Total:
    count: int = 0
    weighed: int = 0  # how many of the references brought whists
    whists: int | Fraction = 0

    def whists_or_none(self) -> Fraction | None:
        """What ``StatTally.whists`` says of the same references."""
        return Fraction(self.whists) if self.weighed else None


Totals = dict[str, Total]


def add(into: Totals, other: Mapping[str, Total], sign: int = 1) -> Totals:
    """``other`` added to ``into`` (``sign`` -1: taken away); a number none counts in goes."""
    for name, t in other.items():
        mine = into.setdefault(name, Total())
        mine.count += sign * t.count
        mine.weighed += sign * t.weighed
        mine.whists += sign * t.whists
        if mine.count == 0 and mine.weighed == 0 and mine.whists == 0:
            del into[name]
    return into


def totals_of_text(text: str) -> Totals:
    """One pulka's kept counts of a person (``counted_text``), added up number by number."""
    doc = json.loads(text)
    out: Totals = {}
    for groups in (doc["deals"], doc["records"]):
        for numbers, _deal, _event, whists, *_text in groups:
            if whists is not None and isinstance(whists, list):
                whists = Fraction(*whists)
            for name in numbers:
                t = out.get(name)
                if t is None:
                    t = out[name] = Total()
                t.count += 1
                if whists is not None:
                    t.weighed += 1
                    t.whists += whists
    return out


def totals_of_counted(counted: Iterable[tuple[str, Any]]) -> Totals:
    """Counts made from a pulka's events (``pulka_counts``: number -> ``Ref``), added up."""
    out: Totals = {}
    for name, ref in counted:
        t = out.setdefault(name, Total())
        t.count += 1
        if ref.whists is not None:
            t.weighed += 1
            t.whists += ref.whists.numerator if ref.whists.denominator == 1 else ref.whists
    return out


def totals_text(totals: Mapping[str, Total]) -> str:
    """A person's totals as the views store them."""
    doc = {name: [t.count, t.weighed, Fraction(t.whists).numerator, Fraction(t.whists).denominator]
           for name, t in sorted(totals.items())}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def read_totals(text: str) -> Totals:
    """``totals_text`` read back."""
    return {name: Total(count, weighed, numerator if denominator == 1 else Fraction(numerator, denominator))
            for name, (count, weighed, numerator, denominator) in json.loads(text).items()}

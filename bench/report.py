"""How a bench prints a figure: beside the limit measured in the same run, its share of
that limit, the target stated as a share, and whether this run met it.

A figure alone (events per second, milliseconds) says little on a shared machine whose
speed changes from one minute to the next; its share of a limit measured in the same run
on the same machine (plain SQL reading the rows, a Python that imports the same
libraries) says how much of what the machine can do pulka spends. So every target is a
share: at least a fraction of a rate's limit (``Target(0.15)``: at least 15 % of it), or
at most a multiple of a time's floor (``Target(2.0, at_most=True)``: at most twice it).

One line a figure, in columns::

    figure                      value          limit         share     target    this run
    settle (SQLite)             61,471 /s      605,700 /s    10.1 %    >= 15 %   MISSED

and at the end ``summary()`` lists every target of the run, met or missed, so that a
miss is never lost in the middle of the output. Used by ``bench/bench.py``; the other
benches (``serve.py``, ``archive.py``, ``memory.py``) print their figures the same way
with ``row`` and ``Target``.
"""

from __future__ import annotations

from dataclasses import dataclass

COLUMNS = (42, 18, 18, 10, 12, 9)  # figure, value, limit, share, target, this run


@dataclass(frozen=True)
class Target:
    """A bound on a figure's share of its limit: at least ``bound`` (a rate's fraction of
    the limit's rate) or, ``at_most``, at most ``bound`` (a time's multiple of its floor).
    ``where`` says whose target it is (issue 30's, or this bench's own, and why)."""

    bound: float
    at_most: bool = False
    where: str = ""

    def met(self, share: float) -> bool:
        return share <= self.bound if self.at_most else share >= self.bound

    def text(self) -> str:
        return ("<= " if self.at_most else ">= ") + shown_share(self.bound, multiple=self.at_most)


def shown_share(share: float, *, multiple: bool) -> str:
    """A rate's share as a percentage (``12.5 %``), a time's as a multiple (``1.84 x``)."""
    return f"{share:.2f} x" if multiple else f"{100 * share:.1f} %"


@dataclass(frozen=True)
class Verdict:
    """One target of the run and how the run did against it."""

    figure: str
    share: str
    target: Target
    met: bool


_verdicts: list[Verdict] = []


def line(*cells: str) -> str:
    """The cells in the report's columns (the first left-aligned, the rest right)."""
    first, *rest = cells
    return f"  {first:<{COLUMNS[0]}}" + "".join(f"{c:>{w}}" for c, w in zip(rest, COLUMNS[1:], strict=False))


def header() -> None:
    print(line("figure", "value", "limit", "share", "target", "this run"))


def row(figure: str, value: str, limit: str = "", share: float | None = None, target: Target | None = None,
        *, multiple: bool = False) -> bool | None:
    """Print a figure with its limit, share and target; keep the verdict for ``summary``.
    ``multiple``: the share is a time's multiple of its floor (else a rate's fraction of
    its limit). Returns whether the target was met (None without one)."""
    shown = "" if share is None else shown_share(share, multiple=multiple)
    met = None if target is None or share is None else target.met(share)
    print(line(figure, value, limit, shown, target.text() if target else "",
               "" if met is None else ("met" if met else "MISSED")))
    if met is not None and target is not None:
        _verdicts.append(Verdict(figure, shown, target, met))
    return met


def summary() -> list[Verdict]:
    """Print every target of the run with its verdict (the misses first); the verdicts."""
    verdicts = sorted(_verdicts, key=lambda v: v.met)
    print(f"\nTargets of this run: {sum(v.met for v in verdicts)} met, {sum(not v.met for v in verdicts)} missed")
    for v in verdicts:
        print(f"  {'met   ' if v.met else 'MISSED'}  {v.figure}: {v.share}, target {v.target.text()}"
              + (f" ({v.target.where})" if v.target.where else ""))
    return verdicts

"""The drawn sheet laid out (``projections.drawing.svg`` draws it): the sheet's polygon
and each player's sector, the entries of each number as tokens wrapped into the lines of
its band, and the smallest sheet on which every band fits. Sizes are in pixels of the
SVG's user space; text widths are estimated from the monospace font's advance (``CHAR``
em a character, a full em for wide East Asian characters).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect

# Sizes in pixels of the SVG's user space.
FONT = 12  # entries
SMALL = 9  # the number of a correcting event, labels: the smallest text, 9 px at the sheet's own size
NAME = 14  # players' names
TARGET = 18  # the pulya target in the centre
LINE = 18  # line height of entries (a text box is about 1.17 em high)
PAD = 4  # between a band's edge and its text
MARGIN = 6  # between the sector's slanted edge or a divider and text
GAP = 1  # between entries
CENTRE = 34  # apothem of the inner polygon that holds the pulya target
MIN_APOTHEM = 120
CHAR = 0.62  # advance of a monospace character in em (DejaVu Sans Mono: 0.602)
ASCENT, DESCENT = 0.93, 0.24  # the font's box above and below the baseline, in em


@lru_cache(maxsize=1 << 14)  # the same totals and labels come again in every drawing
@lru_cache(maxsize=1 << 14)  # a sheet's texts repeat from read to read: its totals, labels and names
def text_width(text: str, size: float) -> float:
    return sum(size * (1.0 if unicodedata.east_asian_width(ch) in "WF" else CHAR) for ch in text)


# Each number as ``fmt_px`` wrote it, by its value (a zero, whose sign it writes, is
# written afresh): a drawing's places come again from read to read. At most KEPT_PX,
# all forgotten when full.
PX: dict[float, str] = {}
KEPT_PX = 1 << 14


def fmt_px(x: float) -> str:
    found = PX.get(x)
    if found is None or x == 0:
        found = f"{x:.2f}".rstrip("0").rstrip(".")
        if x != 0:
            if len(PX) >= KEPT_PX:
                PX.clear()
            PX[x] = found
    return found


# -- geometry -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """A sector's own coordinates: x along its side as its player reads it, y down the
    glyphs; ``depth`` measures inwards from the side."""

    cx: float  # the side's midpoint, relative to the centre
    cy: float
    angle: float  # degrees: the rotation of the frame
    flipped: bool  # the side is read from inside (its text would be upside down)
    # A point (x, y) of the frame is (cx + x cos - y sin, cy + x sin + y cos) on the sheet.
    cos: float = field(init=False, repr=False, compare=False)  # of the angle, worked out once
    sin: float = field(init=False, repr=False, compare=False)

    key: tuple[float, ...] = field(init=False, repr=False, compare=False)  # the frame, each zero's sign told

    def __post_init__(self) -> None:
        a = math.radians(self.angle)
        object.__setattr__(self, "cos", math.cos(a))
        object.__setattr__(self, "sin", math.sin(a))
        object.__setattr__(self, "key", (self.cx, math.copysign(1.0, self.cx), self.cy, math.copysign(1.0, self.cy),
                                         self.angle, math.copysign(1.0, self.angle), self.flipped))

    def line_top(self, depth: float) -> float:
        """The y of the top of a line whose outer edge is ``depth`` in from the side."""
        return depth if self.flipped else -(depth + LINE)

    def y_of(self, depth: float) -> float:
        return depth if self.flipped else -depth


@dataclass
class Polygon:
    n: int  # sides
    apothem: float

    @property
    def half_angle(self) -> float:
        return math.pi / self.n

    def normal(self, i: int) -> float:
        """The outward normal of side i, degrees in screen coordinates (y down): the
        first seat at the bottom, then clockwise."""
        return 90 + i * 360 / self.n

    def vertex(self, i: int, apothem: float | None = None) -> tuple[float, float]:
        """The corner between side i and side i + 1."""
        r = (apothem or self.apothem) / math.cos(self.half_angle)
        a = math.radians(self.normal(i) + 180 / self.n)
        return r * math.cos(a), r * math.sin(a)

    def half_length(self, depth: float) -> float:
        """Half the width of a sector at ``depth`` in from its side."""
        return (self.apothem - depth) * math.tan(self.half_angle)

    def frame(self, i: int) -> Frame:
        return frame_of(self.n, self.apothem, i)


@lru_cache(maxsize=1 << 10)  # a frozen frame, the same for every read that tries this size of sheet
def frame_of(n: int, apothem: float, i: int) -> Frame:
    """The frame of side i of a polygon of ``n`` sides and ``apothem`` (``Polygon.frame``)."""
    normal = Polygon(n, apothem).normal(i)
    angle = (normal - 90 + 180) % 360 - 180
    flipped = abs(angle) > 90.01
    if flipped:
        angle = (angle + 360) % 360 - 180
    a = math.radians(normal)
    return Frame(apothem * math.cos(a), apothem * math.sin(a), angle, flipped)


# -- entries as tokens, wrapped into lines ----------------------------------------------------


@dataclass(eq=False)  # one of each (``ALIKE``): told apart by identity, and hashed by it
class EntryToken:
    text: str
    width: float
    mark: dict[str, Any] | None = None  # None: a label
    cell: str = ""
    last: bool = False
    # What it draws, as one key (``svg.drawn_token``'s): its text, cell, place and entry.
    what: tuple[Any, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        m = self.mark
        self.what = (self.text, self.cell, self.last, None if m is None else (
            m["event"], m["deal"], m["total"], m["amount"], m["why"], m["penalty"], tuple(m["corrected_by"]),
            m["struck_by"]))


# Each entry's token as made, by the entry (the same dict at a later read at another
# point: ``marks_at``'s entries and the struck ones are kept) and its place in its
# cell's row: at most KEPT_ENTRY_TOKENS, all forgotten when full.
ENTRY_TOKENS: dict[tuple[int, str, bool, bool], tuple[dict[str, Any], EntryToken]] = {}
KEPT_ENTRY_TOKENS = 1 << 13


# The tokens as made, one of each: each cell's label by its text, and each entry's token
# by what it draws (its ``what``), whichever entry it was made of (an entry a correction
# marks is a new dict at every read, and so is one of the deals a read folds after its
# fork), so that a line of tokens is the same tokens at every read that draws it
# (``svg.drawn_line``). At most KEPT_ALIKE each, all forgotten when full.
LABELS: dict[str, EntryToken] = {}
ALIKE: dict[tuple[Any, ...], EntryToken] = {}
KEPT_ALIKE = 1 << 13


# Each cell's entries and their tokens as last made, by the cell's key: a cell's entries
# at one read are mostly those of the read before (the same dicts, or equal ones), and
# so are their tokens but for the last entries (its dot, the standing one). At most
# KEPT_CELLS, all forgotten when full.
CELLS: dict[str, tuple[list[dict[str, Any]], list[EntryToken], int]] = {}
KEPT_CELLS = 1 << 10


def tokens_of(cell: dict[str, Any], label: str) -> list[EntryToken]:
    first = LABELS.get(label)
    if first is None:
        if len(LABELS) >= KEPT_ALIKE:
            LABELS.clear()
        first = LABELS[label] = EntryToken(label, text_width(label, SMALL) + 3)
    marks: list[dict[str, Any]] = cell["marks"]
    standing = len(marks) - 1  # the last entry not struck (-1: none)
    while standing >= 0 and marks[standing]["struck_by"] is not None:
        standing -= 1
    key, more = cell["key"], len(marks) - 1
    # The tokens of the entries equal to those of the last read, up to the first whose
    # token may differ: each made of an equal entry with the same dot and standing.
    kept = CELLS.get(key)
    out = [first]
    start = 0
    if kept is not None:
        before, tokens, stood = kept
        start = min(same_prefix(marks, before), len(before) - 1, more, stood if stood >= 0 else more,
                    standing if standing >= 0 else more)
        if start > 0:
            out += tokens[:start]
        else:
            start = 0
    mine = out[1:start + 1]
    last = marks[standing] if standing >= 0 else None  # (a cell's entries are distinct dicts)
    for i in range(start, len(marks)):
        m = marks[i]
        made = (id(m), key, i < more, m is last)
        found = ENTRY_TOKENS.get(made)
        if found is None or found[0] is not m:
            if len(ENTRY_TOKENS) >= KEPT_ENTRY_TOKENS:
                ENTRY_TOKENS.clear()
            made_now = entry_token(m, key, i < more, m is last)
            alike = ALIKE.get(made_now.what)
            if alike is None:
                if len(ALIKE) >= KEPT_ALIKE:
                    ALIKE.clear()
                alike = ALIKE[made_now.what] = made_now
            found = ENTRY_TOKENS[made] = (m, alike)
        out.append(found[1])
        mine.append(found[1])
    if kept is None and len(CELLS) >= KEPT_CELLS:
        CELLS.clear()
    CELLS[key] = (marks, mine, standing)
    return out


def same_prefix(a: list[Any], b: list[Any]) -> int:
    """How many first items of ``a`` and ``b`` are equal, found by halves (compared as
    lists are: the same object, or an equal one)."""
    same, most = 0, min(len(a), len(b))
    if a[:most] == b[:most]:
        return most
    while same < most - 1:
        mid = (same + most) // 2
        if a[:mid] == b[:mid]:
            same = mid
        else:
            most = mid
    return same


def entry_token(m: dict[str, Any], cell: str, more: bool, last: bool) -> EntryToken:
    """An entry's token: its total (and a dot when more follow in its cell), as wide as
    drawn with its strike's number and its penalty's box."""
    text = m["total"] + ("." if more else "")
    width = text_width(text, FONT)
    if m["struck_by"] is not None:
        width += 1 + text_width(str(m["struck_by"]), SMALL)
    if m["penalty"]:
        width += 4
    return EntryToken(text, width, m, cell, last=last)


def hanging(tokens: list[EntryToken]) -> float:
    """How far the lines after the first are indented: past the label, under the first
    entry, so that a running sum carried onto the next line (the last above all) reads as
    the same run going on, not as a new entry under the label."""
    return tokens[0].width + GAP if tokens and tokens[0].mark is None else 0.0


def wrap(tokens: list[EntryToken], widths: list[float], indent: float = 0.0) -> list[list[EntryToken]] | None:
    """Greedy lines of at most ``widths[j]`` each, every line after the first ``indent``
    in from its start; None if a token fits on no line or the lines run out (``wrap_on``
    with no room past the last width)."""
    return wrap_on(tokens, lambda j: widths[j] if j < len(widths) else -math.inf, indent)


@dataclass
class Part:
    """A run of lines inside a band: x from ``left`` to ``right`` in the sector's reading
    direction (a None side follows the sector's slanted edge)."""

    tokens: list[EntryToken]
    left: float | None
    right: float | None
    lines: list[list[EntryToken]] = field(default_factory=list)
    cell: str = ""  # the cell whose tokens they are (``wrapped`` keeps each cell's wrapping apart)


@dataclass
class Band:
    column: str
    depth: float  # its outer edge
    height: float
    parts: list[Part]
    dividers: list[float]
    closed: bool = False


def extent(poly: Polygon, part: Part, depth: float) -> tuple[float, float]:
    """The x range a line of ``part`` may use when its inner edge is at ``depth``."""
    half = poly.half_length(depth) - MARGIN
    left = -half if part.left is None else part.left + MARGIN
    right = half if part.right is None else part.right - MARGIN
    return left, right


# The most lines a band may have.
MAX_LINES = 399


def fit_band(poly: Polygon, column: str, depth: float, parts: list[Part], split: int) -> Band | None:
    """The band at ``depth`` holding ``parts`` side by side on the fewest lines."""
    if split <= 2 and FIXED_BOUNDS:
        return fit_fixed(poly, column, depth, parts, split)
    for count in range(1, MAX_LINES + 1):
        inner = depth + PAD + count * LINE
        if poly.half_length(inner) < MARGIN * 2:
            return None
        # The parts share the band's inner side equally: with three (four players) the
        # middle one is a third of it; five players (one joined after one left) make four.
        half = poly.half_length(inner)
        dividers = [0.0] if split == 2 else ([-half / 3, half / 3] if split == 3 else
                                              [-half + 2 * half * k / split for k in range(1, split)])
        bounds: list[float | None] = [None, *dividers, None]
        ok = True
        for k, part in enumerate(parts):
            part.left, part.right = bounds[k], bounds[k + 1]
            widths = []
            for j in range(count):
                lo, hi = extent(poly, part, depth + PAD + (j + 1) * LINE)
                widths.append(hi - lo)
            lines = wrap(part.tokens, widths, hanging(part.tokens))
            if lines is None:
                ok = False
                break
            part.lines = lines
        if ok:
            return Band(column, depth, 2 * PAD + count * LINE, parts, dividers)
    return None


# One or two parts side by side are bounded by the sector's edges and the middle, at
# any number of lines: ``fit_fixed`` wraps each once (False: every band by ``fit_band``'s
# search, the way the tests compare them).
FIXED_BOUNDS = True


def fit_fixed(poly: Polygon, column: str, depth: float, parts: list[Part], split: int) -> Band | None:
    """``fit_band`` for one part or two split in the middle: their bounds do not move
    with the band's depth, so each part's line j has one width however many lines the
    band has, and the fewest lines are those of the part that needs most, each part
    wrapped once on as many lines as it takes (the search would try every count)."""
    dividers = [0.0] if split == 2 else []
    bounds: list[float | None] = [None, *dividers, None]
    count = 1
    for k, part in enumerate(parts):
        part.left, part.right = bounds[k], bounds[k + 1]

        def width(j: int, part: Part = part) -> float:
            lo, hi = extent(poly, part, depth + PAD + (j + 1) * LINE)
            return hi - lo

        lines = wrapped((part.cell, poly.n, poly.apothem, depth, part.left, part.right), part.tokens, width,
                        hanging(part.tokens))
        if lines is None:
            return None
        part.lines = lines
        count = max(count, len(lines))
    if count > MAX_LINES or poly.half_length(depth + PAD + count * LINE) < MARGIN * 2:
        return None  # the half length shrinks inwards: it was no shorter at fewer lines
    return Band(column, depth, 2 * PAD + count * LINE, parts, dividers)


def wrap_on(tokens: list[EntryToken], width: Callable[[int], float], indent: float) -> list[list[EntryToken]] | None:
    """``wrap`` on as many lines as it takes, line j ``width(j)`` wide; None if a token
    fits on no line (as ``wrap``: greedy, every line after the first ``indent`` in)."""
    lines, _starts, _failed = wrap_from(tokens, width, indent, [], 0)
    return lines


def wrap_from(tokens: list[EntryToken], width: Callable[[int], float], indent: float, starts: list[int],
              line: int) -> tuple[list[list[EntryToken]] | None, list[int], int | None]:
    """``wrap_on`` taken up at the start of its line ``line``, the lines before it
    starting at ``starts[:line]`` (as ``wrap_on`` made them of these tokens): the lines,
    where each line starts and the token that fit on no line (None if none did)."""
    starts = starts[:line + 1] or [0]
    lines: list[list[EntryToken]] = [tokens[a:b] for a, b in zip(starts, starts[1:])]
    lines.append([])
    used = 0.0
    room = width(line) - indent if line else width(0)
    for i in range(starts[-1], len(tokens)):
        t = tokens[i]
        while True:
            need = t.width + (GAP if lines[-1] else 0)
            if used + need <= room:
                lines[-1].append(t)
                used += need
                break
            if not lines[-1]:
                return None, starts, i  # does not fit even an empty line
            lines.append([])
            starts.append(i)
            used = 0.0
            room = width(len(lines) - 1) - indent
    return lines, starts, None


# The last wrapping of each cell's tokens in each place (``fit_fixed``'s: a size of sheet,
# the depth of a band and a part's bounds, and the indent), as the tokens, where each line
# starts, the token that fit on no line, and the lines: a cell's tokens at one point are
# mostly those at another (its earlier entries), and greedy lines depend on no later
# token, so a wrapping is taken up at its first line that holds a token not the same
# (``wrapped``), or taken whole for the same tokens. At most KEPT_WRAPS, all forgotten
# when full.
Wrapping = tuple[list[EntryToken], list[int], "int | None", "list[list[EntryToken]] | None"]
WRAPS: dict[tuple[Any, ...], Wrapping] = {}
KEPT_WRAPS = 1 << 11


def wrapped(place: tuple[Any, ...], tokens: list[EntryToken], width: Callable[[int], float],
            indent: float) -> list[list[EntryToken]] | None:
    """``wrap_on(tokens, width, indent)``, ``width`` and ``indent`` those of ``place``,
    taken up from the last wrapping in ``place`` where the tokens part (its lines are
    shared: never change one)."""
    key = (*place, indent)
    kept = WRAPS.get(key)
    line = 0
    if kept is not None:
        before, starts, failed, lines = kept
        same = same_prefix(tokens, before)  # the tokens the same as before up to ``same``
        if failed is not None and failed < same:
            return None  # the same tokens up to the one that fit on no line
        if same == len(tokens) == len(before):
            return lines
        # The last line whose start was settled by tokens the same: the token it starts with.
        while line + 1 < len(starts) and starts[line + 1] < same:
            line += 1
    lines, starts, failed = wrap_from(tokens, width, indent, kept[1] if kept is not None else [], line)
    if kept is None and len(WRAPS) >= KEPT_WRAPS:
        WRAPS.clear()
    WRAPS[key] = (tokens, starts, failed, lines)
    return lines


@dataclass
class Sector:
    seat: int
    player: str
    bands: list[Band]

    @property
    def depth(self) -> float:
        return sum(b.height for b in self.bands)


def opponents_in_reading_order(players: list[str], seat: int, frame: Frame) -> list[str]:
    """The opponents from the left end of the side to its right end as read: the next
    seat clockwise sits at the left end of an upright side, the right end of a flipped one."""
    n = len(players)
    order = [players[(seat + k) % n] for k in range(1, n)]
    return order[::-1] if frame.flipped else order


Tokens = Callable[[str, str], list[EntryToken]]  # a cell's tokens by its key and label


def layout_sector(poly: Polygon, picture: dict[str, Any], seat: int, tokens: Tokens) -> Sector | None:
    players: list[str] = picture["players"]
    player = players[seat]
    cells = {c["key"]: c for c in picture["cells"]}
    frame = poly.frame(seat)
    def part(key: str, label: str) -> Part:
        return Part(tokens(key, label), None, None, cell=key)

    parts = [part(f"{player}.whists.{q}", _("on {player}").format(player=q))
             for q in opponents_in_reading_order(players, seat, frame)]
    whists = fit_band(poly, "whists", 0.0, parts, len(parts))
    if whists is None:
        return None
    gora = fit_band(poly, "gora", whists.height, [part(f"{player}.gora", _("gora"))], 1)
    if gora is None:
        return None
    pulya_cell = cells[f"{player}.pulya"]
    label = _("pulya, closed") if pulya_cell["closed"] else _("pulya")
    pulya = fit_band(poly, "pulya", whists.height + gora.height, [part(pulya_cell["key"], label)], 1)
    if pulya is None:
        return None
    pulya.closed = pulya_cell["closed"]
    return Sector(seat, player, [whists, gora, pulya])


def layout(picture: dict[str, Any]) -> tuple[Polygon, list[Sector]]:
    """The smallest sheet on which every sector's bands fit; the pulya band takes the rest."""
    n = len(picture["players"])
    apothem = float(MIN_APOTHEM)
    cells = {c["key"]: c for c in picture["cells"]}
    made: dict[tuple[str, str], list[EntryToken]] = {}

    def tokens(key: str, label: str) -> list[EntryToken]:
        """A cell's tokens, made once for every size of sheet tried (wrapping changes none)."""
        found = made.get((key, label))
        if found is None:
            found = made[(key, label)] = tokens_of(cells[key], label)
        return found

    first = 0  # the seat whose sector did not fit at the size tried last: tried first at the next
    for _ in range(100):
        poly = Polygon(n, apothem)
        fitted: dict[int, Sector] = {}
        for seat in (first, *(s for s in range(n) if s != first)):
            sector = layout_sector(poly, picture, seat, tokens)
            if sector is None:  # a sector that does not fit grows the sheet, whatever the others do
                first = seat
                break
            fitted[seat] = sector
        if len(fitted) == n:
            done = [fitted[seat] for seat in range(n)]
            need = CENTRE + max(s.depth for s in done)
            if need <= apothem + 0.01:
                for s in done:
                    s.bands[-1].height = apothem - CENTRE - s.bands[-1].depth
                return poly, done
            apothem = max(need, apothem + 1)
        else:
            apothem *= 1.15
    raise ValueError("the sheet cannot be laid out")  # pragma: no cover: the loop always grows it

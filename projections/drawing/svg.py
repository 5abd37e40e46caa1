"""The drawn sheet: a picture document (``projections.picture``) as an SVG image.

The sheet is a regular polygon, one side per player in seat order clockwise from the
bottom: a triangle for three players, a square for four (a pentagon for five: a player
who left keeps his columns when another joins). Rays from the centre to the
corners cut it into the players' sectors. Each sector is read from its own side (its
text turned so that it is never upside down) and holds three bands, from the outside
in: the whists on each opponent (each opponent's part at the end of the side nearest
his sector), the gora, and the pulya nearest the centre, where the pulya target is
written. Entries are running sums (``2.4.8.12``), wrapped onto as many lines as they
need; the sheet grows until every line fits, so no text overlaps another.

The look: sizes in ``sheet_layout`` (the layout depends on them, and is made there), colours, strokes and the font in
``sheet.css``.
Text widths are estimated from the monospace font's advance (``CHAR`` em a character,
a full em for wide East Asian characters); the browser tests measure the real boxes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
import math
from math import copysign
from importlib.resources import files
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ledger.vocabulary import language
from ledger.vocabulary.language import N_, ngettext
from ledger.vocabulary.wording import convention_name, spoken_count
from projections.drawing.sheet_layout import (
    ASCENT, CENTRE, DESCENT, FONT, GAP, LINE, NAME, PAD, SMALL, TARGET, Band, EntryToken, Frame, Polygon, Sector,
    extent, hanging, layout, text_width,
)
from projections.drawing.sheet_layout import fmt_px as fmt_px  # the pixel numbers as every drawing writes them

_ = language._  # every text a person reads, in the language in effect
T = TypeVar("T")


@cache  # read once: a file of the package
def style() -> str:
    """The colours, strokes and font of the sheet (``sheet.css``, next to this module)."""
    return (files("projections.drawing") / "sheet.css").read_text(encoding="utf-8")


# -- drawing --------------------------------------------------------------------------------


@dataclass
class Box:
    """A drawn text's box as four corners in the SVG's coordinates (for the layout tests)."""

    text: str
    player: str | None
    corners: list[tuple[float, float]]


# The SVG is written as text, element by element, as ``xml.etree.ElementTree.tostring``
# wrote the tree it was once built as (the same bytes: tests/test_point_reads.py): an
# element with neither text nor children is ``<name a="v" />``; texts and attribute
# values are escaped as ``ElementTree`` escapes them; numbers (``fmt_px``) need none.
Out = list[str]


def escaped_text(text: str) -> str:
    """Character data as ``ElementTree`` writes it."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def escaped_attribute(text: str) -> str:
    """An attribute's value as ``ElementTree`` writes it."""
    text = escaped_text(text)
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "\r" in text:
        text = text.replace("\r", "&#13;")
    if "\n" in text:
        text = text.replace("\n", "&#10;")
    if "\t" in text:
        text = text.replace("\t", "&#09;")
    return text


def attributes(attrs: dict[str, str]) -> str:
    return written_attributes(tuple(attrs.items()))


@lru_cache(maxsize=1 << 12)  # a drawing's texts are of a few classes, anchors and players, again and again
def written_attributes(items: tuple[tuple[str, str], ...]) -> str:
    """Attributes (name, value) as ``ElementTree`` writes them."""
    return "".join([f' {k}="{escaped_attribute(v)}"' for k, v in items])


def element(name: str, attrs: dict[str, str], text: str = "") -> str:
    """An element without children: ``<name a="v">text</name>``, or ``<name a="v" />``."""
    return f"<{name}{attributes(attrs)}>{escaped_text(text)}</{name}>" if text else f"<{name}{attributes(attrs)} />"


@cache
def styled_element() -> str:
    """The sheet's own ``<style>``, written once."""
    return element("style", {}, style())


class Drawing:
    """The texts drawn so far (their boxes) and each player's sector, for the tests."""

    def __init__(self) -> None:
        # Each text drawn and its box's corners, flat (x0, y0, x1, y1, ...): the first
        # ``moved`` drawn around the centre, moved on the page by ``offset``.
        self.placed: list[tuple[str, str | None, tuple[float, ...]]] = []
        self.moved = 0
        self.offset = (0.0, 0.0)
        self.sectors: dict[str, list[tuple[float, float]]] = {}
        self.svg = ""
        # The least and most x and y of the corners of every box placed so far, each the
        # first of its equals in the order they were placed (``min`` and ``max``'s).
        self.least_x = self.least_y = math.inf
        self.most_x = self.most_y = -math.inf

    def extend(self, box: tuple[float, float, float, float]) -> None:
        """The extent grown by ``box``: the least and most x and y of some corners."""
        x0, y0, x1, y1 = box
        if x0 < self.least_x:
            self.least_x = x0
        if y0 < self.least_y:
            self.least_y = y0
        if x1 > self.most_x:
            self.most_x = x1
        if y1 > self.most_y:
            self.most_y = y1

    @property
    def boxes(self) -> list[Box]:
        """The texts' boxes in the SVG's coordinates (made when asked: only tests ask)."""
        out = []
        for i, (text, player, flat) in enumerate(self.placed):
            dx, dy = self.offset if i < self.moved else (0.0, 0.0)
            out.append(Box(text, player, [(flat[k] + dx, flat[k + 1] + dy) for k in range(0, 8, 2)]))
        return out

    def text(self, out: Out, frame: Frame | None, x: float, baseline: float, text: str, size: float,
             player: str | None, **attrs: str) -> None:
        anchor = attrs.get("text-anchor")
        if anchor is None:
            self.plain_text(out, frame, x, baseline, text, size, player, attributes(attrs))
            return
        written_text(out, x, baseline, text, size, attributes(attrs))
        w = text_width(text, size)
        if anchor == "middle":
            x -= w / 2
        elif anchor == "end":
            x -= w
        self.place(frame, x, baseline, text, size, player, w)

    def plain_text(self, out: Out, frame: Frame | None, x: float, baseline: float, text: str, size: float,
                   player: str | None, attrs: str) -> None:
        """``text`` anchored at its start, its attributes written already (``attributes``)."""
        written_text(out, x, baseline, text, size, attrs)
        self.place(frame, x, baseline, text, size, player, text_width(text, size))

    def place(self, frame: Frame | None, x: float, baseline: float, text: str, size: float, player: str | None,
              w: float) -> None:
        """A drawn text's box placed: from ``x`` on, ``w`` wide."""
        top, bottom, right = baseline - ASCENT * size, baseline + DESCENT * size, x + w
        if frame:  # on the sheet (see Frame)
            cos, sin, cx, cy = frame.cos, frame.sin, frame.cx, frame.cy
            flat: tuple[float, ...] = (
                cx + x * cos - top * sin, cy + x * sin + top * cos, cx + right * cos - top * sin,
                cy + right * sin + top * cos, cx + right * cos - bottom * sin, cy + right * sin + bottom * cos,
                cx + x * cos - bottom * sin, cy + x * sin + bottom * cos)
        else:
            flat = (x, top, right, top, right, bottom, x, bottom)
        self.placed.append((text, player, flat))
        x0, y0, x1, y1, x2, y2, x3, y3 = flat
        self.extend((min(x0, x1, x2, x3), min(y0, y1, y2, y3), max(x0, x1, x2, x3), max(y0, y1, y2, y3)))


def written_text(out: Out, x: float, baseline: float, text: str, size: float, attrs: str) -> None:
    """A ``<text>`` element at ``x``, ``baseline``, its attributes written already."""
    head = f'<text x="{fmt_px(x)}" y="{fmt_px(baseline)}" font-size="{fmt_px(size)}"{attrs}'
    out.append(f"{head}>{escaped_text(text)}</text>" if text else f"{head} />")


def bounds(placed: Placed) -> tuple[float, float, float, float]:
    """The least and most x and y of the corners of ``placed``'s boxes (as ``min`` and
    ``max`` find them: the first of equals)."""
    xs = [v for _, _, flat in placed for v in flat[0::2]]
    ys = [v for _, _, flat in placed for v in flat[1::2]]
    if not xs:
        return math.inf, math.inf, -math.inf, -math.inf
    return min(xs), min(ys), max(xs), max(ys)


def points(pts: list[tuple[float, float]]) -> str:
    return " ".join(f"{fmt_px(x)},{fmt_px(y)}" for x, y in pts)


def draw_sector(d: Drawing, out: Out, poly: Polygon, sector: Sector) -> None:
    frame = poly.frame(sector.seat)
    head, corners = kept_piece(("sector", poly.n, poly.apothem, sector.seat, sector.player),
                               lambda: sector_head(poly, frame, sector.seat, sector.player))
    out.append(head)
    # The sector's shape in the centre's coordinates, for the fill and the tests.
    d.sectors[sector.player] = list(corners)
    for band in sector.bands:
        top, bottom = band.depth, band.depth + band.height
        out.append(kept_piece(("band", poly.n, poly.apothem, frame.flipped, top, bottom, band.closed,
                               band.column != "pulya", *((x, copysign(1.0, x)) for x in band.dividers)),
                              lambda: band_rules(poly, frame, band, top, bottom)))
        for part in band.parts:
            for j, line in enumerate(part.lines):
                depth = top + PAD + j * LINE
                lo, _ = extent(poly, part, depth + LINE)
                baseline = frame.line_top(depth) + (LINE - (ASCENT + DESCENT) * FONT) / 2 + ASCENT * FONT
                x = lo + (hanging(part.tokens) if j else 0.0)
                drawn_line(d, out, frame, sector.player, line, x, baseline)
    # The name, outside the side.
    name_y = -(PAD + DESCENT * NAME) if frame.flipped else PAD + ASCENT * NAME
    kept_drawing(d, out, ("name", frame.key, sector.player), lambda mine: d.text(
        mine, frame, 0, name_y, sector.player, NAME, sector.player,
        **{"class": "name", "text-anchor": "middle", "data-player": sector.player}))
    out.append("</g></g>")


def sector_head(poly: Polygon, frame: Frame, seat: int, player: str) -> tuple[str, list[tuple[float, float]]]:
    """A sector's group, its shape and its frame's group opened; its shape's corners."""
    outer_a, outer_b = poly.vertex(seat - 1), poly.vertex(seat)
    inner_a, inner_b = poly.vertex(seat - 1, CENTRE), poly.vertex(seat, CENTRE)
    corners = [outer_a, outer_b, inner_b, inner_a]
    return "".join([
        f'<g{attributes({"class": f"sector seat-{seat}", "data-player": player})}>',
        f'<polygon class="sector-shape" points="{points(corners)}" />',
        f'<g transform="translate({fmt_px(frame.cx)} {fmt_px(frame.cy)}) rotate({fmt_px(frame.angle)})">']), corners


def band_rules(poly: Polygon, frame: Frame, band: Band, top: float, bottom: float) -> str:
    """A band's fill when closed, its rule and its dividers."""
    out: Out = []
    if band.closed:
        out.append('<polygon class="closed-band" points="' + points([
            (-poly.half_length(top), frame.y_of(top)), (poly.half_length(top), frame.y_of(top)),
            (poly.half_length(bottom), frame.y_of(bottom)),
            (-poly.half_length(bottom), frame.y_of(bottom))]) + '" />')
    if band.column != "pulya":
        h, y = fmt_px(poly.half_length(bottom)), fmt_px(frame.y_of(bottom))
        out.append(f'<line class="rule" x1="{fmt_px(-poly.half_length(bottom))}" x2="{h}" y1="{y}" y2="{y}" />')
    for x in band.dividers:
        out.append(f'<line class="divider" x1="{fmt_px(x)}" x2="{fmt_px(x)}" y1="{fmt_px(frame.y_of(top))}" '
                   f'y2="{fmt_px(frame.y_of(bottom))}" />')
    return "".join(out)


# The pieces of a drawing that depend on the size of the sheet and on little else (a
# sector's head, a band's rules, the outline, a name, the centre), each by all it is
# drawn from, in the language it says (``kept_piece``, ``kept_drawing``): most are drawn
# again by every read on a sheet of the same size. At most KEPT_PIECES, all forgotten
# when full.
SHEET_PIECES: dict[tuple[Any, ...], Any] = {}
KEPT_SHEET_PIECES = 1 << 12


def kept_piece(key: tuple[Any, ...], make: Callable[[], T]) -> T:
    """What ``make`` gives, made once per ``key`` (``SHEET_PIECES``)."""
    found = SHEET_PIECES.get(key)
    if found is None:
        if len(SHEET_PIECES) >= KEPT_SHEET_PIECES:
            SHEET_PIECES.clear()
        found = SHEET_PIECES[key] = make()
    return cast(T, found)


def kept_drawing(d: Drawing, out: Out, key: tuple[Any, ...], draw_it: Callable[[Out], None]) -> None:
    """What ``draw_it`` draws into ``out`` and places on ``d`` (its boxes), drawn once per
    ``key`` and language (``SHEET_PIECES``)."""
    def made() -> tuple[str, Placed, tuple[float, float, float, float]]:
        mine: Out = []
        before = len(d.placed)
        draw_it(mine)
        placed = d.placed[before:]
        del d.placed[before:]
        return "".join(mine), placed, bounds(placed)

    text, placed, box = kept_piece((*key, language.language()), made)
    out.append(text)
    d.placed += placed
    d.extend(box)


# Each token as drawn, by what it is and where (``drawn_token``): most tokens of a sheet
# read at one point are drawn where and as they were at another. At most KEPT_TOKENS
# (about a kilobyte each: some 4 MB), all forgotten when full.
TOKENS: dict[tuple[Any, ...], tuple[str, list[tuple[str, str | None, tuple[float, ...]]]]] = {}
KEPT_TOKENS = 1 << 12


# Each line of tokens as drawn, by its tokens (the same objects: ``tokens_of`` makes one
# of each), where it starts and its frame, in a language: the lines a part filled at one
# point are drawn again at every later point on a sheet of the same size. Kept with
# its texts' boxes, and the least and most x and y of their corners. At most KEPT_LINES
# (a few kilobytes each), all forgotten when full.
Placed = list[tuple[str, str | None, tuple[float, ...]]]
LINES: dict[tuple[Any, ...], tuple[str, Placed, tuple[float, float, float, float]]] = {}
KEPT_LINES = 1 << 10


def drawn_line(d: Drawing, out: Out, frame: Frame, player: str, line: list[EntryToken], x: float,
               baseline: float) -> None:
    """Each token of ``line`` drawn by ``drawn_token`` from ``x`` on, one after another,
    all taken as drawn before when the same tokens were drawn from the same place of the
    same frame (a zero's sign told apart) in the same language."""
    key = (frame.key, player, x, copysign(1.0, x), baseline, copysign(1.0, baseline), language.language(), *line)
    found = LINES.get(key)
    if found is None:
        mine: Out = []
        before = len(d.placed)
        for t in line:
            drawn_token(d, mine, frame, player, t, x, baseline)
            x += t.width + GAP
        if len(LINES) >= KEPT_LINES:
            LINES.clear()
        placed = d.placed[before:]
        found = LINES[key] = ("".join(mine), placed, bounds(placed))
    else:
        d.placed += found[1]
    out.append(found[0])
    d.extend(found[2])


def drawn_token(d: Drawing, out: Out, frame: Frame, player: str, t: EntryToken, x: float, baseline: float) -> None:
    """``draw_token``, its text and its boxes taken as drawn before when they were drawn
    for the same token (one of each: ``tokens_of``) at the same place of the same frame (a number's sign of zero,
    which ``fmt_px`` writes, told apart), in the same language."""
    key = (t, player, x, copysign(1.0, x), baseline, copysign(1.0, baseline), frame.key, language.language())
    found = TOKENS.get(key)
    if found is None:
        mine: Out = []
        before = len(d.placed)
        draw_token(d, mine, frame, player, t, x, baseline)
        if len(TOKENS) >= KEPT_TOKENS:
            TOKENS.clear()
        found = TOKENS[key] = ("".join(mine), d.placed[before:])
    else:
        d.placed += found[1]
    out.append(found[0])


def draw_token(d: Drawing, out: Out, frame: Frame, player: str, t: EntryToken, x: float, baseline: float) -> None:
    if t.mark is None:
        d.plain_text(out, frame, x, baseline, t.text, SMALL, player, ' class="label"')
        return
    opening, w, struck, penalty = token_pieces(t)
    out.append(opening)
    inset = 2.0 if penalty else 0.0
    if penalty:
        out.append(f'<rect class="penalty-box" x="{fmt_px(x)}" y="{fmt_px(baseline - ASCENT * FONT)}" '
                   f'width="{fmt_px(w + 2 * inset)}" height="{fmt_px((ASCENT + DESCENT) * FONT)}" />')
    d.plain_text(out, frame, x + inset, baseline, t.text, FONT, player, ' class="mark"')
    if struck is not None:
        mid = fmt_px(baseline - 0.3 * FONT)
        out.append(f'<line class="strike" x1="{fmt_px(x + inset)}" x2="{fmt_px(x + inset + w)}" y1="{mid}" '
                   f'y2="{mid}" />')
        d.plain_text(out, frame, x + inset + w + 1, baseline - (ASCENT - 0.1) * FONT + ASCENT * SMALL, str(struck),
                     SMALL, player, ' class="sup"')
    out.append("</g>")


# What an entry's token draws wherever it is, by the token (one of each: ``tokens_of``)
# and the language: its group's opening and title, its text's width, the event that
# struck it and whether it is a penalty. At most KEPT_PIECES, all forgotten when full.
PIECES: dict[tuple[EntryToken, str], tuple[str, float, Any, bool]] = {}
KEPT_PIECES = 1 << 13


def token_pieces(t: EntryToken) -> tuple[str, float, Any, bool]:
    """An entry's token's pieces (``PIECES``), made once per language."""
    key = (t, language.language())
    found = PIECES.get(key)
    if found is None:
        m = t.mark
        assert m is not None
        struck = m["struck_by"]
        classes = "entry" + (" struck" if struck is not None else "") + (" penalty" if m["penalty"] else "") + \
            (" last" if t.last else "")
        opening = (f'<g class="{classes}" data-cell="{escaped_attribute(t.cell)}" data-event="{m["event"]}"'
                   + (f' data-struck-by="{struck}">' if struck is not None else ">")
                   + f"<title>{escaped_text(tooltip(t.cell, m))}</title>")
        if len(PIECES) >= KEPT_PIECES:
            PIECES.clear()
        found = PIECES[key] = (opening, text_width(t.text, FONT), struck, bool(m["penalty"]))
    return found


def tooltip(cell: str, m: dict[str, Any]) -> str:
    text = _("{cell} {total} ({amount}): event {event}, deal {deal}: {why}").format(
        cell=cell, total=m["total"], amount=m["amount"], event=m["event"], deal=m["deal"], why=m["why"])
    if m["struck_by"] is not None:
        text += "; " + _("struck: changed by event {event}").format(event=m["struck_by"])
    elif m["corrected_by"]:
        text += "; " + _("corrected by event {events}").format(events=", ".join(map(str, m["corrected_by"])))
    if m["penalty"]:
        text += " " + _("(penalty)")
    return text


def outline(poly: Polygon) -> str:
    """The sheet's outline and the rays between its sectors."""
    out = [f'<polygon class="outline" points="{points([poly.vertex(i) for i in range(poly.n)])}" />']
    for i in range(poly.n):
        x1, y1, x2, y2 = map(fmt_px, (*poly.vertex(i, CENTRE), *poly.vertex(i)))
        out.append(f'<line class="outline" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" />')
    return "".join(out)


def draw_centre(d: Drawing, out: Out, poly: Polygon, target: int) -> None:
    inner = points([poly.vertex(i, CENTRE) for i in range(poly.n)])
    out.append(f'<g class="centre"><polygon class="outline" points="{inner}" />')
    d.text(out, None, 0, -TARGET * 0.5 - 2, _("pulya"), SMALL, None, **{"class": "label", "text-anchor": "middle"})
    d.text(out, None, 0, TARGET * 0.55, str(target), TARGET, None,
           **{"class": "target", "text-anchor": "middle", "data-target": str(target)})
    out.append("</g>")


def settlement_lines(picture: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The panel beside the sheet, as rows of (class, [(text, align)])."""
    s = picture["settlement"]
    money = s["stake"] is not None
    status = {"finished": _("finished"), "abandoned": _("abandoned"), "capped": _("over: the deal cap (as abandoned)"),
              "in play": _("in play: as if abandoned now")}[s["status"]]
    rows: list[tuple[str, list[tuple[str, str]]]] = [
        ("panel-head", [(_("settlement"), "start")]),
        ("status", [(status, "start")]),
        ("panel-head", [(_("player"), "start"), (_("pulya"), "end"), (_("gora"), "end"), (_("whists"), "end")]
         + ([(_("money"), "end")] if money else [])),
    ]
    for r in s["rows"]:
        rows.append(("row", [(r["player"], "start"), (r["pulya"], "end"), (r["gora"], "end"),
                             (f"{r['rounded']:+d}", "end")] + ([(r["money"], "end")] if money else [])))
    rows.append(("panel-head", [(_("who pays whom"), "start")]))
    for t in s["transfers"]:
        pay = ngettext("{payer} pays {payee} {n} whist", "{payer} pays {payee} {n} whists", t["whists"]).format(
            payer=t["from"], payee=t["to"], n=t["whists"]) + (f" ({t['money']})" if money else "")
        rows.append(("row", [(pay, "start")]))
    if not s["transfers"]:
        rows.append(("row", [(_("nobody pays"), "start")]))
    return rows


def draw_panel(d: Drawing, out: Out, picture: dict[str, Any], x0: float, y0: float) -> tuple[float, float]:
    """The settlement beside the sheet; returns its width and height."""
    rows = settlement_lines(picture)
    columns = max(len(cells) for _, cells in rows if len(cells) > 1)
    widths = [0.0] * columns
    for _, cells in rows:
        if len(cells) > 1:
            for k, (text, _) in enumerate(cells):
                widths[k] = max(widths[k], text_width(text, FONT))
    out.append('<g class="settlement">')
    y = y0
    full = sum(widths) + 2 * FONT * (columns - 1)
    for cls, cells in rows:
        size = SMALL if cls == "label" else FONT
        baseline = y + (LINE - (ASCENT + DESCENT) * size) / 2 + ASCENT * size
        if len(cells) == 1:
            d.text(out, None, x0, baseline, cells[0][0], size, None, **{"class": cls})
            full = max(full, text_width(cells[0][0], size))
        else:
            x = x0
            for k, (text, align) in enumerate(cells):
                at = x + widths[k] if align == "end" else x
                attrs = {"class": cls, **({"text-anchor": "end"} if align == "end" else {})}
                if k == 0 and cls == "row":
                    attrs["data-player"] = text
                d.text(out, None, at, baseline, text, size, None, **attrs)
                x += widths[k] + 2 * FONT
        y += LINE
    out.append("</g>")
    return full, y - y0


def draw(picture: dict[str, Any], *, title: bool = True, settlement: bool = True, styled: bool = True,
         before: str = "", after: str = "") -> Drawing:
    """A picture document drawn: ``.svg`` is the SVG element (written between ``before``
    and ``after``: a file's, in one piece). ``styled``: with its own copy of ``sheet.css``
    (a page holding many sheets includes it once)."""
    poly, sectors = layout(picture)
    d = Drawing()
    body: Out = []
    for sector in sectors:
        draw_sector(d, body, poly, sector)
    body.append(kept_piece(("outline", poly.n, poly.apothem), lambda: outline(poly)))
    kept_drawing(d, body, ("centre", poly.n, poly.apothem, picture["target"]),
                 lambda mine: draw_centre(d, mine, poly, picture["target"]))
    # Everything so far is drawn around the centre (0, 0): find its extent.
    for i in range(poly.n):
        vx, vy = poly.vertex(i)
        d.extend((vx, vy, vx, vy))
    left, top, right, bottom = d.least_x, d.least_y, d.most_x, d.most_y
    head = LINE + PAD if title else 0
    dx, dy = 10 - left, 10 + head - top
    d.moved, d.offset = len(d.placed), (dx, dy)
    for player, corners in d.sectors.items():
        d.sectors[player] = [(x + dx, y + dy) for x, y in corners]
    width, height = right - left + 20, bottom - top + 20 + head
    beside: Out = []  # what follows the sheet: the settlement, the title, the checkpoint
    if settlement:
        pw, ph = draw_panel(d, beside, picture, width + 10, 10 + head)
        width += pw + 20
        height = max(height, ph + head + 20)
    if title:
        text = title_of(picture)
        d.text(beside, None, 10, 10 + ASCENT * NAME, text, NAME, None, **{"class": "title"})
        width = max(width, text_width(text, NAME) + 20)
    if picture.get("checkpoint"):  # the signed checkpoint of the club log that covers it
        d.text(beside, None, 10, height + ASCENT * FONT, picture["checkpoint"], FONT, None,
               **{"class": "checkpoint"})
        width = max(width, text_width(picture["checkpoint"], FONT) + 20)
        height += LINE + PAD
    w, h = fmt_px(width), fmt_px(height)
    d.svg = "".join([
        before,
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pulka-sheet" data-players="{len(picture["players"])}" '
        f'viewBox="0 0 {w} {h}" width="{w}" height="{h}">',
        styled_element() if styled else "",
        f'<g transform="translate({fmt_px(dx)} {fmt_px(dy)})">', *body, "</g>", *beside, "</svg>", after])
    return d


# The state of the pulka in the title, as the picture document names it.
STATUS = {"finished": N_("finished"), "abandoned": N_("abandoned"), "capped": N_("capped"), "in play": N_("in play")}


def title_of(picture: dict[str, Any]) -> str:
    parts = [_("pulka {game}").format(game=picture["game"]), convention_name(picture["convention"]),
             _("pulya to {target}").format(target=picture["target"])]
    if "event" in picture:
        parts.append(_("{deals}, {point} (event {event})").format(
            deals=spoken_count(picture["deals"], "deal"), point=picture["point"], event=picture["event"]))
    status = picture["settlement"]["status"]
    parts.append(_(STATUS[status]) if status in STATUS else status)
    return " · ".join(parts)


def svg_document(picture: dict[str, Any]) -> str:
    """A standalone SVG file: ``pulka sheet --svg``."""
    return draw(picture, before='<?xml version="1.0" encoding="UTF-8"?>\n', after="\n").svg


def page_sheet(picture: dict[str, Any]) -> str:
    """The sheet alone, for a page of ``pulka serve`` that draws it inside itself (its
    ``?part=sheet``): no title and no settlement panel (the page shows both as its own
    text, in a phone's width), and no style of its own (the page links ``sheet.css``:
    its policy allows no inline style)."""
    return draw(picture, title=False, settlement=False, styled=False, after="\n").svg

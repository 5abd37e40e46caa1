"""The printed pages: a pulka's sheet, its settlement and a tournament's standings as PDF
on A4, to pin on the club's wall (``pulka sheet --pdf``, ``pulka settle --pdf``,
``pulka tournament standings --pdf`` and the service's ``sheet.pdf``,
``settlement.pdf`` and ``standings.pdf``).

Documents in, bytes out: the picture document (``projections.picture``), the standings
document (``projections.tournament_state.standings_doc``) and the checkpoint that covers
what is printed (its caption and signed note, ``projections.attested``); nothing here
reads the store. Every page ends with that checkpoint as text and as a QR code holding
the note, so that a player can check the wall against the club's published log.

Drawn by fpdf2 with DejaVu Sans Mono (``fonts/``, its licence beside it): a font the
package carries, so that Cyrillic names and the suits print on a machine with no fonts of
its own, and the one the sheet's layout measures its text with. The drawn sheet is the
SVG of ``projections.drawing.svg`` with its stylesheet written onto each element
(fpdf2 reads a style on the element, not a stylesheet's descendant selectors); its
texts stay text in the PDF, so they can be searched and read back.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from importlib.resources import as_file, files
from typing import Any, Iterator

import segno
from fpdf import FPDF
from fpdf.enums import XPos, YPos

from ledger.vocabulary import language
from ledger.vocabulary.language import ngettext
from projections.drawing.svg import draw, settlement_lines, style, title_of

_ = language._  # every text a person reads, in the language in effect

FAMILY = "pulka-mono"  # the vendored font's name inside the PDF
WIDTH = 190.0  # mm of an A4 page upright between its margins (10 mm each side)
SHEET_HEIGHT = 140.0  # mm the drawn sheet may take of the first page: the settlement and the checkpoint fit under it
# mm a pixel of the drawn sheet at least, while it shares the page: its entries (12 px)
# 10 pt, its smallest text (9 px) 7.5 pt; a sheet that would be drawn smaller takes the page
LEGIBLE = 0.3
TEXT = 10.0  # pt: the tables and the notes
HEAD = 14.0  # pt: the page's title
SMALL = 7.0  # pt: the signed note (long lines of base64)
QR = 44.0  # mm: the side of the checkpoint's QR code (a module of a signed note about 0.7 mm, for a phone)
NAMES, NUMBERS = 60.0, 26.0  # mm: the columns of a table of players (a name, then numbers)
SVG_NS = "{http://www.w3.org/2000/svg}"


# -- the page -------------------------------------------------------------------------------


def new_page(title: str, wide: float = WIDTH) -> FPDF:
    """An A4 document in the vendored font, its title on the first page: upright, or
    turned when ``wide`` (mm) is wider than the upright page holds (a table of many
    tours)."""
    pdf = FPDF(orientation="portrait" if wide <= WIDTH else "landscape", unit="mm", format="A4")
    fonts = files("projections.drawing") / "fonts"
    for style_, name in (("", "DejaVuSansMono.ttf"), ("B", "DejaVuSansMono-Bold.ttf")):
        with as_file(fonts / name) as path:
            pdf.add_font(FAMILY, style_, str(path))
    pdf.set_margins(10, 10, 10)
    pdf.set_auto_page_break(True, margin=10)
    pdf.set_title(title)
    pdf.set_lang(language.language())
    pdf.set_creator("pulka")
    pdf.add_page()
    pdf.set_font(FAMILY, "B", HEAD)
    pdf.multi_cell(pdf.epw, HEAD * 0.5, title, new_x=XPos.LMARGIN, new_y=YPos.NEXT, align="L")
    pdf.ln(2)
    return pdf


def finished(pdf: FPDF, checkpoint: dict[str, Any] | None) -> bytes:
    """The document with the checkpoint's section at its end, as bytes."""
    draw_checkpoint(pdf, checkpoint)
    return bytes(pdf.output())


def draw_checkpoint(pdf: FPDF, checkpoint: dict[str, Any] | None) -> None:
    """The signed checkpoint of the club log that covers what is printed: its caption,
    and its note as text beside a QR code holding it; a store that keeps no checkpoint
    says so."""
    caption = (checkpoint or {}).get("caption") or _("no signed checkpoint of the club log covers this yet")
    note = (checkpoint or {}).get("note")
    needed = 12 + (QR if note else 0)
    if pdf.get_y() + needed > pdf.h - pdf.b_margin:
        pdf.add_page()
    pdf.ln(4)
    pdf.set_font(FAMILY, "B", TEXT)
    pdf.cell(pdf.epw, TEXT * 0.5, _("checkpoint"), new_x=XPos.LMARGIN, new_y=YPos.NEXT, align="L")
    pdf.set_font(FAMILY, "", TEXT)
    pdf.multi_cell(pdf.epw, TEXT * 0.45, caption, new_x=XPos.LMARGIN, new_y=YPos.NEXT, align="L")
    if not note:
        return
    top = pdf.get_y() + 2
    draw_qr(pdf, note, pdf.l_margin, top, QR)
    pdf.set_xy(pdf.l_margin + QR + 4, top)
    pdf.set_font(FAMILY, "", SMALL)
    pdf.multi_cell(pdf.epw - QR - 4, SMALL * 0.45, note.rstrip("\n"), new_x=XPos.LMARGIN, new_y=YPos.NEXT, align="L")
    pdf.set_y(max(pdf.get_y(), top + QR))


def qr_modules(text: str) -> list[tuple[int, int, int]]:
    """The dark modules of the QR code holding ``text`` (error correction M, as the
    pages draw it), as horizontal runs (row, first column, length), quiet zone
    included in the numbering (four modules)."""
    runs = []
    for y, row in enumerate(segno.make(text, error="m", micro=False).matrix_iter(border=4)):
        x, cells = 0, list(row)
        while x < len(cells):
            if cells[x]:
                start = x
                while x < len(cells) and cells[x]:
                    x += 1
                runs.append((y, start, x - start))
            else:
                x += 1
    return runs


def draw_qr(pdf: FPDF, text: str, x: float, y: float, side: float) -> None:
    """The QR code of ``text`` as filled rectangles, ``side`` mm wide at (x, y)."""
    size = segno.make(text, error="m", micro=False).symbol_size(border=4)[0]
    module = side / size
    pdf.set_fill_color(0, 0, 0)
    for row, column, length in qr_modules(text):
        pdf.rect(x + column * module, y + row * module, length * module, module, style="F")


def pdf_table(pdf: FPDF, rows: list[list[str]], aligns: list[str], widths: list[float] | None = None) -> None:
    """A table with its first row as headings; ``aligns``: L or R for each column."""
    pdf.set_font(FAMILY, "", TEXT)
    widths = widths or [NAMES] + [NUMBERS] * (len(aligns) - 1)
    with pdf.table(col_widths=widths, text_align=tuple(aligns), first_row_as_headings=True,
                   width=min(pdf.epw, sum(widths)), line_height=TEXT * 0.5, align="LEFT") as grid:
        for cells in rows:
            row = grid.row()
            for text in cells:
                row.cell(text)


def heading(pdf: FPDF, text: str) -> None:
    pdf.ln(2)
    pdf.set_font(FAMILY, "B", TEXT + 1)
    pdf.multi_cell(pdf.epw, TEXT * 0.55, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT, align="L")
    pdf.ln(1)


def paragraph(pdf: FPDF, text: str) -> None:
    pdf.set_font(FAMILY, "", TEXT)
    pdf.multi_cell(pdf.epw, TEXT * 0.5, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT, align="L")


# -- the sheet and the settlement ---------------------------------------------------------------


def sheet_pdf(picture: dict[str, Any], checkpoint: dict[str, Any] | None) -> bytes:
    """The drawn sheet as of the picture's point, its settlement under it, and the
    checkpoint."""
    pdf = new_page(title_of(picture))
    svg, width, height = printable_svg(picture)
    top = pdf.get_y()
    scale = min(WIDTH / width, SHEET_HEIGHT / height)
    if scale < LEGIBLE:  # a long pulka's sheet: the whole page for it, the settlement on the next
        scale = min(WIDTH / width, (pdf.h - pdf.b_margin - top) / height)
    # fpdf2 knows an SVG in memory by its XML declaration
    image = io.BytesIO(b'<?xml version="1.0" encoding="UTF-8"?>\n' + svg.encode("utf-8"))
    pdf.image(image, x=pdf.l_margin + (WIDTH - width * scale) / 2, y=top, w=width * scale, h=height * scale)
    pdf.set_y(top + height * scale + 2)
    draw_settlement(pdf, picture)
    return finished(pdf, checkpoint)


def settlement_pdf(picture: dict[str, Any], checkpoint: dict[str, Any] | None) -> bytes:
    """The settlement as of the picture's point and who pays whom, and the checkpoint."""
    pdf = new_page(title_of(picture))
    draw_settlement(pdf, picture)
    return finished(pdf, checkpoint)


def draw_settlement(pdf: FPDF, picture: dict[str, Any]) -> None:
    """The settlement's rows as the drawn sheet's panel says them
    (``svg.settlement_lines``): a title, the status, the table, who pays whom."""
    lines = settlement_lines(picture)
    grid: list[list[str]] = []
    aligns: list[str] = []
    for k, (kind, cells) in enumerate(lines):
        if len(cells) > 1:  # the table's head and its rows
            grid.append([text for text, _a in cells])
            aligns = ["R" if align == "end" else "L" for _t, align in cells]
            continue
        if grid:
            pdf_table(pdf, grid, aligns)
            grid = []
        if kind == "panel-head":
            heading(pdf, cells[0][0])
        else:
            paragraph(pdf, cells[0][0])
    if grid:
        pdf_table(pdf, grid, aligns)


def printable_svg(picture: dict[str, Any]) -> tuple[str, float, float]:
    """The drawn sheet without its title and panel (the page prints those as text), its
    stylesheet written onto each element, its tooltips dropped; and its size."""
    root = ET.fromstring(draw(picture, title=False, settlement=False, styled=False).svg)
    rules = css_rules(style())
    for element, ancestors in walk(root, []):
        for title in element.findall(f"{SVG_NS}title"):
            element.remove(title)
        found = [(specificity, n, decls) for n, (chain, specificity, decls) in enumerate(rules)
                 if matches(chain, element, ancestors)]
        if found:
            merged: dict[str, str] = {}
            for _s, _n, decls in sorted(found, key=lambda f: (f[0], f[1])):
                merged.update(decls)
            element.set("style", "; ".join(f"{k}: {v}" for k, v in merged.items()))
    return ET.tostring(root, encoding="unicode"), float(root.get("width", "1")), float(root.get("height", "1"))


# -- the stylesheet written onto the elements ---------------------------------------------------

# A compound selector: its tag (None: any) and its classes.
Compound = tuple[str | None, frozenset[str]]
RULE = re.compile(r"([^{}]+)\{([^}]*)\}")


def css_rules(css: str) -> list[tuple[list[Compound], tuple[int, int], dict[str, str]]]:
    """The rules of ``sheet.css``: each selector as its chain of compounds (descendant
    combinators only, as that file writes them), its specificity, and its declarations;
    the selectors of a pointer (``:hover``) and of a choice on the page (``.selected``)
    have no print."""
    out = []
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    for selectors, body in RULE.findall(css):
        decls = {k.strip(): v.strip() for k, _c, v in (d.partition(":") for d in body.split(";")) if v.strip()}
        decls = {k: (FAMILY if k == "font-family" else v) for k, v in decls.items() if k != "cursor"}
        for selector in selectors.split(","):
            if ":" in selector or ".selected" in selector or not decls:
                continue
            chain = [compound(part) for part in selector.split()]
            classes = sum(len(c) for _t, c in chain)
            out.append((chain, (classes, sum(t is not None for t, _c in chain)), decls))
    return out


def compound(text: str) -> Compound:
    tag, *classes = text.split(".")
    return (tag or None, frozenset(classes))


def fits(c: Compound, element: ET.Element) -> bool:
    tag, classes = c
    name = element.tag.removeprefix(SVG_NS)
    return (tag is None or tag == name) and classes <= set(element.get("class", "").split())


def matches(chain: list[Compound], element: ET.Element, ancestors: list[ET.Element]) -> bool:
    """Whether a descendant selector's chain selects ``element`` (its ancestors
    outermost first)."""
    if not fits(chain[-1], element):
        return False
    i = len(ancestors)
    for c in reversed(chain[:-1]):
        while i > 0 and not fits(c, ancestors[i - 1]):
            i -= 1
        if i == 0:
            return False
        i -= 1
    return True


def walk(element: ET.Element, ancestors: list[ET.Element]) -> Iterator[tuple[ET.Element, list[ET.Element]]]:
    yield element, ancestors
    for child in list(element):
        yield from walk(child, [*ancestors, element])


# -- a tournament's standings ---------------------------------------------------------------


def standings_pdf(doc: dict[str, Any], checkpoint: dict[str, Any] | None) -> bytes:
    """A tournament's standings (``standings_doc``): place, player, points, whists, tours
    won, each tour's points and whists, the status; and the checkpoint."""
    after = doc["after_tour"]
    title = (_("tournament {name}: standings after tour {tour}").format(name=doc["tournament"], tour=after) if after
             else _("tournament {name}: standings, no tour closed yet").format(name=doc["tournament"]))
    tours = sorted({e["tour"] for r in doc["standings"] for e in r["tours"]})
    widths = [16.0, 40.0, 18.0, 18.0, 14.0] + [26.0] * len(tours) + [30.0]
    pdf = new_page(title, sum(widths))
    head = [_("place"), _("player"), _("points"), _("whists"), _("won")] + [
        _("tour {tour}").format(tour=t) for t in tours] + [_("status")]
    rows = [head]
    for r in doc["standings"]:
        by_tour = {e["tour"]: e for e in r["tours"]}
        cells = [tour_cell(by_tour.get(t)) for t in tours]
        cards = ngettext("{n} card", "{n} cards", r["cards"]).format(n=r["cards"]) if r["cards"] else ""
        rows.append([str(r["place"]), r["player"], points_of(r["points"]), f"{r['whists']:+d}", str(r["tours_won"]),
                     *cells, ", ".join(s for s in (player_status(r["status"]), cards) if s)])
    pdf_table(pdf, rows, ["R", "L", "R", "R", "R"] + ["R"] * len(tours) + ["L"], widths)
    pdf.ln(2)
    paragraph(pdf, _("Tour cells: points (whists). Points are the rounded tour result through the cut-off "
                     "function."))
    if any(e.get("in_play") for r in doc["standings"] for e in r["tours"]):
        paragraph(pdf, _("* a table still in play: its result as if abandoned now, not counted."))
    return finished(pdf, checkpoint)


def points_of(value: Any) -> str:
    """Points as the standings document gives them: a whole number, or the nearest float."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def tour_cell(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "-"
    return f"{points_of(entry['points'])}{'*' if entry.get('in_play') else ''} ({entry['whists']:+d})"


# A player's status in the standings, as the document names it.
STATUS = {"playing": language.N_("playing"), "finished": language.N_("finished"), "removed": language.N_("removed"),
          "cut": language.N_("cut"), "disqualified": language.N_("disqualified"), "final": language.N_("final")}


def player_status(status: str) -> str:
    return _(STATUS[status]) if status in STATUS else status

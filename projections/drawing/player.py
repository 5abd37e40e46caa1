"""The club's numbers drawn: the rating table with a sparkline per player
(``pulka rating --html``) and a player's page (``pulka stats NAME --html``, ``pulka
rating NAME --html``): his rating pulka by pulka as a line, his results per pulka as
bars, and every statistic with the deals behind it.

Built from documents only (``projections.rating.table_doc``/``rating_history_doc``,
``projections.stats.stats_doc`` with each number's references), drawn with
ElementTree as the sheet is (``svg.py``); the pages load nothing and run no script: a
number's deals open in a ``<details>``. The look is ``report.css`` and ``player.css``.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.wording import spoken_text
from projections.drawing.page import fill, resource
from projections.drawing.svg import fmt_px
from projections.stat_names import number_name

_ = language._  # every text a person reads, in the language in effect

FONT = 11
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 44, 10, 22, 18


def _svg(width: float, height: float, label: str, cls: str) -> ET.Element:
    root = ET.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {fmt_px(width)} {fmt_px(height)}",
                              "width": fmt_px(width), "height": fmt_px(height), "role": "img", "class": cls,
                              "aria-label": label})
    ET.SubElement(root, "title").text = label
    return root


def _scale(values: list[float], top: float, bottom: float) -> tuple[float, float, Any]:
    low, high = min(values + [0.0]), max(values + [0.0])
    if high == low:
        high = low + 1
    return low, high, lambda v: bottom - (v - low) / (high - low) * (bottom - top)


def sparkline(values: list[float], label: str, width: float = 120, height: float = 24) -> str:
    """A player's rating after each of his pulkas, as one small line."""
    root = _svg(width, height, label, "spark")
    if values:
        _, _, y = _scale(values, 2, height - 2)
        step = (width - 4) / max(1, len(values) - 1)
        pts = [(2 + i * step, y(v)) for i, v in enumerate(values)]
        ET.SubElement(root, "polyline", {"points": " ".join(f"{fmt_px(a)},{fmt_px(b)}" for a, b in pts),
                                         "class": "spark-line", "data-points": str(len(pts))})
        ET.SubElement(root, "circle", {"cx": fmt_px(pts[-1][0]), "cy": fmt_px(pts[-1][1]), "r": "2",
                                       "class": "spark-end"})
    return ET.tostring(root, encoding="unicode")


def _frame(root: ET.Element, width: float, height: float, low: float, high: float, y: Any, title: str) -> None:
    ET.SubElement(root, "text", {"x": fmt_px(PAD_LEFT), "y": "14", "font-size": str(FONT + 1),
                                 "class": "chart-title"}).text = title
    for v in sorted({low, 0.0, high}):
        ET.SubElement(root, "line", {"x1": fmt_px(PAD_LEFT), "x2": fmt_px(width - PAD_RIGHT), "y1": fmt_px(y(v)),
                                     "y2": fmt_px(y(v)), "class": "axis" if v == 0 else "grid"})
        ET.SubElement(root, "text", {"x": fmt_px(PAD_LEFT - 4), "y": fmt_px(y(v) + 4), "font-size": str(FONT),
                                     "text-anchor": "end", "class": "tick"}).text = f"{v:g}"


def line_chart(points: list[tuple[str, float]], title: str, width: float = 640, height: float = 200) -> str:
    """Values over time (a rating after each pulka), each point titled with its game."""
    root = _svg(width, height, title, "chart rating-chart")
    values = [v for _, v in points]
    low, high, y = _scale(values, PAD_TOP, height - PAD_BOTTOM)
    _frame(root, width, height, round(low, 1), round(high, 1), y, title)
    step = (width - PAD_LEFT - PAD_RIGHT) / max(1, len(points) - 1)
    xy = [(PAD_LEFT + i * step, y(v)) for i, v in enumerate(values)]
    if xy:
        ET.SubElement(root, "polyline", {"points": " ".join(f"{fmt_px(a)},{fmt_px(b)}" for a, b in xy),
                                         "class": "line"})
    for (label, v), (a, b) in zip(points, xy, strict=True):
        dot = ET.SubElement(root, "circle", {"cx": fmt_px(a), "cy": fmt_px(b), "r": "3", "class": "dot",
                                             "data-game": label, "data-value": f"{v:g}"})
        ET.SubElement(dot, "title").text = f"{label}: {v:g}"
    return ET.tostring(root, encoding="unicode")


def bar_chart(points: list[tuple[str, int]], title: str, width: float = 640, height: float = 200) -> str:
    """Results per pulka: a bar up for a win, down for a loss, titled with its game."""
    root = _svg(width, height, title, "chart results-chart")
    values = [float(v) for _, v in points]
    low, high, y = _scale(values, PAD_TOP, height - PAD_BOTTOM)
    _frame(root, width, height, low, high, y, title)
    slot = (width - PAD_LEFT - PAD_RIGHT) / max(1, len(points))
    bar = max(1.0, slot * 0.7)
    for i, (label, v) in enumerate(points):
        top, bottom = sorted((y(v), y(0)))
        rect = ET.SubElement(root, "rect", {
            "x": fmt_px(PAD_LEFT + i * slot + (slot - bar) / 2), "y": fmt_px(top), "width": fmt_px(bar),
            "height": fmt_px(max(bottom - top, 0.5)), "class": "bar win" if v > 0 else "bar loss" if v < 0 else "bar",
            "data-game": label, "data-value": str(v)})
        ET.SubElement(rect, "title").text = f"{label}: {v:+d}"
    return ET.tostring(root, encoding="unicode")


def _e(x: Any) -> str:
    return html.escape(str(x))


def _page(title: str, body: str) -> str:
    return fill(resource("player.html"), {"title": _e(title), "css": resource("report.css") + resource("player.css"),
                                           "body": body})


def _anchor(k: int) -> str:
    return f"player-{k}"


def _player_charts(history: dict[str, Any] | None, pulkas: list[tuple[str, int]] | None) -> str:
    parts = []
    if history is not None:
        parts.append(line_chart([(m["game"], m["rating"]) for m in history["matches"]], _("rating after each pulka")))
    if pulkas is None and history is not None:
        pulkas = [(m["game"], m["whists"]) for m in history["matches"]]
    if pulkas:
        parts.append(bar_chart(pulkas, _("result of each pulka, whists")))
    return "".join(f'<div class="chart-box">{p}</div>' for p in parts)


def whists_text(value: Any) -> str:
    """Whists as a number people read: whole, or with two decimals (never ``3919/3``)."""
    if value is None or value == "":
        return ""
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.2f}"


def moves_rows(history: dict[str, Any], link: Any = None) -> str:
    """A player's rating, pulka by pulka, each move explained (``rating_history_doc``):
    the result expected from the ratings before it, what he got, the opponents'
    strength, the uncertainty and its share of the surprise, the move. ``link``: the
    address of a game's sheet, for a page that has one."""
    place = history["model"]["expected"] == "place"
    rows = []
    for m in history["matches"]:
        game = _e(m["game"]) if link is None else f'<a href="{_e(link(m["game"]))}">{_e(m["game"])}</a>'
        expected = f'{m["expected"]:.1f}' if place else f'{round(m["expected"]) + 0:+d}'
        rows.append(
            f'<tr data-game="{_e(m["game"])}"><td>{_e(m["finished"][:10])}</td><td>{game}</td>'
            f'<td class="num">{m["deals"]}</td><td class="num expected">{expected}</td>'
            f'<td class="num got">{m["whists"]:+d} ({m["place"]}/{m["of"]})</td>'
            f'<td class="num">{m["opponents"]:+.2f}</td>'
            f'<td class="num">{m["sigma_before"]:.2f} → {m["sigma"]:.2f}</td>'
            f'<td class="num share">{m["share"]:.0%}</td>'
            f'<td class="num">{m["rating_before"]:+.2f} → {m["rating"]:+.2f}</td>'
            f'<td class="num change">{m["change"]:+.2f}</td></tr>')
    head = "".join(f"<th{cls}>{_e(text)}</th>" for cls, text in (
        ("", _("finished")), ("", _("game")), (' class="num"', _("deals")),
        (' class="num"', _("expected place") if place else _("expected")), (' class="num"', _("got")),
        (' class="num"', _("opponents")), (' class="num"', "σ"), (' class="num"', _("share taken")),
        (' class="num"', _("rating")), (' class="num"', _("move"))))
    return (f'<table class="moves"><thead><tr>{head}</tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def moves_hint(history: dict[str, Any]) -> str:
    if history["model"]["expected"] == "place":
        return _("expected place: from the ratings before the pulka; share taken: how much of the surprise the "
                 "rating took (the larger, the less sure the club was of him).")
    return _("expected: the whists his rating and his opponents' said he would win over the pulka's deals; share "
             "taken: how much of the surprise went into his rating (the larger, the less sure the club was of him, "
             "the longer the pulka); a short pulka says less.")


def club_html(table: dict[str, Any], histories: list[dict[str, Any]]) -> str:
    """The club's rating table with a sparkline per player, then each player's charts
    and his moves pulka by pulka."""
    rows = []
    for k, p in enumerate(table["players"]):
        mark = f' <span class="provisional" title="{_e(_("provisional"))}">?</span>' if p["provisional"] else ""
        rows.append(
            f'<tr data-player="{_e(p["player"])}"><td class="num">{p["place"]}</td>'
            f'<td><a href="#{_anchor(k)}">{_e(p["player"])}</a>{mark}</td><td class="num">{p["rating"]:+.2f}</td>'
            f'<td class="num">{p["sigma"]:.2f}</td><td class="num">{p["matches"]}</td>'
            f'<td>{_e(p["last_played"])}</td>'
            f'<td>{sparkline(p["trend"], _("rating of {player}").format(player=p["player"]))}</td></tr>')
    by_name = {h["player"]: h for h in histories}
    sections = []
    for k, p in enumerate(table["players"]):
        h = by_name.get(p["player"])
        moves = "" if h is None else f'<p class="hint">{_e(moves_hint(h))}</p><div class="scroll">{moves_rows(h)}</div>'
        sections.append(f'<section id="{_anchor(k)}" class="player"><h2>{_e(p["player"])}</h2>'
                        f'{_player_charts(h, None)}{moves}</section>')
    model = table["model"]
    head = "".join(f"<th{cls}>{_e(text)}</th>" for cls, text in (
        (' class="num"', _("place")), ("", _("player")), (' class="num"', _("rating")), (' class="num"', "σ"),
        (' class="num"', _("pulkas")), ("", _("last pulka")), ("", _("trend"))))
    body = (
        f'<header><h1>{_e(_("club rating"))}</h1><p class="meta">{_e(table["as_of"])}; '
        f'{_e(_("model"))} {_e(model["model"])} ({_e(params_text(model["parameters"]))}), '
        f'{_e(_("rating"))} = {_e(model["rating"])}; {_e(_("? marks a provisional rating"))}</p></header>'
        f'<section id="table"><div class="scroll"><table id="rating-table"><thead><tr>{head}</tr></thead><tbody>'
        + "".join(rows) + "</tbody></table></div></section>" + "".join(sections)
    )
    return _page(_("club rating"), body)


def params_text(parameters: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in parameters.items())


def player_html(history: dict[str, Any] | None, stats: dict[str, Any] | None) -> str:
    """A player's page: his charts, his moves pulka by pulka and, with ``stats``, every
    number with its deals."""
    player = (stats or history or {}).get("player", "")
    pulkas = [(p["game"], p["whists"]) for p in stats["pulkas"]] if stats is not None else None
    body = [f'<header><h1>{_e(player)}</h1><p class="meta">{_e((stats or history or {}).get("as_of", ""))}</p>'
            "</header>", f'<section id="charts">{_player_charts(history, pulkas)}</section>']
    if history is not None:
        body.append(f'<section id="moves"><h2>{_e(_("why the rating moved"))}</h2><p class="hint">'
                    f'{_e(moves_hint(history))}</p><div class="scroll">{moves_rows(history)}</div></section>')
    if stats is not None:
        rows = []
        for name, n in stats["numbers"].items():
            refs = stats.get("refs", {}).get(name, [])
            items = "".join(
                f'<tr><td>{_e(r["game"])}</td><td class="num">{_e(r["deal"] or "")}</td>'
                f'<td class="num">{_e(r["event"] or "")}</td>'
                f'<td class="num">{_e(whists_text(r.get("whists")))}</td><td>{_e(spoken_text(r["text"]))}</td></tr>'
                for r in refs)
            deals = (f'<details><summary>{len(refs)}</summary><table class="refs"><tr><th>{_e(_("game"))}</th>'
                     f'<th>{_e(_("deal"))}</th><th>{_e(_("event"))}</th><th>{_e(_("whists"))}</th>'
                     f'<th>{_e(_("what"))}</th></tr>{items}</table></details>') if refs else "0"
            rows.append(f'<tr data-number="{_e(name)}"><td>{_e(number_name(name))}</td>'
                        f'<td class="num count">{n["count"]}</td>'
                        f'<td class="num">{_e(whists_text(n.get("whists")))}</td><td>{deals}</td></tr>')
        body.append(f'<section id="numbers"><h2>{_e(_("statistics"))}</h2><p class="hint">'
                    f'{_e(_("whists: what they brought him; open a count for the deals behind it (game, deal, event)."))}'
                    '</p><div class="scroll"><table id="stats-table"><thead><tr>'
                    f'<th>{_e(_("number"))}</th><th class="num">{_e(_("count"))}</th>'
                    f'<th class="num">{_e(_("whists"))}</th><th>{_e(_("deals"))}</th></tr></thead><tbody>'
                    + "".join(rows) + "</tbody></table></div></section>")
    return _page(_("{player}: rating and statistics").format(player=player), "".join(body))

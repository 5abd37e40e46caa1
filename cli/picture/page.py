"""The self-contained HTML report of a pulka (``pulka report``).

One file, nothing fetched: ``report.html`` is the page, with ``sheet.css`` and
``report.css`` inlined as styles, ``report.js`` inlined as its script, every
distinct sheet of the pulka's history drawn once by ``svg.draw`` into a
``<template>``, and the data of ``projections.picture.timeline`` embedded as JSON.
The script only shows what the ledger computed: which sheet, settlement and trace
belong to the event the slider is on.
"""

from __future__ import annotations

import html
import json
import re
from importlib.resources import files
from typing import Any

from cli.picture.qr import qr_svg
from cli.picture.svg import draw

PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def resource(name: str) -> str:
    return (files("cli.picture") / name).read_text(encoding="utf-8")


def embed_json(doc: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<`` at all."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def fill(template: str, values: dict[str, str]) -> str:
    """Replace each ``{{name}}`` once, in one pass (a value is never searched again)."""
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def history_html(history: dict[str, Any] | None) -> str:
    """The report's section on verifiable history: the signed checkpoint of the club log
    that covers the game, as text to publish, and who signed which decision."""
    if history is None or not (history["caption"] or history["signatures"]):
        return ""
    parts = ['<section id="history">', "<h2>Verifiable history</h2>",
             f'<p class="meta" id="checkpoint">{html.escape(history["caption"] or "no checkpoint yet")}</p>']
    if history["note"]:
        parts.append(f'<div class="qr">{qr_svg(history["note"])}</div>')
        parts.append(f'<pre class="note">{html.escape(history["note"])}</pre>')
        parts.append('<p class="hint">Publish this text; a player checks his table against it with '
                     "<code>pulka prove</code> and <code>pulka_verify.py</code>.</p>")
    if history["signatures"]:
        parts.append('<ul id="signed">')
        for s in history["signatures"]:
            ok = "" if s["valid"] else " — the signature does not verify"
            parts.append(f"<li>event {s['number']} ({html.escape(s['what'])}) signed by "
                         f"{html.escape(s['signer'])} <code>{html.escape(s['key'].rsplit('+', 1)[0])}</code>{ok}</li>")
        parts.append("</ul>")
    parts.append("</section>")
    return "\n".join(parts)


def report_html(doc: dict[str, Any]) -> str:
    """The report of one pulka from its ``timeline`` document."""
    templates = []
    for k, picture in enumerate(doc["pictures"]):
        svg = draw(picture, title=False, settlement=False, styled=False).svg
        templates.append(f'<template data-picture="{k}">{svg}</template>')
    data = {**doc, "pictures": [{"settlement": p["settlement"]} for p in doc["pictures"]]}
    data.pop("history", None)
    return fill(resource("report.html"), {
        "title": html.escape(f"pulka {doc['game']}"),
        "css": resource("sheet.css") + resource("report.css"),
        "pictures": "\n".join(templates),
        "data": embed_json(data),
        "history": history_html(doc.get("history")),
        "js": resource("report.js"),
    })

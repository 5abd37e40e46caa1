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

from projections.drawing.qr import qr_svg
from projections.drawing.svg import draw
from ledger.vocabulary import language
from ledger.vocabulary.language import N_, ngettext
from ledger.vocabulary.wording import convention_name, spoken_count

_ = language._  # every text a person reads, in the language in effect

PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
TRANSLATED = re.compile(r"\{\{_ (.+?)\}\}")  # a text of report.html in the reader's language

# The report's own words, marked here for the catalogue (Babel reads Python, not the page
# or its script): the texts of report.html (``{{_ text}}``) and of report.js
# (``say("text")``); the page carries them in the reader's language (``words``).
# tests/test_players_language.py checks that each text of the two files is here.
REPORT_WORDS = (
    N_("As of an event"), N_("previous event"), N_("event"), N_("next event"), N_("The sheet"),
    N_("Struck entries carry the number of the event that changed them; boxed entries are penalties. Click a "
       "number to see where it comes from."),
    N_("Settlement"), N_("Who pays whom"), N_("Deal by deal"),
    N_("What each deal wrote as the sheet counts it now, and the settlement in whists as it stood at the deal's "
       "end."),
    N_("Audit trail"),
    N_("Every event with what it did to the sheet and, for corrections, objections and late records, the rule and "
       "the verdict; a deal's bids on one row. Click an event to see the sheet as of it."),
    N_("Show"), N_("every event"), N_("events with a verdict"), N_("verdict: effective"), N_("verdict: no effect"),
    N_("each bid on a row of its own"),
    # report.js
    N_("{player} whists on {on}"), N_("{player} pulya"), N_("{player} gora"), N_("pulya to {target}"),
    N_("stake {stake} a whist"), N_("time"), N_("deal"), N_("by"), N_("on the sheet"), N_("verdict"),
    N_("effective"), N_("no effect"), N_("bids: {bids}"), N_("events"), N_("dealt"), N_("what was played"), N_("line"),
    N_("{player} after"), N_("finished"), N_("abandoned"), N_("over: the tournament's deal cap, settled as abandoned"),
    N_("in play: settled as if abandoned now"), N_("player"), N_("pulya"), N_("gora"), N_("exact"), N_("whists"),
    N_("money"), N_("nobody pays"), N_("{cell}: {total} as of event {event}"), N_("what"), N_("amount"),
    N_("total"), N_("why"), N_("recorded by"), N_("at"), N_("corrected by"),
    N_("The entry of event {event} you chose is struck: event {by} changed it. The number now:"),
    N_("As of event {event} of {count}"), N_(", deal {deal}"),
)


def resource(name: str) -> str:
    return (files("projections.drawing") / name).read_text(encoding="utf-8")


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
    parts = ['<section id="history">', f"<h2>{html.escape(_('Verifiable history'))}</h2>",
             '<p class="meta" id="checkpoint">' + html.escape(history["caption"] or _("no checkpoint yet")) + "</p>"]
    if history["note"]:
        parts.append(f'<div class="qr">{qr_svg(history["note"])}</div>')
        parts.append(f'<pre class="note">{html.escape(history["note"])}</pre>')
        parts.append('<p class="hint">' + _("Publish this text; a player checks his table against it with {prove} and "
                                            "{verify}.").format(prove="<code>pulka prove</code>",
                                                                verify="<code>pulka_verify.py</code>") + "</p>")
    if history["signatures"]:
        parts.append('<ul id="signed">')
        for s in history["signatures"]:
            ok = "" if s["valid"] else " — " + html.escape(_("the signature does not verify"))
            signed = _("event {event} ({what}) signed by {signer}").format(event=s["number"], what=s["what"],
                                                                           signer=s["signer"])
            parts.append(f"<li>{html.escape(signed)} <code>{html.escape(s['key'].rsplit('+', 1)[0])}</code>{ok}</li>")
        parts.append("</ul>")
    parts.append("</section>")
    return "\n".join(parts)


def said_settlement(settlement: dict[str, Any]) -> dict[str, Any]:
    """A picture's settlement with each payment said in the reader's language (``said``:
    ``Vera pays Anna 24 whists``, ``Vera платит Anna 24 виста``), Russian's plural forms
    being the catalogue's, not the script's."""
    return {**settlement, "transfers": [
        {**t, "said": ngettext("{payer} pays {payee} {n} whist", "{payer} pays {payee} {n} whists",
                               t["whists"]).format(payer=t["from"], payee=t["to"], n=t["whists"])}
        for t in settlement["transfers"]]}


def pulka_report_html(doc: dict[str, Any]) -> str:
    """The report of one pulka from its ``timeline`` document."""
    templates = []
    for k, picture in enumerate(doc["pictures"]):
        svg = draw(picture, title=False, settlement=False, styled=False).svg
        templates.append(f'<template data-picture="{k}">{svg}</template>')
    data = {**doc, "pictures": [{"settlement": said_settlement(p["settlement"])} for p in doc["pictures"]],
            "words": {text: _(text) for text in REPORT_WORDS},
            "convention_said": convention_name(doc["convention"]),
            "events_said": spoken_count(len(doc["points"]), "event")}
    data.pop("history", None)
    page = TRANSLATED.sub(lambda m: html.escape(_(m.group(1))), resource("report.html"))
    return fill(page, {
        "lang": language.language(),
        "title": html.escape(_("pulka {game}").format(game=doc["game"])),
        "css": resource("sheet.css") + resource("report.css"),
        "pictures": "\n".join(templates),
        "data": embed_json(data),
        "history": history_html(doc.get("history")),
        "js": resource("report.js"),
    })

"""The scorer's page as an installable offline app (issue 31): its service worker, served
from the site's root so that its scope covers ``/score/…``, and its web app manifest, one
per table, whose start address is that table's scorer's page; and the texts the page's
offline script (``web/static/offline.js``) shows.

Both are files of this service under its strict content security policy: the worker is
a script of this origin (``script-src 'self'``, which governs workers too), the manifest
one of its documents (``manifest-src 'self'``). The worker is asked again at every
start (``no-cache``) so that a new one reaches the phones when the service is upgraded.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from web.auth import ANYONE, FILE, rule

_ = language._  # every text a person reads, in the request's language

STATIC = Path(__file__).resolve().parent / "static"

# The texts offline.js shows (merged into the page's, ``pages.script_texts``).
OFFLINE_TEXTS: dict[str, str] = {
    "reaching": N_("reaching the service…"),
    "pending": N_("waiting to be sent: {count}"),
    "nothing_pending": N_("nothing waiting"),
    "stale": N_("The table as read at {time}, kept on this phone: the service has not been reached since. "
                "What you enter waits here and is sent when it is."),
}


@rule(ANYONE, FILE)
async def service_worker(request: Request) -> Response:
    """``/sw.js``: the scorer's page's service worker (``web/static/sw.js``), at the root
    so that it may control every page of the site."""
    return Response((STATIC / "sw.js").read_bytes(), media_type="text/javascript",
                    headers={"cache-control": "no-cache"})


@rule(ANYONE, FILE)
async def manifest(request: Request) -> Response:
    """``/manifest.webmanifest?game=G``: the web app manifest of a table's scorer's page
    (installed, it opens that page; without a game, the front page)."""
    game = request.query_params.get("game", "")[:100]  # no game has a longer name (admission.GAME_MAX)
    lang = request.query_params.get("lang")
    start = ("/score/" + quote(game, safe="/") if game else "/") + (f"?lang={quote(lang)}" if lang else "")
    doc = {
        "name": _("pulka: {game}").format(game=game) if game else "pulka",
        "short_name": game[:12] if game else "pulka",
        "start_url": start,
        "id": start,
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#0b57d0",
        "lang": language.language(),
        "icons": [{"src": "/static/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
    }
    return Response(json.dumps(doc, ensure_ascii=False), media_type="application/manifest+json")


def routes() -> list[BaseRoute]:
    return [
        Route("/sw.js", service_worker, methods=["GET"]),
        Route("/manifest.webmanifest", manifest, methods=["GET"]),
    ]

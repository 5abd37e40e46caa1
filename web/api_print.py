"""The printed pages as downloads (docs/api.md): a pulka's sheet and its settlement as
of any point (``?at=``, ``?deal=``, ``?time=``, as the drawn sheet), a tournament's
standings now or after a tour (``?tour=``), each a PDF on A4 in the reader's language
(``?lang=``) with the checkpoint that covers it. ``ledger.reads.printing`` makes them;
here they are routed.

Anyone may read them, so each is made on the readers' pool and charged to the reader's
budget as every read is (``web.limits``): a PDF costs a few tenths of a second (the
font read and its glyphs embedded), so the last ones made are kept until the store
changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ledger.application import Ledger
from web.api_common import int_param, point_of
from web.auth import ANYONE, READ, rule
from web.pages import service_caught_up
from web.service import Service


def pdf(data: bytes, name: str) -> Response:
    """A PDF shown in the browser, saved under a file name made of ``name``'s letters."""
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_" for ch in name)
    return Response(data, media_type="application/pdf",
                    headers={"content-disposition": f'inline; filename="{safe}.pdf"'})


async def made_on_readers(request: Request, key: tuple[Any, ...], make: Callable[[Ledger], bytes]) -> bytes:
    """``make``'s PDF on the readers' pool, kept for the next reader while nothing is
    stored anywhere (a page shows the checkpoint, which any write to the store may
    change, and the standings every table's state): ``key`` names the page and its
    point, the store's last change its moment (the language is the cache's own)."""
    service: Service = request.app.state.service

    def made() -> bytes:
        ledger = service.worker().ledger
        return service.cached(("pdf", *key, ledger.store.last_change()), lambda: make(ledger))

    return await service.run(made)


@rule(ANYONE, READ)
async def sheet_pdf_download(request: Request) -> Response:
    from ledger.reads.printing import sheet_pdf_of

    game, point = request.path_params["game"], point_of(request)
    data = await made_on_readers(request, ("sheet", game, point), lambda ledger: sheet_pdf_of(ledger, game, point))
    return pdf(data, f"sheet-{game}")


@rule(ANYONE, READ)
async def settlement_pdf_download(request: Request) -> Response:
    from ledger.reads.printing import settlement_pdf_of

    game, point = request.path_params["game"], point_of(request)
    data = await made_on_readers(request, ("settlement", game, point),
                                 lambda ledger: settlement_pdf_of(ledger, game, point))
    return pdf(data, f"settlement-{game}")


@rule(ANYONE, READ)
async def standings_pdf_download(request: Request) -> Response:
    from ledger.reads.printing import standings_pdf_of

    name, tour = request.path_params["tournament"], int_param(request.query_params, "tour")
    data = await made_on_readers(request, ("standings", name, tour),
                                 lambda ledger: standings_pdf_of(ledger, name, tour, service_caught_up))
    return pdf(data, f"standings-{name}")


def routes() -> list[Route]:
    """Before the routes of ``web.api`` that end in ``{game:path}``, which would take them."""
    return [
        Route("/api/games/{game:path}/sheet.pdf", sheet_pdf_download, methods=["GET"]),
        Route("/api/games/{game:path}/settlement.pdf", settlement_pdf_download, methods=["GET"]),
        Route("/api/tournaments/{tournament}/standings.pdf", standings_pdf_download, methods=["GET"]),
    ]

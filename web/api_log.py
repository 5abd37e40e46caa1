"""The club log served to anyone who wants to check it (``/log/…``, docs/api.md, "The club
log"): anonymous, read-only, each answer bounded (``ledger.proofs.published``).

- ``GET /log/checkpoint``: the latest signed checkpoint (C2SP tlog-tiles), every
  signature on it (the log's, the witnesses' cosignatures, an arbiter's);
- ``GET /log/tile/L/N[.p/W]``: a tile of the tree's hashes; ``GET
  /log/tile/entries/N[.p/W]``: an entry bundle (the leaves' inputs);
- ``GET /log/events/N[.p/W]``: the events of those leaves, one JSON line each, from
  which a monitor (``pulka monitor``) recomputes every digest and every sheet;
- ``GET /log/proof/consistency?old=M&new=N`` and ``/log/proof/inclusion?index=I&size=N``:
  the proofs, one base64 hash a line;
- ``GET /log/bundle/GAME``: a game's bundle, as ``pulka prove GAME`` writes it.

Tiles, bundles and events never change once the tree holds them: they are cached for
long; the checkpoint for a few seconds.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ledger.proofs import bundles, published
from ledger.proofs.checkpoints import Attestations
from ledger.store.event_store import Store
from ledger.vocabulary import language
from ledger.vocabulary.merkle import ProofError, parse_tile_path
from ledger.vocabulary.refusal import Refused
from web.api_common import int_param, json
from web.service import Service

_ = language._  # every text a person reads, in the request's language

FOREVER = "public, max-age=31536000, immutable"
TEXT = "text/plain; charset=utf-8"


def _not_found(what: str) -> Response:
    return Response(what + "\n", 404, media_type=TEXT)


async def log_checkpoint(request: Request) -> Response:
    service: Service = request.app.state.service
    note = await service.run(lambda: published.served_checkpoint(service.worker().store))
    if note is None:
        return _not_found(_("the club log has no checkpoint yet"))
    return Response(note, media_type=TEXT, headers={"cache-control": "max-age=5"})


def _tile_of(path: str) -> tuple[int, int, int] | None:
    try:
        return parse_tile_path(path)
    except ProofError:
        return None


async def log_tile(request: Request) -> Response:
    """A tile or an entry bundle, at its C2SP path."""
    service: Service = request.app.state.service
    found = _tile_of("tile/" + request.path_params["path"])
    if found is None:
        return _not_found(_("not a tile's path (C2SP tlog-tiles): tile/L/N[.p/W] or tile/entries/N[.p/W]"))
    level, index, width = found
    hashes = await service.run(lambda: published.served_tile(service.worker().store, level, index, width))
    if hashes is None:
        return _not_found(_("the tree does not hold that tile"))
    return Response(hashes, media_type="application/octet-stream", headers={"cache-control": FOREVER})


async def log_events(request: Request) -> Response:
    """The events of a tile's leaves (pulka's own encoding of the entries)."""
    service: Service = request.app.state.service
    found = _tile_of("tile/0/" + request.path_params["path"])
    if found is None:
        return _not_found(_("not a bundle's path: events/N[.p/W]"))
    _level, index, width = found
    lines = await service.run(lambda: published.served_events(service.worker().store, index, width))
    if lines is None:
        return _not_found(_("the tree does not hold those events"))
    return Response(lines, media_type="application/x-ndjson", headers={"cache-control": FOREVER})


def _lines(hashes: list[bytes]) -> Response:
    return Response("".join(base64.b64encode(h).decode() + "\n" for h in hashes), media_type=TEXT,
                    headers={"cache-control": FOREVER})


async def _proof(request: Request, names: tuple[str, str], prove: Callable[[Store, int, int], list[bytes] | None],
                 asked: str, missing: str) -> Response:
    service: Service = request.app.state.service
    first, second = (int_param(request.query_params, name) for name in names)
    if first is None or second is None:
        raise Refused("api", asked, f"?{names[0]}=…&{names[1]}=…")
    proof = await service.run(lambda: prove(service.worker().store, first, second))
    return _not_found(missing) if proof is None else _lines(proof)


async def log_consistency(request: Request) -> Response:
    return await _proof(request, ("old", "new"), published.served_consistency,
                        _("a consistency proof is asked with old=M&new=N"), _("the tree has no such sizes"))


async def log_inclusion(request: Request) -> Response:
    return await _proof(request, ("index", "size"), published.served_inclusion,
                        _("an inclusion proof is asked with index=I&size=N"),
                        _("the tree holds no such leaf at that size"))


async def bundle(request: Request) -> Response:
    service: Service = request.app.state.service
    game = request.path_params["game"]
    doc = await service.run(lambda: bundles.prove_game(Attestations(service.worker().store), game))
    return json(doc)


def routes() -> list[BaseRoute]:
    return [
        Route("/log/checkpoint", log_checkpoint, methods=["GET"]),
        Route("/log/tile/{path:path}", log_tile, methods=["GET"]),
        Route("/log/events/{path:path}", log_events, methods=["GET"]),
        Route("/log/proof/consistency", log_consistency, methods=["GET"]),
        Route("/log/proof/inclusion", log_inclusion, methods=["GET"]),
        Route("/log/bundle/{game:path}", bundle, methods=["GET"]),
    ]

"""``pulka witness``: a witness of clubs' logs served over HTTP (C2SP tlog-witness), its own
process with its own key and its own state, and no club's database
(``ledger.proofs.witness`` decides; this serves it with the same stack as ``pulka serve``).

    pulka witness --key w1.key --log club.trust [--log other.pub] [--state FILE]
                  [--host H] [--port P]

- ``POST /add-checkpoint``: a log submits its checkpoint with a consistency proof from
  the size this witness cosigned last; the answer is its cosignature (cosignature/v1,
  timestamped), or the status the spec gives a refusal (the state unchanged);
- ``GET /<SHA-256 of the origin>/checkpoint``: the last checkpoint it cosigned for a log.

Each ``--log`` is a club's trust file (its origin and log keys) or a log's public key
(its name the origin).
"""

from __future__ import annotations

import logging
from pathlib import Path

import click
import platformdirs
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ledger.proofs.key_files import KeyFileError, private_key, public_key, trust_file
from ledger.proofs.witness import MAX_BODY, FollowedLog, Witness
from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect
log = logging.getLogger("pulka.witness")

DEFAULT_PORT = 8100


def witness_app(witness: Witness) -> Starlette:
    """The witness's ASGI application."""

    async def add_checkpoint(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY:
            return Response("request too large\n", 413, media_type="text/plain")
        answer = witness.add_checkpoint(body)
        return Response(answer.body, answer.status, media_type=answer.content_type)

    async def checkpoint(request: Request) -> Response:
        answer = witness.checkpoint(request.path_params["origin"])
        return Response(answer.body, answer.status, media_type=answer.content_type)

    return Starlette(routes=[Route("/add-checkpoint", add_checkpoint, methods=["POST"]),
                             Route("/{origin}/checkpoint", checkpoint, methods=["GET"])])


def followed(sources: tuple[str, ...]) -> list[FollowedLog]:
    """The logs of ``--log``: trust files, or logs' public keys."""
    logs = []
    for source in sources:
        try:
            if Path(source).is_file() and not _is_key(source):
                trust = trust_file(source)
                logs.append(FollowedLog(trust.origin, trust.log))
            else:
                key = public_key(source)
                logs.append(FollowedLog(key.name, (key,)))
        except KeyFileError as exc:
            raise click.ClickException(str(exc)) from None
    return logs


def _is_key(path: str) -> bool:
    try:
        public_key(path)
    except KeyFileError:
        return False
    return True


def default_state() -> Path:
    return platformdirs.user_state_path("pulka", appauthor=False) / "witness" / "state.json"


@click.command()
@click.option("--key", "key", required=True, metavar="FILE", help="The witness's private key (pulka keygen --witness).")
@click.option("--log", "logs", required=True, multiple=True, metavar="FILE",
              help="A log it witnesses: a club's trust file, or the log's public key (again for more).")
@click.option("--state", metavar="FILE", help="Where it keeps the last checkpoint it cosigned of each log "
              "(default: the user's state folder).")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True)
def witness(key: str, logs: tuple[str, ...], state: str | None, host: str, port: int) -> None:
    """A witness of clubs' logs (C2SP tlog-witness): its own process and state, no club's
    database; it cosigns a checkpoint only when it is consistent with the last one it
    cosigned for that log."""
    import uvicorn

    try:
        signer = private_key(key)
    except KeyFileError as exc:
        raise click.ClickException(str(exc)) from None
    if not signer.witness:
        raise click.ClickException(_("{key} is not a witness's key: a witness cosigns with a cosignature/v1 key "
                                     "(pulka keygen --witness NAME)").format(key=key))
    followed_logs = followed(logs)
    path = Path(state) if state else default_state()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    click.echo(_("pulka witness {name} ({key}), state {state}").format(name=signer.name, key=signer.verifier.text(),
                                                                       state=path))
    for item in followed_logs:
        click.echo(_("  witnesses {origin}").format(origin=item.origin))
    click.echo(_("  listening on http://{host}:{port}/add-checkpoint").format(host=host, port=port))
    uvicorn.run(witness_app(Witness(signer, followed_logs, path)), host=host, port=port, log_level="info",
                server_header=False)

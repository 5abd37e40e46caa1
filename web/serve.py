"""``pulka serve``: the live scoring service on a store, and its accounts.

    pulka serve [--db ADDRESS] [--host H] [--port P] [--certfile F --keyfile F]
                [--public-url URL] [--workers N] [--proxy-from IPS]
    pulka serve account NAME --role director     # the first account (asks the password)
    pulka serve demo                             # the demo club of `make serve`

uvicorn serves the ASGI application of ``web.app``. With ``--certfile``/``--keyfile`` it
speaks TLS itself; behind a reverse proxy that does, ``--public-url https://…`` and
``--proxy-from`` (the proxy's address) make links, cookies and client addresses right.
``--workers N`` runs N processes on one socket (each with its own kept games, all on
one store: PostgreSQL for more than one).
"""

from __future__ import annotations

import json
import logging
import os
import socket
from pathlib import Path
from typing import Any

import click

from ledger.store.backend import store_label, is_postgres_url

DEFAULT_PORT = 8000
SETTINGS_ENV = "PULKA_SERVE_SETTINGS"  # how ``--workers`` hands the settings to each process


def served_store(db: str | None) -> str:
    return db or os.environ.get("PULKA_DB") or "pulka.db"


@click.group(invoke_without_command=True)
@click.option("--db", metavar="ADDRESS", help="The store: a SQLite file or a postgresql:// address (default: $PULKA_DB, "
              "or pulka.db).")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on (0.0.0.0: every one).")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True)
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False), help="TLS: the certificate chain (PEM).")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False), help="TLS: its private key (PEM).")
@click.option("--public-url", metavar="URL", help="The address people reach (behind a proxy), for links and QR codes.")
@click.option("--proxy-from", metavar="IPS", help="Trust X-Forwarded-For/-Proto from these addresses (a reverse proxy).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes on one socket (PostgreSQL for more than one).")
@click.option("--threads", type=click.IntRange(1, 64), default=8, show_default=True,
              help="Worker threads per process reading and writing the store.")
@click.pass_context
def serve(ctx: click.Context, db: str | None, host: str, port: int, certfile: str | None, keyfile: str | None,
          public_url: str | None, proxy_from: str | None, workers: int, threads: int) -> None:
    """The club's live scoring service: the scorer's phone, the spectators' pages, the
    arbiter's and the director's desks, and the JSON API (docs/api.md)."""
    db = db or (ctx.find_root().obj or {}).get("db")  # pulka --db ADDRESS serve …
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"db": db}
        return
    address = served_store(db)
    if workers > 1 and not is_postgres_url(address):
        raise click.UsageError("--workers above 1 needs PostgreSQL (one SQLite file has one writer)")
    if bool(certfile) != bool(keyfile):
        raise click.UsageError("TLS needs both --certfile and --keyfile")
    run_service(address, host, port, certfile, keyfile, public_url, proxy_from, workers, threads)


def settings_of(address: str, https: bool, public_url: str | None, threads: int) -> dict[str, Any]:
    from web.accounts import Accounts

    accounts = Accounts(address)
    try:
        secret = os.environ.get("PULKA_SERVE_SECRET") or accounts.secret()
    finally:
        accounts.close()
    return {"db": address, "secret": secret, "https": https, "public_url": public_url, "threads": threads}


def app_from_env() -> Any:
    """The application of one worker process (``--workers``), from its settings."""
    from web.app import Settings, create_app

    return create_app(Settings(**json.loads(os.environ[SETTINGS_ENV])))


def run_service(address: str, host: str, port: int, certfile: str | None, keyfile: str | None, public_url: str | None,
                proxy_from: str | None, workers: int, threads: int, banner: list[str] | None = None) -> None:
    import uvicorn

    from ledger.store.event_store import Store, StoreError

    from ledger.desks.upkeep import upgraded

    try:
        with Store(address, create=True) as store:
            store.ensure_table()
            done = upgraded(store)  # a store written by an earlier pulka, brought to this one's layout
    except StoreError as exc:
        raise click.ClickException(f"cannot open the store: {exc}") from None
    if done is not None:
        click.echo(f"pulka serve: the store was upgraded from layout {done.was} to layout {done.now}")
    https = certfile is not None
    settings = settings_of(address, https, public_url, threads)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    shown = addresses(host, port, https, public_url)
    click.echo(f"pulka serve: store {store_label(address)}")
    for line in shown:
        click.echo(f"  {line}")
    click.echo(terminal_qr(shown[0]), nl=False)
    for line in banner or []:
        click.echo(line)
    options: dict[str, Any] = {
        "host": host, "port": port, "log_level": "info", "access_log": False, "ssl_certfile": certfile,
        "ssl_keyfile": keyfile, "proxy_headers": proxy_from is not None, "server_header": False,
        "timeout_graceful_shutdown": 5,
    }
    if proxy_from is not None:
        options["forwarded_allow_ips"] = proxy_from
    if workers > 1:
        os.environ[SETTINGS_ENV] = json.dumps(settings)
        uvicorn.run("web.serve:app_from_env", factory=True, workers=workers, **options)
    else:
        from web.app import Settings, create_app

        uvicorn.run(create_app(Settings(**settings)), **options)


def addresses(host: str, port: int, https: bool, public_url: str | None) -> list[str]:
    """Where people reach the service: the public address, else this machine's."""
    if public_url:
        return [public_url.rstrip("/") + "/"]
    scheme = "https" if https else "http"
    hosts = [host]
    if host in ("0.0.0.0", "::"):
        hosts = [lan_address(), "127.0.0.1"]
    return [f"{scheme}://{h}:{port}/" for h in hosts]


def lan_address() -> str:
    """This machine's address on its network (no packet is sent: a UDP socket is only
    connected, to learn the route)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1, never reached
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def terminal_qr(text: str) -> str:
    """A QR code of ``text`` drawn in the terminal (segno)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


@serve.command()
@click.argument("name")
@click.option("--role", type=click.Choice(["director", "arbiter"]), default="director", show_default=True)
@click.option("--password-file", type=click.Path(exists=True, dir_okay=False),
              help="Read the password from this file's first line (else it is asked, not echoed).")
@click.pass_obj
def account(obj: dict[str, Any], name: str, role: str, password_file: str | None) -> None:
    """Create an account that signs in to the service: the first director, an arbiter."""
    from web.accounts import Accounts

    if password_file is not None:
        lines = Path(password_file).read_text(encoding="utf-8").splitlines()
        password = lines[0] if lines else ""
    else:
        password = click.prompt("password", hide_input=True, confirmation_prompt=True)
    if len(password) < 10:
        raise click.ClickException("a password has 10 characters at least")
    accounts = Accounts(served_store((obj or {}).get("db")))
    try:
        accounts.create(name, password, role)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        accounts.close()
    click.echo(f"account {name} ({role}) created; it signs in at /api/session and records as arbiter:{name}")


@serve.command()
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.pass_obj
def demo(obj: dict[str, Any], port: int, host: str) -> None:
    """Serve a demo club: a store with a pulka under way and a director, created on first use."""
    from web.demo import demo_club

    address = served_store((obj or {}).get("db") or "serve-demo.db")
    lines = demo_club(address, f"http://{host}:{port}")
    run_service(address, host, port, None, None, None, None, 1, 8, banner=lines)


"""``pulka serve``: the live scoring service on a store, and its accounts.

    pulka serve [--db ADDRESS] [--host H] [--port P] [--certfile F --keyfile F | --club-tls [--tls-name N]]
                [--public-url URL] [--workers N] [--proxy-headers --forwarded-allow-ips IPS]
    pulka serve account NAME --role director     # the first account (asks the password)
    pulka serve accounts                         # every account, and the log of their changes
    pulka serve role NAME ROLE | password NAME | disable NAME | enable NAME | remove NAME
    pulka serve second-factor on|off             # the club asks arbiters and directors for one
    pulka serve demo [--host H] [--port P] [--club-tls]  # the demo club of `make serve` (every address)

uvicorn serves the ASGI application of ``web.app``. With ``--certfile``/``--keyfile`` it
speaks TLS itself; with ``--club-tls`` with certificates of the club's own certificate
authority (``web.club_tls``), made beside the store, whose certificate each phone
installs once (``/club-certificate``); behind a reverse proxy that does, ``--public-url https://…`` and
``--proxy-headers --forwarded-allow-ips`` (the proxy's address; ``--proxy-from IPS``
says both at once) make links, cookies (``__Host-``, Secure), HSTS and client addresses
right. ``--workers N`` runs N processes on one socket (each with its own kept games, all
on one store: PostgreSQL for more than one). What one anonymous client address may take
(``web.limits``) is said at start-up, and set by ``--budget``, ``--streams`` and
``--streams-per-address``.

Every change of an account made here is an event of the club log's ``@accounts`` with
who made it (``--by``, else the server's user: ``console:USER``), as the director's
page makes them (``web.account_desk``).
"""

from __future__ import annotations

import dataclasses
import getpass
import json
import logging
import os
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ledger.store.backend import store_label, is_postgres_url
from ledger.vocabulary import language
from web import reach
from web.process import SWITCH_INTERVAL, outlived, settle_heap

if TYPE_CHECKING:
    from ledger.store.event_store import StoreError

_ = language._  # every text a person reads, in the language in effect

DEFAULT_PORT = 8000
SETTINGS_ENV = "PULKA_SERVE_SETTINGS"  # how ``--workers`` hands the settings to each process


def served_store(db: str | None) -> str:
    return db or os.environ.get("PULKA_DB") or "pulka.db"




@dataclass
class Options:
    """How ``pulka serve`` runs: where it listens, TLS, the proxy before it, its
    processes and threads, and the bounds of an anonymous client."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    certfile: str | None = None
    keyfile: str | None = None
    public_url: str | None = None
    proxy_headers: bool = False
    forwarded_allow_ips: str | None = None
    workers: int = 1
    threads: int = 8
    kept_games: int = 500  # web.service.KEPT_GAMES, not imported: the command line loads no service to parse
    readers: int = 2
    read_queue: int = 16
    switch_interval: float = SWITCH_INTERVAL
    read_process: bool = True  # what anyone may read made by a process of its own (web.reader)
    bounds: dict[str, Any] = dataclasses.field(default_factory=dict)
    club_tls: bool = False  # certificates of the club's own certificate authority (web.club_tls)
    tls_name: tuple[str, ...] = ()  # more names they are for (a club's local DNS name)
    club_ca: str | None = None  # the club CA's certificate, once made or found (``club_certificates``)

    @property
    def https(self) -> bool:
        """TLS before the service: its own certificates, or a proxy at an https:// address."""
        return self.certfile is not None or self.club_tls or (self.public_url or "").startswith("https://")


CLUB_TLS = click.option("--club-tls/--no-club-tls", default=False, show_default=True,
                        help="TLS with the club's own certificate authority, made beside the store on first use "
                             "(each phone installs its certificate once, from /club-certificate): the scorer's "
                             "page then opens offline on the club's network too.")
TLS_NAME = click.option("--tls-name", metavar="NAME", multiple=True,
                        help="With --club-tls: one more name this machine is reached at (the club's local DNS name), "
                             "in its certificate beside its addresses, localhost, its host name and NAME.local.")


@click.group(invoke_without_command=True)
@click.option("--db", metavar="ADDRESS", help="The store: a SQLite file or a postgresql:// address (default: $PULKA_DB, "
              "or pulka.db).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on: 0.0.0.0 for every one, so that phones on the club's network reach "
                   "it (the links printed then give this machine's address on that network).")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True)
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False), help="TLS: the certificate chain (PEM).")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False), help="TLS: its private key (PEM).")
@CLUB_TLS
@TLS_NAME
@click.option("--public-url", metavar="URL", help="The address people reach (behind a proxy), for links and QR codes; "
              "https://… makes cookies Secure and sends HSTS.")
@click.option("--proxy-headers", is_flag=True, help="Read the client's address and scheme from X-Forwarded-For/-Proto "
              "(a reverse proxy's), from the addresses of --forwarded-allow-ips.")
@click.option("--forwarded-allow-ips", metavar="IPS", help="The proxy's addresses, comma-separated (default with "
              "--proxy-headers: 127.0.0.1).")
@click.option("--proxy-from", metavar="IPS", help="Both of the above: trust X-Forwarded-For/-Proto from these "
              "addresses.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes on one socket (PostgreSQL for more than one).")
@click.option("--threads", type=click.IntRange(1, 64), default=8, show_default=True,
              help="Worker threads per process writing the store (and a table's reads).")
@click.option("--readers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Threads per process for what anyone may read, apart from the writers'.")
@click.option("--read-queue", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Anonymous reads waiting or served at once per process; more are answered 503.")
@click.option("--kept-games", type=click.IntRange(1, 1_000_000), default=500, show_default=True, metavar="N",
              help="Games each process keeps folded between requests (the least recently used let go, and read "
                   "again when asked for): bounds its memory.")
@click.option("--switch-interval", type=click.FloatRange(0.00005, 0.1), default=SWITCH_INTERVAL, show_default=True,
              metavar="SECONDS", help="How long a thread may hold the interpreter while another waits for it "
                                      "(Python's default is 0.005): short, so that a write back from the store "
                                      "does not wait behind a long read.")
@click.option("--read-process/--no-read-process", default=True, show_default=True, help="Make what anyone may "
              "read without a session (sheets, pages) in a process of its own beside each service process.")
@click.option("--budget", type=click.FloatRange(0.001, 64), metavar="SECONDS",
              help="Seconds of work a second one anonymous client address may take (default 0.1).")
@click.option("--streams", type=click.IntRange(1, 1_000_000), metavar="N",
              help="Live pages open at once in all, at most (default 1000, and below the file limit).")
@click.option("--streams-per-address", type=click.IntRange(1, 10_000), metavar="N",
              help="Live pages open at once from one address (default 8).")
@click.pass_context
def serve(ctx: click.Context, /, db: str | None, proxy_from: str | None, budget: float | None, streams: int | None,
          streams_per_address: int | None, **given: Any) -> None:
    """The club's live scoring service: the scorer's phone, the spectators' pages, the
    arbiter's and the director's desks, and the JSON API (docs/api.md)."""
    db = db or (ctx.find_root().obj or {}).get("db")  # pulka --db ADDRESS serve …
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"db": db}
        return
    options = Options(**given)
    if proxy_from is not None:
        options.proxy_headers, options.forwarded_allow_ips = True, proxy_from
    bounds = {"rate": budget, "streams": streams, "streams_per_address": streams_per_address}
    options.bounds = {k: v for k, v in bounds.items() if v is not None}
    address = served_store(db)
    if options.workers > 1 and not is_postgres_url(address):
        raise click.UsageError("--workers above 1 needs PostgreSQL (one SQLite file has one writer)")
    if bool(options.certfile) != bool(options.keyfile):
        raise click.UsageError("TLS needs both --certfile and --keyfile")
    if options.club_tls and options.certfile:
        raise click.UsageError("--club-tls makes the certificates: give it, or --certfile and --keyfile, not both")
    if options.tls_name and not options.club_tls:
        raise click.UsageError("--tls-name names this machine in the certificate --club-tls makes: give --club-tls")
    run_service(address, options)


def settings_of(address: str, options: Options, read_only: str | None = None) -> dict[str, Any]:
    network = reach.network_url(options.host, options.port, options.https, options.public_url)
    return {"db": address, "secret": session_secret(address, read_only), "https": options.https,
            "public_url": options.public_url, "network_url": network, "threads": options.threads,
            "bounds": options.bounds, "kept_games": options.kept_games, "read_only": read_only,
            "readers": options.readers, "read_queue": options.read_queue, "switch_interval": options.switch_interval,
            "read_process": options.read_process,
            **({"club_ca": options.club_ca, "hsts_max_age": club_hsts()} if options.club_ca else {})}


def club_hsts() -> int:
    from web.club_tls import HSTS_MAX_AGE

    return HSTS_MAX_AGE


def club_certificates(address: str, options: Options) -> Any:
    """With ``--club-tls``, the club's certificates (``web.club_tls``), made or made
    again as needed, put in ``options`` to serve with; a refusal naming the file."""
    from web import club_tls

    try:
        names, found = club_tls.machine_names(options.tls_name)
        made = club_tls.club_certificates_in(club_tls.folder_of(address), club_tls.club_name(address), names, found)
    except club_tls.ClubTLSError as exc:
        raise click.ClickException(str(exc)) from None
    options.certfile, options.keyfile, options.club_ca = str(made.certfile), str(made.keyfile), str(made.ca_file)
    return made


def session_secret(address: str, read_only: str | None) -> str:
    """The key that signs the cookies: ``PULKA_SERVE_SECRET``, else the store's (made once
    and kept there). A store served read-only keeps none it can read: one made for this
    run (nobody signs in to it, so no cookie need outlive it)."""
    from ledger.store.event_store import StoreError
    from web.accounts import Accounts

    given = os.environ.get("PULKA_SERVE_SECRET")
    if given:
        return given
    accounts = Accounts(address, read_only=read_only is not None)
    try:
        if read_only is None:
            return accounts.secret()
        return accounts.kept_secret() or secrets.token_urlsafe(32)
    except StoreError:
        if read_only is None:
            raise
        return secrets.token_urlsafe(32)  # a role that may not read the service's tables
    finally:
        accounts.close()


def app_from_settings(settings: dict[str, Any]) -> Any:
    from web.app import Settings, create_app
    from web.limits import Bounds

    settings = dict(settings)
    sys.setswitchinterval(settings.pop("switch_interval", SWITCH_INTERVAL))
    app = create_app(Settings(**{**settings, "bounds": Bounds(**settings.get("bounds", {}))}))
    settle_heap()
    return app


def app_from_env() -> Any:
    """The application of one worker process (``--workers``), from its settings; the
    process ends when its supervisor does (``outlived``)."""
    outlived(os.getppid())
    return app_from_settings(json.loads(os.environ[SETTINGS_ENV]))


def run_service(address: str, options: Options, banner: list[str] | None = None,
                codes: list[tuple[str, str]] | None = None) -> None:
    """Serve the store: said on the terminal first, where people reach the service, its
    bounds, the ``banner`` and the QR codes of ``codes`` (a caption and its link; by
    default the club's front page) and where those who sign in go."""
    import uvicorn

    from ledger.store.event_store import StoreError
    from web.club_tls import certificates_said as club_said
    from web.limits import Bounds, Limits, bounds_said, file_limit, stream_cap

    club = club_certificates(address, options) if options.club_tls else None
    try:
        done, read_only = prepared(address)
        settings = settings_of(address, options, read_only)
    except StoreError as exc:
        raise click.ClickException(f"cannot open the store: {exc}") from None
    if done is not None:
        click.echo(f"pulka serve: the store was upgraded from layout {done.was} to layout {done.now}")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("uvicorn.error").addFilter(reach.no_unopenable_address)
    shown = reach.addresses(options.host, options.port, options.https, options.public_url)
    click.echo(f"pulka serve: store {store_label(address)}")
    if read_only is not None:
        click.echo(f"pulka serve: serving the store READ-ONLY, because it cannot be written: {read_only}")
        click.echo("  every page and reading is served; every write is refused (HTTP 403), nothing stored, and "
                   "nobody can sign in; let the service write its store and start it again to record")
    for line in shown:
        click.echo(f"  {line}")
    files = file_limit()
    bounds = Bounds(**options.bounds)
    bounds.streams = stream_cap(bounds.streams, files)
    click.echo(bounds_said(Limits(bounds), files))
    for line in banner or []:
        click.echo(line)
    for line in club_said(club, shown[0]) if club else []:
        click.echo(line)
    for caption, link in codes or [(_("the club's front page"), shown[0])]:
        click.echo(reach.shown_code(caption, link), nl=False)
    for line in reach.desks_said(shown[0]):
        click.echo(line)
    uvicorn_options: dict[str, Any] = {
        "host": options.host, "port": options.port, "log_level": "info", "access_log": False,
        "ssl_certfile": options.certfile, "ssl_keyfile": options.keyfile, "proxy_headers": options.proxy_headers,
        "server_header": False, "timeout_graceful_shutdown": 5,
        # past this many connections and tasks uvicorn answers 503 itself: some
        # descriptors always stay free for the store and the log
        "limit_concurrency": max(16, files - 32),
    }
    if options.proxy_headers:
        uvicorn_options["forwarded_allow_ips"] = options.forwarded_allow_ips or "127.0.0.1"
    if options.workers > 1:
        os.environ[SETTINGS_ENV] = json.dumps(settings)
        uvicorn.run("web.serve:app_from_env", factory=True, workers=options.workers, **uvicorn_options)
    else:
        uvicorn.run(app_from_settings(settings), **uvicorn_options)


def prepared(address: str) -> tuple[Any, str | None]:
    """The store made ready to serve: its table made, upgraded to this pulka's layout
    (what was done, or None), the service's tables made; and None, or why it can be
    served only read-only: it can be read, but not written (a read-only file or mount,
    a role with SELECT alone). A store that cannot be read is a ``StoreError``."""
    from ledger.desks.upkeep import upgraded
    from ledger.store.event_store import Store, StoreError
    from web.accounts import Accounts

    try:
        with Store(address, create=True) as store:
            store.ensure_table()
            done = upgraded(store)  # a store written by an earlier pulka, brought to this one's layout
        accounts = Accounts(address)
        try:
            accounts.ensure()
            accounts.try_write()
        finally:
            accounts.close()
    except StoreError as exc:
        why = read_only_why(address, exc)
        if why is None:
            raise
        return None, why
    return done, None


def read_only_why(address: str, exc: StoreError) -> str | None:
    """Why the store, which could not be written (``exc``), can still be served
    read-only; None when it cannot be (it cannot be read either, or it failed
    otherwise: a server down, a file that is no database)."""
    from ledger.store.backend import not_allowed
    from ledger.store.event_store import Store, StoreError

    try:
        with Store(address, create=False) as store:
            store.games()
            why = store.read_only
    except StoreError:
        return None
    if why is None and not not_allowed(exc):
        return None
    return why or str(exc)


def read_password(password_file: str | None) -> str:
    """The password from the file's first line, else asked (not echoed) twice."""
    if password_file is not None:
        lines = Path(password_file).read_text(encoding="utf-8").splitlines()
        return lines[0] if lines else ""
    return str(click.prompt("password", hide_input=True, confirmation_prompt=True))


def console(by: str | None) -> str:
    """Who makes a change at the server's command line, as the club log records it."""
    if by is None:
        try:
            by = getpass.getuser()
        except (KeyError, OSError):  # a process without a user name (a container's)
            by = "server"
    return f"console:{by}"


@contextmanager
def changing(obj: dict[str, Any] | None) -> Iterator[tuple[Any, Any]]:
    """The store's accounts table and its events, for a change at the command line (a
    store of an earlier layout upgraded first, as ``pulka serve`` does); a refusal said
    as the command's error."""
    from ledger.desks.upkeep import upgraded
    from ledger.store.event_store import Store, StoreError
    from ledger.vocabulary.refusal import Refused
    from web.accounts import Accounts

    address = served_store((obj or {}).get("db"))
    try:
        with Store(address, create=True) as store:
            store.ensure_table()
            done = upgraded(store)
            if done is not None:
                click.echo(f"pulka serve: the store was upgraded from layout {done.was} to layout {done.now}",
                           err=True)
            accounts = Accounts(address)
            try:
                yield accounts, store
            finally:
                accounts.close()
    except Refused as exc:
        raise click.ClickException(str(exc)) from None
    except StoreError as exc:
        raise click.ClickException(f"cannot open the store: {exc}") from None


BY = click.option("--by", metavar="WHO", help="Who makes the change, as the club log records it (console:WHO; "
                  "default: the server's user).")


@serve.command()
@click.argument("name")
@click.option("--role", type=click.Choice(["director", "arbiter"]), default="director", show_default=True)
@click.option("--password-file", type=click.Path(exists=True, dir_okay=False),
              help="Read the password from this file's first line (else it is asked, not echoed).")
@BY
@click.pass_obj
def account(obj: dict[str, Any], name: str, role: str, password_file: str | None, by: str | None) -> None:
    """Create an account that signs in to the service: the first director, an arbiter."""
    from web import account_desk

    password = read_password(password_file)
    with changing(obj) as (accounts, store):
        account_desk.create(accounts, store, name, password, role, console(by))
    click.echo(f"account {name.strip()} ({role}) created; it signs in at /api/session and records as "
               f"arbiter:{name.strip()}")


@serve.command()
@click.pass_obj
def accounts(obj: dict[str, Any]) -> None:
    """Every account (its role, whether it is disabled, whether it has a second factor),
    and the club log's events of accounts: who changed which, when."""
    from ledger.desks.accounts import account_events, second_factor_required

    with changing(obj) as (table, store):
        events = account_events(store)
        for row in table.all():
            marks = [m for m, on in (("disabled", row.disabled), ("second factor", row.totp)) if on]
            click.echo(f"{row.name}\t{row.role}" + (f"\t({', '.join(marks)})" if marks else ""))
        click.echo(f"second factor required: {'yes' if second_factor_required(events) else 'no'}")
        for stored in events:
            click.echo(account_line(stored))


def account_line(stored: Any) -> str:
    """One event of ``@accounts`` as a line: number, time, who, what."""
    from ledger.vocabulary.events import event_to_dict

    doc = event_to_dict(stored.event)
    what = " ".join(f"{k}={v}" for k, v in doc.items() if k not in ("type", "at", "by", "game"))
    return f"{stored.number}\t{doc.get('at', '')}\t{doc.get('by', '')}\t{doc['type']} {what}".rstrip()


def changed(obj: dict[str, Any], name: str, change: Callable[[Any, Any, Any], None], told: str) -> None:
    """``change(accounts, store, row)`` of the account ``name``, and what to say."""
    from web import account_desk

    with changing(obj) as (accounts, store):
        change(accounts, store, account_desk.account_named(accounts, name))
    click.echo(told)


@serve.command()
@click.argument("name")
@click.argument("role", type=click.Choice(["director", "arbiter"]))
@BY
@click.pass_obj
def role(obj: dict[str, Any], name: str, role: str, by: str | None) -> None:
    """Give the account NAME the role ROLE; its sessions end."""
    from web import account_desk

    changed(obj, name, lambda a, s, row: account_desk.change_role(a, s, row, role, console(by)),
            f"account {name} is {role} now; its sessions ended")


@serve.command()
@click.argument("name")
@click.option("--password-file", type=click.Path(exists=True, dir_okay=False),
              help="Read the new password from this file's first line (else it is asked, not echoed).")
@BY
@click.pass_obj
def password(obj: dict[str, Any], name: str, password_file: str | None, by: str | None) -> None:
    """Reset the password of the account NAME; its sessions end."""
    from web import account_desk

    new = read_password(password_file)
    changed(obj, name, lambda a, s, row: account_desk.reset_password(a, s, row, new, console(by)),
            f"the password of {name} is reset; its sessions ended")


@serve.command()
@click.argument("name")
@BY
@click.pass_obj
def disable(obj: dict[str, Any], name: str, by: str | None) -> None:
    """Disable the account NAME: it signs in no more, its sessions end."""
    from web import account_desk

    changed(obj, name, lambda a, s, row: account_desk.set_disabled(a, s, row, True, console(by)),
            f"account {name} disabled; its sessions ended")


@serve.command()
@click.argument("name")
@BY
@click.pass_obj
def enable(obj: dict[str, Any], name: str, by: str | None) -> None:
    """Enable the account NAME again."""
    from web import account_desk

    changed(obj, name, lambda a, s, row: account_desk.set_disabled(a, s, row, False, console(by)),
            f"account {name} enabled")


@serve.command()
@click.argument("name")
@BY
@click.confirmation_option(prompt="Remove the account? Its sessions end; a name made again is a new account.")
@click.pass_obj
def remove(obj: dict[str, Any], name: str, by: str | None) -> None:
    """Remove the account NAME: its sessions end; a name made again is a new account."""
    from web import account_desk

    changed(obj, name, lambda a, s, row: account_desk.remove_account(a, s, row, console(by)),
            f"account {name} removed")


@serve.command("second-factor")
@click.argument("setting", type=click.Choice(["on", "off"]))
@BY
@click.pass_obj
def second_factor_setting(obj: dict[str, Any], setting: str, by: str | None) -> None:
    """Whether the club asks every arbiter and director to sign in with a second factor
    (an authenticator app's code): one without it may then only enrol it."""
    from web import account_desk

    with changing(obj) as (_accounts, store):
        account_desk.require_second_factor(store, setting == "on", console(by))
    click.echo(f"second factor required: {'yes' if setting == 'on' else 'no'}")


@serve.command()
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True)
@click.option("--host", default="0.0.0.0", show_default=True,
              help="The address to listen on: every one, so that the phones on the club's network reach the demo "
                   "at this machine's address (printed); 127.0.0.1 for this machine alone.")
@click.option("--public-url", metavar="URL", help="The address people reach (behind a proxy), for the links and "
              "QR codes printed, before this machine's own.")
@CLUB_TLS
@TLS_NAME
@click.pass_obj
def demo(obj: dict[str, Any], port: int, host: str, public_url: str | None, club_tls: bool,
         tls_name: tuple[str, ...]) -> None:
    """Serve a demo club: a store with a pulka under way, a director and an arbiter, created
    on first use; the table's scorer link and the spectators' page printed with their QR
    codes, at this machine's address on the club's network."""
    from web.demo import demo_club

    address = served_store((obj or {}).get("db") or "serve-demo.db")
    if tls_name and not club_tls:
        raise click.UsageError("--tls-name names this machine in the certificate --club-tls makes: give --club-tls")
    options = Options(host=host, port=port, public_url=public_url, club_tls=club_tls, tls_name=tls_name)
    club = demo_club(address, reach.addresses(host, port, options.https, public_url)[0])
    run_service(address, options, banner=club.said, codes=club.codes)

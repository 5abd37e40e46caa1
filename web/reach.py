"""Where the club's phones reach ``pulka serve``, as its terminal says at start-up: the
addresses it is reached at (this machine's address on the club's network when it
listens on every one, never ``0.0.0.0``; ``--public-url`` before any), the desks each
person opens (the sign-in, the arbiter's desk where games are made, the director's),
and QR codes of links drawn in the terminal for a phone's camera.

Nothing here sends a packet: the network address is the route the machine would take
(a UDP socket is only connected), so a club without the internet gets it too."""

from __future__ import annotations

import io
import logging
import socket
from urllib.parse import urlsplit

from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect

EVERY_ADDRESS = ("0.0.0.0", "::", "")  # a host that listens on every interface, no address one can open
LOOPBACK = "127.0.0.1"
ROUTE_PROBE = ("192.0.2.1", 9)  # TEST-NET-1 (RFC 5737): routed like any address outside, never reached


def addresses(host: str, port: int, https: bool, public_url: str | None) -> list[str]:
    """Where people reach the service, the one a phone opens first: the public address,
    else this machine's on the club's network and its own (listening on every address),
    else the address it listens on."""
    if public_url:
        return [public_url.rstrip("/") + "/"]
    scheme = "https" if https else "http"
    hosts = [host]
    if host in EVERY_ADDRESS:
        hosts = list(dict.fromkeys([lan_address(), LOOPBACK]))  # one line when there is no network
    return [f"{scheme}://{h}:{port}/" for h in hosts]


def lan_address(probe: tuple[str, int] = ROUTE_PROBE) -> str:
    """This machine's IPv4 address on its network: the source address of the route to
    ``probe`` (a UDP socket connected, no packet sent), or 127.0.0.1 where there is no
    route (no network) or the route is the machine's own."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(probe)
            found = str(sock.getsockname()[0])
        except OSError:
            return LOOPBACK
    return LOOPBACK if found.startswith("127.") or found == "0.0.0.0" else found


def link_base(public_url: str | None, network_url: str | None, asked: str) -> str:
    """The start of the links a page or the API gives (a table's, the spectators'; their
    QR codes): the public address; else the address the request was made at (``asked``),
    except where that is this machine's own (127.0.0.1, localhost): a phone cannot open
    it, and the service listening on every address knows one it can, ``network_url``."""
    if public_url:
        return public_url.rstrip("/")
    host = urlsplit(asked).hostname or ""
    if network_url and (host.startswith("127.") or host in ("localhost", "::1")):
        return network_url.rstrip("/")
    return asked.rstrip("/")


def network_url(host: str, port: int, https: bool, public_url: str | None) -> str | None:
    """This machine's address on the club's network, where the service listens on every
    address and has no public one (and the machine has a network); else None."""
    if public_url or host not in EVERY_ADDRESS:
        return None
    found = addresses(host, port, https, None)[0]
    return None if urlsplit(found).hostname == LOOPBACK else found


def terminal_qr(text: str) -> str:
    """A QR code of ``text`` drawn in the terminal (segno, two modules a line)."""
    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def shown_code(caption: str, link: str) -> str:
    """A link said with its caption, and its QR code below it."""
    return f"{caption}: {link}\n{terminal_qr(link)}"


def desks_said(base: str) -> list[str]:
    """Where those who sign in go: the sign-in, the arbiter's desk (games made, a table's
    links and QR codes issued), the director's (tournaments, accounts)."""
    base = base.rstrip("/")
    return [
        _("arbiters and directors sign in at {url}").format(url=f"{base}/signin"),
        _("games are made at the arbiter's desk, {url}, where each table's link and QR codes are issued").format(
            url=f"{base}/arbiter"),
        _("tournaments and accounts: the director's desk, {url}").format(url=f"{base}/director"),
    ]


def no_unopenable_address(record: logging.LogRecord) -> bool:
    """A filter of uvicorn's log: its line ``Uvicorn running on http://0.0.0.0:8000`` left
    out, an address no phone can open (the addresses to open are printed before it)."""
    message = record.getMessage()
    return not (message.startswith("Uvicorn running on") and any(
        f"://{host}:" in message for host in ("0.0.0.0", "[::]", "::")))

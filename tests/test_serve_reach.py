"""Where the club's phones reach ``pulka serve`` (issue 31, finding 1), at its own door:
the address printed (this machine's on its network, never 0.0.0.0; ``--public-url``
before it; 127.0.0.1 with no network), ``make serve``'s demo listening on every address
and printing the table's scorer link and the spectators' page each with a QR code that
encodes exactly that link, and the sign-in and desks' addresses; a table's token held by
``scorer:NAME`` as the README writes it (finding 10)."""

from __future__ import annotations

import logging
import re
import socket
from pathlib import Path
from typing import Any

import pytest
import segno
from click.testing import CliRunner

from cli.main import main
from ledger.vocabulary.refusal import Refused
from tests.serving import account, client, sign_in
from web import reach
from web.api_arbiter import token_holder
from web.pages import qr_data_uri

pytestmark = pytest.mark.sqlite_only

# segno's compact terminal drawing: two rows of modules a line, a dark module blank
HALVES = {" ": (1, 1), "\u2580": (0, 1), "\u2584": (1, 0), "\u2588": (0, 0)}


class Route:
    """A UDP socket whose route is ``source``, or none (``OSError``, no network)."""

    def __init__(self, source: str | None) -> None:
        self.source = source
        self.connected: list[Any] = []

    def __call__(self, *_args: Any) -> Route:
        return self

    def __enter__(self) -> Route:
        return self

    def __exit__(self, *_exc: Any) -> None:
        return None

    def connect(self, where: Any) -> None:
        self.connected.append(where)
        if self.source is None:
            raise OSError("Network is unreachable")

    def getsockname(self) -> tuple[str, int]:
        assert self.source is not None
        return self.source, 40000


def test_the_network_address_is_the_routes_source_and_127_0_0_1_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    route = Route("10.20.30.40")
    monkeypatch.setattr(reach.socket, "socket", route)
    assert reach.lan_address() == "10.20.30.40"
    assert route.connected == [reach.ROUTE_PROBE]  # connected only: a UDP connect sends nothing
    monkeypatch.setattr(reach.socket, "socket", Route(None))
    assert reach.lan_address() == "127.0.0.1"
    monkeypatch.setattr(reach.socket, "socket", Route("0.0.0.0"))
    assert reach.lan_address() == "127.0.0.1"


def test_the_network_address_of_this_machine_is_one_a_phone_can_open() -> None:
    found = reach.lan_address()
    assert socket.inet_aton(found) and found != "0.0.0.0"


def test_every_address_is_printed_as_this_machines_never_0_0_0_0(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reach, "lan_address", lambda: "192.168.1.23")
    for host in ("0.0.0.0", "::"):
        assert reach.addresses(host, 8000, False, None) == ["http://192.168.1.23:8000/", "http://127.0.0.1:8000/"]
    assert reach.addresses("0.0.0.0", 443, True, None)[0] == "https://192.168.1.23:443/"
    assert reach.addresses("127.0.0.1", 8000, False, None) == ["http://127.0.0.1:8000/"]
    assert reach.addresses("0.0.0.0", 8000, False, "https://pulka.club.example/") == ["https://pulka.club.example/"]
    monkeypatch.setattr(reach, "lan_address", lambda: "127.0.0.1")  # no network: one line, not the same twice
    assert reach.addresses("0.0.0.0", 8000, False, None) == ["http://127.0.0.1:8000/"]


def test_uvicorns_line_with_an_address_no_phone_opens_is_left_out() -> None:
    def line(message: str, *args: Any) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, message, args, None)

    running = "Uvicorn running on %s://%s:%d (Press CTRL+C to quit)"
    assert not reach.no_unopenable_address(line(running, "http", "0.0.0.0", 8000))
    assert not reach.no_unopenable_address(line(running, "http", "[::]", 8000))
    assert reach.no_unopenable_address(line(running, "http", "127.0.0.1", 8000))
    assert reach.no_unopenable_address(line("Application startup complete."))


def test_links_asked_at_this_machines_own_address_give_its_network_address() -> None:
    lan = "http://192.168.1.23:8000"
    for asked in ("http://127.0.0.1:8000/", "http://localhost:8000/", "http://[::1]:8000/"):
        assert reach.link_base(None, lan, asked) == lan
        assert reach.link_base(None, None, asked) == asked.rstrip("/")  # listening on 127.0.0.1 alone
        assert reach.link_base("https://pulka.club.example/", lan, asked) == "https://pulka.club.example"
    assert reach.link_base(None, lan, "http://192.168.1.23:8000/") == lan
    assert reach.link_base(None, lan, "http://10.8.0.2:8000/") == "http://10.8.0.2:8000"  # as the phone asked


def test_the_network_address_is_known_to_a_service_on_every_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reach, "lan_address", lambda: "192.168.1.23")
    assert reach.network_url("0.0.0.0", 8000, False, None) == "http://192.168.1.23:8000/"
    assert reach.network_url("127.0.0.1", 8000, False, None) is None
    assert reach.network_url("0.0.0.0", 8000, False, "https://pulka.club.example") is None
    monkeypatch.setattr(reach, "lan_address", lambda: "127.0.0.1")
    assert reach.network_url("0.0.0.0", 8000, False, None) is None


def test_the_desk_opened_on_the_servers_machine_gives_codes_a_phone_opens(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    account(db, "igor", "arbiter")
    lan = "http://192.168.1.23:8000"
    with client(db, network_url=lan + "/") as c:
        c.base_url = "http://127.0.0.1:8000"
        headers = sign_in(c, "igor")
        r = c.post("/api/games", json={"id": "new-game-0001", "game": "friday", "players": ["Anna", "Boris", "Vera"]},
                   headers=headers)
        assert r.status_code == 201, r.text
        links = c.post("/api/games/friday/tokens", json={"holder": "Masha"}, headers=headers).json()["links"]
        assert links["watch"] == f"{lan}/watch/friday" and links["score"].startswith(f"{lan}/score/friday#token=")
        desk = c.get("/arbiter/game/friday").text
        assert f'src="{qr_data_uri(f"{lan}/watch/friday")}"' in desk
        assert "127.0.0.1" not in desk


def modules(drawing: str) -> list[list[int]]:
    """The modules of a QR code drawn by ``reach.terminal_qr`` (1 dark), its quiet zone cut."""
    rows: list[list[int]] = []
    for line in drawing.splitlines():
        pairs = [HALVES[c] for c in line]
        rows += [[p[0] for p in pairs], [p[1] for p in pairs]]
    border = 4
    return [row[border:-border] for row in rows[border:border + len(rows[0]) - 2 * border]]


def encodes(drawing: str, link: str) -> bool:
    """Whether the terminal's QR code is the code of ``link``, module by module."""
    return modules(drawing) == [list(row) for row in segno.make(link, error="m").matrix]


def test_a_terminal_qr_code_is_the_code_of_its_link_and_no_other() -> None:
    drawing = reach.terminal_qr("http://10.0.0.5:8000/watch/evening")
    assert encodes(drawing, "http://10.0.0.5:8000/watch/evening")
    assert not encodes(drawing, "http://10.0.0.5:8000/")


def codes_printed(out: str) -> dict[str, str]:
    """Each ``caption: link`` line followed by a QR code, its caption -> its link, the
    code checked to encode that link."""
    lines = out.splitlines()
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        caption, sep, link = line.partition(": ")
        if not sep or not link.startswith("http") or i + 1 >= len(lines) or lines[i + 1][:1] not in HALVES:
            continue
        block = []
        for follow in lines[i + 1:]:
            if not follow or not set(follow) <= set(HALVES):
                break
            block.append(follow)
        assert encodes("\n".join(block), link), caption
        found[caption] = link
    return found


def served_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[str, dict[str, Any]]:
    """``pulka serve demo`` with ``args`` up to where it would serve: what it printed, and
    what it would have served with."""
    ran: dict[str, Any] = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **options: ran.update(options))
    monkeypatch.setattr(reach, "lan_address", lambda: "192.168.1.23")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "serve-demo.db"), "serve", "demo", "--port", "8123",
                                       *args])
    assert result.exit_code == 0, result.output
    return result.output, ran


def test_make_serve_listens_on_every_address_and_prints_the_tables_links_with_their_codes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, ran = served_demo(tmp_path, monkeypatch)
    assert ran["host"] == "0.0.0.0" and ran["port"] == 8123
    assert "0.0.0.0" not in out
    codes = codes_printed(out)
    base = "http://192.168.1.23:8123"
    assert list(codes) == ["the table's scorer (its phone opens this)", "the spectators"]  # not the front page
    scorer = codes["the table's scorer (its phone opens this)"]
    assert re.fullmatch(re.escape(f"{base}/score/evening#token=") + r"[\w-]+\.[\w-]+", scorer)
    assert codes["the spectators"] == f"{base}/watch/evening"
    assert f"arbiters and directors sign in at {base}/signin" in out
    assert f"games are made at the arbiter's desk, {base}/arbiter," in out
    assert f"the director's desk, {base}/director" in out
    for role, file in (("director", "serve-demo.db.password"), ("arbiter", "serve-demo.db.arbiter.password")):
        assert f"the {role} signs in as '{role}' with the password in {tmp_path / file}" in out
        assert len((tmp_path / file).read_text(encoding="utf-8").strip()) >= 12
        assert (tmp_path / file).stat().st_mode & 0o077 == 0


def test_make_serve_for_this_machine_alone_and_behind_a_public_address(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, ran = served_demo(tmp_path, monkeypatch, "--host", "127.0.0.1")
    assert ran["host"] == "127.0.0.1" and "192.168.1.23" not in out
    assert codes_printed(out)["the spectators"] == "http://127.0.0.1:8123/watch/evening"
    out, _ran = served_demo(tmp_path, monkeypatch, "--public-url", "https://pulka.club.example/")
    codes = codes_printed(out)
    assert codes["the spectators"] == "https://pulka.club.example/watch/evening"
    assert codes["the table's scorer (its phone opens this)"].startswith("https://pulka.club.example/score/evening#")
    assert "arbiters and directors sign in at https://pulka.club.example/signin" in out


def test_a_token_held_by_scorer_name_records_as_that_scorer() -> None:
    players = ("Anna", "Boris", "Vera")
    assert token_holder(players, "Masha") == "scorer:Masha"
    assert token_holder(players, "scorer:Masha") == "scorer:Masha"
    assert token_holder(players, " scorer: Masha ") == "scorer:Masha"
    assert token_holder(players, "boris") == "Boris"
    assert token_holder(players, "scorer:boris") == "scorer:boris"  # written as a scorer, a scorer
    for wrong in ("", "  ", "scorer:", "scorer: ", "arbiter:Oleg"):
        with pytest.raises(Refused) as refused:
            token_holder(players, wrong)
        assert refused.value.field == "holder"


def test_make_serve_prints_the_clubs_certificate_first_its_code_its_link_and_the_fingerprint_it_serves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cryptography import x509

    from tests.serving import client
    from web.club_tls import fingerprint

    out, ran = served_demo(tmp_path, monkeypatch, "--club-tls")  # as `make serve` runs it
    base = "https://192.168.1.23:8123"
    codes = codes_printed(out)
    assert list(codes) == ["the club's certificate (once per phone)", "the table's scorer (its phone opens this)",
                           "the spectators"]  # step 1 before the table's codes
    assert codes["the club's certificate (once per phone)"] == f"{base}/club-certificate"
    assert codes["the spectators"] == f"{base}/watch/evening" and f"sign in at {base}/signin" in out
    printed = re.search(r"step 1, once per phone: .* SHA-256 fingerprint is ([0-9A-F:]{95})\n", out)
    assert printed is not None and out.index("step 1") < out.index("the table's scorer")
    folder = tmp_path / "serve-demo.db.tls"
    assert ran["ssl_certfile"] == str(folder / "server.pem") and ran["ssl_keyfile"] == str(folder / "server.key")
    served = x509.load_pem_x509_certificate((folder / "server.pem").read_bytes())
    sans = served.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "192.168.1.23" in {str(name.value) for name in sans}  # the address the codes give
    with client(str(tmp_path / "serve-demo.db"), https=True, club_ca=str(folder / "ca.pem")) as c:
        assert fingerprint(c.get("/club-certificate.crt").content) == printed.group(1)
    assert "was made in" in out and "keep its key ca.key private" in out

    again, _ran = served_demo(tmp_path, monkeypatch, "--club-tls")  # the next evening: the same CA
    assert printed.group(1) in again and "was made in" not in again
    plain, ran = served_demo(tmp_path, monkeypatch, "--club-tls", "--no-club-tls")  # SERVE_ARGS=--no-club-tls
    assert ran["ssl_certfile"] is None and "step 1" not in plain
    assert codes_printed(plain)["the spectators"] == "http://192.168.1.23:8123/watch/evening"

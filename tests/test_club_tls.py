"""The club's own certificate authority (``pulka serve --club-tls``, issue 31): the CA and
this machine's certificate as made (their constraints, names, lives; the server's
verified against the CA as a browser verifies it, for each name and address), kept and
used again at the next start, the server's made again when the club's network address
changes or its end nears but never the CA; a broken or missing key, a folder that cannot
be made, a name that is none: refused naming the file or the name, nothing made over
them. What the service serves of it: the CA's certificate (DER) and its page, in the
reader's language, with its fingerprint; the arbiter's desk beside a table's codes; HSTS
for a day."""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509 import verification
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from cli.main import main
from tests.serving import client
from web import club_tls, reach
from web.club_tls import ClubTLSError, club_certificates_in

NAMES = ["localhost", "scorer-box", "scorer-box.local", "club.test"]
ADDRESSES = ["192.168.1.23", "127.0.0.1"]
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def certificate(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())  # the first of a chain: the server's


def names_of(cert: x509.Certificate) -> set[str]:
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return {str(name.value) for name in sans}


def verified(made: club_tls.ClubCertificates, name: str, at: datetime) -> None:
    """The server's certificate verified as a browser does: a chain to the CA for ``name``
    (a host name or an address) at ``at`` (``VerificationError`` otherwise)."""
    store = verification.Store([certificate(made.ca_file)])
    subject = (verification.IPAddress(ipaddress.ip_address(name)) if name[0].isdigit()
               else verification.DNSName(name))
    chain = x509.load_pem_x509_certificates(made.certfile.read_bytes())
    verifier = verification.PolicyBuilder().store(store).time(at).build_server_verifier(subject)
    verifier.verify(chain[0], chain[1:])


def test_the_ca_signs_certificates_alone_and_the_servers_is_for_this_machine_and_verifies_against_it(
        tmp_path: Path) -> None:
    made = club_certificates_in(tmp_path / "pulka.db.tls", "pulka.db", NAMES, ADDRESSES, NOW)
    assert made.made == ("ca", "server")
    ca = certificate(made.ca_file)
    assert isinstance(ca.public_key(), ec.EllipticCurvePublicKey) and ca.public_key().curve.name == "secp256r1"
    assert ca.subject == ca.issuer and ca.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "pulka club CA — pulka.db"
    ca.verify_directly_issued_by(ca)
    constraints = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    assert constraints.critical and constraints.value.ca and constraints.value.path_length == 0
    usage = ca.extensions.get_extension_for_class(x509.KeyUsage)
    assert usage.critical and usage.value.key_cert_sign and not usage.value.digital_signature
    assert timedelta(days=5 * 365) < ca.not_valid_after_utc - NOW < timedelta(days=11 * 365)

    server = certificate(made.certfile)
    server.verify_directly_issued_by(ca)
    assert names_of(server) == {*NAMES, *ADDRESSES}
    assert server.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value == x509.ExtendedKeyUsage(
        [ExtendedKeyUsageOID.SERVER_AUTH])
    assert not server.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert server.not_valid_before_utc <= NOW and server.not_valid_after_utc - server.not_valid_before_utc <= \
        timedelta(days=397)
    for name in [*NAMES, *ADDRESSES]:
        verified(made, name, NOW)
    with pytest.raises(verification.VerificationError):
        verified(made, "192.168.1.99", NOW)  # an address it is not for
    with pytest.raises(verification.VerificationError):
        verified(made, "club.test", NOW + timedelta(days=400))  # past its end
    key = serialization.load_pem_private_key(made.keyfile.read_bytes(), None)
    assert key.public_key() == server.public_key()
    for private in ("ca.key", "server.key"):
        assert (made.folder / private).stat().st_mode & 0o777 == 0o600
    assert made.folder.stat().st_mode & 0o077 == 0
    assert b"PRIVATE" not in made.ca_der and made.fingerprint == club_tls.fingerprint(made.ca_der)
    assert len(made.fingerprint) == 95 and made.fingerprint.count(":") == 31


def kept(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_a_second_start_uses_both_again_and_a_new_address_or_a_near_end_makes_the_servers_again_never_the_cas(
        tmp_path: Path) -> None:
    folder = tmp_path / "pulka.db.tls"
    club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, NOW)
    first = kept(folder)
    again = club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, NOW + timedelta(days=30))
    assert again.made == () and kept(folder) == first

    moved = club_certificates_in(folder, "pulka.db", NAMES, ["10.0.0.7", "127.0.0.1"], NOW + timedelta(days=31))
    assert moved.made == ("server",)
    now = kept(folder)
    assert now["ca.key"] == first["ca.key"] and now["ca.pem"] == first["ca.pem"]
    assert now["server.pem"] != first["server.pem"] and now["server.key"] != first["server.key"]
    assert names_of(certificate(moved.certfile)) == {*NAMES, "10.0.0.7", "127.0.0.1"}
    verified(moved, "10.0.0.7", NOW + timedelta(days=31))

    late = NOW + timedelta(days=31 + 397 - 29)  # within 30 days of its end
    renewed = club_certificates_in(folder, "pulka.db", NAMES, ["10.0.0.7", "127.0.0.1"], late)
    assert renewed.made == ("server",) and kept(folder)["ca.pem"] == first["ca.pem"]
    verified(renewed, "10.0.0.7", late + timedelta(days=300))
    named = club_certificates_in(folder, "pulka.db", [*NAMES, "pulka.club.lan"], ["10.0.0.7", "127.0.0.1"], late)
    assert named.made == ("server",) and "pulka.club.lan" in names_of(certificate(named.certfile))

    ca_end = certificate(named.ca_file).not_valid_after_utc
    last = club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, ca_end - timedelta(days=100))
    assert last.made == ("server",) and certificate(last.certfile).not_valid_after_utc == ca_end  # not past the CA
    with pytest.raises(ClubTLSError) as ended:
        club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, ca_end)
    assert f"{folder / 'ca.pem'} ended on {ca_end.date().isoformat()}" in str(ended.value)
    assert kept(folder)["ca.pem"] == first["ca.pem"]  # never made again silently


def test_a_broken_or_missing_key_is_refused_naming_it_and_no_ca_is_made_over_it(tmp_path: Path) -> None:
    folder = tmp_path / "pulka.db.tls"
    club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, NOW)
    ca = (folder / "ca.pem").read_bytes()
    (folder / "ca.key").write_bytes(b"-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n")
    with pytest.raises(ClubTLSError) as refused:
        club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, NOW)
    assert str(folder / "ca.key") in str(refused.value) and "not a readable private key" in str(refused.value)
    assert (folder / "ca.pem").read_bytes() == ca

    other = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (folder / "ca.key").write_bytes(other)
    with pytest.raises(ClubTLSError, match="is not the key of its certificate"):
        club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, NOW)

    (folder / "ca.key").unlink()
    with pytest.raises(ClubTLSError) as refused:
        club_certificates_in(folder, "pulka.db", NAMES, ADDRESSES, NOW)
    assert f"{folder / 'ca.key'} is missing" in str(refused.value)
    assert not (folder / "ca.key").exists() and (folder / "ca.pem").read_bytes() == ca

    made = club_certificates_in(tmp_path / "b.tls", "b", NAMES, ADDRESSES, NOW)
    ca = made.ca_file.read_bytes()
    made.keyfile.write_text("not a key")  # the server's own key: its certificate made again, the CA kept
    assert club_certificates_in(tmp_path / "b.tls", "b", NAMES, ADDRESSES, NOW).made == ("server",)
    assert made.ca_file.read_bytes() == ca


def test_a_folder_that_cannot_be_made_and_a_name_that_is_none_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ClubTLSError) as refused:
        club_certificates_in(tmp_path / "a-file" / "pulka.db.tls", "pulka.db", NAMES, ADDRESSES, NOW)
    assert str(tmp_path / "a-file" / "pulka.db.tls") in str(refused.value)
    for wrong in ("club test", "-club", "club_test", "a" * 64 + ".lan"):
        with pytest.raises(ClubTLSError, match="--tls-name"):
            club_tls.machine_names((wrong,))
    names, addresses = club_tls.machine_names(("Pulka.Club.LAN",))
    assert names[0] == "localhost" and "pulka.club.lan" in names and "127.0.0.1" in addresses


def test_pulka_serve_refuses_a_broken_key_clearly_and_serves_nothing(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[object] = []
    monkeypatch.setattr("uvicorn.run", lambda *args, **options: ran.append(options))
    db = str(tmp_path / "pulka.db")
    folder = Path(db + ".tls")
    folder.mkdir()
    (folder / "ca.key").write_text("garbage")
    (folder / "ca.pem").write_text("garbage")
    result = CliRunner().invoke(main, ["--db", db, "serve", "--club-tls"])
    assert result.exit_code == 1 and not ran
    assert f"Error: the key {folder / 'ca.key'} is not a readable private key" in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    pem = str(folder / "ca.pem")
    both = CliRunner().invoke(main, ["--db", db, "serve", "--club-tls", "--certfile", pem, "--keyfile", pem])
    assert both.exit_code == 2 and "not both" in both.output
    alone = CliRunner().invoke(main, ["--db", db, "serve", "--tls-name", "club.test"])
    assert alone.exit_code == 2 and "give --club-tls" in alone.output


def test_the_service_serves_the_cas_certificate_and_its_page_never_its_key_and_hsts_for_a_day(
        tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    made = club_certificates_in(Path(db + ".tls"), "pulka.db", NAMES, ADDRESSES)
    with client(db, https=True, club_ca=str(made.ca_file), hsts_max_age=club_tls.HSTS_MAX_AGE,
                network_url="https://192.168.1.23:8000/") as c:
        der = c.get("/club-certificate.crt")
        assert der.status_code == 200 and der.headers["content-type"] == "application/x-x509-ca-cert"
        assert x509.load_der_x509_certificate(der.content) == certificate(made.ca_file)
        assert der.headers["strict-transport-security"] == "max-age=86400"
        page = c.get("/club-certificate")
        assert page.status_code == 200 and made.fingerprint in page.text
        assert 'href="/club-certificate.crt"' in page.text
        assert "Install a certificate → CA certificate" in page.text and "Certificate Trust Settings" in page.text
        russian = c.get("/club-certificate", params={"lang": "ru"}).text
        assert "Сертификат клуба" in russian and made.fingerprint in russian and "Certificate Trust" not in russian
        key = (made.folder / "ca.key").read_bytes()
        for answer in (der, page):
            assert key not in answer.content and b"PRIVATE KEY" not in answer.content
        c.base_url = "https://127.0.0.1:8000"  # the desk opened on the server's machine: codes a phone opens
        desk = c.get("/arbiter/game/friday").text
        assert 'href="https://192.168.1.23:8000/club-certificate"' in desk and made.fingerprint in desk
    with client(db, https=True) as c:  # a service of other certificates (--certfile), or none
        assert c.get("/club-certificate.crt").status_code == 404 and c.get("/club-certificate").status_code == 404
        assert c.get("/api/health").headers["strict-transport-security"] == "max-age=31536000"
        assert "club-fingerprint" not in c.get("/arbiter/game/friday").text


def test_the_folder_is_beside_a_sqlite_store_and_in_the_data_folder_for_postgresql(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert club_tls.folder_of(str(tmp_path / "club.db")) == tmp_path / "club.db.tls"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    found = club_tls.folder_of("postgresql://pulka:secretpw@10.0.0.5:5432/club?schema=north")
    assert found.parent == tmp_path / "data" / "pulka" / "tls" and "secretpw" not in str(found)
    assert "10.0.0.5" in found.name and "club" in found.name
    assert club_tls.club_name("postgresql://pulka:secretpw@10.0.0.5:5432/club?schema=north") == "club"
    monkeypatch.setattr(reach, "lan_address", lambda: "192.168.1.23")
    assert "192.168.1.23" in club_tls.machine_names()[1]


def test_pulka_serve_club_tls_makes_the_ca_once_beside_either_store_and_serves_with_it(
        store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[dict[str, object]] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **options: ran.append(options))
    monkeypatch.setattr(reach, "lan_address", lambda: "192.168.1.23")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = club_tls.folder_of(store_url)
    first = CliRunner().invoke(main, ["--db", store_url, "serve", "--host", "0.0.0.0", "--club-tls"])
    assert first.exit_code == 0, first.output
    assert ran[0]["ssl_certfile"] == str(folder / "server.pem") and ran[0]["ssl_keyfile"] == str(folder / "server.key")
    assert "https://192.168.1.23:8000/club-certificate" in first.output and "was made in" in first.output
    ca = (folder / "ca.pem").read_bytes()
    assert "192.168.1.23" in names_of(certificate(folder / "server.pem"))
    monkeypatch.setattr(reach, "lan_address", lambda: "192.168.1.40")  # the next evening, another address
    second = CliRunner().invoke(main, ["--db", store_url, "serve", "--host", "0.0.0.0", "--club-tls"])
    assert second.exit_code == 0, second.output
    assert "made again" in second.output and (folder / "ca.pem").read_bytes() == ca
    assert "192.168.1.40" in names_of(certificate(folder / "server.pem"))
    assert club_tls.fingerprint(x509.load_pem_x509_certificate(ca).public_bytes(serialization.Encoding.DER)) in \
        second.output

"""The club's own certificate authority (``pulka serve --club-tls``, issue 31): TLS on
the club's network without a certificate bought for a public name, so that a phone's
browser counts the service's pages a secure context and lets the scorer's page keep its
service worker (an offline app opens again with the service down only over TLS, or at
127.0.0.1).

Made with ``cryptography`` on first use, in a folder beside the store (``<store>.tls/``;
for a PostgreSQL store, the platform's data folder): the club CA — an ECDSA P-256 key
and its self-signed certificate (CA, path length 0, signing certificates alone, ten
years) — and a certificate of this machine signed by it for its addresses: the club's
network address, 127.0.0.1, localhost, the host name and ``NAME.local``, and any name
the club gives (``--tls-name``), at most 397 days, for a server alone. Each phone
installs the CA's certificate once (``/club-certificate``, checked by its SHA-256
fingerprint); the server's certificate is made again when the addresses change or it
is 30 days from its end, and the CA never is: a CA made again is one no phone trusts.

The keys are written readable by their owner alone. Whoever has the CA's key can make
a certificate the club's phones take for the club's server: it never leaves the folder
and is never served (only the CA's certificate is).
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ledger.store.backend import is_postgres_url, store_label
from ledger.vocabulary import language
from web import reach

_ = language._  # every text a person reads, in the language in effect

CA_LIFE = timedelta(days=3653)  # ten years: each phone installs it once
SERVER_LIFE = timedelta(days=397)  # what browsers accept of a server's certificate
RENEW_BEFORE = timedelta(days=30)  # the server's certificate is made again this long before its end
EARLIER = timedelta(hours=1)  # a certificate is valid from a little before it is made: clocks differ
CA_KEY, CA_CERT, SERVER_KEY, SERVER_CERT = "ca.key", "ca.pem", "server.key", "server.pem"
PATH = "/club-certificate"  # the club CA's page (how to install it); its certificate at PATH + ".crt"
DER_TYPE = "application/x-x509-ca-cert"  # what phones install as a CA certificate
# Where the club reaches the service by name, HSTS is sent for a day only: a club that
# drops TLS again is shut out of its own service by its phones for a day at most (for an
# address such as 192.168.1.20 browsers keep no HSTS at all).
HSTS_MAX_AGE = 24 * 3600
NAME_LETTERS = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")


class ClubTLSError(Exception):
    """The club's certificates cannot be made or used: the message names the file."""


@dataclass(frozen=True)
class ClubCertificates:
    """The club CA and this machine's certificate, as the service uses them."""

    folder: Path
    certfile: Path  # this machine's certificate, then the CA's (the chain uvicorn sends)
    keyfile: Path
    ca_file: Path  # the CA's certificate (PEM): what phones install
    made: tuple[str, ...]  # what this start made: "ca", "server"

    @property
    def ca_der(self) -> bytes:
        return ca_der(self.ca_file)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.ca_der)


def folder_of(address: str) -> Path:
    """Where a store's club certificates are kept: beside a SQLite file
    (``<store>.tls``); for PostgreSQL, in the platform's data folder, by server and
    database."""
    if not is_postgres_url(address):
        return Path(f"{address}.tls")
    import platformdirs

    label = store_label(address).split("://", 1)[1].rpartition("@")[2]
    return platformdirs.user_data_path("pulka", appauthor=False) / "tls" / re.sub(r"[^\w.-]+", "_", label)


def club_name(address: str) -> str:
    """The club as its CA is named: the store's file name, or its database."""
    label = store_label(address)
    if is_postgres_url(address):
        return label.rpartition("/")[2].partition("?")[0] or label
    return Path(address).name


def fingerprint(der: bytes) -> str:
    """A certificate's SHA-256 fingerprint as phones show it: ``AB:CD:…``."""
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def ca_der(ca_file: Path) -> bytes:
    return loaded_certificate(ca_file).public_bytes(serialization.Encoding.DER)


def machine_names(extra: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """The names and the addresses this machine is reached at on the club's network:
    localhost, its host name and ``NAME.local`` (mDNS), the names given; 127.0.0.1 and its
    address on the network (``reach.lan_address``)."""
    host = socket.gethostname().strip().rstrip(".").lower()
    names = ["localhost"]
    if NAME_LETTERS.fullmatch(host) and host != "localhost":
        names += [host] if "." in host else [host, f"{host}.local"]
    for name in extra:
        checked_name(name)
    names += [n.lower().rstrip(".") for n in extra]
    return list(dict.fromkeys(names)), list(dict.fromkeys([reach.lan_address(), reach.LOOPBACK]))


def checked_name(name: str) -> str:
    """A name a certificate may carry (``--tls-name``), or a refusal."""
    if not NAME_LETTERS.fullmatch(name.rstrip(".")) or len(name) > 253:
        raise ClubTLSError(_("--tls-name {name}: not a host name (letters, digits and hyphens, in parts "
                             "separated by dots)").format(name=repr(name)))
    return name


def club_certificates_in(folder: Path, club: str, names: list[str], addresses: list[str],
             now: datetime | None = None) -> ClubCertificates:
    """The club's certificates in ``folder``: the CA as it is (made when there is none),
    this machine's certificate for ``names`` and ``addresses`` as it is, or made again
    when it is not for exactly those, is near its end or is not the CA's."""
    now = now or datetime.now(timezone.utc)
    made: list[str] = []
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ClubTLSError(_("cannot make the folder of the club's certificates {file}: {why}").format(
            file=folder, why=exc.strerror or exc)) from None
    ca_key, ca = kept_ca(folder)
    if ca is not None and ca.not_valid_after_utc <= now:
        raise ClubTLSError(_("the club CA's certificate {file} ended on {day}: remove the folder {folder} to make a "
                             "new CA (each phone then installs the new certificate)").format(
            file=folder / CA_CERT, day=ca.not_valid_after_utc.date().isoformat(), folder=folder))
    if ca is None:
        ca_key, ca = made_ca(folder, club, now)
        made.append("ca")
    assert ca_key is not None
    wanted = sans(names, addresses)
    if not current_server(folder, ca, wanted, now):
        made_server(folder, ca_key, ca, wanted, now)
        made.append("server")
    return ClubCertificates(folder, folder / SERVER_CERT, folder / SERVER_KEY, folder / CA_CERT, tuple(made))


def kept_ca(folder: Path) -> tuple[ec.EllipticCurvePrivateKey | None, x509.Certificate | None]:
    """The CA's key and certificate as kept; (None, None) when there are none. One
    without the other, a key that is not the certificate's, a file that cannot be read:
    refused, for a CA made again silently would be one no phone trusts."""
    key_file, cert_file = folder / CA_KEY, folder / CA_CERT
    if not key_file.exists() and not cert_file.exists():
        return None, None
    for present, absent in ((key_file, cert_file), (cert_file, key_file)):
        if not absent.exists():
            raise ClubTLSError(_("the club CA's {absent} is missing beside {present}: put it back from a copy, or "
                                 "remove the folder {folder} to make a new CA (each phone then installs the new "
                                 "certificate)").format(absent=absent, present=present, folder=folder))
    key, cert = loaded_key(key_file), loaded_certificate(cert_file)
    if key.public_key() != cert.public_key():
        raise ClubTLSError(_("the club CA's key {key} is not the key of its certificate {file}").format(
            key=key_file, file=cert_file))
    return key, cert


def loaded_key(path: Path) -> ec.EllipticCurvePrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except OSError as exc:
        raise ClubTLSError(_("cannot read the key {file}: {why}").format(file=path, why=exc.strerror or exc)) from None
    except (ValueError, TypeError):
        raise ClubTLSError(_("the key {file} is not a readable private key (PEM, no password): put back a copy, "
                             "or remove it").format(file=path)) from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ClubTLSError(_("the key {file} is not an ECDSA key").format(file=path))
    return key


def loaded_certificate(path: Path) -> x509.Certificate:
    try:
        return x509.load_pem_x509_certificate(path.read_bytes())
    except OSError as exc:
        raise ClubTLSError(_("cannot read the certificate {file}: {why}").format(
            file=path, why=exc.strerror or exc)) from None
    except ValueError:
        raise ClubTLSError(_("the certificate {file} is not a readable certificate (PEM)").format(file=path)) from None


def written(path: Path, data: bytes, private: bool) -> None:
    """``data`` in ``path``, whole or not at all (a file beside it, renamed); a key
    readable by its owner alone."""
    part = path.with_name(path.name + ".part")
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(part, path)
    except OSError as exc:
        raise ClubTLSError(_("cannot write {file}: {why}").format(file=path, why=exc.strerror or exc)) from None


def pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def made_ca(folder: Path, club: str, now: datetime) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A new club CA: its key and its self-signed certificate, written."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"pulka club CA — {club}"[:64]),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "pulka")])
    public = key.public_key()
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - EARLIER).not_valid_after(now - EARLIER + CA_LIFE)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(key, hashes.SHA256()))
    written(folder / CA_KEY, pem_key(key), private=True)
    written(folder / CA_CERT, cert.public_bytes(serialization.Encoding.PEM), private=False)
    return key, cert


def sans(names: list[str], addresses: list[str]) -> list[x509.GeneralName]:
    return [*(x509.DNSName(n) for n in names), *(x509.IPAddress(ipaddress.ip_address(a)) for a in addresses)]


def current_server(folder: Path, ca: x509.Certificate, wanted: list[x509.GeneralName], now: datetime) -> bool:
    """Whether this machine's certificate may serve on: there, with its key, the CA's,
    for exactly the names and addresses wanted, and not within 30 days of its end."""
    try:
        cert = loaded_certificate(folder / SERVER_CERT)
        key = loaded_key(folder / SERVER_KEY)
        cert.verify_directly_issued_by(ca)
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ClubTLSError, ValueError, TypeError, InvalidSignature, x509.ExtensionNotFound):
        return False  # made again: the CA signs a new one
    return (key.public_key() == cert.public_key() and set(names) == set(wanted)
            and cert.not_valid_before_utc <= now < cert.not_valid_after_utc - RENEW_BEFORE)


def made_server(folder: Path, ca_key: ec.EllipticCurvePrivateKey, ca: x509.Certificate,
                wanted: list[x509.GeneralName], now: datetime) -> None:
    """This machine's certificate, signed by the CA, written with its key and the CA's
    certificate after it (the chain a browser is sent)."""
    key = ec.generate_private_key(ec.SECP256R1())
    first = wanted[0].value
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, str(first)[:64])])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - EARLIER).not_valid_after(min(now - EARLIER + SERVER_LIFE, ca.not_valid_after_utc))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(wanted), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    written(folder / SERVER_KEY, pem_key(key), private=True)
    chain = cert.public_bytes(serialization.Encoding.PEM) + ca.public_bytes(serialization.Encoding.PEM)
    written(folder / SERVER_CERT, chain, private=False)


def certificates_said(certificates: ClubCertificates, base: str) -> list[str]:
    """What the terminal says first: step 1, once per phone, the club's certificate (its
    link, its QR code, its fingerprint); what this start made."""
    lines = []
    if "ca" in certificates.made:
        lines.append(_("the club's certificate authority was made in {folder}: keep its key ca.key private "
                       "(whoever has it can pose as this service to the club's phones)").format(
            folder=certificates.folder))
    elif "server" in certificates.made:
        lines.append(_("this machine's certificate was made again (its addresses changed, or it neared its end), "
                       "signed by the club's certificate authority as before"))
    lines.append(_("step 1, once per phone: install the club's certificate; its SHA-256 fingerprint is {fingerprint}"
                   ).format(fingerprint=certificates.fingerprint))
    lines.append(reach.shown_code(_("the club's certificate (once per phone)"), base.rstrip("/") + PATH).rstrip("\n"))
    lines.append(_("step 2: the links of the tables"))
    return lines

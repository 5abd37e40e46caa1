"""Signed notes (C2SP signed-note) with Ed25519, the checkpoints they carry (C2SP
tlog-checkpoint), and the text an arbiter signs over an event's digest.

A *note* is UTF-8 text ending in a newline, then a blank line, then one or more
signature lines ``— NAME BASE64`` (em dash, space, the key's name, space, base64 of
the 4-byte key id and the signature). Ed25519 (signature type 0x01) signs the text,
final newline included; a key's id is the first four bytes of
SHA-256(name || 0x0A || 0x01 || public key). Keys travel in the formats of Go's
golang.org/x/mod/sumdb/note: a verifier key ``NAME+KEYID+BASE64(0x01 || public key)``
and a signer key ``PRIVATE+KEY+NAME+KEYID+BASE64(0x01 || seed)``.

A witness's key is of type 0x04 (C2SP tlog-cosignature, ``cosignature/v1``): the same
Ed25519, its id hashed with 0x04, and its signature *timestamped*: the line carries
the key id, the time (8 bytes, big-endian POSIX seconds) and the Ed25519 signature
over ``cosignature/v1``, ``time T`` and the checkpoint's text (``cosignature_message``).
A cosignature says that, at that time, this is the largest tree of the log the witness
has seen consistent with all it saw before.

Opening a note follows the spec: signatures by keys the reader does not trust are
ignored; a signature by a trusted key that does not verify rejects the note; a note
with no verified signature of a trusted key is rejected. Others *cosign* a checkpoint
by adding their own signature line to the same text (the arbiter after a tour, a
player who wants to): a note may carry many.

A checkpoint's text is three lines: the origin (the club's log), the tree size in
decimal, the root hash in base64 (``merkle``). An arbiter's signature on a decision is
a note over ``EVENT_HEADER``, the stream, the event's number and its chain digest.

The Ed25519 arithmetic is the ``cryptography`` library's; nothing of it is written here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from ledger.vocabulary import language

# Every text a person reads (a refusal's), in the language in effect; never a note's
# text, a signature or a key, which are signed or hashed as they are.
_ = language._
N_ = language.N_

ED25519 = 0x01  # the signature type of signed-note's Ed25519 signatures
COSIGNATURE_V1 = 0x04  # C2SP tlog-cosignature's timestamped Ed25519 cosignatures (witnesses)
KEY_TYPES = (ED25519, COSIGNATURE_V1)
COSIGNATURE_HEADER = "cosignature/v1"
MAX_TIMESTAMP = (1 << 63) - 1
DASH = "\u2014 "  # what begins a signature line
PRIVATE_PREFIX = "PRIVATE+KEY+"
MAX_SIGNATURES = 100  # more make a note malformed (as Go's note.Open)
EVENT_HEADER = "pulka event signature"
ROTATION_HEADER = "pulka key rotation"


class NoteError(ValueError):
    """A key, a note or a checkpoint that is malformed, or a note that does not open."""


# -- keys -------------------------------------------------------------------------------


def check_key_name(name: str) -> None:
    """A key's name: not empty, no Unicode space, no '+', no control character."""
    if not name:
        raise NoteError(_("a key's name may not be empty"))
    bad = next((c for c in name if c.isspace() or c == "+" or ord(c) < 0x20 or c == "\x7f"), None)
    if bad is not None:
        raise NoteError(_("a key's name may hold no spaces, '+' or control characters: {name}").format(
            name=repr(name[:80])))


def key_id(name: str, key_type: int, public: bytes) -> int:
    """signed-note's key id: SHA-256(name || 0x0A || type || public key)[:4], big-endian."""
    return int.from_bytes(hashlib.sha256(name.encode() + b"\n" + bytes([key_type]) + public).digest()[:4], "big")


def _b64(text: str, what: str) -> bytes:
    """``text`` decoded; ``what`` names it (marked with ``N_``) in the refusal."""
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise NoteError(_("{what} is not base64").format(what=_(what))) from None


def _hex_id(text: str) -> int:
    if len(text) != 8 or any(c not in "0123456789abcdef" for c in text):
        raise NoteError(_("a key id is 8 lowercase hex digits, not {text}").format(text=repr(text[:20])))
    return int(text, 16)


@dataclass(frozen=True)
class Verifier:
    """A public key that checks signatures: its name, id and Ed25519 key, and its type:
    a signer of notes (0x01: the log, an arbiter) or a witness (0x04, cosignature/v1)."""

    name: str
    id: int
    public: bytes
    type: int = ED25519

    @classmethod
    def parse(cls, text: str) -> Verifier:
        """A verifier key ``NAME+KEYID+BASE64(TYPE || 32-byte public key)``, TYPE 0x01 or 0x04."""
        parts = text.strip().split("+", 2)
        if len(parts) != 3:
            raise NoteError(_("a verifier key is NAME+KEYID+KEY (as `pulka keygen` writes it in NAME.pub)"))
        name, hexid, key = parts
        check_key_name(name)
        ident = _hex_id(hexid)
        raw = _b64(key, N_("the key"))
        if len(raw) != 33 or raw[0] not in KEY_TYPES:
            raise NoteError(_("the key is not an Ed25519 key of a signed note (type 0x01, or 0x04 for a witness; "
                              "32 bytes)"))
        if key_id(name, raw[0], raw[1:]) != ident:
            raise NoteError(_("the key id {id} does not match the key's name and public key").format(id=hexid))
        return cls(name, ident, raw[1:], raw[0])

    def text(self) -> str:
        return f"{self.name}+{self.id:08x}+{base64.b64encode(bytes([self.type]) + self.public).decode()}"

    @property
    def witness(self) -> bool:
        """Whether this is a witness's key (its signatures are cosignature/v1)."""
        return self.type == COSIGNATURE_V1

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True

    def verify_line(self, text: str, raw: bytes) -> bool:
        """Whether ``raw`` (a signature line's bytes after the key id) is this key's
        signature over a note's ``text``: plain Ed25519, or a witness's timestamped
        cosignature/v1 (its time at most 2^63 - 1)."""
        if not self.witness:
            return self.verify(text.encode(), raw)
        if len(raw) != 8 + 64:
            return False
        timestamp = int.from_bytes(raw[:8], "big")
        return timestamp <= MAX_TIMESTAMP and self.verify(cosignature_message(text, timestamp), raw[8:])


@dataclass(frozen=True)
class Signer:
    """A private key that signs notes: its name, id and Ed25519 seed."""

    name: str
    id: int
    seed: bytes
    type: int = ED25519

    @classmethod
    def generate(cls, name: str, key_type: int = ED25519) -> Signer:
        check_key_name(name)
        seed = Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return cls.from_seed(name, seed, key_type)

    @classmethod
    def from_seed(cls, name: str, seed: bytes, key_type: int = ED25519) -> Signer:
        public = Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return cls(name, key_id(name, key_type, public), seed, key_type)

    @classmethod
    def parse(cls, text: str) -> Signer:
        """A signer key ``PRIVATE+KEY+NAME+KEYID+BASE64(0x01 || 32-byte seed)``."""
        text = text.strip()
        if not text.startswith(PRIVATE_PREFIX):
            raise NoteError(_("a private key begins PRIVATE+KEY+ (as `pulka keygen` writes it)"))
        parts = text[len(PRIVATE_PREFIX):].split("+", 2)
        if len(parts) != 3:
            raise NoteError(_("a private key is PRIVATE+KEY+NAME+KEYID+KEY"))
        name, hexid, key = parts
        check_key_name(name)
        ident = _hex_id(hexid)
        raw = _b64(key, N_("the private key"))
        if len(raw) != 33 or raw[0] not in KEY_TYPES:
            raise NoteError(_("the private key is not an Ed25519 key of a signed note (type 0x01, or 0x04 for a "
                              "witness; 32 bytes)"))
        signer = cls.from_seed(name, raw[1:], raw[0])
        if signer.id != ident:
            raise NoteError(_("the key id {id} does not match the key's name and private key").format(id=hexid))
        return signer

    def text(self) -> str:
        return f"{PRIVATE_PREFIX}{self.name}+{self.id:08x}+{base64.b64encode(bytes([self.type]) + self.seed).decode()}"

    @property
    def verifier(self) -> Verifier:
        public = Ed25519PrivateKey.from_private_bytes(self.seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return Verifier(self.name, self.id, public, self.type)

    @property
    def witness(self) -> bool:
        return self.type == COSIGNATURE_V1

    def sign(self, message: bytes) -> bytes:
        return Ed25519PrivateKey.from_private_bytes(self.seed).sign(message)


# -- notes ------------------------------------------------------------------------------


class Signature(NamedTuple):
    """One signature line: the key's name, its id, and the base64 of id and signature."""

    name: str
    id: int
    base64: str

    def line(self) -> str:
        return f"{DASH}{self.name} {self.base64}\n"


class Note(NamedTuple):
    """A note's text (final newline included) and its signatures."""

    text: str
    signatures: tuple[Signature, ...]

    def __str__(self) -> str:
        return self.text + "\n" + "".join(s.line() for s in self.signatures)


def _check_text(text: str) -> None:
    if not text.endswith("\n") or any(ord(c) < 0x20 and c != "\n" for c in text):
        raise NoteError(_("malformed note: its text must end in a newline and hold no control characters"))


def cosignature_message(text: str, timestamp: int) -> bytes:
    """What a witness signs (C2SP tlog-cosignature, Ed25519): ``cosignature/v1``, ``time
    T``, then the checkpoint's whole text, its extension lines included."""
    return f"{COSIGNATURE_HEADER}\ntime {timestamp}\n{text}".encode()


def signature_of(signer: Signer, text: str, timestamp: int | None = None) -> Signature:
    """``signer``'s signature line over a note's text; a witness's is a cosignature/v1
    at ``timestamp`` (POSIX seconds; now when None)."""
    _check_text(text)
    if signer.witness:
        when = int(time.time()) if timestamp is None else timestamp
        if not 0 < when <= MAX_TIMESTAMP:
            raise NoteError(_("a cosignature's time is a POSIX time after 1970, not {time}").format(time=when))
        signed = when.to_bytes(8, "big") + signer.sign(cosignature_message(text, when))
    else:
        signed = signer.sign(text.encode())
    return Signature(signer.name, signer.id, base64.b64encode(signer.id.to_bytes(4, "big") + signed).decode())


def cosignature_time(signature: Signature) -> int | None:
    """The time a witness's cosignature line carries (None when it carries none)."""
    raw = base64.b64decode(signature.base64)
    return int.from_bytes(raw[4:12], "big") if len(raw) == 4 + 8 + 64 else None


def sign_note(text: str, signers: Iterable[Signer], existing: Sequence[Signature] = ()) -> Note:
    """The note of ``text`` signed by each of ``signers``, after ``existing`` signatures
    (a signer's own earlier signature is replaced)."""
    mine = list(signers)
    keys = {(s.name, s.id) for s in mine}
    kept = [s for s in existing if (s.name, s.id) not in keys]
    return Note(text, tuple(kept) + tuple(signature_of(s, text) for s in mine))


def parse_signature_line(line: str) -> Signature:
    """One signature line, its newline removed."""
    if not line.startswith(DASH):
        raise NoteError(_("malformed note: a signature line begins with an em dash and a space"))
    name, sep, b64 = line[len(DASH):].partition(" ")
    if not sep or " " in b64:
        raise NoteError(_("malformed note: a signature line is '— NAME SIGNATURE'"))
    check_key_name(name)
    raw = _b64(b64, N_("a signature"))
    if len(raw) < 5:
        raise NoteError(_("malformed note: a signature is its key id and at least one byte"))
    return Signature(name, int.from_bytes(raw[:4], "big"), b64)


def parse_note(message: str) -> Note:
    """A signed note's text and signature lines, or NoteError("malformed note ...")."""
    if any(ord(c) < 0x20 and c != "\n" for c in message) or not message.endswith("\n"):
        raise NoteError(_("malformed note: it must end in a newline and hold no control characters"))
    split = message.rfind("\n\n")
    if split < 0:
        raise NoteError(_("malformed note: no blank line before its signatures"))
    text, lines = message[:split + 1], message[split + 2:].split("\n")[:-1]
    if not lines:
        raise NoteError(_("malformed note: it has no signature"))
    if len(lines) > MAX_SIGNATURES:
        raise NoteError(_("malformed note: more than {count} signatures").format(count=MAX_SIGNATURES))
    return Note(text, tuple(parse_signature_line(line) for line in lines))


class OpenedNote(NamedTuple):
    """A note that opened: its text, the signatures that verified with trusted keys,
    and those of keys not trusted (ignored)."""

    text: str
    verified: tuple[Signature, ...]
    unverified: tuple[Signature, ...]


def open_note(note: Note, trusted: Sequence[Verifier]) -> OpenedNote:
    """Check ``note``'s signatures against the ``trusted`` keys (signed-note's rules)."""
    by_key: dict[tuple[str, int], list[Verifier]] = {}
    for v in trusted:
        by_key.setdefault((v.name, v.id), []).append(v)
    verified: list[Signature] = []
    unverified: list[Signature] = []
    for sig in note.signatures:
        keys = by_key.get((sig.name, sig.id))
        if not keys:
            unverified.append(sig)
            continue
        if len({k.public for k in keys}) > 1:
            raise NoteError(_("ambiguous key {key}: two trusted keys have that name and id").format(
                key=f"{sig.name}+{sig.id:08x}"))
        if sig in verified:
            continue
        raw = base64.b64decode(sig.base64)
        if not keys[0].verify_line(note.text, raw[4:]):
            raise NoteError(_("invalid signature for key {key}").format(key=f"{sig.name}+{sig.id:08x}"))
        verified.append(sig)
    if not verified:
        signers = ", ".join(f"{s.name}+{s.id:08x}" for s in note.signatures)
        raise NoteError(_("no signature of a trusted key: the note is signed by {signers}").format(signers=signers))
    return OpenedNote(note.text, tuple(verified), tuple(unverified))


def verified_by(note: Note, key: Verifier) -> bool:
    """Whether ``note`` carries a good signature of ``key`` (no other key consulted)."""
    try:
        opened = open_note(note, [key])
    except NoteError:
        return False
    return bool(opened.verified)


# -- checkpoints and signed events ------------------------------------------------------------


class Checkpoint(NamedTuple):
    """A checkpoint's text: the log's origin, its size, its root hash."""

    origin: str
    size: int
    root: bytes

    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"

    @property
    def root_b64(self) -> str:
        return base64.b64encode(self.root).decode()


def check_origin(origin: str) -> None:
    """An origin: a key name's form (C2SP recommends a schema-less URL)."""
    try:
        check_key_name(origin)
    except NoteError:
        raise NoteError(_("an origin names the club's log without spaces or '+', e.g. club.example/pulka: "
                          "{origin}").format(origin=repr(origin[:80]))) from None


def parse_checkpoint(text: str) -> Checkpoint:
    """A checkpoint's note text: origin, size (decimal, no leading zeros), root (base64
    of 32 bytes), and any extension lines (which pulka does not write, and ignores)."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "" or any(line == "" for line in lines[:-1]):
        raise NoteError(_("a checkpoint is three lines or more: origin, tree size, root hash"))
    origin, size, root = lines[:3]
    if not origin:
        raise NoteError(_("a checkpoint's origin may not be empty"))
    if not size.isascii() or not size.isdigit() or (size.startswith("0") and size != "0"):
        raise NoteError(_("a checkpoint's tree size is a decimal number without leading zeros, not {size}").format(
            size=repr(size[:30])))
    raw = _b64(root, N_("the checkpoint's root hash"))
    if len(raw) != 32:
        raise NoteError(_("a checkpoint's root hash is 32 bytes"))
    return Checkpoint(origin, int(size), raw)


def event_text(stream: str, number: int, digest: str, label: str = "") -> str:
    """What an arbiter signs over an event: the header, the stream, the event's number
    and its chain digest (which binds the stream, the number and all of it), then what
    the decision is (its type, ``penalty``), so that the statement he signs says it.
    Signatures made before the label was signed have four lines (``label`` empty)."""
    return f"{EVENT_HEADER}\n{stream}\n{number}\n{digest}\n" + (f"{label}\n" if label else "")


def rotation_text(origin: str, size: int, key: Verifier) -> str:
    """What the log's old key and its new key both sign when the log changes keys: from
    the tree of ``size`` leaves on, checkpoints of ``origin`` are signed by ``key``, and
    the old key signs none larger."""
    return f"{ROTATION_HEADER}\n{origin}\n{size}\n{key.text()}\n"


def parse_rotation(text: str) -> tuple[str, int, Verifier]:
    """(origin, size, new key) of a rotation's text."""
    lines = text.split("\n")
    if len(lines) != 5 or lines[0] != ROTATION_HEADER or lines[-1] != "":
        raise NoteError(_("a key rotation is four lines: {header}, the origin, the tree size, the new key").format(
            header=ROTATION_HEADER))
    origin, size, key = lines[1:4]
    return origin, _size(size, N_("a key rotation's tree size")), Verifier.parse(key)


def _size(text: str, what: str) -> int:
    """A tree size: ASCII decimal digits without leading zeros (not a full-width digit)."""
    if not text.isascii() or not text.isdigit() or (text.startswith("0") and text != "0"):
        raise NoteError(_("{what} is a decimal number without leading zeros, not {size}").format(
            what=_(what), size=repr(text[:30])))
    return int(text)

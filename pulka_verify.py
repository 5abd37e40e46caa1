#!/usr/bin/env python3
"""pulka_verify: check on your own machine that a game's events are in a club's log, and
that the log has not forked since you last looked.

This file stands alone: it needs Python 3.11 and the ``cryptography`` library, nothing
of pulka and no database. Read it before you trust it; it is meant to be read.

    python3 pulka_verify.py BUNDLE.json --trust CLUB.trust [--key ARBITER.pub ...]
    python3 pulka_verify.py --consistency PROOF.json --trust CLUB.trust
    python3 pulka_verify.py --same-log A.txt B.txt --trust CLUB.trust [--consistency PROOF.json]

The club publishes a *trust file* once (``pulka trust``): the log's origin, the log's
key, its witnesses' keys and how many of them must cosign (the quorum), its arbiters'
keys. You pin it: nothing else decides whom you trust, and each key has one role. An
arbiter's key signs decisions and a witness's key cosigns; neither stands in for the
log. Without a trust file (``--key`` alone) the log's key is the key you gave that is
named as the checkpoint's origin, and no witness is required.

A bundle (``pulka prove GAME``) holds a game's events, a checkpoint of the club's whole
log with its signatures, the proof that the game's last event is a leaf of the log
under that checkpoint, the rotations of the log's key, the consistency proofs from the
other checkpoints the log stored, and the arbiters' signatures on decisions. This
program checks:

1. the checkpoint is a C2SP signed note with a good Ed25519 signature of the log's key
   in effect at its size (the trust file's key, or a key it handed over to in a
   rotation signed by both; a key retired at a size signs nothing larger), and good
   cosignatures (C2SP cosignature/v1, timestamped) of at least the quorum of the
   trust file's witnesses; a bad signature of any key you trust fails it; its text
   is a C2SP tlog-checkpoint: origin (the one pinned), size, root;
2. it does not fork from the last checkpoint of that origin you saw (kept in your
   state folder, ``--state``): the same size must have the same root, another size a
   consistency proof between the two (RFC 9162 2.1.4.2), from the bundle, a file
   (``--consistency``) or the club's service (``--log URL``); a larger one then
   becomes the last you saw;
3. the game's events chain: each digest is SHA-256 of the digest before it (64 zeros
   for the first), the event's number, the game's name as JSON and the event's JSON,
   one per line; the first event starts the game;
4. the last event's digest is a leaf of the log: RFC 9162's inclusion proof leads
   SHA-256(0x00 || digest) at its index to the checkpoint's root (RFC 9162 2.1.3.2);
5. each signature on a decision is a signed note over "pulka event signature", the
   game, the event's number, the digest you recomputed and the event's type; and with
   an arbiter's key given, every decision he recorded carries his good signature.

Because every digest binds all the events before it, the last one's place in the log
vouches for every event of the bundle. With pulka installed, the sheet and the
settlement are then recomputed from the events (``pulka sheet/settle --file``).

Exit status: 0 everything checks out, 1 something does not (each failure is named),
2 the command line or a file cannot be read.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
except ImportError:  # said plainly, not as a traceback
    sys.stderr.write("pulka_verify needs the cryptography library: pip install cryptography\n")
    sys.exit(2)

GENESIS = "0" * 64
EVENT_HEADER = "pulka event signature"
ROTATION_HEADER = "pulka key rotation"
NOTE_KEY, WITNESS_KEY = 1, 4  # signed-note Ed25519; C2SP cosignature/v1 Ed25519
HASH = 32
# The decisions an arbiter signs (the events' types).
DECISIONS = {"ruling", "penalty", "bridge_penalty", "yellow_card", "removed", "disqualified", "tour_closed", "cut_made"}

Say = Callable[[str], None]


class Failed(Exception):
    """A check that does not hold."""


# -- keys and signed notes (C2SP signed-note, tlog-cosignature) -----------------------------


class Key:
    """A public key: NAME+KEYID+BASE64(TYPE || 32-byte Ed25519 key), TYPE 0x01 (a
    note's signer: the log, an arbiter) or 0x04 (a witness's cosignature/v1)."""

    def __init__(self, text: str) -> None:
        parts = text.strip().split("+", 2)
        if len(parts) != 3:
            raise ValueError("a public key is NAME+KEYID+KEY")
        self.name, hexid, b64 = parts
        if not self.name or any(c.isspace() or c == "+" for c in self.name):
            raise ValueError("a key's name has no spaces or '+'")
        raw = base64.b64decode(b64, validate=True)
        if len(raw) != 33 or raw[0] not in (NOTE_KEY, WITNESS_KEY):
            raise ValueError("not an Ed25519 key of a signed note (type 0x01, or 0x04 for a witness)")
        self.type, self.public = raw[0], raw[1:]
        if len(hexid) != 8 or any(c not in "0123456789abcdef" for c in hexid):
            raise ValueError("a key id is 8 lowercase hex digits")
        self.id = int(hexid, 16)
        if self.id != key_id(self.name, self.type, self.public):
            raise ValueError("the key id does not match the key")
        self.text = text.strip()

    def verify(self, text: str, raw: bytes) -> int | None:
        """Whether ``raw`` (a signature line after its key id) signs ``text``: None when
        it does not; else 0, or a witness's cosignature's time."""
        when, message, signature = 0, text.encode(), raw
        if self.type == WITNESS_KEY:
            if len(raw) != 8 + 64:
                return None
            when = int.from_bytes(raw[:8], "big")
            message, signature = f"cosignature/v1\ntime {when}\n{text}".encode(), raw[8:]
            if when == 0 or when >= 1 << 63:
                return None
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return None
        return when


def key_id(name: str, key_type: int, public: bytes) -> int:
    return int.from_bytes(hashlib.sha256(name.encode() + b"\n" + bytes([key_type]) + public).digest()[:4], "big")


def read_key(text: str) -> Key:
    return Key(open(text, encoding="utf-8").read() if os.path.isfile(text) else text)


def open_note(message: str, keys: list[Key]) -> tuple[str, list[tuple[Key, int]], list[str]]:
    """(text, the trusted keys whose signatures verified with each one's time, names of
    the other signers) of a signed note; Failed when it is malformed or when a trusted
    key's signature does not verify."""
    if not message.endswith("\n") or any(ord(c) < 0x20 and c != "\n" for c in message):
        raise Failed("the note is malformed (control characters, or no final newline)")
    split = message.rfind("\n\n")
    if split < 0:
        raise Failed("the note is malformed: no blank line before its signatures")
    text, lines = message[:split + 1], message[split + 2:].split("\n")[:-1]
    if not lines:
        raise Failed("the note is malformed: it has no signature")
    good: list[tuple[Key, int]] = []
    other: list[str] = []
    for line in lines:
        if not line.startswith("\u2014 ") or line.count(" ") != 2:
            raise Failed(f"the note is malformed: {line[:60]!r} is not a signature line")
        _, name, b64 = line.split(" ")
        try:
            raw = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            raise Failed(f"the signature of {name} is not base64") from None
        if len(raw) < 5:
            raise Failed(f"the signature of {name} is too short")
        ident = int.from_bytes(raw[:4], "big")
        key = next((k for k in keys if k.name == name and k.id == ident), None)
        if key is None:
            other.append(f"{name}+{ident:08x}")
            continue
        when = key.verify(text, raw[4:])
        if when is None:
            raise Failed(f"the signature of {name} (a key you trust) does not verify: the note was changed")
        if all(k is not key for k, _ in good):
            good.append((key, when))
    return text, good, other


def decimal(text: str, what: str) -> int:
    """A size: ASCII digits without leading zeros (not a full-width digit)."""
    if not text.isascii() or not text.isdigit() or (text.startswith("0") and text != "0"):
        raise Failed(f"{what} {text[:20]!r} is not a decimal number")
    return int(text)


def parse_checkpoint(text: str) -> tuple[str, int, bytes]:
    """(origin, tree size, root hash) of a checkpoint's text (C2SP tlog-checkpoint)."""
    lines = text.split("\n")[:-1]
    if len(lines) < 3 or not all(lines):
        raise Failed("the checkpoint's text is not origin, tree size and root hash")
    origin, size, root = lines[:3]
    try:
        raw = base64.b64decode(root, validate=True)
    except (binascii.Error, ValueError):
        raise Failed("the checkpoint's root hash is not base64") from None
    if len(raw) != HASH:
        raise Failed("the checkpoint's root hash is not 32 bytes")
    return origin, decimal(size, "the checkpoint's size"), raw


# -- RFC 9162: the Merkle tree's hashes and proofs -----------------------------------------


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def included(leaf: bytes, index: int, size: int, proof: list[bytes], root: bytes) -> bool:
    """RFC 9162 2.1.3.2, verifying an inclusion proof (every hash 32 bytes)."""
    if not 0 <= index < size or len(leaf) != HASH or any(len(p) != HASH for p in proof):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            r = node_hash(p, r)
            while fn % 2 == 0 and fn != 0:
                fn, sn = fn // 2, sn // 2
        else:
            r = node_hash(r, p)
        fn, sn = fn // 2, sn // 2
    return sn == 0 and r == root


def consistent(first: int, second: int, first_root: bytes, second_root: bytes, proof: list[bytes]) -> bool:
    """RFC 9162 2.1.4.2, verifying a consistency proof (every hash 32 bytes)."""
    if first <= 0 or first > second:
        return False
    if first == second:
        return not proof and first_root == second_root
    if any(len(p) != HASH for p in proof):
        return False
    path = ([first_root] if first & (first - 1) == 0 else []) + proof
    if not path:
        return False
    fn, sn = first - 1, second - 1
    while fn % 2 == 1:
        fn, sn = fn // 2, sn // 2
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while fn % 2 == 0 and fn != 0:
                fn, sn = fn // 2, sn // 2
        else:
            sr = node_hash(sr, c)
        fn, sn = fn // 2, sn // 2
    return fr == first_root and sr == second_root and sn == 0


def b64list(items: Any) -> list[bytes]:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise Failed("a proof is a list of base64 hashes")
    try:
        return [base64.b64decode(item, validate=True) for item in items]
    except (binascii.Error, ValueError):
        raise Failed("a proof's hash is not base64") from None


# -- whom you trust: the trust file ---------------------------------------------------------


class Policy:
    """The club's trust file, pinned: the origin, the log's keys (each with the last
    size it signs, None while in effect), the witnesses and their quorum, the arbiters."""

    def __init__(self, origin: str | None, log: list[tuple[Key, int | None]], witnesses: list[Key], quorum: int,
                 arbiters: list[Key]) -> None:
        self.origin, self.log, self.witnesses, self.quorum, self.arbiters = origin, log, witnesses, quorum, arbiters

    @classmethod
    def from_file(cls, text: str, extra: list[Key]) -> Policy:
        origin: str | None = None
        quorum: int | None = None
        log: list[tuple[Key, int | None]] = []
        witnesses: list[Key] = []
        arbiters = list(extra)
        for number, raw in enumerate(text.splitlines(), start=1):
            words = raw.split("#", 1)[0].split()
            if not words:
                continue
            word, rest = words[0], words[1:]
            try:
                if word == "origin" and len(rest) == 1 and origin is None:
                    origin = rest[0]
                elif word == "log" and len(rest) == 1:
                    log.append((Key(rest[0]), None))
                elif word == "retired" and len(rest) == 2:
                    log.append((Key(rest[0]), decimal(rest[1], "a retired key's last size")))
                elif word == "witness" and len(rest) in (1, 2):
                    witnesses.append(Key(rest[0]))
                elif word == "arbiter" and len(rest) == 1:
                    arbiters.append(Key(rest[0]))
                elif word == "quorum" and len(rest) == 1:
                    quorum = decimal(rest[0], "the quorum")
                else:
                    raise ValueError(f"{word!r} is not a statement of a trust file, or has the wrong values")
            except (ValueError, binascii.Error, Failed) as exc:
                raise ValueError(f"the trust file, line {number}: {exc}") from None
        return cls._checked(origin, log, witnesses, quorum, arbiters)

    @classmethod
    def _checked(cls, origin: str | None, log: list[tuple[Key, int | None]], witnesses: list[Key],
                 quorum: int | None, arbiters: list[Key]) -> Policy:
        if origin is None or not log:
            raise ValueError("the trust file names no origin, or no log key")
        if any(k.type != NOTE_KEY for k, _ in log) or any(k.type != WITNESS_KEY for k in witnesses):
            raise ValueError("the trust file mixes the roles: the log's keys are type 0x01, witnesses' 0x04")
        publics = [k.public for k, _ in log] + [k.public for k in witnesses] + [k.public for k in arbiters]
        if len(set(publics)) != len(publics):
            raise ValueError("the trust file lists one key twice, or in two roles")
        if quorum is None and witnesses:
            raise ValueError("the trust file lists witnesses and no quorum")
        if (quorum or 0) > len(witnesses):
            raise ValueError("the trust file's quorum is more than its witnesses")
        return cls(origin, log, witnesses, quorum or 0, arbiters)

    @classmethod
    def from_keys(cls, keys: list[Key]) -> Policy:
        """Without a trust file: the log's key is a key given named as the checkpoint's
        origin; the others sign decisions (or cosign); no witness is required."""
        return cls(None, [(k, None) for k in keys if k.type == NOTE_KEY and not k.name.startswith("arbiter:")], [], 0,
                   [k for k in keys if k.name.startswith("arbiter:")])

    def all_keys(self) -> list[Key]:
        return [k for k, _ in self.log] + self.witnesses + self.arbiters


def rotated(policy: Policy, origin: str, rotations: Any, say: Say) -> list[tuple[Key, int, int | None]]:
    """The log's keys as (key, signs sizes above, signs sizes up to): the pinned keys,
    then each key a rotation brought (signed by a key in effect and by itself), which
    retires the key that signed it at the rotation's size."""
    keys: list[tuple[Key, int, int | None]] = [(k, 0, until) for k, until in policy.log
                                                if policy.origin is not None or k.name == origin]
    if not isinstance(rotations, list):
        raise Failed("the bundle's rotations are not a list")
    for note in rotations:
        if not isinstance(note, str):
            raise Failed("a rotation is a signed note")
        text, signers, _ = open_note(note, [k for k, _, _ in keys])
        lines = text.split("\n")
        if len(lines) != 5 or lines[0] != ROTATION_HEADER or lines[1] != origin:
            raise Failed("a rotation of the log's key is not of this log")
        size, new = decimal(lines[2], "a rotation's size"), Key(lines[3])
        old = [(k, since, until) for k, since, until in keys if any(k is s for s, _ in signers)
               and k.public != new.public and (until is None or until >= size)]
        if not old or new.type != NOTE_KEY or new.verify(text, _signature_by(note, new)) is None:
            raise Failed("a rotation of the log's key is not signed by the key in effect and by the new key")
        keys = [(k, since, size if any(k is o for o, _, _ in old) else until) for k, since, until in keys
                if k.public != new.public]
        keys.append((new, size, None))
        say(f"  the log's key {old[0][0].name} handed over to {new.text[:40]}… after #{size}")
    return keys


def signs(since: int, until: int | None, size: int) -> bool:
    """Whether a log key in effect above ``since`` and up to ``until`` signs ``size``."""
    return (since == 0 or size > since) and (until is None or size <= until)


def _signature_by(note: str, key: Key) -> bytes:
    for line in note.rstrip("\n").split("\n"):
        if line.startswith(f"\u2014 {key.name} "):
            raw = base64.b64decode(line.split(" ")[2], validate=True)
            if int.from_bytes(raw[:4], "big") == key.id:
                return raw[4:]
    return b""


def check_checkpoint(note: Any, policy: Policy, rotations: Any, say: Say) -> tuple[str, int, bytes]:
    """The checkpoint's text, signed by the log's key in effect at its size and
    cosigned by the quorum of witnesses, or Failed naming what is missing."""
    if not isinstance(note, str):
        raise Failed("the checkpoint is not a signed note")
    text, _, _ = open_note(note, [])  # its form; the signatures are checked below, with the keys
    origin, size, root = parse_checkpoint(text)
    if policy.origin is not None and origin != policy.origin:
        raise Failed(f"the checkpoint is of the log {origin!r}; your trust file pins {policy.origin!r}")
    if policy.origin is None and origin.startswith("arbiter:"):
        raise Failed(f"the checkpoint's origin {origin!r} is an arbiter's name: an arbiter never signs as the log")
    keys = rotated(policy, origin, rotations, say)
    text, good, other = open_note(note, [k for k, _, _ in keys] + policy.witnesses + policy.arbiters)
    say(f"checkpoint: {origin}, {size} events, root {base64.b64encode(root).decode()}")
    logs = [k for k, _ in good if any(k is lk and signs(since, until, size) for lk, since, until in keys)]
    if not logs:
        retired = [k.name for k, _ in good if any(k is lk for lk, _, _ in keys)]
        why = (f"signed by {', '.join(retired)}, a log key retired before #{size}" if retired
               else "no signature of the log's key" + ("" if keys else f" (no key you gave is named {origin})"))
        raise Failed(f"the checkpoint is not the log's: {why}; signed by "
                     + ", ".join([k.name for k, _ in good] + other))
    say(f"  signed by {logs[0].name} (the log's key)")
    _witnessed(good, policy, say)
    others = [k.name for k, _ in good if k in policy.arbiters] + other
    if others:
        say(f"  also signed by {', '.join(others)} (not the log, not a witness: not counted)")
    return origin, size, root


def _witnessed(good: list[tuple[Key, int]], policy: Policy, say: Say) -> None:
    cosigned = [(k, when) for k, when in good if k in policy.witnesses]
    for key, when in cosigned:
        say(f"  cosigned by the witness {key.name} at {when} (POSIX time)")
    if len(cosigned) < policy.quorum:
        raise Failed(f"{len(cosigned)} of the trust file's witnesses cosigned the checkpoint; it requires "
                     f"{policy.quorum}: no one else has seen this history")
    if policy.witnesses:
        say(f"  {len(cosigned)} of {len(policy.witnesses)} witnesses cosigned (the trust file requires {policy.quorum})")


# -- your memory of the log: the last checkpoint you saw, per origin ----------------------------


def state_folder(given: str | None) -> str:
    if given:
        return given
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "pulka_verify")


def remembered(folder: str, origin: str) -> tuple[int, bytes, str] | None:
    """(size, root, note) of the last checkpoint of ``origin`` you saw."""
    path = os.path.join(folder, hashlib.sha256(origin.encode()).hexdigest() + ".checkpoint")
    try:
        note = open(path, encoding="utf-8").read()
    except FileNotFoundError:
        return None
    _, size, root = parse_checkpoint(note.split("\n\n", 1)[0] + "\n")
    return size, root, note


def remember(folder: str, origin: str, note: str) -> None:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha256(origin.encode()).hexdigest() + ".checkpoint")
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, encoding="utf-8") as f:
        f.write(note)
    os.replace(f.name, path)


def fetched_proof(url: str, old: int, new: int) -> list[bytes]:
    """A consistency proof from the club's service (``pulka serve``)."""
    address = f"{url.rstrip('/')}/log/proof/consistency?{urllib.parse.urlencode({'old': old, 'new': new})}"
    try:
        with urllib.request.urlopen(address, timeout=20) as response:
            lines = response.read().decode("ascii").split()
    except (urllib.error.URLError, OSError, UnicodeDecodeError) as exc:
        raise Failed(f"cannot fetch a consistency proof from {url}: {exc}") from None
    return b64list(lines)


def against_memory(origin: str, size: int, root: bytes, proofs: dict[int, list[bytes]], seen: tuple[int, bytes, str],
                   log_url: str | None, say: Say) -> bool:
    """Whether this checkpoint is consistent with the last one seen (Failed when it is
    not, or cannot be told); True when it is larger, and so the last one seen now."""
    last, last_root, _ = seen
    if last == size:
        if root != last_root:
            raise Failed(f"fork: the log {origin} showed you another root for the same {size} events before: two "
                         "histories were signed")
        say(f"  the same checkpoint as the last one of {origin} you saw")
        return False
    proof = proofs.get(last)
    if proof is None and log_url:
        proof = fetched_proof(log_url, min(last, size), max(last, size))
    if proof is None:
        raise Failed(f"cannot tell whether the log forked since the last checkpoint of {origin} you saw (#{last}): "
                     "no consistency proof between it and this one (--log URL fetches it)")
    small, big = ((last, last_root), (size, root)) if last < size else ((size, root), (last, last_root))
    if not consistent(small[0], big[0], small[1], big[1], proof):
        raise Failed(f"fork: checkpoint #{size} of {origin} is not consistent with #{last}, the last one you saw: "
                     "the log was rewritten")
    say(f"  consistent with #{last}, the last checkpoint of {origin} you saw: no fork since")
    return size > last


def bundle_proofs(items: Any) -> dict[int, list[bytes]]:
    if not isinstance(items, list):
        raise Failed("the bundle's consistency proofs are not a list")
    out = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("size"), int):
            raise Failed("a consistency proof of the bundle has no size")
        out[item["size"]] = b64list(item.get("proof"))
    return out


class Memory:
    """Where the last checkpoint seen is kept (None: nothing kept), and the service."""

    def __init__(self, folder: str | None, log_url: str | None) -> None:
        self.folder, self.log_url = folder, log_url

    def check(self, note: str, checked: tuple[str, int, bytes], proofs: dict[int, list[bytes]], say: Say) -> None:
        origin, size, root = checked
        if self.folder is None:
            return
        seen = remembered(self.folder, origin)
        if seen is None:
            say(f"  the first checkpoint of {origin} you see: kept, the next ones must extend it")
            remember(self.folder, origin, note)
        elif against_memory(origin, size, root, proofs, seen, self.log_url, say):
            remember(self.folder, origin, note)


# -- the game's hash chain and the arbiters' signatures ----------------------------------------


def chain(game: str, events: Any) -> list[str]:
    """The digests of the bundle's events, recomputed from their JSON as stored."""
    if not isinstance(events, list) or not events:
        raise Failed("the bundle holds no event")
    name = json.dumps(game, ensure_ascii=False).encode()
    digests, previous = [], GENESIS
    for expected, item in enumerate(events, start=1):
        if not isinstance(item, dict) or item.get("number") != expected or not isinstance(item.get("event"), str):
            raise Failed(f"the events are not numbered 1, 2, ... with their JSON: event {expected} is not")
        body = item["event"].encode()
        previous = hashlib.sha256(b"%b\n%d\n%b\n%b" % (previous.encode(), expected, name, body)).hexdigest()
        if item.get("digest") not in (None, previous):
            raise Failed(f"event {expected}'s digest is not the one its content and the events before it give "
                         "(the event was changed)")
        digests.append(previous)
    first = json.loads(events[0]["event"])
    if not isinstance(first, dict) or not str(first.get("type", "")).endswith("_started") or first.get("game") != game:
        raise Failed(f"event 1 does not start the game {game!r}")
    return digests


def check_signatures(bundle: dict[str, Any], game: str, digests: list[str], policy: Policy, say: Say) -> None:
    """Every signature note on a decision, and, for each arbiter whose key you gave,
    a good signature of his on every decision he recorded."""
    signed: dict[int, set[str]] = {}
    items = bundle.get("signatures", [])
    if not isinstance(items, list):
        raise Failed("the bundle's signatures are not a list")
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("number"), int) or not 1 <= item["number"] <= len(digests):
            raise Failed("a signature of the bundle names no event of it")
        number = item["number"]
        kind = json.loads(bundle["events"][number - 1]["event"]).get("type")
        note = item.get("note")
        text, good, other = open_note(note, policy.arbiters) if isinstance(note, str) else ("", [], [])
        if text not in (f"{EVENT_HEADER}\n{game}\n{number}\n{digests[number - 1]}\n",
                        f"{EVENT_HEADER}\n{game}\n{number}\n{digests[number - 1]}\n{kind}\n"):
            raise Failed(f"the signature on event {number} is not over that event's digest and type")
        signed.setdefault(number, set()).update(k.name for k, _ in good)
        names = [k.name for k, _ in good]
        say(f"event {number} ({kind}): " + (f"signed by {', '.join(names)}" if names else "no key you gave signed it")
            + (f"; also by {', '.join(other)} (not checked)" if other else ""))
    _decisions_signed(bundle, signed, policy, say)


def _decisions_signed(bundle: dict[str, Any], signed: dict[int, set[str]], policy: Policy, say: Say) -> None:
    mine = {k.name for k in policy.arbiters}
    for number, item in enumerate(bundle["events"], start=1):
        event = json.loads(item["event"])
        by = event.get("by") if isinstance(event, dict) else None
        if event.get("type") not in DECISIONS or not isinstance(by, str) or not by.startswith("arbiter:"):
            continue
        if by in mine and by not in signed.get(number, set()):
            raise Failed(f"event {number} ({event['type']}) was recorded by {by}, whose key you gave, and carries no "
                         "good signature of his: a signature was removed or replaced")
        if by not in mine:
            say(f"event {number} ({event['type']}, by {by}): no key of {by} given: his signature not checked")


# -- the checks ---------------------------------------------------------------------------


def check_bundle(bundle: Any, policy: Policy, memory: Memory, say: Say) -> None:
    if not isinstance(bundle, dict) or bundle.get("format") != "pulka-bundle/v1":
        raise Failed("this is not a bundle of pulka prove (format pulka-bundle/v1)")
    origin, size, root = check_checkpoint(bundle.get("checkpoint"), policy, bundle.get("rotations", []), say)
    memory.check(bundle["checkpoint"], (origin, size, root), bundle_proofs(bundle.get("consistency", [])), say)
    game = bundle.get("game")
    if not isinstance(game, str):
        raise Failed("the bundle names no game")
    digests = chain(game, bundle.get("events"))
    say(f"game {game}: events 1-{len(digests)}, their hash chain recomputed: intact")
    head = bundle.get("head")
    if not isinstance(head, dict) or head.get("number") != len(digests) or head.get("tree_size") != size:
        raise Failed("the proof is not of the bundle's last event under this checkpoint")
    index = head.get("leaf_index")
    if not isinstance(index, int) or not included(leaf_hash(digests[-1].encode()), index, size,
                                                  b64list(head.get("proof")), root):
        raise Failed(f"event {len(digests)} of {game} is not in the log under this checkpoint: "
                     "the proof does not lead its digest to the root")
    say(f"event {len(digests)} (digest {digests[-1][:16]}) is leaf {index} of the log "
        f"under the checkpoint's root: events 1-{len(digests)} are those the club signed")
    check_signatures(bundle, game, digests, policy, say)
    stored = bundle.get("stored", len(digests))
    if isinstance(stored, int) and stored > len(digests):
        say(f"note (not signed): the store held {stored} events of the game when the bundle was made; the checkpoint "
            f"covers the first {len(digests)}")


def recompute(bundle: dict[str, Any], say: Say) -> None:
    """The sheet and the settlement from the bundle's events, by pulka, when installed."""
    if importlib.util.find_spec("ledger") is None or importlib.util.find_spec("cli") is None:
        say("(pulka is not installed here: the sheet and the settlement are not recomputed)")
        return
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "game.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for item in bundle["events"]:
                line = json.loads(item["event"])
                line["digest"] = item["digest"]
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        for command in ("sheet", "settle"):
            done = subprocess.run([sys.executable, "-c", "from cli.main import main; main()", command, "--file", path],
                                  capture_output=True, text=True, encoding="utf-8")
            if done.returncode != 0:
                raise Failed(f"pulka {command} refuses the events: {done.stderr.strip()}")
            say(done.stdout.rstrip("\n"))


def check_consistency(doc: Any, policy: Policy, memory: Memory, say: Say) -> None:
    if not isinstance(doc, dict) or doc.get("format") != "pulka-consistency/v1":
        raise Failed("this is not a consistency proof of pulka prove --consistency")
    rotations = doc.get("rotations", [])
    old = check_checkpoint(doc.get("old"), policy, rotations, say)
    new = check_checkpoint(doc.get("new"), policy, rotations, say)
    if old[0] != new[0]:
        raise Failed(f"the checkpoints are of two logs: {old[0]} and {new[0]}")
    proof = b64list(doc.get("proof"))
    if not consistent(old[1], new[1], old[2], new[2], proof):
        raise Failed(f"checkpoint #{new[1]} does not extend checkpoint #{old[1]}: the log was rewritten between them")
    say(f"checkpoint #{new[1]} extends checkpoint #{old[1]} of {old[0]}: the first {old[1]} events are unchanged")
    # The proof is also the one from the old checkpoint, when it is the last one seen:
    # checked again against the root remembered, which a fork would not match.
    memory.check(doc["new"], new, {old[1]: proof}, say)


def check_same_log(first: str, second: str, proof: Any, policy: Policy, say: Say) -> None:
    """Two checkpoints, the second seen later: one history, or a fork."""
    a, b = (check_checkpoint(n, policy, [], say) for n in (first, second))
    if a[0] != b[0]:
        raise Failed(f"the checkpoints are of two logs: {a[0]} and {b[0]}")
    if a[1] == b[1]:
        if a[2] != b[2]:
            raise Failed(f"fork: two checkpoints of {a[0]} for the same {a[1]} events with different roots, both "
                         "signed by the log's key: the log shows two histories")
        say(f"the same checkpoint #{a[1]} of {a[0]}: no fork")
        return
    if b[1] < a[1]:
        raise Failed(f"the later checkpoint (#{b[1]}) is smaller than the earlier (#{a[1]}): a log never shrinks")
    if not isinstance(proof, dict):
        raise Failed(f"checkpoints #{a[1]} and #{b[1]} differ in size: only a consistency proof between them tells "
                     "whether the log forked (pulka prove --consistency A B; --consistency PROOF.json)")
    if not consistent(a[1], b[1], a[2], b[2], b64list(proof.get("proof"))):
        raise Failed(f"fork: checkpoint #{b[1]} does not extend #{a[1]}: the log was rewritten between them")
    say(f"no fork: checkpoint #{b[1]} of {a[0]} extends #{a[1]}")


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def policy_of(args: argparse.Namespace) -> Policy:
    keys = [read_key(k) for k in args.key]
    if args.trust:
        with open(args.trust, encoding="utf-8") as f:
            return Policy.from_file(f.read(), keys)
    if not keys:
        raise ValueError("give the club's trust file (--trust CLUB.trust) or the log's public key (--key CLUB.pub)")
    return Policy.from_keys(keys)


def inputs(args: argparse.Namespace) -> tuple[Policy, list[Any]]:
    """What the command line names, read: the policy, and the files to check (a
    ValueError or an OSError when one cannot be read: exit status 2)."""
    policy = policy_of(args)
    if args.same_log:
        notes: list[Any] = [open(p, encoding="utf-8").read() for p in args.same_log]
        return policy, [*notes, read_json(args.consistency) if args.consistency else None]
    if args.consistency:
        return policy, [read_json(args.consistency)]
    if args.bundle:
        return policy, [read_json(args.bundle)]
    raise ValueError("give a bundle, --consistency PROOF or --same-log A B")


def run(args: argparse.Namespace, policy: Policy, files: list[Any], say: Say) -> None:
    memory = Memory(None if args.no_state else state_folder(args.state), args.log)
    if not args.trust:
        say("(no trust file: the log's key is the key you gave named as the checkpoint's origin, and no witness is "
            "required; pin the club's trust file with --trust)")
    if args.same_log:
        check_same_log(files[0], files[1], files[2], policy, say)
    elif args.consistency:
        check_consistency(files[0], policy, memory, say)
    else:
        check_bundle(files[0], policy, memory, say)
        if not args.no_recompute:
            recompute(files[0], say)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pulka_verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", nargs="?", help="a bundle from `pulka prove GAME`")
    parser.add_argument("--trust", metavar="FILE", help="the club's trust file (pulka trust), which you pin")
    parser.add_argument("--key", action="append", default=[], help="a public key you trust (file or text): an "
                        "arbiter's; without --trust, the log's too")
    parser.add_argument("--consistency", metavar="PROOF", help="a proof from `pulka prove --consistency`")
    parser.add_argument("--same-log", nargs=2, metavar=("A", "B"), help="two checkpoints, B seen after A")
    parser.add_argument("--state", metavar="DIR", help="where the last checkpoint you saw of each log is kept "
                        "(default: $XDG_STATE_HOME/pulka_verify)")
    parser.add_argument("--no-state", action="store_true", help="keep nothing, compare with nothing kept")
    parser.add_argument("--log", metavar="URL", help="the club's service (pulka serve), to fetch a consistency proof")
    parser.add_argument("--no-recompute", action="store_true", help="do not recompute the sheet with pulka")
    args = parser.parse_args(argv)
    try:
        policy, files = inputs(args)
    except (OSError, ValueError, binascii.Error) as exc:
        print(f"pulka_verify: {exc}", file=sys.stderr)
        return 2
    try:
        run(args, policy, files, print)
    except Failed as exc:
        print(f"FAILED: {exc}")
        return 1
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, binascii.Error) as exc:
        print(f"FAILED: the file is not a proof pulka wrote ({type(exc).__name__}: {exc})")
        return 1
    except OSError as exc:
        print(f"pulka_verify: {exc}", file=sys.stderr)
        return 2
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

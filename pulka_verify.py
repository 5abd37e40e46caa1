#!/usr/bin/env python3
"""pulka_verify: check on your own machine that a game's events are in a club's log.

This file stands alone: it needs Python 3.11 and the ``cryptography`` library, nothing
of pulka and no database. Read it before you trust it; it is meant to be read.

    python3 pulka_verify.py BUNDLE.json --key CLUB.pub [--key ARBITER.pub ...]
    python3 pulka_verify.py --consistency PROOF.json --key CLUB.pub
    python3 pulka_verify.py --same-log A.txt B.txt --key CLUB.pub

A bundle (``pulka prove GAME``) holds a game's events, a checkpoint of the club's whole
log signed by the club (and cosigned by others), the proof that the game's last event is
a leaf of the log under that checkpoint, and the arbiter's signatures on decisions. This
program checks, with the public keys you trust (``--key``: a NAME.pub file or its text):

1. the checkpoint is a signed note (C2SP signed-note) carrying a good Ed25519 signature
   of a key you trust, and no bad signature of one (signatures of other keys are
   listed and ignored); its text is a C2SP tlog-checkpoint: origin, size, root;
2. the game's events chain: each digest is SHA-256 of the digest before it (64 zeros
   for the first), the event's number, the game's name as JSON and the event's JSON,
   one per line; the first event starts the game;
3. the last event's digest is a leaf of the log: RFC 9162's inclusion proof leads
   SHA-256(0x00 || digest) at its index to the checkpoint's root (RFC 9162 2.1.3.2);
4. each signature on a decision is a signed note over "pulka event signature", the
   game, the event's number and the digest you recomputed, by a key you trust.

Because every digest binds all the events before it, the last one's place in the log
vouches for every event of the bundle. With pulka installed, the sheet and the
settlement are then recomputed from the events (``pulka sheet/settle --file``).

A consistency proof (``pulka prove --consistency OLD NEW``) shows that a later
checkpoint extends an earlier one (RFC 9162 2.1.4.2): the log only grew. ``--same-log``
compares two checkpoints of the same size: different roots are proof of a forked log.

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
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

GENESIS = "0" * 64
EVENT_HEADER = "pulka event signature"


class Failed(Exception):
    """A check that does not hold."""


# -- keys and signed notes (C2SP signed-note, Ed25519) ------------------------------------


class Key:
    """A public key you trust: NAME+KEYID+BASE64(0x01 || 32-byte Ed25519 key)."""

    def __init__(self, text: str) -> None:
        parts = text.strip().split("+", 2)
        if len(parts) != 3:
            raise ValueError("a public key is NAME+KEYID+KEY")
        self.name, hexid, b64 = parts
        raw = base64.b64decode(b64, validate=True)
        if len(raw) != 33 or raw[0] != 1:
            raise ValueError("not an Ed25519 key of a signed note")
        self.public = raw[1:]
        self.id = int(hexid, 16)
        if self.id != key_id(self.name, self.public) or len(hexid) != 8:
            raise ValueError("the key id does not match the key")

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


def key_id(name: str, public: bytes) -> int:
    return int.from_bytes(hashlib.sha256(name.encode() + b"\n\x01" + public).digest()[:4], "big")


def open_note(message: str, keys: list[Key]) -> tuple[str, list[str], list[str]]:
    """(text, names of trusted keys whose signatures verified, names of the other
    signers) of a signed note; Failed when it is malformed, when a trusted key's
    signature does not verify, or when none verifies."""
    if not message.endswith("\n") or any(ord(c) < 0x20 and c != "\n" for c in message):
        raise Failed("the note is malformed (control characters, or no final newline)")
    split = message.rfind("\n\n")
    if split < 0:
        raise Failed("the note is malformed: no blank line before its signatures")
    text, lines = message[:split + 1], message[split + 2:].split("\n")[:-1]
    good: list[str] = []
    other: list[str] = []
    for line in lines:
        if not line.startswith("\u2014 ") or line.count(" ") != 2:
            raise Failed(f"the note is malformed: {line[:60]!r} is not a signature line")
        _, name, b64 = line.split(" ")
        try:
            raw = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            raise Failed(f"the signature of {name} is not base64") from None
        ident = int.from_bytes(raw[:4], "big")
        key = next((k for k in keys if k.name == name and k.id == ident), None)
        if key is None:
            other.append(f"{name}+{ident:08x}")
        elif not key.verify(text.encode(), raw[4:]):
            raise Failed(f"the signature of {name} (a key you trust) does not verify: the note was changed")
        elif name not in good:
            good.append(name)
    if not good:
        raise Failed("no signature of a key you trust: signed by " + (", ".join(other) or "nobody"))
    return text, good, other


def parse_checkpoint(text: str) -> tuple[str, int, bytes]:
    """(origin, tree size, root hash) of a checkpoint's text (C2SP tlog-checkpoint)."""
    lines = text.split("\n")[:-1]
    if len(lines) < 3 or not all(lines):
        raise Failed("the checkpoint's text is not origin, tree size and root hash")
    origin, size, root = lines[:3]
    if not size.isdigit() or (size.startswith("0") and size != "0"):
        raise Failed(f"the checkpoint's size {size[:20]!r} is not a number")
    raw = base64.b64decode(root, validate=True)
    if len(raw) != 32:
        raise Failed("the checkpoint's root hash is not 32 bytes")
    return origin, int(size), raw


# -- RFC 9162: the Merkle tree's hashes and proofs -----------------------------------------


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def included(leaf: bytes, index: int, size: int, proof: list[bytes], root: bytes) -> bool:
    """RFC 9162 2.1.3.2, verifying an inclusion proof."""
    if index >= size or index < 0:
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
    """RFC 9162 2.1.4.2, verifying a consistency proof."""
    if first <= 0 or first > second:
        return False
    if first == second:
        return not proof and first_root == second_root
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


# -- the game's hash chain ----------------------------------------------------------------


def chain(game: str, events: list[dict[str, Any]]) -> list[str]:
    """The digests of the bundle's events, recomputed from their JSON as stored."""
    name = json.dumps(game, ensure_ascii=False).encode()
    digests, previous = [], GENESIS
    for expected, item in enumerate(events, start=1):
        if item.get("number") != expected:
            raise Failed(f"the events are not numbered 1, 2, ...: {item.get('number')!r} where {expected} belongs")
        body = item["event"].encode()
        previous = hashlib.sha256(b"%b\n%d\n%b\n%b" % (previous.encode(), expected, name, body)).hexdigest()
        if item.get("digest") not in (None, previous):
            raise Failed(f"event {expected}'s digest is not the one its content and the events before it give "
                         "(the event was changed)")
        digests.append(previous)
    first = json.loads(events[0]["event"]) if events else {}
    if not str(first.get("type", "")).endswith("_started") or first.get("game") != game:
        raise Failed(f"event 1 does not start the game {game!r}")
    return digests


def b64list(items: list[str]) -> list[bytes]:
    return [base64.b64decode(item, validate=True) for item in items]


# -- the checks ---------------------------------------------------------------------------


def check_bundle(bundle: dict[str, Any], keys: list[Key], say: Any) -> None:
    text, good, other = open_note(bundle["checkpoint"], keys)
    origin, size, root = parse_checkpoint(text)
    say(f"checkpoint: {origin}, {size} events, root {base64.b64encode(root).decode()}")
    say(f"  signed by {', '.join(good)} (keys you trust)" + (f"; also by {', '.join(other)} (not checked)" if other else ""))
    game = bundle["game"]
    events = bundle["events"]
    if not events:
        raise Failed("the bundle holds no event")
    digests = chain(game, events)
    say(f"game {game}: events 1-{len(events)}, their hash chain recomputed: intact")
    head = bundle["head"]
    if head["number"] != len(events) or head["tree_size"] != size:
        raise Failed("the proof is not of the bundle's last event under this checkpoint")
    proof = b64list(head["proof"])
    if not included(leaf_hash(digests[-1].encode()), head["leaf_index"], size, proof, root):
        raise Failed(f"event {len(events)} of {game} is not in the log under this checkpoint: "
                     "the proof does not lead its digest to the root")
    say(f"event {len(events)} (digest {digests[-1][:16]}) is leaf {head['leaf_index']} of the log "
        f"under the checkpoint's root: events 1-{len(events)} are those the club signed")
    for signed in bundle.get("signatures", []):
        number = signed["number"]
        what = f"event {number} ({signed.get('what', 'decision')})"
        try:
            note_text, signers, others = open_note(signed["note"], keys)
        except Failed as exc:
            if "no signature of a key you trust" not in str(exc):
                raise Failed(f"{what}: {exc}") from None
            say(f"{what}: {str(exc).split(': ', 1)[1]}, no key you gave: not checked")
            continue
        if note_text != f"{EVENT_HEADER}\n{game}\n{number}\n{digests[number - 1]}\n":
            raise Failed(f"the signature on event {number} is not over that event's digest")
        say(f"{what}: signed by {', '.join(signers)}" + (f"; also by {', '.join(others)} (not checked)" if others else ""))
    stored = bundle.get("stored", len(events))
    if stored > len(events):
        say(f"note: the store held {stored} events of the game when the bundle was made; the checkpoint covers "
            f"the first {len(events)}")


def recompute(bundle: dict[str, Any], say: Any) -> None:
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


def check_consistency(doc: dict[str, Any], keys: list[Key], say: Any) -> None:
    old_text, old_by, _ = open_note(doc["old"], keys)
    new_text, new_by, _ = open_note(doc["new"], keys)
    old, new = parse_checkpoint(old_text), parse_checkpoint(new_text)
    if old[0] != new[0]:
        raise Failed(f"the checkpoints are of two logs: {old[0]} and {new[0]}")
    if not consistent(old[1], new[1], old[2], new[2], b64list(doc["proof"])):
        raise Failed(f"checkpoint #{new[1]} does not extend checkpoint #{old[1]}: the log was rewritten between them")
    say(f"checkpoint #{new[1]} (signed by {', '.join(new_by)}) extends checkpoint #{old[1]} (signed by "
        f"{', '.join(old_by)}) of {old[0]}: the first {old[1]} events are unchanged")


def check_same_log(first: str, second: str, keys: list[Key], say: Any) -> None:
    a, b = (parse_checkpoint(open_note(n, keys)[0]) for n in (first, second))
    if a[0] == b[0] and a[1] == b[1] and a[2] != b[2]:
        raise Failed(f"fork: two checkpoints of {a[0]} for the same {a[1]} events with different roots, both "
                     "signed by a key you trust: the log shows two histories")
    say(f"no fork between checkpoint #{a[1]} and #{b[1]} of {a[0]}"
        + (" (different sizes: ask for a consistency proof)" if a[1] != b[1] else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pulka_verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", nargs="?", help="a bundle from `pulka prove GAME`")
    parser.add_argument("--key", action="append", default=[], help="a public key you trust (file or text)")
    parser.add_argument("--consistency", metavar="PROOF", help="a proof from `pulka prove --consistency`")
    parser.add_argument("--same-log", nargs=2, metavar=("A", "B"), help="two checkpoints to compare")
    parser.add_argument("--no-recompute", action="store_true", help="do not recompute the sheet with pulka")
    args = parser.parse_args(argv)
    say = print
    try:
        keys = [Key(open(k, encoding="utf-8").read() if os.path.isfile(k) else k) for k in args.key]
    except (OSError, ValueError, binascii.Error) as exc:
        print(f"pulka_verify: a key cannot be read: {exc}", file=sys.stderr)
        return 2
    if not keys:
        print("pulka_verify: give the public keys you trust (--key CLUB.pub)", file=sys.stderr)
        return 2
    try:
        if args.same_log:
            first, second = (open(p, encoding="utf-8").read() for p in args.same_log)
            check_same_log(first, second, keys, say)
        elif args.consistency:
            check_consistency(json.load(open(args.consistency, encoding="utf-8")), keys, say)
        elif args.bundle:
            bundle = json.load(open(args.bundle, encoding="utf-8"))
            check_bundle(bundle, keys, say)
            if not args.no_recompute:
                recompute(bundle, say)
        else:
            parser.print_usage(sys.stderr)
            return 2
    except Failed as exc:
        print(f"FAILED: {exc}")
        return 1
    except (OSError, ValueError, KeyError, TypeError, IndexError, binascii.Error) as exc:
        print(f"FAILED: the file is not a proof pulka wrote ({type(exc).__name__}: {exc})")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

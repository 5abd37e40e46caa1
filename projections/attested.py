"""What the ledger's own streams say (``ledger.vocabulary.attestation``): the stored
checkpoints with their cosignatures, the forks among them, the checkpoint that covers a
point of a game, and the signatures on each event. Pure folds: nothing here checks a
signature against the store (``ledger.proofs.checkpoints`` does).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.vocabulary import language
from ledger.vocabulary.attestation import (
    CheckpointMade,
    CheckpointsStarted,
    Cosigned,
    EventSigned,
    KeyRotated,
    NoteSignature,
)
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.notes import (
    DASH,
    Checkpoint,
    Note,
    NoteError,
    Signature,
    Verifier,
    parse_signature_line,
    rotation_text,
)

_ = language._  # every text a person reads, in the language in effect


@dataclass(frozen=True)
class StoredCheckpoint:
    """A checkpoint as ``@checkpoints`` holds it: the event that made it (its number and
    time), its text's parts, and every signature on it, cosignatures included."""

    number: int
    at: str
    origin: str
    size: int
    root: str  # base64, as the checkpoint's text writes it
    signatures: tuple[NoteSignature, ...]
    reason: str

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.origin, self.size, root_bytes(self.root))

    def note(self) -> Note:
        """The signed note to publish: the checkpoint's text and every signature line."""
        return Note(self.checkpoint.text(), tuple(signature_line(s) for s in self.signatures))

    def signers(self) -> list[str]:
        return [signer_name(s) for s in self.signatures]

    def caption(self) -> str:
        """One line for a picture or a report: which checkpoint, and who signed it."""
        return _("checkpoint {origin} #{size}, root {root}…, signed by {signers} ({at})").format(
            origin=self.origin, size=self.size, root=self.root[:16], signers=", ".join(self.signers()) or _("nobody"),
            at=self.at[:16].replace("T", " "))


def root_bytes(text: str) -> bytes:
    """A root hash's base64 as bytes (b"" when it is not base64: a stored row edited)."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return b""


def signer_name(signature: NoteSignature) -> str:
    """The name of the key that made a stored signature."""
    return signature.key.split("+", 1)[0]


def signature_line(signature: NoteSignature) -> Signature:
    """A stored signature as the line of a signed note (NoteError when it is not one)."""
    return parse_signature_line(f"{DASH}{signer_name(signature)} {signature.signature}")


def checkpoints(events: Sequence[AnyEvent]) -> list[StoredCheckpoint]:
    """The checkpoints of ``@checkpoints``' events in order, each with the signatures
    added to it later (a cosignature joins the last checkpoint of its size and root)."""
    origin = ""
    found: list[StoredCheckpoint] = []
    for number, event in enumerate(events, start=1):
        if isinstance(event, CheckpointsStarted):
            origin = event.origin
        elif isinstance(event, CheckpointMade):
            found.append(StoredCheckpoint(number, event.at or "", origin, event.size, event.root,
                                          event.signatures, event.reason))
        elif isinstance(event, Cosigned):
            for i in range(len(found) - 1, -1, -1):
                cp = found[i]
                if (cp.size, cp.root) == (event.size, event.root):
                    found[i] = StoredCheckpoint(cp.number, cp.at, cp.origin, cp.size, cp.root,
                                                (*cp.signatures, event.signature), cp.reason)
                    break
    return found


@dataclass(frozen=True)
class LogKey:
    """A key of the log in its time: it signs checkpoints larger than ``since`` leaves
    and, once a rotation retired it, none larger than ``until``."""

    key: str  # NAME+KEYID+KEY
    since: int
    until: int | None

    def signs(self, size: int) -> bool:
        """Whether this key may sign the log's checkpoint of ``size`` leaves."""
        return (self.since == 0 or size > self.since) and (self.until is None or size <= self.until)


def log_keys(events: Sequence[AnyEvent]) -> list[LogKey]:
    """The log's keys in order, from ``@checkpoints``' events: the key its start names
    (in a store begun before keys had roles, the first key that signed a checkpoint),
    then each key a rotation brought, the one before it retired at the rotation's size."""
    keys: list[LogKey] = []
    for event in events:
        if isinstance(event, CheckpointsStarted) and event.key:
            keys = [LogKey(event.key, 0, None)]
        elif isinstance(event, CheckpointMade) and not keys and event.signatures:
            keys = [LogKey(event.signatures[0].key, 0, None)]
        elif isinstance(event, KeyRotated) and keys:
            last = keys[-1]
            keys[-1] = LogKey(last.key, last.since, event.size)
            keys.append(LogKey(event.key, event.size, None))
    return keys


def rotation_notes(events: Sequence[AnyEvent], origin: str) -> list[Note]:
    """Each rotation of the log's key as the signed note a verifier checks: its text,
    signed by the old key and the new."""
    notes = []
    for event in events:
        if isinstance(event, KeyRotated):
            key = key_of(NoteSignature(event.key, ""))
            if key is None:
                continue
            try:
                lines = tuple(signature_line(s) for s in event.signatures)
            except NoteError:
                continue
            notes.append(Note(rotation_text(origin, event.size, key), lines))
    return notes


def orphan_cosignatures(events: Sequence[AnyEvent]) -> list[tuple[int, Cosigned]]:
    """Cosignatures of a size and root that no checkpoint before them has."""
    made: set[tuple[int, str]] = set()
    orphans = []
    for number, event in enumerate(events, start=1):
        if isinstance(event, CheckpointMade):
            made.add((event.size, event.root))
        elif isinstance(event, Cosigned) and (event.size, event.root) not in made:
            orphans.append((number, event))
    return orphans


def forks(found: Sequence[StoredCheckpoint]) -> list[tuple[StoredCheckpoint, StoredCheckpoint]]:
    """Pairs of checkpoints of one size with different roots: two histories."""
    first: dict[int, StoredCheckpoint] = {}
    pairs = []
    for cp in found:
        seen = first.setdefault(cp.size, cp)
        if seen.root != cp.root:
            pairs.append((seen, cp))
    return pairs


def covering(found: Sequence[StoredCheckpoint], leaf: int) -> StoredCheckpoint | None:
    """The latest checkpoint whose tree holds leaf index ``leaf``."""
    return next((cp for cp in reversed(found) if cp.size > leaf), None)


def signed_events(events: Sequence[AnyEvent], stream: str | None = None) -> dict[tuple[str, int], list[EventSigned]]:
    """The signatures of ``@signatures`` by (stream, event number): all, or one stream's."""
    out: dict[tuple[str, int], list[EventSigned]] = {}
    for event in events:
        if isinstance(event, EventSigned) and (stream is None or event.stream == stream):
            out.setdefault((event.stream, event.number), []).append(event)
    return out


def key_of(signature: NoteSignature) -> Verifier | None:
    """The verifier key a stored signature names (None when it is not one)."""
    try:
        return Verifier.parse(signature.key)
    except NoteError:
        return None


def coverage_caption(cp: StoredCheckpoint | None, covered: int, shown: int) -> str:
    """What a picture says of the checkpoint that covers its events 1..``shown``."""
    if cp is None:
        return ""  # a store that keeps no checkpoint: nothing to say
    if covered == 0:
        return _("not yet under a signed checkpoint of the club log (pulka checkpoint)")
    if covered < shown:
        return _("events 1-{covered} under {checkpoint}; the rest not yet under a checkpoint").format(
            covered=covered, checkpoint=cp.caption())
    return _("under {checkpoint}").format(checkpoint=cp.caption())


def attested_history_doc(cp: StoredCheckpoint | None, covered: int, shown: int,
                         signatures: Sequence[tuple[int, str, str, str, bool]]) -> dict[str, object]:
    """The report's section on verifiable history: the checkpoint that covers the game
    (its caption and the signed note to publish) and the signatures on its events, as
    (number, what, signer, key, valid)."""
    return {
        "caption": coverage_caption(cp, covered, shown),
        "note": str(cp.note()) if cp is not None and covered else None,
        "signatures": [{"number": n, "what": w, "signer": s, "key": k, "valid": v} for n, w, s, k, v in signatures],
    }

"""The ledger's own streams that vouch for the club log: its signed checkpoints, and the
signatures of arbiters on decisions.

Events are immutable and a signature over an event's digest cannot be inside the event
it signs, so signatures are events of their own, in two streams of the ledger (names
beginning with ``@``, which no game or tournament may take):

- ``@checkpoints``: ``checkpoints_started`` (the origin that names the club's log, and
  the log's key), then a ``checkpoint`` for each checkpoint made (its tree size and
  root, and the signatures made with it), a ``cosigned`` for each signature added
  later to the same checkpoint (a witness's cosignature/v1, the arbiter after a tour,
  a player who wants to), and a ``key_rotated`` when the log's key changes (signed by
  the old key and the new). This stream is the log's memory of what it signed: a new
  checkpoint must be consistent with every one stored here, whatever the tree's cache
  holds.
- ``@signatures``: ``signatures_started``, then an ``event_signed`` for each signature
  on an event of another stream (a ruling, a penalty, a card, a removal, a tour's
  results): the stream, the event's number, the digest signed, and the signature.

Each signature is kept as its note signature line (``notes``) with the signer's public
key beside it, so that ``verify`` checks it with no key given; a reader checks it
against the keys he trusts. These streams are chained and are leaves of the tree like
every other: a checkpoint stored at position N covers a tree of size N or less, never
itself.
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

import msgspec

from ledger.vocabulary.stream import ForeignEvent, StreamStart

CHECKPOINTS_STREAM = "@checkpoints"
SIGNATURES_STREAM = "@signatures"


class NoteSignature(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A signature as a signed note's line carries it (``signature``: base64 of the key
    id and the Ed25519 signature), with the signer's verifier key (``key``:
    NAME+KEYID+KEY)."""

    key: str
    signature: str


class CheckpointsStarted(StreamStart, ForeignEvent, frozen=True, tag="checkpoints_started"):
    """The first event of ``@checkpoints``: the origin, the first line of every
    checkpoint (C2SP tlog-checkpoint), naming the club's log; ``key``: the log's key
    (NAME+KEYID+KEY), the one whose signature makes a checkpoint the log's (absent
    from stores begun before keys had roles: there, the first key that signed)."""

    origin: str
    key: str = ""


class CheckpointMade(ForeignEvent, frozen=True, tag="checkpoint"):
    """A checkpoint of the club log: the first ``size`` events in store order have the
    root hash ``root`` (base64), signed by ``signatures``; ``reason`` says what made it
    (a tour closed, a command)."""

    size: int
    root: str
    signatures: tuple[NoteSignature, ...]
    reason: str = ""


class Cosigned(ForeignEvent, frozen=True, tag="cosigned"):
    """A signature added to the stored checkpoint of ``size`` and ``root``."""

    size: int
    root: str
    signature: NoteSignature


class KeyRotated(ForeignEvent, frozen=True, tag="key_rotated"):
    """The log's key changes to ``key``: checkpoints larger than ``size`` leaves are
    signed by it, none by the key before it, which signs, with the new key, the
    rotation's text (``notes.rotation_text``): ``signatures``, the old key's first."""

    size: int
    key: str
    signatures: tuple[NoteSignature, ...]


class SignaturesStarted(StreamStart, ForeignEvent, frozen=True, tag="signatures_started"):
    """The first event of ``@signatures``."""


class EventSigned(ForeignEvent, frozen=True, tag="event_signed"):
    """A signature over event ``number`` of ``stream``, whose chain digest was
    ``event_digest`` (the note signed is ``notes.event_text``). Not ``digest``: an
    export line's ``digest`` is the chain digest of the line's own event."""

    stream: str
    number: int
    event_digest: str
    signature: NoteSignature
    label: str = ""  # the event's type, signed with the digest (absent from signatures made before)


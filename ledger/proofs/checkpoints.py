"""Signed checkpoints of the club log and the signatures of arbiters on decisions: made,
cosigned and stored in the ledger's own streams (``ledger.vocabulary.attestation``).

- ``Attestations.make`` signs a checkpoint of every stored event with the log's key
  (C2SP tlog-checkpoint in a signed note, ``notes``) and stores it in ``@checkpoints``,
  once the tree read from the rows themselves is seen to hold every checkpoint stored
  before (``held``: else nothing is signed, and the refusal names the checkpoint and
  the first event that differs).
- The keys have roles: the log's key (named at the first checkpoint, changed by
  ``rotate``, signed by the old key and the new) alone makes a checkpoint the log's;
  an arbiter's key signs decisions and may cosign; a witness cosigns from its own
  state (``pulka witness``, ``witnessing``), never here.
- ``sign_event`` stores an arbiter's signature over the digest and the type of a
  ruling, a penalty, a card, a removal or a tour's results (``SIGNABLE``) in
  ``@signatures``.

The bundles a player takes home are ``bundles``; what ``verify`` checks, ``audit``.
Every refusal names the rule ``proofs`` (docs/event-log.md, "Proofs").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ledger.judge.admission import admit
from ledger.judge.checks import is_arbiter
from ledger.proofs.held import checked_tree
from ledger.proofs.tree import ClubTree
from ledger.store.event_store import Store
from ledger.store.stored import StoredEvent
from ledger.vocabulary import language
from ledger.vocabulary.attestation import (
    CHECKPOINTS_STREAM,
    SIGNATURES_STREAM,
    CheckpointMade,
    CheckpointsStarted,
    Cosigned,
    EventSigned,
    KeyRotated,
    NoteSignature,
    SignaturesStarted,
)
from ledger.vocabulary.bridge import BridgePenalty
from ledger.vocabulary.chain import GENESIS
from ledger.vocabulary.events import AnyEvent, Penalty, Ruling, event_type
from ledger.vocabulary.notes import (
    Checkpoint,
    Note,
    NoteError,
    Signature,
    Signer,
    check_origin,
    event_text,
    rotation_text,
    sign_note,
    signature_of,
    verified_by,
)
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from ledger.vocabulary.tournament_events import CutMade, Disqualified, Removed, TourClosed, YellowCard
from projections.attested import (
    LogKey,
    StoredCheckpoint,
    checkpoints,
    covering,
    attested_history_doc,
    key_of,
    log_keys,
    signature_line,
)
from projections.attested import signed_events as signed_in

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

RULE = "proofs"

# The decisions an arbiter signs, and what they are called (in English in a bundle; a
# command that shows one translates it, ``_(what(event))``).
SIGNABLE: dict[type, str] = {
    Ruling: N_("ruling"), Penalty: N_("penalty"), BridgePenalty: N_("ruling above the line"),
    YellowCard: N_("yellow card"), Removed: N_("removal"), Disqualified: N_("disqualification"),
    TourClosed: N_("tour's results"), CutMade: N_("cut"),
}


def what(event: AnyEvent) -> str:
    """A signed event as ``log`` names it."""
    return SIGNABLE.get(type(event), event_type(event))


@dataclass(frozen=True)
class Signed:
    """A signature on an event, as ``log`` and the report show it: the event's number,
    who signed (the key's name) and with which key, and whether it checks out."""

    number: int
    signer: str
    key: str
    valid: bool


class Attestations:
    """Checkpoints and signatures of one store."""

    def __init__(self, store: Store, clock: Callable[[], str] = now_iso) -> None:
        self.store = store
        self.clock = clock

    # -- reading ------------------------------------------------------------------------

    def checkpoints(self) -> list[StoredCheckpoint]:
        return checkpoints(self.events())

    def events(self) -> list[AnyEvent]:
        """The events of ``@checkpoints``."""
        return [s.event for s in self.store.load(CHECKPOINTS_STREAM)]

    def keys(self) -> list[LogKey]:
        """The log's keys in their time (``projections.attested.log_keys``)."""
        return log_keys(self.events())

    def origin(self) -> str | None:
        stored = self.store.load(CHECKPOINTS_STREAM)
        first = stored[0].event if stored else None
        return first.origin if isinstance(first, CheckpointsStarted) else None

    def stored(self, size: int | None = None) -> StoredCheckpoint:
        """The latest stored checkpoint, or the latest of ``size`` leaves."""
        found = [cp for cp in self.checkpoints() if size is None or cp.size == size]
        if not found:
            if size is None:
                raise Refused(RULE, _("the store has no checkpoint yet"), "pulka checkpoint --key CLUB.key")
            sizes = ", ".join(str(cp.size) for cp in self.checkpoints()) or _("none")
            raise Refused(RULE, _("no stored checkpoint of size {size}").format(size=size),
                          _("the sizes stored: {sizes}").format(sizes=sizes))
        return found[-1]

    def signatures(self, stream: str) -> dict[int, list[Signed]]:
        """The signatures on the events of ``stream``, by event number, each checked
        against the event's stored digest with the key stored beside it."""
        signed = signed_in([s.event for s in self.store.load(SIGNATURES_STREAM)], stream)
        if not signed:
            return {}
        digests = {s.number: s.digest for s in self.store.load(stream)}
        out: dict[int, list[Signed]] = {}
        for (_, number), events in sorted(signed.items()):
            for e in events:
                out.setdefault(number, []).append(
                    Signed(number, e.signature.key.split("+", 1)[0], e.signature.key,
                           digests.get(number) == e.event_digest and signature_holds(e)))
        return out

    def coverage(self, game: str, number: int) -> tuple[StoredCheckpoint | None, int]:
        """The checkpoint that covers events 1..``number`` of ``game`` (the latest whose
        tree holds event ``number``; else the latest, covering fewer), and how many of
        them it covers."""
        found = self.checkpoints()
        if not found or not self.store.count(game):
            return None, 0
        with ClubTree.open(self.store) as tree:
            index = tree.index_of(game, number)
            whole = None if index is None else covering(found, index)
            if whole is not None:
                return whole, number
            part = tree.covered(game, found[-1].size)
        return found[-1], 0 if part is None else min(part[0], number)

    def history(self, game: str, number: int) -> dict[str, object]:
        """The report's section: the covering checkpoint and the signatures on events
        1..``number`` of ``game``."""
        cp, covered = self.coverage(game, number)
        events = {s.number: s.event for s in self.store.load(game)}
        signatures = [(n, what(events[n]), s.signer, s.key, s.valid)
                      for n, signed in sorted(self.signatures(game).items()) if n <= number for s in signed]
        return attested_history_doc(cp, covered, number, signatures)

    def covering(self, game: str, number: int) -> StoredCheckpoint | None:
        """The latest stored checkpoint whose tree holds event ``number`` of ``game``."""
        found = self.checkpoints()
        if not found:
            return None
        with ClubTree.open(self.store) as tree:
            index = tree.index_of(game, number)
        return None if index is None else covering(found, index)

    # -- recording ----------------------------------------------------------------------

    def make(self, signers: Sequence[Signer], origin: str | None = None, reason: str = "",
             by: str | None = None) -> StoredCheckpoint:
        """Sign with the log's key (and any others given) and store a checkpoint of every
        event stored now, once the rows are seen to hold every checkpoint before it."""
        if not signers:
            raise Refused(RULE, _("a checkpoint needs a signature"), _("--key KEYFILE (from `pulka keygen`)"))
        stored = self.store.load(CHECKPOINTS_STREAM)
        known = self.origin()
        if known is not None and origin is not None and origin != known:
            raise Refused(RULE, _("this store's checkpoints name the log {known}, not {origin}").format(
                known=repr(known), origin=repr(origin)), _("the same origin for every checkpoint of a log"))
        chosen = known or origin or signers[0].name
        try:
            check_origin(chosen)
        except NoteError as exc:
            raise Refused(RULE, str(exc)) from None
        ordered = self._log_first(signers, chosen)
        earlier = self.checkpoints()
        with checked_tree(self.store, earlier) as tree:
            size, root = tree.size, tree.root()
        if size == 0:
            raise Refused(RULE, _("the store holds no event yet: there is nothing to checkpoint"))
        self._key_signs(ordered[0], size)
        checkpoint = Checkpoint(chosen, size, root)
        note = sign_note(checkpoint.text(), ordered)
        at = self.clock()
        made = CheckpointMade(size=size, root=checkpoint.root_b64, reason=reason, at=at, by=by, signatures=tuple(
            NoteSignature(s.verifier.text(), line.base64) for s, line in zip(ordered, note.signatures, strict=True)))
        events: list[AnyEvent] = [made] if stored else [
            CheckpointsStarted(game=CHECKPOINTS_STREAM, origin=chosen, key=ordered[0].verifier.text(), at=at, by=by),
            made]
        self._append(CHECKPOINTS_STREAM, stored, events)
        return self.stored(size)

    def _log_first(self, signers: Sequence[Signer], origin: str) -> list[Signer]:
        """The signers with the log's key first: the key the log names (or, at its first
        checkpoint, the signer named as the origin, else the first given), never a
        witness's or an arbiter's."""
        for signer in signers:
            if signer.witness:
                raise Refused(RULE, _("{key} is a witness's key: a witness cosigns from its own state (pulka "
                                      "witness), it never signs as the log").format(key=signer.name),
                              _("the log's key (pulka keygen ORIGIN)"))
        keys = self.keys()
        if keys:
            current = keys[-1].key
            found = [s for s in signers if s.verifier.text() == current]
            if not found:
                retired = [s.name for s in signers if any(k.key == s.verifier.text() for k in keys)]
                why = (_("{keys} retired: the log's key is now {key}") if retired
                       else _("none of the keys given is the log's ({key})"))
                raise Refused(RULE, why.format(keys=", ".join(retired), key=current),
                              _("--key with the log's private key; others cosign (pulka cosign)"))
            log = found[0]
        else:
            log = next((s for s in signers if s.name == origin), signers[0])
        if is_arbiter(log.name):
            raise Refused(RULE, _("{key} is an arbiter's key: an arbiter signs decisions and may cosign the log's "
                                  "checkpoints, never sign as the log").format(key=log.name),
                          _("the log's key (pulka keygen ORIGIN)"))
        return [log, *(s for s in signers if s is not log)]

    def _key_signs(self, signer: Signer, size: int) -> None:
        keys = self.keys()
        if keys and not any(k.key == signer.verifier.text() and k.signs(size) for k in keys):
            raise Refused(RULE, _("the log's key {key} does not sign checkpoint #{size}").format(
                key=signer.name, size=size))

    def cosign(self, signer: Signer, size: int | None = None, by: str | None = None) -> StoredCheckpoint:
        """Add ``signer``'s signature to a stored checkpoint (the latest, or of ``size``),
        once the rows are seen to hold it and every checkpoint before it."""
        if signer.witness:
            raise Refused(RULE, _("{key} is a witness's key: a witness cosigns from its own state, over HTTP (pulka "
                                  "witness; pulka checkpoint --trust asks it)").format(key=signer.name))
        cp = self.stored(size)
        if any(s.key == signer.verifier.text() for s in cp.signatures):
            raise Refused(RULE, _("{signer} has signed checkpoint #{size} already").format(signer=signer.name, size=cp.size))
        with checked_tree(self.store, self.checkpoints()):
            pass
        line = signature_of(signer, cp.checkpoint.text())
        self.add_signature(cp, NoteSignature(signer.verifier.text(), line.base64), by)
        return self.stored(cp.size)

    def add_signature(self, cp: StoredCheckpoint, signature: NoteSignature, by: str | None = None) -> None:
        """Store a signature on stored checkpoint ``cp`` (a cosignature: a witness's, as
        its service returned it, or one made here)."""
        event = Cosigned(size=cp.size, root=cp.root, signature=signature, at=self.clock(), by=by)
        self._append(CHECKPOINTS_STREAM, self.store.load(CHECKPOINTS_STREAM), [event])

    def rotate(self, old: Signer, new: Signer, by: str | None = None) -> KeyRotated:
        """The log's key changes from ``old`` (the key it names now) to ``new``: both sign
        the rotation, stored in ``@checkpoints``; from the latest checkpoint's size on,
        ``new`` signs and ``old`` signs nothing larger."""
        keys = self.keys()
        if not keys:
            raise Refused(RULE, _("the log has no key yet: its first checkpoint names it"),
                          "pulka checkpoint --key NEW.key")
        if old.verifier.text() != keys[-1].key:
            raise Refused(RULE, _("{key} is not the log's key now ({current}): the key in effect signs its "
                                  "successor").format(key=old.name, current=keys[-1].key))
        if new.witness or is_arbiter(new.name) or any(k.key == new.verifier.text() for k in keys):
            raise Refused(RULE, _("{key} cannot become the log's key: a key the log used before, a witness's or an "
                                  "arbiter's").format(key=new.name), _("a new key (pulka keygen ORIGIN --out NEW.key)"))
        origin = self.origin() or ""
        size = self.stored().size
        text = rotation_text(origin, size, new.verifier)
        note = sign_note(text, [old, new])
        event = KeyRotated(size=size, key=new.verifier.text(), at=self.clock(), by=by, signatures=tuple(
            NoteSignature(s.verifier.text(), line.base64) for s, line in zip((old, new), note.signatures, strict=True)))
        self._append(CHECKPOINTS_STREAM, self.store.load(CHECKPOINTS_STREAM), [event])
        return event

    def sign_event(self, stream: str, number: int, signer: Signer) -> EventSigned:
        """Store ``signer``'s signature over the digest and type of event ``number`` of ``stream``."""
        reading = self.store.read(stream)
        if not reading.stored:
            raise Refused(RULE, _("no stream named {stream}").format(stream=repr(stream)))
        if reading.problem is not None:
            raise Refused(RULE, _("the hash chain of {stream} is broken: {problem}").format(
                stream=repr(stream), problem=reading.problem), "pulka verify")
        if not 1 <= number <= len(reading.stored):
            raise Refused(RULE, _("{stream} has no event {number}").format(stream=repr(stream), number=number),
                          _("events 1 to {last}").format(last=len(reading.stored)))
        target = reading.stored[number - 1]
        kinds = ", ".join(sorted({_(SIGNABLE[t]) for t in SIGNABLE}))
        if type(target.event) not in SIGNABLE:
            raise Refused(RULE, _("event {number} is a {type}: an arbiter signs his decisions").format(
                number=number, type=event_type(target.event)), kinds)
        if not is_arbiter(signer.name) or signer.witness:
            raise Refused(RULE, _("the key {key} is not an arbiter's").format(key=repr(signer.name)),
                          _("a key named arbiter:NAME (pulka keygen arbiter:NAME)"))
        recorder = target.event.by
        if recorder is not None and is_arbiter(recorder) and recorder != signer.name:
            raise Refused(RULE, _("event {number} was recorded by {recorder}, not {signer}").format(
                number=number, recorder=recorder, signer=signer.name),
                _("{recorder}'s own key").format(recorder=recorder))
        for e in signed_in([s.event for s in self.store.load(SIGNATURES_STREAM)], stream).get((stream, number), []):
            if e.signature.key == signer.verifier.text():
                raise Refused(RULE, _("event {number} of {stream} is signed by {signer} already").format(
                    number=number, stream=repr(stream), signer=signer.name))
        label = event_type(target.event)
        line = signature_of(signer, event_text(stream, number, target.digest, label))
        signed = EventSigned(stream=stream, number=number, event_digest=target.digest, at=self.clock(), by=signer.name,
                             signature=NoteSignature(signer.verifier.text(), line.base64), label=label)
        stored = self.store.load(SIGNATURES_STREAM)
        events: list[AnyEvent] = [signed] if stored else [
            SignaturesStarted(game=SIGNATURES_STREAM, at=signed.at, by=signer.name), signed]
        self._append(SIGNATURES_STREAM, stored, events)
        return signed

    def _append(self, stream: str, stored: list[StoredEvent], events: list[AnyEvent]) -> None:
        for event in events:
            admit(event)
        if not stored:
            from ledger.views.archive import ensure_views

            ensure_views(self.store)
        self.store.append(stream, events, expected=len(stored), previous=stored[-1].digest if stored else GENESIS)


def signature_holds(event: EventSigned) -> bool:
    """Whether a stored signature on an event verifies with the key stored beside it,
    over the text it signed (with the event's type, when it was signed with it)."""
    key = key_of(event.signature)
    if key is None or key.witness:
        return False
    try:
        line = signature_line(event.signature)
    except NoteError:
        return False
    return verified_by(Note(event_text(event.stream, event.number, event.event_digest, event.label), (line,)), key)


def signature_note(stored: Sequence[EventSigned], stream: str, number: int, digest: str) -> Note:
    """The signed note of the signatures on event ``number`` of ``stream`` whose digest
    is ``digest``: one note per text signed (with its type, or before types were signed)."""
    labels = sorted({e.label for e in stored if e.event_digest == digest}, key=lambda label: label == "")
    label = labels[0] if labels else ""
    lines: tuple[Signature, ...] = tuple(signature_line(e.signature) for e in stored
                                         if e.event_digest == digest and e.label == label)
    return Note(event_text(stream, number, digest, label), lines)


def attest_close(store: Store, clock: Callable[[], str], tournament: str, closed: Sequence[StoredEvent],
                 signer: Signer) -> list[EventSigned]:
    """What the arbiter signs when he closes a tour: the close (the tour's results; the
    tournament's final standings after the last tour) and what it brought (cards,
    removals, a cut). The club log's next checkpoint, signed by its own key, covers
    them: an arbiter's key never signs as the log."""
    attest = Attestations(store, clock)
    return [attest.sign_event(tournament, stored.number, signer) for stored in closed if type(stored.event) in SIGNABLE]

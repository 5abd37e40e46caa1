"""Signed checkpoints of the club log, the signatures of arbiters on decisions, the
proofs a player takes home, and their check against the store.

- ``Attestations.make`` computes the root of the whole store's tree (``tree``), signs
  the checkpoint with the keys given (C2SP tlog-checkpoint in a signed note,
  ``notes``) and stores it in ``@checkpoints``; ``cosign`` adds a signature to a stored
  checkpoint once the store is found to still hold it.
- ``sign_event`` stores an arbiter's signature over the digest of a ruling, a penalty,
  a card, a removal or a tour's results (``SIGNABLE``) in ``@signatures``.
- ``prove`` writes a game's bundle: its events as stored (the canonical bytes the chain
  hashed), the inclusion proof of its last event under a checkpoint, the checkpoint with
  its signatures, and the signatures on its events; ``consistency`` proves that one
  checkpoint extends another. ``pulka_verify.py`` checks both with nothing of pulka.
- ``audit`` is what ``verify`` adds: every stored checkpoint against the tree computed
  anew from every row, forks, every signature, and the tree's cache.

Every refusal names the rule ``proofs`` (docs/event-log.md, "Proofs").
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.judge.admission import admit
from ledger.judge.checks import is_arbiter
from ledger.store.event_store import Store
from ledger.store.stored import StoredEvent, game_id
from ledger.proofs.tree import ClubTree
from ledger.vocabulary import language
from ledger.vocabulary.attestation import (
    CHECKPOINTS_STREAM,
    SIGNATURES_STREAM,
    CheckpointMade,
    CheckpointsStarted,
    Cosigned,
    EventSigned,
    NoteSignature,
    SignaturesStarted,
)
from ledger.vocabulary.bridge import BridgePenalty
from ledger.vocabulary.chain import GENESIS
from ledger.vocabulary.events import AnyEvent, Penalty, Ruling, encode_event, event_type
from ledger.vocabulary.merkle import verify_consistency
from ledger.vocabulary.notes import (
    Checkpoint,
    Note,
    NoteError,
    Signer,
    Verifier,
    check_origin,
    event_text,
    open_note,
    parse_checkpoint,
    sign_note,
    signature_of,
    verified_by,
)
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from ledger.vocabulary.tournament_events import CutMade, Disqualified, Removed, TourClosed, YellowCard
from projections.attested import (
    StoredCheckpoint,
    checkpoints,
    covering,
    forks,
    attested_history_doc,
    key_of,
    orphan_cosignatures,
)
from projections.attested import signed_events as signed_in
from projections.attested import signature_line

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

RULE = "proofs"
BUNDLE_FORMAT = "pulka-bundle/v1"
CONSISTENCY_FORMAT = "pulka-consistency/v1"

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
        return checkpoints([s.event for s in self.store.load(CHECKPOINTS_STREAM)])

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
        """Sign and store a checkpoint of every event stored now."""
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
        with ClubTree.open(self.store, write=True) as tree:
            size, root = tree.size, tree.root()
        if size == 0:
            raise Refused(RULE, _("the store holds no event yet: there is nothing to checkpoint"))
        checkpoint = Checkpoint(chosen, size, root)
        note = sign_note(checkpoint.text(), signers)
        at = self.clock()
        made = CheckpointMade(size=size, root=checkpoint.root_b64, reason=reason, at=at, by=by, signatures=tuple(
            NoteSignature(s.verifier.text(), line.base64) for s, line in zip(signers, note.signatures, strict=True)))
        events: list[AnyEvent] = [made] if stored else [
            CheckpointsStarted(game=CHECKPOINTS_STREAM, origin=chosen, at=at, by=by), made]
        self._append(CHECKPOINTS_STREAM, stored, events)
        return self.stored(size)

    def cosign(self, signer: Signer, size: int | None = None, by: str | None = None) -> StoredCheckpoint:
        """Add ``signer``'s signature to a stored checkpoint (the latest, or of ``size``),
        once the store is seen to hold it and every checkpoint before it."""
        cp = self.stored(size)
        if any(s.key == signer.verifier.text() for s in cp.signatures):
            raise Refused(RULE, _("{signer} has signed checkpoint #{size} already").format(signer=signer.name, size=cp.size))
        with ClubTree.open(self.store, write=True) as tree:
            for earlier in self.checkpoints():
                if earlier.size <= tree.size and tree.root(earlier.size) != earlier.checkpoint.root:
                    raise Refused(RULE, _("the store no longer holds checkpoint #{size}: its first {size} events were "
                                            "changed, deleted, inserted or reordered; see `pulka verify`").format(
                                      size=earlier.size), _("cosign a checkpoint the store still holds"))
        line = signature_of(signer, cp.checkpoint.text())
        event = Cosigned(size=cp.size, root=cp.root, signature=NoteSignature(signer.verifier.text(), line.base64),
                         at=self.clock(), by=by)
        self._append(CHECKPOINTS_STREAM, self.store.load(CHECKPOINTS_STREAM), [event])
        return self.stored(cp.size)

    def sign_event(self, stream: str, number: int, signer: Signer) -> EventSigned:
        """Store ``signer``'s signature over the digest of event ``number`` of ``stream``."""
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
        if not is_arbiter(signer.name):
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
        line = signature_of(signer, event_text(stream, number, target.digest))
        signed = EventSigned(stream=stream, number=number, event_digest=target.digest, at=self.clock(), by=signer.name,
                             signature=NoteSignature(signer.verifier.text(), line.base64))
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

    # -- proofs -------------------------------------------------------------------------

    def prove(self, game: str, published: Note | None = None) -> dict[str, Any]:
        """The bundle of ``game`` under a checkpoint: the published one given, or the
        latest stored; its events are those the checkpoint covers."""
        reading = self.store.read(game)
        if not reading.stored:
            raise Refused(RULE, _("no stream named {stream}").format(stream=repr(game)))
        if reading.problem is not None:
            raise Refused(RULE, _("the hash chain of {stream} is broken: {problem}").format(
                stream=repr(game), problem=reading.problem), "pulka verify")
        note = published if published is not None else self.stored().note()
        checkpoint = _checkpoint_of(note)
        with ClubTree.open(self.store) as tree:
            self._holds(tree, checkpoint)
            covered = tree.covered(game, checkpoint.size)
            if covered is None:
                raise Refused(RULE, _("checkpoint #{size} does not cover {game}: the game was begun after it").format(
                    size=checkpoint.size, game=repr(game)), _("pulka checkpoint --key CLUB.key, then prove again"))
            head, index = covered
            proof = tree.inclusion(index, checkpoint.size)
        events = reading.stored[:head]
        signatures = self.signatures(game)
        return {
            "format": BUNDLE_FORMAT,
            "game": game,
            "events": [{"number": s.number, "event": encode_event(s.event).decode(), "digest": s.digest}
                       for s in events],
            "stored": len(reading.stored),
            "head": {"number": head, "leaf_index": index, "tree_size": checkpoint.size,
                     "proof": [base64.b64encode(h).decode() for h in proof]},
            "checkpoint": str(note),
            "signatures": [self._signature_note(game, events, n, signed) for n, signed in sorted(signatures.items())
                           if n <= head],
        }

    def _signature_note(self, game: str, events: list[StoredEvent], number: int,
                        signed: list[Signed]) -> dict[str, Any]:
        stored = signed_in([s.event for s in self.store.load(SIGNATURES_STREAM)], game)[(game, number)]
        text = event_text(game, number, events[number - 1].digest)
        lines = tuple(signature_line(e.signature) for e in stored if e.event_digest == events[number - 1].digest)
        return {"number": number, "what": what(events[number - 1].event), "note": str(Note(text, lines)),
                "keys": [e.signature.key for e in stored]}

    def consistency(self, old: Note, new: Note) -> dict[str, Any]:
        """The proof that checkpoint ``new`` extends checkpoint ``old``, from the store."""
        first, second = _checkpoint_of(old), _checkpoint_of(new)
        if first.origin != second.origin:
            raise Refused(RULE, _("the checkpoints are of two logs: {first} and {second}").format(
                first=repr(first.origin), second=repr(second.origin)))
        if first.size > second.size:
            first, second, old, new = second, first, new, old
        with ClubTree.open(self.store) as tree:
            self._holds(tree, first)
            self._holds(tree, second)
            proof = tree.consistency(first.size, second.size)
        assert verify_consistency(first.size, second.size, first.root, second.root, proof)
        return {"format": CONSISTENCY_FORMAT, "old": str(old), "new": str(new),
                "proof": [base64.b64encode(h).decode() for h in proof]}

    def _holds(self, tree: ClubTree, checkpoint: Checkpoint) -> None:
        if checkpoint.size > tree.size:
            raise Refused(RULE, _("checkpoint #{size} is of {size} events, the store holds {held}: it is not of "
                                  "this store, or events were deleted").format(size=checkpoint.size, held=tree.size))
        if tree.root(checkpoint.size) != checkpoint.root:
            raise Refused(RULE, _("the store no longer holds checkpoint #{size}: its first {size} events were "
                                  "changed, deleted, inserted or reordered since (no proof from it can exist); "
                                  "see `pulka verify`").format(size=checkpoint.size))

    # -- verify -------------------------------------------------------------------------

    def audit(self, trusted: Sequence[Verifier] = (), published: Sequence[Note] = ()) -> tuple[list[str], list[str]]:
        """What ``verify`` says of the tree: (lines that report, problems). The tree is
        computed anew from every row; each stored checkpoint, and each ``published``
        one, must be its root at its size; no two of one size may differ; every
        signature must verify (and, with ``trusted`` keys, be by one of them); the cache
        must hold what the rows give."""
        problems: list[str] = []
        report: list[str] = []
        if not self.store.has_events_table():
            return report, problems  # nothing stored: nothing to check, and nothing made
        stored = self.checkpoints()
        with ClubTree.fresh(self.store) as tree:
            names = _stream_names(self.store)
            for cp in stored:
                problems += _checkpoint_problems(tree, cp.checkpoint, _(
                    "checkpoint #{size} (event {number} of {stream}, {at})").format(
                        size=cp.size, number=cp.number, stream=CHECKPOINTS_STREAM, at=cp.at))
                problems += _signature_problems(cp, trusted)
            for note in published:
                problems += self._published_problems(tree, note, trusted)
            for a, b in forks(stored):
                problems.append(_("fork: checkpoints #{size} of {first} and of {second} give two roots for the same "
                                  "{size} events ({root}… and {other}…): two histories were signed").format(
                    size=a.size, first=a.at, second=b.at, root=a.root[:16], other=b.root[:16]))
            for number, orphan in orphan_cosignatures([s.event for s in self.store.load(CHECKPOINTS_STREAM)]):
                problems.append(_("event {number} of {stream} cosigns checkpoint #{size} with a root no stored "
                                  "checkpoint has").format(number=number, stream=CHECKPOINTS_STREAM, size=orphan.size))
            problems += self._event_signature_problems(trusted)
            problems += _cache_problems(tree, names)
            if stored:
                last = stored[-1]
                report.append(_("{stream}: {count} checkpoint(s), the last #{size} of {held} events stored, "
                                "signed by {signers}").format(stream=CHECKPOINTS_STREAM, count=len(stored),
                                                               size=last.size, held=tree.size,
                                                               signers=", ".join(last.signers())))
        return report, problems

    def _published_problems(self, tree: ClubTree, note: Note, trusted: Sequence[Verifier]) -> list[str]:
        try:
            checkpoint = _checkpoint_of(note)
            if trusted:
                open_note(note, trusted)
        except (Refused, NoteError) as exc:
            return [_("the checkpoint given: {why}").format(why=exc)]
        origin = self.origin()
        if origin is not None and checkpoint.origin != origin:
            return [_("the checkpoint given is of the log {given}, this store's is {origin}").format(
                given=repr(checkpoint.origin), origin=repr(origin))]
        return _checkpoint_problems(tree, checkpoint, _("the checkpoint given (#{size})").format(size=checkpoint.size))

    def _event_signature_problems(self, trusted: Sequence[Verifier]) -> list[str]:
        problems = []
        digests: dict[str, dict[int, str]] = {}
        for number, event in enumerate((s.event for s in self.store.load(SIGNATURES_STREAM)), start=1):
            if not isinstance(event, EventSigned):
                continue
            where = _("event {number} of {signatures} (a signature on event {signed} of {stream})").format(
                number=number, signatures=SIGNATURES_STREAM, signed=event.number, stream=repr(event.stream))
            if event.stream not in digests:
                digests[event.stream] = {s.number: s.digest for s in self.store.load(event.stream)}
            stored = digests[event.stream].get(event.number)
            if stored is None:
                problems.append(_("{where}: the store has no such event").format(where=where))
            elif stored != event.event_digest:
                problems.append(_("{where}: the event's digest is no longer the one signed (the event was changed "
                                  "and chained anew?)").format(where=where))
            elif not signature_holds(event):
                problems.append(_("{where}: the signature does not verify with the key stored beside it").format(
                    where=where))
            elif trusted and not any(key_of(event.signature) == k for k in trusted):
                problems.append(_("{where}: signed by {signer}, a key not among those given (--key)").format(
                    where=where, signer=event.signature.key.split("+", 1)[0]))
        return problems


def signature_holds(event: EventSigned) -> bool:
    """Whether a stored signature on an event verifies with the key stored beside it."""
    key = key_of(event.signature)
    if key is None:
        return False
    try:
        line = signature_line(event.signature)
    except NoteError:
        return False
    return verified_by(Note(event_text(event.stream, event.number, event.event_digest), (line,)), key)


def _checkpoint_of(note: Note) -> Checkpoint:
    try:
        return parse_checkpoint(note.text)
    except NoteError as exc:
        raise Refused(RULE, str(exc)) from None


def _checkpoint_problems(tree: ClubTree, checkpoint: Checkpoint, name: str) -> list[str]:
    if checkpoint.size > tree.size:
        return [_("{name} covers {size} events, the store holds {held}: events were deleted").format(
            name=name, size=checkpoint.size, held=tree.size)]
    if tree.root(checkpoint.size) != checkpoint.root:
        return [_("{name} does not match the store: its first {size} events were changed, deleted, "
                  "inserted or reordered since it was signed").format(name=name, size=checkpoint.size)]
    return []


def _signature_problems(cp: StoredCheckpoint, trusted: Sequence[Verifier]) -> list[str]:
    problems = []
    text = cp.checkpoint.text()
    for signature in cp.signatures:
        key = key_of(signature)
        try:
            line = signature_line(signature)
        except NoteError:
            line = None
        name = signature.key.split("+", 1)[0]
        if key is None or line is None or not verified_by(Note(text, (line,)), key):
            problems.append(_("checkpoint #{size}: the signature of {signer} does not verify").format(
                size=cp.size, signer=name))
    if trusted and not any(key_of(s) in trusted for s in cp.signatures):
        problems.append(_("checkpoint #{size}: signed by {signers}, none of them a key given (--key)").format(
            size=cp.size, signers=", ".join(cp.signers())))
    return problems


def _stream_names(store: Store) -> dict[str, str]:
    """Stream ids (as the rows hold them) and their names."""
    names = {}
    for name in store.games():
        stream = game_id(name)
        names[str(stream)] = names[stream.hex] = name  # as PostgreSQL and SQLite hold it
    return names


def _cache_problems(tree: ClubTree, names: dict[str, str]) -> list[str]:
    """The first leaf where the tiles cached before differ from the rows read now."""
    assert tree.leaves is not None
    cached = tree.cached_tiles()
    level0 = sorted((k, h) for (t, k), h in cached.items() if t == 0)
    for index, hashes in level0:
        fresh = tree.nodes.tile(0, index)
        if fresh[:len(hashes)] != hashes:
            at = next(i for i in range(0, len(hashes), 32) if fresh[i:i + 32] != hashes[i:i + 32]) // 32
            leaf = index * 256 + at
            if leaf >= len(tree.leaves):
                return [_("the tree's cache holds {cached} events or more, the store {held}: events were deleted "
                          "after they were taken into the tree").format(cached=leaf + 1, held=len(tree.leaves))]
            row = tree.leaves[leaf]
            stream = names.get(str(row.stream), f"stream {row.stream}")
            return [_("event {number} of {stream} (position {position} of the club log) is not the event the "
                      "tree took in: it was changed, or events before it were deleted, inserted or reordered, after "
                      "it was taken into the tree").format(number=row.number, stream=repr(stream), position=leaf + 1)]
    return []


def attest_close(store: Store, clock: Callable[[], str], tournament: str, closed: Sequence[StoredEvent],
                 signer: Signer, final: bool) -> StoredCheckpoint:
    """What the arbiter signs when he closes a tour: the close (the tour's results; the
    tournament's final standings after the last tour) and what it brought (cards,
    removals, a cut), then a checkpoint of the club log, signed by him, that covers them."""
    attest = Attestations(store, clock)
    for stored in closed:
        if type(stored.event) in SIGNABLE:
            attest.sign_event(tournament, stored.number, signer)
    tour = next((s.event.tour for s in closed if isinstance(s.event, TourClosed)), None)
    reason = f"final standings of {tournament}" if final else f"tour {tour} of {tournament} closed"
    return attest.make([signer], reason=reason, by=signer.name)

"""What a player takes home and checks with ``pulka_verify.py``, nothing of pulka needed:

- a game's *bundle* (``prove``): its events as stored (the canonical bytes the chain
  hashed), the inclusion proof of its last event under a checkpoint, the checkpoint
  with every signature (the log's, the witnesses' cosignatures, the arbiter's), the
  rotations of the log's key, the consistency proofs that tie that checkpoint to every
  other checkpoint the log stored (so that the verifier can check it against the last
  one it saw), and the arbiters' signatures on its decisions, every one of them: a
  signature that no longer verifies is a refusal, never left out;
- the proof that one checkpoint extends another (``consistency``).
"""

from __future__ import annotations

import base64
from typing import Any

from ledger.proofs.checkpoints import RULE, Attestations, signature_holds, signature_note, what
from ledger.proofs.tree import ClubTree
from ledger.store.stored import StoredEvent
from ledger.vocabulary import language
from ledger.vocabulary.attestation import SIGNATURES_STREAM, EventSigned
from ledger.vocabulary.events import encode_event
from ledger.vocabulary.merkle import verify_consistency
from ledger.vocabulary.notes import Checkpoint, Note, NoteError, parse_checkpoint
from ledger.vocabulary.refusal import Refused
from projections.attested import rotation_notes
from projections.attested import signed_events as signed_in

_ = language._  # every text a person reads, in the language in effect

BUNDLE_FORMAT = "pulka-bundle/v1"
CONSISTENCY_FORMAT = "pulka-consistency/v1"


def b64(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


def checkpoint_of(note: Note) -> Checkpoint:
    try:
        return parse_checkpoint(note.text)
    except NoteError as exc:
        raise Refused(RULE, str(exc)) from None


def holds(tree: ClubTree, checkpoint: Checkpoint) -> None:
    """Refused unless the store's tree holds ``checkpoint``."""
    if checkpoint.size > tree.size:
        raise Refused(RULE, _("checkpoint #{size} is of {size} events, the store holds {held}: it is not of "
                              "this store, or events were deleted").format(size=checkpoint.size, held=tree.size))
    if tree.root(checkpoint.size) != checkpoint.root:
        raise Refused(RULE, _("the store no longer holds checkpoint #{size}: its first {size} events were "
                              "changed, deleted, inserted or reordered since (no proof from it can exist); "
                              "see `pulka verify`").format(size=checkpoint.size))


def prove_game(attest: Attestations, game: str, published: Note | None = None) -> dict[str, Any]:
    """The bundle of ``game`` under a checkpoint: the published one given, or the latest
    stored; its events are those the checkpoint covers."""
    store = attest.store
    reading = store.read(game)
    if not reading.stored:
        raise Refused(RULE, _("no stream named {stream}").format(stream=repr(game)))
    if reading.problem is not None:
        raise Refused(RULE, _("the hash chain of {stream} is broken: {problem}").format(
            stream=repr(game), problem=reading.problem), "pulka verify")
    note = published if published is not None else attest.stored().note()
    checkpoint = checkpoint_of(note)
    stored = attest.checkpoints()
    with ClubTree.open(store) as tree:
        holds(tree, checkpoint)
        covered = tree.covered(game, checkpoint.size)
        if covered is None:
            raise Refused(RULE, _("checkpoint #{size} does not cover {game}: the game was begun after it").format(
                size=checkpoint.size, game=repr(game)), _("pulka checkpoint --key CLUB.key, then prove again"))
        head, index = covered
        proof = tree.inclusion(index, checkpoint.size)
        sizes = sorted({cp.size for cp in stored if cp.size != checkpoint.size and cp.size <= tree.size})
        consistency = [{"size": size, "proof": b64(tree.consistency(min(size, checkpoint.size),
                                                                    max(size, checkpoint.size)))} for size in sizes]
    events = reading.stored[:head]
    return {
        "format": BUNDLE_FORMAT,
        "game": game,
        "events": [{"number": s.number, "event": encode_event(s.event).decode(), "digest": s.digest} for s in events],
        "stored": len(reading.stored),
        "head": {"number": head, "leaf_index": index, "tree_size": checkpoint.size, "proof": b64(proof)},
        "checkpoint": str(note),
        "rotations": [str(n) for n in rotation_notes(attest.events(), checkpoint.origin)],
        "consistency": consistency,
        "signatures": signature_docs(attest, game, events),
    }


def signature_docs(attest: Attestations, game: str, events: list[StoredEvent]) -> list[dict[str, Any]]:
    """The signed notes of the decisions among ``events``: every stored signature on
    them, or a refusal naming the first that no longer verifies (a bundle never drops
    one: a player given the arbiter's key would not see it missing)."""
    signed = signed_in([s.event for s in attest.store.load(SIGNATURES_STREAM)], game)
    docs = []
    for (_stream, number), found in sorted(signed.items()):
        if number > len(events):
            continue
        for e in found:
            _refuse_broken(game, events, e)
        event = events[number - 1]
        for label in sorted({e.label for e in found}):
            same = [e for e in found if e.label == label]
            docs.append({"number": number, "what": what(event.event),
                         "note": str(signature_note(same, game, number, event.digest)),
                         "keys": [e.signature.key for e in same]})
    return docs


def _refuse_broken(game: str, events: list[StoredEvent], signed: EventSigned) -> None:
    if events[signed.number - 1].digest != signed.event_digest or not signature_holds(signed):
        signer = signed.signature.key.split("+", 1)[0]
        raise Refused(RULE, _("the signature of {signer} on event {number} of {game} no longer verifies over the "
                              "event as stored (the event or the signature was changed): a bundle never leaves a "
                              "signature out").format(signer=signer, number=signed.number, game=repr(game)),
                      "pulka verify")


def consistency_bundle(attest: Attestations, old: Note, new: Note) -> dict[str, Any]:
    """The proof that checkpoint ``new`` extends checkpoint ``old``, from the store."""
    first, second = checkpoint_of(old), checkpoint_of(new)
    if first.origin != second.origin:
        raise Refused(RULE, _("the checkpoints are of two logs: {first} and {second}").format(
            first=repr(first.origin), second=repr(second.origin)))
    if first.size > second.size:
        first, second, old, new = second, first, new, old
    with ClubTree.open(attest.store) as tree:
        holds(tree, first)
        holds(tree, second)
        proof = tree.consistency(first.size, second.size)
    assert verify_consistency(first.size, second.size, first.root, second.root, proof)
    return {"format": CONSISTENCY_FORMAT, "old": str(old), "new": str(new), "proof": b64(proof)}

"""What ``pulka verify`` checks of the club log: the tree computed anew from every row;
each stored checkpoint (and each published one given) its root at its size; no two of
one size with different roots (a fork); every signature verifying with the key stored
beside it; each checkpoint signed by the log's key in effect at its size (the key its
start names, then each key a rotation brought); each rotation signed by the old key
and the new; every signature on a decision over the event as stored; the tree's cache
holding what the rows give.

Three kinds of findings: lines that report; *problems* (the store is not what was
signed: tampered); and, when the reader gave keys (``--key``), what is *not signed by
a key he gave* — an honest store signed by others is not tampered, and is not called so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ledger.proofs.bundles import checkpoint_of
from ledger.proofs.checkpoints import Attestations, signature_holds
from ledger.proofs.afresh import Afresh, afresh
from ledger.proofs.held import stream_names
from ledger.vocabulary import language
from ledger.vocabulary.attestation import CHECKPOINTS_STREAM, SIGNATURES_STREAM, EventSigned, KeyRotated
from ledger.vocabulary.notes import Checkpoint, Note, NoteError, Verifier, open_note, verified_by
from ledger.vocabulary.refusal import Refused
from projections.attested import (
    LogKey,
    StoredCheckpoint,
    forks,
    key_of,
    orphan_cosignatures,
    rotation_notes,
    signature_line,
    signer_name,
)

_ = language._  # every text a person reads, in the language in effect


class Findings(NamedTuple):
    """What ``verify`` says of the club log."""

    report: list[str]
    problems: list[str]  # the store is not what was signed
    unverified: list[str]  # not signed by a key the reader gave (nothing tampered)


def audit_log(attest: Attestations, trusted: Sequence[Verifier] = (), published: Sequence[Note] = ()) -> Findings:
    """Every check of the club log, the tree computed anew from every row."""
    found = Findings([], [], [])
    if not attest.store.has_events_table():
        return found  # nothing stored: nothing to check, and nothing made
    stored = attest.checkpoints()
    events = attest.events()
    keys = attest.keys()
    given = [_given(note) for note in published]
    tree = afresh(attest.store, [cp.checkpoint.size for cp in stored] + [c.size for c in given if isinstance(c, Checkpoint)])
    for cp in stored:
        found.problems.extend(_checkpoint_problems(tree, cp.checkpoint, _(
            "checkpoint #{size} (event {number} of {stream}, {at})").format(
                size=cp.size, number=cp.number, stream=CHECKPOINTS_STREAM, at=cp.at)))
        _signatures(cp, keys, trusted, found)
    for note, checkpoint in zip(published, given, strict=True):
        _published(attest, tree, note, checkpoint, trusted, found)
    for a, b in forks(stored):
        found.problems.append(_("fork: checkpoints #{size} of {first} and of {second} give two roots for the "
                                "same {size} events ({root}… and {other}…): two histories were signed").format(
            size=a.size, first=a.at, second=b.at, root=a.root[:16], other=b.root[:16]))
    for number, orphan in orphan_cosignatures(events):
        found.problems.append(_("event {number} of {stream} cosigns checkpoint #{size} with a root no stored "
                                "checkpoint has").format(number=number, stream=CHECKPOINTS_STREAM, size=orphan.size))
    found.problems.extend(_rotation_problems(attest, events))
    _event_signatures(attest, trusted, found)
    found.problems.extend(_cache_problems(attest, tree))
    if stored:
        last = stored[-1]
        found.report.append(_("{stream}: {count} checkpoint(s), the last #{size} of {held} events stored, "
                              "signed by {signers}").format(stream=CHECKPOINTS_STREAM, count=len(stored),
                                                             size=last.size, held=tree.size,
                                                             signers=", ".join(last.signers())))
    return found


def _checkpoint_problems(tree: Afresh, checkpoint: Checkpoint, name: str) -> list[str]:
    if checkpoint.size > tree.size:
        return [_("{name} covers {size} events, the store holds {held}: events were deleted").format(
            name=name, size=checkpoint.size, held=tree.size)]
    if tree.root(checkpoint.size) != checkpoint.root:
        return [_("{name} does not match the store: its first {size} events were changed, deleted, "
                  "inserted or reordered since it was signed").format(name=name, size=checkpoint.size)]
    return []


def _signatures(cp: StoredCheckpoint, keys: Sequence[LogKey], trusted: Sequence[Verifier], found: Findings) -> None:
    text = cp.checkpoint.text()
    for signature in cp.signatures:
        key = key_of(signature)
        try:
            line = signature_line(signature)
        except NoteError:
            line = None
        if key is None or line is None or not verified_by(Note(text, (line,)), key):
            found.problems.append(_("checkpoint #{size}: the signature of {signer} does not verify").format(
                size=cp.size, signer=signer_name(signature)))
    if keys and not any(k.signs(cp.size) and s.key == k.key for s in cp.signatures for k in keys):
        found.report.append(_("checkpoint #{size} is not signed by the log's key in effect at its size (signed by "
                              "{signers}): it is not the log's statement").format(
            size=cp.size, signers=", ".join(cp.signers())))
    if trusted and not any(key_of(s) in trusted for s in cp.signatures):
        found.unverified.append(_("checkpoint #{size}: signed by {signers}, none of them a key given (--key)").format(
            size=cp.size, signers=", ".join(cp.signers())))


def _given(note: Note) -> Checkpoint | Refused:
    """A published checkpoint given, or why it is none."""
    try:
        return checkpoint_of(note)
    except Refused as exc:
        return exc


def _published(attest: Attestations, tree: Afresh, note: Note, checkpoint: Checkpoint | Refused,
               trusted: Sequence[Verifier], found: Findings) -> None:
    if isinstance(checkpoint, Refused):
        found.problems.append(_("the checkpoint given: {why}").format(why=checkpoint))
        return
    if trusted:
        try:
            open_note(note, trusted)
        except NoteError as exc:
            found.unverified.append(_("the checkpoint given: {why}").format(why=exc))
    origin = attest.origin()
    if origin is not None and checkpoint.origin != origin:
        found.problems.append(_("the checkpoint given is of the log {given}, this store's is {origin}").format(
            given=repr(checkpoint.origin), origin=repr(origin)))
        return
    found.problems.extend(_checkpoint_problems(tree, checkpoint, _("the checkpoint given (#{size})").format(
        size=checkpoint.size)))


def _rotation_problems(attest: Attestations, events: Sequence[object]) -> list[str]:
    """Each rotation signed by the key it retires and the key it brings."""
    rotations = [e for e in events if isinstance(e, KeyRotated)]
    notes = rotation_notes(attest.events(), attest.origin() or "")
    keys = [k.key for k in attest.keys()]
    problems = []
    for i, event in enumerate(rotations):
        old, new = _verifier(keys[i] if i < len(keys) else ""), _verifier(event.key)
        note = notes[i] if i < len(notes) else None
        good = (note is not None and old is not None and new is not None and len(note.signatures) == 2
                and verified_by(Note(note.text, note.signatures[:1]), old)
                and verified_by(Note(note.text, note.signatures[1:]), new))
        if not good:
            problems.append(_("the rotation of the log's key at #{size} is not signed by the key it retires and "
                              "the key it brings").format(size=event.size))
    return problems


def _verifier(text: str) -> Verifier | None:
    try:
        return Verifier.parse(text)
    except NoteError:
        return None


def _event_signatures(attest: Attestations, trusted: Sequence[Verifier], found: Findings) -> None:
    digests: dict[str, dict[int, str]] = {}
    store = attest.store
    for number, event in enumerate((s.event for s in store.load(SIGNATURES_STREAM)), start=1):
        if not isinstance(event, EventSigned):
            continue
        where = _("event {number} of {signatures} (a signature on event {signed} of {stream})").format(
            number=number, signatures=SIGNATURES_STREAM, signed=event.number, stream=repr(event.stream))
        if event.stream not in digests:
            digests[event.stream] = {s.number: s.digest for s in store.load(event.stream)}
        held = digests[event.stream].get(event.number)
        if held is None:
            found.problems.append(_("{where}: the store has no such event").format(where=where))
        elif held != event.event_digest:
            found.problems.append(_("{where}: the event's digest is no longer the one signed (the event was "
                                    "changed and chained anew?)").format(where=where))
        elif not signature_holds(event):
            found.problems.append(_("{where}: the signature does not verify with the key stored beside it").format(
                where=where))
        elif trusted and not any(key_of(event.signature) == k for k in trusted):
            found.unverified.append(_("{where}: signed by {signer}, a key not among those given (--key)").format(
                where=where, signer=signer_name(event.signature)))


def _cache_problems(attest: Attestations, tree: Afresh) -> list[str]:
    """The first leaf where the tiles cached before differ from the rows read now."""
    difference = tree.difference
    if difference is None:
        return []
    if difference.row is None:
        return [_("the tree's cache holds {cached} events or more, the store {held}: events were deleted "
                  "after they were taken into the tree").format(cached=difference.leaf + 1, held=tree.size)]
    names = stream_names(attest.store)
    stream = names.get(str(difference.row.stream), f"stream {difference.row.stream}")
    return [_("event {number} of {stream} (position {position} of the club log) is not the event the "
              "tree took in: it was changed, or events before it were deleted, inserted or reordered, after "
              "it was taken into the tree").format(number=difference.row.number, stream=repr(stream),
                                                   position=difference.leaf + 1)]


__all__ = ["Findings", "audit_log"]

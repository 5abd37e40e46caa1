"""The log asks its witnesses to cosign (C2SP tlog-witness, the log's side): for each
witness the trust file names with an address, an ``add-checkpoint`` request with the
latest stored checkpoint and the consistency proof from the size the witness cosigned
last (learnt from its 409 answer when the store does not know it), and each
cosignature it returns, checked against the witness's key from the trust file, stored
in ``@checkpoints`` beside the log's own signature.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ledger.proofs.checkpoints import Attestations
from ledger.proofs.tree import ClubTree
from ledger.proofs.witness import SIZE_TYPE, Answer, add_checkpoint_body, submit
from ledger.vocabulary import language
from ledger.vocabulary.attestation import NoteSignature
from ledger.vocabulary.notes import Note, NoteError, Verifier, open_note, parse_note
from ledger.vocabulary.trust import TrustedWitness
from projections.attested import StoredCheckpoint, key_of

_ = language._  # every text a person reads, in the language in effect

Submit = Callable[[str, bytes], Answer]


class Asked(NamedTuple):
    """What one witness answered: its name, whether it cosigned, and what it said."""

    witness: str
    cosigned: bool
    said: str


def ask_witnesses(attest: Attestations, witnesses: Sequence[TrustedWitness], send: Submit = submit) -> list[Asked]:
    """Ask every witness with an address to cosign the latest stored checkpoint."""
    cp = attest.stored()
    return [_ask(attest, cp, w, send) for w in witnesses if w.url]


def _last_cosigned(cp: StoredCheckpoint, attest: Attestations, key: Verifier) -> int:
    """The largest size this witness cosigned, as the store knows it (0: none, and
    the witness says which in its answer)."""
    last = max((c.size for c in attest.checkpoints() for s in c.signatures if key_of(s) == key), default=0)
    return last if last <= cp.size else 0


def _ask(attest: Attestations, cp: StoredCheckpoint, witness: TrustedWitness, send: Submit) -> Asked:
    assert witness.url is not None
    name = witness.key.name
    if any(key_of(s) == witness.key for s in cp.signatures):
        return Asked(name, True, _("cosigned already"))
    old = _last_cosigned(cp, attest, witness.key)
    try:
        answer = send(witness.url, _body(attest, cp, old))
        if answer.status == 409 and answer.content_type.startswith(SIZE_TYPE):
            told = answer.body.strip()
            if told.isascii() and told.isdigit() and int(told) != old:
                if int(told) > cp.size:
                    return Asked(name, False, _("it has cosigned #{size} of this log, larger than #{ours}: the log "
                                                "it saw is not this store's").format(size=told, ours=cp.size))
                answer = send(witness.url, _body(attest, cp, int(told)))
    except OSError as exc:
        return Asked(name, False, _("cannot reach {url}: {why}").format(url=witness.url, why=exc))
    if answer.status != 200:
        return Asked(name, False, _("refused ({status}): {why}").format(status=answer.status,
                                                                        why=answer.body.strip()[:300]))
    return _store(attest, cp, witness.key, answer.body)


def _body(attest: Attestations, cp: StoredCheckpoint, old: int) -> bytes:
    proof: list[bytes] = []
    if 0 < old < cp.size:
        with ClubTree.open(attest.store) as tree:
            proof = tree.consistency(old, cp.size)
    return add_checkpoint_body(old, proof, cp.note())


def _store(attest: Attestations, cp: StoredCheckpoint, key: Verifier, body: str) -> Asked:
    """The witness's cosignature, checked with its key, stored with the checkpoint."""
    try:
        note = parse_note(cp.checkpoint.text() + "\n" + body)
        opened = open_note(Note(note.text, note.signatures), [key])
    except NoteError as exc:
        return Asked(key.name, False, _("its answer is not a cosignature of its key: {why}").format(why=exc))
    for line in opened.verified:
        attest.add_signature(cp, NoteSignature(key.text(), line.base64))
    return Asked(key.name, True, _("cosigned"))

"""The commands of verifiable history: ``keygen``, ``checkpoint``, ``cosign``, ``sign``,
``prove``, ``rotate`` and ``trust`` (parsing and printing; ``ledger.proofs`` does the
work: ``checkpoints``, ``bundles``, ``witnessing``, ``audit``).

Keys are files in the formats of signed notes: ``NAME.key`` holds the private key
(PRIVATE+KEY+NAME+ID+KEY) and must be readable by its owner alone, ``NAME.pub`` the
public key (NAME+ID+KEY) to hand to whoever checks. A key on the command line is a
file; a public key may also be given as its text.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from ledger.vocabulary.wording import digits
from typing import TYPE_CHECKING, Any, TypeVar
from pathlib import Path

import click

from projections.drawing.qr import qr_svg
from cli.common import CURRENT, GameCommand, UserError, db_option, emit, game_argument, game_name, opened
from ledger.application import Ledger
from ledger.proofs.checkpoints import Attestations, what
from ledger.proofs.key_files import KeyFileError, note_file, private_key, public_key, trust_file
from ledger.vocabulary import language
from ledger.vocabulary.notes import COSIGNATURE_V1, ED25519, Note, NoteError, Signer, Verifier, check_key_name
from ledger.vocabulary.trust import Trust, TrustError, TrustedWitness, parse_trust

if TYPE_CHECKING:
    from ledger.proofs.audit import Findings

_ = language._  # every text a person reads, in the language in effect

F = TypeVar("F", bound=Callable[..., Any])


def key_option(help_text: str, required: bool = False) -> Callable[[F], F]:
    return click.option("--key", "keys", multiple=True, required=required, metavar="FILE", help=help_text)


def read_signer(path: str) -> Signer:
    """A private key file, refused unless only its owner may read it."""
    try:
        return private_key(path)
    except KeyFileError as exc:
        raise UserError(str(exc)) from None


def read_verifier(text: str) -> Verifier:
    """A public key: a file holding one (NAME.pub), or its text."""
    try:
        return public_key(text)
    except KeyFileError as exc:
        raise UserError(str(exc)) from None


def read_note(path: str) -> Note:
    """A signed checkpoint kept in a file (what `pulka checkpoint` prints)."""
    try:
        return note_file(path)
    except KeyFileError as exc:
        raise UserError(str(exc)) from None


def read_trust(path: str) -> Trust:
    """The club's trust file."""
    try:
        return trust_file(path)
    except KeyFileError as exc:
        raise UserError(str(exc)) from None


SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@click.command()
@click.argument("name")
@click.option("--out", metavar="FILE", help="Where the private key goes (default: NAME.key, its public key NAME.pub).")
@click.option("--witness", is_flag=True, help="A witness's key (C2SP cosignature/v1, type 0x04), for pulka witness.")
def keygen(name: str, out: str | None, witness: bool) -> None:
    """Make an Ed25519 key pair for signed notes: the private key (readable by its owner
    alone) and the public key to hand out. NAME names the key: the club's log
    (club.example/pulka), an arbiter (arbiter:Oleg), or with --witness a witness
    (witness.example/w1)."""
    try:
        check_key_name(name)
    except NoteError as exc:
        raise UserError(str(exc)) from None
    private = Path(out or (SAFE.sub("_", name).strip("._") or "key") + ".key")
    public = private.with_suffix(".pub")
    signer = Signer.generate(name, COSIGNATURE_V1 if witness else ED25519)
    for path in (private, public):
        if path.exists():
            raise UserError(_("{path} exists already: a key is never overwritten; choose another --out").format(path=path))
    try:
        fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(signer.text() + "\n")
        os.chmod(private, 0o600)
        public.write_text(signer.verifier.text() + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(_("cannot write the key: {why}").format(why=exc)) from None
    click.echo(_("private key: {path} (readable by you alone: keep it, never share it)").format(path=private))
    click.echo(_("public key:  {path}").format(path=public))
    click.echo(signer.verifier.text())


@click.command()
@key_option("Sign with this private key (again for more keys): make and store a new checkpoint.")
@click.option("--origin", metavar="NAME", help="The name of the club's log, on the first checkpoint (default: the key's name).")
@click.option("--reason", default="", metavar="TEXT", help="What the checkpoint is for.")
@click.option("--size", type=int, metavar="N", help="Show the stored checkpoint of N events (default: the latest).")
@click.option("--json", "as_json", is_flag=True, help="Every stored checkpoint, as JSON.")
@click.option("--qr", is_flag=True, help="The checkpoint as a QR code (SVG) of its signed text, to print.")
@click.option("--trust", "trust", metavar="FILE",
              help="Ask the witnesses this trust file names (with their address) to cosign the latest checkpoint.")
@db_option
def checkpoint(keys: tuple[str, ...], origin: str | None, reason: str, size: int | None, as_json: bool, qr: bool,
               trust: str | None, db: str | None) -> None:
    """Make a signed checkpoint of the whole club log (every event stored, in store
    order) and print it to publish; without --key, print a stored one."""
    signers = [read_signer(k) for k in keys]
    policy = read_trust(trust) if trust is not None else None
    with opened(db, write=bool(signers) or policy is not None) as ledger:
        attest = Attestations(ledger.store, ledger.clock)
        if as_json:
            emit([{"size": cp.size, "root": cp.root, "origin": cp.origin, "at": cp.at, "reason": cp.reason,
                   "signed_by": cp.signers(), "note": str(cp.note())} for cp in attest.checkpoints()])
            return
        if signers:
            made = attest.make(signers, origin, reason)
            click.echo(_("stored: checkpoint #{size} of {origin}, signed by {signers}").format(
                size=made.size, origin=made.origin, signers=", ".join(made.signers())), err=True)
        if policy is not None:
            _ask_witnesses(attest, policy)
        note = str(attest.stored(None if signers else size).note())
        click.echo(qr_svg(note) if qr else note, nl=qr)


def _ask_witnesses(attest: Attestations, policy: Trust) -> None:
    from ledger.proofs.witnessing import ask_witnesses

    if policy.origin != (attest.origin() or policy.origin):
        raise UserError(_("the trust file is of the log {given}, this store's is {origin}").format(
            given=repr(policy.origin), origin=repr(attest.origin())))
    asked = ask_witnesses(attest, policy.witnesses)
    if not asked:
        click.echo(_("the trust file names no witness with an address to ask"), err=True)
    for answer in asked:
        click.echo(_("witness {name}: {said}").format(name=answer.witness, said=answer.said), err=True)
    cosigned = sum(a.cosigned for a in asked)
    if cosigned < policy.quorum:
        raise UserError(_("{count} witness(es) cosigned, the trust file asks for {quorum}: players will not accept "
                          "this checkpoint yet").format(count=cosigned, quorum=policy.quorum))


@click.command()
@key_option("The cosigner's private key.", required=True)
@click.option("--size", type=int, metavar="N", help="Cosign the stored checkpoint of N events (default: the latest).")
@db_option
def cosign(keys: tuple[str, ...], size: int | None, db: str | None) -> None:
    """Add your signature to a stored checkpoint, once the store is seen to hold it and
    every checkpoint before it; print the checkpoint with every signature."""
    signers = [read_signer(k) for k in keys]
    with opened(db, write=True) as ledger:
        attest = Attestations(ledger.store, ledger.clock)
        done = None
        for signer in signers:
            done = attest.cosign(signer, size)
            size = done.size
        assert done is not None
        click.echo(str(done.note()), nl=False)


@click.command(cls=GameCommand)
@game_argument
@click.argument("number", type=int, metavar="EVENT")
@key_option("The arbiter's private key.", required=True)
@db_option
def sign(game: str, number: int, keys: tuple[str, ...], db: str | None) -> None:
    """An arbiter signs his decision, event EVENT of GAME (a ruling, a penalty, a card,
    a removal, a tour's results): his Ed25519 signature over the event's digest, kept
    in the ledger and shown by log and the report."""
    signers = [read_signer(k) for k in keys]
    name = game_name(game, db)
    with opened(db, write=True) as ledger:
        attest = Attestations(ledger.store, ledger.clock)
        for signer in signers:
            signed = attest.sign_event(name, number, signer)
            target = ledger.store.load(name)[number - 1].event
            click.echo(_("{game}: event {number} ({what}) signed by {signer} (key {key}), digest {digest}").format(
                game=name, number=number, what=_(what(target)), signer=signer.name, key=signer.verifier.text(),
                digest=signed.event_digest[:16]))


@click.command()
@click.argument("game", required=False, metavar="[GAME]")
@click.option("--checkpoint", "published", metavar="FILE",
              help="Prove under this published checkpoint (default: the latest stored).")
@click.option("--consistency", nargs=2, metavar="OLD NEW",
              help="Instead: prove that checkpoint NEW extends OLD (each a file, or the size of a stored one).")
@db_option
def prove(game: str | None, published: str | None, consistency: tuple[str, str] | None, db: str | None) -> None:
    """Write a bundle (JSON) that a player checks on his own machine with
    pulka_verify.py: the game's events, the proof that its last event is in the club
    log under a checkpoint, the checkpoint with its signatures, and the arbiter's
    signatures on its decisions. With --consistency, the proof that one checkpoint
    extends another."""
    from ledger.proofs import bundles

    with opened(db) as ledger:
        attest = Attestations(ledger.store, ledger.clock)
        if consistency:
            old, new = (_checkpoint_note(attest, c) for c in consistency)
            click.echo(json.dumps(bundles.consistency_bundle(attest, old, new), ensure_ascii=False, indent=1))
            return
        note = read_note(published) if published is not None else None
        bundle = bundles.prove_game(attest, game_name(game or CURRENT, db), note)
        click.echo(json.dumps(bundle, ensure_ascii=False, indent=1))
        covered = len(bundle["events"])
        if covered < bundle["stored"]:
            click.echo(_("the checkpoint covers events 1-{covered} of {stored}: make a new checkpoint "
                         "to prove the rest").format(covered=covered, stored=bundle["stored"]), err=True)


def _checkpoint_note(attest: Attestations, text: str) -> Note:
    """OLD or NEW of --consistency: a file, or the size of a stored checkpoint."""
    if digits(text) and not os.path.exists(text):
        return attest.stored(int(text)).note()
    return read_note(text)


def history_findings(ledger: Ledger, keys: Sequence[str], published: Sequence[str]) -> Findings:
    """What ``pulka verify`` adds for the club log (``audit_log``): every stored
    checkpoint (and each published one given) against the tree computed anew from every
    row, forks, every signature (by the keys given, when given), the tree's cache."""
    from ledger.proofs.audit import audit_log

    trusted = [read_verifier(k) for k in keys]
    notes = [read_note(p) for p in published]
    return audit_log(Attestations(ledger.store, ledger.clock), trusted, notes)


def told_history(found: Findings) -> tuple[list[str], list[str]]:
    """Print what ``history_findings`` found; return (what was found tampered, what is
    not signed by a key given)."""
    for line in found.report:
        click.echo(line)
    for problem in found.problems:
        click.echo(_("club log: {problem}").format(problem=problem))
    for line in found.unverified:
        click.echo(_("club log: not checked: {what}").format(what=line))
    return ([_("the club log (its checkpoints or signatures)")] if found.problems else [],
            [_("the club log")] if found.unverified else [])


@click.command()
@click.option("--key", "old", required=True, metavar="FILE", help="The log's private key now, which signs its successor.")
@click.option("--new", "new", required=True, metavar="FILE", help="The new private key, which signs too.")
@db_option
def rotate(old: str, new: str, db: str | None) -> None:
    """Change the log's key: the key in effect and the new one both sign the change,
    stored in the log; checkpoints after the latest are signed by the new key, none by
    the old. Publish the new trust file (pulka trust) beside it."""
    retiring, coming = read_signer(old), read_signer(new)
    with opened(db, write=True) as ledger:
        event = Attestations(ledger.store, ledger.clock).rotate(retiring, coming)
    click.echo(_("the log's key is now {key}: it signs checkpoints after #{size}; {old} signs none after it").format(
        key=event.key, size=event.size, old=retiring.name))


@click.command()
@click.option("--witness", "witnesses", multiple=True, nargs=2, metavar="KEY URL",
              help="A witness: its public key (file or text, from pulka keygen --witness) and its address, or - for "
                   "none (again for more).")
@click.option("--quorum", type=click.IntRange(0), help="How many witnesses must cosign (default: all named).")
@click.option("--arbiter", "arbiters", multiple=True, metavar="KEY", help="An arbiter's public key (again for more).")
@db_option
def trust(witnesses: tuple[tuple[str, str], ...], quorum: int | None, arbiters: tuple[str, ...],
          db: str | None) -> None:
    """Print the club's trust file to publish: the log's origin and key as the store
    names them (and the keys it retired), its witnesses, how many must cosign, and its
    arbiters. Players pin it (pulka_verify.py --trust, pulka monitor --trust)."""
    named = [TrustedWitness(read_verifier(key), None if url == "-" else url) for key, url in witnesses]
    with opened(db) as ledger:
        attest = Attestations(ledger.store, ledger.clock)
        origin, keys = attest.origin(), attest.keys()
    if origin is None or not keys:
        raise UserError(_("the store has no checkpoint yet: its first names the log's origin and key "
                          "(pulka checkpoint --key CLUB.key)"))
    policy = Trust(origin, (read_verifier(keys[-1].key),), tuple(named),
                   len(named) if quorum is None else quorum, tuple(read_verifier(a) for a in arbiters),
                   tuple((read_verifier(k.key), k.until) for k in keys[:-1] if k.until is not None))
    try:
        checked = parse_trust(policy.text())
    except TrustError as exc:
        raise UserError(str(exc)) from None
    click.echo(checked.text(), nl=False)


def attested_history(db: str | None, game: str, number: int) -> dict[str, object]:
    """For a picture and the report: the checkpoint that covers events 1..``number`` of
    ``game`` and the signatures on them (``projections.attested.attested_history_doc``)."""
    with opened(db) as ledger:
        return Attestations(ledger.store, ledger.clock).history(game, number)


def signed_lines(db: str | None, game: str, numbers: set[int]) -> list[str]:
    """``log``'s lines on who signed which of the events shown."""
    with opened(db) as ledger:
        signed = Attestations(ledger.store, ledger.clock).signatures(game)
        events = {s.number: s.event for s in ledger.store.load(game)} if signed else {}
    return [_("event {number} ({what}) signed by {signer} (key {key})").format(
                number=n, what=_(what(events[n])), signer=s.signer, key=s.key.rsplit("+", 1)[0])
            + ("" if s.valid else _(": THE SIGNATURE DOES NOT VERIFY (see pulka verify)"))
            for n, sigs in sorted(signed.items()) if n in numbers for s in sigs]

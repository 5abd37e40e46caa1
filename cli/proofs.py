"""The commands of verifiable history: ``keygen``, ``checkpoint``, ``cosign``, ``sign``
and ``prove`` (parsing and printing; ``ledger.proofs.checkpoints`` does the work).

Keys are files in the formats of signed notes: ``NAME.key`` holds the private key
(PRIVATE+KEY+NAME+ID+KEY) and must be readable by its owner alone, ``NAME.pub`` the
public key (NAME+ID+KEY) to hand to whoever checks. A key on the command line is a
file; a public key may also be given as its text.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from pathlib import Path

import click

from projections.drawing.qr import qr_svg
from cli.common import CURRENT, GameCommand, UserError, db_option, emit, game_argument, game_name, opened
from ledger.application import Ledger
from ledger.proofs.checkpoints import Attestations, what
from ledger.vocabulary import language
from ledger.vocabulary.notes import Note, NoteError, Signer, Verifier, check_key_name, parse_note
from ledger.vocabulary.refusal import excerpt

_ = language._  # every text a person reads, in the language in effect

F = TypeVar("F", bound=Callable[..., Any])


def key_option(help_text: str, required: bool = False) -> Callable[[F], F]:
    return click.option("--key", "keys", multiple=True, required=required, metavar="FILE", help=help_text)


def read_signer(path: str) -> Signer:
    """A private key file, refused unless only its owner may read it."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise UserError(_("cannot read the private key {path}: {why}").format(path=excerpt(path), why=exc.strerror)) from None
    if not stat.S_ISREG(info.st_mode):
        raise UserError(_("the private key {path} is not a file").format(path=excerpt(path)))
    if info.st_mode & 0o077:
        raise UserError(_("the private key {path} may be read by others (mode {mode}): "
                          "a private key is readable by its owner alone; chmod 600 {path}").format(
            path=path, mode=f"{stat.S_IMODE(info.st_mode):04o}"))
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UserError(_("the private key {path} belongs to another user: a private key is its owner's alone").format(
            path=path))
    try:
        return Signer.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(_("cannot read the private key {path}: {why}").format(path=path, why=exc)) from None
    except NoteError as exc:
        raise UserError(f"{path}: {exc}") from None


def read_verifier(text: str) -> Verifier:
    """A public key: a file holding one (NAME.pub), or its text."""
    source = text
    if os.path.isfile(text):
        try:
            source = Path(text).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(_("cannot read the public key {path}: {why}").format(path=text, why=exc)) from None
    try:
        return Verifier.parse(source)
    except NoteError as exc:
        raise UserError(f"{excerpt(text)}: {exc}") from None


def read_note(path: str) -> Note:
    """A signed checkpoint kept in a file (what `pulka checkpoint` prints)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(_("cannot read the checkpoint {path}: {why}").format(path=excerpt(path), why=exc)) from None
    try:
        return parse_note(text)
    except NoteError as exc:
        raise UserError(f"{path}: {exc}") from None


SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@click.command()
@click.argument("name")
@click.option("--out", metavar="FILE", help="Where the private key goes (default: NAME.key, its public key NAME.pub).")
def keygen(name: str, out: str | None) -> None:
    """Make an Ed25519 key pair for signed notes: the private key (readable by its owner
    alone) and the public key to hand out. NAME names the key: the club's log
    (club.example/pulka) or an arbiter (arbiter:Oleg)."""
    try:
        check_key_name(name)
    except NoteError as exc:
        raise UserError(str(exc)) from None
    private = Path(out or (SAFE.sub("_", name).strip("._") or "key") + ".key")
    public = private.with_suffix(".pub")
    signer = Signer.generate(name)
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
@db_option
def checkpoint(keys: tuple[str, ...], origin: str | None, reason: str, size: int | None, as_json: bool, qr: bool,
               db: str | None) -> None:
    """Make a signed checkpoint of the whole club log (every event stored, in store
    order) and print it to publish; without --key, print a stored one."""
    signers = [read_signer(k) for k in keys]
    with opened(db, write=bool(signers)) as ledger:
        attest = Attestations(ledger.store, ledger.clock)
        if as_json:
            emit([{"size": cp.size, "root": cp.root, "origin": cp.origin, "at": cp.at, "reason": cp.reason,
                   "signed_by": cp.signers(), "note": str(cp.note())} for cp in attest.checkpoints()])
            return
        if signers:
            made = attest.make(signers, origin, reason)
            click.echo(qr_svg(str(made.note())) if qr else str(made.note()), nl=qr)
            click.echo(_("stored: checkpoint #{size} of {origin}, signed by {signers}").format(
                size=made.size, origin=made.origin, signers=", ".join(made.signers())), err=True)
            return
        note = str(attest.stored(size).note())
        click.echo(qr_svg(note) if qr else note, nl=qr)


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
    with opened(db) as ledger:
        attest = Attestations(ledger.store, ledger.clock)
        if consistency:
            old, new = (_checkpoint_note(attest, c) for c in consistency)
            click.echo(json.dumps(attest.consistency(old, new), ensure_ascii=False, indent=1))
            return
        note = read_note(published) if published is not None else None
        bundle = attest.prove(game_name(game or CURRENT, db), note)
        click.echo(json.dumps(bundle, ensure_ascii=False, indent=1))
        covered = len(bundle["events"])
        if covered < bundle["stored"]:
            click.echo(_("the checkpoint covers events 1-{covered} of {stored}: make a new checkpoint "
                         "to prove the rest").format(covered=covered, stored=bundle["stored"]), err=True)


def _checkpoint_note(attest: Attestations, text: str) -> Note:
    """OLD or NEW of --consistency: a file, or the size of a stored checkpoint."""
    if text.isdigit() and not os.path.exists(text):
        return attest.stored(int(text)).note()
    return read_note(text)


def check_history(ledger: Ledger, keys: Sequence[str], published: Sequence[str]) -> list[str]:
    """What ``pulka verify`` adds for the club log: every stored checkpoint (and each
    published one given) against the tree computed anew from every row, forks, every
    signature (by the keys given, when given), the tree's cache. Prints what it finds;
    the names of what failed."""
    trusted = [read_verifier(k) for k in keys]
    notes = [read_note(p) for p in published]
    report, problems = Attestations(ledger.store, ledger.clock).audit(trusted, notes)
    for line in report:
        click.echo(line)
    for problem in problems:
        click.echo(_("club log: {problem}").format(problem=problem))
    return [_("the club log (its checkpoints or signatures)")] if problems else []


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

"""Keys and signed notes kept in files, as both faces read them (``pulka checkpoint``,
``sign``, ``prove``; ``pulka witness``): a private key is refused unless its owner alone
may read it; a public key is a file (NAME.pub) or its text; a checkpoint is a file of
its signed note; a trust file (``ledger.vocabulary.trust``). Each refusal is a
``KeyFileError`` whose message names the file and why.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ledger.vocabulary import language
from ledger.vocabulary.notes import Note, NoteError, Signer, Verifier, parse_note
from ledger.vocabulary.refusal import excerpt
from ledger.vocabulary.trust import Trust, TrustError, parse_trust

_ = language._  # every text a person reads, in the language in effect


class KeyFileError(ValueError):
    """A key, checkpoint or trust file that cannot be used, and why."""


def private_key(path: str) -> Signer:
    """A private key file, refused unless only its owner may read it."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise KeyFileError(_("cannot read the private key {path}: {why}").format(
            path=excerpt(path), why=exc.strerror)) from None
    if not stat.S_ISREG(info.st_mode):
        raise KeyFileError(_("the private key {path} is not a file").format(path=excerpt(path)))
    if info.st_mode & 0o077:
        raise KeyFileError(_("the private key {path} may be read by others (mode {mode}): "
                             "a private key is readable by its owner alone; chmod 600 {path}").format(
            path=path, mode=f"{stat.S_IMODE(info.st_mode):04o}"))
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise KeyFileError(_("the private key {path} belongs to another user: a private key is its owner's "
                             "alone").format(path=path))
    try:
        return Signer.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(_("cannot read the private key {path}: {why}").format(path=path, why=exc)) from None
    except NoteError as exc:
        raise KeyFileError(f"{path}: {exc}") from None


def public_key(text: str) -> Verifier:
    """A public key: a file holding one (NAME.pub), or its text."""
    source = text
    if os.path.isfile(text):
        try:
            source = Path(text).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise KeyFileError(_("cannot read the public key {path}: {why}").format(path=text, why=exc)) from None
    try:
        return Verifier.parse(source)
    except NoteError as exc:
        raise KeyFileError(f"{excerpt(text)}: {exc}") from None


def _text(path: str, message: str) -> str:
    """A file's text; ``message`` (with {path} and {why}) when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(message.format(path=excerpt(path), why=exc)) from None


def note_file(path: str) -> Note:
    """A signed checkpoint kept in a file (what `pulka checkpoint` prints)."""
    text = _text(path, _("cannot read the checkpoint {path}: {why}"))
    try:
        return parse_note(text)
    except NoteError as exc:
        raise KeyFileError(f"{path}: {exc}") from None


def trust_file(path: str) -> Trust:
    """The club's trust file (``pulka trust`` writes it)."""
    text = _text(path, _("cannot read the trust file {path}: {why}"))
    try:
        return parse_trust(text)
    except TrustError as exc:
        raise KeyFileError(f"{path}: {exc}") from None

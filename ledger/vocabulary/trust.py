"""The club's trust file: who may sign its log, in which role, and how many witnesses a
player requires. The club publishes it once (and again when a key changes); a player
pins it, and every check he makes on his own machine follows it (``pulka_verify.py``
reads the same format with nothing of pulka).

It is UTF-8 text, one statement a line, ``#`` beginning a comment::

    origin club.example/pulka
    log club.example/pulka+1a2b3c4d+AQ…             the log's key (signs its checkpoints)
    retired club.example/pulka+99aa00bb+AQ… 5120    an old log key: checkpoints up to 5120 only
    witness w1.example/witness+5e6f7a8b+BA… https://w1.example/   a witness, its address optional
    quorum 1                                        how many witnesses must cosign
    arbiter arbiter:Oleg+0c0d0e0f+AQ…               a key that signs decisions, never the log

The roles are apart: a key has one role; the log's keys and arbiters' keys are signed
notes' keys (type 0x01), a witness's key a cosignature/v1 key (type 0x04); the quorum
is at most the number of witnesses. A witness's address is where the club asks for its
cosignature (C2SP tlog-witness).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ledger.vocabulary import language
from ledger.vocabulary.notes import NoteError, Verifier, check_origin

_ = language._  # every text a person reads, in the language in effect


class TrustError(ValueError):
    """A trust file that cannot be read, naming its line."""


@dataclass(frozen=True)
class TrustedWitness:
    """A witness the club names: its cosignature/v1 key, and where to reach it."""

    key: Verifier
    url: str | None = None


@dataclass(frozen=True)
class Trust:
    """What a trust file says."""

    origin: str
    log: tuple[Verifier, ...]
    witnesses: tuple[TrustedWitness, ...] = ()
    quorum: int = 0
    arbiters: tuple[Verifier, ...] = ()
    retired: tuple[tuple[Verifier, int], ...] = field(default=())

    def text(self) -> str:
        """The file, as ``parse_trust`` reads it."""
        lines = ["# pulka trust file: who signs this club's log (pin it; see pulka_verify.py --trust)",
                 f"origin {self.origin}"]
        lines += [f"log {key.text()}" for key in self.log]
        lines += [f"retired {key.text()} {size}" for key, size in self.retired]
        lines += [f"witness {w.key.text()}" + (f" {w.url}" if w.url else "") for w in self.witnesses]
        lines.append(f"quorum {self.quorum}")
        lines += [f"arbiter {key.text()}" for key in self.arbiters]
        return "\n".join(lines) + "\n"


def _key(text: str, number: int) -> Verifier:
    try:
        return Verifier.parse(text)
    except NoteError as exc:
        raise TrustError(_("line {line}: {why}").format(line=number, why=exc)) from None


def _statements(text: str) -> list[tuple[int, str, list[str]]]:
    """(line number, word, arguments) of every line that says something."""
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            word, *rest = line.split()
            found.append((number, word, rest))
    return found


def parse_trust(text: str) -> Trust:
    """A trust file, or TrustError naming the line and what it may hold."""
    origin: str | None = None
    log: list[Verifier] = []
    retired: list[tuple[Verifier, int]] = []
    witnesses: list[TrustedWitness] = []
    arbiters: list[Verifier] = []
    quorum: int | None = None
    for number, word, rest in _statements(text):
        counts = {"origin": (1,), "log": (1,), "retired": (2,), "witness": (1, 2), "quorum": (1,), "arbiter": (1,)}
        if word not in counts:
            raise TrustError(_("line {line}: {word!r} is not a statement of a trust file: origin, log, retired, "
                               "witness, quorum or arbiter").format(line=number, word=word))
        if len(rest) not in counts[word]:
            raise TrustError(_("line {line}: {word} takes {count} value(s)").format(
                line=number, word=word, count=" or ".join(map(str, counts[word]))))
        if word == "origin":
            if origin is not None:
                raise TrustError(_("line {line}: a trust file names one origin").format(line=number))
            try:
                check_origin(rest[0])
            except NoteError as exc:
                raise TrustError(_("line {line}: {why}").format(line=number, why=exc)) from None
            origin = rest[0]
        elif word == "quorum":
            if not rest[0].isascii() or not rest[0].isdigit():
                raise TrustError(_("line {line}: the quorum is a number of witnesses").format(line=number))
            quorum = int(rest[0])
        elif word == "witness":
            witnesses.append(TrustedWitness(_key(rest[0], number), rest[1] if len(rest) > 1 else None))
        elif word == "retired":
            if not rest[1].isascii() or not rest[1].isdigit():
                raise TrustError(_("line {line}: a retired key is followed by the last tree size it signs").format(
                    line=number))
            retired.append((_key(rest[0], number), int(rest[1])))
        else:
            (log if word == "log" else arbiters).append(_key(rest[0], number))
    return _checked(origin, log, retired, witnesses, quorum, arbiters)


def _checked(origin: str | None, log: list[Verifier], retired: list[tuple[Verifier, int]], witnesses: list[TrustedWitness],
             quorum: int | None, arbiters: list[Verifier]) -> Trust:
    """The roles kept apart, the quorum within reach."""
    if origin is None:
        raise TrustError(_("a trust file names the log's origin (origin NAME)"))
    if not log:
        raise TrustError(_("a trust file names the log's key (log NAME+ID+KEY)"))
    if any(k.witness for k in [*log, *arbiters, *(k for k, _size in retired)]):
        raise TrustError(_("a witness's key (type 0x04) is listed as the log's or an arbiter's: a witness cosigns, "
                           "it never signs as the log"))
    if any(not w.key.witness for w in witnesses):
        raise TrustError(_("a witness's key is a cosignature/v1 key (type 0x04, pulka keygen --witness)"))
    roles: dict[bytes, int] = {}
    for key in [*log, *(k for k, _size in retired), *(w.key for w in witnesses), *arbiters]:
        roles[key.public] = roles.get(key.public, 0) + 1
    if any(count > 1 for count in roles.values()):
        raise TrustError(_("one key is listed twice, or in two roles: the log, its witnesses and the arbiters "
                           "each sign with keys of their own"))
    if quorum is None:
        quorum = 0 if not witnesses else -1
    if quorum < 0:
        raise TrustError(_("a trust file with witnesses says how many must cosign (quorum K)"))
    if quorum > len(witnesses):
        raise TrustError(_("the quorum ({quorum}) is more than the witnesses listed ({count})").format(
            quorum=quorum, count=len(witnesses)))
    return Trust(origin, tuple(log), tuple(witnesses), quorum, tuple(arbiters), tuple(retired))

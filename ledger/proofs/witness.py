"""A witness of clubs' logs (C2SP tlog-witness, cosignature/v1), and the protocol's
requests as a log sends them.

A witness is its own process with its own key and its own state: for each log it
follows (an origin and the log's keys), the last checkpoint it cosigned. It holds no
club's database and reads none: all it is given is what ``add-checkpoint`` carries, a
checkpoint signed by the log and a consistency proof from the size it cosigned last.
It cosigns only a checkpoint consistent with that one (RFC 9162 2.1.4.2), so that no
log can show it two histories; a refused checkpoint leaves its state as it was.

``Witness.add_checkpoint`` answers the protocol's request body with the status the
spec gives each case (400 malformed, 403 no good signature of the log, 404 an origin
it does not follow, 409 another old size — with the size it holds — 422 a proof that
does not verify, 200 with its cosignature line), the check and the update of its state
atomic (a lock within the process, an exclusive lock on the state file across
processes) and the state written to disk before the answer.

``add_checkpoint_body`` and ``submit`` are the log's side: the request body, and one
request over HTTP (``urllib``).
"""

from __future__ import annotations

import base64
import binascii
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ledger.vocabulary.merkle import EMPTY_ROOT, HASH_SIZE, verify_consistency
from ledger.vocabulary.notes import (
    Checkpoint,
    Note,
    NoteError,
    Signer,
    Verifier,
    open_note,
    parse_checkpoint,
    parse_note,
    signature_of,
)

log = logging.getLogger("pulka.witness")

MAX_PROOF = 63  # consistency proof lines a request may carry
MAX_BODY = 64 * 1024  # bytes of a request: a checkpoint, 63 hashes and some signatures
SIZE_TYPE = "text/x.tlog.size"


class Answer(NamedTuple):
    """The witness's answer: an HTTP status, its body, and the body's type."""

    status: int
    body: str
    content_type: str = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class FollowedLog:
    """A log the witness follows: its origin and the keys that sign its checkpoints."""

    origin: str
    keys: tuple[Verifier, ...]


class Request(NamedTuple):
    """An ``add-checkpoint`` request: the old size, the consistency proof, the note."""

    old: int
    proof: list[bytes]
    note: Note


def origin_hash(origin: str) -> str:
    """Where a witness serves a log's checkpoint: SHA-256 of the origin, lowercase hex."""
    return hashlib.sha256(origin.encode()).hexdigest()


def parse_request(body: bytes) -> Request:
    """An ``add-checkpoint`` body, or ValueError (400)."""
    if len(body) > MAX_BODY:
        raise ValueError(f"a request is {MAX_BODY} bytes at most")
    text = body.decode("utf-8")
    head, sep, note_text = text.partition("\n\n")
    if not sep:
        raise ValueError("no empty line between the old size and the checkpoint")
    lines = head.split("\n")
    old_line = lines[0]
    if not old_line.startswith("old ") or not _decimal(old_line[4:]):
        raise ValueError("the first line is 'old SIZE'")
    if len(lines) - 1 > MAX_PROOF:
        raise ValueError(f"at most {MAX_PROOF} consistency proof lines")
    proof = []
    for line in lines[1:]:
        try:
            raw = base64.b64decode(line.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError, ValueError):
            raise ValueError("a consistency proof line is one hash in base64") from None
        if len(raw) != HASH_SIZE:
            raise ValueError("a consistency proof line is one hash in base64")
        proof.append(raw)
    try:
        note = parse_note(note_text)
    except NoteError as exc:
        raise ValueError(str(exc)) from None
    return Request(int(old_line[4:]), proof, note)


def _decimal(text: str) -> bool:
    return text.isascii() and text.isdigit() and (text == "0" or not text.startswith("0"))


def add_checkpoint_body(old: int, proof: Sequence[bytes], note: Note) -> bytes:
    """The body of an ``add-checkpoint`` request."""
    lines = [f"old {old}", *(base64.b64encode(h).decode() for h in proof)]
    return ("\n".join(lines) + "\n\n" + str(note)).encode()


class WitnessState:
    """The last checkpoint cosigned for each origin, in one JSON file written whole
    (a temporary file, flushed to disk, renamed over it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.with_name(path.name + ".lock")

    def read(self) -> dict[str, dict[str, Any]]:
        try:
            found: dict[str, dict[str, Any]] = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return found

    def write(self, state: dict[str, dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".witness-", dir=self.path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f, ensure_ascii=False, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(name, self.path)
        dir_fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Held across processes: one witness state, one writer at a time."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


class Witness:
    """A witness: its key, the logs it follows, its state."""

    def __init__(self, signer: Signer, logs: Sequence[FollowedLog], state: Path,
                 clock: Callable[[], float] = time.time) -> None:
        if not signer.witness:
            raise ValueError("a witness signs with a cosignature/v1 key (pulka keygen --witness)")
        self.signer = signer
        self.logs = {followed.origin: followed for followed in logs}
        self.state = WitnessState(state)
        self.clock = clock
        self._lock = threading.Lock()

    def add_checkpoint(self, body: bytes) -> Answer:
        """C2SP tlog-witness ``add-checkpoint``."""
        try:
            request = parse_request(body)
            checkpoint = parse_checkpoint(request.note.text)
        except (ValueError, UnicodeDecodeError, NoteError) as exc:
            return Answer(400, f"malformed request: {exc}\n")
        followed = self.logs.get(checkpoint.origin)
        if followed is None:
            return Answer(404, f"unknown log: {checkpoint.origin}\n")
        try:
            open_note(request.note, followed.keys)
        except NoteError as exc:
            return Answer(403, f"the checkpoint is not signed by the log: {exc}\n")
        if request.old > checkpoint.size:
            return Answer(400, "the old size is larger than the checkpoint's\n")
        with self._lock, self.state.locked():
            return self._decide(request, checkpoint)

    def _decide(self, request: Request, checkpoint: Checkpoint) -> Answer:
        state = self.state.read()
        last = state.get(checkpoint.origin)
        size = int(last["size"]) if last else 0
        if request.old != size:
            return Answer(409, f"{size}\n", SIZE_TYPE)
        problem = _inconsistency(request, checkpoint, base64.b64decode(last["root"]) if last else EMPTY_ROOT)
        if problem:
            log.warning("refused a checkpoint of %s inconsistent with #%d (%s):\n%s", checkpoint.origin, size,
                        problem, request.note)
            return Answer(422, problem + "\n")
        line = signature_of(self.signer, request.note.text, int(self.clock()))
        kept = Note(request.note.text, (*request.note.signatures, line))
        state[checkpoint.origin] = {"size": checkpoint.size, "root": checkpoint.root_b64, "checkpoint": str(kept)}
        self.state.write(state)
        return Answer(200, line.line())

    def checkpoint(self, hashed: str) -> Answer:
        """The last checkpoint cosigned for the log whose origin hashes to ``hashed``."""
        for origin, entry in self.state.read().items():
            if origin_hash(origin) == hashed:
                return Answer(200, str(entry["checkpoint"]))
        return Answer(404, "no checkpoint cosigned for that log\n")


def _inconsistency(request: Request, checkpoint: Checkpoint, old_root: bytes) -> str:
    """Why the checkpoint is not consistent with the last one cosigned ("" when it is)."""
    if checkpoint.size == 0 and checkpoint.root != EMPTY_ROOT:
        return "a checkpoint of size 0 has the empty tree's root"
    if request.old == 0:
        return "a proof from size 0 is empty" if request.proof else ""
    if not verify_consistency(request.old, checkpoint.size, old_root, checkpoint.root, request.proof):
        return (f"checkpoint #{checkpoint.size} is not consistent with #{request.old}, the last cosigned "
                "(the consistency proof does not verify)")
    return ""


def followed_log(origin: str, keys: Sequence[Verifier]) -> FollowedLog:
    return FollowedLog(origin, tuple(keys))


def submit(url: str, body: bytes, timeout: float = 10.0) -> Answer:
    """One ``add-checkpoint`` request to the witness at ``url`` (its submission prefix)."""
    request = urllib.request.Request(url.rstrip("/") + "/add-checkpoint", data=body, method="POST",
                                     headers={"content-type": "text/plain; charset=utf-8"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Answer(response.status, response.read().decode("utf-8", "replace"),
                          response.headers.get("content-type", ""))
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, exc.read().decode("utf-8", "replace"), exc.headers.get("content-type", ""))

"""A monitor of a club's log: it follows the log from what the club's service publishes
alone (``pulka serve``: the checkpoint, and each tile's events), never its database.

Each new checkpoint is checked: signed by the log's key and cosigned by the quorum of
witnesses as the trust file the monitor pins says (``ledger.vocabulary.trust``), and
consistent with the last checkpoint it accepted — the monitor recomputes the tree
itself, from the events it fetched: it keeps the tree's tiles, computed from the
leaves it hashed itself, grows them with each new event's leaf, and the root at the
new size must be the checkpoint's. So the events before are the ones it saw, and the
new ones are those the club signed; an older checkpoint must be the root its tiles
give at that size. Every event's chain
digest is recomputed from its content, the stream's digest before it and its number;
each game a new event touched is replayed from its first event as ``pulka import``
would judge it, and its sheet kept.

Its state is one SQLite file of its own: the last checkpoint accepted, the tree's
tiles, each stream's head, every event fetched, each game's recomputed sheet. A
checkpoint is taken in whole or not at all (one transaction): a fork, a bad signature
or an event whose digest does not hold leaves the state as it was, and is reported.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from ledger.judge.kinds import GAME_STARTS, judge_log
from ledger.vocabulary import language
from ledger.vocabulary.chain import GENESIS, chain_encoded
from ledger.vocabulary.events import AnyEvent, EventFormatError, decode_event
from ledger.vocabulary.merkle import TILE_WIDTH, TileKey, TileNodes, extend_tiles, leaf_hash, root, tile_path
from ledger.vocabulary.notes import Checkpoint, Note, NoteError, open_note, parse_checkpoint, parse_note
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.trust import Trust
from projections.kinds import kind_of
from projections.points import Point

_ = language._  # every text a person reads, in the language in effect


class MonitorError(Exception):
    """What stops a monitor from taking a checkpoint in: a fork, a bad signature, an
    event that does not hold, a service that cannot be read."""


class Row(msgspec.Struct):
    """An event as the store holds it: the event's exact JSON, its digest, its link."""

    event: msgspec.Raw
    digest: str
    link: str | None = None


class EventsLine(msgspec.Struct):
    """A line of an events bundle (``/log/events/N``): the stream, the number, the row."""

    stream: str
    number: int
    row: Row


_decode_line = msgspec.json.Decoder(EventsLine).decode


class LogClient:
    """GET requests to a club's service over one kept-alive connection."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise MonitorError(_("not an http(s) address: {url}").format(url=url))
        self.https = parts.scheme == "https"
        self.host, self.port = parts.hostname, parts.port
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self.connection: http.client.HTTPConnection | None = None
        self.fetched = 0  # bytes read

    def get(self, path: str) -> bytes | None:
        """The body at ``path`` (None for a 404), or MonitorError."""
        for attempt in (1, 2):  # a kept connection the server closed is opened again once
            try:
                connection = self._connection()
                connection.request("GET", f"{self.prefix}/{path}", headers={"accept-encoding": "identity"})
                response = connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if attempt == 2:
                    raise MonitorError(_("cannot read {path} from the club's service: {why}").format(
                        path=path, why=exc)) from None
                continue
            self.fetched += len(body)
            if response.status == 404:
                return None
            if response.status != 200:
                raise MonitorError(_("the club's service answered {status} for {path}").format(
                    status=response.status, path=path))
            return body
        return None

    def _connection(self) -> http.client.HTTPConnection:
        if self.connection is None:
            kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            self.connection = kind(self.host, self.port, timeout=self.timeout)
        return self.connection

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


SCHEMA = """
CREATE TABLE IF NOT EXISTS accepted (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, note TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tiles (level INTEGER NOT NULL, idx INTEGER NOT NULL, hashes BLOB NOT NULL,
                                  PRIMARY KEY (level, idx));
CREATE TABLE IF NOT EXISTS heads (stream TEXT PRIMARY KEY, number INTEGER NOT NULL, digest TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (stream TEXT NOT NULL, number INTEGER NOT NULL, event BLOB NOT NULL,
                                   PRIMARY KEY (stream, number));
CREATE TABLE IF NOT EXISTS sheets (stream TEXT PRIMARY KEY, events INTEGER NOT NULL, sheet TEXT,
                                   problem TEXT);
"""


@dataclass
class Progress:
    """What one checkpoint taken in brought."""

    size: int
    previous: int
    events: int = 0
    games: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    replayed_in: float = 0.0  # seconds the games took to replay


class Monitor:
    """A monitor of one club's log: its trust file, its service, its state."""

    def __init__(self, trust: Trust, service: LogClient, state: Path) -> None:
        self.trust = trust
        self.service = service
        state.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(state / "monitor.db", isolation_level=None)
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()
        self.service.close()

    def last(self) -> tuple[int, str] | None:
        """(size, signed note) of the last checkpoint accepted."""
        found = self.db.execute("SELECT size, note FROM accepted WHERE origin = ?", (self.trust.origin,)).fetchone()
        return None if found is None else (int(found[0]), str(found[1]))

    def tile(self, level: int, index: int) -> bytes:
        found = self.db.execute("SELECT hashes FROM tiles WHERE level = ? AND idx = ?", (level, index)).fetchone()
        return b"" if found is None else bytes(found[0])

    # -- one step -------------------------------------------------------------------------

    def step(self, tick: Callable[[int], None] = lambda done: None) -> Progress | None:
        """Fetch the checkpoint; when it is new, take it in (or MonitorError, the state
        as it was). None when it is the one accepted last."""
        body = self.service.get("log/checkpoint")
        if body is None:
            raise MonitorError(_("the club's service publishes no checkpoint yet (/log/checkpoint)"))
        note, checkpoint = self.checked(body)
        last = self.last()
        if last is not None:
            size, kept = last
            if checkpoint.size < size:
                self._older(checkpoint, size)
                return None
            if checkpoint.size == size:
                if parse_checkpoint(parse_note(kept).text).root != checkpoint.root:
                    raise MonitorError(_("fork: the log shows another root for the same {size} events than the "
                                         "checkpoint accepted before").format(size=size))
                return None
        return self._take_in(note, checkpoint, tick)

    def checked(self, body: bytes) -> tuple[Note, Checkpoint]:
        """The checkpoint, signed by the log's key and cosigned by the quorum."""
        try:
            note = parse_note(body.decode("utf-8"))
            checkpoint = parse_checkpoint(note.text)
            if checkpoint.origin != self.trust.origin:
                raise NoteError(_("it is of the log {origin}; the trust file pins {pinned}").format(
                    origin=repr(checkpoint.origin), pinned=repr(self.trust.origin)))
            opened = open_note(note, [*self.trust.log, *(w.key for w in self.trust.witnesses)])
        except (NoteError, UnicodeDecodeError) as exc:
            raise MonitorError(_("the published checkpoint does not check: {why}").format(why=exc)) from None
        verified = {(s.name, s.id) for s in opened.verified}
        if not any((k.name, k.id) in verified for k in self.trust.log):
            raise MonitorError(_("the published checkpoint is not signed by the log's key of the trust file"))
        cosigned = sum((w.key.name, w.key.id) in verified for w in self.trust.witnesses)
        if cosigned < self.trust.quorum:
            raise MonitorError(_("{count} witness(es) cosigned the published checkpoint, the trust file requires "
                                 "{quorum}").format(count=cosigned, quorum=self.trust.quorum))
        return note, checkpoint

    def _older(self, checkpoint: Checkpoint, size: int) -> None:
        """A checkpoint smaller than the one accepted: its root must be what the leaves
        taken in give at its size (else a fork)."""
        if root(TileNodes(self.tile), checkpoint.size) != checkpoint.root:
            raise MonitorError(_("fork: the published checkpoint #{small} is not the start of #{size}, accepted "
                                 "before").format(small=checkpoint.size, size=size))

    def _take_in(self, note: Note, checkpoint: Checkpoint, tick: Callable[[int], None]) -> Progress:
        last = self.last()
        size = last[0] if last else 0
        done = Progress(checkpoint.size, size)
        heads: dict[str, tuple[int, str]] = {}  # the heads of the streams touched, as they grow
        overlay: dict[TileKey, bytes] = {}

        def read(level: int, index: int) -> bytes:
            return overlay[(level, index)] if (level, index) in overlay else self.tile(level, index)

        self.db.execute("BEGIN")
        try:
            for lines in self._bundles(size, checkpoint.size):
                rows = [self._chained(line, heads) for line in lines]
                self.db.executemany("INSERT INTO events (stream, number, event) VALUES (?, ?, ?)", rows)
                overlay.update(extend_tiles(read, size, [leaf_hash(line.row.digest.encode("ascii", "replace"))
                                                         for line in lines]))
                size += len(lines)
                done.events = size - done.previous
                tick(done.events)
            if root(TileNodes(read), checkpoint.size) != checkpoint.root:
                raise MonitorError(_("fork: the events the service publishes up to #{size} do not give the root of "
                                     "its checkpoint, which the log signed; the log is not the one accepted before "
                                     "(#{previous})").format(size=checkpoint.size, previous=done.previous))
            self.db.executemany("INSERT INTO heads (stream, number, digest) VALUES (?, ?, ?) ON CONFLICT (stream) DO "
                                "UPDATE SET number = excluded.number, digest = excluded.digest",
                                [(stream, n, d) for stream, (n, d) in heads.items()])
            started = time.perf_counter()
            done.games = self._replay(set(heads), done)
            done.replayed_in = time.perf_counter() - started
            self._accept(note, checkpoint, overlay)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return done

    def _accept(self, note: Note, checkpoint: Checkpoint, overlay: dict[TileKey, bytes]) -> None:
        self.db.executemany("INSERT INTO tiles (level, idx, hashes) VALUES (?, ?, ?) ON CONFLICT (level, idx) DO UPDATE "
                            "SET hashes = excluded.hashes", [(t, k, h) for (t, k), h in overlay.items()])
        self.db.execute("INSERT INTO accepted (origin, size, note) VALUES (?, ?, ?) ON CONFLICT (origin) "
                        "DO UPDATE SET size = excluded.size, note = excluded.note",
                        (checkpoint.origin, checkpoint.size, str(note)))

    def _bundles(self, start: int, end: int) -> Iterator[list[EventsLine]]:
        """The events of leaves [start, end), tile by tile."""
        index = start // TILE_WIDTH
        while index * TILE_WIDTH < end:
            width = min(TILE_WIDTH, end - index * TILE_WIDTH)
            path = tile_path(0, index, width).replace("tile/0/", "log/events/", 1)
            body = self.service.get(path)
            if body is None and width < TILE_WIDTH:  # the partial bundle is gone once the full one is made
                body = self.service.get(tile_path(0, index).replace("tile/0/", "log/events/", 1))
            if body is None:
                raise MonitorError(_("the club's service publishes no events for {path}").format(path=path))
            lines = self._lines(body, index)
            skip = start - index * TILE_WIDTH if index * TILE_WIDTH < start else 0
            yield lines[skip:width]
            index += 1

    @staticmethod
    def _lines(body: bytes, index: int) -> list[EventsLine]:
        lines = []
        for number, raw in enumerate(body.splitlines(), start=1):
            try:
                lines.append(_decode_line(raw))
            except msgspec.DecodeError as exc:
                raise MonitorError(_("the events of tile {index}, line {line}, cannot be read: {why}").format(
                    index=index, line=number, why=exc)) from None
        return lines

    def _chained(self, line: EventsLine, heads: dict[str, tuple[int, str]]) -> tuple[str, int, bytes]:
        """The event's digest recomputed from its content and the stream's head; the row
        to keep."""
        head = heads.get(line.stream)
        if head is None:
            found = self.db.execute("SELECT number, digest FROM heads WHERE stream = ?", (line.stream,)).fetchone()
            head = (int(found[0]), str(found[1])) if found else (0, GENESIS)
        number, previous = head
        if line.number != number + 1:
            raise MonitorError(_("event {number} of {stream} follows event {last}: the stream's events are not "
                                 "in order").format(number=line.number, stream=repr(line.stream), last=number))
        event = bytes(line.row.event)
        digest = chain_encoded(line.stream, [event], previous, line.number)[0]
        if digest != line.row.digest:
            raise MonitorError(_("event {number} of {stream}: its content and the event before it do not give its "
                                 "digest (the event was changed)").format(number=line.number, stream=repr(line.stream)))
        heads[line.stream] = (line.number, digest)
        return line.stream, line.number, event

    def _replay(self, touched: set[str], done: Progress) -> list[str]:
        """Each game touched replayed from its first event, judged as import would; its
        sheet kept (a game the judge refuses is a problem, kept too)."""
        games = []
        for stream in sorted(touched):
            events = [decode_event(bytes(e)) for (e,) in self.db.execute(
                "SELECT event FROM events WHERE stream = ? ORDER BY number", (stream,))]
            if not events or not isinstance(events[0], GAME_STARTS):
                continue
            sheet, problem = _sheet(events)
            if problem:
                done.problems.append(_("{game}: {problem}").format(game=stream, problem=problem))
            self.db.execute("INSERT INTO sheets (stream, events, sheet, problem) VALUES (?, ?, ?, ?) ON CONFLICT "
                            "(stream) DO UPDATE SET events = excluded.events, sheet = excluded.sheet, problem = "
                            "excluded.problem", (stream, len(events), sheet, problem))
            games.append(stream)
        return games

    def sheet(self, game: str) -> tuple[int, str | None, str | None] | None:
        """(events, the recomputed sheet as JSON, the problem) of a game followed."""
        found = self.db.execute("SELECT events, sheet, problem FROM sheets WHERE stream = ?", (game,)).fetchone()
        return None if found is None else (int(found[0]), found[1], found[2])


def _sheet(events: list[AnyEvent]) -> tuple[str | None, str | None]:
    """A game's sheet, judged and replayed as ``pulka import`` would; or why not."""
    try:
        judged = judge_log(list(enumerate(events, start=1)))
        view = kind_of(judged[0]).view(judged, Point(), None)
        return json.dumps(view.sheet_doc(), ensure_ascii=False, sort_keys=True, default=str), None
    except (Refused, EventFormatError, ValueError) as exc:
        return None, str(exc)


def origin_file(origin: str) -> str:
    """A name for a state folder of one log."""
    return hashlib.sha256(origin.encode()).hexdigest()[:16]


__all__ = ["Monitor", "MonitorError", "Progress", "Service"]

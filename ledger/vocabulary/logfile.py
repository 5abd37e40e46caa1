"""The pulka log as a file: JSON Lines in, JSON Lines out, and the digests of an export.

``read_batches`` reads a log (a hand-written one, or an export with a ``digest`` on each
line), a batch of lines at a time, into events with their line numbers; a line that is
not an event is refused with its number. ``export_problem`` checks the digests of an export as ``verify`` checks the
store; ``check_export`` refuses an export whose digests do not chain, or that carries
digests on some lines only. ``export_line`` writes one line of ``pulka export``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import BinaryIO, NamedTuple

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.chain import GENESIS, ChainProblem, chain_step, verify_chain
from ledger.vocabulary.events import (
    TOO_DEEP,
    AnyEvent,
    EventFormatError,
    StreamStart,
    decode_event,
    decode_lines,
    encode_event,
    event_from_dict,
    event_to_dict,
)
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.wording import plain

_ = language._  # every text a person reads, in the language in effect


class LogLine(NamedTuple):
    """One event of a log file: its line number, the event, and the digest an export gave it."""

    line: int
    event: AnyEvent
    digest: str | None


def _not_utf8(exc: UnicodeDecodeError, first_line: int = 1) -> Refused:
    """The refusal of bytes that are not UTF-8, naming the line and column of the first
    byte that is not (the bytes decoded begin at line ``first_line``)."""
    data = exc.object
    line = data.count(b"\n", 0, exc.start) + first_line
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    refused = Refused("event-log", _("the file is not UTF-8 text: byte {byte} at column {column} cannot begin or "
                                     "continue a character").format(byte=f"0x{data[exc.start]:02x}", column=column),
                      _("a log written in UTF-8"))
    refused.line = line
    return refused


def _parsed(text: str, first_line: int = 1) -> list[LogLine]:
    """The events of some whole lines of a log, the first of them numbered ``first_line``;
    blank lines are skipped.

    Lines end at a line feed (a carriage return before it is dropped), as JSON Lines
    says, and nowhere else: a separator that JSON allows inside a string (U+2028) does
    not end one."""
    events = _one_event_a_line(text, first_line) if '"digest"' not in text else None
    if events is None:
        events = _line_by_line(text, first_line)
    return events


# How many bytes of a log file ``read_batches`` decodes at a time (whole lines).
BATCH_BYTES = 4 << 20


def read_batches(stream: BinaryIO, size: int = BATCH_BYTES) -> Iterator[list[LogLine]]:
    """The events of a JSON Lines log read from ``stream`` a batch of whole lines at a
    time (about ``size`` bytes), with their line numbers: the same events at the same
    line numbers, and the same refusals of the same lines, wherever the batches are cut
    (UTF-8 checked batch by batch, a byte order mark allowed at the start), and a log
    without events refused once it has been read to its end. A long log is never held
    whole: neither its bytes, nor its text, nor all its lines at once."""
    line = 1
    rest = b""
    first = True
    found = False
    while True:
        chunk = stream.read(size)
        data = rest + chunk
        if chunk:
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            data, rest = data[:cut], data[cut:]
        else:
            rest = b""
        if data:
            try:
                text = data.decode("utf-8-sig" if first else "utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(exc, line) from None
            first = False
            batch = _parsed(text, line)
            line += data.count(b"\n")
            if batch:
                found = True
                yield batch
        if not chunk:
            break
    if not found:
        raise Refused("event-log", _("the log is empty"), _("a game_started line, then the game's events"))


def _one_event_a_line(text: str, first_line: int = 1) -> list[LogLine] | None:
    """The events of a log written one event to a line, as an export is (each line break
    right after a closing brace and, but for the last one, right before an opening
    brace), decoded in one call; None for any other log, which is read line by line
    (that names the line that fails).

    In such a log every line break falls between two JSON values: no string holds one,
    and inside an object or a list a brace cannot follow a brace without a comma. So each
    line holds at least one value, and as many values as lines means one on each."""
    breaks = text.count("\n")
    last = 1 if text.endswith("\n") else 0
    if text.count("}\n{") != breaks - last or (last and not text.endswith("}\n")):
        return None
    try:
        decoded = decode_lines(text)
    except EventFormatError:
        return None
    if len(decoded) != breaks + 1 - last:
        return None
    new = tuple.__new__  # LogLine(...) without its Python-level __new__
    return [new(LogLine, (number, event, None)) for number, event in enumerate(decoded, start=first_line)]


def _line_by_line(text: str, first_line: int = 1) -> list[LogLine]:
    events = []
    for number, line in enumerate(text.split("\n"), start=first_line):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        digest = None
        try:
            if '"digest"' in line:
                data = msgspec.json.decode(line)
                if not isinstance(data, dict):
                    raise EventFormatError(_("a line must be a JSON object"))
                digest = data.pop("digest", None)
                if digest is not None and not isinstance(digest, str):
                    raise EventFormatError(_("`digest` must be text in quotes, as pulka export writes it"))
                event = event_from_dict(data)
            else:
                event = decode_event(line)
        except (EventFormatError, msgspec.DecodeError) as exc:
            refused = Refused("event-log", plain(str(exc)))
            refused.line = number
            raise refused from None
        except RecursionError:
            refused = Refused("event-log", _(TOO_DEEP))
            refused.line = number
            raise refused from None
        events.append(LogLine(number, event, digest))
    return events


def split_streams(lines: Sequence[LogLine]) -> list[list[LogLine]]:
    """A log of several streams (``pulka tournament export``), cut where each stream's
    first event begins it; a log of one game is one stream."""
    streams: list[list[LogLine]] = []
    for line in lines:
        if isinstance(line.event, StreamStart) or not streams:
            streams.append([])
        streams[-1].append(line)
    return streams


def game_of(lines: Sequence[LogLine]) -> str:
    """The game a log is of: the name in its first line, "?" when that is not a game_started."""
    first = lines[0].event
    return first.game if isinstance(first, StreamStart) else "?"


def export_problem(lines: Sequence[LogLine]) -> ChainProblem | None:
    """Check the digests of an export as the store's chain is checked; None when intact.
    The problem's number is the event's number in the log (1 for the first event); a
    line without its digest is a problem (an export carries one on every line)."""
    for number, line in enumerate(lines, start=1):
        if line.digest is None:
            return ChainProblem(number, _("event {event} (line {line}) has no digest, which every line of an export "
                                          "carries (removed?)").format(event=number, line=line.line))
    return verify_chain(game_of(lines), [(i, line.event, line.digest or "") for i, line in enumerate(lines, start=1)])


def check_export(lines: Sequence[LogLine]) -> None:
    """A log with a digest on any line is an export: every line must carry its digest
    and they must form an unbroken chain. An export edited by hand, or with a digest
    removed, is refused, naming the first line that does not check out; a log without
    any digest (written by hand) is left to the judge."""
    if not lines or all(line.digest is None for line in lines):
        return
    problem = export_problem(lines)
    if problem is not None:
        refused = Refused("event-log", _("the export's digest chain breaks here: {problem}").format(problem=problem),
                          _("an export as `pulka export` wrote it, or the log without any digest field"))
        refused.line = lines[problem.number - 1].line
        raise refused


class NotAsExported(Exception):
    """A log whose digests ``checked_export`` found missing or broken: ``check_export``
    and ``export_problem`` of the whole log say where and how (the error's way, which
    reads the log again)."""


def checked_export(lines: Iterable[LogLine], *, required: bool = False) -> Iterator[LogLine]:
    """The lines of a log, one at a time, each checked as ``check_export`` checks the
    whole log (``required``: as ``export_problem`` does, a digest on every line): a line
    without its digest where the first line has one (or any, when required), a digest
    where the first has none, a digest that does not chain, raise ``NotAsExported``."""
    step: Callable[[str, int, bytes], str] | None = None
    previous = GENESIS
    with_digests = required
    for number, line in enumerate(lines, start=1):
        if number == 1:
            with_digests = required or line.digest is not None
            first = line.event
            step = chain_step(first.game if isinstance(first, StreamStart) else "?")
        if (line.digest is not None) != with_digests:
            raise NotAsExported(line.line)
        if with_digests:
            assert step is not None
            digest = step(previous, number, encode_event(line.event))
            if digest != line.digest:
                raise NotAsExported(line.line)
            previous = digest
        yield line


def export_line(event: AnyEvent, digest: str) -> str:
    """One line of ``pulka export``: the event as stored, and its chain digest."""
    data = event_to_dict(event)
    data["digest"] = digest
    return msgspec.json.encode(data).decode()

"""Log files as the command line reads them (``pulka import``, ``--file``, ``verify
--against``): their lines a batch at a time, never their bytes whole; one pass that
counts their lines and the streams in them before they are decoded; and the memory
judging them would need, refused before it is missed.

A file that cannot be read, is not UTF-8 or holds a line that is not an event is refused
naming the line (``pulka: <reason>``, exit status 1).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cli.common import UserError, refusals
from ledger.vocabulary import language
from ledger.vocabulary.logfile import LogLine, read_batches

_ = language._  # every text a person reads, in the language in effect


def read_log(path: str) -> list[LogLine]:
    """The lines of a log file (``import``, ``--file``, ``verify --against``): a file
    that cannot be read, is not UTF-8 or holds a line that is not an event is refused,
    naming the line. Read a batch of lines at a time (``logfile.read_batches``): its
    bytes and text are never held whole, only its events."""
    with log_lines(path) as lines:
        return list(lines)


@contextmanager
def log_lines(path: str) -> Iterator[Iterator[LogLine]]:
    """The lines of a log file one at a time, decoded a batch at a time (refused as
    ``read_log`` refuses them, when they come)."""
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise UserError(_("cannot read {path}: {reason}").format(path=path, reason=exc.strerror or exc)) from None
    with f, refusals():
        yield (line for batch in read_batches(f) for line in batch)


def read_stdin_log() -> list[LogLine]:
    """The lines of a log given on standard input (``pulka import -``)."""
    with refusals():
        return [line for batch in read_batches(sys.stdin.buffer) for line in batch]


# The first line of every kind of stream (a tournament's file holds several).
STREAM_START = re.compile(rb'"type"\s*:\s*"(?:game|rubber|tournament|club)_started"')
# What judging a stored or imported game holds per event, from ``make bench-memory``
# (the events, the judge's fold, the events as stored): 1,873,783 events took about
# 1.9 GB to import. A log that would need more than the machine has is refused.
BYTES_PER_EVENT = 1100


@dataclass(frozen=True)
class LogShape:
    """What one pass over a log file's bytes tells before it is decoded: its lines and
    the first lines of streams in it (a one-stream log can be read a line at a time)."""

    lines: int
    starts: int


def log_shape(path: str) -> LogShape:
    """Count a log file's lines and stream starts, a few megabytes at a time, and refuse
    one larger than this machine can judge (``enough_memory``)."""
    lines = starts = 0
    tail = b""
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 22):
                data = tail + chunk
                cut = data.rfind(b"\n") + 1
                whole, tail = data[:cut], data[cut:]
                lines += whole.count(b"\n")
                starts += len(STREAM_START.findall(whole))
    except OSError as exc:
        raise UserError(_("cannot read {path}: {reason}").format(path=path, reason=exc.strerror or exc)) from None
    if tail.strip():
        lines += 1
        starts += len(STREAM_START.findall(tail))
    enough_memory(lines, path)
    return LogShape(lines, starts)


def enough_memory(events: int, what: str) -> None:
    """Refuse, with a message, a log or game of ``events`` events that judging would need
    more memory for than this process may have (the memory the system says is available,
    and this process's limits): better refused than killed half-way."""
    needed = events * BYTES_PER_EVENT
    available = memory_available()
    if available is not None and needed > available:
        raise UserError(_("{what} holds {events} events: judging them needs about {needed} GB of memory, and this "
                          "machine has {available} GB for it; run this on a machine with more memory").format(
            what=what, events=f"{events:,}", needed=f"{needed / 2**30:.1f}", available=f"{available / 2**30:.1f}"))


def memory_available() -> int | None:
    """The memory this process may still take, in bytes: the least of what the system
    says is available, its cgroup's limit, and this process's address-space and data
    limits (None when none of them can be read)."""
    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for row in f:
                if row.startswith("MemAvailable:"):
                    found.append(int(row.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit.isdigit() and used.isdigit():
            found.append(int(limit) - int(used))
    except OSError:
        pass
    try:
        import resource

        # statm's fields 1 and 6: all the process maps, and its data (what each limit counts).
        for kind, field in ((resource.RLIMIT_AS, 0), (resource.RLIMIT_DATA, 5)):
            soft, _ = resource.getrlimit(kind)
            if soft != resource.RLIM_INFINITY:
                found.append(soft - _mapped(field))
    except (ImportError, ValueError, OSError):
        pass
    return min(found) if found else None


def _mapped(field: int) -> int:
    """A field of /proc/self/statm in bytes: what this process has mapped now."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0

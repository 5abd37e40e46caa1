"""What reaches a terminal: text made safe to print, and the internal-error report.

``clean`` is the one output-sanitising function of the command line. Every command's
standard output and standard error pass through it (``cleaned_streams``, installed once
by the ``pulka`` group), so that no stored text (a name, a reason, a time) can carry a
terminal's escape sequences, bidirectional overrides or invisible characters to the
screen, whichever command prints it. A character that could act on a terminal or hide
itself is written as its JSON escape (``\\u001b``): printed text shows it plainly, and a
JSON document stays a JSON document with the same value, since such a character can
only stand inside one of its strings. Line breaks and tabs pass; nothing else changes.

``internal_error`` writes a failure the ledger did not foresee (a bug, never the
user's mistake) to a file in the temporary directory and says where it is: exit
status 3, never a bare traceback.

This module imports nothing of the ledger, so that ``pulka --help`` stays quick.
"""

from __future__ import annotations

import io
import os
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

# Unicode categories of the characters that are escaped: controls (C0, DEL, C1:
# ESC begins every terminal sequence, and C1's CSI is one by itself), format
# characters (bidirectional overrides and isolates, zero-width spaces and joiners),
# lone surrogates (which cannot even be encoded), and the line and paragraph separators.
UNSAFE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
KEPT = frozenset("\n\t")

INTERNAL_ERROR = 3  # the exit status of a failure that is not the input's


def escaped(char: str) -> str:
    """A character as JSON escapes it (a pair of surrogates above U+FFFF)."""
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def clean(text: str) -> str:
    """``text`` with every character that could act on a terminal, or hide, escaped."""
    if all(line.isprintable() for line in text.replace("\t", "").split("\n")):
        return text  # the common case, checked at C speed
    return "".join(
        escaped(c) if c not in KEPT and not c.isprintable() and unicodedata.category(c) in UNSAFE else c
        for c in text
    )


class Cleaned(io.TextIOBase):
    """A text stream that writes ``clean`` text to the stream it wraps. Everything else
    (its encoding, whether it is a terminal, flushing) is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click asks whether a stream takes bytes this way
            raise TypeError("a text stream")
        self.stream.write(clean(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def buffer(self) -> CleanedBytes:
        """The bytes written through it (click's shell completion writes bytes), cleaned too."""
        return CleanedBytes(self.stream, self.encoding)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.stream, "errors", None)


class CleanedBytes(io.RawIOBase):
    """Bytes written as text through ``clean`` (read as ``encoding``, any byte that is
    not text kept as it was)."""

    def __init__(self, stream: TextIO, encoding: str) -> None:
        super().__init__()
        self.stream = stream
        self.text_encoding = encoding

    def write(self, data: Any) -> int:
        text = bytes(data).decode(self.text_encoding, errors="surrogateescape")
        cleaned = clean(text).encode(self.text_encoding, errors="surrogateescape")
        target = getattr(self.stream, "buffer", None)
        if target is not None:
            self.stream.flush()
            target.write(cleaned)
            target.flush()
        else:
            self.stream.write(cleaned.decode(self.text_encoding, errors="replace"))
        return len(data)

    def writable(self) -> bool:
        return True


def uncleaned(stream: Any) -> Any:
    """The stream under a ``Cleaned`` one: for what writes its own control sequences
    (a progress bar), never stored text."""
    return stream.stream if isinstance(stream, Cleaned) else stream


@contextmanager
def cleaned_streams() -> Iterator[None]:
    """Standard output and standard error through ``clean`` meanwhile (once: a command
    run inside another, as ``pulka play`` runs them, finds them cleaned already)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, Cleaned):
        sys.stdout = Cleaned(sys.stdout)
    if not isinstance(sys.stderr, Cleaned):
        sys.stderr = Cleaned(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = saved


def internal_error(exc: BaseException) -> str:
    """Write ``exc`` with its traceback to a new file (readable by its owner only) in the
    temporary directory; the short message that says what happened and where the details
    are. A database password on the command line or in $PULKA_DB is masked in both."""
    import tempfile  # only on this path, as the two below: a command that works needs none of them
    import traceback

    from ledger.store.backend import mask  # only on this path: ``pulka --help`` stays light

    def masked(text: str) -> str:
        for word in [*sys.argv, os.environ.get("PULKA_DB", "")]:
            for part in word.split("="):
                text = mask(text, part)
        return text

    details = masked(f"pulka {' '.join(sys.argv[1:])[:2000]}\n\n" + "".join(traceback.format_exception(exc)))
    where = None
    try:
        handle, where = tempfile.mkstemp(prefix="pulka-error-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(details)
    except OSError:
        where = None
    from ledger.vocabulary import language  # as ``mask``: only on this path

    _ = language._  # every text a person reads, in the language in effect
    said = masked(str(exc).splitlines()[0][:200]) if str(exc).strip() else ""
    what = f"{type(exc).__name__}: {said}" if said else type(exc).__name__
    place = (_("the details are in {path}").format(path=where) if where
             else _("the details could not be written to the temporary directory"))
    return "pulka: " + _("internal error ({what}): a fault of pulka, not of the input; {place} (please report it "
                         "with that file)").format(what=what, place=place)

"""An export that appends to a stored game (``pulka import`` of a game's log): how many
of its first lines the store holds already, digest for digest (``stored_prefix``), and
a file whose history leaves the stored one, refused as a fork (``forked``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.application import Ledger
from ledger.vocabulary import language
from ledger.vocabulary.events import StreamStart
from ledger.vocabulary.logfile import LogLine
from ledger.vocabulary.refusal import Refused

_ = language._  # every text a person reads, in the language in effect


def stored_prefix(ledger: Ledger, lines: Sequence[LogLine]) -> int:
    """How many lines at the head of an export are events its stream has stored
    already, digest for digest (a digest binds everything before it, so equal digests
    mean the same history); 0 for a log without digests or a stream not stored."""
    if not lines or any(line.digest is None for line in lines):
        return 0
    first = lines[0].event
    if not isinstance(first, StreamStart):
        return 0
    same = 0
    for line, stored in zip(lines, ledger.store.load(first.game)):
        if line.digest != stored.digest:
            break
        same += 1
    return same


def forked(ledger: Ledger, lines: Sequence[LogLine], known: int) -> None:
    """Refuse an export whose history leaves the stored one: its first ``known``
    events are stored digest for digest (``stored_prefix``), and the store holds
    another event where the file goes on. Such a file is a fork, not the rest of the
    game: it names the event where the two differ (a log without digests is judged as
    an append instead)."""
    if not lines or lines[0].digest is None or not isinstance(lines[0].event, StreamStart):
        return
    game = lines[0].event.game
    count = ledger.store.count(game)
    if count <= known or known >= len(lines):
        return
    number = known + 1
    refused = Refused("event-log", _("the file's history of {game} differs from the store's at event {number} "
                                     "(the file has {lines} events, the store {count}): a file that appends must "
                                     "go on from the stored history").format(
                          game=repr(game), number=number, lines=len(lines), count=count),
                      _("`pulka verify {game} --against FILE` shows the difference; the file into a store "
                        "of its own").format(game=game))
    refused.line = lines[known].line
    raise refused

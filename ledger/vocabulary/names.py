"""Player identity: when two written names are the same person's.

One function decides it for the whole ledger: the club archive groups a player's
pulkas by it, a tournament refuses two entrants whose names collide, and an alias
(``club.PlayerAliased``) joins two keys that it keeps apart. Names are compared after
Unicode compatibility normalisation (NFKC) and case folding, with surrounding blanks
trimmed and runs of blanks inside read as one: "Anna", " ANNA ", "anna" and "Ａｎｎａ"
(full-width) are one player; "Anna P." and "Anna" are two until an alias joins them.

Names that are two players but read as one — "Dora" and "Dоra" with a Cyrillic "о",
"0leg" and "Oleg" — are told by ``look_key``: Unicode's confusable skeleton (UTS #39,
the data of ``data/confusables.txt``) of the name as ``name_key`` reads it, case-folded.
``reads_alike`` says when two names are so; ``looks_official`` when a name reads as a
recorder's prefix (``arbiter:``, ``scorer:``), as "Arbiter:Oleg", "аrbiter:Oleg" or
"arbiter：Oleg" with a full-width colon do.
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

CONFUSABLES = Path(__file__).resolve().parent / "data" / "confusables.txt"
OFFICIAL_PREFIXES = ("arbiter:", "scorer:")  # how the ledger writes a recorder who is not a player


def name_key(name: str) -> str:
    """The key under which a written name is one player: NFKC, case-folded, trimmed.

    Folding can produce text that is no longer in normal form (e.g. "ß" → "ss" is fine,
    but some folds decompose), so the text is normalised again after folding, as
    Unicode's compatibility caseless matching does.
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def colliding(names: list[str] | tuple[str, ...]) -> tuple[str, str] | None:
    """The first two names of a list that are one player, or None."""
    seen: dict[str, str] = {}
    for name in names:
        key = name_key(name)
        if key in seen:
            return seen[key], name
        seen[key] = name
    return None


class _Prototypes(dict[int, str]):
    """Each confusable character and its prototype (UTS #39's table), looked up in the
    table's text as a character is first met: a name has a few characters, and parsing
    all 6,000 lines took about 20 ms of every command that judges a name. The table's
    lines are in the order of their source characters, so a character is found by
    halving (a dozen steps); read from start to end for each character the table does
    not name, the table took 1.8 ms of every ``pulka deal``."""

    def __init__(self, text: str) -> None:
        super().__init__()
        start = 0
        while text.startswith("#", start):  # the licence's and the format's comments
            start = text.index("\n", start) + 1
        self.text = text[start:] if text.endswith("\n") else text[start:] + "\n"  # each line ends with one
        self.plain: set[int] = set()  # characters the table does not name: left as they are

    def __missing__(self, code: int) -> str:
        if code not in self.plain:
            line = self._line(code)
            if line is not None:
                prototype = "".join(chr(int(part, 16)) for part in line.split(";")[1].split())
                self[code] = prototype
                return prototype
            self.plain.add(code)
        raise LookupError(code)  # str.translate leaves the character as it is

    def _line(self, code: int) -> str | None:
        """The table's line of ``code``, or None: halving the lines between ``low`` and
        ``high``, each the start of a line (or the end of the text)."""
        text, low, high = self.text, 0, len(self.text)
        while low < high:
            start = text.rfind("\n", 0, (low + high) // 2) + 1  # the line the middle falls in
            end = text.index("\n", start)
            found = int(text[start:text.index(" ", start)], 16)
            if found == code:
                return text[start:end]
            if found < code:
                low = end + 1
            else:
                high = start
        return None


@functools.cache
def _prototypes() -> _Prototypes:
    """UTS #39's table (``data/confusables.txt``), read once."""
    return _Prototypes(CONFUSABLES.read_text(encoding="utf-8"))


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character as its prototype, NFD again."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).translate(_prototypes()))


@functools.lru_cache(maxsize=4096)
def look_key(name: str) -> str:
    """The key under which written names read alike: the skeleton of the name as
    ``name_key`` reads it, case-folded and its skeleton taken again (so that "I" and
    "l", "0" and "O", a Latin "o" and a Cyrillic "о" are one), blanks collapsed."""
    once = skeleton(unicodedata.normalize("NFKC", name)).casefold()
    return " ".join(skeleton(unicodedata.normalize("NFKC", once)).split())


def reads_alike(one: str, other: str) -> bool:
    """Two names that are two players (``name_key``) but read as one (``look_key``)."""
    return name_key(one) != name_key(other) and look_key(one) == look_key(other)


def looks_official(name: str) -> str | None:
    """The recorder's prefix (``arbiter:``, ``scorer:``) that ``name`` reads as
    beginning with, in any case, script or width; None when it reads as none."""
    key = look_key(name)
    return next((p for p in OFFICIAL_PREFIXES if key.startswith(look_key(p))), None)

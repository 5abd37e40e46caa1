"""Player identity: when two written names are the same person's.

One function decides it for the whole ledger: the club archive groups a player's
pulkas by it, a tournament refuses two entrants whose names collide, and an alias
(``club.PlayerAliased``) joins two keys that it keeps apart. Names are compared after
Unicode compatibility normalisation (NFKC) and case folding, with surrounding blanks
trimmed and runs of blanks inside read as one: "Anna", " ANNA ", "anna" and "Ａｎｎａ"
(full-width) are one player; "Anna P." and "Anna" are two until an alias joins them.
"""

from __future__ import annotations

import unicodedata


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

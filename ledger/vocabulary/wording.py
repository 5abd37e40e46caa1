"""Words for people: the decoder's messages in the words of the log's readers, and
counts with their nouns (``counted``), and the numbers a person may type (``digits``).

msgspec says ``Expected `int`, got `str` - at `$.tricks[...]```; a scorer or an arbiter
reads "`tricks` must be a whole number, not text". ``plain`` rewrites the decoder's
messages (of an event, of a rule set) that way, so that no message of pulka speaks the
language of the library underneath it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ledger.vocabulary import language
from ledger.vocabulary.language import N_, ngettext
from ledger.vocabulary.bids import spoken

_ = language._  # every text a person reads, in the language in effect

_KINDS = {
    "int": "a whole number",
    "float": "a number with a fraction",
    "str": "text in quotes",
    "bool": "true or false",
    "array": "a list",
    "object": "an object {…}",
    "null": "null",
}
# The decoder's messages, as patterns that ``re`` compiles (and caches) when a message is
# first explained, not when a command starts: most commands explain none.
_EXPECTED = r"Expected `([^`]*)`, got `([^`]*)`(?: - at `\$([^`]*)`)?"
_MISSING = r"Object missing required field `([^`]*)`(?: - at `\$([^`]*)`)?"
_UNKNOWN = r"Object contains unknown field `([^`]*)`(?: - at `\$([^`]*)`)?"
_INVALID = r"Invalid (?:enum )?value (\S+) - at `\$([^`]*)`"
_BOUND = r"Expected `([^`]*)` (>=|<=|>|<) (\S+)(?: - at `\$([^`]*)`)?"


def field(path: str | None) -> str:
    """A path of the decoder (``$.tricks[...]``) as a field of the log (```tricks```)."""
    name = (path or "").lstrip(".").replace("[...]", "")
    return f"`{name}`" if name else "the line"


def kind(name: str) -> str:
    return " or ".join(_KINDS.get(part.strip(), part.strip()) for part in name.split("|"))


def plain(message: str) -> str:
    """The decoder's message in plain words; any other message as it is."""
    if found := re.search(_EXPECTED, message):
        expected, got, path = found.groups()
        if not path and expected == "object":
            return f"a line must be one JSON object {{…}}, not {kind(got)}"
        return f"{field(path)} must be {kind(expected)}, not {kind(got)}"
    if found := re.search(_BOUND, message):
        expected, op, bound, path = found.groups()
        return f"{field(path)} must be {kind(expected)} {op} {bound}"
    if found := re.search(_MISSING, message):
        name, path = found.groups()
        where = f" in {field(path)}" if path else ""
        return f"the field `{name}` is missing{where}; see docs/event-log.md for each event's fields"
    if found := re.search(_UNKNOWN, message):
        return f"unknown field `{found.group(1)}`; see docs/event-log.md for each event's fields"
    if found := re.search(_INVALID, message):
        value, path = found.groups()
        return f"{value} is not a value {field(path)} may take; see docs/event-log.md"
    if message.startswith("JSON is malformed"):
        return "not valid JSON" + message[len("JSON is malformed"):]
    if message.startswith("Input data was truncated"):
        return "not valid JSON: the line ends too early"
    return message


# The nouns that are counted, each with its forms in the catalogue (Russian has three:
# 1 раздача, 2 раздачи, 5 раздач); a noun not here is counted in English.
_COUNTED: dict[str, Callable[[int], str]] = {
    "deal": lambda n: ngettext("{n} deal", "{n} deals", n),
    "event": lambda n: ngettext("{n} event", "{n} events", n),
    "game": lambda n: ngettext("{n} game", "{n} games", n),
    "player": lambda n: ngettext("{n} player", "{n} players", n),
    "pulka": lambda n: ngettext("{n} pulka", "{n} pulkas", n),
    "row": lambda n: ngettext("{n} row", "{n} rows", n),
    "stream": lambda n: ngettext("{n} stream", "{n} streams", n),
    "table": lambda n: ngettext("{n} table", "{n} tables", n),
    "tour": lambda n: ngettext("{n} tour", "{n} tours", n),
    "trick": lambda n: ngettext("{n} trick", "{n} tricks", n),
}


# The most digits a number typed by a person may have: more than any count, event or
# whist total a club will see, and far below Python's limit on converting text to int.
MOST_DIGITS = 18


def digits(text: str) -> bool:
    """Whether ``text`` is a whole number a person typed: ASCII digits only, at most
    ``MOST_DIGITS`` of them. ``str.isdigit`` alone takes ``²`` and ``٣`` (which ``int``
    refuses, or reads) and any length (which ``int`` refuses past 4300 digits): a word
    that passes here converts with ``int``, and one that does not is refused as words."""
    return text.isascii() and text.isdigit() and len(text) <= MOST_DIGITS


def counted(n: int, noun: str) -> str:
    """``1 event``, ``2 events``: a count with its noun, singular for one, in English:
    for the texts not in the catalogue yet, and for what a fold keeps (the reason of a
    write on the sheet), which must not depend on who read the game first."""
    return f"{n} {noun if n == 1 else noun + 's'}"


def spoken_count(n: int, noun: str) -> str:
    """``1 event``, ``2 events`` (``1 событие``, ``5 событий``): a count with its noun in
    the language in effect, for a text that is itself in the catalogue."""
    form = _COUNTED.get(noun)
    return form(n).format(n=n) if form is not None else counted(n, noun)


# The conventions' names as players say them (the log keeps the preset's own name).
_CONVENTIONS = {"sochi": N_("sochi"), "leningrad": N_("leningrad"), "rostov": N_("rostov"),
                "classic": N_("classic")}


ROLES = {"arbiter": N_("arbiter"), "scorer": N_("scorer")}


def recorder_text(by: str | None) -> str:
    """Who recorded an event, as a person reads it: a player as he is named, an arbiter
    or a scorer who is no player with his role in the reader's language (``arbiter:Igor``
    is ``Igor (arbiter)``, ``Игорь (арбитр)``), as the service's pages show him."""
    role, colon, name = (by or "").partition(":")
    if colon and role in ROLES and name:
        return _("{name} ({role})").format(name=name, role=_(ROLES[role]))
    return by or ""


def convention_name(convention: str) -> str:
    """A convention as players call it: ``sochi`` is ``сочинка`` in Russian; a club's own
    as it is named."""
    return _(_CONVENTIONS[convention]) if convention in _CONVENTIONS else convention


# -- texts a fold makes, said again in the reader's language ------------------------------------
#
# The reason beside a number on the sheet and the verdict of a recording rule are made
# while a game is folded, and a fold is shared by readers of every language (the service
# keeps one per game). So a fold makes them in English, as strings that remember how
# they were made: ``said`` takes a message of the catalogue (Babel extracts its first
# argument, as it does ``_``'s) and the values put into it, and ``spoken_text`` says the text
# again in the language in effect where it is shown. Whatever compares, stores or
# searches these texts sees the English string; only what a person reads is spoken.


class Said(str):
    """An English text made by ``said``: its message and the values put into it."""

    message: str
    values: dict[str, object]


class _Count(str):
    """``3 tricks`` made by ``said_count``: said again with the language's plural forms."""

    n: int
    noun: str


_SAID: dict[tuple[object, ...], Said] = {}  # the texts made lately: a fold makes the same ones again and again
_SAID_MOST = 20_000


def said(message: str, /, **values: object) -> str:
    """``message`` with ``values`` put in, in English, remembering both (``spoken_text``).
    A text made before with the same message and values is given again (a replay makes
    each reason once per deal: the cache saves the formatting, a fifth of a replay)."""
    key = (message, *values.items())
    try:
        found = _SAID.get(key)
    except TypeError:  # a value that cannot be a key: made afresh
        key, found = (), None
    if found is not None:
        return found
    made = Said(message.format(**values))
    made.message, made.values = message, values
    if key:
        if len(_SAID) >= _SAID_MOST:
            _SAID.clear()
        _SAID[key] = made
    return made


_COUNTS: dict[tuple[int, str], _Count] = {}


def said_count(n: int, noun: str) -> str:
    """``counted(n, noun)``, said again in the reader's language by ``spoken_text``."""
    found = _COUNTS.get((n, noun))
    if found is None:
        found = _Count(counted(n, noun))
        found.n, found.noun = n, noun
        if len(_COUNTS) >= _SAID_MOST:
            _COUNTS.clear()
        _COUNTS[n, noun] = found
    return found


def joined(*parts: str) -> str:
    """``parts`` one after another, each still spoken in the reader's language. A text
    joined to nothing is given as it is, which is spoken the same (a deal's scoring joins
    each write's reason to the tag of a ruling, mostly empty: once for every write)."""
    if len(parts) == 2 and not parts[1]:
        return parts[0]
    made = Said("".join(parts))
    made.message = "".join(f"{{p{i}}}" for i in range(len(parts)))
    made.values = {f"p{i}": part for i, part in enumerate(parts)}
    return made


def joined_by(separator: str, parts: list[str]) -> str:
    """``parts`` with ``separator`` between them, as ``str.join``, each still spoken."""
    between = [separator] * len(parts)
    return joined(*[p for pair in zip(between, parts) for p in pair][1:])


def spoken_text(text: str) -> str:
    """``text`` in the language in effect: a text ``said`` (or ``said_count``, or
    ``joined``) said again, its values too; any other text as it is. A plain ``str``."""
    if isinstance(text, Said):
        values = {k: (spoken(v) if k == "contract" else spoken_text(v)) if isinstance(v, str) else v
                  for k, v in text.values.items()}  # a contract in the players' notation (6♠, 9БК)
        return str(_(text.message).format(**values)) if text.message else ""
    if isinstance(text, _Count):
        return spoken_count(text.n, text.noun)
    return str(text)

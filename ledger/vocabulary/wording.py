"""Words for people: the decoder's messages in the words of the log's readers, and
counts with their nouns (``counted``).

msgspec says ``Expected `int`, got `str` - at `$.tricks[...]```; a scorer or an arbiter
reads "`tricks` must be a whole number, not text". ``plain`` rewrites the decoder's
messages (of an event, of a rule set) that way, so that no message of pulka speaks the
language of the library underneath it.
"""

from __future__ import annotations

import re

_KINDS = {
    "int": "a whole number",
    "float": "a number with a fraction",
    "str": "text in quotes",
    "bool": "true or false",
    "array": "a list",
    "object": "an object {…}",
    "null": "null",
}
_EXPECTED = re.compile(r"Expected `([^`]*)`, got `([^`]*)`(?: - at `\$([^`]*)`)?")
_MISSING = re.compile(r"Object missing required field `([^`]*)`(?: - at `\$([^`]*)`)?")
_UNKNOWN = re.compile(r"Object contains unknown field `([^`]*)`(?: - at `\$([^`]*)`)?")
_INVALID = re.compile(r"Invalid (?:enum )?value (\S+) - at `\$([^`]*)`")
_BOUND = re.compile(r"Expected `([^`]*)` (>=|<=|>|<) (\S+)(?: - at `\$([^`]*)`)?")


def field(path: str | None) -> str:
    """A path of the decoder (``$.tricks[...]``) as a field of the log (```tricks```)."""
    name = (path or "").lstrip(".").replace("[...]", "")
    return f"`{name}`" if name else "the line"


def kind(name: str) -> str:
    return " or ".join(_KINDS.get(part.strip(), part.strip()) for part in name.split("|"))


def plain(message: str) -> str:
    """The decoder's message in plain words; any other message as it is."""
    if found := _EXPECTED.search(message):
        expected, got, path = found.groups()
        if not path and expected == "object":
            return f"a line must be one JSON object {{…}}, not {kind(got)}"
        return f"{field(path)} must be {kind(expected)}, not {kind(got)}"
    if found := _BOUND.search(message):
        expected, op, bound, path = found.groups()
        return f"{field(path)} must be {kind(expected)} {op} {bound}"
    if found := _MISSING.search(message):
        name, path = found.groups()
        where = f" in {field(path)}" if path else ""
        return f"the field `{name}` is missing{where}; see docs/event-log.md for each event's fields"
    if found := _UNKNOWN.search(message):
        return f"unknown field `{found.group(1)}`; see docs/event-log.md for each event's fields"
    if found := _INVALID.search(message):
        value, path = found.groups()
        return f"{value} is not a value {field(path)} may take; see docs/event-log.md"
    if message.startswith("JSON is malformed"):
        return "not valid JSON" + message[len("JSON is malformed"):]
    if message.startswith("Input data was truncated"):
        return "not valid JSON: the line ends too early"
    return message


def counted(n: int, noun: str) -> str:
    """``1 event``, ``2 events``: a count with its noun, singular for one."""
    return f"{n} {noun if n == 1 else noun + 's'}"

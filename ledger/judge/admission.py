"""What every event must be to enter the store, whatever its kind of stream: the checks
of its form that no rule of a game makes, in one place.

``admit`` is called on every event on its way in, before the judge of its kind of
stream looks at it: the first event of a game or a rubber (``kinds.start_stream``),
every later one (``judging.judge_events``), a tournament's events and the club
register's (``tournament``, ``club``). It walks the event's fields, whatever the event,
so that an event type added later is checked the same way, and refuses:

- a name (of a player, a game, a recorder: ``by``, ``arbiter:NAME``, ``scorer:NAME``)
  that is empty, longer than ``NAME_MAX`` (a game's: ``GAME_MAX``), or begins or ends
  with blanks, and two players of one event whose names are one player
  (``names.name_key``: "Anna", "anna" and "Ａｎｎａ") or read as one (``names.reads_alike``:
  "Dora" and "Dоra" with a Cyrillic "о"); a name that reads as a recorder's prefix
  (``names.looks_official``: "Arbiter:Oleg", "аrbiter:Oleg", "arbiter：Oleg"), which
  only the ledger writes, and then only as ``by``;
- any text with a control character (a newline, NUL, ESC), a format character
  (bidirectional overrides, zero-width spaces and joiners), a lone surrogate, a
  line or paragraph separator, or a noncharacter: text that would act on a terminal,
  hide itself or reorder what is printed around it; a reason longer than
  ``REASON_MAX``, any other text longer than ``TEXT_MAX``;
- a time (``at``) that is not ISO 8601 with an offset in the years 2 to 9998, and a
  time played (``played_at``) that is not one either or that is after the event's
  arrival (``at``); one before the previous event's is taken: phones' clocks differ,
  and only ``at`` orders the stream;
- a whole number beyond ``NUMBER_MAX`` either way, a number that is not finite, and
  lists and objects nested deeper than ``DEPTH_MAX`` or longer than ``ITEMS_MAX``.

A refusal quotes at most an excerpt of what it refuses (``refusal.excerpt``). The
command line trims the blanks around names it is given; a log is read as written,
so a name there with blanks around it is refused rather than changed.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable
from typing import Any

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.names import colliding, looks_official, name_key, reads_alike
from ledger.vocabulary.refusal import Refused, excerpt
from ledger.vocabulary.times import EXAMPLE, TimeFormatError, parse_time

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_
ngettext = language.ngettext

NAME_MAX = 64  # characters of a player's name, and of the NAME of arbiter:NAME
GAME_MAX = 100  # characters of the name of a game, a rubber or a tournament
REASON_MAX = 500  # characters of a reason
TEXT_MAX = 200  # characters of any other text (a bid, a stake, a seed...)
NUMBER_MAX = 10**9  # a whole number's size either way: no score, count or number of an event comes near
DEPTH_MAX = 6  # lists and objects inside an event (the deepest, a tour's close with its tables' tallies, is 4)
ITEMS_MAX = 1000  # items of a list or object

# Fields that hold a person's name, or lists or objects of names (their keys, for the
# objects: the trick counts, a table's results and tallies).
NAMES = frozenset({
    "players", "player", "on", "first_dealer", "agreed_by", "declarer", "kept", "name", "same_as",
    "shared_with", "wronged", "demanded_by", "offender", "substitute", "hand", "replaces", "planner", "compensated",
})
NAMED_KEYS = frozenset({"tricks", "whists", "tallies"})
OFFICIALS = ("arbiter:", "scorer:")  # recorders who are not players: the NAME after the prefix is a name

# Unicode categories no text of the log may hold: controls, format characters, lone
# surrogates, line and paragraph separators (and the noncharacters: ``noncharacter``).
KINDS = {
    "Cc": N_("a control character"),
    "Cf": N_("a format character"),
    "Cs": N_("a lone surrogate"),
    "Zl": N_("a line separator"),
    "Zp": N_("a paragraph separator"),
}
UNSAFE = frozenset(KINDS)

RULE = "event-log"


def admit(event: Any) -> None:
    """Refuse an event whose names, texts, numbers or time are not of the form above.

    A text found good in a field is remembered (``_admitted``): whether a text passes
    depends on the text and its field's name alone, and the events of a game repeat
    the same few names, bids and times. An event's time (``at``), which is mostly new,
    is checked by ``check_time_text`` alone (it remembers the last time found good),
    not remembered there: it would crowd out the names and bids."""
    admitted = _admitted
    for field in event.__struct_fields__:
        value = getattr(event, field)
        if value is None:
            continue
        kind = type(value)
        if kind is str:
            if field == "at":
                check_time_text(value)
            elif (field, value) not in admitted:
                _text(value, field)
        elif kind is bool or (kind is int and -NUMBER_MAX <= value <= NUMBER_MAX):
            continue
        else:
            _walk(value, field, 1)
    if event.played_at is not None and event.at is not None:
        check_played_before_arrival(event.played_at, event.at)


# Texts found good, with the field that held them: a set of bounded size, emptied when full.
_admitted: set[tuple[str, str]] = set()
_ADMITTED_MAX = 4096


def _walk(value: Any, role: str, depth: int) -> None:
    kind = type(value)  # the usual types first, by their exact type
    if kind is int and -NUMBER_MAX <= value <= NUMBER_MAX:
        return
    if kind is str:
        _text(value, role)
    elif kind is dict:
        _object(value, role, depth)
    elif kind is tuple or kind is list:
        _items(value, role, depth)
    elif isinstance(value, str):
        _text(value, role)
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not -NUMBER_MAX <= value <= NUMBER_MAX:
            raise Refused(RULE, _("`{role}` is {number}, beyond what any record of a game holds").format(
                role=role, number=_number(value)),
                          _("a whole number from {low} to {high}").format(low=f"{-NUMBER_MAX:,}",
                                                                          high=f"{NUMBER_MAX:,}"))
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) > NUMBER_MAX:
            raise Refused(RULE, _("`{role}` is {value}").format(role=role, value=repr(value)),
                          _("a number from {low} to {high}").format(low=f"{-NUMBER_MAX:,}", high=f"{NUMBER_MAX:,}"))
    elif isinstance(value, msgspec.Struct):
        _deeper(role, depth)
        for field in value.__struct_fields__:
            item = getattr(value, field)
            if item is not None:
                _walk(item, field, depth + 1)
    elif isinstance(value, dict):
        _object(value, role, depth)
    elif isinstance(value, list | tuple):
        _items(value, role, depth)


def _object(value: dict[Any, Any], role: str, depth: int) -> None:
    _deeper(role, depth)
    _count(value, role)
    named = role in NAMED_KEYS
    for key, item in value.items():
        if not isinstance(key, str):  # pragma: no cover - JSON's keys are text
            raise Refused(RULE, _("`{role}` has a key that is not text").format(role=role))
        if named:
            _text(key, role)  # a name: ``_text`` checks it as one
            if type(item) is not int or not -NUMBER_MAX <= item <= NUMBER_MAX:  # a count: nothing to walk
                _walk(item, role, depth + 1)
        else:
            _text(key, "a field's name")
            _walk(item, key, depth + 1)


def _items(value: list[Any] | tuple[Any, ...], role: str, depth: int) -> None:
    _deeper(role, depth)
    _count(value, role)
    for item in value:
        if item is not None:
            _walk(item, role, depth + 1)
    if role == "players":
        check_distinct(value)


def _deeper(role: str, depth: int) -> None:
    if depth > DEPTH_MAX:
        raise Refused(RULE, _("`{role}` nests lists or objects {depth} deep").format(role=role, depth=depth),
                      _("at most {levels} levels (an event's fields nest a few at most)").format(levels=DEPTH_MAX))


def _count(items: Any, role: str) -> None:
    if len(items) > ITEMS_MAX:
        raise Refused(RULE, ngettext("`{role}` holds {n} items", "`{role}` holds {n} items", len(items)).format(
            role=role, n=f"{len(items):,}"), _("at most {n}").format(n=f"{ITEMS_MAX:,}"))


def _number(value: int) -> str:
    digits = len(str(abs(value)))
    return str(value) if digits <= 30 else _("a number of {n} digits").format(n=f"{digits:,}")


def _text(text: str, role: str) -> None:
    """Refuse ``text`` as the value of ``role`` (a field's name, or what a key of an
    object is), or remember it as good there."""
    admitted = _admitted
    if (role, text) in admitted:
        return
    _check(text, role)
    if len(admitted) >= _ADMITTED_MAX:
        admitted.clear()
    admitted.add((role, text))


def _check(text: str, role: str) -> None:
    if role in NAMES or role in NAMED_KEYS:
        check_name(text, role)
    elif role == "game":
        check_name(text, "game", GAME_MAX)
    elif role == "by":
        check_recorder_name(text)
    elif role == "at":
        check_time_text(text)
    elif role == "played_at":
        check_played_text(text)
    else:
        check_text(text, role, REASON_MAX if role == "reason" else TEXT_MAX)


def check_text(text: str, role: str, limit: int = TEXT_MAX) -> None:
    """Text of the log: at most ``limit`` characters, none that acts on a terminal or hides."""
    if len(text) > limit:
        raise Refused(RULE, ngettext("`{role}` is {n} characters long: {text}",
                                     "`{role}` is {n} characters long: {text}", len(text)).format(
                                         role=role, n=f"{len(text):,}", text=excerpt(text)),
                      _("at most {limit} characters").format(limit=limit))
    if not text.isprintable():  # spaces other than the plain one, and the rest, looked at one by one
        bad = next((c for c in text if unicodedata.category(c) in UNSAFE or noncharacter(c)), None)
        if bad is not None:
            kind = _("a noncharacter") if noncharacter(bad) else _(KINDS[unicodedata.category(bad)])
            name = unicodedata.name(bad, "")  # Unicode's own name of the character, in English
            raise Refused(RULE, _("`{role}` holds {code}, {kind}{name}: {text}").format(
                role=role, code=f"U+{ord(bad):04X}", kind=kind, name=f" ({name})" if name else "", text=excerpt(text)),
                          _("text without control characters, format characters (bidirectional, "
                            "zero-width) or line breaks"))


def noncharacter(char: str) -> bool:
    """One of Unicode's 66 noncharacters (U+FDD0-U+FDEF, and the last two of every
    plane), which no text may exchange (nor XML hold: the drawn sheet, the report)."""
    code = ord(char)
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def check_name(text: str, role: str, limit: int = NAME_MAX) -> None:
    """A name: not empty, at most ``limit`` characters, no blanks around it, text, and
    (a person's) not one that reads as a recorder's prefix."""
    what = _("the game's name") if role == "game" else _("the name in `{role}`").format(role=role)
    if not text.strip():
        raise Refused(RULE, _("{what} is empty").format(what=what), _("a name"))
    check_text(text, role, limit)
    if text != text.strip():
        raise Refused(RULE, _("{what} {text} begins or ends with blanks").format(what=what, text=excerpt(text)),
                      excerpt(text.strip()))
    if role != "game":
        check_not_official(text, what)


def check_not_official(text: str, what: str) -> None:
    """A name may not read as ``arbiter:`` or ``scorer:`` followed by a name in another
    case, script or width than the ledger writes it: a recorder who is not a player is
    written so (a pencil put down by ``scorer:Masha``), and the judges refuse a player
    of that name; one that only reads so would pass for him."""
    prefix = looks_official(text)
    if prefix is not None and not text.startswith(OFFICIALS):
        raise Refused(RULE, _("{what} {text} reads as {prefix}NAME, which only the ledger writes, for an arbiter or "
                              "a scorer who records").format(what=what, text=excerpt(text), prefix=prefix),
                      _("a name that does not begin as {prefix}").format(prefix=prefix))


def check_recorder_name(by: str) -> None:
    """``by``: a player's name, or ``arbiter:NAME`` or ``scorer:NAME``."""
    for prefix in OFFICIALS:
        if by.startswith(prefix):
            check_name(by[len(prefix):], "by")
            return
    check_name(by, "by")


def check_distinct(players: list[Any] | tuple[Any, ...]) -> None:
    """No two players of one list are one player (``names.name_key``), nor read as one
    (``names.reads_alike``)."""
    names = [p for p in players if isinstance(p, str)]
    clash = colliding(names)
    if clash is not None:
        raise Refused(RULE, _("{one} and {other} are one player: names are compared after Unicode normalisation "
                              "and case folding").format(one=excerpt(clash[0]), other=excerpt(clash[1])),
                      _("distinct names"))
    for i, one in enumerate(names):
        other = next((p for p in names[i + 1:] if reads_alike(one, p)), None)
        if other is not None:
            raise alike(one, other, _("names that do not read alike"))


def alike(one: str, other: str, allowed: str) -> Refused:
    """The refusal of two names of two players that read as one."""
    return Refused(RULE, _("{one} and {other} read as one name (letters of other scripts or forms that look the "
                           "same, Unicode's confusables): nobody could tell them apart on a sheet").format(
                               one=excerpt(one), other=excerpt(other)), allowed)


def check_newcomer(name: str, people: Iterable[str]) -> None:
    """A player who comes to a game (joins it, or takes a seat) may not be one player
    with another who is or was in it under another spelling (``names.name_key``), nor
    read as one with him (``names.reads_alike``)."""
    key = name_key(name)
    present = list(people)
    same = next((p for p in present if p != name and name_key(p) == key), None)
    if same is not None:
        raise Refused(RULE, _("{one} and {other} are one player: names are compared after Unicode normalisation "
                              "and case folding").format(one=excerpt(name), other=excerpt(same)),
                      _("{name} as written, or another name").format(name=excerpt(same)))
    similar = next((p for p in present if reads_alike(name, p)), None)
    if similar is not None:
        raise alike(name, similar, _("{name} as written, or another name").format(name=excerpt(similar)))


def check_time_text(text: str) -> None:
    """``at``: ISO 8601 with an offset, in the years ``times`` allows. The last time
    found good is remembered: a batch's events mostly share their time."""
    if text == _good_time[0]:
        return
    try:
        parse_time(text)
    except TimeFormatError as exc:
        raise Refused(RULE, f"`at`: {exc}", _("e.g. {example}").format(example=EXAMPLE)) from None
    _good_time[0] = text


def check_played_text(text: str) -> None:
    """``played_at``: ISO 8601 with an offset, as ``at``; a refusal names the field."""
    try:
        parse_time(text)
    except TimeFormatError as exc:
        raise Refused(RULE, f"`played_at`: {exc}", _("e.g. {example}").format(example=EXAMPLE),
                      field="played_at") from None


def check_played_before_arrival(played: str, at: str) -> None:
    """A time played may not be after the event reached the ledger (``at``)."""
    if played != at and parse_time(played) > parse_time(at):
        raise Refused(RULE, _("`played_at` {played} is after the event arrived ({at})").format(played=played, at=at),
                      _("a time at or before {at}").format(at=at), field="played_at")


# The last time check_time_text found good; None until it has found one, so that no
# text (the empty one included) passes unread.
_good_time: list[str | None] = [None]

"""The scoring table of rubber bridge, and the rule set a rubber is scored by.

The numbers are those of seed 003 (the МЫ/ВЫ sheet, trick values, the game at 100,
vulnerability, the rubber bonus, undoubled overtricks) and, where its text breaks off,
the scoring table of the Laws of Contract Bridge for rubber bridge (cited as [Law 81]
for the table, [Law 72]-[Law 74] for trick points, games and the rubber, [Law 80] for
an unfinished rubber). ``docs/conventions.md`` lists which number comes from which.

A rubber names a preset (``laws``) and may override a parameter, as a pulka does; the
complete resolved ``BridgeRules`` is stored in its ``rubber_started``, so a later change
here never changes how an old rubber replays. Only choices that clubs really make are
parameters; the table itself is fixed.
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

from typing import Any, Literal

import msgspec

from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect

# -- the table -----------------------------------------------------------------------------

# Trick points per odd trick bid and made, by denomination [seed 003; Law 81]; the first
# odd trick at no trump is worth 10 more (40, then 30).
TRICK_VALUE: dict[str, int] = {"C": 20, "D": 20, "H": 30, "S": 30, "NT": 30}
NT_FIRST_EXTRA = 10
# Doubling doubles the trick points, redoubling quadruples them [seed 003; Law 81].
FACTOR: dict[str | None, int] = {None: 1, "X": 2, "XX": 4}
# A game is won by the first side to score 100 trick points [seed 003; Law 73].
GAME = 100
# Two games win the rubber [seed 003; Law 74].
GAMES_TO_WIN = 2
# The rubber bonus by the losers' games: 700 for 2-0, 500 for 2-1 [seed 003; Law 74].
RUBBER_BONUS: dict[int, int] = {0: 700, 1: 500}
# A doubled overtrick, by vulnerability; a redoubled one is worth twice as much [Law 81].
DOUBLED_OVERTRICK: dict[bool, int] = {False: 100, True: 200}
# For making a doubled or redoubled contract (the "insult") [Law 81].
INSULT: dict[str, int] = {"X": 50, "XX": 100}
# Slam bonuses by level, not vulnerable / vulnerable [Law 81].
SLAM: dict[int, dict[bool, int]] = {6: {False: 500, True: 750}, 7: {False: 1000, True: 1500}}
# Undertricks, undoubled, per trick, by vulnerability [Law 81].
UNDOUBLED_UNDERTRICK: dict[bool, int] = {False: 50, True: 100}
# Doubled undertricks: the first, the second and third, the fourth and each after it,
# by vulnerability; redoubled ones are worth twice as much [Law 81].
DOUBLED_UNDERTRICKS: dict[bool, tuple[int, int, int]] = {False: (100, 200, 300), True: (200, 300, 300)}
# Honours held in one hand [Law 81]: four of the five trump honours 100, all five 150;
# at no trump the four aces 150.
HONOURS_SUIT: tuple[int, ...] = (100, 150)
HONOURS_NT: tuple[int, ...] = (150,)
# An unfinished rubber [Law 80]: 300 to the side that won the only finished game.
UNFINISHED_GAME = 300

DENOMINATIONS: tuple[str, ...] = ("C", "D", "H", "S", "NT")
LEVELS = range(1, 8)  # a bid names one to seven odd tricks [Law 18]
TRICKS = range(0, 14)  # thirteen cards each, thirteen tricks [Law 6]
BOOK = 6  # the tricks a contract's odd tricks are counted over [Law 18]

# -- the rule set ---------------------------------------------------------------------------


class BridgeRules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    # Name of the preset the set was resolved from (informational; scoring never reads it).
    preset: str = "laws"
    # Honours are scored [Law 81]; false for a club that does not score them.
    honours: bool = True
    # Points for the only part score in an unfinished game of an unfinished rubber [Law 80].
    unfinished_part_score: int = 100
    # The money of a settlement: "exact" (every point at the stake per 100) or "hundred"
    # (the margin rounded to the nearest hundred, 50 rounded down: a club custom; the
    # Laws only name the margin [Law 74]).
    rounding: Literal["exact", "hundred"] = "exact"


LAWS = BridgeRules()
BRIDGE_PRESETS: dict[str, BridgeRules] = {"laws": LAWS}
BRIDGE_PARAMETERS: tuple[str, ...] = tuple(f for f in BridgeRules.__struct_fields__ if f != "preset")


class BridgeRulesError(ValueError):
    """A preset or rule override a rubber cannot be scored by."""


def resolve_bridge(preset: str, overrides: dict[str, Any] | None = None) -> BridgeRules:
    """The preset with the overrides applied, checked; raises BridgeRulesError."""
    base = BRIDGE_PRESETS.get(preset.lower())
    if base is None:
        raise BridgeRulesError(_("unknown rubber rule set {preset}; the presets are {presets}").format(
            preset=repr(preset), presets=", ".join(BRIDGE_PRESETS)))
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(BRIDGE_PARAMETERS))
    if unknown:
        raise BridgeRulesError(_("unknown rule parameter(s) {unknown}; the parameters of a rubber are: "
                                 "{parameters}").format(unknown=", ".join(unknown),
                                                        parameters=", ".join(BRIDGE_PARAMETERS)))
    merged = msgspec.structs.asdict(base)
    merged.update(overrides)
    try:
        rules = msgspec.convert(merged, BridgeRules)
    except msgspec.ValidationError as exc:
        raise BridgeRulesError(_("bad rule value: {error}").format(error=exc)) from None
    check_bridge(rules)
    return rules


def check_bridge(rules: BridgeRules) -> None:
    if rules.unfinished_part_score < 0:
        raise BridgeRulesError(_("unfinished_part_score must be 0 or more"))

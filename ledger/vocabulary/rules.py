"""Rule sets: the parameters in which Preferans conventions differ, and their presets.

A convention (Sochi, Leningrad, Rostov, Classic, or a club's own) is one frozen
``RuleSet``. ``game_started`` names a preset and may override any parameter; the
ledger stores the complete resolved set in the event, so replay never depends on
what a preset says today. Parameters and their sources are listed in
``docs/conventions.md`` and by ``pulka rules NAME``.

Where the arithmetic of conventions truly differs, the difference is a named
parameter that selects a hook in ``projections.scoring`` (``raspasy_model``,
``single_whist_split``, ``defence_responsibility``, ``help``), never a test of the
convention's name.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ledger.vocabulary.wording import plain


class RuleSet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    # Name of the preset the set was resolved from (informational; scoring never reads it).
    convention: str = "sochi"
    # Whists and gora are multiplied by this (Leningrad: 2) [rules.md §4].
    gora_whist_multiplier: int = 1
    # Consolation per undertrick: "price" means p x multiplier; an integer is fixed
    # whists per undertrick (Rostov: 10) [Code 3.8.1.2, footnotes 36 and 54].
    consolation: Literal["price"] | int = "price"
    # One whister, one passer, remiz: "greedy" (whister writes the tricks, passer only
    # his consolation) or "gentleman" (all is split equally) [Code 3.8.13-3.8.14].
    single_whist_split: Literal["greedy", "gentleman"] = "greedy"
    # Gora per trick the defence lacks: "full" = 1 x p (responsible whist), "half" =
    # 1/2 x p, "half_until_closed" = 1/2 while the defender's pulya is open, 1 after
    # (Classic) [Code 3.8.11-3.8.12].
    defence_responsibility: Literal["full", "half", "half_until_closed"] = "full"
    # "gora": tricks on raspasy go to gora; "whists": the Rostov raspasy, where the
    # player with the fewest tricks writes whists on the others [Code 3.7.2].
    raspasy_model: Literal["gora", "whists"] = "gora"
    # Multipliers for consecutive raspasy; the last value repeats [seed 001].
    raspasy_progression: tuple[int, ...] = (1, 2)
    # Whists per trick on the Rostov raspasy [Code 3.7.2.2].
    raspasy_whist_price: int = 5
    # Pulya written by a player who takes no trick on raspasy: "price" (one trick's
    # price, k x multiplier), a fixed number of points, or 0 for none [Code 3.7.2.1].
    raspasy_zero_pulya: Literal["price"] | int = "price"
    # Subtract the smallest trick count from everyone's before writing [Code 3.7.3].
    raspasy_amnesty: bool = True
    # With 4 players the dealer plays the two talon cards on raspasy (Code 3.7.6.1);
    # false: the talon is not used (Rostov) [Code 3.7.6.2].
    raspasy_talon: bool = True
    # Pulya the sitting-out dealer writes on raspasy with 4 players (Rostov: 1).
    raspasy_dealer_pulya: int = 0
    # Minimum contract in the deal after raspasy (Classic: 7).
    raspasy_exit: int = 6
    # The same dealer deals again after raspasy (a Classic house rule).
    raspasy_same_dealer: bool = False
    # Help a closed player gives to the others [Code 4.2.3]; false is Leningrad: pulyas
    # grow freely and the pulka ends at players x target [Code 4.2.3.3].
    help: bool = True
    # Each point of pulya over or under the target is this many gora points at the end.
    pulya_to_gora: int = 1
    # Levels on which the second defender may half-whist [Code 3.8.14].
    half_whist_levels: tuple[int, ...] = (6, 7)
    # A 10 is checked without calls and carries no obligation (seed 002).
    ten_checked: bool = False
    # Any bid above the current one is legal; false enforces one step [Code 3.3.8].
    jump_bids: bool = True


SOCHI = RuleSet(convention="sochi")
LENINGRAD = RuleSet(
    convention="leningrad",
    gora_whist_multiplier=2,
    single_whist_split="gentleman",
    defence_responsibility="half",
    raspasy_progression=(1, 2, 3),
    help=False,
    pulya_to_gora=2,
)
ROSTOV = RuleSet(
    convention="rostov",
    consolation=10,
    single_whist_split="gentleman",
    defence_responsibility="half",
    raspasy_model="whists",
    raspasy_progression=(1,),
    raspasy_zero_pulya=1,
    raspasy_amnesty=False,
    raspasy_talon=False,
    raspasy_dealer_pulya=1,
)
CLASSIC = RuleSet(
    convention="classic",
    defence_responsibility="half_until_closed",
    raspasy_progression=(1, 2, 3),
    raspasy_exit=7,
    raspasy_same_dealer=True,
)

PRESETS: dict[str, RuleSet] = {
    "sochi": SOCHI,
    "leningrad": LENINGRAD,
    "rostov": ROSTOV,
    "classic": CLASSIC,
}
# Other names a preset answers to, in English and Russian, in any case.
ALIASES: dict[str, str] = {
    "piter": "leningrad",
    "peter": "leningrad",
    "moscow": "rostov",
    "сочи": "sochi",
    "сочинка": "sochi",
    "ленинградка": "leningrad",
    "питер": "leningrad",
    "ростов": "rostov",
    "ростовка": "rostov",
    "московская": "rostov",
    "москва": "rostov",
    "классика": "classic",
}

MEANING: dict[str, str] = {
    "gora_whist_multiplier": "whists and gora are multiplied by this (Leningrad 2)",
    "consolation": 'whists per undertrick each other player writes on a failed declarer: "price" = p x multiplier, or a fixed number',
    "single_whist_split": "one whister, one passer, remiz: greedy (passer writes only consolation) or gentleman (split equally)",
    "defence_responsibility": "gora per trick the defence lacks: full (1 x p), half (1/2 x p), half_until_closed (Classic)",
    "raspasy_model": "raspasy tricks go to gora, or (whists) the fewest-tricks player writes whists (Rostov)",
    "raspasy_progression": "multiplier of consecutive raspasy; the last value repeats",
    "raspasy_whist_price": "whists per trick on the Rostov raspasy",
    "raspasy_zero_pulya": 'pulya for a player taking no trick on raspasy: "price" (k x multiplier), points, or 0',
    "raspasy_amnesty": "subtract the smallest trick count from everyone's before writing raspasy",
    "raspasy_talon": "with 4 players the dealer plays the talon cards on raspasy",
    "raspasy_dealer_pulya": "pulya of the sitting-out dealer on raspasy with 4 players (Rostov 1)",
    "raspasy_exit": "the lowest contract in the deal after raspasy",
    "raspasy_same_dealer": "the same dealer deals again after raspasy",
    "help": "a closed player helps the others; false: pulyas grow freely, end at players x target",
    "pulya_to_gora": "gora points per pulya point over or under the target at the end",
    "half_whist_levels": "levels on which a defender may half-whist",
    "ten_checked": "a 10 is checked without calls and carries no obligation",
    "jump_bids": "any bid above the current one is legal; false enforces one step",
}

PARAMETERS: tuple[str, ...] = tuple(f for f in RuleSet.__struct_fields__ if f != "convention")


class RuleSetError(ValueError):
    """A convention or rule override that cannot be used."""


def find_preset(name: str) -> RuleSet:
    """The preset of that name (aliases allowed), or RuleSetError listing the valid ones."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    try:
        return PRESETS[key]
    except KeyError:
        others = ", ".join(f"{alias} ({preset})" for alias, preset in ALIASES.items())
        raise RuleSetError(
            f"unknown convention: {name!r}; the presets are {', '.join(PRESETS)}; also known as: {others}"
        ) from None


def resolve(convention: str, overrides: dict[str, Any] | None = None) -> RuleSet:
    """The preset with the overrides applied, checked; raises RuleSetError."""
    preset = find_preset(convention)
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(PARAMETERS))
    if unknown:
        raise RuleSetError(
            f"unknown rule parameter(s) {', '.join(unknown)}; "
            f"the parameters are: {', '.join(PARAMETERS)}"
        )
    merged = msgspec.structs.asdict(preset)
    merged.update(overrides)
    try:
        rules = msgspec.convert(merged, RuleSet)
    except msgspec.ValidationError as exc:
        raise RuleSetError(f"bad rule value: {plain(str(exc))}") from None
    check(rules)
    return rules


def check(rules: RuleSet) -> None:
    """Refuse values no game could be played by."""
    problems = []
    if rules.gora_whist_multiplier < 1:
        problems.append("gora_whist_multiplier must be 1 or more")
    if isinstance(rules.consolation, int) and rules.consolation < 0:
        problems.append('consolation must be "price" or a whole number of whists, 0 or more')
    if not rules.raspasy_progression or any(k < 1 for k in rules.raspasy_progression):
        problems.append("raspasy_progression must be a non-empty list of multipliers of 1 or more")
    if rules.raspasy_whist_price < 0:
        problems.append("raspasy_whist_price must be 0 or more")
    if isinstance(rules.raspasy_zero_pulya, int) and rules.raspasy_zero_pulya < 0:
        problems.append('raspasy_zero_pulya must be "price" or a number of points, 0 or more')
    if rules.raspasy_dealer_pulya < 0:
        problems.append("raspasy_dealer_pulya must be 0 or more")
    if rules.raspasy_exit not in (6, 7, 8):
        problems.append("raspasy_exit must be 6, 7 or 8")
    if rules.pulya_to_gora < 1:
        problems.append("pulya_to_gora must be 1 or more")
    if any(level not in (6, 7, 8, 9, 10) for level in rules.half_whist_levels):
        problems.append("half_whist_levels may only name the levels 6 to 10")
    if problems:
        raise RuleSetError("; ".join(problems))


def rule_set_to_dict(rules: RuleSet) -> dict[str, Any]:
    result: dict[str, Any] = msgspec.to_builtins(rules)
    return result

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

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

from typing import Any, Literal

import msgspec

from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

from ledger.vocabulary.wording import plain


class RuleSet(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True
):
    """One convention's parameters.

    Every ``game_started`` stores its complete rule set, and its chain digest is taken
    over that encoding, so the encoding of a stored rule set must never change. The
    parameters of the first version have no default, so they are always written; every
    parameter added since has a default that is exactly how the ledger behaved before
    the parameter existed, and is written only when it differs from that default. An
    old rule set therefore encodes as it always did and replays as it was played. A
    later parameter's default must never change.
    """

    # Name of the preset the set was resolved from (informational; scoring never reads it).
    convention: str
    # Whists and gora are multiplied by this (Leningrad: 2) [rules.md §4].
    gora_whist_multiplier: int
    # Consolation per undertrick: "price" means p x multiplier; an integer is fixed
    # whists per undertrick (Rostov: 10) [Code 3.8.1.2, footnotes 36 and 54].
    consolation: Literal["price"] | int
    # One whister, one passer, remiz: "greedy" (whister writes the tricks, passer only
    # his consolation) or "gentleman" (all is split equally) [Code 3.8.13-3.8.14].
    single_whist_split: Literal["greedy", "gentleman"]
    # Gora per trick the defence lacks: "full" = 1 x p (responsible whist), "half" =
    # 1/2 x p, "half_until_closed" = 1/2 while the defender's pulya is open, 1 after
    # (Classic) [Code 3.8.11-3.8.12].
    defence_responsibility: Literal["full", "half", "half_until_closed"]
    # "gora": tricks on raspasy go to gora; "whists": the Rostov raspasy, where the
    # player with the fewest tricks writes whists on the others [Code 3.7.2].
    raspasy_model: Literal["gora", "whists"]
    # Multipliers for consecutive raspasy; the last value repeats [seed 001].
    raspasy_progression: tuple[int, ...]
    # Whists per trick on the Rostov raspasy [Code 3.7.2.2].
    raspasy_whist_price: int
    # Pulya written by a player who takes no trick on raspasy: "price" (one trick's
    # price, k x multiplier), a fixed number of points, or 0 for none [Code 3.7.2.1].
    raspasy_zero_pulya: Literal["price"] | int
    # Subtract the smallest trick count from everyone's before writing [Code 3.7.3].
    raspasy_amnesty: bool
    # With 4 players the dealer plays the two talon cards on raspasy (Code 3.7.6.1);
    # false: the talon is not used (Rostov) [Code 3.7.6.2].
    raspasy_talon: bool
    # Pulya the sitting-out dealer writes on raspasy with 4 players (Rostov: 1).
    raspasy_dealer_pulya: int
    # Minimum contract in the deal after raspasy (Classic: 7).
    raspasy_exit: int
    # The same dealer deals again after raspasy (a Classic house rule).
    raspasy_same_dealer: bool
    # Help a closed player gives to the others [Code 4.2.3]; false is Leningrad: pulyas
    # grow freely and the pulka ends at players x target [Code 4.2.3.3].
    help: bool
    # What one pulya point is worth in gora points: at the end (points over or under the
    # target), and, with help, for helped points and points nobody can take [Code 4.2.3].
    pulya_to_gora: int
    # Levels on which the second defender may half-whist [Code 3.8.14].
    half_whist_levels: tuple[int, ...]
    # A 10 is checked without calls and carries no obligation (seed 002).
    ten_checked: bool
    # Any bid above the current one is legal; false enforces one step [Code 3.3.8].
    jump_bids: bool

    # -- parameters added later: the default is the earlier behaviour -----------------
    # After a nine beats a misère nobody may bid again [Code footnote 41, the norm it
    # recommends]; false: nines and tens may go on.
    misere_nine_ends_auction: bool = False
    # Gora points of a dealer's second error at one deal; the deal then passes on
    # [Code 3.2.17: "e.g. five"; footnote 13: "e.g. two"].
    dealer_error_gora: int = 5
    # With four players the sitting-out dealer writes consolation too [Code 3.8.1.2: "usually"].
    dealer_consolation: bool = True
    # What ends a run of raspasy (the progression restarts, the minimum returns to 6)
    # [Code 3.7.4, 3.7.8]: "any_deal" (any deal that is not a raspasy), "whisted_and_made"
    # (only a contract that was whisted, a half-whist included, and made) or
    # "no_pass_misere_remiz" (anything but an unwhisted contract, a misère or a remiz).
    raspasy_run_ends: Literal["any_deal", "whisted_and_made", "no_pass_misere_remiz"] = "any_deal"
    # The raised minimum after raspasy lasts until the run ends (false: only the deal
    # right after a raspasy has it).
    raspasy_exit_lasts: bool = False
    # Each further raspasy of a run raises the minimum by one, up to 8 (houses that climb 6-7-8).
    raspasy_exit_climbs: bool = False
    # An unwhisted contract (both passed) restarts the progression when it ends the run.
    raspasy_unwhisted_resets: bool = True
    # Dark bids (a dark pass, a dark bid, a dark misère) and the bombs they earn [Code
    # 3.3.19, 3.7.10, footnotes 28-31]: by prior agreement, usually only in Classic.
    dark_bids: bool = False
    # The agreed limit of the dark doublings: a raspasy after d dark passes is priced
    # x 2^min(d, dark_limit), and so is the bomb it earns [Code 3.3.19 a].
    dark_limit: int = 3
    # Rounds of forced raspasy that open the pulka, everyone deemed to pass dark
    # [Code 3.7.9]; a round is one deal by each player.
    opening_raspasy_rounds: int = 0
    # Gora points for looking at the talon before it is bought [Code 3.2.21].
    talon_peek_gora: int = 5
    # Gora points the dealer writes when the declarer refuses the talon, by agreement
    # [Code 3.4.10]; 0: not agreed.
    talon_refusal_gora: int = 0
    # The dealer writes a premium on the declarer for tricks given in the talon, by
    # agreement [Code 3.4.11].
    talon_premium: bool = False
    # With four players a misère may be shared in halves with the dealer [Code 3.6.9].
    misere_with_dealer: bool = False
    # With four players the defender whose cards the whisting dealer plays [Code 3.8.8]
    # writes his consolation on a failed declarer like every other player [Code 3.8.1.2,
    # footnote 36]; false: he writes nothing for the deal (how the ledger scored it first).
    hand_consolation: bool = False


SOCHI = RuleSet(
    convention="sochi",
    gora_whist_multiplier=1,
    consolation="price",
    single_whist_split="greedy",
    defence_responsibility="full",
    raspasy_model="gora",
    raspasy_progression=(1, 2),
    raspasy_whist_price=5,
    raspasy_zero_pulya="price",
    raspasy_amnesty=True,
    raspasy_talon=True,
    raspasy_dealer_pulya=0,
    raspasy_exit=6,
    raspasy_same_dealer=False,
    help=True,
    pulya_to_gora=1,
    half_whist_levels=(6, 7),
    ten_checked=False,
    jump_bids=True,
    misere_nine_ends_auction=True,
    hand_consolation=True,
)
LENINGRAD = msgspec.structs.replace(
    SOCHI,
    convention="leningrad",
    gora_whist_multiplier=2,
    single_whist_split="gentleman",
    defence_responsibility="half",
    raspasy_progression=(1, 2, 3),
    help=False,
    pulya_to_gora=2,
)
ROSTOV = msgspec.structs.replace(
    SOCHI,
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
CLASSIC = msgspec.structs.replace(
    SOCHI,
    convention="classic",
    dark_bids=True,
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
    "gora_whist_multiplier": N_("whists and gora are multiplied by this (Leningrad 2)"),
    "consolation": N_('whists per undertrick each other player writes on a failed declarer: "price" = p x multiplier, or a fixed number'),
    "single_whist_split": N_("one whister, one passer, remiz: greedy (passer writes only consolation) or gentleman (split equally)"),
    "defence_responsibility": N_("gora per trick the defence lacks: full (1 x p), half (1/2 x p), half_until_closed (Classic)"),
    "raspasy_model": N_("raspasy tricks go to gora, or (whists) the fewest-tricks player writes whists (Rostov)"),
    "raspasy_progression": N_("multiplier of consecutive raspasy; the last value repeats"),
    "raspasy_whist_price": N_("whists per trick on the Rostov raspasy"),
    "raspasy_zero_pulya": N_('pulya for a player taking no trick on raspasy: "price" (k x multiplier), points, or 0'),
    "raspasy_amnesty": N_("subtract the smallest trick count from everyone's before writing raspasy"),
    "raspasy_talon": N_("with 4 players the dealer plays the talon cards on raspasy"),
    "raspasy_dealer_pulya": N_("pulya of the sitting-out dealer on raspasy with 4 players (Rostov 1)"),
    "raspasy_exit": N_("the lowest contract in the deal after raspasy"),
    "raspasy_same_dealer": N_("the same dealer deals again after raspasy"),
    "help": N_("a closed player helps the others; false: pulyas grow freely, end at players x target"),
    "pulya_to_gora": N_("gora points a pulya point is worth: over or under the target at the end, helped, or nobody can take"),
    "half_whist_levels": N_("levels on which a defender may half-whist"),
    "ten_checked": N_("a 10 is checked without calls and carries no obligation"),
    "jump_bids": N_("any bid above the current one is legal; false enforces one step"),
    "misere_nine_ends_auction": N_("after a nine beats a misère nobody bids again (footnote 41's norm)"),
    "dealer_error_gora": N_("gora points for the dealer's second error at one deal; the deal passes on (3.2.17)"),
    "dealer_consolation": N_("with four players the sitting-out dealer writes consolation too (3.8.1.2)"),
    "raspasy_run_ends": N_("what ends a run of raspasy: any_deal, whisted_and_made or no_pass_misere_remiz"),
    "raspasy_exit_lasts": N_("the raised minimum after raspasy lasts until the run of raspasy ends"),
    "raspasy_exit_climbs": N_("each further raspasy of a run raises the minimum by one, up to 8"),
    "raspasy_unwhisted_resets": N_("an unwhisted contract restarts the raspasy progression when it ends the run"),
    "dark_bids": N_("dark passes, dark bids and dark misères, and the bombs they earn (3.3.19)"),
    "dark_limit": N_("the agreed limit of dark doublings: x 2^min(dark passes, dark_limit)"),
    "opening_raspasy_rounds": N_("rounds of forced raspasy, everyone passing dark, that open the pulka (3.7.9)"),
    "talon_peek_gora": N_("gora points for looking at the talon before it is bought (3.2.21)"),
    "talon_refusal_gora": N_("gora points the dealer writes when the declarer refuses the talon (3.4.10); 0: off"),
    "talon_premium": N_("the dealer writes a premium on the declarer for tricks in the talon (3.4.11)"),
    "misere_with_dealer": N_("with four players a misère may be shared in halves with the dealer (3.6.9)"),
    "hand_consolation": N_("with four players the defender whose cards the whisting dealer plays writes his consolation (3.8.1.2, 3.8.8)"),
}

PARAMETERS: tuple[str, ...] = tuple(f for f in RuleSet.__struct_fields__ if f != "convention")


def rule_values(rules: RuleSet) -> dict[str, Any]:
    """Every parameter with its value, the defaulted ones included (for people and JSON)."""
    return {f: msgspec.to_builtins(getattr(rules, f)) for f in RuleSet.__struct_fields__}


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
            _("unknown convention: {name}; the presets are {presets}; also known as: {others}").format(
                name=repr(name), presets=", ".join(PRESETS), others=others)
        ) from None


def resolve(convention: str, overrides: dict[str, Any] | None = None) -> RuleSet:
    """The preset with the overrides applied, checked; raises RuleSetError."""
    preset = find_preset(convention)
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(PARAMETERS))
    if unknown:
        raise RuleSetError(
            _("unknown rule parameter(s) {unknown}; the parameters are: {parameters}").format(
                unknown=", ".join(unknown), parameters=", ".join(PARAMETERS))
        )
    merged = msgspec.structs.asdict(preset)
    merged.update(overrides)
    try:
        rules = msgspec.convert(merged, RuleSet)
    except msgspec.ValidationError as exc:
        raise RuleSetError(_("bad rule value: {reason}").format(reason=plain(str(exc)))) from None
    check(rules)
    return rules


def check(rules: RuleSet) -> None:
    """Refuse values no game could be played by."""
    problems = []
    if rules.gora_whist_multiplier < 1:
        problems.append(_("gora_whist_multiplier must be 1 or more"))
    if isinstance(rules.consolation, int) and rules.consolation < 0:
        problems.append(_('consolation must be "price" or a whole number of whists, 0 or more'))
    if not rules.raspasy_progression or any(k < 1 for k in rules.raspasy_progression):
        problems.append(_("raspasy_progression must be a non-empty list of multipliers of 1 or more"))
    if rules.raspasy_whist_price < 0:
        problems.append(_("raspasy_whist_price must be 0 or more"))
    if isinstance(rules.raspasy_zero_pulya, int) and rules.raspasy_zero_pulya < 0:
        problems.append(_('raspasy_zero_pulya must be "price" or a number of points, 0 or more'))
    if rules.raspasy_dealer_pulya < 0:
        problems.append(_("raspasy_dealer_pulya must be 0 or more"))
    if rules.raspasy_exit not in (6, 7, 8):
        problems.append(_("raspasy_exit must be 6, 7 or 8"))
    if rules.pulya_to_gora < 1:
        problems.append(_("pulya_to_gora must be 1 or more"))
    if any(level not in (6, 7, 8, 9, 10) for level in rules.half_whist_levels):
        problems.append(_("half_whist_levels may only name the levels 6 to 10"))
    if rules.dealer_error_gora < 0:
        problems.append(_("dealer_error_gora must be 0 or more"))
    if not 1 <= rules.dark_limit <= 3:
        problems.append(_("dark_limit must be 1, 2 or 3 doublings"))
    if rules.opening_raspasy_rounds < 0:
        problems.append(_("opening_raspasy_rounds must be 0 or more"))
    if rules.opening_raspasy_rounds and not rules.dark_bids:
        problems.append(_("opening_raspasy_rounds needs dark_bids: the forced raspasy are dark (3.7.9)"))
    if rules.talon_peek_gora < 0 or rules.talon_refusal_gora < 0:
        problems.append(_("talon_peek_gora and talon_refusal_gora must be 0 or more"))
    if problems:
        raise RuleSetError("; ".join(problems))


def rule_set_to_dict(rules: RuleSet) -> dict[str, Any]:
    return rule_values(rules)

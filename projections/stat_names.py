"""A player's statistics by their names, as a person reads them in his language.

A number of ``projections.stats`` has a key (``pulkas.in_play``, ``contracts.6NT.made``,
``vs.Анна.ahead``): what ``pulka stats NAME NUMBER`` is typed with, and what the JSON
documents and the pages' ``data-number`` keep (a test finds a row by it). A page shows its name instead
(``number_name``): ``пульки в игре``, ``игры 6БК: сыграны``, ``за одним столом — Анна:
впереди``: a contract in the players' notation, another player's name where Russian
keeps it in the nominative (after a dash or a colon), so that no case has to be chosen.
"""

from __future__ import annotations

from ledger.vocabulary import language
from ledger.vocabulary.bids import spoken_contract
from ledger.vocabulary.language import N_

_ = language._  # every text a person reads, in the language in effect

# The fixed numbers' names and the parts of the others (projections.stats.FIXED).
_NAMES = {
    "pulkas": N_("pulkas over"), "pulkas.finished": N_("pulkas finished"),
    "pulkas.abandoned": N_("pulkas abandoned"), "pulkas.first": N_("pulkas won (the highest result)"),
    "pulkas.in_play": N_("pulkas in play"),
    "deals": N_("deals dealt"),
    "contracts": N_("games declared"), "contracts.made": N_("games made"), "contracts.remiz": N_("games down"),
    "misere": N_("misères declared"), "misere.made": N_("misères made"), "misere.failed": N_("misères failed"),
    "defence.whist": N_("defences: whist"), "defence.half_whist": N_("defences: half-whist"),
    "defence.pass": N_("defences: pass"),
    "remizes": N_("remizes"), "remizes.declarer": N_("remizes as declarer"),
    "remizes.whist": N_("remizes as whister"),
    "raspasy": N_("raspasy played"), "raspasy.clean": N_("raspasy without a trick"),
    "errors": N_("errors in records"), "errors.warning": N_("errors: warnings"),
    "errors.equal_for_equal": N_("errors: equal for equal"), "errors.late": N_("errors: late records"),
    "penalties": N_("penalties"),
}
# A level's or a contract's games, and those made or down, each said whole (Russian
# agrees the words with the games: сыграны).
_BY_LEVEL = {"": N_("games of {level}"), "made": N_("games of {level} made"), "remiz": N_("games of {level} down")}
_BY_CONTRACT = {"": N_("games {contract}"), "made": N_("games {contract} made"),
                "remiz": N_("games {contract} down")}
_SIDES = {"ahead": N_("ahead"), "behind": N_("behind"), "level": N_("level")}


def number_name(key: str) -> str:
    """The name of the number ``key`` in the language in effect; a key this does not
    know, as it is."""
    if key in _NAMES:
        return _(_NAMES[key])
    if key.startswith("contracts."):
        level, _sep, result = key[len("contracts."):].partition(".")
        if result not in _BY_LEVEL:
            return key
        if level.isdigit():
            return _(_BY_LEVEL[result]).format(level=level)
        return _(_BY_CONTRACT[result]).format(contract=spoken_contract(level))
    if key.startswith("vs."):
        rest = key[len("vs."):]
        name, _sep, side = rest.rpartition(".")
        if side in _SIDES and name:
            return _("with {player}: {side}").format(player=name, side=_(_SIDES[side]))
        return _("pulkas with {player}").format(player=rest)
    return key

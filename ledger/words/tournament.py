"""The tournament's own words, as a director writes them to start one (``pulka tournament
new``, the API's new tournament): the cut-off function ``200:1,650:1/10,*:0``, a cut
``TOUR:KEEP``, and an order of tie-breaks ``whists,tours_won,lot``, each turned into the
parts of ``tournament_started``.

A word that cannot be read is refused (the rule of the field it is for, and the field);
what the parts then say is judged when the tournament starts (``ledger.judge.tournament``).
The reasons name the command line's options, as they always have: the command line
says them alone, as a mistake in an option.
"""

from __future__ import annotations

from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import DEFAULT_TIE_BREAKS, TIE_BREAKS, CutRule, Segment, TieBreak
from ledger.vocabulary.wording import digits

_ = language._  # every text a person reads, in the language in effect


def parse_cutoff(text: str | None) -> tuple[Segment, ...]:
    """``200:1,650:1/10,*:0``: up to 200 whists in full, a tenth up to 650, nothing above."""
    if not text:
        return ()
    segments = []
    for part in text.split(","):
        bound, sep, rate = part.strip().partition(":")
        if not sep or not rate:
            raise Refused("tournament.cutoff", _("--cutoff takes UPTO:RATE,…, e.g. 200:1,650:1/10,*:0; not "
                                                 "{part}").format(part=repr(part)), field="cutoff")
        if bound == "*":
            upto = None
        elif digits(bound):
            upto = int(bound)
        else:
            raise Refused("tournament.cutoff", _("--cutoff bound {bound} is not a whole number of whists or *").format(
                bound=repr(bound)), field="cutoff")
        segments.append(Segment(upto, rate))
    return tuple(segments)


def parse_cut(text: str) -> CutRule:
    """``2:8``: after tour 2 the first 8 go on."""
    tour, sep, keep = text.partition(":")
    if not (sep and digits(tour) and digits(keep)):
        raise Refused("tournament.cuts", _("--cut takes TOUR:KEEP (after tour TOUR the first KEEP go on), not "
                                           "{text}").format(text=repr(text)), field="cuts")
    return CutRule(int(tour), int(keep))


def parse_tie_breaks(text: str | None) -> tuple[TieBreak, ...]:
    """``whists,remizes,lot``: the tie-breaks in their order (none given: the default)."""
    if not text:
        return DEFAULT_TIE_BREAKS
    order = []
    for item in text.split(","):
        name = item.strip()
        match = next((b for b in TIE_BREAKS if b == name), None)
        if match is None:
            raise Refused("tournament.tie_breaks", _("unknown tie-break {name}; the tie-breaks are {known}").format(
                name=repr(name), known=", ".join(TIE_BREAKS)), field="tie_breaks")
        order.append(match)
    return tuple(order)

"""What the judge's hot paths remember or skip must change nothing: ``parse_time``
remembers the last times it read (the judge reads each event's time when it admits it
and again when it compares it with the next), so what it remembers must be what
reading the text again gives, and a refused text is refused every time, in the
language in effect; ``joined`` gives a reason joined to no tag as it is, spoken the same;
``defence_view`` remembers the views it worked out, each the view worked out afresh;
``admit`` checks an event's time without remembering it beside the names, and still
refuses a bad time after good ones; ``as_stored`` gives an event whose dicts are in the
store's order already (every stored one) as it is, and puts any other in that order."""

from __future__ import annotations

import pytest

from ledger.vocabulary import language
from ledger.vocabulary.times import TimeFormatError, parse_time

TEXTS = [f"2026-11-30T20:{m:02d}:{s:02d}{zone}" for m in range(0, 60, 7) for s in (0, 59)
         for zone in ("+01:00", "Z", "-03:30")]


def test_a_remembered_time_is_the_time_read_afresh() -> None:
    fresh = parse_time.__wrapped__  # the reading itself, remembering nothing
    for _ in range(2):  # the second round is read from what was remembered
        for text in TEXTS:
            assert parse_time(text) == fresh(text)
            assert parse_time(text).utcoffset() == fresh(text).utcoffset()


@pytest.mark.parametrize("text", ["2026-11-30T20:14:03", "yesterday", "2026-11-30T20:14:03+01:00:30",
                                  "2026-11-30T20:14:03-03:30:30", "2026-11-30T20:14:03+01:00:00.500000"])
def test_a_refused_time_is_refused_again_in_the_language_in_effect(text: str) -> None:
    before = language.language()
    try:
        said = []
        for tongue in ("en", "ru", "en"):
            language.set_language(tongue)
            with pytest.raises(TimeFormatError) as refused:
                parse_time(text)
            said.append(str(refused.value))
        assert said[0] == said[2] and said[0] != said[1]
    finally:
        language.set_language(before)


def test_a_reason_joined_to_no_tag_is_spoken_as_the_reason_itself() -> None:
    """``joined(why, "")`` gives ``why`` as it is (scoring joins each write's reason to a
    ruling's tag, mostly empty): it reads and is spoken in every language as the two
    parts joined were."""
    from ledger.vocabulary.wording import Said, joined, said, spoken_text

    before = language.language()
    try:
        for why in (said("{contract} made{penal}{ruled}", contract="6♠", penal="", ruled=""), "plain text"):
            both = Said(why + "")  # the two parts joined, as ``joined`` makes them with a tag
            both.message, both.values = "{p0}{p1}", {"p0": why, "p1": ""}
            alone = joined(why, "")
            assert alone is why
            for tongue in ("en", "ru"):
                language.set_language(tongue)
                assert spoken_text(alone) == spoken_text(both)
            language.set_language("ru")
            assert isinstance(why, str) and (spoken_text(alone) != why) == isinstance(why, Said)
    finally:
        language.set_language(before)


def test_a_remembered_defence_view_is_the_view_worked_out_afresh() -> None:
    """Every legal sequence of calls of every kind of deal, for each seating of the
    defenders (and the four-player dealer), asked twice in an order that mixes them:
    each answer is what the automaton works out afresh for those arguments alone."""
    import itertools

    import msgspec

    from ledger.vocabulary.bids import parse_level
    from ledger.vocabulary.rules import SOCHI
    from projections import deal_state
    from projections.deal_state import _defence_view, _table, defence_view

    asked = []
    for gentleman, forced, level in itertools.product((False, True), (False, True), ("6s", "8s")):
        rules = msgspec.structs.replace(SOCHI, single_whist_split="gentleman" if gentleman else "greedy",
                                        half_whist_levels=(6, 7))
        contract = parse_level(level)
        assert contract is not None
        for d1, d2, dealer in ((1, 2, None), (2, 0, None), (0, 1, 2), (0, 1, 3), (2, 3, 0)):
            kind = (dealer is not None, contract.level in rules.half_whist_levels, gentleman, forced)
            for roles in _table(*kind):
                seat = {1: d1, 2: d2, 3: dealer}
                calls = [(seat[r], call) for r, call in roles]
                asked.append(((calls, d1, d2, dealer, contract, rules, forced), (_table(*kind), calls, d1, d2, dealer)))
    assert len(asked) > 100
    deal_state._VIEWS.clear()
    for _ in range(2):
        for args, afresh in [*asked, *reversed(asked)]:
            assert defence_view(*args) == _defence_view(*afresh)


def test_a_bad_time_is_refused_after_good_ones_and_leaves_the_remembered_names() -> None:
    from ledger.judge.admission import _admitted, admit
    from ledger.vocabulary.events import Bid
    from ledger.vocabulary.refusal import Refused

    good = [Bid(player="Anna", bid="pass", at=text) for text in TEXTS]
    for event in good:
        admit(event)
    assert ("player", "Anna") in _admitted and not any(role == "at" for role, _ in _admitted)
    for bad in ("", "2026-11-30T20:14:03", "2026-11-30T20:14:03+01:00:30"):
        with pytest.raises(Refused) as refused:
            admit(Bid(player="Anna", bid="pass", at=bad))
        assert "`at`" in refused.value.reason
        admit(good[-1])  # and a good time after it is admitted again


def test_an_event_in_the_store_s_order_is_given_as_it_is_and_one_typed_otherwise_is_put_in_it() -> None:
    from ledger.vocabulary.events import Correction, Tricks, as_stored, decode_event, encode_event

    typed = [Tricks(tricks={"Masha": 6, "Anna": 2, "Boris": 2}, deal=1),
             Correction(target=3, replacement={"tricks": {"Masha": 6, "Anna": 4}, "deal": 1}),
             Correction(target=3, replacement={"deal": 1, "plays": [{"b": 1, "a": 2}]})]
    for event in typed:
        stored = decode_event(encode_event(event))  # as the store gives it back
        ordered = as_stored(event)
        assert ordered is not event and ordered == stored
        assert encode_event(ordered) == encode_event(stored)
        assert repr(ordered) == repr(stored)  # the dicts' order too, at every depth
        assert as_stored(stored) is stored
        assert as_stored(ordered) is ordered

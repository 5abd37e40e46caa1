"""The club rating's models on known numbers (``projections.rating_models``), so that a
change of their arithmetic, or of a dependency's, fails here instead of re-rating a
club's archive in silence.

- ``whists-per-deal``, the model in effect, is the project's own: its numbers on a tiny
  archive worked by hand (below), and on a longer random one against the model worked
  again in exact fractions by its matrix form (``rating_worked``);
- its properties: a win at a table of four is worth at least one at a table of three
  against equal opponents; a player last with a loss of whists never gains; a short
  pulka moves a rating less than a long one; sigma grows with absence, up to the prior;
- ``openskill-places``, the rating until issue 34, is the ``openskill`` package's: its
  numbers pinned as the package's 6.2.0 gives them (its margin changes after it, and
  ``pyproject.toml`` pins the version exactly).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rating_worked
from projections import rating as fold
from projections.rating_models import (DEFAULT, MODELS, OpenSkillPlaces, ParameterError, Skill, WhistsPerDeal,
                                       model_of)

HOUR = 3600 * 10**6
DAY = 24 * HOUR


def test_a_tiny_archive_worked_by_hand() -> None:
    """Two pulkas, worked by hand with the model's documented parameters (prior 2, luck
    30, drift 0.02 a day):

    1. ``a``: 5 deals, newcomers A, B, C (mu 0, sigma 2) with -23, -9, +32. The luck's
       variance 30^2 / 5 = 180, each share k = 4 / (4 + 180) = 1/46; the beliefs are
       equal, so the table's level c = mean mu - mean result = 0, and mu = k x result a
       deal: A -23/5 / 46 = -0.1, B -9/5 / 46 = -0.039130, C 32/5 / 46 = 0.139130;
       sigma^2 = 4 x 180/184 + k^2 / (3/184) = 3.942029, sigma 1.985454. Expected: 0
       for everyone (equal ratings).
    2. ``b``, seven days after ``a`` ended: 10 deals, A, B and newcomers D, E, with
       +60, -30, -10, -20. A's and B's variance grown by 0.02^2 x 7: 3.944829; the
       luck's 30^2/10 = 90; weights 1/(v + 90): A, B 1/93.944829, D, E 1/94; the level
       c = sum(w (mu - r/10)) / sum(w) = (-6.1 + 2.960870)/93.944829 + (1 + 2)/94, over
       0.042566: -0.035232; A's share 3.944829/93.944829 = 0.041991; A's move
       0.041991 x (6 - 0.035232 + 0.1) = +0.254666: mu 0.154666; B's 0.041991 x
       (-3 - 0.035232 + 0.039130) = -0.125809: mu -0.164939. A expected
       10 x (-0.1 - (-0.1 - 0.039130)/4) = -0.652174 whists... of the table's mean
       (-0.139130/4 = -0.034783): 10 x (-0.1 + 0.034783) = -0.652.
    """
    m = WhistsPerDeal()
    a = fold.Match("a", HOUR, "sochi", (("A", -23), ("B", -9), ("C", 32)), 0, 5)
    b = fold.Match("b", HOUR + 7 * DAY + HOUR, "sochi", (("A", 60), ("B", -30), ("D", -10), ("E", -20)),
                   HOUR + 7 * DAY, 10)
    changes = {(c.game, c.player): c for c in fold.rate_matches([b, a], lambda n: n, m)}  # in their order
    first = [changes[("a", p)] for p in "ABC"]
    assert [round(c.after.mu, 6) for c in first] == [-0.1, -0.03913, 0.13913]
    assert all(round(c.after.sigma, 6) == 1.985454 and c.expected == 0 and c.share == 1 / 46 for c in first)
    A, B = changes[("b", "A")], changes[("b", "B")]
    assert round(A.before.sigma ** 2, 6) == 3.944829  # grown over the seven days away
    assert round(A.share, 6) == 0.041991
    assert round(A.after.mu, 6) == 0.154665 and round(B.after.mu, 6) == -0.16494
    assert round(A.expected, 3) == -0.652 and A.place == 1 and A.seats == 4 and A.deals == 10
    assert round(A.opponents, 6) == round((-0.039130434782608696 + 0 + 0) / 3, 6)


def test_the_model_equals_its_matrix_form_worked_in_exact_fractions() -> None:
    """Random tables of three and four, of 0 to 30 deals, Leningrad's among them, players
    coming and going: the closed form in floats agrees with the exact conditioning."""
    rng = random.Random(34)
    pulkas, matches = [], []
    t = 10**15
    for g in range(12):
        n = rng.choice((3, 4))
        who = rng.sample("abcdef", n)
        results = [rng.randint(-150, 150) for _ in range(n - 1)]
        results.append(-sum(results))
        deals, scale = rng.randint(0, 30), rng.choice((1, 2))
        t += rng.randint(1, 20) * DAY // 3
        entries = tuple(zip(who, results, strict=True))
        pulkas.append(rating_worked.Pulka(f"g{g:02d}", t, t + HOUR, deals, scale, entries))
        matches.append(fold.Match(f"g{g:02d}", t + HOUR, "sochi", entries, t, deals, scale))
    exact = rating_worked.fold(pulkas)
    lines = {x.player: x for x in fold.table(fold.rate_matches(matches, lambda n: n), _named())}
    for player, (mu, variance, n) in exact.items():
        assert lines[player].skill.mu == pytest.approx(float(mu), abs=1e-12)
        assert lines[player].skill.sigma == pytest.approx(math.sqrt(variance), abs=1e-12)
        assert lines[player].matches == n


def _named() -> fold.Identities:
    return fold.identities((), ())


def test_a_four_player_win_is_worth_at_least_a_three_player_win() -> None:
    m = WhistsPerDeal()
    for deals in (4, 12, 25, 40):
        for win in (10, 60, 200):
            three = m.rate([win, -win // 2, win // 2 - win], deals, [m.start] * 3)
            four = m.rate([win, -win // 3, -win // 3, win // 3 * 2 - win], deals, [m.start] * 4)
            assert four[0].after.mu >= three[0].after.mu > 0
            # and each loser at the four loses less: the loss is shared by three
            assert min(x.after.mu for x in four[1:]) >= min(x.after.mu for x in three[1:])


@settings(max_examples=300, deadline=None)
@given(seats=st.sampled_from((3, 4)), deals=st.integers(0, 60), data=st.data())
def test_a_loss_of_whists_never_raises_the_rating_of_the_last(seats: int, deals: int, data: st.DataObject) -> None:
    """Whatever the players' beliefs (a weak player who loses less than expected too),
    the last with a loss never gains, and the first with a win never loses."""
    m = WhistsPerDeal()
    before = [Skill(data.draw(st.floats(-6, 6)), data.draw(st.floats(0.05, 2))) for _ in range(seats)]
    results = [data.draw(st.integers(-400, 400)) for _ in range(seats - 1)]
    results.append(-sum(results))
    for r, b, x in zip(results, before, m.rate(results, deals, before), strict=True):
        if r < 0 and r == min(results):
            assert x.after.mu <= b.mu
        if r > 0 and r == max(results):
            assert x.after.mu >= b.mu


def test_a_short_pulka_moves_less_and_sigma_grows_with_absence() -> None:
    m = WhistsPerDeal()
    short = m.rate([40, -10, -30], 4, [m.start] * 3)[0]
    long_ = m.rate([40 * 6, -60, -180], 24, [m.start] * 3)[0]  # the same result a deal, six times as long
    assert 0 < short.after.mu < long_.after.mu and short.share < long_.share
    sure = Skill(1.0, 0.5)
    assert m.grown(sure, 0) == sure
    assert m.grown(sure, 100 * DAY).sigma == pytest.approx(math.sqrt(0.25 + 0.0004 * 100))
    assert m.grown(sure, 100_000 * DAY) == Skill(1.0, 2.0)  # never beyond a newcomer's
    assert m.provisional(Skill(0, 1.01)) and not m.provisional(Skill(0, 1.0))


def test_same_instant_pulkas_are_rated_by_their_start_then_their_name_by_code_point() -> None:
    m = WhistsPerDeal()
    end = 10 * HOUR
    late = fold.Match("a-late", end, "sochi", (("A", 30), ("B", -10), ("C", -20)), 5 * HOUR, 10)
    early = fold.Match("z-early", end, "sochi", (("A", -30), ("B", 10), ("C", 20)), 4 * HOUR, 10)
    upper = fold.Match("B", end, "sochi", (("A", 5), ("B", -5), ("C", 0)), 5 * HOUR, 10)
    assert [x.game for x in fold.ordered([late, upper, early])] == ["z-early", "B", "a-late"]  # "B" < "a"
    assert fold.rate_matches([late, early, upper], lambda n: n, m) == \
        fold.rate_matches([upper, late, early], lambda n: n, m)


def test_a_pulka_of_one_person_in_two_seats_moves_nobody() -> None:
    """Two names the register joins at one table (a store written before the register
    refused it [club.alias]): no match between people, so nobody is moved by it, and the
    views' keeper, which rates through ``changes_of`` too, stores no two moves of one
    person for one game (their table's key)."""
    m = WhistsPerDeal()
    one = {"Sasha": "Alexander"}
    key = lambda n: one.get(n, n)  # noqa: E731
    twice = fold.Match("twice", 2 * HOUR, "sochi", (("Sasha", 40), ("Alexander", -20), ("Vera", -20)), HOUR, 10)
    later = fold.Match("later", 4 * DAY, "sochi", (("Alexander", 10), ("Vera", -10), ("Boris", 0)), 3 * DAY, 10)
    assert fold.changes_of(twice, [key(n) for n, _ in twice.entries], [None, None, None], m) == []
    assert fold.rate_matches([twice, later], key, m) == fold.rate_matches([later], key, m)
    assert fold.rate_matches([twice, later], lambda n: n, m) != fold.rate_matches([later], lambda n: n, m)


# -- the models pinned ----------------------------------------------------------------


def test_whists_per_deal_on_known_numbers() -> None:
    """The default model's numbers on one table, as this version computes them: a change
    of its arithmetic must come with a new model's name (the club's log names it). The
    exact form (``rating_worked``) gives the same to the last digit or one unit of it:
    mu 0.5800904587623904, -0.3044557310132988, -0.026882842487823463; the expected
    result is 2 x 20 x (mu - the table's mean mu)."""
    m = model_of(DEFAULT)
    assert m.name == "whists-per-deal" and m.parameters == {"prior": "2", "luck": "30", "drift": "0.02",
                                                            "provisional": "1"}
    moved = m.rate([120, -40, -80], 20, [Skill(0.5, 1.2), Skill(-0.25, 2.0), Skill(0.0, 0.8)], 2)
    assert [(x.after.mu, x.after.sigma, x.expected, x.share) for x in moved] == [
        (0.5800904587623904, 1.18760549472128, 16.666666666666668, 0.031007751937984496),
        (-0.3044557310132988, 1.9436651277564991, -13.333333333333332, 0.08163265306122448),
        (-0.026882842487823466, 0.7963071133261242, -3.333333333333333, 0.014022787028922)]


def test_openskill_places_as_its_pinned_version_gives_it() -> None:
    """The rating until issue 34 (``openskill`` 6.2.0, margin 40): a second of three with
    a loss of 40 whists gains (the margin of that version, which upstream calls
    inverted and changed after it: ``pyproject.toml`` pins 6.2.0 exactly)."""
    m = OpenSkillPlaces()
    first = m.rate([120, -40, -80], 20, [m.start] * 3)
    assert [(x.after.mu, x.after.sigma) for x in first] == [
        (27.869048680749426, 8.205243377397993), (25.717262170187357, 8.058224222802378),
        (21.413689149063217, 8.058224222802378)]
    second = m.rate([-10, 70, -50, -10], 30, [x.after for x in first] + [m.start])
    assert [(x.after.mu, x.after.sigma) for x in second] == [
        (27.226541501003368, 8.041249958173372), (28.369028640718692, 7.9939931870772325),
        (19.670799602284436, 7.931555601840872), (24.690733766894805, 8.172109519960465)]
    assert [round(x.expected, 6) for x in second] == [2.15586, 2.412776, 2.931307, 2.500058]
    assert m.shown(first[0].after) == first[0].after.mu - 3 * first[0].after.sigma


def test_a_model_and_its_parameters_are_refused_plainly() -> None:
    assert set(MODELS) == {"whists-per-deal", "openskill-places"}
    assert model_of("whists-per-deal", {"prior": "3", "luck": "25.5"}).parameters["luck"] == "25.5"
    for name, params, said in (("elo", {}, "not a rating model"), ("whists-per-deal", {"beta": "1"}, "not a parameter"),
                               ("whists-per-deal", {"prior": "0"}, "allowed from 0.1 to 20"),
                               ("whists-per-deal", {"luck": "lots"}, "not a number"),
                               ("openskill-places", {"margin": "-1"}, "allowed from 0 to 1000")):
        with pytest.raises(ParameterError, match=said):
            model_of(name, params)
    assert Fraction(model_of("whists-per-deal", {"drift": "0.05"}).parameters["drift"]) == Fraction(1, 20)

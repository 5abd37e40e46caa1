"""Who pays whom: the payments settle every balance exactly, and there are as few as the
balances allow."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from projections.settlement import transfers


def settles(balances: dict[str, int], payments: list[tuple[str, str, int]]) -> bool:
    net = dict.fromkeys(balances, 0)
    for payer, payee, amount in payments:
        assert amount > 0 and payer != payee
        net[payer] -= amount
        net[payee] += amount
    return net == balances


@given(st.lists(st.integers(-500, 500), min_size=2, max_size=3))
def test_payments_settle_every_balance_with_at_most_one_fewer_than_the_players(values: list[int]) -> None:
    names = ["Anna", "Boris", "Vera", "Gleb"][: len(values) + 1]
    balances = dict(zip(names, [*values, -sum(values)]))
    payments = transfers(balances)
    assert settles(balances, payments)
    assert len(payments) <= max(0, sum(1 for v in balances.values() if v) - 1)


def test_two_pairs_that_cancel_pay_twice_not_three_times() -> None:
    balances = {"Anna": 10, "Boris": -10, "Vera": 5, "Gleb": -5}
    payments = transfers(balances)
    assert sorted(payments) == [("Boris", "Anna", 10), ("Gleb", "Vera", 5)]


def test_one_winner_is_paid_by_each_loser() -> None:
    assert transfers({"Anna": 106, "Boris": -53, "Vera": -53}) == [("Boris", "Anna", 53), ("Vera", "Anna", 53)]
    assert transfers({"Anna": 0, "Boris": 0, "Vera": 0}) == []

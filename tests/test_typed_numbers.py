"""Numbers a person types, at the doors that read them: ASCII digits and a sane length.

``str.isdigit`` takes ``²`` (which ``int`` refuses) and ``٣`` (which ``int`` reads as 3),
and ``int`` refuses text of more than 4300 digits: each of these once reached ``int``
unguarded and ended a command as an internal error (exit status 3) instead of a refusal
naming the field. Every reader of typed numbers now asks ``ledger.vocabulary.wording.digits``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner

from cli.main import main
from ledger.vocabulary.bridge import ContractError, parse_contract
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import parse_table_game
from ledger.vocabulary.wording import MOST_DIGITS, digits
from ledger.words.rubber_line import rubber_deal
from ledger.words.table import level_word, target_word, trick_counts
from ledger.words.tournament import parse_cut, parse_cutoff
from web.api_common import int_param

# Superscript two, Arabic-Indic three, full-width seven, a number past int's limit, a double minus.
NOT_NUMBERS = ("²", "٣", "７", "9" * 5000, "--5")
PLAYERS = ("Anna", "Boris", "Vera")


def test_digits_are_ascii_and_bounded() -> None:
    assert digits("0") and digits("12") and digits("9" * MOST_DIGITS)
    for text in ("", "-1", "1.5", " 1", "1_0", "9" * (MOST_DIGITS + 1), *NOT_NUMBERS):
        assert not digits(text), text


READERS: dict[str, Callable[[str], Any]] = {
    "--cutoff": lambda n: parse_cutoff(f"{n}:1"),
    "--cut": lambda n: parse_cut(f"{n}:4"),
    "--cut's keep": lambda n: parse_cut(f"1:{n}"),
    "a record": target_word,
    "tricks": lambda n: trick_counts(PLAYERS, [f"Anna={n}"]),
    "a bridge result": lambda n: rubber_deal(("N", "E", "S", "W"), f"4S N {n}"),
    "honours": lambda n: rubber_deal(("N", "E", "S", "W"), f"4S N 10 hon E {n}"),
    "a query": lambda n: int_param({"at": n}, "at"),
}


@pytest.mark.parametrize("text", NOT_NUMBERS)
@pytest.mark.parametrize("reader", READERS)
def test_a_reader_refuses_what_is_not_a_typed_number(reader: str, text: str) -> None:
    with pytest.raises(Refused) as refused:
        READERS[reader](text)
    assert refused.value.rule and refused.value.reason  # a refusal naming its rule, not int's ValueError


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_words_that_only_look_like_numbers_are_not_levels_contracts_or_tables(text: str) -> None:
    assert level_word(f"{text} spades") is None
    assert parse_table_game(f"cup/{text}/1") is None and parse_table_game(f"cup/1/{text}") is None
    with pytest.raises(ContractError):
        parse_contract(f"{text}S")


def test_the_same_readers_take_ascii_numbers() -> None:
    assert parse_cutoff("200:1,*:0")[0].upto == 200 and parse_cut("2:8") == parse_cut("2:8")
    assert target_word("-3") == -3 and trick_counts(PLAYERS, ["Anna=4"]) == {"Anna": 4}
    assert int_param({"at": "-2"}, "at") == -2 and parse_table_game("cup/2/1") == ("cup", 2, 1)


@pytest.mark.sqlite_only
@pytest.mark.parametrize("cutoff", ["²:1", "9" * 5000 + ":1"])
def test_the_command_line_refuses_them_as_input_not_as_its_own_fault(tmp_path: Any, cutoff: str) -> None:
    """Exit status 1 (a refusal of the input, nothing stored), not 3 (pulka's fault)."""
    db = str(tmp_path / "club.db")
    said = CliRunner().invoke(main, ["--db", db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera",
                                     "--pulya", "4", "--cutoff", cutoff])
    assert said.exit_code == 1, said.output
    assert "--cutoff bound" in said.stderr and "internal error" not in said.stderr
    listed = CliRunner().invoke(main, ["--db", db, "tournament", "list"])
    assert "cup" not in listed.stdout

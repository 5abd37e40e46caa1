"""A player named by the beginning of his name in the scorer's session (issue 31, finding
7): ``в`` and ``п`` are also whist and pass, and ``q``, ``u``, ``h`` the session's own words
(end, undo, help), or a command's name (``log``). The rule (docs/event-log.md, the
README): a line that opens with a word naming one player, then a contract, is that
player's deal; anything else is read as before. Before the rule ``q 6S w w 6* 2 2`` ended
the session without storing the deal, and ``u 6S …`` was an undo refused."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli.main import main
from ledger.words.table import opens_with_declarer

# The subject is how a line is read, not the store: SQLite only (conftest.py).
pytestmark = pytest.mark.sqlite_only


def session(db: str, players: str, typed: list[str], lang: str = "en") -> str:
    ok = CliRunner().invoke(main, ["new", "g", "--players", players, "--first-dealer", players.split(",")[1], "-q",
                                   "--db", db], catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    result = CliRunner().invoke(main, ["--lang", lang, "play", "g", "--db", db], input="\n".join(typed) + "\n",
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_line_that_opens_with_its_declarer_is_a_deal_whatever_its_first_word(store_url: str) -> None:
    said = session(store_url, "Quinn,Anna,Uma", ["q 6S w w 6* 2 2", "u 7H w p 7* 2 1", "u", "sheet", "q"])
    assert "deal 1 (events 2-8): Uma pass, Quinn 6S, Anna pass" in said  # q: Quinn's deal, not the end
    assert "deal 2 (events 9-15): Quinn pass, Anna pass, Uma 7H" in said  # u: Uma's deal, not an undo
    assert "withdrawn while in hand: events from 9 on" in said  # u alone: the undo, as ever
    assert "settlement of g" in said  # q alone: the end, settled


def test_v_and_p_name_vera_and_pyotr_in_a_russian_session(store_url: str) -> None:
    said = session(store_url, "Вера,Анна,Пётр", ["в 6п в в 6* 2 2", "п мизер 0", "end"], lang="ru")
    assert "Вера 6♠" in said and "Пётр мизер" in said and "отказано" not in said


@pytest.mark.parametrize(("line", "meant"), [
    ("q 6S w w 6 2 2", True), ("u 7♥ в п 7 2 1", True), ("в 6п в в 6 2 2", True), ("п мизер 0", True),
    ("u", False), ("q", False), ("log --only-deal 3", False), ("undo 2", False), ("6S pass pass | 6S", False),
    ("a 6S w w 6 2 2", False),  # Anna and Alla: the beginning of two names names nobody
])
def test_which_lines_open_with_a_declarer(line: str, meant: bool) -> None:
    assert opens_with_declarer(("Quinn", "Anna", "Uma", "Вера", "Пётр", "Alla"), line) is meant

"""Russian on the service's pages and downloads (issue 31, finding 7), read where each
rule lives: the tournament's report downloaded for a tournament named in Cyrillic, its
frame in the reader's language; the names in the case a sentence needs (phrasing that
needs none: a name stands where Russian keeps it in the nominative)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from click.testing import CliRunner

from cli.main import main
from ledger.vocabulary import language
from ledger.vocabulary.language import ngettext
from tests.serving import client

# The subject is what a page says, not the store: SQLite only (conftest.py).
pytestmark = pytest.mark.sqlite_only

PLAYERS = "Анна,Борис,Вера,Глеб,Дина,Егор"


def cli(db: str, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def spring(db: str) -> None:
    """A tournament named in Cyrillic, its first tour started, a deal at its first table."""
    cli(db, "tournament", "new", "весна", "--players", PLAYERS, "--pulya", "4", "--table-size", "3", "--tours", "2",
        "--deal-cap", "6")
    cli(db, "tournament", "seat", "весна", "1", "1", "Анна,Борис,Вера")
    cli(db, "tournament", "seat", "весна", "1", "2", "Глеб,Дина,Егор")
    cli(db, "tournament", "start", "весна", "1")
    cli(db, "deal", "весна/1/1", "Анна 6S w w 6 2 2")


def test_the_tournament_report_of_a_cyrillic_tournament_downloads_in_russian(tmp_path: Path) -> None:
    """A tournament named in Cyrillic: the download was an internal error (its file name
    put in a header as it was); now its plain name is ASCII and its name whole in
    ``filename*``; the page's frame speaks the reader's language."""
    db = str(tmp_path / "pulka.db")
    spring(db)
    with client(db) as c:
        r = c.get(f"/tournament/{quote('весна')}/report?lang=ru")
        assert r.status_code == 200, r.text
        disposition = r.headers["content-disposition"]
        assert disposition.startswith('attachment; filename="tournament-_____.html"; filename*=UTF-8\'\''), disposition
        assert unquote(disposition.rpartition("''")[2]) == "tournament-весна.html"
        page = r.text
        assert '<html lang="ru">' in page and "<title>турнир весна</title>" in page
        for heading in ("Турнирная таблица", "Туры и столы", "Листы столов"):
            assert f"<h2>{heading}</h2>" in page
        assert '"Tour {tour}":"Тур {tour}"' in page and '"over, counted at the close":"окончен, ' in page
        assert '"players_said":"6 игроков"' in page and '"tours_said":"1 тур"' in page
        english = c.get(f"/tournament/{quote('весна')}/report?lang=en").text
        assert '<html lang="en">' in english and "<h2>Standings</h2>" in english and "<title>tournament весна</title>" in english


@pytest.mark.parametrize(("n", "form"), [(1, "вист"), (3, "виста"), (12, "вистов")])
def test_a_payment_names_both_players_as_they_are_written(n: int, form: str) -> None:
    """No case to choose: the payer pays, the payee receives, each the subject of his verb."""
    with language.using("ru"):
        said = ngettext("{payer} pays {payee} {n} whist", "{payer} pays {payee} {n} whists", n)
        assert said.format(payer="Борис", payee="Вера", n=n) == f"Борис платит, Вера получает {n} {form}"
        assert language._("{player} whists on {on}").format(player="Анна", on="Вера") == "Анна: висты → Вера"
        assert language._("whists on {player}").format(player="Вера") == "висты → Вера"

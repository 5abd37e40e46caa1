"""The tournament's and the club's rarer refusals in Russian (issue 20, item 3): a
tournament that cannot be seated, a seating out of turn, a close while a table plays, a
newcomer or a substitute at a tournament's table, an alias the register refuses, the
standings of a tour not closed, and the command line's own complaints, each through the
real command with ``--lang ru``, and each leaving the store as it was."""

from __future__ import annotations

from click.testing import CliRunner, Result
import pytest

from cli.main import main
from tests.helpers import ok, stored_rows

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


def ru(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["--lang", "ru", *args, "--db", db], catch_exceptions=False)


def refused_ru(db: str, *args: str) -> str:
    """The Russian refusal of ``pulka --lang ru ARGS``, which must store nothing."""
    before = stored_rows(db)
    result = ru(db, *args)
    assert result.exit_code != 0, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    assert stored_rows(db) == before
    return result.stderr


def spring(db: str) -> None:
    """Six entrants at tables of 3, two tours; tour 1 seated by hand and started."""
    ok(db, "tournament", "new", "spring", "--players", "Anna,Boris,Vera,Gleb,Dina,Egor", "--pulya", "4",
       "--table-size", "3", "--tours", "2", "--deal-cap", "6")
    ok(db, "tournament", "seat", "spring", "1", "1", "Anna,Boris,Vera")
    ok(db, "tournament", "seat", "spring", "1", "2", "Gleb,Dina,Egor")
    ok(db, "tournament", "start", "spring", "1")


def test_a_tournament_no_tour_could_seat_is_refused_in_russian(store_url: str) -> None:
    # Five players: one table of 4 leaves one over, two tables need six [Code 1.2].
    err = refused_ru(store_url, "tournament", "new", "cup", "--players", "A,B,C,D,E", "--pulya", "10")
    assert "турнир из 5 игроков нельзя рассадить за столы на 3 и 4 игрока [Кодекс 1.2]" in err, err
    assert "можно: для 4 игроков: один стол на 4; для 6 игроков: столы на 3, 3" in err, err
    err = refused_ru(store_url, "tournament", "new", "cup", "--players", "A,B,C,D", "--pulya", "10",
                     "--tie-breaks", "whists,lot,tours_won", "--lot-seed", "7")
    assert "жребий разделяет любое равенство" in err and "[tournament.tie_breaks, docs/conventions.md]" in err, err
    assert stored_rows(store_url) == []


def test_a_seating_out_of_turn_or_twice_is_refused_in_russian(store_url: str) -> None:
    db = store_url
    spring(db)
    err = refused_ru(db, "tournament", "seat", "spring", "2", "--auto")
    assert "тур 2 можно рассадить, когда закрыт тур 1 [tournament.seating, docs/conventions.md]" in err, err
    assert "можно: pulka tournament close spring 1" in err  # the command to type, as it is
    err = refused_ru(db, "tournament", "seat", "spring", "1", "1", "Gleb,Dina,Egor")
    assert "стол 1 тура 1 уже рассажен: Anna, Boris, Vera" in err and "можно: другой стол" in err, err
    err = refused_ru(db, "tournament", "seat", "spring", "9", "--auto")
    assert "в турнире spring нет тура 9" in err and "туры с 1-го по 2-й" in err, err


def test_a_close_while_a_table_plays_is_refused_in_russian(store_url: str) -> None:
    db = store_url
    spring(db)
    ok(db, "deal", "spring/1/1", "6S pass pass | 6S | pass pass")
    err = refused_ru(db, "tournament", "close", "spring", "1")
    assert "за столом 1 (spring/1/1) ещё играют: позади 1 раздача из предела в 6" in err, err
    assert "[tournament.closed, docs/conventions.md]" in err
    assert "тур закрывается, когда окончены пульки всех его столов" in err


def test_a_newcomer_or_a_substitute_without_the_arbiter_is_refused_in_russian(store_url: str) -> None:
    db = store_url
    spring(db)
    ok(db, "deal", "spring/1/1", "6S pass pass | 6S | pass pass")  # a newcomer joins after a deal [Code 3.1.2]
    err = refused_ru(db, "join", "spring/1/1", "Zoya", "--agreed-by", "Anna,Boris,Vera")
    assert "Zoya не может подсесть к spring/1/1: столы турнира spring рассаживает арбитр" in err, err
    assert "запасной вместо посаженного игрока (pulka substitute)" in err
    err = refused_ru(db, "substitute", "spring/1/1", "Vera", "Zoya", "--agreed-by", "Anna,Boris")
    assert "за стол турнира spring запасного сажает арбитр, а не Vera" in err, err  # the one who records it
    assert "--by arbiter:NAME (с согласия игроков)" in err
    err = refused_ru(db, "substitute", "spring/1/1", "Vera", "gleb", "--agreed-by", "Anna,Boris",
                     "--by", "arbiter:Oleg")
    assert "gleb посажен за стол 2 тура 1 (spring/1/2): один стол в тур" in err, err


def test_an_alias_the_register_refuses_is_refused_in_russian(store_url: str) -> None:
    db = store_url
    spring(db)
    err = refused_ru(db, "alias", "anna", "ANNA")
    assert "'anna' и 'ANNA' — уже один игрок" in err and "[club.alias, docs/conventions.md]" in err, err
    # Anna and Boris sat at one table: one person cannot be two players of it.
    err = refused_ru(db, "alias", "Anna", "Boris")
    assert "'Anna' и 'Boris' оба играли в пульке spring/1/1: это не может быть один игрок" in err, err


def test_the_standings_of_a_tour_not_closed_and_the_command_lines_complaints_in_russian(store_url: str) -> None:
    db = store_url
    spring(db)
    err = refused_ru(db, "tournament", "standings", "spring", "--tour", "1")
    assert "тур 1 не закрыт; закрытых туров пока нет" in err, err
    err = refused_ru(db, "tournament", "standings", "autumn")
    assert "турнира 'autumn' в хранилище" in err and "турниры: spring" in err, err
    err = refused_ru(db, "tournament", "new", "cup", "--players", "A,B,C", "--pulya", "10", "--cutoff", "200")
    assert "--cutoff принимает UPTO:RATE,…, например 200:1,650:1/10,*:0; а не '200'" in err, err
    err = refused_ru(db, "player", "Zed", "--from", "2026-13-01")
    assert "--from '2026-13-01' — не дата (ГГГГ-ММ-ДД)" in err, err
    err = refused_ru(db, "rating", "Zed")
    assert "'Zed': нет оконченных пулек в архиве (сейчас)" in err, err

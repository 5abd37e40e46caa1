"""The refusals of the rarer commands in Russian (issue 20, item 3): an arbiter's penalty
and rulings, the changes of players and the end of a pulka, the talon, the records by
hand, objections and corrections, penalty tricks, and the form of a game's start, each
refused through the real command with ``--lang ru``, in the players' words, with the
rule cited as the Code (Кодекс), and the store left as it was."""

from __future__ import annotations

from pathlib import Path

from click.testing import Result
import pytest

from tests.helpers import ok, run, stored_rows

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


def refused_ru(db: str, *args: str) -> str:
    """The refusal of ``pulka --lang ru ARGS``, checked to have changed nothing stored."""
    before = stored_rows(db)
    result: Result = run(db, "--lang", "ru", *args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert stored_rows(db) == before
    return result.stderr


def started(db: str) -> None:
    ok(db, "new", "w", "--players", "A,B,C", "-q")


def in_play(db: str) -> None:
    """A's 6S whisted by both, its tricks not yet recorded."""
    started(db)
    ok(db, "deal", "w", "6S pass pass | 6S | whist whist", "--leave-open", "-q")


def test_an_arbiter_s_penalty_that_would_benefit_the_penalised_player(store_url: str) -> None:
    started(store_url)
    err = refused_ru(store_url, "penalty", "w", "B", "gora", "0", "--reason", "?", "--by", "arbiter:Petrov")
    assert ("отказано: штраф никогда не идёт на пользу оштрафованному: его гора растёт [Кодекс 4.2.16]; "
            "можно: число 1 или больше") in err
    assert "never benefits" not in err


def test_a_ruling_with_no_deal_and_a_result_without_everyone_s_agreement(store_url: str) -> None:
    started(store_url)
    err = refused_ru(store_url, "ruling", "w", "3.5.4")
    assert "нет идущей раздачи, по которой можно вынести решение [Кодекс 3.5.4]; можно: заявка" in err
    ok(store_url, "deal", "w", "6S pass pass | 6S | whist whist", "--leave-open", "-q")
    err = refused_ru(store_url, "ruling", "w", "3.9.22", "A=6", "B=2", "C=2", "--agreed-by", "A")
    assert "для исхода без розыгрыша нужно согласие всех; не согласились: B, C [Кодекс 3.9.22]" in err
    assert "agreement" not in err


def test_changes_of_players_and_the_end_of_the_pulka(store_url: str) -> None:
    started(store_url)
    err = refused_ru(store_url, "abandon", "w", "--agreed-by", "A")
    assert ("чтобы бросить пульку, нужно согласие всех игроков; не согласились: B, C [Кодекс 4.2.3]; "
            "можно: согласие всех или требование одного игрока с причиной (5.4.18)") in err
    ok(store_url, "deal", "w", "6S pass pass | 6S | whist whist", "--leave-open", "-q")
    err = refused_ru(store_url, "substitute", "w", "B", "E", "--agreed-by", "A,C")
    assert "замена игрока — только между раздачами; раздача 1 не окончена [Кодекс 5.4.7]; можно: взятки" in err
    ok(store_url, "tricks", "w", "A=6", "B=2", "C=2", "-q")
    err = refused_ru(store_url, "join", "w", "D", "--agreed-by", "A")
    assert ("новый игрок: нужно согласие игроков A, B, C; не согласились: B, C [Кодекс 3.1.2]; "
            "можно: A, B, C") in err
    assert "consent" not in err


def test_the_talon_and_the_records_by_hand(store_url: str) -> None:
    started(store_url)
    err = refused_ru(store_url, "talon", "w", "peek", "A", "--tricks", "1")
    assert "за взгляд на прикуп взяток не пишут [Кодекс 3.2.21]; можно: взяток 0" in err
    err = refused_ru(store_url, "entry", "w", "A", "whists", "3", "--on", "A")
    assert "A не может писать висты на себя [Кодекс 4.2.1]; можно: B, C" in err
    err = refused_ru(store_url, "object", "w", "A", "5")
    assert "раздачи 5 ещё нет [Кодекс 4.2.10]" in err
    assert "himself" not in err and "there is no" not in err


def test_a_correction_of_no_record_and_penalty_tricks_on_a_defender(store_url: str) -> None:
    in_play(store_url)
    err = refused_ru(store_url, "correct", "w", "1", "pulya=3")
    assert "нет события 1, которое можно исправить [Кодекс 4.2.7]; можно: от 2 до " in err
    err = refused_ru(store_url, "tricks", "w", "B=7", "C=2", "A=1", "--penalty", "C=1@3.4.9")
    assert "правило 3.4.9 наказывает разыгрывающего, а не C [Кодекс 3.4.9]" in err
    assert "punishes" not in err


def test_the_form_of_a_game_s_start(tmp_path: Path) -> None:
    db = str(tmp_path / "start.db")
    err = refused_ru(db, "new", "g", "--players", "A,a,B")
    assert ("'A' и 'a' — один и тот же игрок: имена сравниваются после нормализации Юникода и без учёта "
            "регистра [docs/event-log.md]; можно: разные имена") in err
    err = refused_ru(db, "new", "g", "--players", "A,B,C,D,E")
    assert "пульку играют 3 или 4 игрока, а не 5 [Кодекс 1.2]" in err
    err = refused_ru(db, "new", "g", "--players", "A,B,C", "--first-dealer", "Z")
    assert "нет такого игрока: 'Z' [docs/event-log.md]; можно: A, B, C" in err
    assert "not a player" not in err

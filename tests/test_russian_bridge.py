"""The refusals of a rubber of bridge, and the rarer refusals of a pulka's auction, defence,
deal lines and desk, in Russian (issue 20, item 3): each through the real command with
``--lang ru``, its Russian text as a Russian bridge or Preferans player says it, and the
store left exactly as it was."""

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
    """The Russian refusal of a command, which must leave the store as it was."""
    before = stored_rows(db)
    result = ru(db, *args)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    assert stored_rows(db) == before
    return result.stderr


def rubber(db: str) -> None:
    """A rubber: N Anna, E Boris, S Vera, W Gleb (N–S is МЫ)."""
    ok(db, "bridge", "new", "r1", "--players", "Anna,Boris,Vera,Gleb", "-q")


# -- a rubber of bridge -------------------------------------------------------------------------


def test_a_double_by_the_declarers_partner_is_refused_by_law_19(store_url: str) -> None:
    rubber(store_url)
    err = refused_ru(store_url, "bridge", "deal", "4S X@S N 10")
    assert ("Vera не мог контрировать 4S игрока Anna: контрировать можно только заявку противника: "
            "контрирует защищающаяся пара E–W") in err
    assert "[Закон 19]; можно: Boris или Gleb" in err


def test_a_level_above_seven_and_a_fourteenth_trick(store_url: str) -> None:
    rubber(store_url)
    err = refused_ru(store_url, "bridge", "deal", "9S N 10")
    assert "контракт называет от одной до семи взяток сверх шести, а не 9 [Закон 18]; можно: от 1 до 7" in err
    err = refused_ru(store_url, "bridge", "deal", "4S N 15")
    assert "в раздаче тринадцать взяток; пара разыгрывающего не может взять 15" in err
    assert "можно: от 0 до 13" in err


def test_honours_at_no_trump_are_the_four_aces(store_url: str) -> None:
    rubber(store_url)
    err = refused_ru(store_url, "bridge", "deal", "3NT N = hon S 100")
    assert "онёры 100: в бескозырном контракте засчитываются только четыре туза на одной руке: 150 [Закон 81]" in err


def test_a_deal_line_that_names_nobody_or_says_too_much(store_url: str) -> None:
    rubber(store_url)
    assert "'Q' — не место и не игрок" in refused_ru(store_url, "bridge", "deal", "4S Q 10")
    assert "можно: N, E, S, W или Anna, Boris, Vera, Gleb" in refused_ru(store_url, "bridge", "deal", "4S Q 10")
    assert "лишнее после раздачи: 'zzz'" in refused_ru(store_url, "bridge", "deal", "4S N 10 zzz")
    err = refused_ru(store_url, "bridge", "deal", "4Z N 10")
    assert "'4Z': масть контракта — одна из C, D, H, S, NT, а не 'Z' [Закон 18]" in err
    assert "масть также ♠ ♥ ♦ ♣, п ч б т, БК (например, 4♠ N =, 3БК N 9)" in err


def test_stopping_a_rubber_needs_all_four(store_url: str) -> None:
    rubber(store_url)
    err = refused_ru(store_url, "bridge", "abandon", "--agreed-by", "Anna,Boris")
    assert "чтобы остановить роббер, нужно согласие всех четырёх игроков; не согласились: Vera, Gleb [Закон 80]" in err


def test_a_rubber_of_three_players_is_not_started(store_url: str) -> None:
    err = refused_ru(store_url, "bridge", "new", "r3", "--players", "Anna,Boris,Vera")
    assert "в роббер-бридж играют четыре игрока двумя парами, а не 3" in err
    assert "четыре имени по часовой стрелке от Севера: N,E,S,W" in err


def test_no_deal_after_the_rubber_is_won_and_the_log_in_russian(store_url: str) -> None:
    rubber(store_url)
    for line in ("2D N 8", "pass", "3NT W -1", "3H Vera +1", "4S X N ="):
        ok(store_url, "bridge", "deal", line, "-q")
    err = refused_ru(store_url, "bridge", "deal", "1C N 7")
    assert "роббер окончен: его выиграли N–S 2-0; раздач больше не будет [Закон 74]" in err
    assert "можно: новый роббер (pulka bridge new)" in err
    log = ru(store_url, "log").stdout
    assert "роббер r1 начат: N Anna, E Boris, S Vera, W Gleb; первым сдаёт Anna" in log
    assert "все спасовали (сдача: Boris)" in log
    assert "4S с контрой, разыгрывает Anna (N–S), взяток 10: выполнен" in log
    assert "3NT, разыгрывает Gleb (E–W), взяток 8: без 1" in log


def test_a_bridge_correction_that_is_not_field_equals_value(store_url: str) -> None:
    rubber(store_url)
    ok(store_url, "bridge", "deal", "2D N 8", "-q")
    assert "отказано: 'nope' — не ПОЛЕ=ЗНАЧЕНИЕ" in refused_ru(store_url, "bridge", "correct", "2", "nope")


# -- a pulka: the auction, the defence, deal lines, the desk -------------------------------------------


def pulka(db: str) -> None:
    """Three players; Vera deals, Anna is the forehand; no dark bids by the rules."""
    ok(db, "new", "g", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")


def test_dark_bids_only_by_agreement(store_url: str) -> None:
    pulka(store_url)
    err = refused_ru(store_url, "bid", "Anna", "6S", "--dark")
    assert ("заявки втёмную делают только по предварительной договорённости, а в правилах этой пульки их нет "
            "(dark_bids) [Кодекс 3.3.19]; можно: та же заявка в светлую") in err


def test_no_whist_without_a_contract_and_none_on_a_misere(store_url: str) -> None:
    pulka(store_url)
    err = refused_ru(store_url, "defence", "Boris", "whist")
    assert "нет объявленного заказа, на который можно вистовать [Кодекс 3.8.1]" in err
    for args in (("bid", "Anna", "miz"), ("bid", "Boris", "pass"), ("bid", "Vera", "pass"),
                 ("contract", "Anna", "misere")):
        ok(store_url, *args, "-q")
    err = refused_ru(store_url, "defence", "Boris", "whist")
    assert "на мизер не вистуют и не пасуют: он играется сразу [Кодекс 3.6.6]; можно: взятки" in err


def test_a_deal_line_cut_short_and_an_undo_of_an_undo(store_url: str) -> None:
    pulka(store_url)
    err = refused_ru(store_url, "deal", "6S pass pass")
    assert "строка обрывается до исхода раздачи 1 (раздача ждёт: заказ игрока Anna): недописана?" in err
    assert "--leave-open, чтобы записать её, докуда она набрана" in err
    ok(store_url, "deal", "Anna 6S w w 6 2 2", "-q")
    ok(store_url, "undo", "-q")
    err = refused_ru(store_url, "undo")
    assert "отмену не отменяют [Кодекс 4.2.8]; можно: запишите взятые назад события заново" in err


def test_a_correction_by_deal_that_does_not_say_which_record(store_url: str) -> None:
    pulka(store_url)
    ok(store_url, "deal", "Anna 6S w w 6 2 2", "-q")
    err = refused_ru(store_url, "correct", "deal:1", "foo")
    assert "по одному deal:1 не понять, какую запись исправляет 'foo' [Кодекс 4.2.7]" in err
    assert "deal:1.tricks, deal:1.contract или событие из `pulka log --only-deal 1`" in err

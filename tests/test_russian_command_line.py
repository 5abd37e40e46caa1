"""The rarer refusals of the command line in Russian (issue 20, item 3): rule overrides
and conventions, points in time, a log that is not one, the arbiter's `verify` and
`export` misused, an abandon without agreement; each through the real command with
``--lang ru``, each leaving the store exactly as it was."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result
import pytest

from cli.main import main
from tests.helpers import ok, run, stored_rows, write

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


def evening(db: str) -> None:
    ok(db, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    ok(db, "deal", "Anna 6S w w 6 2 2", "-q")


def russian(db: str, *args: str, status: int = 1) -> str:
    """What a refused command says on standard error, in Russian; the store untouched."""
    before = stored_rows(db)
    result: Result = run(db, "--lang", "ru", *args)
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    assert stored_rows(db) == before
    return result.stderr


def test_rule_overrides_and_conventions_are_refused_in_russian(store_url: str) -> None:
    evening(store_url)
    players = ("--players", "Anna,Boris,Vera")
    said = russian(store_url, "new", "other", *players, "--rule", "foo")
    assert "--rule принимает KEY=VALUE, а не 'foo'; ключи: gora_whist_multiplier" in said
    said = russian(store_url, "new", "other", *players, "--convention", "zzz")
    assert "неизвестная конвенция: 'zzz'; готовые наборы: sochi, leningrad" in said
    assert "другие названия:" in said
    said = russian(store_url, "new", "other", *players, "--rule", "dark_limit=7")
    assert "dark_limit должен быть 1, 2 или 3 удвоения" in said
    assert "must be" not in said


def test_a_rules_file_that_is_not_toml_is_refused_in_russian(store_url: str, tmp_path: Path) -> None:
    path = write(tmp_path, "house.toml", "raspasy_exit = = 7\n")
    said = russian(store_url, "new", "other", "--players", "Anna,Boris,Vera", "--rules-file", path)
    assert f"отказано: {path} — неверный TOML:" in said
    assert "можно: таблица [rules] параметров правил, например raspasy_exit = 7 (см. `pulka rules sochi`)" in said


def test_points_in_time_the_game_lacks_are_refused_in_russian(store_url: str) -> None:
    evening(store_url)
    events = len(stored_rows(store_url))
    said = russian(store_url, "sheet", "demo", "--at", "99")
    assert f"в игре события с 1 по {events}; события 99 нет" in said
    said = russian(store_url, "sheet", "demo", "--deal", "7")
    assert "в игре только раздача 1; раздачи 7 нет" in said
    said = russian(store_url, "log", "demo", "--since", "garbage")
    assert "'garbage' — не время; напишите местное время '2026-12-01 20:14'" in said


def test_an_abandon_without_agreement_is_refused_in_russian(store_url: str) -> None:
    evening(store_url)
    said = russian(store_url, "abandon", "demo")
    assert "отказано: укажите --agreed-by (все игроки) или --demanded-by (один игрок, с --reason)" in said


def test_a_log_that_is_not_one_is_refused_in_russian(store_url: str, tmp_path: Path) -> None:
    evening(store_url)
    said = russian(store_url, "import", write(tmp_path, "empty.jsonl", ""))
    assert "отказано: журнал пуст [docs/event-log.md]; можно: строка game_started, затем события игры" in said
    said = russian(store_url, "import", write(tmp_path, "bad.jsonl", '{"type": "nope"}\n'))
    assert "строка 1: неизвестный тип события 'nope'; типы событий: abandoned" in said


def test_verify_and_export_misused_are_refused_in_russian(store_url: str) -> None:
    evening(store_url)
    said = russian(store_url, "verify", "--against", "1:abc")
    assert "--against сравнивает одну игру: укажите её имя" in said
    said = russian(store_url, "export", "demo", "--table", "settlement", status=2)
    assert "--table и --dir указываются вместе с --csv" in said


def test_a_preset_s_parameters_are_explained_in_russian() -> None:
    def shown(*args: str) -> str:  # `pulka rules` reads no store: no --db
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    russian_text = shown("--lang", "ru", "rules", "leningrad")
    assert russian_text.startswith("конвенция leningrad\n")
    assert "на это число умножаются висты и гора (ленинградка: 2)" in russian_text
    english = shown("rules", "leningrad")
    assert english.startswith("convention leningrad\n") and "whists and gora are multiplied by this" in english


def test_a_player_and_a_column_for_a_game_are_pointed_to_the_cell_in_russian(store_url: str) -> None:
    evening(store_url)
    said = russian(store_url, "explain", "Anna", "pulya")
    assert "число записи — одно слово, ИГРОК.СТОЛБЕЦ: может быть, имелось в виду `pulka explain Anna.pulya`?" in said

"""The players' language at the command line (issue 20, item 3): the sheet, the
settlement, what a deal line did and its refusals in Russian or English, chosen by
``--lang``, else PULKA_LANG, else the locale; JSON that keeps Cyrillic readable;
``explain`` reading names in any case and the columns in the players' words; bridge deal
lines in the suit symbols and Russian words a pulka's lines take."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner, Result
import pytest

from cli.main import main
from projections.drawing import page
from ledger.vocabulary import language
from tests.helpers import ok, run

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


def evening(db: str, *players: str) -> None:
    """One deal: the first player's 6S with both defenders whisting, 6 2 2: his pulya 2,
    each defender 2 tricks x 2 whists = 4 whists on him [Code 4.2.1]."""
    names = players or ("Anna", "Boris", "Vera")
    ok(db, "new", "demo", "--players", ",".join(names), "--pulya", "10", "--stake", "0.10", "-q")
    ok(db, "deal", f"{names[0]} 6S w w 6 2 2", "-q")


def lang_run(db: str, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, [*args, "--db", db], env=env, catch_exceptions=False)


# -- choosing the language ------------------------------------------------------------------------


def test_lang_comes_before_pulka_lang_which_comes_before_the_locale(store_url: str) -> None:
    evening(store_url)
    russian_locale = {"LANG": "ru_RU.UTF-8"}
    assert "пуля" in lang_run(store_url, "sheet", env=russian_locale).stdout  # the locale
    english = lang_run(store_url, "sheet", env={**russian_locale, "PULKA_LANG": "en"}).stdout
    assert "pulya" in english and "пуля" not in english  # PULKA_LANG over the locale
    for args in (("--lang", "ru", "sheet"), ("sheet", "--lang", "ru")):  # --lang over both, either place
        russian = lang_run(store_url, *args, env={**russian_locale, "PULKA_LANG": "en"}).stdout
        assert "пуля" in russian and "pulya" not in russian
    assert "pulya" in lang_run(store_url, "sheet", env={"LANG": "C.UTF-8"}).stdout


def test_an_unknown_language_is_a_command_line_that_cannot_be_parsed(store_url: str) -> None:
    evening(store_url)
    for args in (("--lang", "de", "sheet"), ("sheet", "--lang", "xx")):
        result = run(store_url, *args)
        assert result.exit_code == 2, result.output
        assert "en or ru" in result.stderr and "Traceback" not in result.output


# -- JSON -----------------------------------------------------------------------------------------


def test_sheet_json_keeps_cyrillic_readable(store_url: str) -> None:
    evening(store_url, "Анна", "Борис", "Вера")
    out = ok(store_url, "sheet", "--json")
    assert "\\u" not in out and "Анна" in out
    # 6S made with both whisting, 2 tricks each: 2 whists a trick on Anna [Code 4.2.1].
    assert json.loads(out)["Борис"]["whists"]["Анна"] == 4


# -- explain ------------------------------------------------------------------------------------


def test_explain_takes_names_in_any_case_and_the_players_column_words(store_url: str) -> None:
    evening(store_url)
    canonical = json.loads(ok(store_url, "explain", "Boris.whists.Anna", "--json"))["writes"]
    assert [w["amount"] for w in canonical] == [4]  # 2 tricks x 2 whists on a 6 [Code 4.2.1]
    for typed in ("boris.whists.ANNA", "BORIS.висты.anna", "boris.вист.anna"):
        assert json.loads(ok(store_url, "explain", typed, "--json"))["writes"] == canonical, typed
    pulya = json.loads(ok(store_url, "explain", "anna.пуля", "--json"))["writes"]
    assert [w["amount"] for w in pulya] == [2]
    result = run(store_url, "explain", "anna.пулька")
    assert result.exit_code == 1 and "пуля, гора, висты" in result.stderr


# -- bridge deal lines ------------------------------------------------------------------------------


def test_bridge_deal_lines_take_the_pulka_s_suit_words(store_url: str) -> None:
    """The same rubber typed in letters and in the table's words is the same log."""
    lines = {"letters": ["1S N 7", "2NT E 8", "pass", "3D S 9", "2H W 8"],
             "table": ["1♠ N 7", "2БК E 8", "пас", "3б S 9", "2ч W 8"]}
    for name, typed in lines.items():
        ok(store_url, "bridge", "new", name, "--players", "Nina,Egor,Sofia,Wadim", "-q")
        for line in typed:
            ok(store_url, "bridge", "deal", name, line, "-q")
    logs = {name: [{k: v for k, v in json.loads(line).items() if k not in ("at", "game", "digest")}
                   for line in ok(store_url, "export", name).splitlines()[1:]] for name in lines}
    assert logs["table"] == logs["letters"]
    assert [e.get("contract") for e in logs["letters"]] == ["1S", "2NT", None, "3D", "2H"]
    result = run(store_url, "bridge", "deal", "table", "3ЖК N 9")
    assert result.exit_code == 1 and "3БК" in result.stderr


# -- what a player reads, in Russian ---------------------------------------------------------------


def russian_plural(n: int, one: str, few: str, many: str) -> str:
    """The form of a Russian noun for ``n``: 1, 21 вист; 2-4, 22 виста; 5-20, 11-14 вистов."""
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def test_the_sheet_in_russian(store_url: str) -> None:
    evening(store_url)
    lines = ok(store_url, "sheet", "--lang", "ru").splitlines()
    assert lines[0].startswith("пулька demo: сочинка, пуля до 10, 3 игрока; 1 раздача, идёт игра (сейчас, событие 8)")
    by_player: dict[str, dict[str, str]] = {}
    player = ""
    for line in lines[2:]:
        if line and not line.startswith(" "):
            player = line
        elif line:
            label, total = line.rsplit("=", 1)  # the label, the running entries (one word), the total
            by_player.setdefault(player, {})[" ".join(label.split()[:-1])] = total.strip()
    # Anna's 6S made: her pulya 2; each defender 2 tricks x 2 whists on her [Code 4.2.1].
    assert by_player["Anna"] == {"пуля": "2", "гора": "0", "висты → Boris": "0", "висты → Vera": "0"}
    assert by_player["Boris"] == {"пуля": "0", "гора": "0", "висты → Anna": "4", "висты → Vera": "0"}
    assert "pulya" not in "\n".join(lines) and "whists" not in "\n".join(lines)
    games = ok(store_url, "games", "--lang", "ru")  # 1 + 3 bids + contract + 2 calls + tricks = 8 events
    assert games.startswith("demo: Anna, Boris, Vera; сочинка, пуля до 10; 8 событий, 1 раздача, идёт игра; с ")


def test_the_settlement_in_russian(store_url: str) -> None:
    evening(store_url)
    doc = json.loads(ok(store_url, "settle", "--json"))
    text = ok(store_url, "settle", "--lang", "ru")
    assert text.startswith("расчёт пульки demo (сочинка, сейчас): не окончена: расчёт как при брошенной сейчас")
    assert text.splitlines()[2].split() == ["игрок", "пуля", "гора", "гора*", "точно", "округл.", "деньги"]
    assert "Кто кому платит" in text and "[Кодекс 4.2.3]" in text
    assert doc["transfers"]
    for t in doc["transfers"]:
        n = t["whists"]
        form = russian_plural(n, "вист", "виста", "вистов")
        assert f"  {t['from']} платит, {t['to']} получает {n} {form} = " in text, (t, text)
    assert "pays" not in text and "settlement" not in text


def test_a_deal_and_its_refusal_in_russian(store_url: str) -> None:
    ok(store_url, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    told = ok(store_url, "deal", "Anna 6S w w 6 2 2", "--lang", "ru")
    assert told.splitlines()[0] == ("раздача 1 (события 2-8): Anna 6♠, Boris пас, Vera пас | Anna 6♠ | "
                                    "Boris вист, Vera вист | Anna 6, Boris 2, Vera 2")
    assert "  Anna: пуля +2" in told and "  Boris: висты → Anna +4" in told
    assert "дальше: раздача 2: сдаёт Anna, первая рука — Boris" in told
    before = ok(store_url, "export")
    result = run(store_url, "deal", "Boris 6S w w 6 2", "--lang", "ru")
    assert result.exit_code == 1
    assert result.stderr.startswith("pulka: отказано: нужно взяток: 3; игроки: Boris, Vera, Anna (разыгрывающий первым) "
                                    "[Кодекс 3.2.8]; можно: или взятки по именам: Boris=N Vera=N Anna=N")
    assert ok(store_url, "export") == before  # the store as it was
    log = ok(store_url, "log", "--lang", "ru")
    assert log.startswith("журнал demo: показано 8, всего 8 событий")
    assert "Anna заказывает 6♠" in log and "Boris: вист" in log and "взятки Anna 6, Boris 2, Vera 2" in log


def test_the_drawn_sheet_in_russian(store_url: str) -> None:
    evening(store_url)
    svg = ok(store_url, "sheet", "--svg", "--lang", "ru")
    texts = {"".join(t.itertext()) for t in ET.fromstring(svg.encode()).iter("{http://www.w3.org/2000/svg}text")}
    assert {"пуля", "гора", "→ Anna", "→ Boris", "→ Vera", "расчёт", "игрок", "висты", "кто кому платит"} <= texts
    assert not {"pulya", "gora", "on Boris", "settlement", "who pays whom"} & texts
    doc = json.loads(ok(store_url, "settle", "--json"))
    for t in doc["transfers"]:
        n = t["whists"]
        assert f"{t['from']} платит, {t['to']} получает {n} {russian_plural(n, 'вист', 'виста', 'вистов')} ({t['money']})" \
            in texts


def test_the_judge_s_refusals_in_russian(store_url: str) -> None:
    """What the rules refuse at the table, in Russian, and the store unchanged."""
    ok(store_url, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    before = ok(store_url, "export")
    cases = {
        "Anna 6S w w 6 2 3": "взятки в сумме дают 11, а не 10 [Кодекс 3.2.8]",  # 6 + 2 + 3 = 11
        # A bid must be above the last one; above 6S the next is 6C [Code 3.3.7, 2.2.2].
        "6S 6S": "6♠ не выше текущей заявки 6♠ [Кодекс 3.3.7]; можно: пас, 6♣ или выше, мизер",
    }
    for line, said in cases.items():
        result = run(store_url, "deal", line, "--lang", "ru")
        assert result.exit_code == 1 and said in result.stderr, (line, result.stderr)
        assert result.stderr.startswith("pulka: отказано: ")
    assert ok(store_url, "export") == before


def test_every_text_of_the_report_s_page_and_script_is_in_the_catalogue() -> None:
    """The report's page and script are not Python, which Babel reads: each of their
    texts must be marked in ``REPORT_WORDS``, or it would stay English in Russian."""
    folder = Path(page.__file__).resolve().parent
    script = (folder / "report.js").read_text(encoding="utf-8")
    html_page = (folder / "report.html").read_text(encoding="utf-8")
    texts = set(re.findall(r'say\("((?:[^"\\]|\\.)*)"', script)) | set(page.TRANSLATED.findall(html_page))
    assert len(texts) > 50
    assert texts <= set(page.REPORT_WORDS), texts - set(page.REPORT_WORDS)
    with language.using("ru"):
        untranslated = [text for text in page.REPORT_WORDS if language._(text) == text]
    assert untranslated == []


def test_a_session_in_russian(store_url: str) -> None:
    """``pulka play --lang ru``: the prompt, what a deal did, a refusal and the settlement
    at the end in Russian; the commands typed in the session speak it too."""
    ok(store_url, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    result = CliRunner().invoke(main, ["play", "--lang", "ru", "--db", store_url],
                                input="Anna 6S w w 6 2 2\nrasp 3 3\nsheet\nend\n", catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("pulka play: demo (сочинка, пуля до 10): Anna, Boris, Vera\n")
    assert "раздача 1: сдаёт Vera, первая рука — Anna > " in out
    assert "дальше: раздача 2: сдаёт Anna, первая рука — Boris" in out
    assert "нужно взяток: 3; игроки: Boris, Vera, Anna [Кодекс 3.2.8]" in result.stderr  # rasp names all three
    assert "  висты → Anna" in out  # the sheet typed in the session
    assert "расчёт пульки demo (сочинка, сейчас)" in out and "Кто кому платит" in out


def test_a_rubber_s_sheet_and_settlement_in_russian(store_url: str) -> None:
    """4♠ made by N-S (120 below: a game) and 3БК made (100 below: the rubber 2-0, 700
    above) [seed 003; Law 74, 81]: the МЫ/ВЫ sheet and its settlement in Russian."""
    ok(store_url, "bridge", "new", "r1", "--players", "Nina,Egor,Sofia,Wadim", "-q")
    ok(store_url, "bridge", "deal", "r1", "4♠ N =", "-q")
    ok(store_url, "bridge", "deal", "r1", "3БК N 9", "-q")
    sheet = ok(store_url, "sheet", "r1", "--lang", "ru")
    assert sheet.startswith("роббер r1: N Nina, E Egor, S Sofia, W Wadim; 2 раздачи, окончен: N–S выиграли роббер 2-0")
    assert "МЫ = N–S (Nina, Sofia): 2 игры, в зоне" in sheet and "ВЫ = E–W (Egor, Wadim): 0 игр, до зоны" in sheet
    assert "партия 1: МЫ (N–S)" in sheet and sheet.rstrip().endswith("920 | 0             итого")
    settle = ok(store_url, "settle", "r1", "--lang", "ru")
    assert "N–S выигрывают 920 очков [Закон 74]" in settle  # 120 + 100 + 700
    assert settle.splitlines()[2].split() == ["над", "под", "итого"]
    refused = run(store_url, "bridge", "deal", "r1", "2ч W 8", "--lang", "ru")
    assert refused.exit_code == 1 and "[Закон 74]" in refused.stderr  # no deal after the rubber


def test_the_service_keeps_a_document_per_language(tmp_path: Path) -> None:
    """A drawn sheet or an audit's lines are made in the reader's language: the service
    keeps one per language, so an English reader is not shown the Russian one that a
    Russian reader had made first."""
    from web.service import Service

    service = Service(str(tmp_path / "pulka.db"), threads=1)
    try:
        made: dict[str, str] = {}
        for lang in ("ru", "en"):  # the same version of the same game, read in two languages
            with language.using(lang):
                made[lang] = service.cached(("svg", "demo", 8, None), lambda: language._("pulya"))
        assert made == {"ru": "пуля", "en": "pulya"}
    finally:
        service.close()


def test_the_reasons_beside_the_numbers_and_the_verdicts_in_russian(store_url: str) -> None:
    """The reason of each number (made while the game is folded, in English) and the
    recording rules' verdicts are said again in the reader's language; in English they
    read as they always did. Anna's 6S with 5 tricks: 2 in gora, "6S down 1"; each
    whister's 'N tricks on 6S' and the consolation [Code 3.8.1]; raspasy 2 5 3 from
    Boris: Anna's 3 tricks less the amnesty of 2 [Code 3.7.3]; Vera's entry corrected
    after her pencil: her first counted error, a warning [Code 4.2.7]."""
    ok(store_url, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    ok(store_url, "deal", "Anna 6S w w 5 3 2", "-q")
    ok(store_url, "deal", "rasp 2 5 3", "-q")
    ok(store_url, "entry", "Vera", "whists", "4", "--on", "Boris", "-q")
    ok(store_url, "pencil", "Vera", "-q")
    corrected = ok(store_url, "correct", "13", "2", "--by", "Boris", "--yes", "--lang", "ru")
    assert "исправлено; первая засчитанная ошибка (запись: Vera): предупреждение" in corrected
    gora = ok(store_url, "explain", "Anna.гора", "--lang", "ru")
    assert gora.splitlines()[1].endswith(": 6♠ без 1")
    assert gora.splitlines()[2].endswith(": распасы x1: 3 взятки, амнистия 2")
    whists = ok(store_url, "explain", "Boris.висты.Anna", "--lang", "ru")
    assert whists.splitlines()[1].endswith(": 3 взятки на 6♠") and whists.splitlines()[2].endswith(": консоляция")
    log = ok(store_url, "log", "--lang", "ru")
    assert "действует [Кодекс 4.2.7]: исправлено; первая засчитанная ошибка (запись: Vera): предупреждение" in log
    english = ok(store_url, "explain", "Anna.gora", "--lang", "en")
    assert english.splitlines()[1].endswith(": 6S down 1")
    assert english.splitlines()[2].endswith(": raspasy x1: 3 tricks, amnesty 2")
    assert "corrected; Vera's first counted error: a warning" in ok(store_url, "log", "--lang", "en")


def test_a_doubted_result_in_russian(store_url: str) -> None:
    """A line whose counts, read from the forehand and read declarer first, write two
    sheets is refused (not at a terminal) in the reader's language, with both readings,
    what each writes, and the lines that say each with the declarer's count marked;
    nothing is stored."""
    ok(store_url, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    before = ok(store_url, "export")
    result = run(store_url, "deal", "pass 6S pass | 6S | whist whist | 1 8 1", "--lang", "ru")
    assert result.exit_code == 1
    assert ("раздача 1: взятки 1 8 1 читаются двояко, и листы выходят разные: как набрано (с первой руки, Anna "
            "первым) Anna 1, Boris 8, Vera 1, и записано будет ") in result.stderr
    assert "Boris: пуля +2" in result.stderr and "Boris: гора +10" in result.stderr
    assert "; прочитанные с разыгрывающего Boris 1, Vera 8, Anna 1, и записано будет " in result.stderr
    assert "что имелось в виду? [docs/event-log.md, командная строка]" in result.stderr
    assert ("взятки разыгрывающего с отметкой: как набрано 'pass 6S pass | 6S | whist whist | 1 8* 1' или в другом "
            "прочтении 'pass 6S pass | 6S | whist whist | 1* 8 1'") in result.stderr
    assert ok(store_url, "export") == before



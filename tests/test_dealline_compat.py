"""Old deal lines keep their meaning (issue 20): every deal line of the tests, the README,
the docs and ``scripts/demo.sh`` (as they are, and as they were before the outcome form:
``data/deal_lines_before.txt``), every deal of the fixtures written as its line, and
the deals of generated pulkas, read by the parser as it was before the outcome form
(``dealline_before``, kept frozen) and by today's ``ledger.words.deal_line``: wherever
the old parser and the judge took a line, today's gives the very same events.

A line written in a file is tried at the start of a pulka of three and of four players
under every preset, with each player dealing, and after a raspasy (the exit of each
convention); a deal of a log is tried on the log as it stood before that deal.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import dealline_before
import ledger.words.deal_line
from ledger.judge.judging import judge_events
from ledger.judge.kinds import PULKA, judge_log
from ledger.vocabulary.events import AnyEvent, GameStarted
from readings import parse_log
from ledger.vocabulary.refusal import Refused
from projections.deal_text import deal_line
from projections.game import GameState, replay
from strategies import legal_logs

ROOT = Path(__file__).resolve().parent.parent
CLOCK = "2026-11-30T20:00:00+00:00"
PRESETS = ("sochi", "leningrad", "rostov", "classic")
TABLES = (("Anna", "Boris", "Vera"), ("Anna", "Boris", "Vera", "Gleb"), ("A", "B", "C"), ("A", "B", "C", "D"))
QUOTED = re.compile(r'"([^"\n]*\|[^"\n]*)"|`([^`\n]*\|[^`\n]*)`')
Parser = Callable[[GameState, str], Iterator[AnyEvent]]


def old(state: GameState, line: str) -> Iterator[AnyEvent]:
    return dealline_before.deal_events(state, line)


def new(state: GameState, line: str) -> Iterator[AnyEvent]:
    return ledger.words.deal_line.deal_events(state, line)


def judged(state: GameState, line: str, parser: Parser) -> list[AnyEvent] | None:
    """The events of ``line`` on ``state`` as they would be stored; None when refused."""
    try:
        return judge_events(state, PULKA.decide, ((None, e) for e in parser(state, line)), lambda: CLOCK)
    except Refused:
        return None


# -- the lines written in the repository -------------------------------------------------------


def old_grammar(text: str) -> bool:
    """A deal line as the old parser read one: its first section bids it could read."""
    bids = text.split("|")[0].split()
    if not bids:
        return False
    try:
        for token in bids:
            dealline_before.bid_word(token.partition(":")[0])
    except Refused:
        return False
    return True


def lines_before() -> dict[str, str]:
    """The deal lines written before issue 20: line -> where."""
    found = {}
    for row in (ROOT / "tests" / "data" / "deal_lines_before.txt").read_text(encoding="utf-8").splitlines():
        if row and not row.startswith("#"):
            line, where = row.split("\t")
            found[line] = where
    return found


def written_lines() -> dict[str, str]:
    """Every deal line written in the tests, README, docs and demo, now and before issue 20
    (``data/deal_lines_before.txt``, as they were at commit 10d023c): line -> where."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "|" in node.value:
                found.setdefault(node.value, path.name)
    texts = [ROOT / "README.md", ROOT / "scripts" / "demo.sh", ROOT / "fixtures" / "README.md",
             *sorted((ROOT / "docs").glob("*.md"))]
    for path in texts:
        for m in QUOTED.finditer(path.read_text(encoding="utf-8")):
            found.setdefault((m.group(1) or m.group(2)).replace("\\|", "|"), path.name)
    for line, where in lines_before().items():
        found.setdefault(line, where)
    return {line: where for line, where in found.items() if old_grammar(line)}


def starts() -> Iterator[GameState]:
    """Fresh pulkas: three and four players, every preset (and a misère shared with the
    dealer), every first dealer, and each of those after a raspasy."""
    kinds = [(players, preset, {}) for players in TABLES for preset in PRESETS]
    kinds += [(players, "sochi", {"misere_with_dealer": True}) for players in TABLES if len(players) == 4]  # a misère shared [Code 3.6.9]
    for players, preset, rules in kinds:
        for dealer in players:
            started = judge_log([(1, GameStarted(game="g", players=players, convention=preset, pulya=20,
                                                 rules=rules, first_dealer=dealer))], lambda: CLOCK)[0]
            assert isinstance(started, GameStarted)
            yield GameState.start(started)
            after = GameState.start(started)
            assert judged(after, "pass pass pass | 4 3 3", old) is not None
            yield after


def start_logs() -> list[list[AnyEvent]]:
    return [state.events[: state.folded] for state in starts()]


def test_every_written_line_means_what_it_meant() -> None:
    lines = written_lines()
    logs = start_logs()
    taken: dict[str, int] = {}
    for line in lines:
        for log in logs:
            before = judged(replay(log), line, old)
            if before is None:
                continue
            taken[line] = taken.get(line, 0) + 1
            assert judged(replay(log), line, new) == before, f"{line!r} ({lines[line]}) on {log[0]}"
    # Every line the README, the docs and the demo recorded before is read here; a test's
    # line no start takes is one of its refusals (or needs a pulka under way).
    from_docs = {line for line, where in lines_before().items() if not where.endswith(".py")}
    assert {line for line in from_docs if line not in taken} <= REFUSED_IN_DOCS
    before = lines_before()
    assert len(before) >= 60 and sum(line in taken for line in before) >= 0.85 * len(before)


# Lines the docs show being refused, or that need a pulka under way.
REFUSED_IN_DOCS = {
    "6S pass pass | 6S | pass half_whist pass whist@Boris | 5 3 2",  # deal 1's dealer is not Boris's partner
}


# -- the deals of logs -------------------------------------------------------------------------


def deals_agree(log: list[AnyEvent]) -> int:
    """Each deal of ``log`` written as its line and read, by both parsers, on the log as it
    stood before the deal; how many the old parser took."""
    whole = replay(log)
    taken = 0
    for deal in whole.deals:
        first = whole.starts[deal.number - 1]
        line = deal_line(whole, deal)
        if not line:
            continue
        before = judged(replay(log[: first - 1]), line, old)
        if before is None:
            continue
        taken += 1
        assert judged(replay(log[: first - 1]), line, new) == before, f"{line!r}, deal {deal.number}"
    return taken


def test_every_deal_of_the_fixtures_as_its_line() -> None:
    taken = 0
    for path in sorted((ROOT / "fixtures").glob("*.jsonl")):
        lines = parse_log(path.read_text(encoding="utf-8"))
        if isinstance(lines[0][1], GameStarted):
            taken += deals_agree(judge_log(lines, lambda: CLOCK))
    assert taken >= 100


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_logs(recording=True))
def test_every_deal_of_generated_pulkas_as_its_line(log: list[AnyEvent]) -> None:
    deals_agree(log)


def test_a_change_of_meaning_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison sees a change of meaning: today's parser made to read the old form's
    counts declarer first gives other events for the README's lines, and fails the check."""
    def declarer_first(deal: object, counts: list[str]) -> list[int]:
        return ledger.words.deal_line._declarer_seats(deal, counts)  # type: ignore[arg-type]

    monkeypatch.setattr(ledger.words.deal_line, "_trick_seats", declarer_first)
    with pytest.raises(AssertionError, match="8 1 1"):
        for log in start_logs():
            line = "pass 7H pass | 7H | whist whist | 8 1 1"
            before = judged(replay(log), line, old)
            if before is not None:
                assert judged(replay(log), line, new) == before, line

"""pulka as a process on a real pseudo-terminal: the scorer's session (``pulka play``),
the question a correction asks, progress bars (only on a terminal), shell completion and
the exit statuses. Every wait is for something the program prints."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from helpers import PULKA, Terminal, environment, pulka, write

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


def start(tmp_path: Path, store_url: str, *args: str) -> Terminal:
    return Terminal([*PULKA, "--db", store_url, *args], environment(tmp_path), tmp_path)


def exported(tmp_path: Path, store_url: str, game: str) -> list[dict[str, object]]:
    done = pulka(tmp_path, "export", game, "--db", store_url)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_scorers_session(store_url: str, tmp_path: Path) -> None:
    made = pulka(tmp_path, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "4", "--stake", "0.10",
                 "--db", store_url)
    assert made.returncode == 0, made.stderr
    t = start(tmp_path, store_url, "play")  # the game just made is the current one
    t.expect(r"pulka play: demo \(sochi, pulya to 4\): Anna, Boris, Vera")
    t.expect(r"deal 1: Vera deals, Anna leads > ")
    t.send("6S pass pass | 6S | whist whist | 6 2 2")
    shown = t.expect(r"deal 2: Anna deals, Boris leads > ")
    assert "Anna pulya +2" in shown and "Boris whists on Anna +4" in shown
    assert "sheet: Anna 2/0 (" in shown
    # A mistyped line: the refusal, and the same prompt again.
    t.send("7Z pass pass | 7Z")
    shown = t.expect(r"deal 2: Anna deals, Boris leads > ")
    assert "'7Z' is not a bid" in shown
    # Table words, and a command without the game's name.
    t.send("7♥ пас пас | 7ч | вист пас | 7 2 1")
    shown = t.expect(r"deal 3: Boris deals, Vera leads > ")
    assert "Boris pulya +4" in shown and "Vera whists on Boris +12" in shown
    t.send("entry Vera whists 4 --on Boris")
    t.expect(r"event 16: entry: Vera whists on Boris \+4")
    t.expect(r"deal 3: Boris deals, Vera leads > ")
    t.send("pencil vera")
    t.expect(r"deal 3: Boris deals, Vera leads > ")
    # A correction asks before it is stored, on a terminal.
    t.send("correct 16 2 --by Boris")
    shown = t.expect(r"store this correction\? \[y/N\]: ")
    assert "now:    entry: Vera whists on Boris +2" in shown and "verdict: warning [Code 4.2.7]" in shown
    t.send("y")
    shown = t.expect(r"deal 3: Boris deals, Vera leads > ")
    assert "stored as event 18" in shown and "event 18: warning" in shown
    t.send("correct 16 1 --by Boris")
    t.expect(r"store this correction\? \[y/N\]: ")
    t.send("n")
    assert "not stored" in t.expect(r"deal 3: Boris deals, Vera leads > ")
    t.send("sheet")
    shown = t.expect(r"deal 3: Boris deals, Vera leads > ")
    assert "whists on Boris" in shown and "= 14" in shown
    t.send("?")
    assert "deal line" in t.expect(r"deal 3: Boris deals, Vera leads > ")
    t.send("pass pass pass | 2 5 3")
    t.expect(r"deal 4: Vera deals, Anna leads > ")
    # A wrong line, taken back at once.
    t.send("pass 6NT pass | 6NT | whist pass | 3 6* 1")  # Boris's six, his count marked
    t.expect(r"deal 5: Anna deals, Boris leads > ")
    t.send("u")
    shown = t.expect(r"deal 4: Vera deals, Anna leads > ")
    assert "events 23-29 withdrawn while in hand" in shown and "Anna pulya -2" in shown
    # The last deal: Vera's seven closes every pulya. The scorer types on (the sheet) before
    # he sees it: the session says the pulka has ended and keeps reading, so what he typed
    # reaches it, not the shell; a correction still comes, and `end` settles.
    t.send("pass 6NT pass | 6NT | pass pass")
    t.expect(r"deal 5: Anna deals, Boris leads > ")
    t.send("pass 7S pass | 7S | whist pass | 2 7* 1")
    t.send("sheet")
    shown = t.expect(r"the pulka has ended; end > ")
    assert "the pulka has ended: a correction, undo, sheet, or end to settle" in shown
    assert "Who pays whom" not in shown
    shown = t.expect(r"the pulka has ended; end > ")
    assert "whists on Boris" in shown  # the sheet typed ahead
    t.send("correct deal:5 Boris=1 Anna=2 --yes")
    shown = t.expect(r"the pulka has ended; end > ")
    assert "deal:5 is event 43" in shown and "stored as event 44" in shown
    t.send("end")
    shown = t.expect(r"Who pays whom")
    assert "settlement of demo" in shown
    assert t.finish() == 0
    events = exported(tmp_path, store_url, "demo")
    assert len(events) == 44 and events[17]["type"] == "correction" and events[17]["replacement"] == {"amount": 2}
    assert events[29] == {**events[29], "type": "withdrawn", "first": 23}
    assert events[43] == {**events[43], "type": "correction", "target": 43}


@pytest.mark.parametrize("stop", ["ctrl-c", "ctrl-d"])
def test_ctrl_c_and_ctrl_d_end_a_session_with_the_settlement(store_url: str, tmp_path: Path, stop: str) -> None:
    """Ctrl-C (the interrupt a terminal sends) and Ctrl-D at the prompt end the session as
    `end` does, with the settlement, not click's "Aborted!"."""
    assert pulka(tmp_path, "new", "c", "--players", "Anna,Boris,Vera", "--db", store_url).returncode == 0
    t = start(tmp_path, store_url, "play")
    t.expect(r"deal 1: Vera deals, Anna leads > ")
    t.send("Anna 6S w w 6 2 2")
    t.expect(r"deal 2: Anna deals, Boris leads > ")
    if stop == "ctrl-c":
        t.interrupt()
    else:
        os.write(t.master, b"\x04")
    shown = t.expect(r"Both methods of rule 4.2.14 agree")
    assert "settlement of c" in shown and "Aborted" not in shown
    assert t.finish() == 0
    assert "Aborted" not in t.seen


def test_a_doubted_line_is_asked_about_at_a_terminal(store_url: str, tmp_path: Path) -> None:
    """The issue's line, typed at a terminal: the scorer sees both readings and chooses the
    other one (o); at the session's prompt he keeps it as typed (t)."""
    assert pulka(tmp_path, "new", "q", "--players", "Anna,Boris,Vera", "--first-dealer", "Anna",
                 "--db", store_url).returncode == 0
    t = start(tmp_path, store_url, "deal", "pass 7H pass | 7H | whist whist | 8 1 1")
    shown = t.expect(r"store it as typed \(t\), as the other reading \(o\), or not at all \(n\)\? .*: ")
    assert "the counts 8 1 1 read two ways write two sheets" in shown
    # The two sheets side by side: the tricks, and what each reading writes.
    assert re.search(r"as typed \(from the forehand, Boris first\) +read declarer first", shown)
    assert re.search(r"tricks +Boris 8, Vera 1, Anna 1 +Vera 8, Anna 1, Boris 1", shown)
    assert re.search(r"Vera pulya +\+4", shown) and re.search(r"Vera gora +\+\d+", shown)
    t.send("o")
    shown = t.expect(r"next: deal 2")
    assert "Vera 8" in shown and "Vera pulya +4" in shown
    assert t.finish() == 0
    t = start(tmp_path, store_url, "play")
    t.expect(r"deal 2: Boris deals, Vera leads > ")
    t.send("Anna 6S w w 0 6 4")
    t.expect(r"or not at all \(n\)\? .*: ")
    t.send("t")
    shown = t.expect(r"deal 3: Vera deals, Anna leads > ")
    assert "Anna gora" in shown
    t.send("end")
    assert t.finish() == 0
    events = exported(tmp_path, store_url, "q")
    assert events[7]["tricks"] == {"Anna": 1, "Boris": 1, "Vera": 8}
    assert events[-1]["tricks"] == {"Anna": 0, "Boris": 6, "Vera": 4}


def test_a_session_ends_on_request_with_the_settlement(store_url: str, tmp_path: Path) -> None:
    assert pulka(tmp_path, "new", "s", "--players", "A,B,C,D", "--db", store_url).returncode == 0
    t = start(tmp_path, store_url, "play", "s")
    t.expect(r"deal 1: D deals and sits out, A leads > ")
    t.send("pass pass pass | 3 4 2 1")  # four players: the dealer's talon trick last
    shown = t.expect(r"deal 2: A deals and sits out, B leads > ")
    assert "A pass, B pass, C pass | A 3, B 4, C 2, D 1" in shown
    t.send("new x --players P,Q,R")
    assert "not for a session" in t.expect(r" > ")
    t.send("end")
    shown = t.expect(r"Both methods of rule 4.2.14 agree")
    assert "settlement of s" in shown and "not finished" in shown
    assert t.finish() == 0


def long_log(game: str, events: int) -> str:
    """A legal Sochi pulka of at least ``events`` events whose target is never reached."""
    from ledger.words.deal_line import deal_events
    from ledger.judge.judging import judge_events
    from ledger.judge.kinds import PULKA, start_stream
    from ledger.vocabulary.events import GameStarted, encode_event
    from ledger.vocabulary.times import now_iso

    _, started = start_stream(1, GameStarted(game=game, players=("A", "B", "C"), pulya=100000), now_iso)
    assert isinstance(started, GameStarted)
    state = PULKA.fold([started])
    while state.folded < events:
        line = "6S pass pass | 6S | whist whist | 6 2 2"
        judge_events(state, PULKA.decide, ((None, e) for e in deal_events(state, line)),
                     lambda: "2026-11-30T20:00:00+00:00")
    return "\n".join(encode_event(e).decode() for e in state.events) + "\n"


def test_progress_bars_only_on_a_terminal(tmp_path: Path) -> None:
    from cli.common import PROGRESS_FROM

    db = str(tmp_path / "long.db")
    log = write(tmp_path, "long.jsonl", long_log("long", PROGRESS_FROM + 10))
    env = environment(tmp_path)
    t = Terminal([*PULKA, "import", log, "--db", db], env, tmp_path, stderr_only=True)
    t.expect(r"judging.*100%")
    assert t.finish() == 0
    assert t.stdout is not None and "created long:" in t.stdout.read().decode()
    for args in (["log", "long"], ["settle", "long"], ["sheet", "long"], ["export", "long"], ["explain", "long", "A.pulya"]):
        t = Terminal([*PULKA, *args, "--db", db], env, tmp_path, stderr_only=True)
        label = {"log": "auditing", "export": "exporting"}.get(args[0], "replaying")
        t.expect(rf"{label} long.*100%")
        assert t.finish() == 0, args
    # Not on a terminal: no progress at all.
    for args in (["log", "long"], ["settle", "long"], ["export", "long"]):
        done = pulka(tmp_path, *args, "--db", db, env=env)
        assert done.returncode == 0 and done.stderr == "", args


def test_exit_statuses_and_completion(tmp_path: Path) -> None:
    env = environment(tmp_path, PULKA_DB=str(tmp_path / "p.db"))
    assert pulka(tmp_path, "new", "club", "--players", "Anna,Boris,Vera", env=env).returncode == 0
    assert pulka(tmp_path, "new", "cafe", "--players", "Ivan,Oleg,Petr", env=env).returncode == 0
    # PULKA_GAME, for a shell session.
    done = pulka(tmp_path, "deal", "6S pass pass | 6S | pass pass", env={**env, "PULKA_GAME": "club"})
    assert done.returncode == 0 and "deal 1 (events 2-7)" in done.stdout
    refused = pulka(tmp_path, "bid", "Boris", "6S", env=env)  # cafe is current: no Boris there
    assert refused.returncode == 1 and "unknown player 'Boris'" in refused.stderr
    assert "Traceback" not in refused.stderr
    usage = pulka(tmp_path, "sheet", "--no-such-option", env=env)
    assert usage.returncode == 2 and "No such option" in usage.stderr
    assert pulka(tmp_path, "sheet", env=env).returncode == 0

    def complete(words: str) -> list[str]:
        n = len(words.split(" ")) - 1
        done = pulka(tmp_path, env={**env, "COMP_WORDS": words, "COMP_CWORD": str(n),
                                    "_PULKA_COMPLETE": "bash_complete"})
        assert done.returncode == 0, done.stderr
        return [line.split(",", 1)[1] for line in done.stdout.splitlines()]

    assert complete("pulka sheet ") == ["cafe", "club"]
    assert complete("pulka sheet c") == ["cafe", "club"]
    assert complete("pulka entry club ") == ["Anna", "Boris", "Vera"]
    assert complete("pulka entry club b") == ["Boris"]
    # Where the game may be left out, the current game's players too.
    assert complete("pulka pencil ") == ["cafe", "club", "Ivan", "Oleg", "Petr"]
    assert "settle" in complete("pulka se")
    source = pulka(tmp_path, env={**env, "_PULKA_COMPLETE": "bash_source"})
    assert "_pulka_completion" in source.stdout


@pytest.mark.parametrize("answer", ["", "n"])
def test_a_correction_not_confirmed_is_not_stored(tmp_path: Path, answer: str) -> None:
    db = str(tmp_path / "p.db")
    env = environment(tmp_path)
    assert pulka(tmp_path, "new", "c", "--players", "A,B,C", "--db", db, env=env).returncode == 0
    assert pulka(tmp_path, "deal", "6S pass pass | 6S | whist whist | 6 2 2", "--db", db, env=env).returncode == 0
    t = Terminal([*PULKA, "correct", "8", "A=7", "B=2", "--db", db], env, tmp_path)
    shown = t.expect(r"store this correction\? \[y/N\]: ")
    assert "now:    tricks A 7, B 2, C 1" in shown
    t.send(answer)
    assert t.finish() == 1
    assert "not stored" in t.seen
    assert len(exported(tmp_path, db, "c")) == 8


def test_make_demo_installs_pulka_without_test_tools(tmp_path: Path) -> None:
    """What ``make demo`` would install: pulka alone. The demo itself, run in a
    virtualenv of its own as a new user runs it, is the packaging check of ``.ci/run``
    (once, not in every ``make test``); its recording commands are run by the browser
    tests (tests/demo_game.py reads them from scripts/demo.sh)."""
    root = Path(__file__).resolve().parent.parent
    venv = tmp_path / "venv"
    plan = subprocess.run(["make", "-n", "demo", f"VENV={venv}"], cwd=root, capture_output=True, text=True,
                          timeout=60)
    assert plan.returncode == 0, plan.stderr
    installs = [line for line in plan.stdout.splitlines() if "pip install" in line]
    assert installs and all("[test]" not in line and "install -e ." in line for line in installs)
    assert any("scripts/demo.sh" in line for line in plan.stdout.splitlines())

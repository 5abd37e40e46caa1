"""The exit statuses of ``pulka``, kept once at its entry point (``cli.main``): 0 done,
1 refused, 2 a command line that cannot be parsed, 3 an internal error, which prints a
short message naming the file that holds the traceback, never the traceback itself.
And negative numbers are arguments wherever a number is taken, without ``--``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main
from helpers import environment, run

# A fault planted in a projection, then the very entry point the `pulka` script calls.
PLANTED = """
import sys
from projections.pulka import PulkaView

def boom(self, *args, **kwargs):
    raise RuntimeError("boom: postgresql://anna:sekrit@127.0.0.1:1/club is not the point")

PulkaView.settlement_text = boom
from cli.main import main
sys.argv[0] = "pulka"
main()
"""


def planted(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = environment(tmp_path, TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-c", PLANTED, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


def test_an_internal_error_exits_3_with_a_short_message_and_the_details_in_a_file(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    assert run(db, "new", "g", "--players", "Anna,Boris,Vera", "--stake", "0.10").exit_code == 0
    done = planted(tmp_path, "settle", "g", "--db", db)
    assert done.returncode == 3
    assert "Traceback" not in done.stderr and done.stdout == ""
    message = done.stderr.strip()
    assert len(message.splitlines()) == 1 and message.startswith("pulka: internal error (RuntimeError: boom")
    found = re.search(r"the details are in (\S+)", message)
    assert found is not None, message
    where = Path(found.group(1))
    assert where.parent == tmp_path / "tmp" and where.stat().st_mode & 0o077 == 0  # the owner's alone
    details = where.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in details and 'in boom' in details
    assert "pulka settle g --db" in details
    # A password is masked in the message and in the file alike.
    secret = "postgresql://anna:sekrit@127.0.0.1:1/club"
    done = subprocess.run([sys.executable, "-c", PLANTED, "settle", "g", "--db", db], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120,
                          env=environment(tmp_path, TMPDIR=str(tmp_path / "tmp"), PULKA_DB=secret))
    assert done.returncode == 3 and "sekrit" not in done.stderr and "***" in done.stderr
    path = re.search(r"the details are in (\S+)", done.stderr)
    assert path is not None and "sekrit" not in Path(path.group(1)).read_text(encoding="utf-8")


def test_the_same_contract_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through click's test runner (the same ``main``): 0, 1, 2 and 3."""
    from projections.pulka import PulkaView

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    db = str(tmp_path / "p.db")
    assert run(db, "new", "g", "--players", "Anna,Boris,Vera").exit_code == 0
    assert run(db, "bid", "g", "Zoya", "6S").exit_code == 1
    assert CliRunner().invoke(main, ["sheet", "--no-such-option", "--db", db]).exit_code == 2
    assert CliRunner().invoke(main, ["no-such-command", "--db", db]).exit_code == 2

    def boom(self: object) -> str:
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(PulkaView, "sheet_text", boom)
    result = run(db, "sheet", "g")
    assert result.exit_code == 3 and "internal error (ZeroDivisionError: planted)" in result.stderr
    assert "Traceback" not in result.output
    assert list(tmp_path.glob("pulka-error-*.txt"))


def test_negative_numbers_are_arguments_without_a_double_dash(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    assert run(db, "new", "g", "--players", "Anna,Boris,Vera").exit_code == 0
    done = run(db, "entry", "g", "Boris", "pulya", "-2")
    assert done.exit_code == 0 and "Boris pulya -2" in done.stdout
    done = run(db, "entry", "Boris", "whists", "-4", "--on", "Anna")  # the current game
    assert done.exit_code == 0 and "Boris whists on Anna -4" in done.stdout
    done = run(db, "entry", "--on", "Anna", "g", "Vera", "whists", "-3")  # options first
    assert done.exit_code == 0 and "Vera whists on Anna -3" in done.stdout
    assert run(db, "correct", "g", "2", "-5", "--yes").exit_code == 0
    assert run(db, "correct", "2", "amount=-6", "--yes").exit_code == 0
    assert "amount=-6" in run(db, "log", "g").stdout
    penalty = run(db, "penalty", "g", "Anna", "gora", "-2", "--reason", "r", "--by", "arbiter:O")
    assert penalty.exit_code in (0, 1) and "No such option" not in penalty.output  # read as a number; the rules judge it
    # Numbers out of range are refused by their rule (1), not as unknown options (2).
    for args in (["object", "g", "Anna", "-1"], ["sheet", "g", "--at", "-1"], ["sheet", "g", "--deal", "-1"],
                 ["undo", "g", "--from", "-2"], ["diff", "g", "-1", "3"],
                 ["bridge", "penalty", "r", "NS", "-100", "--reason", "r", "--by", "Anna"],
                 ["tournament", "seat", "t", "-1", "--auto"], ["tournament", "seat", "t", "1", "-1", "A,B,C"],
                 ["tournament", "start", "t", "-1"], ["tournament", "close", "t", "-3"],
                 ["tournament", "standings", "t", "--tour", "-1"]):
        if args[0] == "bridge" and run(db, "games").stdout.count("bridge") == 0:
            assert run(db, "bridge", "new", "r", "--players", "Anna,Boris,Vera,Gleb").exit_code == 0
        if args[0] == "tournament" and "t" not in run(db, "tournament", "list").stdout.split():
            done = run(db, "tournament", "new", "t", "--players", "A,B,C", "--pulya", "10", "--removal-below", "-150")
            assert done.exit_code == 0 and "removal below -150" in done.stdout
        result = run(db, *args)
        assert result.exit_code == 1, f"{args}: {result.output}"
        assert "No such option" not in result.output
    assert CliRunner().invoke(main, ["tournament", "seat", "t", "1", "--no-such", "--db", db]).exit_code == 2

"""The demo pulka of ``make demo``, recorded for tests from ``scripts/demo.sh`` itself:
every ``say pulka`` line of the script that records (a command of ``cli.record`` or
``cli.deal``) is
run through click into a store, so the tests and the demo cannot drift apart.

The events are then stamped with fixed times, one minute apart from 19:00 (exported,
restamped and imported into the store the tests read), so that the screenshots kept
in ``docs/`` do not change from one run to the next."""

from __future__ import annotations

import json
import re
import shlex
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from cli.main import COMMANDS, main

DEMO = Path(__file__).resolve().parent.parent / "scripts" / "demo.sh"
SAY = re.compile(r"^say pulka (.+)$")


def demo_commands() -> list[list[str]]:
    out = []
    for line in DEMO.read_text(encoding="utf-8").splitlines():
        m = SAY.match(line.strip())
        if m is None or "||" in line:
            continue  # the demo's deliberately refused bid is not part of the pulka
        args = shlex.split(m.group(1))
        if COMMANDS[args[0]][0].startswith(("cli.record:", "cli.deal:")):
            out.append(args)
    return out


def run(db: str, *args: str, state: str | None = None) -> str:
    """``pulka ARGS --db DB``; ``state``: where the current game is kept (the demo's
    commands name the game only in ``pulka new``)."""
    env = {"XDG_STATE_HOME": state} if state is not None else None
    result = CliRunner().invoke(main, [*args, "--db", db], env=env, catch_exceptions=False)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def record_demo(db: str) -> str:
    """Record the demo pulka into the store ``db``; its game name."""
    with tempfile.TemporaryDirectory() as scratch:
        first = str(Path(scratch) / "pulka.db")
        for args in demo_commands():
            run(first, *args, state=str(Path(scratch) / "state"))
        game = demo_commands()[0][1]
        start = datetime.fromisoformat("2026-11-30T19:00:00+01:00")
        lines = []
        for i, line in enumerate(run(first, "export", game).splitlines()):
            event = json.loads(line)
            del event["digest"]
            event["at"] = (start + timedelta(minutes=i)).isoformat()
            lines.append(json.dumps(event, ensure_ascii=False))
        log = Path(scratch) / "demo.jsonl"
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run(db, "import", str(log))
    return game

"""Exit status and messages under faults (issue 24 item 8), on SQLite and PostgreSQL:
each fault made real, never mocked.

- ``pulka new`` stores the game and warns when the current-game file cannot be written
  (exit 1 would say that nothing was stored);
- a full disk (a small tmpfs, mounted in a mount namespace of the test's own with
  ``unshare``, so that neither root nor a leftover mount is needed): every command says
  the disk is full, reading commands read the store read-only, ``views rebuild`` exits
  1, and ``players`` does not blame the chain;
- a read-only SQLite store (0444 file, 0555 folder, and the folder bind-mounted
  read-only, which root cannot write either) is read by every reading command;
- a PostgreSQL role with exactly the README's auditor grants reads the archive, folded
  in memory, and is told what would keep the views;
- a forked export names the event where its history leaves the store's; a log that
  appends with another start time is refused; a refusal lists a store's games without
  its tournaments and club register.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest
from click.testing import CliRunner, Result
from psycopg import sql

from cli.main import main
from helpers import stored_rows
from ledger.store.event_store import parse_postgres_url

DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 4 3 3", "7H pass pass | 7H | whist pass | 6 3 1"]


def run(db: str, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def ok(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 1, f"{args} should be refused (exit {result.exit_code}): {result.output}"
    return result.stderr


def pulka_game(db: str, game: str = "g", players: str = "Anna,Boris,Vera") -> None:
    ok(db, "new", game, "--players", players, "--pulya", "4", "--stake", "0.10")
    for line in DEALS:
        ok(db, "deal", game, line)


# -- the current game -----------------------------------------------------------------


def test_new_stores_the_game_and_warns_when_it_cannot_be_made_current(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The state file's folder cannot be made: a file stands where it would be.
    (tmp_path / "blocked").write_text("not a folder")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "blocked"))
    result = run(store_url, "new", "g", "--players", "Anna,Boris,Vera")
    assert result.exit_code == 0, result.output
    assert "started g: Anna, Boris, Vera" in result.stdout and "now the current game" not in result.stdout
    assert "warning: 'g' is stored, but is not the current game: cannot keep the current game in" in result.stderr
    assert "`pulka use g`" in result.stderr
    assert json.loads(ok(store_url, "games", "--json"))[0]["game"] == "g"
    result = run(store_url, "bridge", "new", "r", "--players", "A,B,C,D")
    assert result.exit_code == 0 and "warning: 'r' is stored, but is not the current game" in result.stderr
    doc = json.loads(ok(store_url, "new", "h", "--players", "Anna,Boris,Vera", "--json"))
    assert doc["current"] is False


# -- running commands in a mount namespace of the test's own -----------------------------


Step = str | tuple[str, list[str]]  # a shell line, or a labelled pulka command


def in_namespace(tmp_path: Path, steps: list[Step]) -> dict[str, tuple[int, str, str]]:
    """Run ``steps`` in order in a mount namespace of the test's own (``unshare``: as
    root, or mapped to root in a user namespace), where a shell line may mount what it
    likes (and a failing one stops the run); each pulka command's exit status, output
    and errors, by label."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    lines, labels = [], []
    for step in steps:
        if isinstance(step, str):
            lines.append(f"{step} || exit 9")
            continue
        label, args = step
        labels.append(label)
        words = " ".join(shlex.quote(a) for a in args)
        lines.append(f'"$PY" -m cli.main {words} > {out}/{label}.out 2> {out}/{label}.err; '
                     f"echo $? > {out}/{label}.code")
    env = dict(os.environ, PY=sys.executable, XDG_STATE_HOME=str(tmp_path / "state"), TMPDIR=str(tmp_path))
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    prefix = [unshare, "--mount"] if os.geteuid() == 0 else [unshare, "--map-root-user", "--mount"]
    done = subprocess.run([*prefix, "bash", "-c", "\n".join(lines)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    return {label: (int((out / f"{label}.code").read_text()), (out / f"{label}.out").read_text(),
                    (out / f"{label}.err").read_text()) for label in labels}


def test_a_full_disk_is_called_so_and_the_store_is_still_read(tmp_path: Path) -> None:
    """A store on a tmpfs of 2 MB: with 0 bytes left, reading commands read it (opened
    read-only), ``players`` folds the archive in memory and says why, and every command
    that writes says that the disk is full; with a few pages left, ``views rebuild``
    says so too (it exited 3) and ``players`` does not blame the chain."""
    disk = tmp_path / "disk"
    disk.mkdir()
    db = str(disk / "pulka.db")
    steps: list[Step] = [f"mount -t tmpfs -o size=2m tmpfs {disk}",
                         ("new", ["new", "g", "--players", "Anna,Boris,Vera", "--pulya", "40", "--db", db])]
    steps += [(f"deal{k}", ["deal", "g", DEALS[k % 3], "--again", "--db", db]) for k in range(12)]
    steps += [("players", ["players", "--db", db]),
              ("deal", ["deal", "g", DEALS[1], "--again", "--db", db]),  # after the views' last catch-up
              ("settle", ["settle", "g", "--db", db]),
              f"dd if=/dev/zero of={disk}/fill bs=4k 2> /dev/null; test $(df -k --output=avail {disk} | tail -1) = 0"]
    full = {
        "full_settle": ["settle", "g", "--db", db],
        "full_verify": ["verify", "g", "--db", db],
        "full_players": ["players", "--db", db],
        "full_rebuild": ["views", "rebuild", "--db", db],
        "full_deal": ["deal", "g", DEALS[1], "--again", "--db", db],
        "full_new": ["new", "h", "--players", "Anna,Boris,Vera", "--db", db],
    }
    steps += list(full.items())
    # A few pages left: less than the views need to be built again.
    steps += [f"rm {disk}/fill; dd if=/dev/zero of={disk}/fill bs=1k "
              f"count=$(( $(df -k --output=avail {disk} | tail -1) - 24 )) 2> /dev/null; true",
              ("nearly_rebuild", ["views", "rebuild", "--db", db]), ("nearly_players", ["players", "--db", db])]
    found = in_namespace(tmp_path, steps)

    for label in ("new", "deal0", "deal11", "settle", "players", "deal"):
        assert found[label][0] == 0, (label, found[label])
    code, stdout, stderr = found["full_settle"]
    assert code == 0 and stdout == found["settle"][1], stderr  # read as it is, read-only
    assert found["full_verify"][0] == 0 and "chain intact" in found["full_verify"][1]
    code, stdout, stderr = found["full_players"]
    assert code == 0 and "the disk is full" in stderr and "pulka verify" not in stderr, found["full_players"]
    for label in ("full_rebuild", "full_deal", "full_new", "nearly_rebuild"):
        code, stdout, stderr = found[label]
        assert code == 1, (label, found[label])
        assert "the disk is full" in stderr and "free some space" in stderr, (label, stderr)
        assert "disk I/O error" not in stderr and "internal error" not in stderr, (label, stderr)
    code, stdout, stderr = found["nearly_players"]
    assert code == 0 and "pulka verify" not in stderr and "the disk is full" in stderr, found["nearly_players"]
    assert stdout == found["full_players"][1]


def test_a_read_only_sqlite_store_is_read(tmp_path: Path) -> None:
    club = tmp_path / "club"
    club.mkdir()
    db = str(club / "pulka.db")
    pulka_game(db)
    ok(db, "new", "late", "--players", "Anna,Gleb,Vera")  # after the views last caught up: a read must fold it
    ok(db, "deal", "late", DEALS[0])
    readers = {
        "settle": ["settle", "g"], "sheet": ["sheet", "g"], "log": ["log", "g", "--json"], "export": ["export", "g"],
        "verify": ["verify"], "head": ["head", "g"], "games": ["games", "--json"], "players": ["players", "--json"],
        "player": ["player", "Anna", "--json"],
    }
    # The store as its owner reads it, before it is made read-only (the views are
    # brought up to the last event by the first of these, in a copy, so that the
    # read-only store's own views stay behind).
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    expected = {label: ok(str(copy), *args) for label, args in readers.items()}
    setup: list[Step] = [f"chmod 0444 {db}", f"chmod 0555 {club}", f"mount --bind {club} {club}",
                         f"mount -o remount,bind,ro {club}"]
    commands = {label: [*args, "--db", db] for label, args in readers.items()}
    commands["deal"] = ["deal", "g", DEALS[1], "--again", "--db", db]
    commands["rebuild"] = ["views", "rebuild", "--db", db]
    try:
        found = in_namespace(tmp_path, [*setup, *commands.items()])
    finally:
        os.chmod(club, 0o755)
        os.chmod(db, 0o644)
    for label in readers:
        code, stdout, stderr = found[label]
        assert code == 0, (label, stderr)
        assert stdout == expected[label], label
    assert "the archive is folded from the stored events for this command alone" in found["players"][2]
    for label in ("deal", "rebuild"):
        code, _, stderr = found[label]
        assert code == 1 and "the store is read-only here" in stderr and "internal error" not in stderr, (label, stderr)


# -- PostgreSQL: a role with the README's auditor grants ---------------------------------


@pytest.fixture
def auditor(postgres_url: str) -> Iterator[str]:
    """The address of a role with exactly the README's auditor grants (USAGE on the
    schema, SELECT on pulka_events), on a store with a pulka, a tournament with a table
    in play, an alias, and its views made."""
    db = postgres_url
    pulka_game(db, "g")
    ok(db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera", "--pulya", "6", "--tours", "1",
       "--table-size", "3", "--by", "arbiter:Oleg")
    ok(db, "tournament", "seat", "cup", "1", "1", "Anna,Boris,Vera", "--by", "arbiter:Oleg")
    ok(db, "tournament", "start", "cup", "1")
    ok(db, "deal", "cup/1/1", DEALS[0])
    ok(db, "alias", "Anna P.", "Zoya", "--by", "arbiter:Oleg")
    ok(db, "deal", "g", DEALS[1], "--again")  # the views are behind by now
    address = parse_postgres_url(db)
    role, password = f"pulka_auditor_{uuid4().hex[:10]}", uuid4().hex
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(address.schema),
                                                                     sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(sql.Identifier(address.schema, "pulka_events"),
                                                               sql.Identifier(role)))
    yield f"postgresql://{role}:{password}@{address.host}:{address.port}/{address.dbname}?schema={address.schema}"
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


@pytest.mark.postgres
def test_an_auditor_reads_the_archive_without_writing_the_views(auditor: str, postgres_url: str) -> None:
    rows = stored_rows(postgres_url)
    views = [["players"], ["player", "Anna", "--json"], ["tournament", "standings", "cup"], ["rating"]]
    for args in views:
        result = run(auditor, *args)
        assert result.exit_code == 0, (args, result.output)
        assert "the archive is folded from the stored events for this command alone" in result.stderr, args
        assert "SELECT, INSERT, UPDATE and DELETE on the archive_* and rating_* tables" in result.stderr, args
        assert result.stdout == ok(postgres_url, *args), args  # the owner's, who keeps the views
    err = refused(auditor, "views", "status")
    assert "permission denied" in err and "SELECT, INSERT, UPDATE and DELETE on the archive_*" in err
    err = refused(auditor, "alias", "Gleb B.", "Gleb", "--by", "arbiter:Oleg")
    assert "permission denied for table pulka_events" in err and "internal error" not in err
    assert stored_rows(postgres_url) == rows  # the auditor stored nothing


# -- logs that do not go on from the stored history ----------------------------------------


def test_a_forked_export_names_the_event_where_it_leaves_the_store(store_url: str, tmp_path: Path) -> None:
    db = store_url
    pulka_game(db)
    ok(db, "new", "fork", "--players", "Anna,Boris,Vera", "--pulya", "40")
    ok(db, "deal", "fork", DEALS[0])  # events 1-8
    base = tmp_path / "base.jsonl"
    base.write_text(ok(db, "export", "fork"), encoding="utf-8")
    other = str(tmp_path / "other.db")
    ok(other, "import", str(base))
    ok(other, "deal", "fork", DEALS[2])  # the other store's event 9 on: 7H
    ok(db, "deal", "fork", DEALS[1])  # this store's: raspasy
    forked = tmp_path / "forked.jsonl"
    forked.write_text(ok(other, "export", "fork"), encoding="utf-8")
    rows = stored_rows(db)
    err = refused(db, "import", str(forked))
    assert "line 9: the file's history of 'fork' differs from the store's at event 9" in err
    assert "(the file has 15 events, the store 12)" in err and "belongs to deal" not in err
    assert stored_rows(db) == rows
    assert "nothing new" in ok(db, "import", str(base))  # the shared beginning is still taken as it is


def test_a_log_that_appends_must_begin_with_the_stored_start(store_url: str, tmp_path: Path) -> None:
    db = store_url
    ok(db, "new", "g", "--players", "Anna,Boris,Vera", "--pulya", "40")
    start = json.loads(ok(db, "export", "g").splitlines()[0])
    del start["digest"]
    later = [{"type": "bid", "player": "Anna", "bid": "pass"}]
    log = tmp_path / "more.jsonl"
    start["at"] = "2020-01-01T10:00:00+00:00"
    log.write_text("\n".join(json.dumps(x) for x in [start, *later]) + "\n", encoding="utf-8")
    rows = stored_rows(db)
    err = refused(db, "import", str(log))
    assert "line 1: game 'g' was started at" in err and "the file's game_started line says 2020-01-01T10:00:00+00:00" in err
    assert stored_rows(db) == rows
    del start["at"]  # a log written by hand, without the start's time, appends
    log.write_text("\n".join(json.dumps(x) for x in [start, *later]) + "\n", encoding="utf-8")
    assert "appended to g: 1 event stored" in ok(db, "import", str(log))


def test_refusals_list_the_games_without_the_register_and_the_tournaments(store_url: str, tmp_path: Path) -> None:
    db = store_url
    pulka_game(db)
    ok(db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera", "--pulya", "6", "--tours", "1",
       "--table-size", "3", "--by", "arbiter:Oleg")
    ok(db, "alias", "Anna P.", "Zoya", "--by", "arbiter:Oleg")
    for args in (["sheet", "nosuch"], ["deal", "nosuch", DEALS[0]], ["head", "nosuch"]):
        err = refused(db, *args)
        assert "no game named 'nosuch' in the store " in err, err
        assert "; stored games: g (tournaments, `pulka tournament …`: cup)" in err, err
        assert "@club" not in err
    log = tmp_path / "cup.jsonl"
    log.write_text(json.dumps({"type": "game_started", "game": "cup", "players": ["A", "B", "C"], "pulya": 10}) + "\n")
    assert "line 1: 'cup' is a tournament, not a game" in refused(db, "import", str(log))


# -- a log larger than the machine can hold -----------------------------------------------------


LIMITED = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
from cli.main import main
sys.argv = ["pulka", *sys.argv[2:]]
main()
"""


def test_a_log_larger_than_the_machine_can_judge_is_refused_not_killed(store_url: str, tmp_path: Path) -> None:
    """The log's lines are counted before any is decoded: one that judging would need
    more memory for than the process may have (here a data limit of 256 MB, for 400,000
    events) is refused with a message, and nothing is stored. The refusal comes before
    any line is judged, so the lines need not be legal (the ledger before it decoded
    them all, then refused line 3)."""
    log = tmp_path / "big.jsonl"
    start = {"type": "game_started", "game": "big", "players": ["A", "B", "C"], "pulya": 10}
    with open(log, "w", encoding="utf-8") as f:
        f.write(json.dumps(start) + "\n")
        f.write('{"type":"bid","player":"A","bid":"pass"}\n' * 400_000)
    rows = stored_rows(store_url)
    for args in (["import", str(log), "--db", store_url], ["verify", "--file", str(log)]):
        done = subprocess.run([sys.executable, "-c", LIMITED, str(256 << 20), *args], capture_output=True, text=True,
                              timeout=300, env=dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state")))
        assert done.returncode == 1, (args, done.stderr)
        assert f"{log} holds 400,001 events: judging them needs about" in done.stderr
        assert "run this on a machine with more memory" in done.stderr and "Traceback" not in done.stderr
    assert stored_rows(store_url) == rows

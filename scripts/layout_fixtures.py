"""Makes the fixtures of the store's earlier layouts (fixtures/layouts/): for each layout,
a small club recorded by the commit of the project that wrote that layout, with that
commit's own code, kept as it stored it: the SQLite file, a PostgreSQL dump of the same
club, the exports of its streams, and what that commit's commands said of it.

    python scripts/layout_fixtures.py [--postgres URL] [LAYOUT ...]

Each commit is checked out in a temporary git worktree of this repository, and this
script runs itself there (``drive``) with that worktree first on the import path, so
that every command and every row is that commit's: ``python -m cli.main`` of the
commit for the commands, and its own test helpers for the service's accounts, tokens
and receipts. Without ``--postgres`` (a ``postgresql://`` address of a database this
role may create schemas in) only the SQLite stores are made. The layouts and what each
one added are ``ledger.store.layout.EARLIER``; fixtures/layouts/README.md lists them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "layouts"
# The commit that made each earlier layout's fixture: the last commit of the project's
# history that wrote that layout (the number is the layout's in ledger.store.layout).
COMMITS = {1: "4cbbce6", 2: "886ef46", 3: "2576d9f", 4: "df8e861", 5: "e53edc2", 6: "fbf0bbe"}
SCHEMA = "pulka_layout_fixture"  # the schema the dump is made in (a test loads it under its own name)
PLAYERS = {"A": "Анна", "B": "Boris", "C": "Вера", "D": "Gleb"}
# The golden logs of each commit the club imports, each under a name of the club.
LOGS = {"ex07_leningrad_closing": "пятница", "ex13_rounding": "Saturday", "conv_half_whist": "вечер"}


def renamed(value: Any, names: dict[str, str]) -> Any:
    """A log's JSON with its players and its game renamed (every value and key that is one)."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [renamed(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): renamed(v, names) for k, v in value.items()}
    return value


# -- run inside the commit's worktree -----------------------------------------------------


def pulka(db: str, *args: str, stdin: str | None = None) -> str:
    """The commit's command line on ``db``: its standard output (it must succeed)."""
    done = subprocess.run([sys.executable, "-m", "cli.main", *args, "--db", db], capture_output=True, text=True,
                          input=stdin, env={**os.environ, "PULKA_LANG": "en"})
    if done.returncode != 0:
        raise SystemExit(f"pulka {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def drive(layout: int, db: str, out: Path) -> None:
    """Record the club with this commit's code on ``db``, and write its exports and what
    the commit's commands say of it into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    tree = Path.cwd()
    said: dict[str, Any] = {"layout": layout, "games": {}, "exports": {}}
    for source, game in LOGS.items():
        lines = (tree / "fixtures" / f"{source}.jsonl").read_text(encoding="utf-8").splitlines()
        log = [json.dumps(renamed(json.loads(line), {**PLAYERS, source: game}), ensure_ascii=False)
               for line in lines if line.strip()]
        path = out / f"import-{game}.jsonl"
        path.write_text("\n".join(log) + "\n", encoding="utf-8")
        pulka(db, "import", str(path))
        path.unlink()
    # What each export is made by: a game's or a rubber's log, a tournament with its tables,
    # the whole club (the commands that layout's commit has).
    exports: list[list[str]] = [["export", game] for game in LOGS.values()]
    if layout >= 2:
        club_streams(layout, db)
        exports += [["tournament", "export", "кубок"], ["export", "роббер"]]
    if layout >= 4:
        key = out / "club.key"
        subprocess.run([sys.executable, "-m", "cli.main", "keygen", "club.example/pulka", "--out", str(key)],
                       check=True, capture_output=True)
        said["checkpoint"] = pulka(db, "checkpoint", "--key", str(key), "--reason", "the evening's end")
        key.unlink()  # its public key stays (club.pub): what a player checks a signature with
    if layout >= 5:
        service(db)
        exports.append(["export", "стол"])
    if layout >= 6:
        exports.append(["export", "--club"])
    if os.environ.get("LAYOUT_EXPORTS") == "no":
        exports = []
    for number, command in enumerate(exports, start=1):
        said["exports"][f"stream{number}.jsonl"] = command
        (out / f"stream{number}.jsonl").write_text(pulka(db, *command), encoding="utf-8")
    for game in [*LOGS.values(), *(["кубок/1/1", "роббер"] if layout >= 2 else []), *(["стол"] if layout >= 5 else [])]:
        said["games"][game] = json.loads(pulka(db, "settle", game, "--json"))
    if layout >= 2:
        said["standings"] = json.loads(pulka(db, "tournament", "standings", "кубок", "--json"))
        said["players"] = json.loads(pulka(db, "players", "--json"))
    if layout >= 3:
        said["rating"] = json.loads(pulka(db, "rating", "--json"))
    said["verify"] = pulka(db, "verify")
    (out / "said.json").write_text(json.dumps(said, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                                   encoding="utf-8")


def club_streams(layout: int, db: str) -> None:
    """A tournament of one table of three (its pulka over after one deal), an alias in the
    club register, and a rubber of bridge with one deal."""
    pulka(db, "tournament", "new", "кубок", "--players", "Анна,Boris,Вера", "--pulya", "10", "--tours", "1",
          "--deal-cap", "1", "--table-size", "3", "--by", "arbiter:Oleg")
    pulka(db, "tournament", "seat", "кубок", "1", "1", "Анна,Boris,Вера", "--by", "arbiter:Oleg")
    pulka(db, "tournament", "start", "кубок", "1", "--by", "arbiter:Oleg")
    for player, bid in (("Анна", "6S"), ("Boris", "pass"), ("Вера", "pass")):
        pulka(db, "bid", "кубок/1/1", player, bid, "--by", "Boris")
    pulka(db, "contract", "кубок/1/1", "Анна", "6S", "--by", "Boris")
    pulka(db, "defence", "кубок/1/1", "Boris", "whist", "--by", "Boris")
    pulka(db, "defence", "кубок/1/1", "Вера", "pass", "--by", "Boris")
    pulka(db, "tricks", "кубок/1/1", "Анна=7", "Boris=2", "Вера=1", "--by", "Boris")
    pulka(db, "tournament", "close", "кубок", "1", "--by", "arbiter:Oleg")
    pulka(db, "alias", "Аня", "Анна", "--by", "arbiter:Oleg")
    pulka(db, "bridge", "new", "роббер", "--players", "Анна,Boris,Вера,Gleb", "--by", "Анна")
    pulka(db, "bridge", "deal", "роббер", "4S X N 10", "--by", "Анна")


def service(db: str) -> None:
    """The service's own tables, as that commit's service writes them: a director's and an
    arbiter's accounts, a pulka started by the director, a table's token, and a deal
    sent by the table's phone under its client id (a receipt), sent twice."""
    from tests.serving import account, bearer, client, sign_in  # the commit's own helpers

    account(db, "dora", "director")
    account(db, "igor", "arbiter")
    with client(db) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-game-0001", "game": "стол", "players": ["Анна", "Boris", "Вера"],
                                       "pulya": 10}, headers=director)
        assert r.status_code == 201, r.text
        r = c.post("/api/games/стол/tokens", json={"holder": "Boris"}, headers=director)
        assert r.status_code == 201, r.text
        phone = bearer(r.json()["token"])
        Path(os.environ["LAYOUT_TOKEN_FILE"]).write_text(r.json()["token"], encoding="utf-8")
        line = "6S pass pass | 6S | whist whist | 6 2 2"
        for _ in range(2):
            r = c.post("/api/games/стол/deal", json={"id": "7d3c8a52-0000-4000-8000-000000000001", "version": 1,
                                                   "line": line}, headers=phone)
            assert r.status_code in (200, 201), r.text


# -- run in this checkout -----------------------------------------------------------------


def make(layout: int, postgres: str | None) -> None:
    commit = COMMITS[layout]
    out = OUT / f"layout{layout}"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True,
                       capture_output=True)
        try:
            run = [sys.executable, str(Path(__file__).resolve()), "drive", str(layout)]
            env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1",
                   "LAYOUT_TOKEN_FILE": str(out / "token.txt"), "XDG_STATE_HOME": str(Path(tmp) / "state"),
                   "XDG_DATA_HOME": str(Path(tmp) / "data"), "PULKA_LANG": "en"}
            subprocess.run([*run, str(out / "store.db"), str(out)], cwd=tree, env=env, check=True)
            if postgres is not None:
                dump_postgres(postgres, run, tree, env, out)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
    (out / "commit.txt").write_text(subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%H %ad %s", "--date=iso", commit],
        capture_output=True, text=True, check=True).stdout, encoding="utf-8")


def dump_postgres(postgres: str, run: list[str], tree: Path, env: dict[str, str], out: Path) -> None:
    """The same club recorded on PostgreSQL in a schema of its own, dumped as SQL (plain
    INSERTs, no owner, no grants) and the schema dropped."""
    import psycopg

    with psycopg.connect(postgres, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        try:
            pg = out / "postgres"
            address = postgres + ("&" if "?" in postgres else "?") + f"schema={SCHEMA}"
            subprocess.run([*run, address, str(pg)], cwd=tree, check=True,
                           env={**env, "LAYOUT_TOKEN_FILE": str(pg / "token.txt"), "LAYOUT_EXPORTS": "no"})
            dump = subprocess.run(["pg_dump", "--dbname", postgres, "--schema", SCHEMA, "--inserts", "--no-owner",
                                   "--no-privileges", "--no-comments"], capture_output=True, text=True, check=True)
            (pg / "dump.sql").write_text(dump.stdout, encoding="utf-8")
        finally:
            conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def main() -> None:
    if sys.argv[1:2] == ["drive"]:
        drive(int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
        return
    args = sys.argv[1:]
    postgres = None
    if args[:1] == ["--postgres"]:
        postgres, args = args[1], args[2:]
    for layout in [int(a) for a in args] or sorted(COMMITS):
        make(layout, postgres)
        print(f"layout {layout}: {COMMITS[layout]}")


if __name__ == "__main__":
    main()

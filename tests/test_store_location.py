"""Where the evening is (issue 20, item 4): ``pulka`` on the PATH after the checkout's
``make``, the default store in the user's data folder whatever folder one stands in,
an older ``./pulka.db`` still used and said, every "no game" naming the store it looked
in, and a plain install pointed at PostgreSQL told to install the extra.

Every test runs pulka as a process of its own, with its own home, data and state
folders, from folders of the test's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import PULKA, environment

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent.parent  # the virtualenv running the tests, pulka installed in it


def home(tmp_path: Path) -> dict[str, str]:
    """The environment of a user whose home, data and state folders are the test's."""
    env = environment(tmp_path, HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"),
                      XDG_STATE_HOME=str(tmp_path / "state"))
    return env


def at(folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``pulka ARGS`` run from ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.run([*PULKA, *args], capture_output=True, text=True, env=env, cwd=folder, timeout=120)


def test_the_evening_is_found_from_any_folder(tmp_path: Path) -> None:
    env = home(tmp_path)
    started = at(tmp_path / "evening", env, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10")
    assert started.returncode == 0, started.stderr
    dealt = at(tmp_path / "evening", env, "deal", "6S pass pass | 6S | whist whist | 6 2 2")
    assert dealt.returncode == 0, dealt.stderr
    store = tmp_path / "data" / "pulka" / "pulka.db"  # $XDG_DATA_HOME/pulka/pulka.db
    assert store.is_file()
    assert started.stdout.splitlines()[-1] == \
        f"demo is now the current game: commands may leave its name out (the store: {store})"
    assert not (tmp_path / "evening" / "pulka.db").exists()
    # From another folder the same evening, its current game and its sheet.
    sheet = at(tmp_path / "elsewhere", env, "sheet")
    assert sheet.returncode == 0, sheet.stderr
    assert "Anna" in sheet.stdout and sheet.stderr == ""
    listed = at(tmp_path / "elsewhere", env, "games")
    assert listed.stdout.startswith("demo: Anna, Boris, Vera")
    # --db and PULKA_DB still come first.
    other = tmp_path / "other.db"
    assert "no games stored yet" in at(tmp_path / "elsewhere", env, "games", "--db", str(other)).stdout
    assert "no games stored yet" in at(tmp_path / "elsewhere", {**env, "PULKA_DB": str(other)}, "games").stdout


def test_a_reading_command_makes_no_data_folder(tmp_path: Path) -> None:
    env = home(tmp_path)
    shown = at(tmp_path / "here", env, "games")
    assert shown.returncode == 0
    assert not (tmp_path / "data").exists()


def test_a_store_in_the_working_folder_is_still_used_and_said(tmp_path: Path) -> None:
    env = home(tmp_path)
    old = tmp_path / "club"
    made = at(old, env, "new", "friday", "--players", "Anna,Boris,Vera", "--db", str(old / "pulka.db"))
    assert made.returncode == 0, made.stderr
    listed = at(old, env, "games")
    assert listed.returncode == 0 and listed.stdout.startswith("friday:")
    default = tmp_path / "data" / "pulka" / "pulka.db"
    assert listed.stderr == (f"pulka: note: using {old / 'pulka.db'} of this folder; the default store is "
                             f"{default} (move the file there, or choose one with --db or PULKA_DB)\n")
    assert at(old, env, "deal", "friday", "pass pass pass | 4 3 3").returncode == 0
    assert not default.exists()  # recorded into the folder's store, not the default one
    # Shell completion finds its games, and prints no note over the line being typed.
    completed = at(old, {**env, "COMP_WORDS": "pulka sheet ", "COMP_CWORD": "2", "_PULKA_COMPLETE": "bash_complete"})
    assert completed.returncode == 0 and completed.stdout.splitlines() == ["plain,friday"]
    assert completed.stderr == ""
    # Named, the folder's store is used without a note.
    named = at(old, env, "games", "--db", "pulka.db")
    assert named.stdout.startswith("friday:") and named.stderr == ""
    # From another folder, the default store, which has no such game, and says where it looked.
    missing = at(tmp_path / "elsewhere", env, "sheet", "friday")
    assert missing.returncode == 1
    assert f"no game named 'friday' in the store {default}; it has no games yet" in missing.stderr


def test_every_no_game_message_names_the_store(tmp_path: Path) -> None:
    env = home(tmp_path)
    folder = tmp_path / "here"
    default = tmp_path / "data" / "pulka" / "pulka.db"
    assert at(folder, env, "games").stdout == f"no games stored yet in the store {default}; start one with `pulka new`\n"
    no_current = at(folder, env, "sheet")
    assert no_current.returncode == 2
    assert f"no game given and no current game for the store {default}" in no_current.stderr
    assert at(folder, env, "new", "demo", "--players", "Anna,Boris,Vera").returncode == 0
    for args in (["sheet", "friday"], ["log", "friday"], ["settle", "friday"], ["use", "friday"]):
        shown = at(folder, env, *args)
        assert shown.returncode == 1, args
        assert f"no game named 'friday' in the store {default}; stored games: demo" in shown.stderr, args
    relative = at(folder, env, "sheet", "friday", "--db", "club.db")  # a relative path, named in full
    assert f"in the store {folder / 'club.db'};" in relative.stderr
    tour = at(folder, env, "tournament", "standings", "spring")
    assert tour.returncode == 1
    assert f"no tournament named 'spring' in the store {default}; it has no tournament" in tour.stderr


BLOCK_PSYCOPG = '''
import importlib.abc
import sys


class Blocked(importlib.abc.MetaPathFinder):
    """A plain install: the PostgreSQL driver is not there."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("psycopg", "psycopg_pool", "psycopg_binary", "psycopg_c"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Blocked())
'''


def test_a_plain_install_pointed_at_postgres_says_to_install_the_extra(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCK_PSYCOPG, encoding="utf-8")
    env = home(tmp_path) | {"PYTHONPATH": str(site)}
    blocked = subprocess.run([sys.executable, "-c", "import psycopg"], capture_output=True, text=True, env=env)
    assert blocked.returncode == 1 and "No module named 'psycopg'" in blocked.stderr  # the driver is not there
    address = os.environ.get("PULKA_TEST_POSTGRES") or "postgresql://pulka:s3cret-word@127.0.0.1:5432/pulka"
    for args in (["games"], ["init"], ["new", "g", "--players", "Anna,Boris,Vera"], ["sheet", "g"],
                 ["tournament", "list"], ["players"]):
        shown = at(tmp_path / "here", env, *args, "--db", address)
        assert shown.returncode == 1, (args, shown.stderr)
        assert "internal error" not in shown.stderr and "Traceback" not in shown.stderr
        assert "a postgresql:// store needs pulka's PostgreSQL extra" in shown.stderr, (args, shown.stderr)
        assert "pip install 'pulka[postgres]'" in shown.stderr
    # With the driver there, the same address is a store (or, without a server, a refusal
    # of the connection, not of the install).
    if os.environ.get("PULKA_TEST_POSTGRES"):
        listed = at(tmp_path / "here", home(tmp_path), "tournament", "list", "--db", address)
        assert "PostgreSQL extra" not in listed.stderr


def test_make_install_puts_pulka_on_the_path(tmp_path: Path) -> None:
    """The README's way: `make install` links the checkout's pulka into a folder on the
    PATH (BINDIR, ~/.local/bin by default), and `pulka` then runs from any folder."""
    bindir = tmp_path / "bin"
    env = home(tmp_path)
    made = subprocess.run(["make", "-s", "-C", str(ROOT), "install", f"BINDIR={bindir}", f"VENV={VENV}"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    assert (bindir / "pulka").is_symlink()
    assert f"{bindir} is not on your PATH" in made.stdout  # and it says how to add it
    env["PATH"] = f"{bindir}:/usr/bin:/bin"
    shown = subprocess.run(["pulka", "games"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("no games stored yet in the store")


def test_the_virtualenv_activated_puts_pulka_on_the_path(tmp_path: Path) -> None:
    """The README's other way: `. .venv/bin/activate` in the shell."""
    env = home(tmp_path) | {"PATH": "/usr/bin:/bin"}
    script = f'. "{VENV}/bin/activate" && cd "{tmp_path}" && pulka games'
    shown = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("no games stored yet in the store")

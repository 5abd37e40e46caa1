"""pulka's generic top-level package names (issue 19 item 3): a command run where another
package of one of those names comes first on the Python path refuses to run and names
it, instead of running half of someone else's code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PULKA = [sys.executable, "-c", "from cli.main import main; main()"]


def run(tmp_path: Path, pythonpath: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": pythonpath, "PULKA_DB": str(tmp_path / "pulka.db")}
    return subprocess.run([*PULKA, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


@pytest.mark.parametrize("name", ["ledger", "projections", "web"])
def test_a_stranger_in_the_place_of_a_package_is_named_and_nothing_runs(tmp_path: Path, name: str) -> None:
    stranger = tmp_path / "elsewhere" / name
    stranger.mkdir(parents=True)
    (stranger / "__init__.py").write_text("raise SystemExit('the stranger ran')\n", encoding="utf-8")
    done = run(tmp_path, f"{stranger.parent}{os.pathsep}{ROOT}", "new", "g", "--players", "Anna,Boris,Vera")
    assert done.returncode == 1, done.stderr
    assert f"pulka's package {name!r} is found at {stranger}" in done.stderr
    assert "virtualenv of its own" in done.stderr and "the stranger ran" not in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "pulka.db").exists()  # nothing stored


def test_pulka_runs_where_its_packages_are_its_own(tmp_path: Path) -> None:
    done = run(tmp_path, str(ROOT), "new", "g", "--players", "Anna,Boris,Vera")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pulka.db").exists()

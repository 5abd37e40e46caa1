"""Running ``pulka`` in tests: in process through click (``run``, ``ok``, ``refused``),
as a real process (``pulka``), and on a real pseudo-terminal (``Terminal``).

``Terminal`` waits for what the program prints, never for a length of time: ``expect``
reads until a pattern appears (a deadline only turns a hang into a failure).
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from click.testing import CliRunner, Result

from cli.main import main

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")
FLOAT_ARTEFACT = re.compile(r"\d\.\d{6,}")  # 13.333333333333334 in text for people


def run(db: str, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, [*args, "--db", db], input=input, env=env, catch_exceptions=False)


def ok(db: str, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> str:
    result = run(db, *args, input=input, env=env)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str, input: str | None = None) -> str:
    result = run(db, *args, input=input)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    return result.stderr


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a pulka process: its own state directory, no stray game or store."""
    env = {k: v for k, v in os.environ.items() if k not in ("PULKA_GAME", "PULKA_DB", "TZ")}
    env.update({"XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "dumb", "PYTHONIOENCODING": "utf-8"})
    env.update(extra)
    return env


# The installed `pulka` script beside this Python (the name shell completion answers to).
PULKA = [str(Path(sys.executable).parent / "pulka")]


def pulka(tmp_path: Path, *args: str, env: dict[str, str] | None = None,
          input: str | None = None) -> subprocess.CompletedProcess[str]:
    """pulka as a process of its own."""
    return subprocess.run([*PULKA, *args], capture_output=True, text=True, input=input,
                          env=env or environment(tmp_path), cwd=tmp_path, timeout=120)


class Terminal:
    """A pulka process whose standard input, output and error (or only its standard
    error) are a pseudo-terminal."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, *, stderr_only: bool = False) -> None:
        self.master, slave = pty.openpty()
        self.stdout: IO[Any] | None = None
        if stderr_only:  # standard output to a file, read after the end
            self.stdout = tempfile.TemporaryFile(mode="w+b")
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.stdout, stderr=slave,
                                         env=env, cwd=cwd, close_fds=True)
        else:
            self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                         close_fds=True, start_new_session=True)
        os.close(slave)
        self.seen = ""  # everything read, without terminal control sequences
        self.pos = 0  # where the next expect starts looking

    def _read(self, deadline: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], deadline)
        if not ready:
            raise AssertionError(f"pulka printed nothing more; so far:\n{self.seen}")
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the other side closed: the process ended
            return False
        if not data:
            return False
        self.seen += ANSI.sub("", data.decode("utf-8", errors="replace"))
        return True

    def expect(self, pattern: str, deadline: float = 60) -> str:
        """Read until ``pattern`` (a regular expression) appears; return what came before it."""
        regex = re.compile(pattern)
        while True:
            found = regex.search(self.seen, self.pos)
            if found:
                before = self.seen[self.pos : found.start()]
                self.pos = found.end()
                return before
            if not self._read(deadline):
                raise AssertionError(f"pulka ended without printing {pattern!r}; it printed:\n{self.seen}")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self, deadline: float = 60) -> int:
        """Read to the end; the exit status."""
        while self._read(deadline):
            pass
        status = self.proc.wait(timeout=deadline)
        os.close(self.master)
        if self.stdout is not None:
            self.stdout.seek(0)
        return status

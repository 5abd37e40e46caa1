"""Many ``pulka`` commands racing on one store, each a process of its own, forked from one
parent that has imported pulka already (``multiprocessing``'s fork server, one per test
process, started when first asked for).

For tests whose subject is what commands do when they race (tests/test_concurrency.py):
each command is still a process with its own connection, its own locks and its own
output, started at once with the others; only the interpreter's start and pulka's
imports (about a fifth of a CPU-second a command, most of a short command's cost) are
paid once instead of by every command. It runs as the installed script does (``pulka
ARGS``: click's exit status, standard output and error to files, standard input empty),
in the environment and folder given. Where the subject is the installed command's
process itself (its start, its exit status, its terminal, its signals), tests run the
installed ``pulka`` (``helpers.pulka``, ``helpers.Terminal``).
"""

from __future__ import annotations

import importlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import os
import pkgutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DEADLINE = 120.0  # seconds a command may take before it is killed and the race fails

_context: Any = None


def preloaded() -> list[str]:
    """What the fork server imports before it forks: every module of pulka's command line
    and what it stands on, and the PostgreSQL driver (each command imports its own lazily)."""
    names = ["cli.main", "psycopg", "psycopg_pool"]
    for package in ("ledger", "projections", "cli"):
        module = importlib.import_module(package)
        names += [found.name for found in pkgutil.walk_packages(module.__path__, package + ".")]
    return names


def context() -> Any:
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(preloaded())
    return _context


def stop() -> None:
    """Stop this process's fork server, if one was started, and wait for it: the CPU it
    and the commands it forked used is then counted as this process's children's."""
    if _context is not None:
        multiprocessing.forkserver._forkserver._stop()


def _command(args: list[str], env: dict[str, str], cwd: str, out: str, err: str) -> None:
    """In the forked process: ``pulka ARGS`` as the installed script runs it."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    for fd, path in ((1, out), (2, err)):
        opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    sys.argv = ["pulka", *args]
    from cli.main import main

    sys.exit(main())


class _Running:
    def __init__(self, args: list[str], env: Mapping[str, str], cwd: Path, where: Path) -> None:
        self.args = args
        self.out = where / f"{id(self)}.out"
        self.err = where / f"{id(self)}.err"
        self.proc = context().Process(target=_command, args=(args, dict(env), str(cwd), str(self.out), str(self.err)))
        self.proc.start()
        self.started = time.monotonic()

    def done(self) -> subprocess.CompletedProcess[str]:
        self.proc.join()
        code = self.proc.exitcode
        assert code is not None and code >= 0, f"pulka {self.args} killed by signal {-(code or 0)}"
        return subprocess.CompletedProcess(["pulka", *self.args], code, self.out.read_text(encoding="utf-8"),
                                           self.err.read_text(encoding="utf-8", errors="replace"))


def race(workers: list[list[list[str]]], env: Mapping[str, str] | None = None,
         cwd: Path | None = None) -> list[list[subprocess.CompletedProcess[str]]]:
    """Each worker's commands in turn, every worker at once: each command a process forked
    when the worker's one before it has ended. What each command did, by worker."""
    env = dict(os.environ if env is None else env)
    cwd = Path.cwd() if cwd is None else cwd
    results: list[list[subprocess.CompletedProcess[str]]] = [[] for _ in workers]
    with tempfile.TemporaryDirectory(prefix="pulka-race-") as where:
        running: dict[int, tuple[int, _Running]] = {}

        def start(worker: int) -> None:
            step = len(results[worker])
            if step < len(workers[worker]):
                command = _Running(workers[worker][step], env, cwd, Path(where))
                running[command.proc.sentinel] = (worker, command)

        for worker in range(len(workers)):
            start(worker)
        while running:
            ready = multiprocessing.connection.wait(list(running), timeout=DEADLINE)
            if not ready:
                for _, command in running.values():
                    command.proc.kill()
                raise AssertionError(f"commands still running after {DEADLINE:.0f} s: "
                                     f"{[c.args for _, c in running.values()]}")
            for sentinel in ready:
                worker, command = running.pop(sentinel)  # type: ignore[call-overload]
                results[worker].append(command.done())
                start(worker)
    return results

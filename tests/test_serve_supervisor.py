"""``pulka serve --workers 2``: the supervisor's death (``kill -9``, which it cannot pass
on) stops its workers (``web.process.outlived``), and the port is free again: no orphaned
worker keeps serving."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.serving import START, Served, account

pytestmark = pytest.mark.postgres


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.add(int(entry))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a process still running (not gone, not a zombie left unreaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_killing_the_supervisor_stops_its_workers_and_frees_the_port(postgres_url: str, tmp_path: Path) -> None:
    account(postgres_url, "dora", "director")
    served = Served(postgres_url, tmp_path / "serve.log", args=("--workers", "2"))
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + START
        while len(workers := workers | children(served.proc.pid)) < 2:  # the workers, once both are started
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.05)  # a poll of a condition, bounded by the deadline
        assert not port_free(served.port)
        served.kill()
        deadline = time.monotonic() + START
        while any(running(pid) for pid in workers) or not port_free(served.port):
            assert time.monotonic() < deadline, (f"workers {workers} still running or the port taken after the "
                                                 f"supervisor died: {served.log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)  # a poll of a condition, bounded by the deadline
        assert "this worker stops" in served.log.read_text(errors="replace")
    finally:
        for pid in workers | (children(served.proc.pid) if served.proc.poll() is None else set()):
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        served.stop()

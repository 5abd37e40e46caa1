"""The benches' report (``bench/report.py``): a figure beside its limit, its share, its
target and whether the run met it; a miss is printed as a miss, in its row and in the
summary that ends the run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import report  # noqa: E402  (bench/report.py)


def test_a_rate_target_is_a_least_share_and_a_time_target_a_greatest_multiple() -> None:
    at_least = report.Target(0.15)
    assert at_least.met(0.15) and at_least.met(0.2) and not at_least.met(0.149)
    at_most = report.Target(2.0, at_most=True)
    assert at_most.met(2.0) and at_most.met(1.2) and not at_most.met(2.01)
    assert at_least.text() == ">= 15.0 %" and at_most.text() == "<= 2.00 x"


def test_each_row_says_met_or_missed_and_the_summary_lists_the_misses_first(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(report, "_verdicts", [])
    assert report.row("settle", "9,000 /s", "100,000 /s", 0.09, report.Target(0.15, where="issue 30")) is False
    assert report.row("deal", "90 ms", "floor 50 ms", 1.8, report.Target(2.0, at_most=True), multiple=True) is True
    assert report.row("log", "5,000 /s", "100,000 /s", 0.05) is None  # no target: no verdict
    verdicts = report.summary()
    out = capsys.readouterr().out.splitlines()
    settle = next(line for line in out if line.strip().startswith("settle"))
    assert settle.endswith("MISSED")
    assert "9.0 %" in settle and ">= 15.0 %" in settle
    deal = next(line for line in out if line.strip().startswith("deal"))
    assert deal.endswith("met") and "1.80 x" in deal and "<= 2.00 x" in deal
    assert [v.figure for v in verdicts] == ["settle", "deal"]
    assert "Targets of this run: 1 met, 1 missed" in out
    assert out[-2].strip().startswith("MISSED  settle: 9.0 %, target >= 15.0 % (issue 30)")

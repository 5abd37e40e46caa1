"""Generated club archives for the rating and statistics tests, and the numbers those
tests expect, worked out here from what other commands print (``export``, ``log``,
``settle``, ``explain``) and from the Code's rules, not from ``projections.stats`` or
``projections.rating``.

``club_archive`` draws a few legal pulkas (``strategies.legal_logs``: corrections,
objections, late records, penalties, newcomers and substitutes among them), renames
their players from a club of six and shifts each to a day of its own, so that the
archive has pulkas of different tables in a known order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from click.testing import CliRunner
from hypothesis import strategies as st

from cli.main import main
from ledger.store.event_store import Store
from ledger.views.archive import Views
from ledger.vocabulary.events import AnyEvent, event_from_dict, event_to_dict
from strategies import NAMES, legal_logs

CLUB = ("Anna", "Boris", "Vera", "Gleb", "Inna", "Kira")


def cli(db: str, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def doc(db: str, *args: str) -> Any:
    return json.loads(cli(db, *args, "--json"))


def _renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, (list, tuple)):
        return [_renamed(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in value.items()}
    return value


def adapted(log: list[AnyEvent], game: str, names: dict[str, str], days: int) -> list[AnyEvent]:
    """A generated log as the pulka ``game`` of other players, ``days`` later."""
    out = []
    for event in log:
        data = _renamed(event_to_dict(event), names)
        if data["type"] == "game_started":
            data["game"] = game
        if data.get("at"):
            data["at"] = (datetime.fromisoformat(data["at"]) + timedelta(days=days)).isoformat()
        out.append(event_from_dict(data))
    return out


@st.composite
def club_archive(draw: Any, recording: bool, pulkas: tuple[int, int] = (3, 5)) -> list[list[AnyEvent]]:
    """A few pulkas of the club, each of three of its players (others may join)."""
    count = draw(st.integers(*pulkas))
    days = draw(st.permutations(range(count)))  # stored in another order than they were played
    out = []
    for k in range(count):
        log = draw(legal_logs(players=3, max_deals=7, finish=True, recording=recording))
        seated = draw(st.permutations(CLUB))
        names = dict(zip(NAMES, seated, strict=False))
        out.append(adapted(log, f"club-{k}", names, days=days[k]))
    return out


def store_archive(db: str, logs: list[list[AnyEvent]]) -> None:
    """The pulkas stored as they were judged (the views made first, as a new store's are)."""
    with Store(db) as store:
        store.ensure_table()
        with Views(store) as views:
            views.create()
        for log in logs:
            first = log[0]
            store.append(first.game, log, expected=0)  # type: ignore[attr-defined]


# -- what the statistics must be, worked out from other commands -------------------------------


PENALTY_LOST = {"3.4.9", "3.9.11.2"}  # tricks taken away from the offender [Code 3.4.9, 3.9.11.2]
PENALTY_REMIZ = {"3.4.6", "3.9.18", "3.2.16"}  # undertricks added to his remiz [Code 3.4.6, 3.9.18]


@dataclass
class Expected:
    counts: dict[str, int] = field(default_factory=dict)
    refs: dict[str, set[tuple[str, int | None]]] = field(default_factory=dict)
    whists: dict[str, Fraction] = field(default_factory=dict)

    def add(self, name: str, game: str, deal: int | None = None, whists: Fraction | None = None) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
        self.refs.setdefault(name, set()).add((game, deal))
        if whists is not None:
            self.whists[name] = self.whists.get(name, Fraction(0)) + whists


def _merged(exported: list[dict[str, Any]], log: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[int]]:
    """The events as they stand (effective corrections merged in) and the numbers of those
    without effect (withdrawn, late or objected to), from the export and the audit trail."""
    verdict = {row["number"]: row.get("effective") for row in log}
    events = [dict(e) for e in exported]
    void = {n for n, e in enumerate(events, start=1)
            if verdict.get(n) is False and e["type"] not in ("correction", "objection")}
    for n, e in enumerate(events, start=1):
        if e["type"] == "correction" and verdict.get(n):
            events[e["target"] - 1].update(e["replacement"])
    return events, void


def expected_stats(db: str, player: str, games: list[str], brought: bool) -> Expected:
    """The player's statistics over ``games``, from the commands that show the games.

    ``brought``: also each deal's result change, from ``settle --deal K`` (what a deal
    brings when no record of it comes after the next deal began)."""
    out = Expected()
    for game in games:
        exported = [json.loads(line) for line in cli(db, "export", game).splitlines()]
        log = doc(db, "log", game)["events"]
        settled = doc(db, "settle", game)
        events, void = _merged(exported, log)
        if player not in settled["rounded"] and not any(player in e.get("players", ()) for e in events):
            continue
        _expected_pulka(out, game, player, settled)
        rules = events[0]["rule_set"]
        gora = _gora_writes(db, game, player, settled, events)
        _expected_deals(out, db, game, player, events, void, rules, gora, brought)
        _expected_records(out, game, player, events, log, void)
    for total, parts in (("remizes", ("remizes.declarer", "remizes.whist")),
                         ("errors", ("errors.warning", "errors.equal_for_equal", "errors.late"))):
        for part in parts:
            for game, deal in out.refs.get(part, ()):
                out.refs.setdefault(total, set()).add((game, deal))
            if out.counts.get(part):
                out.counts[total] = out.counts.get(total, 0) + out.counts[part]
    return out


def _gora_writes(db: str, game: str, player: str, settled: dict[str, Any],
                 events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The writes into the player's gora (``explain``: a seat is named by who holds it now;
    one who left, as of the event before he left)."""
    if player not in settled["rounded"]:
        return []
    holder = settled.get("held_by", {}).get(player, player)
    point: tuple[str, ...] = ()
    if player in settled.get("left", ()):
        left = next(n for n, e in enumerate(events, start=1) if e["type"] == "left" and e["player"] == holder)
        point = ("--at", str(left - 1))
    return list(doc(db, "explain", game, f"{holder}.gora", *point)["writes"])


def _expected_pulka(out: Expected, game: str, player: str, settled: dict[str, Any]) -> None:
    rounded = settled["rounded"]
    if player not in rounded:
        return
    mine = rounded[player]
    if not (settled["finished"] or settled["abandoned"]):
        out.add("pulkas.in_play", game, whists=Fraction(mine))
        return
    out.add("pulkas", game, whists=Fraction(mine))
    out.add("pulkas.finished" if settled["finished"] else "pulkas.abandoned", game, whists=Fraction(mine))
    if mine == max(rounded.values()):
        out.add("pulkas.first", game, whists=Fraction(mine))
    for other, theirs in rounded.items():
        if other != player:
            side = "ahead" if mine > theirs else "behind" if mine < theirs else "level"
            out.add(f"vs.{other}", game, whists=Fraction(mine - theirs))
            out.add(f"vs.{other}.{side}", game, whists=Fraction(mine - theirs))


def _deals(events: list[dict[str, Any]], void: set[int]) -> dict[int, list[tuple[int, dict[str, Any]]]]:
    play = {"bid", "contract", "defence", "tricks", "ruling", "annulled"}
    out: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for n, e in enumerate(events, start=1):
        if e["type"] in play and n not in void and e.get("deal"):
            out.setdefault(e["deal"], []).append((n, e))
    return out


def _seated_at(events: list[dict[str, Any]], first: int) -> list[str]:
    """Who sat at the table when event ``first`` was recorded (newcomers, leavers and
    substitutes followed) [Code 3.1.2, 5.4.7, 5.4.18]."""
    seated = list(events[0]["players"])
    for e in events[1:first - 1]:
        if e["type"] == "joined":
            seated.append(e["player"])
        elif e["type"] == "left":
            seated.remove(e["player"])
        elif e["type"] == "substituted":
            seated[seated.index(e["player"])] = e["substitute"]
    return seated


def _expected_deals(out: Expected, db: str, game: str, player: str, events: list[dict[str, Any]], void: set[int],
                    rules: dict[str, Any], gora: list[dict[str, Any]], brought: bool) -> None:
    results: dict[int, Fraction] = {}

    def result(k: int) -> Fraction:
        if k not in results:
            exact = doc(db, "settle", game, "--deal", str(k))["result_exact"]
            results[k] = Fraction(exact.get(player, "0"))
        return results[k]

    for k, deal in sorted(_deals(events, void).items()):
        bidders = [e["player"] for _, e in deal if e["type"] == "bid"]
        seated = _seated_at(events, deal[0][0])
        dealer_out = [p for p in seated if p not in bidders] if len(seated) == 4 else []
        if player not in seated:
            continue  # a deal dealt while he was away (before he joined, after he left or was replaced)
        out.add("deals", game, k, result(k) - (result(k - 1) if k > 1 else 0) if brought else None)
        if any(e["type"] == "annulled" for _, e in deal):
            continue
        contract = [e for _, e in deal if e["type"] == "contract"]
        tricks = [(n, e) for n, e in deal if e["type"] == "tricks"]
        ruling = [(n, e) for n, e in deal if e["type"] == "ruling"]
        calls = [e for _, e in deal if e["type"] == "defence"]
        if not tricks and not ruling and not (contract and _unplayed(calls, len(seated))):
            continue  # no result (yet)
        if ruling and ruling[-1][1]["rule"] == "3.3.16.3":
            continue
        spoken = [(e["player"], e["bid"]) for _, e in deal if e["type"] == "bid" and e["bid"] != "pass"]
        if contract and not spoken:
            spoken = [(contract[-1]["player"], contract[-1]["contract"])]  # the third hand without a bid
        if not spoken:
            if player in bidders:
                out.add("raspasy", game, k)
                if tricks and tricks[-1][1]["tricks"].get(player, 0) == 0:
                    out.add("raspasy.clean", game, k)
            continue
        # who won the auction, or who took the talon another exposed [Code 3.3.16.2]: the
        # contract's player when there is a contract
        declarer = contract[-1]["player"] if contract else spoken[-1][0]
        if ruling and ruling[-1][1]["rule"] == "3.4.4":
            # a remiz without all at the level he reached in the auction [Code 3.4.4]
            # ("here" holds the level said before it)
            levels = [b for _, b in spoken if b != "here"]
            level = levels[-1]
        elif contract:
            level = contract[-1]["contract"]
        else:
            continue
        if declarer == player:
            _expected_declared(out, game, k, player, level, tricks, ruling)
        elif level != "misere" and not (rules["ten_checked"] and level.startswith("10")):
            _expected_defence(out, game, k, player, calls, dealer_out, tricks, ruling, gora)


def _unplayed(calls: list[dict[str, Any]], seated: int) -> bool:
    """Both defenders passed, or a half-whist stands: a result without tricks [Code 4.2.3.2]."""
    said = [c["call"] for c in calls]
    return bool(said) and ("half_whist" in said and "whist" not in said[said.index("half_whist"):]
                           or said.count("pass") >= 2 and "whist" not in said)


def _counted(tricks: dict[str, Any], player: str) -> tuple[int, int, int]:
    """The declarer's tricks taken, his penalty tricks taken away, and his penalty undertricks."""
    taken = int(tricks["tricks"].get(player, 0))
    lost = remiz = 0
    for p in tricks.get("penalty_tricks") or ():
        if p["player"] == player:
            if p["rule"] in PENALTY_REMIZ:
                remiz += p["tricks"]
            else:
                lost += p["tricks"]
    return taken, lost, remiz


def _expected_declared(out: Expected, game: str, k: int, player: str, level: str,
                       tricks: list[tuple[int, dict[str, Any]]], ruling: list[tuple[int, dict[str, Any]]]) -> None:
    rule = ruling[-1][1]["rule"] if ruling else None
    agreed = ruling[-1][1] if rule == "3.9.22" else tricks[-1][1] if tricks else None
    if level == "misere":
        out.add("misere", game, k)
        made = rule != "3.4.4" and (agreed is None or sum(_counted(agreed, player)) == 0)  # [Code 3.6.1, 3.9.11.2]
        out.add("misere.made" if made else "misere.failed", game, k)
        if not made:
            out.add("remizes.declarer", game, k)
        return
    needed = int(level[:-2] if level.endswith("NT") else level[:-1])
    if rule in ("3.4.4", "3.5.4"):
        made = False  # a remiz without all; a concession without all
    elif agreed is None:
        made = True  # nobody whisted, or a half-whist stands [Code 4.2.3.2]
    else:
        taken, lost, remiz = _counted(agreed, player)
        made = taken - lost >= needed and remiz == 0
    outcome = "made" if made else "remiz"
    for name in ("contracts", f"contracts.{needed}", f"contracts.{level}"):
        out.add(name, game, k)
        out.add(f"{name}.{outcome}", game, k)
    if not made:
        out.add("remizes.declarer", game, k)


def _expected_defence(out: Expected, game: str, k: int, player: str, calls: list[dict[str, Any]],
                      dealer_out: list[str], tricks: list[tuple[int, dict[str, Any]]],
                      ruling: list[tuple[int, dict[str, Any]]], gora: list[dict[str, Any]]) -> None:
    mine = [i for i, c in enumerate(calls) if c["player"] == player]
    if not mine:
        return
    last = calls[mine[-1]]["call"]
    if last == "half_whist" and any(c["call"] == "whist" for c in calls[mine[-1] + 1:]):
        last = "pass"  # the half-whist was returned [Code 3.8.8]
    if last == "pass" and player in dealer_out:
        return  # the four-player dealer who did not whist is no defender
    out.add(f"defence.{last}", game, k)
    resolving = (tricks[-1][0] if tricks else None), (ruling[-1][0] if ruling else None)
    if last == "whist" and any(w["deal"] == k and w["event"] in resolving and Fraction(w.get("amount_exact", w["amount"])) > 0
                               for w in gora):
        out.add("remizes.whist", game, k)


def _expected_records(out: Expected, game: str, player: str, events: list[dict[str, Any]], log: list[dict[str, Any]],
                      void: set[int]) -> None:
    """Errors charged by the recording rules: a counted correction of a player's record is
    his first error (a warning) or, after it, equal for equal [Code 4.2.7, 4.2.9]; a
    forgotten record without effect [Code 4.2.10]; and arbiters' penalties [Code 4.2.16]."""
    verdicts = {row["number"]: row for row in log}
    warned: set[str] = set()  # seats: a substitute's records are his seat's [Code 5.4.7]
    seat = {p: p for p in events[0]["players"]}
    for e in events:
        if e["type"] == "joined":
            seat[e["player"]] = e["player"]
        elif e["type"] == "substituted":
            seat[e["substitute"]] = seat[e["player"]]
    for n, e in enumerate(events, start=1):
        v = verdicts.get(n, {})
        if e["type"] == "correction" and v.get("effective") and v.get("rule") in ("4.2.7", "4.2.9"):
            recorder = events[e["target"] - 1].get("by")
            if recorder not in seat or "no penalty" in v.get("reason", ""):
                continue
            first = seat[recorder] not in warned
            warned.add(seat[recorder])
            if recorder == player:
                out.add("errors.warning" if first else "errors.equal_for_equal", game, e.get("deal"))
        elif e["type"] in ("entry", "tricks") and v.get("effective") is False and v.get("rule") == "4.2.10" \
                and e.get("by") == player:
            out.add("errors.late", game, e.get("deal"))
        elif e["type"] == "penalty" and e["player"] == player and n not in void:
            out.add("penalties", game, e.get("deal"))

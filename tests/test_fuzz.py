"""A fuzz test of the way in: real logs mutated at random (seeded, so that a failure
comes back), fed to ``pulka import`` and ``pulka verify --file`` through the command
line's own entry point (``cli.main.main``, as the ``pulka`` script calls it), on SQLite
and PostgreSQL.

The seeds are every fixture log (pulkas, rubbers, refused logs), a pulka with every
event type, exports with their digests, a tournament's export with its tables' games,
and the club register's lines: every event type of the log (asserted, so that a type
added later comes with a seed). Each case applies one to three mutations: bytes flipped, the file cut short,
lines dropped, duplicated or swapped, fields removed or given another type, huge or
deeply nested values, invalid UTF-8, terminal sequences and other bad characters in
names, bad times, digests broken, and lines of other kinds of stream.

Asserted for every case: the exit status is 0 or 1, never a traceback (an internal
error is status 3, which fails the test); a refused import leaves every row of the
store as it was; an import that is taken stores rows, and the game verifies and
reads back. ``PULKA_FUZZ_SEED`` and ``PULKA_FUZZ_CASES`` change the seed and the number
of cases (default: 400 on SQLite, 60 on PostgreSQL, where every command connects).
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers import run, stored_rows, tournament_export
from ledger.vocabulary.events import EVENT_TYPES

ROOT = Path(__file__).resolve().parent.parent
SEED = int(os.environ.get("PULKA_FUZZ_SEED", "20261201"))
CASES = {"sqlite": 400, "postgres": 60}

Lines = list[bytes]
STORED = re.compile(r"(?:created|appended to) (.+): \d+ events? stored$")


def seeds(tmp_path: Path) -> list[tuple[str, Lines]]:
    """(name, lines) of every seed log."""
    found = []
    for path in sorted([*ROOT.glob("fixtures/*.jsonl"), *ROOT.glob("fixtures/*/*.jsonl"),
                        ROOT / "tests" / "data" / "every_pulka_event.jsonl"]):
        found.append((path.stem, path.read_bytes().splitlines()))
    store = str(tmp_path / "seeds.db")
    for name in ("every_pulka_event", "ex04_misere", "rec_first_and_second_error", "laws_honours"):
        path = next(ROOT.glob(f"**/{name}.jsonl"))
        assert run(store, "import", str(path)).exit_code == 0
        exported = run(store, "export", json.loads(path.read_bytes().splitlines()[0])["game"])
        assert exported.exit_code == 0
        found.append((f"{name} (export)", exported.stdout.encode().splitlines()))
    found.append(("tournament (export)", tournament_export(str(tmp_path / "cup.db")).encode().splitlines()))
    # The club's register is not a log of its own (`pulka alias` keeps it): its lines,
    # as a file and planted in others, must be refused.
    found.append(("club register", [b'{"type":"club_started","game":"@club"}',
                                    b'{"type":"player_aliased","name":"Anna P.","same_as":"Anna","by":"arbiter:O"}',
                                    b'{"type":"rating_model_chosen","model":"openskill-places","parameters":'
                                    b'{"margin":"40"},"by":"arbiter:O"}']))
    # Nor are the ledger's own streams of checkpoints and signatures (`pulka checkpoint`, `pulka sign`).
    signature = b'{"key":"arbiter:O+5f706783+AeC8SuBJwcClHmzVc26GDY2xayRm1KsDVYqSZgDPyfwy","signature":"AAAA"}'
    found.append(("club log's own streams", [
        b'{"type":"checkpoints_started","game":"@checkpoints","origin":"club.example/pulka"}',
        b'{"type":"checkpoint","size":3,"root":"AAAA","signatures":[' + signature + b']}',
        b'{"type":"cosigned","size":3,"root":"AAAA","signature":' + signature + b'}',
        b'{"type":"key_rotated","size":3,"key":"club+5f706783+AAAA","signatures":[' + signature + b']}',
        b'{"type":"signatures_started","game":"@signatures"}',
        b'{"type":"event_signed","stream":"t1","number":2,"event_digest":"00","signature":' + signature + b'}']))
    # Nor is the stream of the live service's accounts (`pulka serve account`, the director's page).
    found.append(("accounts", [
        b'{"type":"accounts_started","game":"@accounts"}',
        b'{"type":"account_created","account":"a1b2c3d4","name":"Oleg","role":"arbiter","by":"arbiter:O"}',
        b'{"type":"account_changed","account":"a1b2c3d4","name":"Oleg","change":"role","role":"director"}',
        b'{"type":"account_removed","account":"a1b2c3d4","name":"Oleg"}',
        b'{"type":"second_factor_required","required":true}']))
    return found


# -- mutations ------------------------------------------------------------------------------

WEIRD_VALUES: list[Any] = [
    None, True, 0, -1, 7, 10**40, -(10**40), 2**63, 1.5, 1e308, "", "x", "yesterday", "2026-12-01T20:14:03",
    "0001-01-01T00:00:00+00:00", "Anna\x1b[2J", "\x1b]0;pwned\x07", "Ann\u202ea", "A\u200bnna", " Anna",
    "a\nb", "\x00", "Ａ", "anna", "arbiter:", "scorer:", "é" * 64, [], [1, 2], ["Anna", "anna"], {}, {"x": 1},
    {"Anna": 11}, "x" * 100_000,
]
OTHER_LINES: list[bytes] = []  # lines of every seed, to plant in another


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def as_json(line: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python's json follows
        return None
    return data if isinstance(data, dict) else None


def edit_field(rng: random.Random, lines: Lines, change: Callable[[random.Random, dict[str, Any], str], None]) -> Lines:
    if not lines:
        return lines
    i = rng.randrange(len(lines))
    data = as_json(lines[i])
    if not data:
        return lines
    key = rng.choice(sorted(data))
    change(rng, data, key)
    return [*lines[:i], json.dumps(data, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass"), *lines[i + 1:]]


def flip_bytes(rng: random.Random, lines: Lines) -> Lines:
    text = bytearray(b"\n".join(lines))
    for _ in range(rng.randint(1, 4)):
        if text:
            text[rng.randrange(len(text))] = rng.randrange(256)
    return bytes(text).split(b"\n")


def cut_short(rng: random.Random, lines: Lines) -> Lines:
    text = b"\n".join(lines)
    return text[: rng.randrange(len(text) + 1)].split(b"\n")


def drop_line(rng: random.Random, lines: Lines) -> Lines:
    if not lines:
        return lines
    i = rng.randrange(len(lines))
    return lines[:i] + lines[i + 1:]


def duplicate_line(rng: random.Random, lines: Lines) -> Lines:
    if not lines:
        return lines
    line = rng.choice(lines)
    i = rng.randrange(len(lines) + 1)
    return [*lines[:i], line, *lines[i:]]


def swap_lines(rng: random.Random, lines: Lines) -> Lines:
    if len(lines) < 2:
        return lines
    i, j = rng.sample(range(len(lines)), 2)
    out = list(lines)
    out[i], out[j] = out[j], out[i]
    return out


def remove_field(rng: random.Random, lines: Lines) -> Lines:
    return edit_field(rng, lines, lambda r, d, k: d.pop(k))


def retype_field(rng: random.Random, lines: Lines) -> Lines:
    def change(r: random.Random, d: dict[str, Any], k: str) -> None:
        d[k] = r.choice(WEIRD_VALUES)
    return edit_field(rng, lines, change)


def nest_field(rng: random.Random, lines: Lines) -> Lines:
    depth = rng.choice([5, 8, 50, 1000, 100_000])
    marker = "@@DEEP@@"

    def change(r: random.Random, d: dict[str, Any], k: str) -> None:
        target = d.get(k)
        if isinstance(target, dict) and r.random() < 0.5:
            target["x"] = marker
        else:
            d[k] = marker
    edited = edit_field(rng, lines, change)
    return [line.replace(f'"{marker}"'.encode(), deep(depth).encode()) for line in edited]


def huge_field(rng: random.Random, lines: Lines) -> Lines:
    def change(r: random.Random, d: dict[str, Any], k: str) -> None:
        d[k] = r.choice(["N" * 1_000_000, list(range(100_000)), {str(n): n for n in range(5000)}])
    return edit_field(rng, lines, change)


def invalid_utf8(rng: random.Random, lines: Lines) -> Lines:
    if not lines:
        return lines
    i = rng.randrange(len(lines))
    line = lines[i]
    at = rng.randrange(len(line) + 1)
    bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80\x80"])
    return [*lines[:i], line[:at] + bad + line[at:], *lines[i + 1:]]


def bad_names(rng: random.Random, lines: Lines) -> Lines:
    """A name (as written everywhere in the file, or on one line) made bad."""
    text = b"\n".join(lines)
    names = [n for n in (b"Anna", b"Boris", b"Vera", b"A", b"B", b"C", b"Nadia", b"Egor") if b'"' + n + b'"' in text]
    if not names:
        return lines
    name = rng.choice(names)
    new = rng.choice([b"\\u001b[2J", b"\\u001b]0;x\\u0007", b"\\u202e", b"\\u200b", b"\\n", b"\\u0000", b" ",
                      "Ａ".encode(), name.lower()])
    replaced = b'"' + name + new + b'"' if rng.random() < 0.7 else b'"' + new + b'"'
    if rng.random() < 0.5:
        return text.replace(b'"' + name + b'"', replaced).split(b"\n")
    i = rng.randrange(len(lines))
    return [*lines[:i], lines[i].replace(b'"' + name + b'"', replaced), *lines[i + 1:]]


def good_names(rng: random.Random, lines: Lines) -> Lines:
    """A name made unusual but good, everywhere in the file: what must still be taken."""
    text = b"\n".join(lines)
    names = [n for n in (b"Anna", b"Boris", b"Vera", b"A", b"B", b"C", b"Nadia", b"Egor") if b'"' + n + b'"' in text]
    if not names:
        return lines
    name = rng.choice(names)
    new = rng.choice(["Аня", "O'Brien", "Zoë", "李", "🂡 Ace", "N" * 64, "Anna P.", "ß"]).encode()
    return text.replace(b'"' + name + b'"', b'"' + new + b'"').split(b"\n")


def bad_time(rng: random.Random, lines: Lines) -> Lines:
    def change(r: random.Random, d: dict[str, Any], k: str) -> None:
        d["at"] = r.choice(["yesterday", "", "2026-12-01T20:14:03", "2026-12-01", "0001-01-01T00:00:00+14:00",
                            "9999-12-31T23:59:59-14:00", "2026-13-01T00:00:00Z", 1700000000, None])
    return edit_field(rng, lines, change)


def break_digest(rng: random.Random, lines: Lines) -> Lines:
    def change(r: random.Random, d: dict[str, Any], k: str) -> None:
        d["digest"] = r.choice(["é" * 64, "", "0" * 64, 42, None, "ж"])
    return edit_field(rng, lines, change)


def foreign_line(rng: random.Random, lines: Lines) -> Lines:
    i = rng.randrange(len(lines) + 1)
    return [*lines[:i], rng.choice(OTHER_LINES), *lines[i:]]


MUTATIONS = [flip_bytes, cut_short, drop_line, duplicate_line, swap_lines, remove_field, retype_field, nest_field,
             huge_field, invalid_utf8, bad_names, good_names, bad_time, break_digest, foreign_line]


def renamed(rng: random.Random, lines: Lines, case: int) -> Lines:
    """Most cases under a game name of their own, so that more of them get as far as
    the judge (the rest meet the games stored before them)."""
    first = as_json(lines[0]) if lines else None
    if first is None or rng.random() < 0.3 or first.get("type") == "tournament_started":
        return lines
    first["game"] = f"{first.get('game')}-{case}"
    return [json.dumps(first).encode("utf-8", "surrogatepass"), *lines[1:]]


def test_mutated_logs_never_crash_and_a_refused_import_stores_nothing(
    store_url: str, tmp_path: Path, request: pytest.FixtureRequest, record_property: Callable[[str, Any], None],
) -> None:
    backend = "postgres" if store_url.startswith("postgresql") else "sqlite"
    count = int(os.environ.get("PULKA_FUZZ_CASES", CASES[backend]))
    rng = random.Random(f"{SEED}-{backend}")
    pool = seeds(tmp_path)
    OTHER_LINES[:] = [line for _, lines in pool for line in lines if line.strip()]
    # Every event type of the log is in a seed: a type added later must come with one.
    assert set(EVENT_TYPES) <= {json.loads(line).get("type") for line in OTHER_LINES}
    path = tmp_path / "case.jsonl"
    taken = refused = 0
    used: dict[str, int] = {}
    for case in range(count):
        name, lines = rng.choice(pool)
        lines = renamed(rng, lines, case)
        steps = [rng.choice(MUTATIONS) for _ in range(rng.choice([1, 1, 2, 3]))]
        for step in steps:
            lines = step(rng, lines)
            used[step.__name__] = used.get(step.__name__, 0) + 1
        path.write_bytes(b"\n".join(lines) + b"\n")
        where = f"case {case} (seed {SEED}, {name}, {[s.__name__ for s in steps]})"

        before = stored_rows(store_url)
        result = run(store_url, "import", str(path))
        assert result.exit_code in (0, 1) and "Traceback" not in result.output, f"{where}: {result.output[-2000:]}"
        after = stored_rows(store_url)
        if result.exit_code == 1:
            refused += 1
            assert after == before, f"{where}: a refused import changed the store: {result.stderr[:500]}"
            assert result.stderr.startswith("pulka: ") and len(result.stderr) < 5000, where
        else:
            taken += 1
            assert len(after) > len(before), where
            stored = STORED.match(result.stdout.splitlines()[0])
            assert stored is not None, f"{where}: {result.stdout[:500]}"
            game = stored.group(1)
            if not game.startswith("cup"):  # a tournament's games are read as the tournament reads them
                for args in (["verify", game], ["sheet", game], ["settle", game], ["log", game]):
                    read = run(store_url, *args)
                    assert read.exit_code == 0, f"{where}: {args}: {read.output[-2000:]}"
        checked = run(store_url, "verify", "--file", str(path))
        assert checked.exit_code in (0, 1) and "Traceback" not in checked.output, f"{where}: {checked.output[-2000:]}"
    record_property("cases", count)
    record_property("taken", taken)
    print(f"\nfuzz ({backend}, seed {SEED}): {count} mutated logs, {taken} imported, {refused} refused; "
          f"mutations used: {dict(sorted(used.items()))}")
    assert taken + refused == count and set(used) == {m.__name__ for m in MUTATIONS}
    assert taken > 0 and refused > count // 2  # both ways out were taken

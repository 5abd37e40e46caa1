"""No traceback for any input, on SQLite and PostgreSQL: every damaged file, rules file,
time, number, name and argument that once printed one is refused with exit status 1,
the line and the reason, in a message of bounded length, and the store keeps exactly
the rows it had (``stored_rows``)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from conftest import every_event
from helpers import pulka, run, stored_rows, tournament_export
from ledger.vocabulary.chain import chain_digests
from ledger.vocabulary.events import EVENT_TYPES, decode_event, encode_event, event_to_dict
from ledger.vocabulary.logfile import LogLine, export_line, read_batches, split_streams
from readings import parse_export
from ledger.vocabulary.refusal import Refused

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MESSAGE_MAX = 2000  # characters of standard error that a refusal of a huge input may take


EVERY = Path(__file__).resolve().parent / "data" / "every_pulka_event.jsonl"


def jsonl(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def pulka_log(game: str = "bad") -> list[dict[str, Any]]:
    """A pulka with every event type of a pulka, as a log is written by hand (without
    times: the ledger stamps them), named ``game``."""
    lines = [json.loads(line) for line in EVERY.read_text(encoding="utf-8").splitlines()]
    lines[0]["game"] = game
    return lines


def refused_alone(db: str, args: list[str], line: int | None, *words: str) -> str:
    """Run ``args``; it must be refused (exit 1) naming ``line`` and ``words``, with a
    short message and no traceback, storing nothing."""
    before = stored_rows(db)
    result = run(db, *args)
    assert result.exit_code == 1, f"{args[:3]}: {result.exit_code} {result.output[:500]}"
    err = result.stderr
    assert "Traceback" not in result.output and len(err) < MESSAGE_MAX, err[:500]
    if line is not None:
        assert f"line {line}:" in err, err
    for word in words:
        assert word in err, err
    assert stored_rows(db) == before
    return err


@pytest.fixture
def db(store_url: str, tmp_path: Path) -> str:
    """A store that holds one pulka already, so that "unchanged" means something."""
    path = tmp_path / "first.jsonl"
    path.write_text(jsonl(pulka_log("first")), encoding="utf-8")
    assert run(store_url, "import", str(path)).exit_code == 0
    return store_url


def deep(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


# Each case: a file's bytes, the line a refusal names, and words of its reason.
def cases() -> dict[str, tuple[bytes, int | None, tuple[str, ...]]]:
    good = jsonl(pulka_log())
    lines = good.splitlines(keepends=True)
    made: dict[str, tuple[bytes, int | None, tuple[str, ...]]] = {}
    made["invalid UTF-8"] = ("".join(lines[:2]).encode() + b'{"type":"bid","player":"Bo\xffris","bid":"pass"}\n',
                             3, ("not UTF-8", "0xff"))
    made["empty"] = (b"", None, ("empty",))
    made["blank lines"] = (b"\n\n  \n", None, ("empty",))
    made["not JSON"] = (b"hello\n", 1, ("not valid JSON",))
    made["a JSON list"] = (b"[1, 2]\n", 1, ("JSON object",))
    made["deep rules"] = (good.replace('"pulya": 20', '"rules": {"x": ' + deep_json(100_000) + '}, "pulya": 20', 1).encode(),
                          1, ("nested too deeply",))
    correction = next(i for i, line in enumerate(lines) if '"correction"' in line)
    assert '"replacement": {' in lines[correction]
    deep_fix = lines[correction].replace('"replacement": {', '"replacement": {"x": ' + deep_json(100_000) + ", ", 1)
    made["deep replacement"] = ("".join([*lines[:correction], deep_fix, *lines[correction + 1:]]).encode(),
                                correction + 1, ("nested too deeply",))
    made["rules 50 deep"] = (good.replace('"pulya": 20', '"rules": {"x": ' + deep_json(50) + '}, "pulya": 20', 1).encode(),
                             1, ("nests lists or objects",))
    for when in ("yesterday", "", "2026-12-01T20:14:03", "0001-01-01T00:00:00+00:00"):
        data = pulka_log()
        data[0]["at"] = when
        made[f"game_started at {when!r}"] = (jsonl(data).encode(), 1, ("`at`",))
        data = pulka_log()
        data[3]["at"] = when
        made[f"a bid at {when!r}"] = (jsonl(data).encode(), 4, ("`at`",))
    data = pulka_log()
    data[0]["stake"] = "123456789012345678901234567890"
    made["absurd stake"] = (jsonl(data).encode(), 1, ("stake",))
    data = pulka_log()
    assert data[8]["type"] == "entry"
    data[8]["amount"] = 10**30
    made["absurd amount"] = (jsonl(data).encode(), 9, ("`amount`", "beyond"))
    data = pulka_log()
    data[2]["by"] = "B" * 10_000_000
    made["a by of 10 MB"] = (jsonl(data).encode(), 3, ("`by`", "10,000,000 characters"))
    data = pulka_log()
    data[0]["players"] = ["Anna", "anna", "Vera"]
    made["one player twice"] = (jsonl(data).encode(), 1, ("one player",))
    return made


CASES = cases()


# The cases refused while the file is read, before any event is judged: ``verify
# --file`` refuses them as ``import`` does (the others it refuses first for want of the
# digests an export carries).
UNREADABLE = {"invalid UTF-8", "empty", "blank lines", "not JSON", "a JSON list", "deep rules", "deep replacement"}


def test_every_damaged_log_is_refused_by_import_and_verify(db: str, tmp_path: Path) -> None:
    """Every case, one after another on the same store: each refusal must
    leave it exactly as it was."""
    for case, (data, line, words) in CASES.items():
        path = tmp_path / "damaged.jsonl"
        path.write_bytes(data)
        try:
            refused_alone(db, ["import", str(path)], line, *words)
            refused_alone(db, ["sheet", "--file", str(path)], line, *words)
            if case in UNREADABLE:
                refused_alone(db, ["verify", "--file", str(path)], line, *words)
        except AssertionError as exc:
            raise AssertionError(f"case {case!r}: {exc}") from None


def test_a_non_ascii_or_missing_digest_is_refused(db: str, tmp_path: Path) -> None:
    exported = run(db, "export", "first").stdout.splitlines()
    for digest in ("é" * 64, "ж", 42, None):
        edited = [json.loads(line) for line in exported]
        edited[3]["digest"] = digest
        path = tmp_path / "export.jsonl"
        path.write_text(jsonl(edited), encoding="utf-8")
        for args in (["import", str(path)], ["verify", "--file", str(path)], ["verify", "first", "--against", str(path)]):
            refused_alone(db, args, None, "4")


def rechained(text: str, edit: Callable[[int, dict[str, Any]], None]) -> str:
    """An export whose line number i (from 1) was changed by ``edit(i, line)`` and whose
    digests were computed anew, as someone who knows the chain could: the judge, not
    the chain, has to refuse it."""
    lines = parse_export(text)
    out = []
    number = 0
    for stream in split_streams(lines):
        events = []
        for line in stream:
            number += 1
            data = event_to_dict(line.event)
            edit(number, data)
            events.append(decode_event(msgspec.json.encode(data)))
        name = getattr(events[0], "game")
        out += [export_line(e, d) for e, d in zip(events, chain_digests(name, events), strict=True)]
    return "".join(line + "\n" for line in out)


def test_every_time_is_checked_in_every_event_of_every_kind_of_stream(db: str, tmp_path: Path) -> None:
    """``at`` = "yesterday" on a line of each event type in turn, taken from the
    fixture logs (pulkas and rubbers) and from a tournament's file: each is refused
    naming that line, and nothing is stored. Every event type of the log is met but
    the club register's, which no file brings (``pulka alias`` stamps its time)."""
    types: set[str] = set()
    logs = [pulka_log(), *([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
                           for path in sorted([*FIXTURES.glob("*.jsonl"), *FIXTURES.glob("bridge/*.jsonl")]))]
    for log in logs:
        for i, line in enumerate(log):
            if line["type"] in types:
                continue
            types.add(line["type"])
            data = json.loads(json.dumps(log))
            data[i]["at"] = "yesterday"
            path = tmp_path / "at.jsonl"
            path.write_text(jsonl(data), encoding="utf-8")
            refused_alone(db, ["import", str(path)], i + 1, "`at`", "yesterday")
    tournament = tournament_export(str(tmp_path / "cup.db"))
    for i in range(1, len(tournament.splitlines()) + 1):
        def late(number: int, data: dict[str, Any], i: int = i) -> None:
            if number == i:
                data["at"] = "yesterday"
                types.add(data["type"])
        path = tmp_path / "cup.jsonl"
        path.write_text(rechained(tournament, late), encoding="utf-8")
        refused_alone(db, ["import", str(path)], i, "`at`")
    # the ledger's own streams are written by its commands alone, never imported
    assert set(EVENT_TYPES) - {"club_started", "player_aliased", "rating_model_chosen", "checkpoints_started",
                               "checkpoint", "cosigned", "key_rotated", "signatures_started", "event_signed",
                               *ACCOUNT_EVENTS} <= types


def test_rules_files_that_are_not_tables_of_rules(db: str, tmp_path: Path) -> None:
    files = {
        "not a table": (b"rules = 5\n", "not a table"),
        "a list": (b"rules = [1, 2]\n", "not a table"),
        "binary": (bytes(range(256)) * 4, "not UTF-8"),
        "not TOML": (b"[rules\nx = \n", "not valid TOML"),
        "deep": (b"[rules]\nraspasy_progression = " + deep_json(100_000).encode() + b"\n", "nested too deeply"),
        "10 deep": (b"[rules]\nraspasy_progression = " + deep_json(10).encode() + b"\n", "nests lists"),
    }
    for name, (data, words) in files.items():
        path = tmp_path / f"{name}.toml"
        path.write_bytes(data)
        refused_alone(db, ["new", "g", "--players", "A,B,C", "--rules-file", str(path)], None, words)
        refused_alone(db, ["tournament", "new", "t", "--players", "A,B,C", "--pulya", "10", "--rules-file",
                           str(path)], None, words)
    for value in (deep_json(100_000), deep_json(10), "{" * 5000):
        refused_alone(db, ["new", "g", "--players", "A,B,C", "--rule", f"raspasy_progression={value}"], None)
        refused_alone(db, ["correct", "first", "9", f"amount={value}", "--yes"], None)
        refused_alone(db, ["bridge", "new", "r", "--players", "A,B,C,D", "--rule", f"honours={value}"], None)


def test_arguments_out_of_every_range(db: str) -> None:
    big = "123456789012345678901234567890"
    for args in (
        ["new", "g", "--players", "A,B,C", "--pulya", big],
        ["new", "g", "--players", "A,B,C", "--stake", big],
        ["new", "g", "--players", "A,B,C", "--stake", "1e-99999"],
        ["new", "g", "--players", "A,B,C", "--stake", "NaN"],
        ["new", "g", "--players", "A,B,C", "--rule", f"gora_whist_multiplier={big}"],
        ["entry", "first", "Anna", "whists", big, "--on", "Boris"],
        ["entry", "first", "Anna", "pulya", f"-{big}"],
        ["correct", "first", big, "5", "--yes"],
        ["object", "first", "Anna", big],
        ["sheet", "first", "--at", big],
        ["explain", "first", "Anna.pulya", "--at", big],
        ["sheet", "first", "--svg", "--deal", big],
        ["sheet", "first", "--time", "9999-12-31"],
        ["diff", "first", "9999-12-31", "0001-01-01"],
        ["log", "first", "--since", "10000-01-01"],
        ["explain", "first", "x" * 100_000],
        ["players", "--time", "9999-12-31"],
        ["player", "x" * 100_000],
        ["verify", "first", "--against", f"{big}:abcdef"],
        ["bridge", "new", "r", "--players", "A,B,C,D", "--stake", big],
        ["tournament", "new", "t", "--players", "A,B,C", "--pulya", big],
        ["tournament", "new", "t", "--players", "A,B,C", "--pulya", "10", "--cutoff", f"{big}:1,*:1e999999"],
        ["tournament", "standings", "nope", "--time", "9999-12-31"],
    ):
        refused_alone(db, args, None)


def test_a_schema_that_is_not_a_plain_name_is_refused_before_connecting() -> None:
    for schema in ("a;drop", "x y", "1a", "a" * 64, "ä"):
        result = run(f"postgresql://anna:secret@127.0.0.1:1/club?schema={schema}", "games")
        assert result.exit_code == 1 and "not a plain name" in result.stderr and "secret" not in result.stderr


def test_a_huge_stake_stored_long_ago_still_settles_exactly(store_url: str) -> None:
    """A stake no ledger admits now, stored by one that did: the judge names it, as
    ``verify`` does (reading commands judge what they read), and read regardless it is
    settled to the last digit."""
    from decimal import Decimal, localcontext

    from ledger.store.event_store import Store

    stake = "123456789012345678901234567890.5"
    events = every_event("old")[:-1]  # a pulka still in play
    events[0] = msgspec.structs.replace(events[0], stake=stake)
    with Store(store_url) as store:
        store.append("old", events, expected=0)
    result = run(store_url, "settle", "old", "--json")
    assert result.exit_code == 1 and "event 1 of game 'old' would be refused: the stake" in result.stderr
    result = run(store_url, "settle", "old", "--json", "--read-anyway")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    with localcontext(prec=100):
        for player, rounded in doc["rounded"].items():
            assert Decimal(doc["money"][player]) == Decimal(stake) * rounded
    assert run(store_url, "settle", "old", "--read-anyway").exit_code == 0
    assert run(store_url, "settle", "old", "--csv", "--read-anyway").exit_code == 0


def test_a_log_reads_the_same_whether_decoded_whole_or_line_by_line() -> None:
    """A log written one event to a line is decoded in one call, any other line by line:
    the two give the same events at the same lines, and refuse the same line."""
    events = every_event("g")
    text = "".join(encode_event(event).decode() + "\n" for event in events)
    whole = parse_export(text)
    assert [line.event for line in whole] == events
    assert [line.line for line in whole] == list(range(1, len(events) + 1))
    assert parse_export(text.rstrip("\n")) == whole
    # Carriage returns, blank lines and blanks around a line are read line by line.
    spaced = "\n \r\n" + text.replace("\n", "\r\n\n")
    assert parse_export(spaced) == [line._replace(line=2 * line.line + 1) for line in whole]

    lines = text.splitlines()
    for damaged, line in (
        ([*lines[:2], lines[2] + " " + lines[3], *lines[4:]], 3),  # two events on one line
        ([*lines[:2], lines[2] + lines[3], *lines[4:]], 3),
        ([*lines[:3], lines[3][:-1], "}", *lines[4:]], 4),  # one event on two lines
        ([*lines[:3], lines[3].replace(",", ",\n", 1), *lines[4:]], 4),
    ):
        with pytest.raises(Refused) as caught:
            parse_export("\n".join(damaged) + "\n")
        assert caught.value.line == line, damaged


def batched(data: bytes, size: int) -> list[LogLine]:
    return [line for batch in read_batches(io.BytesIO(data), size) for line in batch]


def refusal(read: Callable[[], object]) -> tuple[int | None, str]:
    with pytest.raises(Refused) as caught:
        read()
    return caught.value.line, str(caught.value)


@pytest.mark.parametrize("size", [1, 7, 64, 4096], ids=lambda size: f"{size}-bytes")
def test_a_log_read_in_batches_reads_as_the_whole_text(size: int) -> None:
    """``read_batches`` (how import and --file read a file, so that a long one is never
    held whole) gives what ``parse_export`` of the whole text gives, cut anywhere: the
    same events at the same lines with their digests, the same refusal of the same
    line, whether UTF-8 fails, a line is no event, or there is none."""
    events = every_event("g")
    export = "".join(export_line(e, d) + "\n" for e, d in zip(events, chain_digests("g", events)))
    spaced = "\ufeff\n \r\n" + export.replace("\n", "\r\n\n")  # a byte order mark, blanks, CRLF
    for text in (export, export.rstrip("\n"), spaced):
        assert batched(text.encode(), size) == parse_export(text.lstrip("\ufeff"))
    lines = export.encode().splitlines(keepends=True)
    for damaged in (
        b"".join([*lines[:5], lines[5].replace(b'"type"', b'"ty\xffpe"', 1), *lines[6:]]),  # not UTF-8
        b"".join([*lines[:9], b"{nope}\n", *lines[10:]]),  # a line that is no event
        b"\n \n\r\n",  # no event at all
    ):
        # and the same refusal as the whole file read at once
        assert refusal(lambda: batched(damaged, size)) == refusal(lambda: batched(damaged, len(damaged) + 1))


# -- an empty or malformed time, checked in a process of its own ------------------------------
#
# `admission.check_time_text` remembers the last time it found good. A process that has
# admitted no time yet (every `pulka` command is one) must refuse an empty `at` too: these
# tests run pulka as a process of its own, so that no earlier test's times are remembered.

# The events of the live service's accounts: the ledger's own stream, never imported.
ACCOUNT_EVENTS = {"accounts_started", "account_created", "account_changed", "account_removed", "second_factor_required"}
BAD_TIMES = ("", "2026-12-01T20:14:03+01:00:30")  # empty; an offset in seconds (ISO 8601 has hh:mm)


def one_of_each_type(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """One event of every type of every kind of stream, as a log writes it: from the
    pulka with every event, the fixtures (pulkas and rubbers), a tournament's export,
    and the club register's two, which only `pulka alias` records."""
    samples: dict[str, dict[str, Any]] = {}
    logs = [pulka_log(), *([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
                           for path in sorted([*FIXTURES.glob("*.jsonl"), *FIXTURES.glob("bridge/*.jsonl")]))]
    logs.append([json.loads(line) for line in tournament_export(str(tmp_path / "cup.db")).splitlines()])
    logs.append([{"type": "club_started", "game": "@club"}, {"type": "player_aliased", "name": "Anna P.",
                                                              "same_as": "Anna"},
                 {"type": "rating_model_chosen", "model": "whists-per-deal", "parameters": {"luck": "30"}}])
    # The ledger's own streams of checkpoints and signatures (`pulka checkpoint`, `sign`).
    signed = {"key": "club+12345678+" + "A" * 44, "signature": "B" * 88}
    logs.append([{"type": "checkpoints_started", "game": "@checkpoints", "origin": "club.example/pulka"},
                 {"type": "checkpoint", "size": 1, "root": "C" * 44, "signatures": [signed]},
                 {"type": "cosigned", "size": 1, "root": "C" * 44, "signature": signed},
                 {"type": "key_rotated", "size": 1, "key": "club+12345678+" + "D" * 44, "signatures": [signed]},
                 {"type": "signatures_started", "game": "@signatures"},
                 {"type": "event_signed", "stream": "cup", "number": 1, "event_digest": "d" * 64, "signature": signed}])
    # The accounts of the live service (`pulka serve account`, the director's page).
    logs.append([{"type": "accounts_started", "game": "@accounts"},
                 {"type": "account_created", "account": "a1b2c3d4", "name": "Oleg", "role": "arbiter"},
                 {"type": "account_changed", "account": "a1b2c3d4", "name": "Oleg", "change": "role",
                  "role": "director"},
                 {"type": "account_removed", "account": "a1b2c3d4", "name": "Oleg"},
                 {"type": "second_factor_required", "required": True}])
    for log in logs:
        for line in log:
            line.pop("digest", None)
            samples.setdefault(line["type"], line)
    assert set(samples) == set(EVENT_TYPES)
    return samples


ADMIT_EACH = """
import json, sys
from ledger.judge.admission import admit
from ledger.vocabulary.events import decode_event
from ledger.vocabulary.refusal import Refused
passed = []
for line in open(sys.argv[1], encoding="utf-8"):
    event = decode_event(line)
    try:
        admit(event)
    except Refused as exc:
        assert "`at`" in str(exc), str(exc)
    else:
        passed.append(json.loads(line)["type"])
print(json.dumps(passed))
"""


@pytest.mark.parametrize("when", BAD_TIMES)
def test_an_empty_or_malformed_time_is_refused_in_every_event_type_of_every_stream(tmp_path: Path, when: str) -> None:
    """The one place every event passes on its way in (``admission.admit``) refuses the
    time, whatever the event's type and stream, in a process that has seen no time yet."""
    path = tmp_path / "each.jsonl"
    path.write_text("".join(json.dumps(line | {"at": when}) + "\n" for line in one_of_each_type(tmp_path).values()),
                    encoding="utf-8")
    result = subprocess.run([sys.executable, "-c", ADMIT_EACH, str(path)], capture_output=True, text=True,
                            timeout=120, cwd=Path(__file__).resolve().parent.parent)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_an_empty_time_is_refused_by_a_fresh_pulka_in_every_kind_of_file(store_url: str, tmp_path: Path) -> None:
    """`"at": ""` on the first line of a pulka's, a rubber's and a tournament's file, read
    by `pulka import` in a process of its own: refused at line 1, nothing stored."""
    db = store_url
    bridge = sorted(FIXTURES.glob("bridge/*.jsonl"))[0]
    files = {
        "pulka": jsonl(pulka_log()),
        "rubber": bridge.read_text(encoding="utf-8"),
        "tournament": tournament_export(str(tmp_path / "cup.db")),
    }
    for kind, text in files.items():
        lines = [json.loads(line) for line in text.splitlines()]
        for line in lines:
            line.pop("digest", None)
        for when in BAD_TIMES:
            lines[0]["at"] = when
            path = tmp_path / f"{kind}.jsonl"
            path.write_text(jsonl(lines), encoding="utf-8")
            before = stored_rows(db)
            result = pulka(tmp_path, "import", str(path), "--db", db)
            assert result.returncode == 1, f"{kind} at {when!r}: {result.returncode} {result.stdout} {result.stderr}"
            assert "line 1:" in result.stderr and "`at`" in result.stderr, result.stderr
            assert stored_rows(db) == before

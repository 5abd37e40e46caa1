"""Club data that travels (issue 20, item 6): the club's register of names leaves the
store with the games (``pulka export --club``, one file of several streams, imported
all or nothing) and comes back meaning the same ("Anya" stays Anna); the archive's
players as a spreadsheet table. A file stored whole or not at all, and coming back
whole, on both stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import csv_out, ok, refused, stored_rows, write


def evening(db: str) -> None:
    """Two pulkas over, Anna written "Anya" at the second, and the arbiter's alias."""
    ok(db, "new", "g1", "--players", "Anna,Boris,Vera", "--stake", "0.10", "-q")
    ok(db, "deal", "g1", "6S pass pass | 6S | whist whist | 6 2 2", "-q")
    ok(db, "abandon", "g1", "--agreed-by", "Anna,Boris,Vera", "-q")
    ok(db, "new", "g2", "--players", "Anya,Boris,Gleb", "-q")
    ok(db, "deal", "g2", "pass pass pass | 2 5 3", "-q")
    ok(db, "abandon", "g2", "--agreed-by", "Anya,Boris,Gleb", "-q")
    ok(db, "alias", "Anya", "Anna", "--by", "arbiter:Oleg")


@pytest.mark.sqlite_only
def test_the_register_leaves_the_store_with_the_games(store_url: str, tmp_path: Path) -> None:
    source = str(tmp_path / "source.db")
    evening(source)
    club = write(tmp_path, "club.jsonl", ok(source, "export", "--club"))
    streams = [json.loads(line)["game"] for line in Path(club).read_text().splitlines()
               if json.loads(line)["type"] in ("club_started", "game_started")]
    assert streams == ["@club", "g1", "g2"]
    assert ok(store_url, "verify", "--file", club).splitlines() == [
        "export of @club: 2 events, chain intact", "export of g1: 9 events, chain intact",
        "export of g2: 6 events, chain intact"]
    said = ok(store_url, "import", club)
    assert sorted(said.splitlines()) == ["created @club: 2 events stored", "created g1: 9 events stored",
                                         "created g2: 6 events stored"]
    # "Anya" stays Anna: one player, both pulkas, her results of both games summed.
    anna = json.loads(ok(store_url, "player", "Anya", "--json"))
    assert anna["player"] == "Anna" and anna["spellings"] == ["Anna", "Anya"]
    rounded = [json.loads(ok(store_url, "settle", g, "--json"))["rounded"] for g in ("g1", "g2")]
    assert [line["whists"] for line in anna["pulkas"]] == [rounded[0]["Anna"], rounded[1]["Anya"]]
    listed = json.loads(ok(store_url, "players", "--json"))["players"]
    assert "Anya" not in [p["player"] for p in listed]
    assert next(p for p in listed if p["player"] == "Anna")["pulkas"] == 2
    assert listed == json.loads(ok(source, "players", "--json"))["players"]
    # The register is the same stream, event for event and digest for digest, and it
    # rules in its new store: a game seating both spellings is refused.
    assert ok(store_url, "export", "--club") == Path(club).read_text()
    assert "[club.alias" in refused(store_url, "new", "g3", "--players", "Anna,Anya,Vera")
    assert ok(store_url, "verify").count("chain intact") == 3


def test_a_club_of_tournaments_rubbers_and_games_comes_back_whole(store_url: str, tmp_path: Path) -> None:
    source = str(tmp_path / "source.db")
    for name, players in (("spring", "Anna,Boris,Vera"), ("autumn", "Gleb,Dina,Egor")):
        ok(source, "tournament", "new", name, "--players", players, "--pulya", "6", "--tours", "1", "--deal-cap", "1",
           "--table-size", "3", "--by", "arbiter:Oleg")
        ok(source, "tournament", "seat", name, "1", "--auto", "--seed", "7", "--by", "arbiter:Oleg")
        ok(source, "tournament", "start", name, "1")
        ok(source, "deal", f"{name}/1/1", "pass pass pass | 2 5 3")
        ok(source, "tournament", "close", name, "1", "--by", "arbiter:Oleg")
    ok(source, "bridge", "new", "r1", "--players", "Anna,Boris,Vera,Gleb")
    ok(source, "bridge", "deal", "r1", "2D N 8")
    evening(source)
    club = write(tmp_path, "club.jsonl", ok(source, "export", "--club"))
    ok(store_url, "import", club)
    for args in (["games", "--json"], ["tournament", "list"], ["tournament", "standings", "spring", "--json"],
                 ["tournament", "standings", "autumn", "--json"], ["players", "--json"], ["sheet", "r1", "--json"]):
        assert ok(store_url, *args) == ok(source, *args), args
    # Every stream of the store came, and nothing else: the export of the copy is the file.
    assert ok(store_url, "export", "--club") == Path(club).read_text()


def test_a_club_file_is_stored_whole_or_not_at_all(store_url: str, tmp_path: Path) -> None:
    source = str(tmp_path / "source.db")
    evening(source)
    club = write(tmp_path, "club.jsonl", ok(source, "export", "--club"))
    # Into a store that holds a game already: refused, naming it; nothing stored.
    ok(store_url, "new", "mine", "--players", "Anna,Boris,Vera", "-q")
    before = stored_rows(store_url)
    err = refused(store_url, "import", club)
    assert "line 1:" in err and "into a store without games or tournaments" in err and "mine" in err
    assert stored_rows(store_url) == before


def test_an_alias_the_files_games_deny_refuses_the_whole_file(store_url: str, tmp_path: Path) -> None:
    """A hand-written club file (no digests: judged as import judges a log) whose alias
    joins two players who sat at one table of the file [club.alias]."""
    lines = [
        {"type": "game_started", "game": "g", "players": ["Anna", "Anya", "Vera"], "pulya": 10},
        {"type": "bid", "player": "Anna", "bid": "pass"},
        {"type": "club_started", "game": "@club", "by": "arbiter:Oleg"},
        {"type": "player_aliased", "name": "Anya", "same_as": "Anna", "by": "arbiter:Oleg"},
    ]
    file = write(tmp_path, "forged.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    err = refused(store_url, "import", file)
    assert "line 4:" in err and "'Anya' and 'Anna' both sat at g" in err and "[club.alias" in err
    assert stored_rows(store_url) == []
    # A register kept by someone who is not an arbiter is refused too.
    lines[3]["by"] = "Vera"
    lines[3]["name"] = "Anne"
    err = refused(store_url, "import", write(tmp_path, "scorer.jsonl", "".join(json.dumps(x) + "\n" for x in lines)))
    assert "line 4:" in err and "kept by an arbiter" in err
    assert stored_rows(store_url) == []


@pytest.mark.sqlite_only
def test_the_players_as_a_spreadsheet(store_url: str) -> None:
    evening(store_url)
    ok(store_url, "new", "g4", "--players", "Вера,Boris,Gleb", "-q")  # one still in play, a Cyrillic name
    table = csv_out(store_url, "players", "--csv")
    listed = json.loads(ok(store_url, "players", "--json"))["players"]
    assert [r["player"] for r in table] == [p["player"] for p in listed]
    assert "Вера" in [r["player"] for r in table]
    for row, doc in zip(table, listed, strict=True):
        for column in ("pulkas", "finished", "abandoned", "in_play", "whists"):
            assert int(row[column]) == doc[column], column
        assert row["money"] == (doc["money"] or "")
        assert row["best"] == ("" if doc["best"] is None else str(doc["best"]))
        # the average exact: a decimal where it has one, else a fraction, equal to the JSON's
        if doc["average"] is not None:
            assert abs(eval_fraction(row["average"]) - doc["average"]) < 1e-9
        else:
            assert row["average"] == ""


def eval_fraction(text: str) -> float:
    numerator, _, denominator = text.partition("/")
    return float(numerator) / float(denominator or 1)

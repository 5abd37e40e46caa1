"""The refusals of verifiable history (keys, checkpoints, signatures, proofs) and the
store's errors in Russian (issue 20, item 3): each through the real command with
``--lang ru``, the store left as it was; a database's own words stay its own, and a
chain's problem (what the views store) stays in English inside the Russian frame."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from click.testing import CliRunner, Result

from cli.main import main
from ledger.vocabulary.notes import Signer
from tests.helpers import ok, stored_rows


def ru(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["--lang", "ru", *args, "--db", db], catch_exceptions=False)


def refused_ru(db: str, *args: str) -> str:
    before = stored_rows(db)
    result = ru(db, *args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert stored_rows(db) == before  # a refusal stores nothing
    return result.stderr


def evening(tmp_path: Path) -> str:
    db = str(tmp_path / "pulka.db")
    ok(db, "new", "demo", "--players", "Anna,Boris,Vera", "--pulya", "10", "-q")
    ok(db, "deal", "Anna 6S w w 6 2 2", "-q")
    return db


def key_file(tmp_path: Path, name: str, mode: int = 0o600) -> str:
    path = tmp_path / (name.replace("/", "_").replace(":", "_") + ".key")
    path.write_text(Signer.generate(name).text() + "\n", encoding="utf-8")
    os.chmod(path, mode)
    return str(path)


def test_no_checkpoint_yet_and_no_checkpoint_of_that_size(tmp_path: Path) -> None:
    db = evening(tmp_path)
    said = refused_ru(db, "checkpoint")
    assert "в хранилище ещё нет ни одной контрольной точки" in said
    assert "pulka checkpoint --key CLUB.key" in said  # what to type stays as typed
    assert "no checkpoint" not in said
    ok(db, "checkpoint", "--key", key_file(tmp_path, "club.example/pulka"))
    said = refused_ru(db, "checkpoint", "--size", "5")
    assert "в хранилище нет контрольной точки размером 5" in said and "записанные размеры: " in said


def test_an_arbiter_signs_his_decisions_only(tmp_path: Path) -> None:
    db = evening(tmp_path)
    said = refused_ru(db, "sign", "demo", "2", "--key", key_file(tmp_path, "arbiter:Oleg"))
    assert "событие 2 — это bid: арбитр подписывает свои решения" in said
    assert "жёлтая карточка" in said and "штраф" in said  # what he signs, in Russian
    assert "an arbiter signs" not in said


def test_a_private_key_others_may_read_is_refused(tmp_path: Path) -> None:
    db = evening(tmp_path)
    key = key_file(tmp_path, "club.example/pulka", 0o644)
    said = refused_ru(db, "checkpoint", "--key", key)
    assert "могут читать другие (права 0644)" in said and f"chmod 600 {key}" in said
    assert "may be read by others" not in said


def test_a_second_signature_by_the_same_key(tmp_path: Path) -> None:
    db = evening(tmp_path)
    key = key_file(tmp_path, "club.example/pulka")
    ok(db, "checkpoint", "--key", key)
    said = refused_ru(db, "cosign", "--key", key)
    assert "club.example/pulka: контрольная точка №" in said and "уже подписана" in said
    assert "has signed" not in said


def test_a_malformed_checkpoint_file(tmp_path: Path) -> None:
    db = evening(tmp_path)
    ok(db, "checkpoint", "--key", key_file(tmp_path, "club.example/pulka"))
    bad = tmp_path / "bad.txt"
    bad.write_text("junk\n", encoding="utf-8")
    said = refused_ru(db, "prove", "demo", "--checkpoint", str(bad))
    assert "заметка повреждена: перед подписями нет пустой строки" in said
    assert "malformed note" not in said


def test_a_key_name_with_a_space_makes_no_key(tmp_path: Path) -> None:
    out = tmp_path / "k.key"
    result = CliRunner().invoke(main, ["--lang", "ru", "keygen", "a b", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    said = result.stderr
    assert "в имени ключа не может быть пробелов" in said and "may hold no spaces" not in said
    assert not out.exists()


def test_a_broken_chain_the_frame_russian_the_problem_as_stored(tmp_path: Path) -> None:
    db = evening(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE stored_events SET state = replace(state, '\"6S\"', '\"7S\"') "
                     "WHERE originator_version = 2")
    said = refused_ru(db, "sign", "demo", "2", "--key", key_file(tmp_path, "arbiter:Oleg"))
    assert "хеш-цепочка 'demo' нарушена: event 2: digest does not match its content (edited?)" in said
    assert "hash chain" not in said


def test_store_errors_keep_the_database_words(tmp_path: Path) -> None:
    said = refused_ru(":memory:", "checkpoint")
    assert "база SQLite в памяти" in said and "in-memory" not in said
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is no database at all" * 10)
    result = ru(str(junk), "checkpoint", "--key", key_file(tmp_path, "club.example/pulka"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    said = result.stderr
    assert f"не удаётся открыть хранилище {junk}: file is not a database" in said  # SQLite's own words
    assert "cannot open" not in said
    listed = ru(str(junk), "games").stderr  # a reading command's frame, said once
    assert listed.count("не удаётся открыть хранилище") == 1, listed
    assert junk.read_bytes() == b"this is no database at all" * 10

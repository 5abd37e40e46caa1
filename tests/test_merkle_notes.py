"""Signed notes and checkpoints (``ledger.vocabulary.notes``, and the standalone
verifier's own reading of them) against the examples of the formats: the keys, note and
signatures of golang.org/x/mod/sumdb/note's tests (Ed25519 signs deterministically, so
signing the same text with the same key must give their signature byte for byte) and
the checkpoint of C2SP tlog-checkpoint."""

from __future__ import annotations

import pytest

import pulka_verify
from ledger.vocabulary.notes import (
    Checkpoint,
    Note,
    NoteError,
    Signer,
    Verifier,
    open_note,
    parse_checkpoint,
    parse_note,
    sign_note,
)

# golang.org/x/mod/sumdb/note, note_test.go
PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
PETER_SIG = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
ENOCH_SIG = ("— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc"
             "+QQ=\n")


def test_the_go_signer_and_verifier_keys_parse_and_agree() -> None:
    signer = Signer.parse(PETER_SKEY)
    assert signer.text() == PETER_SKEY
    assert signer.verifier.text() == PETER_VKEY
    assert Verifier.parse(PETER_VKEY) == signer.verifier
    assert Verifier.parse(ENOCH_VKEY).id == 0xAF0CFE78


def test_signing_the_go_text_gives_the_go_signature() -> None:
    note = sign_note(TEXT, [Signer.parse(PETER_SKEY)])
    assert str(note) == TEXT + "\n" + PETER_SIG
    # a signer's own earlier signature is replaced, as note.Sign does
    again = sign_note(TEXT, [Signer.parse(PETER_SKEY)], existing=parse_note(TEXT + "\n" + PETER_SIG).signatures)
    assert str(again) == TEXT + "\n" + PETER_SIG


def test_opening_the_go_note() -> None:
    message = TEXT + "\n" + PETER_SIG + ENOCH_SIG
    peter, enoch = Verifier.parse(PETER_VKEY), Verifier.parse(ENOCH_VKEY)
    one = open_note(parse_note(message), [peter])
    assert [s.name for s in one.verified] == ["PeterNeumann"] and [s.name for s in one.unverified] == ["EnochRoot"]
    both = open_note(parse_note(message), [peter, enoch])
    assert [s.name for s in both.verified] == ["PeterNeumann", "EnochRoot"]
    with pytest.raises(NoteError, match="no signature of a trusted key"):
        open_note(parse_note(message), [])
    bad = TEXT + "\n" + PETER_SIG[:60] + "ABCD" + PETER_SIG[60:]
    with pytest.raises(NoteError, match="invalid signature for key PeterNeumann"):
        open_note(parse_note(bad), [peter])
    # the standalone verifier reads the same note the same way
    text, good, other = pulka_verify.open_note(message, [pulka_verify.Key(PETER_VKEY)])
    assert (text, [k.name for k, _ in good], other) == (TEXT, ["PeterNeumann"], ["EnochRoot+af0cfe78"])
    with pytest.raises(pulka_verify.Failed):
        pulka_verify.open_note(bad, [pulka_verify.Key(PETER_VKEY)])
    assert pulka_verify.open_note(TEXT + "\n" + ENOCH_SIG, [pulka_verify.Key(PETER_VKEY)])[1] == []


@pytest.mark.parametrize("message", [
    TEXT, TEXT + "\n", TEXT + "\n" + PETER_SIG[:-1], "\x01" + TEXT + "\n" + PETER_SIG,
    TEXT + "\n" + "— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=",
    TEXT + "\n" + PETER_SIG + "Unexpected line.\n", TEXT + "\n" + PETER_SIG * 101,
])
def test_the_go_malformed_notes_are_refused(message: str) -> None:
    with pytest.raises(NoteError, match="malformed|no spaces"):
        parse_note(message)


def test_mangled_keys_are_refused() -> None:
    for i in range(len(PETER_VKEY)):
        mangled = PETER_VKEY[:i] + chr(ord(PETER_VKEY[i]) + 1) + PETER_VKEY[i + 1:]
        with pytest.raises(NoteError):
            Verifier.parse(mangled)
    for i in range(len(PETER_SKEY)):
        mangled = PETER_SKEY[:i] + chr(ord(PETER_SKEY[i]) + 1) + PETER_SKEY[i + 1:]
        with pytest.raises(NoteError):
            Signer.parse(mangled)
    with pytest.raises(NoteError):  # unknown algorithm, with adjusted key hash
        Verifier.parse("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")


def test_the_c2sp_checkpoint_example() -> None:
    text = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    checkpoint = parse_checkpoint(text)
    assert (checkpoint.origin, checkpoint.size) == ("example.com/behind-the-sofa", 20852163)
    assert checkpoint.text() == text
    note = parse_note(text + "\n— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN"
                      "7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n")
    assert note.text == text and note.signatures[0].name == "example.com/behind-the-sofa"
    assert pulka_verify.parse_checkpoint(text) == tuple(checkpoint)
    for bad in ("a\n012\n" + text.split("\n")[2] + "\n", "a\n12\nAAAA\n", "a\n12\n", "\n12\n" + text.split("\n")[2]):
        with pytest.raises(NoteError):
            parse_checkpoint(bad)


def test_a_checkpoint_signed_and_cosigned_opens_with_either_key() -> None:
    club, arbiter = Signer.generate("club.example/pulka"), Signer.generate("arbiter:Oleg")
    text = Checkpoint("club.example/pulka", 3, bytes(32)).text()
    note = sign_note(text, [club])
    cosigned = sign_note(text, [arbiter], existing=note.signatures)
    assert len(cosigned.signatures) == 2
    assert open_note(parse_note(str(cosigned)), [arbiter.verifier]).verified[0].name == "arbiter:Oleg"
    stranger = Signer.generate("club.example/pulka")  # the same name, another key
    with pytest.raises(NoteError, match="no signature of a trusted key"):
        open_note(Note(text, cosigned.signatures), [stranger.verifier])

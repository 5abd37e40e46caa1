"""The demo club of ``make serve``: a store with a pulka under way, a director and an
arbiter who sign in, and the table's link, made once (a store that has them is left as
it is); what the terminal says of it: the table's scorer link and the spectators' page,
each with its QR code, and where each account's password is."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from ledger.vocabulary import language
from web.accounts import Accounts

_, N_ = language._, language.N_  # every text a person reads, in the language in effect

GAME = "evening"
DEALS = (
    "6S pass pass | 6S | whist whist | 6 2 2",
    "7H pass pass | 7H | whist pass | 7 2 1",
    "pass pass pass | 2 5 3",
)
# Each demo account: its role and name, its password file's suffix, and what is said of it.
ACCOUNTS = (
    ("director", "", N_("the director signs in as {name} with the password in {file}")),
    ("arbiter", ".arbiter", N_("the arbiter signs in as {name} with the password in {file}")),
)


@dataclass(frozen=True)
class DemoClub:
    """The demo club's links, and what to tell the person who started it."""

    score: str  # the table's scorer: the page with its token (after ``#``)
    watch: str  # the spectators' page
    said: list[str]

    @property
    def codes(self) -> list[tuple[str, str]]:
        """The links the terminal draws as QR codes, each with its caption."""
        return [(_("the table's scorer (its phone opens this)"), self.score), (_("the spectators"), self.watch)]


def demo_club(db: str, base: str) -> DemoClub:
    """Make the demo club in ``db`` when it is not there; its links at ``base`` (the
    address phones reach), and what to tell the person."""
    base = base.rstrip("/")
    with Store(db, create=True) as store:
        desk = PulkaDesk(Ledger(store))
        if not store.count(GAME):
            desk.new(GAME, "Anna,Boris,Vera", pulya=10, stake="0.10", by="arbiter:director")
            for line in DEALS:
                desk.deal(GAME, line, by="scorer:demo")
    accounts = Accounts(db)
    said = [_("demo club: the pulka {game} under way").format(game=repr(GAME))]
    try:
        for role, suffix, told in ACCOUNTS:
            password_file = Path(f"{db}{suffix}.password")
            if accounts.account(role) is None:
                password = secrets.token_urlsafe(12)
                accounts.create(role, password, role)
                password_file.write_text(password + "\n", encoding="utf-8")
                os.chmod(password_file, 0o600)
            said.append(_(told).format(name=repr(role), file=password_file))
        token = accounts.issue(GAME, "scorer:demo", "director")
    finally:
        accounts.close()
    return DemoClub(score=f"{base}/score/{quote(GAME, safe='')}#token={token}",
                    watch=f"{base}/watch/{quote(GAME, safe='')}", said=said)

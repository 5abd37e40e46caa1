"""The demo club of ``make serve``: a store with a pulka under way, a director who signs
in, and the table's link, made once (a store that has them is left as it is)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import quote

from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from web.accounts import Accounts

GAME = "evening"
DEALS = (
    "6S pass pass | 6S | whist whist | 6 2 2",
    "7H pass pass | 7H | whist pass | 7 2 1",
    "pass pass pass | 2 5 3",
)


def demo_club(db: str, base: str) -> list[str]:
    """Make the demo club in ``db`` when it is not there; what to tell the person."""
    with Store(db, create=True) as store:
        desk = PulkaDesk(Ledger(store))
        if not store.count(GAME):
            desk.new(GAME, "Anna,Boris,Vera", pulya=10, stake="0.10", by="arbiter:director")
            for line in DEALS:
                desk.deal(GAME, line, by="scorer:demo")
    accounts = Accounts(db)
    try:
        password_file = Path(f"{db}.password")
        if accounts.account("director") is None:
            password = secrets.token_urlsafe(12)
            accounts.create("director", password, "director")
            password_file.write_text(password + "\n", encoding="utf-8")
            os.chmod(password_file, 0o600)
        token = accounts.issue(GAME, "scorer:demo", "director")
    finally:
        accounts.close()
    return [
        f"demo club: the pulka {GAME!r} under way; spectators: {base}/watch/{quote(GAME)}",
        f"the table's scorer: {base}/score/{quote(GAME)}#token={token}",
        f"the director signs in as 'director' with the password in {password_file}",
    ]

"""The accounts of ``pulka serve`` as the club log records them: who made, changed or
removed which account, and when.

An account (an arbiter's or a director's, who signs in to the service) lives in the
service's table beside the events (``web.accounts``): its password hash and second
factor stay there, never in the log, which is exported and proved. Every change of an
account is also an event of the ledger's stream ``@accounts`` (a name no game may take),
judged like every event (``ledger.judge.accounts``) and shown in the director's audit:

- ``accounts_started``: the stream's first event;
- ``account_created``: ``account`` (its id: a name made again is a new account),
  ``name``, ``role``;
- ``account_changed``: the same account, and ``change``: ``role`` (to ``role``),
  ``password_reset`` (by a director), ``password_changed`` (by himself), ``disabled``,
  ``enabled``, ``second_factor_enrolled``, ``second_factor_removed``;
- ``account_removed``: the account, its sessions ended;
- ``second_factor_required``: the club's setting (``required``) that arbiters and
  directors sign in with a second factor.
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

from ledger.vocabulary.stream import ForeignEvent, StreamStart

ACCOUNTS_STREAM = "@accounts"
ROLES = ("arbiter", "director")  # a director may do all an arbiter may, and run tournaments and accounts
CHANGES = ("role", "password_reset", "password_changed", "disabled", "enabled", "second_factor_enrolled",
           "second_factor_removed")


class AccountsStarted(StreamStart, ForeignEvent, frozen=True, tag="accounts_started"):
    """The first event of ``@accounts``."""


class AccountCreated(ForeignEvent, frozen=True, tag="account_created"):
    """A new account: its id, its name (it records as ``arbiter:NAME``) and role."""

    account: str
    name: str
    role: str


class AccountChanged(ForeignEvent, frozen=True, tag="account_changed"):
    """An account changed (``change``, one of ``CHANGES``; ``role``: the new one)."""

    account: str
    name: str
    change: str
    role: str | None = None


class AccountRemoved(ForeignEvent, frozen=True, tag="account_removed"):
    """An account removed: it signs in no more; a name made again is a new account."""

    account: str
    name: str


class SecondFactorRequired(ForeignEvent, frozen=True, tag="second_factor_required"):
    """The club's setting: whether arbiters and directors must sign in with a second
    factor (a code of an authenticator app, or a recovery code)."""

    required: bool

"""Every change of an account, as the director makes it on his page or at the server's
command line (``pulka serve account …``), and as a person changes his own password or
second factor: a change of the service's table (``accounts.Accounts``) and its event in
the club log (``@accounts``: ``ledger.desks.accounts``), with who made it.

The table is changed first, under its constraints (a name is taken once), then the
event is stored; when the event cannot be stored (the store is down, it is refused),
the table is put back as it was and the error stands, so that no account changes
without its event. Changes that end sessions end every session of the account, in
every process at once: a role changed, a password changed or reset, an account
disabled or removed. Run on one thread (the worker's, or the command's).
"""

from __future__ import annotations

from collections.abc import Callable

from ledger.desks.accounts import account_events, record_account_event, second_factor_required
from ledger.store.event_store import Store
from ledger.vocabulary import language
from ledger.vocabulary.accounts import AccountChanged, AccountCreated, AccountRemoved, SecondFactorRequired
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.refusal import Refused, excerpt
from web.accounts import Account, AccountRow, Accounts
from web.passwords import check_password

_ = language._  # every text a person reads, in the language in effect


def account_named(accounts: Accounts, name: str) -> AccountRow:
    """The account named, or a refusal naming the field."""
    row = accounts.row(name)
    if row is None:
        raise Refused("accounts", _("no account named {name}").format(name=excerpt(name)), field="name")
    return row


def by_id(accounts: Accounts, account_id: str) -> AccountRow:
    row = next((r for r in accounts.all() if r.id == account_id), None)
    if row is None:
        raise Refused("accounts", _("no account {id}").format(id=excerpt(account_id)), field="account")
    return row


def _changed(accounts: Accounts, store: Store, row: AccountRow | None, change: Callable[[], None],
             event: AnyEvent) -> None:
    """``change`` of the table, then ``event``; the table put back when the event fails."""
    change()
    try:
        record_account_event(store, event)
    except BaseException:
        if row is not None:
            accounts.restore(row)
        raise


def create(accounts: Accounts, store: Store, name: str, password: str, role: str, by: str) -> Account:
    """A new account (its name and password judged as the service judges them)."""
    name = name.strip()
    check_password(password, name)
    account = accounts.create(name, password, role)
    try:
        record_account_event(store, AccountCreated(account=account.id, name=account.name, role=role, by=by))
    except BaseException:
        accounts.remove(account.id)
        raise
    return account


def not_oneself(row: AccountRow, by: str, refusal: str) -> None:
    """A director does not lock himself out: another director does it."""
    if by == f"arbiter:{row.name}":
        raise Refused("accounts", refusal, _("another director does it"), field="account")


def change_role(accounts: Accounts, store: Store, row: AccountRow, role: str, by: str) -> None:
    if role != "director":
        not_oneself(row, by, _("a director does not take the director's role from his own account"))
    _changed(accounts, store, row, lambda: accounts.set_role(row.id, role),
             AccountChanged(account=row.id, name=row.name, change="role", role=role, by=by))


def reset_password(accounts: Accounts, store: Store, row: AccountRow, password: str, by: str) -> None:
    check_password(password, row.name)
    _changed(accounts, store, row, lambda: accounts.set_password(row.id, password),
             AccountChanged(account=row.id, name=row.name, change="password_reset", by=by))


def change_own_password(accounts: Accounts, store: Store, account: Account, password: str) -> None:
    """The account's own password, changed by him (its current one checked first, by
    the caller): every session of his ends, this one too; he signs in again."""
    row = account_named(accounts, account.name)
    check_password(password, row.name)
    _changed(accounts, store, row, lambda: accounts.set_password(row.id, password),
             AccountChanged(account=row.id, name=row.name, change="password_changed", by=f"arbiter:{row.name}"))


def set_disabled(accounts: Accounts, store: Store, row: AccountRow, disabled: bool, by: str) -> None:
    if disabled:
        not_oneself(row, by, _("a director does not disable his own account"))
    _changed(accounts, store, row, lambda: accounts.set_disabled(row.id, disabled),
             AccountChanged(account=row.id, name=row.name, change="disabled" if disabled else "enabled", by=by))


def remove_account(accounts: Accounts, store: Store, row: AccountRow, by: str) -> None:
    not_oneself(row, by, _("a director does not remove his own account"))
    _changed(accounts, store, row, lambda: accounts.remove(row.id),
             AccountRemoved(account=row.id, name=row.name, by=by))


def enrolled(accounts: Accounts, store: Store, account: Account, code: str) -> list[str] | None:
    """The recovery codes when ``code`` confirms the second factor being enrolled."""
    row = account_named(accounts, account.name)
    codes = accounts.confirm_enrolment(row.id, code)
    if codes is None:
        return None
    try:
        record_account_event(store, AccountChanged(account=row.id, name=row.name, change="second_factor_enrolled",
                                                   by=f"arbiter:{row.name}"))
    except BaseException:
        accounts.restore(row)
        raise
    return codes


def drop_second_factor(accounts: Accounts, store: Store, account: Account) -> None:
    """A person's second factor removed by him, where the club does not ask for one."""
    if second_factor_required(account_events(store)):
        raise Refused("accounts", _("the club asks every arbiter and director for a second factor: it stays"),
                      field="code")
    row = account_named(accounts, account.name)
    _changed(accounts, store, row, lambda: accounts.remove_second_factor(row.id),
             AccountChanged(account=row.id, name=row.name, change="second_factor_removed", by=f"arbiter:{row.name}"))


def require_second_factor(store: Store, required: bool, by: str) -> None:
    record_account_event(store, SecondFactorRequired(required=required, by=by))

"""Judging the accounts of ``pulka serve``: the name an account may take, and each event
of ``@accounts`` (``ledger.vocabulary.accounts``) before it is stored.

An account's name is recorded as ``arbiter:NAME`` on everything its holder records, so
it is held to a player's name's rules (``admission.check_name``: not empty, at most
``NAME_MAX`` characters, no blanks around it, no control, format or bidirectional
character) and more: no ``:`` or ``@`` (it would read as a prefix of the ledger's),
nothing that reads as ``arbiter:``/``scorer:``, and no name that is another account's
(``names.name_key``: "Dora" beside "dora") or reads as one (``names.reads_alike``:
"dоra" with a Cyrillic "о" beside "dora"). The command line (``pulka serve account``)
and the service (the director's page) judge by the same function.

An event of ``@accounts`` is admitted as every event is (``admission.admit``), names a
role of ``ROLES`` and a change of ``CHANGES``, and says who made it: a director
(``arbiter:NAME``) or the server's console (``console:USER``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ledger.judge.admission import admit, check_name
from ledger.vocabulary import language
from ledger.vocabulary.accounts import CHANGES, ROLES, AccountChanged, AccountCreated
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.names import name_key, reads_alike
from ledger.vocabulary.refusal import Refused, excerpt

_ = language._  # every text a person reads, in the language in effect

RULE = "accounts"
CONSOLE = "console:"  # who records a change made at the server's command line


def check_account_name(name: str, others: Iterable[str] = ()) -> None:
    """Refuse ``name`` for a new account beside the accounts ``others``."""
    check_name(name, "name")
    bad = next((c for c in name if c in ":@"), None)
    if bad is not None:
        raise Refused(RULE, _("an account's name may not hold {char}: it records as arbiter:NAME").format(
            char=repr(bad)), _("letters, digits, blanks inside, - . _"))
    key = name_key(name)
    for other in others:
        if name_key(other) == key:
            raise Refused(RULE, _("the name {name} is taken: {other} is an account").format(
                name=excerpt(name), other=excerpt(other)), _("another name"))
        if reads_alike(name, other):
            raise Refused(RULE, _("{name} reads as the account {other} (letters of other scripts or forms that look "
                                  "the same, Unicode's confusables): nobody could tell them apart").format(
                                      name=excerpt(name), other=excerpt(other)), _("another name"))


def check_role(role: str) -> None:
    if role not in ROLES:
        raise Refused(RULE, _("a role is one of {roles}, not {role}").format(
            roles=", ".join(ROLES), role=excerpt(role)), ", ".join(ROLES), field="role")


def judge_account_event(event: AnyEvent) -> None:
    """Refuse an event of ``@accounts`` that is not of the form above."""
    admit(event)
    if isinstance(event, AccountCreated):
        check_role(event.role)
    if isinstance(event, AccountChanged):
        if event.change not in CHANGES:
            raise Refused(RULE, _("an account's change is one of {changes}, not {change}").format(
                changes=", ".join(CHANGES), change=excerpt(event.change)), ", ".join(CHANGES))
        if (event.change == "role") != (event.role is not None):
            raise Refused(RULE, _("a change of role names the new role, and only it does"), ", ".join(ROLES))
        if event.role is not None:
            check_role(event.role)
    by = event.by or ""
    if not (by.startswith("arbiter:") or by.startswith(CONSOLE)) or by in ("arbiter:", CONSOLE):
        raise Refused(RULE, _("an account is changed by a director (arbiter:NAME) or at the server (console:USER), "
                              "not {by}").format(by=excerpt(by) if by else _("nobody")), "arbiter:NAME, console:USER")

"""The API of sessions and accounts (docs/api.md, "Who may do what" and "Accounts"):
signing in and out; the director's accounts (made, their role changed, their password
reset, disabled, enabled, removed; the log of every change; the club's setting of a
second factor); and each person's own password and second factor.

A change of an account goes through ``account_desk``: its table and its event in the
club log, with who made it. Sign-in is counted per client address and per name in the
store (``accounts.Accounts.sign_in``), and answers alike for a name without an account.
"""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ledger.desks.accounts import account_events, second_factor_required
from ledger.vocabulary import language
from ledger.vocabulary.events import event_to_dict
from ledger.vocabulary.refusal import Refused
from web import account_desk, second_factor
from web.accounts import Attempt
from web.api_common import json, read
from web.auth import (
    ANYONE, DIRECTOR, SESSION, SIGNED_IN, WRITE, READ, Denied, Principal, SignIn, csrf_checked, csrf_token,
    needs, principal_of, rule, signed_in,
)
from web.service import Service

_ = language._  # every text a person reads, in the request's language

SIGN_IN_MAX = 4096  # bytes of a sign-in's body: a name, a password and a code
ISSUER = "pulka"  # how an authenticator app names the service


def client_address(request: Request) -> str:
    """The client's address (the proxy's X-Forwarded-For where the proxy is trusted:
    uvicorn's ``--forwarded-allow-ips``)."""
    return request.client.host if request.client else "?"


# -- the session --------------------------------------------------------------------------------


def who_doc(principal: Principal | None, game: bool = True) -> dict[str, Any] | None:
    if principal is None:
        return None
    doc: dict[str, Any] = {"name": principal.name, "role": principal.role, "by": principal.by}
    if game:
        doc["game"] = principal.game
    if principal.account is not None:
        doc["second_factor"] = principal.account.second_factor
    if principal.stage != "full":
        doc["enrol"] = True  # the club asks for a second factor: this session may only enrol one
    return doc


@rule(ANYONE, SESSION)
async def session(request: Request) -> Response:
    """Who is signed in, and the CSRF token every write with the cookie carries."""
    service: Service = request.app.state.service
    principal = await service.run(lambda: principal_of(request, service.worker().accounts))
    return json({"signed_in": who_doc(principal), "csrf": csrf_token(request)})


@rule(ANYONE, SESSION)
async def sign_in(request: Request) -> Response:
    service: Service = request.app.state.service
    csrf_checked(request)
    address = client_address(request)
    wait = await service.run(lambda: service.worker().accounts.attempt_from(address))
    if wait:
        raise Denied(429, _("too many sign-in attempts from here; wait a minute"), wait)
    b = await read(request, SignIn, SIGN_IN_MAX)

    def signing_in() -> tuple[Attempt, str, bool]:
        worker = service.worker()
        outcome = worker.accounts.sign_in(b.name, b.password, b.code)
        if outcome.status != "ok" or outcome.account is None:
            return outcome, "", False
        enrol = not outcome.account.second_factor and second_factor_required(account_events(worker.store))
        return outcome, worker.accounts.open_session(outcome.account, "enrol" if enrol else "full"), enrol

    outcome, secret, enrol = await service.run(signing_in)
    refused(outcome, b.code)
    assert outcome.account is not None
    signed_in(request, secret)
    doc: dict[str, Any] = {"name": outcome.account.name, "role": outcome.account.role,
                           "by": f"arbiter:{outcome.account.name}"}
    if enrol:
        doc["enrol"] = True  # the club asks for a second factor: this session may only enrol one
    return json({"signed_in": doc, "csrf": request.session["csrf"]})


def refused(outcome: Attempt, code: str | None) -> None:
    """The refusal of a sign-in that did not succeed. A locked name is answered alike
    whether it has an account or not."""
    if outcome.status == "locked":
        raise Denied(429, _("too many failed sign-ins to this account; wait {seconds} s").format(
            seconds=max(1, round(outcome.wait))), outcome.wait)
    if outcome.status == "wrong":
        raise Denied(401, _("wrong name or password"))
    if outcome.status == "code":
        message = (_("the code is wrong, or used already") if code else
                   _("this account signs in with a second factor: the code of its authenticator app, or a recovery "
                     "code"))
        raise Denied(401, message, field="code")
    if outcome.status == "disabled":
        raise Denied(403, _("this account is disabled: a director may enable it"))


@rule(ANYONE, SESSION)
async def sign_out(request: Request) -> Response:
    """The session ends, in every process: a copy of its cookie signs in nobody."""
    service: Service = request.app.state.service
    csrf_checked(request)
    secret = request.session.get("sid")
    if isinstance(secret, str):
        await service.run(lambda: service.worker().accounts.close_session(secret))
    request.session.clear()
    return json({"signed_in": None, "csrf": csrf_token(request)})


# -- the director's accounts --------------------------------------------------------------------


class AccountIn(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    password: str
    role: str = "arbiter"


class RoleIn(msgspec.Struct, forbid_unknown_fields=True):
    role: str


class PasswordIn(msgspec.Struct, forbid_unknown_fields=True):
    password: str


class Nothing(msgspec.Struct, forbid_unknown_fields=True):
    pass


def account_doc(row: Any) -> dict[str, Any]:
    return {"id": row.id, "name": row.name, "role": row.role, "disabled": bool(row.disabled),
            "second_factor": bool(row.totp), "created": row.created}


@rule(DIRECTOR, READ)
async def account_list(request: Request) -> Response:
    """Every account, the club log's events of accounts (who changed which, when), and
    the club's setting of a second factor."""
    service: Service = request.app.state.service
    await needs(request, DIRECTOR)

    def listed() -> dict[str, Any]:
        worker = service.worker()
        events = account_events(worker.store)
        return {"accounts": [account_doc(r) for r in worker.accounts.all()],
                "log": [{"number": s.number, **event_to_dict(s.event)} for s in events],
                "second_factor_required": second_factor_required(events)}

    return json(await service.run(listed))


@rule(DIRECTOR, WRITE)
async def new_account(request: Request) -> Response:
    service: Service = request.app.state.service
    principal = await needs(request, DIRECTOR, write=True)
    b = await read(request, AccountIn)

    def create() -> dict[str, str]:
        worker = service.worker()
        account = account_desk.create(worker.accounts, worker.store, b.name, b.password, b.role, principal.by)
        return {"name": account.name, "role": account.role, "id": account.id}

    return json({"account": await service.run(create)}, 201)


async def account_change(request: Request, body: type[Any], change: Any) -> Response:
    """A director's change of the account ``{account}`` (its id): ``change(worker,
    row, body, by)`` on a worker thread; the account as it is after."""
    service: Service = request.app.state.service
    principal = await needs(request, DIRECTOR, write=True)
    b = await read(request, body)
    account_id = request.path_params["account"]

    def changed() -> dict[str, Any]:
        worker = service.worker()
        row = account_desk.by_id(worker.accounts, account_id)
        change(worker.accounts, worker.store, row, b, principal.by)
        after = next((r for r in worker.accounts.all() if r.id == account_id), None)
        return {"account": account_doc(after) if after is not None else None}

    return json(await service.run(changed))


@rule(DIRECTOR, WRITE)
async def account_role(request: Request) -> Response:
    return await account_change(request, RoleIn, lambda a, s, row, b, by: account_desk.change_role(
        a, s, row, b.role, by))


@rule(DIRECTOR, WRITE)
async def account_password(request: Request) -> Response:
    return await account_change(request, PasswordIn, lambda a, s, row, b, by: account_desk.reset_password(
        a, s, row, b.password, by))


@rule(DIRECTOR, WRITE)
async def account_disable(request: Request) -> Response:
    return await account_change(request, Nothing, lambda a, s, row, b, by: account_desk.set_disabled(
        a, s, row, True, by))


@rule(DIRECTOR, WRITE)
async def account_enable(request: Request) -> Response:
    return await account_change(request, Nothing, lambda a, s, row, b, by: account_desk.set_disabled(
        a, s, row, False, by))


@rule(DIRECTOR, WRITE)
async def account_remove(request: Request) -> Response:
    return await account_change(request, Nothing, lambda a, s, row, b, by: account_desk.remove_account(
        a, s, row, by))


class RequiredIn(msgspec.Struct, forbid_unknown_fields=True):
    required: bool


@rule(DIRECTOR, WRITE)
async def club_second_factor(request: Request) -> Response:
    """The club's setting: arbiters and directors sign in with a second factor."""
    service: Service = request.app.state.service
    principal = await needs(request, DIRECTOR, write=True)
    b = await read(request, RequiredIn)
    await service.run(lambda: account_desk.require_second_factor(service.worker().store, b.required, principal.by))
    return json({"second_factor_required": b.required})


# -- one's own account --------------------------------------------------------------------------


class OwnPasswordIn(msgspec.Struct, forbid_unknown_fields=True):
    current: str
    password: str


class CodeIn(msgspec.Struct, forbid_unknown_fields=True):
    code: str


@rule(SIGNED_IN, WRITE)
async def own_password(request: Request) -> Response:
    """One's own password, the current one given: every session of the account ends,
    and this one begins again."""
    service: Service = request.app.state.service
    principal = await needs(request, SIGNED_IN, write=True)
    b = await read(request, OwnPasswordIn)
    account = principal.account
    assert account is not None

    def change() -> str:
        accounts = service.worker().accounts
        checked = accounts.check_password(account.name, b.current)
        if checked.status == "wrong":
            raise Refused("accounts", _("the current password is not this account's: nothing was changed"),
                          field="current")
        if checked.status != "ok":
            refused(checked, None)
        account_desk.change_own_password(accounts, service.worker().store, account, b.password)
        return accounts.open_session(account, principal.stage)

    signed_in(request, await service.run(change))
    return json({"changed": True, "csrf": request.session["csrf"]})


@rule(SIGNED_IN, WRITE)
async def enrol_second_factor(request: Request) -> Response:
    """A new secret for an authenticator app: its address and QR code, shown once,
    taken when a code of it confirms it (``confirm_second_factor``)."""
    from projections.drawing.qr import qr_svg

    service: Service = request.app.state.service
    principal = await needs(request, SIGNED_IN, write=True)
    await read(request, Nothing)
    account = principal.account
    assert account is not None
    secret = await service.run(lambda: service.worker().accounts.begin_enrolment(account.id))
    uri = second_factor.enrolment_uri(secret, account.name, ISSUER)
    return json({"secret": secret, "uri": uri, "qr": qr_svg(uri)}, 201)


@rule(SIGNED_IN, WRITE)
async def confirm_second_factor(request: Request) -> Response:
    service: Service = request.app.state.service
    principal = await needs(request, SIGNED_IN, write=True)
    b = await read(request, CodeIn)
    account = principal.account
    assert account is not None
    secret = request.session.get("sid")

    def confirm() -> list[str] | None:
        worker = service.worker()
        codes = account_desk.enrolled(worker.accounts, worker.store, account, b.code)
        if codes is not None and isinstance(secret, str):
            worker.accounts.promote_session(secret)
        return codes

    codes = await service.run(confirm)
    if codes is None:
        raise Refused("accounts", _("the code is not the app's code now: scan the QR code again, or wait for the "
                                    "next code"), _("the 6 digits the app shows"), field="code")
    return json({"recovery": codes})


@rule(SIGNED_IN, WRITE)
async def remove_second_factor(request: Request) -> Response:
    service: Service = request.app.state.service
    principal = await needs(request, SIGNED_IN, write=True)
    await read(request, Nothing)
    account = principal.account
    assert account is not None
    await service.run(lambda: account_desk.drop_second_factor(service.worker().accounts, service.worker().store,
                                                               account))
    return json({"second_factor": False})


def routes() -> list[Route]:
    return [
        Route("/api/session", session, methods=["GET"]),
        Route("/api/session", sign_in, methods=["POST"]),
        Route("/api/session", sign_out, methods=["DELETE"]),
        Route("/api/accounts", account_list, methods=["GET"]),
        Route("/api/accounts", new_account, methods=["POST"]),
        Route("/api/accounts/{account}/role", account_role, methods=["POST"]),
        Route("/api/accounts/{account}/password", account_password, methods=["POST"]),
        Route("/api/accounts/{account}/disable", account_disable, methods=["POST"]),
        Route("/api/accounts/{account}/enable", account_enable, methods=["POST"]),
        Route("/api/accounts/{account}", account_remove, methods=["DELETE"]),
        Route("/api/club/second-factor", club_second_factor, methods=["POST"]),
        Route("/api/account/password", own_password, methods=["POST"]),
        Route("/api/account/second-factor", enrol_second_factor, methods=["POST"]),
        Route("/api/account/second-factor/confirm", confirm_second_factor, methods=["POST"]),
        Route("/api/account/second-factor", remove_second_factor, methods=["DELETE"]),
    ]

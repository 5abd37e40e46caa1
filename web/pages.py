"""The service's pages: the table's scorer on a phone, the spectators' game and
tournament pages, the arbiter's desk, the director's, the club's rating and a player's.

Each page is a server-rendered template (``web/templates``, Jinja2, escaped by
default) whose texts go through the gettext catalogue (``language._`` in the request's
language), and a script of this service (``web/static``) that talks to the JSON API
(docs/api.md) and follows the event streams. Nothing here writes: every write is the
API's, with its checks (who may, CSRF, the write's id and version).

- No inline script or style: the content security policy (``app.CSP``) allows only
  this service's files. What a script needs — the game's name, the texts it shows in
  the page's language — is a JSON block (``<script type="application/json">``) it
  reads; a browser never runs it.
- No script from data: names and reasons reach the page as text (Jinja2 escapes
  them; the scripts set ``textContent``); a QR code is an image (a ``data:`` URL).
- A table's token stays in the address's fragment (``#token=``): never sent to a
  server, never in a referrer, never in a page the server renders.

The club's rating and a player's page are drawn on a worker thread and kept until the
store's position moves (``at_position``): asked again before anything is stored, they
cost a look-up.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jinja2
import segno
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ledger.application import Ledger
from ledger.reads.club import caught_up as brought_up_to_date
from ledger.views.archive import Views
from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from ledger.vocabulary.refusal import Refused
from projections.drawing.sheet_layout import SMALL
from web.action_texts import ACTION_TEXTS
from web.club_tls import DER_TYPE, PATH as CLUB_CERTIFICATE, fingerprint
from web.auth import ANYONE, FILE, PAGE, READ, rule
from web.offline import OFFLINE_TEXTS, routes as offline_routes
from web.reach import link_base
from web.service import Service

_ = language._  # every text a person reads, in the request's language

HERE = Path(__file__).resolve().parent
TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                               undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
TEMPLATES.globals.update(_=language._, ngettext=language.ngettext)
# A link shown as people read it (its href stays percent-encoded): a Cyrillic name as itself,
# not as three times its length of %D0%9F… that no phone's width holds [issue 31].
TEMPLATES.filters["decoded"] = unquote

# The kinds of event the arbiter's audit trail is filtered by (the log's own words, which
# the API takes) and what a person reads for each (desk.html).
AUDIT_KINDS = {
    "bid": N_("bids"), "contract": N_("contracts"), "defence": N_("defence calls"), "tricks": N_("tricks"),
    "entry": N_("entries by hand"), "correction": N_("corrections"), "objection": N_("objections"),
    "penalty": N_("penalties"), "ruling": N_("rulings"), "pencil_down": N_("pencil put down"),
    "withdrawn": N_("records withdrawn"), "annulled": N_("deals annulled"),
}
TEMPLATES.globals["audit_kinds"] = AUDIT_KINDS
# The drawn sheet's smallest text in its own units, which sheet.js draws legible in the
# hand (sheet_part.html's data-smallest): the drawing's own, not a second copy.
TEMPLATES.globals["sheet_smallest"] = SMALL

# The texts the pages' scripts show, in the page's language (the script reads them from
# the page's JSON block). ``{name}`` fields are filled by the script.
SCRIPT_TEXTS: dict[str, str] = {
    # the game as a table says it
    "raspasy": N_("raspasy"), "misere": N_("misère"), "pass": N_("pass"), "whist": N_("whist"),
    "half_whist": N_("half-whist"), "open": N_("open"), "closed": N_("closed"), "NT": N_("NT"),
    "pulya": N_("pulya"), "gora": N_("gora"), "whists": N_("whists"), "whists_on": N_("{player} whists on {on}"),
    "deals_leads": N_("deal {deal}: {dealer} deals, {leads} leads"),
    "over": N_("the pulka is over"), "abandoned": N_("the pulka was abandoned"),
    "pays": N_("{from} pays {to} {whists} whists"), "pays_money": N_("{from} pays {to} {whists} whists ({money})"),
    "nobody_pays": N_("nobody pays"), "declarer_tricks": N_("{player}: tricks"),
    "line_of": N_("{contract} by {declarer}"), "tricks_sum": N_("{sum} of {total} tricks"),
    # the phone's states
    "online": N_("online"), "offline": N_("offline: what you enter is kept on this phone and sent when the "
                                          "connection returns"),
    "live": N_("live"), "reconnecting": N_("reconnecting…"),
    "waiting": N_("waiting to be sent"), "sending": N_("sending…"), "stored": N_("stored"),
    "stored_once": N_("stored already (sent twice, kept once)"),
    "outbox": N_("Waiting to be sent ({count})"), "conflict": N_("not stored: the table changed"),
    "refused": N_("refused"), "discard": N_("discard"), "send_again": N_("enter it on the table as it is now"),
    "recorded": N_("recorded: {what}"), "undone": N_("undone"), "pencil_down": N_("{player} put down the pencil"),
    "need_token": N_("This page records with the table's link (its QR code): ask the arbiter for it, or sign in "
                     "as an arbiter."),
    "token_other_game": N_("This link is for the table {game}, not this one: nothing can be recorded here with "
                           "it."),
    "recording_as": N_("recording as {by}"), "read_only": N_("read only"),
    "choose_contract": N_("choose what was played"), "choose_declarer": N_("who played it?"),
    "choose_calls": N_("the defence's calls"), "choose_tricks": N_("the tricks"), "tricks": N_("tricks"),
    "incomplete": N_("not complete yet: {what}"), "confirm_discard": N_("Discard this entry? It was never stored."),
    "expected_players": N_("(expected: the table is not up to date while entries wait)"),
    # corrections
    "verdict_free": N_("free: still in hand, nothing charged [Code 4.2.8]"),
    "verdict_warning": N_("a warning: the recorder's first error [Code 4.2.7]"),
    "verdict_counted": N_("counted, equal for equal: the error's amount is charged [Code 4.2.7, 4.2.9]"),
    "verdict_no effect": N_("no effect: too late [Code 4.2.10]"),
    "verdict_accepted": N_("accepted"), "verdict_effective": N_("effective"),
    "preview_was": N_("was: {was}"), "preview_now": N_("would be: {now}"),
    "preview_writes": N_("it would write: {writes}"), "nothing_written": N_("nothing"),
    # the arbiter and the director
    "as_of": N_("As of event {n} of {count}: {text}"), "signed_in_as": N_("signed in as {by}"),
    "holder": N_("{name} ({role})"), "role_arbiter": N_("arbiter"), "role_scorer": N_("scorer"),
    "sign_in_first": N_("Sign in as an arbiter to use this desk."), "no_rows": N_("nothing"),
    "token_issued": N_("The table's link for {by} (shown once):"), "revoked": N_("revoked"),
    "revoke": N_("revoke"), "created": N_("created: {what}"), "done": N_("done"),
    "tour_n": N_("tour {tour}"), "table_n": N_("table {table}"), "after_tour": N_("after tour {tour}"),
    "now": N_("now"), "in_play": N_("in play"), "finished": N_("finished"), "playing": N_("playing"),
    "capped": N_("over: the deal cap (as abandoned)"),
    "not_started": N_("not started"), "deals_n": N_("{deals} deals"),
    "score_page": N_("the scorer's page"), "watch_page": N_("the spectators' page"),
    "token_not_arbiter": N_("A table's link does not open the arbiter's desk: sign in as an arbiter."),
    "director_only": N_("This desk is a director's: sign in as one."),
    "qr_app": N_("the QR code for an authenticator app"),
    "role_director": N_("director"), "disabled": N_("disabled"),
    "second_factor": N_("second factor"), "make_arbiter": N_("make arbiter"), "make_director": N_("make director"),
    "disable": N_("disable"), "enable": N_("enable"), "remove": N_("remove"),
    "reset_password": N_("reset the password"),
    "new_password_for": N_("A new password for {name} (12 characters at least):"),
    "confirm_remove": N_("Remove the account {name}? Its sessions end; a name made again is a new account."),
    "password_reset_done": N_("The password of {name} is reset; its sessions have ended."),
    "error": N_("error: {message}"), "network": N_("the service cannot be reached; try again"),
}
SCRIPT_TEXTS.update(ACTION_TEXTS)  # the table's actions on the scorer's page


def script_texts() -> dict[str, str]:
    return {key: _(text) for key, text in {**SCRIPT_TEXTS, **OFFLINE_TEXTS}.items()}


def named(name: str, field: str) -> str:
    """A game's or a tournament's name from a page's address: no stream has a longer one
    (``admission.GAME_MAX``), and its link must fit a QR code."""
    from ledger.judge.admission import GAME_MAX

    if len(name) > GAME_MAX:
        raise Refused("api", _("no game or tournament has a name of {n} characters").format(n=len(name)),
                      _("at most {limit} characters").format(limit=GAME_MAX), field=field)
    return name


def qr_data_uri(text: str) -> str:
    """A QR code of ``text`` as an image address (``data:``): an image runs no script."""
    uri: str = segno.make(text, error="m").svg_data_uri(scale=4, border=2)
    return uri


def base_url(request: Request) -> str:
    """The start of a page's links and QR codes (``reach.link_base``)."""
    return link_base(request.app.state.public_url, request.app.state.network_url, str(request.base_url))


def page(request: Request, template: str, title: str, script: str | None, data: dict[str, Any],
         status: int = 200, **values: Any) -> HTMLResponse:
    """A page in the request's language: the template with its values, and the JSON block
    its script reads (the texts it shows, its data)."""
    lang = language.language()
    explicit = request.query_params.get("lang")
    suffix = f"?lang={lang}" if explicit else ""
    block = {"lang": lang, "lang_suffix": suffix, "texts": script_texts(), **data}
    here = quote(request.url.path, safe="/")
    html = TEMPLATES.get_template(template).render(
        title=title, lang=lang, script=script, data=block, suffix=suffix, path=here,
        other_lang="en" if lang == "ru" else "ru", **values)
    return HTMLResponse(html, status)


def quoted(name: str) -> str:
    return quote(name, safe="/")


# -- the pages ----------------------------------------------------------------------------------


@rule(ANYONE, PAGE)
async def index(request: Request) -> Response:
    """The club's front page: its games and tournaments, each with its link."""
    service: Service = request.app.state.service

    def names() -> tuple[list[str], list[str]]:
        from ledger.judge.kinds import GAME_STARTS
        from ledger.vocabulary.tournament_events import TournamentStarted

        store = service.worker().store
        return store.games(GAME_STARTS), store.games(TournamentStarted)

    games, tournaments = await service.run(names)
    return page(request, "index.html", _("pulka: the club"), None, {},
                games=[(g, quoted(g)) for g in games], tournaments=[(t, quoted(t)) for t in tournaments])


@rule(ANYONE, PAGE)
async def score(request: Request) -> Response:
    """The table's scorer: the sheet live, who deals and leads, a deal entered by touch,
    undo, a correction previewed, the pencil, an outbox that outlives the network."""
    game = named(request.path_params["game"], "game")
    watch = f"{base_url(request)}/watch/{quoted(game)}"
    return page(request, "score.html", _("{game}: the scorer").format(game=game), "score.js",
                {"game": game, "watch": watch, "table": table_of(game)}, game=game, watch=watch, qr=qr_data_uri(watch))


def table_of(game: str) -> dict[str, Any] | None:
    """The tournament and tour of a tournament's table (``T/R/K``), for its page to ask
    whether the table is over at the tournament's deal cap: the game's own document does
    not know the cap (web/static/sheet.js)."""
    from ledger.vocabulary.tournament_events import parse_table_game

    parsed = parse_table_game(game)
    return None if parsed is None else {"tournament": parsed[0], "tour": parsed[1]}


@rule(ANYONE, PAGE)
async def watch(request: Request) -> Response:
    """A game for everyone: the sheet, the settlement, who pays whom, the deals, live."""
    service: Service = request.app.state.service
    game = named(request.path_params["game"], "game")
    link = f"{base_url(request)}/watch/{quoted(game)}"
    checkpoint = await service.run(covering_checkpoint, service, game)
    return page(request, "watch.html", _("{game}: the sheet").format(game=game), "watch.js",
                {"game": game, "table": table_of(game)},
                game=game, link=link, qr=qr_data_uri(link), checkpoint=checkpoint)


def covering_checkpoint(service: Service, game: str) -> dict[str, Any] | None:
    """The club log's signed checkpoint that covers the game as it stands, when one
    does (issue 22): its caption and note, as the report shows them."""
    from ledger.proofs.checkpoints import Attestations

    store = service.worker().store
    count = store.count(game)
    attestations = Attestations(store)
    if not count or not attestations.checkpoints():
        return None
    history: dict[str, Any] = attestations.history(game, count)
    if not history.get("note"):
        return None
    return {"caption": history["caption"], "note": history["note"], "qr": qr_data_uri(history["note"])}


@rule(ANYONE, PAGE)
async def live_tournament(request: Request) -> Response:
    """A tournament for everyone: the standings tour by tour, each table's state, live."""
    name = named(request.path_params["tournament"], "tournament")
    link = f"{base_url(request)}/tournament/{quote(name, safe='')}"
    return page(request, "tournament.html", _("tournament {name}").format(name=name), "tournament.js",
                {"tournament": name}, tournament=name, link=link, qr=qr_data_uri(link))


@rule(ANYONE, READ)
async def tournament_report(request: Request) -> Response:
    """The tournament's report, the file ``pulka tournament report`` writes: a download
    (it is a page of its own, with its own script, opened from the disk)."""
    service: Service = request.app.state.service
    name = request.path_params["tournament"]

    def made() -> str:
        from ledger.reads.tournament_report import report_html

        return report_html(service.worker().ledger, name, service_caught_up)

    html = await service.run(made)
    # A header is Latin-1: the plain name keeps only ASCII letters (a Cyrillic name made
    # the header, and the answer, fail), the name itself goes as RFC 6266's filename*.
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_" for ch in name)
    return Response(html, media_type="text/html; charset=utf-8", headers={
        "content-disposition": f"attachment; filename=\"tournament-{safe}.html\"; "
                               f"filename*=UTF-8''{quote('tournament-' + name + '.html', safe='')}",
        "content-security-policy": "default-src 'none'; sandbox"})


@rule(ANYONE, PAGE)
async def sign_in_form(request: Request) -> Response:
    return page(request, "signin.html", _("Sign in"), "signin.js", {"next": safe_next(request)})


# A path of this service: one slash, then the characters of a path and a query string,
# none that a browser drops or reads as a slash (a tab, a line feed, a backslash) and so
# none that could make ``//host`` of it.
SAFE_PATH = re.compile(r"/(?![/\\])[A-Za-z0-9/_.~%!$&'()*+,;=:@?-]*")


def safe_next(request: Request) -> str:
    """Where to go after signing in: a path of this service, never another site."""
    wanted = request.query_params.get("next", "/arbiter")
    return wanted if SAFE_PATH.fullmatch(wanted) else "/arbiter"


@rule(ANYONE, PAGE)
async def arbiter(request: Request) -> Response:
    return page(request, "arbiter.html", _("The arbiter's desk"), "arbiter.js", {})


@rule(ANYONE, PAGE)
async def arbiter_game(request: Request) -> Response:
    """The arbiter's desk at one table: the audit trail with its filters, the sheet as
    of any event, explain, diff, rulings and penalties, the table's tokens."""
    game = named(request.path_params["game"], "game")
    watch = f"{base_url(request)}/watch/{quoted(game)}"  # its QR code beside the scorer's, for the table
    club = club_certificate(request)
    return page(request, "desk.html", _("{game}: the arbiter's desk").format(game=game), "desk.js",
                {"game": game}, game=game, watch=watch, qr=qr_data_uri(watch), club=club)


def club_certificate(request: Request) -> dict[str, str] | None:
    """The club CA's certificate beside a table's codes (``--club-tls``): its page's
    link, that link's QR code and the certificate's fingerprint; else None."""
    der = request.app.state.club_ca
    if der is None:
        return None
    link = base_url(request) + CLUB_CERTIFICATE
    return {"link": link, "qr": qr_data_uri(link), "fingerprint": fingerprint(der)}


@rule(ANYONE, PAGE)
async def account_page(request: Request) -> Response:
    """One's own account: the password, the second factor."""
    return page(request, "account.html", _("Your account"), "account.js", {})


@rule(ANYONE, PAGE)
async def director(request: Request) -> Response:
    return page(request, "director.html", _("The director"), "director.js", {})


@rule(ANYONE, PAGE)
async def director_tournament(request: Request) -> Response:
    name = request.path_params["tournament"]
    return page(request, "direct.html", _("tournament {name}: the director").format(name=name), "direct.js",
                {"tournament": name}, tournament=name)


NO_CLUB_CA = N_("this service has no club certificate (it runs without --club-tls)")


@rule(ANYONE, FILE)
async def club_certificate_file(request: Request) -> Response:
    """``/club-certificate.crt``: the club CA's certificate (DER, never its key), for a
    phone to install (``web.club_tls``)."""
    der = request.app.state.club_ca
    if der is None:
        return PlainTextResponse(_(NO_CLUB_CA), 404)
    return Response(der, media_type=DER_TYPE, headers={"content-disposition": 'attachment; filename="pulka-club-ca.crt"'})


@rule(ANYONE, PAGE)
async def club_certificate_page(request: Request) -> Response:
    """``/club-certificate``: how to install the club's certificate on a phone, once, and
    its fingerprint to check it by."""
    der = request.app.state.club_ca
    if der is None:
        return PlainTextResponse(_(NO_CLUB_CA), 404)
    return page(request, "club_certificate.html", _("The club's certificate"), None, {},
                fingerprint=fingerprint(der), file=CLUB_CERTIFICATE + ".crt")


# -- the club's numbers (issue 23) ----------------------------------------------------------------


def say_in_service_log(kind: str, text: str) -> None:
    """What catching up the archive's views says (a note, a warning): on the service's
    standard error, as ``pulka`` says it."""
    print(f"pulka: {kind}: {text}", file=sys.stderr, flush=True)


@contextmanager
def service_caught_up(ledger: Ledger) -> Iterator[Views]:
    """The archive's views brought up to the store's last event (``ledger.reads.club``)."""
    with brought_up_to_date(ledger, say_in_service_log) as views:
        yield views


def club_doc(service: Service) -> tuple[dict[str, Any], dict[str, str]]:
    """The rating table (``pulka rating --json``) and each player's sparkline."""
    from ledger.reads.club import club_rating
    from projections import rating as model
    from projections.drawing.player import sparkline

    ledger = service.worker().ledger
    with service_caught_up(ledger) as views:
        rated = club_rating(views)
    table: dict[str, Any] = model.table_doc(rated.table(), _("the whole archive"), rated.model)
    sparks = {p["player"]: sparkline(p["trend"], _("rating of {player}").format(player=p["player"]))
              for p in table["players"]}
    return table, sparks


def at_position(service: Service, request: Request, render: Callable[[], Response]) -> Response:
    """A page of the archive (``render``, on a worker thread) as the store stands at its
    last position (``Store.last_change``), made once per position, address and language
    while it is among the service's cached documents (``Service.cached``): a page asked
    again before anything is stored costs a look-up."""
    position = service.worker().store.last_change()
    asked = request.url.path, bool(request.query_params.get("lang"))  # what ``page`` reads of the request
    body, status = service.cached(("archive page", position, *asked), lambda: _kept(render()))
    return HTMLResponse(body, status)


def _kept(response: Response) -> tuple[bytes, int]:
    return bytes(response.body), response.status_code


@rule(ANYONE, PAGE)
async def club(request: Request) -> Response:
    service: Service = request.app.state.service

    def render() -> Response:
        table, sparks = club_doc(service)
        return page(request, "club.html", _("The club's rating"), None, {}, table=table, sparks=sparks,
                    quoted=lambda n: quote(n, safe=""))

    return await service.run(at_position, service, request, render)


def _player_found(service: Service, name: str, rated: bool = False) -> tuple[Any, Any]:
    """A player's statistics as the archive's views keep them (None: no pulka of his): with
    ``rated``, his numbers' totals alone (``player_totals``) and the club's rating
    (``club_rating``); else every number with the deals behind it; from one look at the views."""
    from ledger.reads.club import club_rating, player_statistics, player_totals
    from projections.archive import select_pulkas

    ledger = service.worker().ledger
    with service_caught_up(ledger) as views:
        rows, aliases = views.rows(), views.aliases()
        if not rated:
            return player_statistics(ledger, views, select_pulkas(rows, None, None, None), aliases, name), None
        rating = club_rating(views, read=(rows, aliases))
        found = player_totals(ledger, views, select_pulkas(rows, None, None, None), aliases, name, rating.who)
        return found, (rating if found is not None else None)


def player_doc(service: Service, name: str) -> dict[str, Any] | None:
    """A player's rating pulka by pulka, each move explained, and his statistics, every
    number a link to the deals behind it (``number_doc``: a page of its own, so that the
    player's page carries the counts and not the tens of thousands of deals behind them),
    each linked to its game's sheet."""
    from projections import rating as model
    from projections.drawing.player import bar_chart, line_chart, moves_hint, moves_rows, whists_text
    from projections.stat_names import number_name
    from projections.stats import stats_doc

    found, rated = _player_found(service, name, rated=True)
    if found is None:
        return None
    told = _("the whole archive")
    history = model.rating_history(rated.changes, rated.who, name)
    stats = stats_doc(found, told)
    charts, moves, hint = [], None, None
    if history is not None:
        doc = model.rating_history_doc(history, told, rated.model)
        charts.append(line_chart([(m["game"], m["rating"]) for m in doc["matches"]], _("rating after each pulka")))
        moves, hint = moves_rows(doc, lambda game: f"/watch/{quote(game, safe='/')}"), moves_hint(doc)
    pulkas = [(p["game"], p["whists"]) for p in stats["pulkas"]]
    if pulkas:
        charts.append(bar_chart(pulkas, _("result of each pulka, whists")))
    player = quote(name, safe="")
    numbers = [{"name": k, "title": number_name(k), "count": n["count"], "whists": whists_text(n.get("whists")),
                "link": f"/club/player/{player}/number/{quote(k, safe='')}" if found.numbers[k].count else None}
               for k, n in stats["numbers"].items()]
    return {"player": found.player, "charts": charts, "numbers": numbers, "moves": moves, "hint": hint,
            "pulkas": [{**p, "quoted": quote(p["game"], safe="/")} for p in stats["pulkas"]]}


def number_doc(service: Service, name: str, number: str) -> dict[str, Any] | None:
    """The deals behind one of a player's numbers (``pulka stats NAME NUMBER --deals``),
    each linked to its game's sheet; None when the player or the number is not known."""
    from ledger.vocabulary.wording import spoken_text
    from projections.drawing.player import whists_text
    from projections.stat_names import number_name
    from projections.stats import refs_doc

    found, _rated = _player_found(service, name)
    if found is None or number not in found.numbers:
        return None
    doc = refs_doc(found, number, found.numbers[number])
    return {**doc, "title": number_name(number), "whists": whists_text(doc.get("whists")),
            "deals": [{**d, "whists": whists_text(d.get("whists")), "text": spoken_text(d["text"]),
                       "quoted": quote(d["game"], safe="/")} for d in doc["deals"]]}


@rule(ANYONE, PAGE)
async def club_player(request: Request) -> Response:
    service: Service = request.app.state.service
    name = request.path_params["name"]

    def render() -> Response:
        doc = player_doc(service, name)
        if doc is None:
            return page(request, "player.html", name, None, {}, doc=None, name=name, status=404)
        return page(request, "player.html", name, None, {}, doc=doc, name=name, quoted=quote(name, safe=""))

    return await service.run(at_position, service, request, render)


@rule(ANYONE, PAGE)
async def club_player_number(request: Request) -> Response:
    """The deals behind one number of a player's statistics, each linked to its sheet."""
    service: Service = request.app.state.service
    name, number = request.path_params["name"], request.path_params["number"]

    def render() -> Response:
        doc = number_doc(service, name, number)
        from projections.stat_names import number_name

        title = f"{name}: {number_name(number)}"
        return page(request, "player_number.html", title, None, {}, doc=doc, name=name, number=number,
                    quoted=quote(name, safe=""), status=200 if doc is not None else 404)

    return await service.run(at_position, service, request, render)


PICTURE_STYLES = ("player.css", "sheet.css")  # the looks of projections/drawing that the pages share


@rule(ANYONE, FILE)
async def picture_style(request: Request) -> Response:
    """A style sheet of ``projections/drawing`` (the charts' look, shared with ``pulka stats --html``)."""
    from projections.drawing.page import resource

    name = request.path_params["name"]
    if name not in PICTURE_STYLES:
        return Response("", 404)
    return Response(resource(name), media_type="text/css")


def routes() -> list[BaseRoute]:
    return [
        Route("/", index, methods=["GET"]),
        Route("/score/{game:path}", score, methods=["GET"]),
        Route("/watch/{game:path}", watch, methods=["GET"]),
        Route("/tournament/{tournament}/report", tournament_report, methods=["GET"]),
        Route("/tournament/{tournament}", live_tournament, methods=["GET"]),
        Route("/signin", sign_in_form, methods=["GET"]),
        Route("/arbiter", arbiter, methods=["GET"]),
        Route("/arbiter/game/{game:path}", arbiter_game, methods=["GET"]),
        Route("/account", account_page, methods=["GET"]),
        Route("/director", director, methods=["GET"]),
        Route("/director/{tournament}", director_tournament, methods=["GET"]),
        Route(CLUB_CERTIFICATE, club_certificate_page, methods=["GET"]),
        Route(CLUB_CERTIFICATE + ".crt", club_certificate_file, methods=["GET"]),
        Route("/club", club, methods=["GET"]),
        Route("/club/player/{name}/number/{number}", club_player_number, methods=["GET"]),
        Route("/club/player/{name}", club_player, methods=["GET"]),
        *offline_routes(),  # the scorer's page as an offline app: /sw.js, /manifest.webmanifest
        Route("/static/picture/{name}", picture_style, methods=["GET"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]

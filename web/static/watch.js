// A game for everyone: the drawn sheet, the settlement, who pays whom and the deals,
// kept up to date by the game's event stream (no reload). Shows what the service
// computed; computes nothing.
(function () {
  "use strict";
  var P = pulka, t = P.t, $ = P.byId;
  var game = P.data.game;
  var base = "/api/games/" + P.path(game);
  var version = -1;
  var held = null;  // the game as last shown: a message may carry only what changed since

  function show(given) {
    var state = P.applyDelta(held, given, base, show);
    if (state === null || state.version <= version) return;
    held = state;
    version = state.version;
    document.body.setAttribute("data-version", String(version));
    $("who").textContent = P.whoDeals(state);
    $("status").textContent = t(state.status);
    if (state.kind !== "pulka") return;
    $("sheet").src = P.withLang(base + "/sheet.svg?v=" + version);  // the drawn sheet in the page's language
    $("sheet").setAttribute("data-version", String(version));
    var s = state.settlement;
    document.querySelectorAll("#settlement-head .money").forEach(function (th) { th.hidden = !s.money; });
    P.fill($("settlement-rows"), P.settlementRows(s));
    P.fill($("transfers"), P.transferItems(s));
    P.fill($("deals"), (state.deals || []).slice().reverse().map(P.dealItem));
  }

  function net(yes) {
    $("net").textContent = yes ? t("live") : t("reconnecting");
    $("net").className = "net " + (yes ? "on" : "off");
  }

  P.follow(base + "/events?deltas=1", function (message) { if (message.state) show(message.state); }, net);
}());

// A tournament for everyone: the standings tour by tour and each table's state, kept up
// to date by the tournament's event stream (a table's deal, a tour closed) without a
// reload. The standings are the service's (pulka tournament standings); nothing is
// computed here.
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId;
  var name = P.data.tournament;
  var base = "/api/tournaments/" + encodeURIComponent(name);
  var chosen = null;   // a closed tour whose standings are shown; null: now
  var latest = null;   // the tournament now
  var asking = 0;

  function showStandings(doc) {
    $("as-of").textContent = chosen === null ? t("now") : t("after_tour", { tour: chosen });
    P.fill($("standings-rows"), P.standingsRows(doc.standings));
  }

  function showTables(doc) {
    $("state").textContent = doc.over ? t("finished") : t("tour_n", { tour: Math.max(1, doc.closed.length + 1) });
    P.fill($("table-rows"), P.tableRows(doc, "/watch/"));
    var tabs = [null].concat(doc.closed.slice());
    P.fill($("tours"), tabs.map(function (tour) {
      return el("button", { type: "button", role: "tab", class: "tab" + (tour === chosen ? " chosen" : ""),
                            "aria-selected": tour === chosen ? "true" : "false", "data-tour": tour === null ? "" : String(tour),
                            text: tour === null ? t("now") : t("after_tour", { tour: tour }),
                            on: { click: function () { chosen = tour; refresh(); } } });
    }));
  }

  // The tournament again (a message says only that it changed); the latest answer wins.
  function refresh() {
    var mine = ++asking;
    function again() { if (mine === asking) refresh(); }
    P.api("GET", base).then(function (r) {
      if (mine !== asking || P.later(r, again) || r.status !== 200) return;
      latest = r.doc;
      document.body.setAttribute("data-version", String(latest.version));
      showTables(latest);
      if (chosen === null) {
        showStandings(latest);
        return;
      }
      P.api("GET", base + "?tour=" + chosen).then(function (r2) {
        if (mine === asking && !P.later(r2, again) && r2.status === 200) showStandings(r2.doc);
      });
    });
  }

  function net(yes) {
    $("net").textContent = yes ? t("live") : t("reconnecting");
    $("net").className = "net " + (yes ? "on" : "off");
  }

  P.follow(base + "/events", function () { refresh(); }, net);
}());

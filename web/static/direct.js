// The director at one tournament: seat a tour (by lot, Swiss after the first), start
// its tables, close it, show a yellow card; the tables and the standings follow the
// tournament's event stream. The same commands as pulka tournament, through the API.
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId;
  var name = P.data.tournament;
  var base = "/api/tournaments/" + encodeURIComponent(name);
  var asking = 0;
  var touched = false;  // the director chose the tour himself

  // The tour the director is at: the last seated, or the next once it is closed.
  function current(doc) {
    var seated = doc.tables.reduce(function (m, x) { return Math.max(m, x.tour); }, 0);
    if (seated === 0) return 1;
    return doc.closed.indexOf(seated) >= 0 ? seated + 1 : seated;
  }

  function refresh() {
    var mine = ++asking;
    P.api("GET", base).then(function (r) {
      if (mine !== asking || r.status !== 200) return;
      var doc = r.doc;
      document.body.setAttribute("data-version", String(doc.version));
      $("state").textContent = doc.over ? t("finished") : t("tour_n", { tour: current(doc) });
      if (!touched) $("tour").value = String(current(doc));
      P.fill($("table-rows"), P.tableRows(doc, "/arbiter/game/"));
      P.fill($("standings-rows"), P.standingsRows(doc.standings));
      var kept = $("card-player").value;
      P.fill($("card-player"), doc.standings.standings.map(function (x) {
        return el("option", { value: x.player, text: x.player, selected: x.player === kept });
      }));
    });
  }

  function tourCommand(what, body) {
    var tour = Number($("tour").value);
    P.once($("tour-form"), base + "/tours/" + tour + "/" + what, body).then(function (r) {
      if (r.status === 201 || r.status === 200) {
        touched = false;
        $("tour-done").textContent = t("done") + ": " + t("tour_n", { tour: tour });
        $("tour-done").hidden = false;
        refresh();
      }
    });
  }

  $("tour").addEventListener("input", function () { touched = true; });
  $("seat").addEventListener("click", function () {
    var body = { auto: true };
    if ($("seed").value.trim()) body.seed = $("seed").value.trim();
    tourCommand("seat", body);
  });
  $("start").addEventListener("click", function () { tourCommand("start", {}); });
  $("close").addEventListener("click", function () { tourCommand("close", {}); });
  $("card-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var body = { player: $("card-player").value, reason: $("card-reason").value.trim() };
    P.once($("card-form"), base + "/cards", body).then(function (r) {
      if (r.status === 201 || r.status === 200) {
        $("card-done").textContent = t("done") + ": " + body.player;
        $("card-done").hidden = false;
        $("card-reason").value = "";
        refresh();
      }
    });
  });

  function net(yes) {
    $("net").textContent = yes ? t("live") : t("reconnecting");
    $("net").className = "net " + (yes ? "on" : "off");
  }

  P.desk().then(function (who) {
    if (!who || who.role !== "director") {
      P.denied($("access"), who ? { refused: { message: t("director_only") } } : null);
      if (!who) $("sign-in-link").hidden = false;
      return;
    }
    $("desk").hidden = false;
    P.follow(base + "/events", function () { refresh(); }, net);
  });
}());

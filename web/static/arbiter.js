// The arbiter's front desk: every game with its desk, its scorer's page and its
// spectators' page, and a new game. Signed in only (the service refuses the rest).
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId;

  function games() {
    P.api("GET", "/api/games").then(function (r) {
      if (r.status !== 200) return;
      P.fill($("game-rows"), r.doc.games.map(function (g) {
        var p = P.path(g.game);
        return el("tr", { "data-game": g.game }, [
          el("td", {}, [el("a", { href: P.link("/arbiter/game/" + p), class: "desk-link", text: g.game })]),
          el("td", { class: "num", text: String(g.version) }),
          el("td", {}, [el("a", { href: P.link("/score/" + p), text: t("score_page") }), " · ",
                        el("a", { href: P.link("/watch/" + p), text: t("watch_page") })])
        ]);
      }));
    });
  }

  $("new-game").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var form = $("new-game");
    var body = { game: $("g-name").value.trim(), players: $("g-players").value.split(",").map(function (x) {
      return x.trim(); }).filter(function (x) { return x; }), convention: $("g-convention").value,
      pulya: Number($("g-pulya").value) };
    if ($("g-stake").value.trim()) body.stake = $("g-stake").value.trim();
    if ($("g-dealer").value.trim()) body.first_dealer = $("g-dealer").value.trim();
    P.once(form, "/api/games", body).then(function (r) {
      if (r.status === 201 || r.status === 200) {
        var done = $("g-done");
        done.textContent = t("created", { what: body.game });
        done.hidden = false;
        form.reset();
        games();
      }
    });
  });

  P.desk().then(function (who) {
    if (who && who.role !== "scorer") {
      $("desk").hidden = false;
      games();
    } else if (who) {
      P.denied($("access"), { refused: { message: t("token_not_arbiter") } });
    } else {
      P.denied($("access"), null);
      $("sign-in-link").hidden = false;
    }
  });
}());

// The director's front desk: the tournaments, a new one, a new account. Each write is
// the API's (the same commands as pulka tournament), stored once.
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId;

  function list() {
    P.api("GET", "/api/tournaments").then(function (r) {
      if (r.status !== 200) return;
      P.fill($("tournaments"), r.doc.tournaments.map(function (name) {
        return el("li", { "data-tournament": name }, [
          el("a", { href: P.link("/director/" + encodeURIComponent(name)), text: name }), " · ",
          el("a", { href: P.link("/tournament/" + encodeURIComponent(name)), text: t("watch_page") })]);
      }));
    });
  }

  function number(id) { var v = $(id).value.trim(); return v ? Number(v) : undefined; }

  $("new-tournament").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var body = { name: $("n-name").value.trim(), players: $("n-players").value.split(/[\n,]+/).map(function (x) {
      return x.trim(); }).filter(function (x) { return x; }), pulya: Number($("n-pulya").value),
      convention: $("n-convention").value, table_size: Number($("n-size").value) };
    if (number("n-tours") !== undefined) body.tours = number("n-tours");
    if (number("n-cap") !== undefined) body.deal_cap = number("n-cap");
    P.once($("new-tournament"), "/api/tournaments", body).then(function (r) {
      if (r.status === 201 || r.status === 200) {
        location.assign(P.link("/director/" + encodeURIComponent(body.name)));
      }
    });
  });

  $("new-account").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var form = $("new-account");
    var body = { name: $("a-name").value.trim(), password: $("a-password").value, role: $("a-role").value };
    P.clearErrors(form);
    P.api("POST", "/api/accounts", body).then(function (r) {
      if (r.status !== 201) { P.refusal(form, r.doc); return; }
      $("a-done").textContent = t("created", { what: r.doc.account.name + " (" + r.doc.account.role + ")" });
      $("a-done").hidden = false;
      form.reset();
    });
  });

  P.desk().then(function (who) {
    if (who && who.role === "director") {
      $("desk").hidden = false;
      list();
    } else {
      P.denied($("access"), who ? { refused: { message: t("director_only") } } : null);
      if (!who) $("sign-in-link").hidden = false;
    }
  });
}());

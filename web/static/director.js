// The director's front desk: the tournaments, a new one; the accounts (made, their role
// changed, their password reset, disabled, enabled, removed), the club's setting of a
// second factor, and the log of every change of an account. Each write is the API's
// (the same commands as pulka tournament and pulka serve account), stored once.
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
      accounts();
    });
  });

  // A change of an account (its id): its answer said, the list and the log read again.
  function change(url, method, body, told) {
    var form = $("account-actions");
    P.clearErrors(form);
    $("acc-done").hidden = true;
    P.api(method, url, body).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      if (told) { $("acc-done").textContent = told; $("acc-done").hidden = false; }
      accounts();
    }, function () { P.refusal(form, null); });
  }

  function accountRow(a) {
    var base = "/api/accounts/" + encodeURIComponent(a.id);
    var marks = [t("role_" + a.role)];
    if (a.disabled) marks.push(t("disabled"));
    if (a.second_factor) marks.push(t("second_factor"));
    var other = a.role === "director" ? "arbiter" : "director";
    return el("tr", { "data-account": a.name }, [
      el("td", { text: a.name }), el("td", { class: "marks", text: marks.join(", ") }),
      el("td", { class: "actions" }, [
        el("button", { type: "button", class: "role", text: t("make_" + other),
                       on: { click: function () { change(base + "/role", "POST", { role: other }); } } }), " ",
        el("button", { type: "button", class: "reset", text: t("reset_password"), on: { click: function () {
          var password = prompt(t("new_password_for", { name: a.name }));
          if (password) change(base + "/password", "POST", { password: password },
                               t("password_reset_done", { name: a.name }));
        } } }), " ",
        el("button", { type: "button", class: a.disabled ? "enable" : "disable", text: t(a.disabled ? "enable" :
          "disable"), on: { click: function () { change(base + (a.disabled ? "/enable" : "/disable"), "POST", {}); } }
        }), " ",
        el("button", { type: "button", class: "remove", text: t("remove"), on: { click: function () {
          if (confirm(t("confirm_remove", { name: a.name }))) change(base, "DELETE", {});
        } } })
      ])
    ]);
  }

  function logItem(e) {
    var what = e.type === "second_factor_required" ? e.type + " " + e.required :
      [e.type, e.name, e.change, e.role].filter(function (x) { return x; }).join(" ");
    return el("li", { "data-number": String(e.number) }, [
      el("span", { class: "meta", text: (e.at || "").replace("T", " ").slice(0, 16) + " " + P.byText(e.by) + " " }),
      el("span", { text: what })]);
  }

  function accounts() {
    P.api("GET", "/api/accounts").then(function (r) {
      if (r.status !== 200) return;
      P.fill($("accounts").querySelector("tbody"), r.doc.accounts.map(accountRow));
      P.fill($("account-log"), r.doc.log.map(logItem));
      $("require-second-factor").checked = r.doc.second_factor_required;
    });
  }

  $("require-second-factor").addEventListener("change", function () {
    var form = $("club-setting");
    P.clearErrors(form);
    P.api("POST", "/api/club/second-factor", { required: $("require-second-factor").checked }).then(function (r) {
      if (r.status !== 200) P.refusal(form, r.doc);
      accounts();
    });
  });

  P.desk().then(function (who) {
    if (who && who.role === "director") {
      $("desk").hidden = false;
      list();
      accounts();
    } else {
      P.denied($("access"), who ? { refused: { message: t("director_only") } } : null);
      if (!who) $("sign-in-link").hidden = false;
    }
  });
}());

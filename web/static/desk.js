// The arbiter's desk at one table: the sheet and the settlement as of any event (the
// slider), the audit trail with its filters, explain, diff, rulings and penalties, and
// the table's links (issued with a QR code, revoked). Everything shown is the
// service's (pulka log, explain, diff, sheet, settle); a write is stored once and only
// on the table as the desk last saw it (its version).
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId;
  var game = P.data.game;
  var base = "/api/games/" + P.path(game);
  var state = null;
  var events = [];      // the whole trail (for "as of")
  var at = null;        // the event the slider is on; null: the last, following the game
  var asking = 0;

  function cellOf(c) {
    return c.on ? t("whists_on", { player: c.player, on: c.on }) : c.player + " " + t(c.column);
  }

  function changesText(changes) {
    return (changes || []).map(function (c) {
      return cellOf(c) + " " + (c.amount > 0 ? "+" : "") + c.amount;
    }).join(", ");
  }

  function verdictCell(e) {
    if (e.effective === undefined) return el("td", { text: "" });
    return el("td", { class: e.effective ? "verdict-yes" : "verdict-no",
                      text: (e.effective ? t("verdict_effective") : t("verdict_no effect")) + " [" + e.rule + "]: " + e.reason });
  }

  // -- as of an event -----------------------------------------------------------------

  function showAt(n) {
    var count = state.version;
    n = Math.max(1, Math.min(count, n));
    at = n === count ? null : n;
    var slider = $("slider");
    slider.max = String(count);
    slider.value = String(n);
    var e = events[n - 1];
    $("as-of").textContent = t("as_of", { n: n, count: count, text: e ? e.text : "" });
    document.body.setAttribute("data-at", String(n));
    pulkaSheet.draw(base, count, n);
    var mine = ++asking;
    P.api("GET", base + "/settlement?at=" + n).then(function (r) {
      if (mine !== asking || r.status !== 200) return;
      var s = r.doc;
      document.querySelectorAll("#settlement-table .money").forEach(function (th) { th.hidden = !s.money; });
      P.fill($("settlement-rows"), P.settlementRows(s));
      P.fill($("transfers"), P.transferItems(s));
    });
    document.querySelectorAll("#audit-rows tr[data-event]").forEach(function (tr) {
      var k = Number(tr.getAttribute("data-event"));
      tr.classList.toggle("future", k > n);
      tr.classList.toggle("current", k === n);
    });
  }

  function setState(given) {
    var doc = P.applyDelta(state, given, base, setState);
    if (doc === null) return;  // from a version this desk does not hold: the whole game is asked for
    if (state !== null && doc.version <= state.version) return;
    state = doc;
    document.body.setAttribute("data-version", String(doc.version));
    var players = doc.players || [];
    ["p-player"].forEach(function (id) {
      var kept = $(id).value;
      P.fill($(id), players.map(function (p) { return el("option", { value: p, text: p, selected: p === kept }); }));
    });
    var wronged = $("p-wronged").value;
    P.fill($("p-wronged"), [el("option", { value: "", text: "—" })].concat(players.map(function (p) {
      return el("option", { value: p, text: p, selected: p === wronged });
    })));
    var cell = $("explain-cell").value;
    var cells = [];
    players.forEach(function (p) {
      cells.push([p + ".pulya", p + " " + t("pulya")], [p + ".gora", p + " " + t("gora")]);
      players.forEach(function (q) { if (q !== p) cells.push([p + ".whists." + q, t("whists_on", { player: p, on: q })]); });
    });
    P.fill($("explain-cell"), cells.map(function (c) {
      return el("option", { value: c[0], text: c[1], selected: c[0] === cell });
    }));
    P.api("GET", base + "/log").then(function (r) {
      if (r.status !== 200) return;
      events = r.doc.events;
      showAt(at === null ? state.version : at);
      audit();
    });
  }

  // -- the audit trail, explain, diff ------------------------------------------------

  function audit() {
    var form = $("filters");
    var q = [];
    if ($("f-deal").value) q.push("only_deal=" + encodeURIComponent($("f-deal").value));
    if ($("f-by").value.trim()) q.push("by=" + encodeURIComponent($("f-by").value.trim()));
    if ($("f-type").value) q.push("type=" + encodeURIComponent($("f-type").value));
    if ($("f-verdicts").checked) q.push("verdicts=1");
    if ($("f-since").value.trim()) q.push("since=" + encodeURIComponent($("f-since").value.trim()));
    if ($("f-until").value.trim()) q.push("until=" + encodeURIComponent($("f-until").value.trim()));
    P.clearErrors(form);
    P.api("GET", base + "/log" + (q.length ? "?" + q.join("&") : "")).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      var n = at === null ? state.version : at;
      P.fill($("audit-rows"), r.doc.events.map(function (e) {
        var tr = el("tr", { "data-event": String(e.number), class: e.number > n ? "future" : e.number === n ? "current" : "" }, [
          el("td", { class: "num", text: String(e.number) }), el("td", { text: (e.at || "").slice(0, 19).replace("T", " ") }),
          el("td", { text: e.deal === null || e.deal === undefined ? "" : String(e.deal) }), el("td", { text: P.byText(e.by) }),
          el("td", { text: e.text + (e.note ? " (" + e.note + ")" : "") }), el("td", { text: changesText(e.changes) }),
          verdictCell(e)
        ]);
        tr.addEventListener("click", function () { showAt(e.number); });
        return tr;
      }));
      if (!r.doc.events.length) P.fill($("audit-rows"), [el("tr", {}, [el("td", { colspan: "7", text: t("no_rows") })])]);
    });
  }

  function explain(ev) {
    ev.preventDefault();
    var form = $("explain-form");
    P.clearErrors(form);
    var cell = $("explain-cell").value;
    var n = at === null ? state.version : at;
    P.api("GET", base + "/explain?cell=" + encodeURIComponent(cell) + "&at=" + n).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      var writes = r.doc.writes;
      var total = writes.length ? writes[writes.length - 1].total : 0;
      $("explain-title").textContent = $("explain-cell").selectedOptions[0].textContent + ": " + total + " · " +
        t("as_of", { n: n, count: state.version, text: "" }).replace(/[:\s]+$/, "");
      P.fill($("explain-rows"), writes.map(function (w) {
        return el("tr", { "data-event": String(w.event) }, [
          el("td", { class: "num", text: String(w.event) }), el("td", { text: w.event_text }),
          el("td", { text: String(w.deal) }), el("td", { class: "num", text: (w.amount > 0 ? "+" : "") + w.amount }),
          el("td", { class: "num", text: String(w.total) }), el("td", { text: w.why }), el("td", { text: w.recorded_by || "" }),
          el("td", { text: (w.corrected_by || []).join(", ") })
        ]);
      }));
    });
  }

  function diff(ev) {
    ev.preventDefault();
    var form = $("diff-form");
    P.clearErrors(form);
    P.api("GET", base + "/diff?from=" + encodeURIComponent($("d-from").value.trim()) + "&to=" +
          encodeURIComponent($("d-to").value.trim())).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      var d = r.doc;
      $("diff-title").textContent = d.from.point + " (" + d.from.event + ") → " + d.to.point + " (" + d.to.event + ")";
      var rows = (d.sheet || []).map(function (c) {
        return el("tr", {}, [el("td", { text: cellOf(c) }), el("td", { class: "num", text: String(c.from) }),
                             el("td", { class: "num", text: String(c.to) }),
                             el("td", { class: "num", text: (c.change > 0 ? "+" : "") + c.change })]);
      });
      Object.keys(d.rounded || {}).forEach(function (p) {
        rows.push(el("tr", { class: "result" }, [el("td", { text: p }), el("td", { text: "" }), el("td", { text: "" }),
          el("td", { class: "num", text: (d.rounded[p] > 0 ? "+" : "") + d.rounded[p] })]));
      });
      P.fill($("diff-rows"), rows.length ? rows : [el("tr", {}, [el("td", { text: t("no_rows") })])]);
    });
  }

  // -- the arbiter's writes -----------------------------------------------------------

  function written(r, done, what) {
    if (r.status === 201 || r.status === 200) {
      $(done).textContent = t("recorded", { what: what });
      $(done).hidden = false;
      if (r.doc.state) setState(r.doc.state);
      return true;
    }
    if (r.status === 409 && r.doc.state) setState(r.doc.state);
    return false;
  }

  function ruling(ev) {
    ev.preventDefault();
    var body = { version: state.version, rule: $("r-rule").value.trim(), reason: $("r-reason").value.trim() };
    if ($("r-offender").value.trim()) body.offender = $("r-offender").value.trim();
    if ($("r-tricks").value.trim()) body.tricks = P.counts($("r-tricks").value);
    if ($("r-whists").value.trim()) body.whists = P.counts($("r-whists").value);
    P.once($("ruling-form"), base + "/ruling", body).then(function (r) {
      if (written(r, "r-done", body.rule)) $("ruling-form").reset();
    });
  }

  function penalty(ev) {
    ev.preventDefault();
    var body = { version: state.version, player: $("p-player").value, column: $("p-column").value,
                 amount: Number($("p-amount").value), reason: $("p-reason").value.trim() };
    if ($("p-wronged").value) body.wronged = $("p-wronged").value;
    P.once($("penalty-form"), base + "/penalty", body).then(function (r) {
      if (written(r, "p-done", body.player + " " + t(body.column) + " " + body.amount)) $("penalty-form").reset();
    });
  }

  // -- the table's links ----------------------------------------------------------------

  function tokens() {
    return P.api("GET", base + "/tokens").then(function (r) {
      if (r.status !== 200) return r;
      P.fill($("token-rows"), r.doc.tokens.slice().reverse().map(function (x) {
        var revoke = x.revoked ? el("span", { class: "meta", text: t("revoked") }) :
          el("button", { type: "button", class: "revoke", "data-token": x.id, text: t("revoke"), on: { click: function () {
            P.api("DELETE", "/api/tokens/" + encodeURIComponent(x.id)).then(function () { tokens(); });
          } } });
        return el("tr", { "data-token": x.id }, [el("td", { text: x.id }), el("td", { text: P.byText(x.by) }),
                                                 el("td", { text: x.issued_by }), el("td", {}, [revoke])]);
      }));
      return r;
    });
  }

  function issue(ev) {
    ev.preventDefault();
    var form = $("token-form");
    P.clearErrors(form);
    P.api("POST", base + "/tokens", { holder: $("t-holder").value.trim() }).then(function (r) {
      if (r.status !== 201) { P.refusal(form, r.doc); return; }
      $("token-by").textContent = t("token_issued", { by: P.byText(r.doc.by) });
      var link = $("token-link");
      link.href = r.doc.links.score;
      link.textContent = r.doc.links.score;
      P.fill($("token-qr"), [P.qrImage(r.doc.qr, r.doc.links.score)]);
      $("token-new").hidden = false;
      form.reset();
      tokens();
    });
  }

  // -- starting ------------------------------------------------------------------------

  P.desk().then(function (who) {
    if (!who) {
      P.denied($("access"), null);
      $("sign-in-link").hidden = false;
      return;
    }
    // the desk is the arbiter's: the service says whether this one may (a table's token may not)
    tokens().then(function (r) {
      if (r.status !== 200) { P.denied($("access"), r.doc); return; }
      $("desk").hidden = false;
      P.follow(base + "/events?deltas=1", function (m) { if (m.state) setState(m.state); });
    });
  });
  $("slider").addEventListener("input", function () { showAt(Number($("slider").value)); });
  $("prev").addEventListener("click", function () { showAt((at === null ? state.version : at) - 1); });
  $("next").addEventListener("click", function () { showAt((at === null ? state.version : at) + 1); });
  $("filters").addEventListener("submit", function (ev) { ev.preventDefault(); audit(); });
  $("explain-form").addEventListener("submit", explain);
  $("diff-form").addEventListener("submit", diff);
  $("ruling-form").addEventListener("submit", ruling);
  $("penalty-form").addEventListener("submit", penalty);
  $("token-form").addEventListener("submit", issue);
}());

// The table's actions on the scorer's phone (score_actions.html), beside the entry of a
// deal (score.js, whose outbox they write through: P.scorer):
// - undo says what it will take back (the deal and its line, as the service reads it,
//   or an entry not sent yet) and asks; its message stays beside the button; redo
//   records again what the last undo took back (the desk's redo), or sends again an
//   entry taken back before it was sent;
// - a deal's tricks corrected by taps: the deal, then each player's count with − and +,
//   the verdict previewed before it is stored;
// - the "more" panel: the end of the pulka with the settlement it gives previewed, a
//   misdeal, a number by hand, the pencil, an objection, the talon.
// What is shown before it is confirmed carries the version it was read at: it is stored
// only while the table is as shown. The script computes no score.
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId, S = P.scorer;
  if (!S) return;
  var TOTAL = 10;  // tricks in a deal [Code 3.2.8]

  var asked = null;      // the undo shown and asked about: {version, what} or {local: true}
  var takenBack = null;  // an entry taken back before it was sent: redo sends it again
  var undone = "";       // what the last undo on this page took back, for redo's label

  function said(text) {
    var box = $("undo-said");
    box.textContent = text;
    P.show(box, !!text);
  }

  // -- undo and redo ------------------------------------------------------------------

  function askUndo() {
    var form = $("undo-form");
    P.clearErrors(form);
    said("");
    P.show($("undo-ask"), false);
    var waiting = S.unsent();
    if (waiting !== null) {  // the last entry is still on this phone: taken back here
      asked = { local: true };
      ask("undo", t("undo_ask_unsent", { what: waiting.label }));
      return;
    }
    P.api("POST", S.base + "/undo/preview", {}).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      var p = r.doc.preview;
      asked = { version: p.version, what: p.what };
      ask("undo", p.deal && p.last > p.first ? t("undo_ask", { deal: p.deal, what: p.what }) : t("undo_ask_record", { what: p.what }));
    }, function () { P.refusal(form, null); });
  }

  // A question beside its button (score_actions.html's ask macro: NAME-ask, NAME-what).
  function ask(name, question) {
    $(name + "-what").textContent = question;
    P.show($(name + "-ask"), true);
  }

  function undo() {
    var a = asked;
    asked = null;
    P.show($("undo-ask"), false);
    if (a === null) return;
    if (a.local) {
      var item = S.takeBack();
      if (item === null) return;  // sent meanwhile: asked again from the service
      takenBack = item;
      undone = item.label;
      said(t("undone_what", { what: item.label }));
      return;
    }
    takenBack = null;
    undone = a.what;
    S.enqueue("undo", {}, t("undone_what", { what: a.what }), null, a.version);
    said(t("undone_what", { what: a.what }));
  }

  function redo() {
    P.clearErrors($("undo-form"));
    P.show($("undo-ask"), false);
    if (takenBack !== null) {
      var item = takenBack;
      takenBack = null;
      S.enqueue(item.command, item.body, item.label, item.entry);
      said(t("redone_what", { what: item.label }));
      return;
    }
    var label = undone ? t("redo_what", { what: undone }) : t("redo_label");
    undone = "";
    S.enqueue("redo", {}, label);
    said(label);
  }

  // -- a deal's tricks by taps --------------------------------------------------------

  var fixing = null;  // {deal, tricks: {name: count}, was: {name: count}}
  var fixed = null;   // the correction previewed: {body, doc}

  // A deal's tricks as its row reads them (the last part of its named line: "Anna 6, Boris 2, Vera 2").
  function tricksOf(row, players) {
    var parts = String(row.line || "").split(" | ");
    var found = {};
    var items = parts[parts.length - 1].split(", ");
    var ok = items.every(function (item) {
      var m = /^(.+) (\d+)$/.exec(item);
      if (!m || players.indexOf(m[1]) < 0) return false;
      found[m[1]] = Number(m[2]);
      return true;
    });
    return ok && parts.length > 1 ? found : null;
  }

  function showFix() {
    var state = S.state();
    if (!state) return;
    var rows = (state.deals || []).filter(function (d) { return tricksOf(d, state.players) !== null; }).reverse();
    P.fill($("fix-deals"), rows.length ? rows.map(function (d) {
      var b = el("button", { type: "button", class: "pick", "data-deal": String(d.deal),
                             text: t("fix_deal", { deal: d.deal, game: d.game }), on: { click: function () {
        var counts = tricksOf(d, state.players);
        fixing = { deal: d.deal, tricks: Object.assign({}, counts), was: counts };
        fixed = null;
        P.show($("fix-verdict"), false);
        showFix();
      } } });
      b.classList.toggle("chosen", fixing !== null && fixing.deal === d.deal);
      return b;
    }) : [el("p", { class: "hint", text: t("fix_none") })]);
    var names = fixing ? Object.keys(fixing.tricks) : [];
    P.fill($("fix-tricks"), names.map(function (p) {
      function step(by) {
        return el("button", { type: "button", class: "step", "data-step": String(by), text: by > 0 ? "+" : "−",
                              on: { click: function () {
          var n = fixing.tricks[p] + by;
          if (n < 0 || n > TOTAL) return;
          fixing.tricks[p] = n;
          fixed = null;
          P.show($("fix-verdict"), false);
          showFix();
        } } });
      }
      return el("div", { class: "stepper", "data-player": p }, [
        el("span", { class: "name", text: p }), step(-1),
        el("output", { class: "count", text: String(fixing.tricks[p]) }), step(1)]);
    }));
    var sum = names.reduce(function (s, p) { return s + fixing.tricks[p]; }, 0);
    $("fix-sum").textContent = names.length > 1 ? t("tricks_sum", { sum: sum, total: TOTAL }) : "";
    $("fix-preview").disabled = !fixing || names.every(function (p) { return fixing.tricks[p] === fixing.was[p]; });
  }

  function previewFix(ev) {
    ev.preventDefault();
    var form = $("fix-form");
    P.clearErrors(form);
    if (!fixing) return;
    var body = { target: "deal:" + fixing.deal + ".tricks",
                 changes: Object.keys(fixing.tricks).map(function (p) { return p + "=" + fixing.tricks[p]; }) };
    P.api("POST", S.base + "/correct/preview", body).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      var p = r.doc.preview;
      fixed = { body: body, doc: p };
      $("fix-was").textContent = t("preview_was", { was: p.was });
      $("fix-now").textContent = t("preview_now", { now: p.now });
      $("fix-writes").textContent = t("preview_writes", { writes: p.writes.length ? p.writes.map(function (w) {
        return P.cellText(w.cell) + " " + w.amount;
      }).join(", ") : t("nothing_written") });
      $("fix-kind").textContent = t("verdict_" + p.verdict);
      $("fix-kind").setAttribute("data-verdict", p.verdict);
      P.show($("fix-verdict"), true);
    }, function () { P.refusal(form, null); });
  }

  function storeFix() {
    if (fixed === null) return;
    var f = fixed;
    fixed = null;
    fixing = null;
    P.show($("fix-verdict"), false);
    S.enqueue("correct", f.body, t("fix_deal", { deal: f.body.target.split(/[:.]/)[1], game: f.doc.now }) +
              " (" + t("verdict_" + f.doc.verdict) + ")", null, f.doc.version);
    showFix();
  }

  // -- the more panel -----------------------------------------------------------------

  var ending = null;  // the end previewed: {body, version}

  function options(select, names, blank) {
    var kept = select.value;
    P.fill(select, (blank ? [el("option", { value: "", text: blank })] : []).concat(names.map(function (n) {
      return el("option", { value: String(n), text: String(n), selected: String(n) === kept });
    })));
  }

  function showMore(state) {
    var players = state.players || [];
    ["entry-player", "object-player", "talon-player"].forEach(function (id) { options($(id), players); });
    options($("entry-on"), players);
    options($("abandon-demanded"), players, t("nobody"));
    // the deals by what they were (deal 3: 7♥ by Vera), the last first
    var deal = $("object-deal"), kept = deal.value;
    P.fill(deal, (state.deals || []).slice().reverse().map(function (d) {
      return el("option", { value: String(d.deal), text: t("fix_deal", { deal: d.deal, game: d.game }),
                            selected: String(d.deal) === kept });
    }));
    var agreed = $("abandon-agreed");
    if (agreed.getAttribute("data-players") !== players.join("\n")) {
      agreed.setAttribute("data-players", players.join("\n"));
      P.fill(agreed, players.map(function (p) {
        return el("label", { class: "check" }, [el("input", { type: "checkbox", value: p, checked: true }), " " + p]);
      }));
    }
  }

  function endBody() {
    var demanded = $("abandon-demanded").value;
    var body = demanded ? { demanded_by: demanded } : { agreed_by: Array.prototype.map.call(
      $("abandon-agreed").querySelectorAll("input:checked"), function (i) { return i.value; }) };
    var reason = $("abandon-reason").value.trim();
    if (reason) body.reason = reason;
    return body;
  }

  function previewEnd(ev) {
    ev.preventDefault();
    var form = $("abandon-form");
    P.clearErrors(form);
    P.show($("abandon-verdict"), false);
    var body = endBody();
    P.api("POST", S.base + "/abandon/preview", body).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      var p = r.doc.preview;
      ending = { body: body, version: p.version };
      $("abandon-what").textContent = t("abandon_ask");
      P.fill($("abandon-rows"), P.settlementRows(p.settlement));
      P.fill($("abandon-transfers"), P.transferItems(p.settlement));
      P.show($("abandon-verdict"), true);
    }, function () { P.refusal(form, null); });
  }

  function end() {
    if (ending === null) return;
    var e = ending;
    ending = null;
    P.show($("abandon-verdict"), false);
    S.enqueue("abandon", e.body, t("abandon_label"), null, e.version);
  }

  function misdeal(ev) {
    ev.preventDefault();
    P.clearErrors($("annul-form"));
    var dealer = $("annul-dealer").checked;
    $("annul-dealer").checked = false;
    var state = S.state();
    S.enqueue("annul", dealer ? { dealer_error: true } : {},
              t("annul_label", { deal: state ? state.deal : "" }) + (dealer ? " " + t("annul_dealer") : ""));
  }

  function stepper(output, by, low) {
    var n = Number(output.textContent) + by;
    if (low !== null && n < low) return;
    output.textContent = String(n);
  }

  // A stepper of score_actions.html's macro: − and + beside its output ``name``, not below ``low``.
  function steps(name, low) {
    $(name + "-less").addEventListener("click", function () { stepper($(name), -1, low); });
    $(name + "-more").addEventListener("click", function () { stepper($(name), 1, low); });
  }

  function byHand(ev) {
    ev.preventDefault();
    P.clearErrors($("entry-form"));
    var column = $("entry-column").value;
    var body = { player: $("entry-player").value, column: column, amount: Number($("entry-amount").textContent) };
    if (column === "whists") body.on = $("entry-on").value;
    var amount = (body.amount > 0 ? "+" : "") + body.amount;
    S.enqueue("entry", body, column === "whists" ?
      t("entry_on_label", { player: body.player, amount: amount, on: body.on }) :
      t("entry_label", { player: body.player, column: t(column), amount: amount }));
    $("entry-amount").textContent = "0";
  }

  // An objection cannot be undone [Code 4.2.8: it is not a record of the game]: it is
  // asked about first, and what it did (the late records it withdrew, or why it did
  // nothing) is said beside its button once the service has stored it.
  var objecting = null;  // the objection asked about: {player, deal}

  function askObject(ev) {
    ev.preventDefault();
    P.clearErrors($("object-form"));
    P.show($("object-said"), false);
    objecting = { player: $("object-player").value, deal: Number($("object-deal").value) };
    ask("object", t("object_ask", objecting));
  }

  function object() {
    var body = objecting;
    objecting = null;
    P.show($("object-ask"), false);
    if (body === null) return;
    S.enqueue("object", body, t("object_label", body));
  }

  function objected(item, doc) {
    if (item.command !== "object" || !doc.told) return;
    var mine = doc.told.verdicts.filter(function (v) { return v.new; })[0];
    var box = $("object-said");
    box.textContent = t("object_told", { what: item.label, verdict: mine ? mine.reason : "" });
    box.classList.toggle("alarm", !!mine && !mine.effective);
    box.setAttribute("data-verdict", mine ? mine.kind : "");
    P.show(box, true);
  }

  function talon(ev) {
    ev.preventDefault();
    P.clearErrors($("talon-form"));
    var kind = $("talon-kind").value;
    var body = { kind: kind, player: $("talon-player").value };
    if (kind === "premium") body.tricks = Number($("talon-tricks").textContent);
    S.enqueue("talon", body, t("talon_label", { kind: t("talon_" + kind), player: body.player }));
  }

  // -- wiring -------------------------------------------------------------------------

  ["undo", "redo"].forEach(function (c) { S.forms[c] = $("undo-form"); });
  ["abandon", "annul", "entry", "object", "talon", "pencil"].forEach(function (c) { S.forms[c] = $(c + "-form"); });
  S.seen.push(function (state) {
    showMore(state);
    if ($("fix-box").open) showFix();
  });
  if (S.state()) showMore(S.state());
  $("undo").addEventListener("click", askUndo);
  $("undo-yes").addEventListener("click", undo);
  $("undo-no").addEventListener("click", function () { asked = null; P.show($("undo-ask"), false); });
  $("redo").addEventListener("click", redo);
  $("fix-box").addEventListener("toggle", function () { if ($("fix-box").open) showFix(); });
  $("fix-form").addEventListener("submit", previewFix);
  $("fix-store").addEventListener("click", storeFix);
  $("fix-cancel").addEventListener("click", function () { fixed = null; P.show($("fix-verdict"), false); });
  $("abandon-form").addEventListener("submit", previewEnd);
  $("abandon-store").addEventListener("click", end);
  $("abandon-cancel").addEventListener("click", function () { ending = null; P.show($("abandon-verdict"), false); });
  $("annul-form").addEventListener("submit", misdeal);
  $("entry-form").addEventListener("submit", byHand);
  steps("entry-amount", null);
  $("entry-column").addEventListener("change", function () {
    var whists = $("entry-column").value === "whists";
    P.show($("entry-on"), whists);
    P.show($("entry-on-label"), whists);
  });
  $("object-form").addEventListener("submit", askObject);
  $("object-yes").addEventListener("click", object);
  $("object-no").addEventListener("click", function () { objecting = null; P.show($("object-ask"), false); });
  S.stored.push(objected);
  $("talon-form").addEventListener("submit", talon);
  $("talon-kind").addEventListener("change", function () { P.show($("talon-tricks-box"), $("talon-kind").value === "premium"); });
  steps("talon-tricks", 1);
}());

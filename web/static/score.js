// The table's scorer on a phone: the sheet live, who deals and leads, a deal entered
// by touch in the order the table speaks (what was played, who played it, the
// defence's calls, the tricks, each named), a correction previewed, the pencil; undo,
// redo and the table's other actions are score_actions.js's (P.scorer is what they share).
//
// Nothing entered is lost when the network is: every write goes through an outbox kept
// in localStorage (shown as waiting), sent in order when the connection is there, each
// with an id made on this phone, so that the service stores it once however often it
// arrives. A write carries the version of the table it was made on: when another phone
// changed the table first, nothing is stored, and the fresh table is shown with a clear
// message. The script computes no score: the sheet, the settlement and who deals are
// the service's.
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId;
  var game = P.data.game;
  var base = "/api/games/" + P.path(game);
  var OUTBOX = "pulka.outbox." + game;
  var TOTAL = 10;  // tricks in a deal [Code 3.2.8]

  var state = null;       // the table as the service last said (GET /api/games/{g})
  var principal = null;   // who records here: {by, role, game}
  var outbox = load();    // [{id, command, body, version, label, status, message, entry}]
  var entry = blank();    // the deal being entered
  var sending = false;
  var retry = null;
  var retryDelay = 1000;
  var reachable = false;  // the service answered the last request (offline.js shows it beside Record)

  // -- the outbox, kept on the phone ---------------------------------------------------

  function load() {
    try {
      var found = JSON.parse(localStorage.getItem(OUTBOX) || "[]");
      return Array.isArray(found) ? found : [];
    } catch (e) { return []; }
  }

  function save() {
    try { localStorage.setItem(OUTBOX, JSON.stringify(outbox)); } catch (e) { /* full: it stays in memory */ }
  }

  // A write to send: made on the table as last seen, or, behind writes still waiting,
  // on the table those will make (its version is set when the one before is stored).
  // ``version``: the one a preview was made on (stored only while the table is as shown).
  function enqueue(command, body, label, kept, version) {
    var item = { id: P.uuid(), command: command, body: body, label: label, status: "waiting",
                 version: version !== undefined ? version : outbox.length ? null : (state ? state.version : null),
                 entry: kept || null, played_at: pulkaOffline.playedAt() };
    outbox.push(item);
    save();
    showOutbox();
    deliver();
  }

  // A refused write put right: it takes its place, first in line, under a new id.
  function putRight(item, body, label, kept) {
    item.id = P.uuid();
    item.body = body;
    item.label = label;
    item.entry = kept;
    item.status = "waiting";
    item.message = null;
    if (item.version === null && state) item.version = state.version;
    save();
    showOutbox();
    deliver();
  }

  function showOutbox() {
    var box = $("outbox");
    P.show(box, outbox.length > 0);
    pulkaOffline.pending(outbox.length);
    $("outbox-title").textContent = t("outbox", { count: outbox.length });
    P.fill($("outbox-list"), outbox.map(function (item, k) {
      var actions = [];
      if (k === 0 && (item.status === "conflict" || item.status === "refused")) {
        if (item.status === "conflict") {
          actions.push(el("button", { type: "button", class: "again", text: t("send_again"), on: { click: function () {
            item.version = state.version;
            item.status = "waiting";
            item.message = null;
            save();
            showOutbox();
            deliver();
          } } }));
        }
        actions.push(el("button", { type: "button", class: "discard", text: t("discard"), on: { click: function () {
          if (!window.confirm(t("confirm_discard"))) return;
          outbox.shift();
          if (outbox.length && outbox[0].version === null && state) outbox[0].version = state.version;
          save();
          showOutbox();
          showDealPlayers();
          deliver();
        } } }));
      }
      return el("li", { class: "out " + item.status, "data-id": item.id, "data-status": item.status }, [
        el("span", { class: "what", text: item.label }), " ",
        el("span", { class: "state", text: t(item.status === "conflict" ? "conflict" : item.status) }),
        item.message ? el("p", { class: "why", text: item.message }) : null
      ].concat(actions));
    }));
  }

  // Send what waits, in order, one at a time.
  function deliver() {
    if (sending || !outbox.length || !canWrite()) return;
    var item = outbox[0];
    if (item.status !== "waiting" && item.status !== "sending") return;
    if (item.version === null) item.version = state ? state.version : null;
    if (item.version === null) return;
    sending = true;
    item.status = "sending";
    showOutbox();
    var body = Object.assign({ id: item.id, version: item.version }, item.body);
    if (item.played_at) body.played_at = item.played_at;  // when it was entered at the table
    // the answer carries what changed since the table this page holds, not the whole game
    var since = state ? "?since=" + state.version : "";
    P.api("POST", base + "/" + item.command + since, body).then(function (r) {
      sending = false;
      answered(item, r);
    }, function () {  // the network: keep it, try again
      sending = false;
      item.status = "waiting";
      save();
      showOutbox();
      setReachable(false);
      later();
    });
  }

  function later() {
    if (retry !== null) return;
    retry = window.setTimeout(function () {
      retry = null;
      again();
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 8000);
  }

  function answered(item, r) {
    setReachable(true);
    retryDelay = 1000;
    var doc = r.doc || {};
    if (outbox[0] !== item) {  // answered already (sent twice over a restart): the write behind it stays
      if (doc.state) setState(doc.state);
      return;
    }
    if (r.status === 201 || (r.status === 200 && doc.duplicate)) {
      outbox.shift();
      if (outbox.length && outbox[0].version === null && doc.state) outbox[0].version = doc.state.version;
      save();
      say(r.status === 201 ? t("recorded", { what: item.label }) : t("stored_once") + ": " + item.label);
      if (doc.state) setState(doc.state);
      P.scorer.stored.forEach(function (then) { then(item, doc); });
      showOutbox();
      deliver();
      return;
    }
    if (r.status === 409) {  // another phone, the arbiter or the command line was first
      item.status = "conflict";
      item.message = doc.conflict ? doc.conflict.message : t("conflict");
      save();
      if (doc.state) setState(doc.state);
      say(item.message, true);
      showOutbox();
      return;
    }
    if (r.status === 422 || r.status === 404) {  // refused: back into its form, the reason beside its field
      item.status = "refused";
      item.message = doc.refused ? doc.refused.message : t("refused");
      save();
      showOutbox();
      refusedBack(item, doc);
      return;
    }
    if (r.status === 401 || r.status === 403) {
      item.status = "waiting";
      save();
      showOutbox();
      denied(doc);
      return;
    }
    item.status = "waiting";  // the service failed (5xx): nothing was stored; again later
    save();
    showOutbox();
    later();
  }

  // A refused write: its form shows it again with the reason beside the field.
  function refusedBack(item, doc) {
    var form = $("deal-form");
    if (item.command === "deal" && item.entry) {
      entry = item.entry;
      entry.replaces = item.id;
      showEntry();
      form.scrollIntoView();
    } else if (item.command === "deal" && item.body.line) {
      form = $("line-form");
      $("line").value = item.body.line;
      $("line-box").open = true;
      showDoubt(doc && doc.refused && doc.refused.doubt);
    } else if (item.command === "correct") {
      form = $("correct-form");
      $("correct-box").open = true;
    } else if (P.scorer.forms[item.command]) {  // the table's actions (score_actions.js)
      form = P.scorer.forms[item.command];
    }
    P.refusal(form, doc);
  }

  // A line whose counts read two ways write two sheets: both readings side by side, the
  // tricks and what each writes, and the line that says each with the declarer's count marked.
  function showDoubt(doubt) {
    var box = $("line-doubt");
    if (!doubt || !doubt.readings) { P.fill(box, []); P.show(box, false); return; }
    var cells = [];
    doubt.readings.forEach(function (r) {
      r.writes.forEach(function (w) { if (cells.indexOf(w.cell) < 0) cells.push(w.cell); });
    });
    function amount(r, cell) {
      var w = r.writes.filter(function (x) { return x.cell === cell; })[0];
      return w ? (Number(w.amount) > 0 ? "+" : "") + w.amount : "";
    }
    var rows = [el("tr", {}, [el("th"), el("th", { text: doubt.readings[0].as }), el("th", { text: doubt.readings[1].as })]),
                el("tr", {}, [el("th", { text: t("tricks") })].concat(doubt.readings.map(function (r) {
                  return el("td", { text: Object.keys(r.tricks).map(function (p) { return p + " " + r.tricks[p]; }).join(", ") });
                })))];
    cells.forEach(function (cell) {
      rows.push(el("tr", {}, [el("th", { text: cell })].concat(doubt.readings.map(function (r) {
        return el("td", { text: amount(r, cell) });
      }))));
    });
    rows.push(el("tr", {}, [el("th")].concat(doubt.readings.map(function (r) {
      return el("td", {}, [el("code", { text: r.line })]);
    }))));
    P.fill(box, [el("table", {}, rows)]);
    P.show(box, true);
  }

  function denied(doc) {
    var box = $("access");
    box.textContent = doc && doc.refused ? doc.refused.message : t("need_token");
    P.show(box, true);
  }

  function say(text, alarm) {
    var box = $("message");
    box.textContent = text;
    box.classList.toggle("alarm", !!alarm);
    P.show(box, true);
  }

  function setReachable(yes) {
    reachable = yes;
    pulkaOffline.reach(yes);
  }

  function canWrite() {
    return principal !== null && (principal.role !== "scorer" || principal.game === game);
  }

  // -- the table as the service says it ------------------------------------------------

  function setState(given) {
    var doc = P.applyDelta(state, given, base, setState);
    if (doc === null) return;  // from a version this page does not hold: the whole game is asked for
    if (state !== null && doc.version < state.version) return;
    var changed = state === null || doc.version !== state.version;
    state = doc;
    if (!changed) return;
    $("who").textContent = P.whoDeals(state);
    pulkaSheet.show(base, state);
    document.body.setAttribute("data-version", String(state.version));
    P.fill($("deals"), (state.deals || []).slice().reverse().map(P.dealItem));
    var pencil = $("pencil-player");
    var chosen = pencil.value || (principal && state.players.indexOf(principal.by) >= 0 ? principal.by : "");
    P.fill(pencil, (state.players || []).map(function (p) {
      return el("option", { value: p, text: p, selected: p === chosen });
    }));
    showDealPlayers();
    if ($("correct-box").open) targets();
    P.scorer.seen.forEach(function (then) { then(state); });
    deliver();
  }

  // The players of the deal being entered: the service's, or, behind deals still
  // waiting to be sent, those the turn of the deal gives [Code 3.1.4].
  function dealPlayers() {
    if (!state || state.over || !state.order) return { order: state ? state.players || [] : [], expected: false };
    var waiting = outbox.filter(function (item) { return item.command === "deal"; }).length;
    if (!waiting) return { order: state.order, expected: false };
    var players = state.players;
    var n = players.length;
    var dealer = (players.indexOf(state.dealer) + waiting) % n;
    var order = [];
    for (var k = 1; k <= n; k++) {
      var seat = (dealer + k) % n;
      if (n < 4 || seat !== dealer) order.push(players[seat]);
    }
    return { order: order, expected: true };
  }

  // -- entering a deal ----------------------------------------------------------------

  function blank() {
    return { contract: null, declarer: null, calls: {}, open: {}, tricks: {}, auto: null, made: null, replaces: null };
  }

  function raspasy() { return entry.contract === "raspasy"; }
  function misere() { return entry.contract === "misere"; }

  function defenders(order) {
    var k = order.indexOf(entry.declarer);
    if (k < 0) return [];
    return order.slice(k + 1).concat(order.slice(0, k));  // from the declarer's left [Code 3.8.1]
  }

  // Whose tricks the deal needs: each player's on raspasy, the declarer's on a misère,
  // each player's when someone whists, none when both defenders pass.
  function trickPlayers(order) {
    if (raspasy()) return order;
    if (!entry.declarer) return [];
    if (misere()) return [entry.declarer];
    var ds = defenders(order);
    if (!ds.every(function (d) { return entry.calls[d]; })) return [];
    var whist = ds.some(function (d) { return entry.calls[d] === "whist"; });
    return whist ? [entry.declarer].concat(ds) : [];  // the declarer's first, then the defence's
  }

  function complete(order) {
    if (!entry.contract) return t("choose_contract");
    if (!raspasy() && !entry.declarer) return t("choose_declarer");
    if (!raspasy() && !misere() && !defenders(order).every(function (d) { return entry.calls[d]; })) {
      return t("choose_calls");
    }
    if (!trickPlayers(order).every(function (p) { return entry.tricks[p] !== undefined; })) return t("choose_tricks");
    return null;
  }

  function pick(button, chosen) {
    button.classList.toggle("chosen", chosen);
    button.setAttribute("aria-pressed", chosen ? "true" : "false");
  }

  function showDealPlayers() {
    showEntry();
  }

  function showEntry() {
    var players = dealPlayers();
    var order = players.order;
    document.querySelectorAll("#contracts button[data-contract]").forEach(function (b) {
      pick(b, b.getAttribute("data-contract") === entry.contract);
    });
    // who played it
    P.show($("f-declarer"), !!entry.contract && !raspasy());
    P.fill($("declarers"), order.map(function (p) {
      var b = el("button", { type: "button", class: "pick", "data-player": p, text: p, on: { click: function () {
        entry.declarer = p;
        entry.calls = {};
        entry.open = {};
        entry.tricks = {};
        entry.auto = null;
        made();
        showEntry();
      } } });
      pick(b, entry.declarer === p);
      return b;
    }).concat(players.expected ? [el("p", { class: "hint", text: t("expected_players") })] : []));
    // the defence's calls
    var ds = entry.declarer && !raspasy() && !misere() ? defenders(order) : [];
    P.show($("f-defence"), ds.length > 0);
    P.fill($("calls"), (ds.length === 2 ? [both(ds)] : []).concat(ds.map(function (d) {
      var row = el("div", { class: "call-row", "data-player": d }, [el("span", { class: "name", text: d })]);
      ["whist", "pass", "half_whist"].forEach(function (call) {
        var b = el("button", { type: "button", class: "pick", "data-call": call, text: t(call), on: { click: function () {
          entry.calls[d] = call;
          if (call !== "whist") delete entry.open[d];
          entry.tricks = {};
          entry.auto = null;
          made();
          showEntry();
        } } });
        pick(b, entry.calls[d] === call);
        row.appendChild(b);
      });
      if (entry.calls[d] === "whist") {
        var open = el("button", { type: "button", class: "pick small", "data-open": "1",
                                  text: entry.open[d] ? t("open") : t("closed"), on: { click: function () {
          entry.open[d] = !entry.open[d];
          showEntry();
        } } });
        pick(open, !!entry.open[d]);
        row.appendChild(open);
      }
      return row;
    })));
    // the tricks
    var needed = trickPlayers(order);
    P.show($("f-tricks"), needed.length > 0);
    P.fill($("tricks"), needed.map(function (p) {
      var row = el("div", { class: "trick-row", "data-player": p }, [el("span", { class: "name", text: p })]);
      var grid = el("div", { class: "counts" });
      for (var n = 0; n <= TOTAL; n++) {
        (function (n) {
          var b = el("button", { type: "button", class: "pick count" + (entry.auto === p || entry.made === p ? " auto" : ""),
                                 "data-count": String(n), text: String(n), on: { click: function () {
            entry.tricks[p] = n;
            if (entry.auto === p) entry.auto = null;
            if (entry.made === p) entry.made = null;
            autofill(needed, p);
            showEntry();
          } } });
          pick(b, entry.tricks[p] === n);
          grid.appendChild(b);
        })(n);
      }
      row.appendChild(grid);
      return row;
    }));
    var sum = needed.reduce(function (s, p) { return s + (entry.tricks[p] || 0); }, 0);
    $("tricks-sum").textContent = needed.length > 1 ? t("tricks_sum", { sum: sum, total: TOTAL }) : "";
    // what will be recorded
    var missing = complete(order);
    $("summary").textContent = missing === null ? summary(order) : t("incomplete", { what: missing });
    $("record").disabled = missing !== null || !canWrite();
  }

  // The declarer's count shown as the contract made (a misère: no trick), marked as
  // the page's until tapped: one tap fewer on the deal a table plays most.
  function made() {
    var level = misere() ? 0 : parseInt(entry.contract, 10);
    if (!entry.declarer || raspasy() || isNaN(level)) return;
    if (!misere() && !defenders(dealPlayers().order).some(function (d) { return entry.calls[d] === "whist"; })) return;
    entry.tricks[entry.declarer] = level;
    entry.made = entry.declarer;
  }

  // Both defenders' calls in one tap, from the declarer's left: the pairs a table says
  // (a half-whist after a pass [Code 3.8]; an open whist is a tap of its own row).
  function both(ds) {
    var row = el("div", { class: "call-row both", "data-both": "1" });
    [["whist", "whist"], ["whist", "pass"], ["pass", "whist"], ["pass", "pass"], ["pass", "half_whist"]].forEach(function (pair) {
      var b = el("button", { type: "button", class: "pick", "data-calls": pair.join(" "),
                             text: t(pair[0]) + " · " + t(pair[1]), on: { click: function () {
        entry.calls[ds[0]] = pair[0];
        entry.calls[ds[1]] = pair[1];
        entry.open = {};
        entry.tricks = {};
        entry.auto = null;
        made();
        showEntry();
      } } });
      pick(b, entry.calls[ds[0]] === pair[0] && entry.calls[ds[1]] === pair[1]);
      row.appendChild(b);
    });
    return row;
  }

  // When every count but one is given, the last is what is left of ten.
  function autofill(needed, touched) {
    if (needed.length < 2) return;
    var open = needed.filter(function (p) { return p !== touched && (entry.tricks[p] === undefined || entry.auto === p); });
    if (open.length !== 1) return;
    var rest = TOTAL - needed.reduce(function (s, p) { return p === open[0] ? s : s + entry.tricks[p]; }, 0);
    if (rest >= 0 && rest <= TOTAL) {
      entry.tricks[open[0]] = rest;
      entry.auto = open[0];
    }
  }

  function summary(order) {
    var parts = [];
    if (raspasy()) parts.push(t("raspasy"));
    else parts.push(t("line_of", { contract: P.contractText(entry.contract), declarer: entry.declarer }));
    var ds = !raspasy() && !misere() ? defenders(order) : [];
    if (ds.length) {
      parts.push(ds.map(function (d) { return d + ": " + P.callText(call(d)); }).join(", "));
    }
    var needed = trickPlayers(order);
    if (needed.length) parts.push(needed.map(function (p) { return p + " " + entry.tricks[p]; }).join(", "));
    return parts.join(" · ");
  }

  function call(d) {
    return entry.calls[d] + (entry.calls[d] === "whist" && entry.open[d] ? ":open" : "");
  }

  function outcome(order) {
    var doc = { contract: raspasy() ? null : entry.contract, tricks: {} };
    trickPlayers(order).forEach(function (p) { doc.tricks[p] = entry.tricks[p]; });
    if (!raspasy()) {
      doc.declarer = entry.declarer;
      doc.defence = {};
      if (!misere()) defenders(order).forEach(function (d) { doc.defence[d] = call(d); });
    }
    var bids = $("bids").value.trim();
    if (bids) doc.bids = bids.split(/[\s,]+/);
    return doc;
  }

  function recordDeal(ev) {
    ev.preventDefault();
    var order = dealPlayers().order;
    if (complete(order) !== null) return;
    P.clearErrors($("deal-form"));
    var label = summary(order);
    var body = { outcome: outcome(order) };
    if ($("again").checked) body.again = true;
    var kept = JSON.parse(JSON.stringify(entry));
    kept.replaces = null;
    var refusedDeal = entry.replaces !== null && outbox.length && outbox[0].id === entry.replaces;
    clearEntry();
    if (refusedDeal) putRight(outbox[0], body, label, kept);
    else enqueue("deal", body, label, kept);
  }

  function clearEntry() {
    entry = blank();
    $("bids").value = "";
    $("again").checked = false;
    P.clearErrors($("deal-form"));
    showEntry();
  }

  // -- the pencil, a line, a correction ------------------------------------------------

  // The last write not sent yet, which can be taken back here: nothing to tell the service.
  function unsent() {
    var last = outbox[outbox.length - 1];
    return !last || last.status === "sending" || (outbox.length === 1 && sending) ? null : last;
  }

  function takeBack() {
    var last = unsent();
    if (last === null) return null;
    outbox.pop();
    save();
    showOutbox();
    showEntry();
    return last;
  }

  function pencil(ev) {
    ev.preventDefault();
    var player = $("pencil-player").value;
    P.clearErrors($("pencil-form"));
    enqueue("pencil", { player: player }, t("pencil_down", { player: player }));
  }

  function line(ev) {
    ev.preventDefault();
    var text = $("line").value.trim();
    if (!text) return;
    P.clearErrors($("line-form"));
    showDoubt(null);
    $("line").value = "";
    var body = { line: text };
    if ($("line-yes").checked) body.confirmed = true;  // a result doubted as a slip of the order, as typed
    $("line-yes").checked = false;
    var first = outbox[0];
    if (first && first.status === "refused" && first.command === "deal" && first.body.line) {
      putRight(first, body, text, null);  // the refused line, put right (or confirmed as typed)
    } else {
      enqueue("deal", body, text);
    }
  }

  var preview = null;

  function targets() {
    P.api("GET", base + "/log").then(function (r) {
      if (r.status !== 200) { P.refusal($("correct-form"), r.doc); return; }
      var select = $("c-target");
      var kept = select.value;
      var kinds = ["tricks", "contract", "entry", "bid", "defence"];
      P.fill(select, r.doc.events.filter(function (e) { return kinds.indexOf(e.type) >= 0; }).reverse().map(function (e) {
        return el("option", { value: String(e.number), selected: String(e.number) === kept,
                              text: "#" + e.number + (e.deal ? " · " + e.deal : "") + " · " + e.text });
      }));
    }, function () { setReachable(false); });
  }

  function changes() {
    return $("c-changes").value.trim().split(/[\s,]+/).filter(function (x) { return x; });
  }

  function askPreview(ev) {
    ev.preventDefault();
    var form = $("correct-form");
    P.clearErrors(form);
    P.show($("c-verdict"), false);
    var body = { target: Number($("c-target").value), changes: changes() };
    P.api("POST", base + "/correct/preview", body).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      preview = { body: body, doc: r.doc.preview };
      var p = r.doc.preview;
      $("c-was").textContent = t("preview_was", { was: p.was });
      $("c-now").textContent = t("preview_now", { now: p.now });
      $("c-writes").textContent = t("preview_writes", { writes: p.writes.length ? p.writes.map(function (w) {
        return P.cellText(w.cell) + " " + w.amount;
      }).join(", ") : t("nothing_written") });
      var kind = $("c-kind");
      kind.textContent = t("verdict_" + p.verdict);
      kind.setAttribute("data-verdict", p.verdict);
      P.show($("c-verdict"), true);
    }, function () { setReachable(false); P.refusal(form, null); });
  }

  function storeCorrection() {
    if (preview === null) return;
    var p = preview;
    preview = null;
    P.show($("c-verdict"), false);
    $("c-changes").value = "";
    // stored only while the table is as previewed (the preview's version)
    outbox.push({ id: P.uuid(), command: "correct", body: p.body, version: p.doc.version,
                  label: "#" + p.body.target + ": " + p.doc.now + " (" + t("verdict_" + p.doc.verdict) + ")",
                  status: "waiting", entry: null, played_at: pulkaOffline.playedAt() });
    save();
    showOutbox();
    deliver();
  }

  // -- starting ------------------------------------------------------------------------

  function begin() {
    var token = P.tokenFromHash(game);
    if (token) P.auth.token = token;
    showOutbox();
    showEntry();
    P.session().then(function (doc) {
      var who = doc.signed_in;
      if (doc.refused) {  // a revoked or mistyped link
        principal = null;
        denied(doc);
      } else if (who && who.role === "scorer" && who.game !== game) {
        principal = null;
        denied({ refused: { message: t("token_other_game", { game: who.game }) } });
      } else if (who) {
        principal = who;
        $("recording-as").textContent = t("recording_as", { by: P.byText(who.by) });
      } else {
        denied(null);
        $("recording-as").textContent = t("read_only");
      }
      showEntry();
      deliver();
    }, function () {
      setReachable(false);
      later();
    });
    // a revoked or mistyped token answers 401 even to who is signed in
    P.api("GET", base).then(function (r) {
      if (r.status === 200) setState(r.doc);
      if (r.stale !== null) pulkaOffline.stale(r.stale);  // the table as kept on this phone
    }, function () { setReachable(false); });
    P.follow(base + "/events?deltas=1", function (message) {
      if (message.state) setState(message.state);
    }, function (open) {
      setReachable(open);  // the stream dropping is the service gone, whatever the Wi-Fi says
      if (open) deliver();
    });
  }

  // The session may have failed at load (offline): asked again when the network is back.
  function again() {
    if (principal === null && $("access").hidden) {
      P.session().then(function (doc) {
        if (doc.signed_in && (doc.signed_in.role !== "scorer" || doc.signed_in.game === game)) {
          principal = doc.signed_in;
          $("recording-as").textContent = t("recording_as", { by: P.byText(principal.by) });
          showEntry();
        }
        deliver();
      }, function () { later(); });
      return;
    }
    deliver();
  }

  $("contracts").addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-contract]");
    if (!b) return;
    var c = b.getAttribute("data-contract");
    if (entry.contract !== c) {
      var keep = entry.replaces;
      entry = blank();
      entry.replaces = keep;
      entry.contract = c;
    }
    showEntry();
  });
  $("deal-form").addEventListener("submit", recordDeal);
  $("clear").addEventListener("click", clearEntry);
  $("pencil-form").addEventListener("submit", pencil);
  $("line-form").addEventListener("submit", line);
  $("correct-form").addEventListener("submit", askPreview);
  $("c-store").addEventListener("click", storeCorrection);
  $("c-cancel").addEventListener("click", function () { preview = null; P.show($("c-verdict"), false); });
  $("correct-box").addEventListener("toggle", function () { if ($("correct-box").open) targets(); });
  window.addEventListener("online", function () { retryDelay = 1000; again(); });
  pulkaOffline.onBack(function () { retryDelay = 1000; again(); });  // the service answers again: send at once
  window.addEventListener("offline", function () { setReachable(false); });
  // What the table's actions (score_actions.js) share with the entry of a deal.
  P.scorer = { base: base, game: game, enqueue: enqueue, takeBack: takeBack, say: say,
               state: function () { return state; }, unsent: unsent,
               forms: {}, seen: [], stored: [] };
  begin();
}());

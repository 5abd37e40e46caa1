// pulka report: shows the sheet, settlement and explain traces as of the event the
// slider is on. Everything shown was computed by the ledger and embedded in the page
// (#pulka-data, and one drawn sheet per <template data-picture>); this script only
// chooses what to show and builds tables from it. It computes no score.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("pulka-data").textContent);
  var count = data.points.length;
  var slider = document.getElementById("slider");
  var shownPicture = -1;
  var current = count;
  var chosen = null; // {cell, event, struckBy} of the clicked number

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function row(cells, attrs) {
    return el("tr", attrs, cells.map(function (c) {
      return typeof c === "object" && c !== null && c.nodeType ? el("td", {}, [c]) :
        el("td", typeof c === "object" && c !== null ? c : { text: c === null ? "" : String(c) });
    }));
  }

  function head(names) {
    return el("tr", {}, names.map(function (n) {
      return el("th", typeof n === "object" ? n : { text: n });
    }));
  }

  function fill(table, rows) {
    table.replaceChildren.apply(table, rows);
  }

  // A text of the page in the reader's language: the catalogue's words the page was
  // made with (data.words, keyed by the English text), with {name} filled from args.
  function say(text, args) {
    var said = (data.words && data.words[text]) || text;
    return said.replace(/\{(\w+)\}/g, function (m, k) { return args && k in args ? String(args[k]) : m; });
  }

  function cellName(key) {
    var p = key.split(".");
    if (p.length === 3) return say("{player} whists on {on}", { player: p[0], on: p[2] });
    return p[1] === "pulya" ? say("{player} pulya", { player: p[0] }) :
      p[1] === "gora" ? say("{player} gora", { player: p[0] }) : p[0] + " " + p[1];
  }

  // -- the static parts ------------------------------------------------------------------

  function showMeta() {
    var parts = [data.convention_said || data.convention, say("pulya to {target}", { target: data.target }),
                 data.players.join(", "), data.events_said || count + " events"];
    if (data.stake !== null) parts.push(say("stake {stake} a whist", { stake: data.stake }));
    document.getElementById("meta").textContent = parts.join(" · ");
  }

  // The audit trail's rows: a deal's bids (plain ones: no verdict, no note) folded into
  // one row unless each bid is asked for; every other event a row of its own.
  function auditGroups(foldBids) {
    var groups = [];
    data.events.forEach(function (e) {
      var plain = e.type === "bid" && e.effective === undefined && !e.note;
      var last = groups.length ? groups[groups.length - 1] : null;
      if (foldBids && plain && last && last.bids && last.deal === e.deal) { last.events.push(e); return; }
      groups.push({ events: [e], bids: plain, deal: e.deal });
    });
    return groups;
  }

  // Whether a row is shown under the chosen filter of verdicts.
  function passes(group, filter) {
    if (filter === "all") return true;
    return group.events.some(function (e) {
      if (e.effective === undefined) return false;
      return filter === "verdicts" || (filter === "effective") === e.effective;
    });
  }

  function showAudit() {
    var fold = !document.getElementById("audit-each-bid").checked;
    var filter = document.getElementById("audit-filter").value;
    var rows = [head(["#", say("time"), say("deal"), say("by"), say("event"), say("on the sheet"), say("verdict")])];
    auditGroups(fold).forEach(function (g) {
      if (!passes(g, filter)) return;
      var e = g.events[0];
      var last = g.events[g.events.length - 1];
      var verdict = "";
      var cls = "";
      if (e.effective !== undefined) {
        verdict = (e.effective ? say("effective") : say("no effect")) + " [" + e.rule + "]: " + e.reason;
        cls = e.effective ? "verdict-yes" : "verdict-no";
      }
      var text = g.events.length > 1 ?
        say("bids: {bids}", { bids: g.events.map(function (b) { return b.text.replace(" bids ", " "); }).join(", ") }) :
        e.text + (e.note ? " (" + e.note + ")" : "");
      var tr = row([
        { text: g.events.length > 1 ? e.number + "–" + last.number : String(e.number), class: "num" },
        (e.at || "").slice(0, 19).replace("T", " "),
        e.deal === null ? "" : String(e.deal),
        g.events.length > 1 ? "" : e.by || "",
        text,
        [].concat.apply([], g.events.map(function (x) { return x.shown; })).join(", "),
        { text: verdict, class: cls }
      ], { "data-event": String(e.number), "data-last": String(last.number) });
      tr.addEventListener("click", function () { show(last.number); });
      rows.push(tr);
    });
    fill(document.getElementById("audit-table"), rows);
  }

  function showDeals() {
    var names = [say("deal"), say("events"), say("dealt"), say("what was played"), say("line")];
    data.players.forEach(function (p) { names.push(p); });
    data.players.forEach(function (p) { names.push({ text: say("{player} after", { player: p }), class: "num" }); });
    var rows = [head(names)];
    data.deals.forEach(function (d) {
      var jump = el("button", { type: "button", text: d.first === null ? "" : d.first + "–" + d.last });
      if (d.last !== null) jump.addEventListener("click", function () { show(d.last); });
      var cells = [String(d.deal), jump, d.dealer, d.game, d.line];
      data.players.forEach(function (p) { cells.push(d.writes[p].join(", ")); });
      data.players.forEach(function (p) {
        cells.push({ text: (d.rounded[p] > 0 ? "+" : "") + d.rounded[p], class: "num" });
      });
      rows.push(row(cells, { "data-deal": String(d.deal), "data-last": String(d.last) }));
    });
    fill(document.getElementById("deal-table"), rows);
  }

  // -- as of an event --------------------------------------------------------------------

  function showPicture(k) {
    if (k === shownPicture) return;
    var template = document.querySelector('template[data-picture="' + k + '"]');
    var host = document.getElementById("picture");
    host.replaceChildren(template.content.cloneNode(true));
    shownPicture = k;
  }

  function showSettlement(s) {
    var money = s.stake !== null;
    var status = { "finished": say("finished"), "abandoned": say("abandoned"),
                   "capped": say("over: the tournament's deal cap, settled as abandoned"),
                   "in play": say("in play: settled as if abandoned now") }[s.status];
    document.getElementById("settlement-status").textContent = status;
    var names = [say("player"), { text: say("pulya"), class: "num" }, { text: say("gora"), class: "num" },
                 { text: say("exact"), class: "num" }, { text: say("whists"), class: "num" }];
    if (money) names.push({ text: say("money"), class: "num" });
    var rows = [head(names)];
    s.rows.forEach(function (r) {
      var cells = [r.player, { text: r.pulya, class: "num" }, { text: r.gora, class: "num" },
                   { text: r.exact, class: "num" }, { text: (r.rounded > 0 ? "+" : "") + r.rounded, class: "num" }];
      if (money) cells.push({ text: r.money, class: "num" });
      rows.push(row(cells, { "data-player": r.player }));
    });
    fill(document.getElementById("settlement-table"), rows);
    var items = s.transfers.map(function (t) {
      var pays = t.said || t.from + " pays " + t.to + " " + t.whists + " whists";
      return el("li", { text: pays + (money ? " (" + t.money + ")" : "") });
    });
    if (!items.length) items.push(el("li", { text: say("nobody pays") }));
    fill(document.getElementById("transfers"), items);
  }

  function showExplain() {
    var box = document.getElementById("explain");
    if (chosen === null) { box.hidden = true; return; }
    var trace = data.traces[data.points[current - 1].trace][chosen.cell] || [];
    var writes = trace.map(function (i) { return data.writes[i]; });
    var total = writes.length ? writes[writes.length - 1].total : "0";
    document.getElementById("explain-title").textContent =
      say("{cell}: {total} as of event {event}", { cell: cellName(chosen.cell), total: total, event: current });
    var rows = [head([say("event"), say("what"), say("deal"), { text: say("amount"), class: "num" },
                      { text: say("total"), class: "num" }, say("why"), say("recorded by"), say("at"),
                      say("corrected by")])];
    if (chosen.struckBy) {
      rows.push(row([{ text: say("The entry of event {event} you chose is struck: event {by} changed it. The number now:",
                                 { event: chosen.event, by: chosen.struckBy }),
                       colspan: "9", class: "struck-note" }]));
    }
    writes.forEach(function (w) {
      rows.push(row([
        { text: String(w.event), class: "num" }, w.event_text, String(w.deal), { text: w.amount, class: "num" },
        { text: w.total, class: "num" }, w.why, w.recorded_by || "", (w.at || "").slice(0, 19).replace("T", " "),
        w.corrected_by.join(", ")
      ], w.event === chosen.event ? { class: "chosen", "data-event": String(w.event) } : { "data-event": String(w.event) }));
    });
    fill(document.getElementById("explain-table"), rows);
    box.hidden = false;
    document.querySelectorAll("#picture .entry").forEach(function (g) {
      g.classList.toggle("selected", g.getAttribute("data-cell") === chosen.cell);
    });
  }

  function show(n) {
    n = Math.max(1, Math.min(count, n));
    current = n;
    slider.value = String(n);
    var point = data.points[n - 1];
    var e = data.events[n - 1];
    showPicture(point.picture);
    showSettlement(data.pictures[point.picture].settlement);
    document.getElementById("as-of").textContent =
      say("As of event {event} of {count}", { event: n, count: count }) +
      (point.deals ? say(", deal {deal}", { deal: point.deals }) : "") + ": " + e.text;
    document.querySelectorAll("#audit-table tr[data-event]").forEach(function (tr) {
      var first = Number(tr.getAttribute("data-event"));
      var last = Number(tr.getAttribute("data-last"));
      tr.classList.toggle("future", first > n);
      tr.classList.toggle("current", first <= n && n <= last);
    });
    document.querySelectorAll("#deal-table tr[data-deal]").forEach(function (tr) {
      tr.classList.toggle("current", Number(tr.getAttribute("data-deal")) === point.deals);
    });
    showExplain();
  }

  slider.min = "1";
  slider.max = String(count);
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  document.getElementById("picture").addEventListener("click", function (ev) {
    var g = ev.target.closest ? ev.target.closest(".entry") : null;
    if (!g) return;
    chosen = { cell: g.getAttribute("data-cell"), event: Number(g.getAttribute("data-event")),
               struckBy: g.getAttribute("data-struck-by") };
    showExplain();
  });

  ["audit-filter", "audit-each-bid"].forEach(function (id) {
    document.getElementById(id).addEventListener("change", function () { showAudit(); show(current); });
  });

  showMeta();
  showAudit();
  showDeals();
  show(count);
}());

// pulka tournament report: the standings as they stood after the tour the slider is on,
// each tour's tables, and each table's drawn sheet. Everything shown was computed by
// the ledger and embedded in the page; this script chooses and lays out, nothing more.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("pulka-data").textContent);
  var slider = document.getElementById("slider");
  var last = data.points.length - 1;
  var current = last;
  var words = data.words || {};
  var hasSheet = {};
  data.sheets.forEach(function (g) { hasSheet[g] = true; });

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

  function anchor(game) { return "sheet-" + game.replace(/[^A-Za-z0-9_-]/g, "-"); }

  function gameLink(game, text) {
    return hasSheet[game] ? el("a", { href: "#" + anchor(game), "data-game": game, text: text }) :
      document.createTextNode(text);
  }

  // A text in the reader's language (the page's words), its {fields} filled.
  function say(text, values) {
    var said = Object.prototype.hasOwnProperty.call(words, text) ? words[text] : text;
    return said.replace(/\{(\w+)\}/g, function (m, k) { return values && k in values ? String(values[k]) : m; });
  }

  function signed(x) { return (x > 0 ? "+" : "") + x; }

  function showStandings(doc) {
    var tours = [];
    doc.standings.forEach(function (r) {
      r.tours.forEach(function (t) { if (tours.indexOf(t.tour) < 0) tours.push(t.tour); });
    });
    tours.sort(function (a, b) { return a - b; });
    var head = [say("place"), say("player"), say("points"), say("whists")].concat(
      tours.map(function (t) { return say("tour {tour}", { tour: t }); }), [say("status")]);
    var rows = [el("tr", {}, head.map(function (h) { return el("th", { text: h }); }))];
    // Each cell says what it is (data-label): on a phone's width the rows are laid out
    // as lines that wrap, each cell with its label, rather than a table to scroll.
    doc.standings.forEach(function (r) {
      var cells = [el("td", { class: "num place", text: String(r.place) }), el("td", { class: "player", text: r.player }),
                   el("td", { class: "num", "data-label": say("points"), text: String(r.points) }),
                   el("td", { class: "num", "data-label": say("whists"), text: signed(r.whists) })];
      tours.forEach(function (t) {
        var e = r.tours.filter(function (x) { return x.tour === t; })[0];
        if (!e) { cells.push(el("td", { class: "tour", "data-label": say("tour {tour}", { tour: t }), text: "–" })); return; }
        var game = data.tournament + "/" + e.tour + "/" + e.table;
        // A table of a tour not yet closed: in play, or over (at the deal cap) and counted at the close.
        var text = e.points + " (" + signed(e.whists) + ")" +
                   (e.in_play ? " " + (e.status === "playing" ? say("in play") : say("over, counted at the close")) : "");
        cells.push(el("td", { class: "num tour", "data-label": "tour " + t }, [gameLink(game, text)]));
      });
      cells.push(el("td", { class: "status", text: say(r.status) + (r.cards ? ", " + say("cards {cards}", { cards: r.cards }) : "") }));
      rows.push(el("tr", { "data-player": r.player }, cells));
    });
    document.getElementById("standings-table").replaceChildren.apply(document.getElementById("standings-table"), rows);
  }

  function showTours() {
    var list = document.getElementById("tour-list");
    data.tours.forEach(function (tour) {
      var items = tour.tables.map(function (t) {
        var who = t.players.map(function (p) { return p.player + " " + signed(p.whists); }).join(", ");
        return el("li", { "data-game": t.game }, [gameLink(t.game, say("table {table}", { table: t.table })), ": " + who]);
      });
      list.appendChild(el("section", { "data-tour": String(tour.tour) },
                          [el("h3", { text: say("Tour {tour}", { tour: tour.tour }) }), el("ul", {}, items)]));
    });
  }

  function showSheets() {
    var list = document.getElementById("sheet-list");
    data.sheets.forEach(function (game) {
      var template = document.querySelector('template[data-sheet="' + CSS.escape(game) + '"]');
      var picture = el("div", { class: "picture" });
      picture.appendChild(template.content.cloneNode(true));
      // Never drawn smaller than its own size (its smallest text is 9 px there): on a
      // narrow screen the sheet scrolls in its box, the page does not.
      var svg = picture.querySelector("svg");
      if (svg && svg.getAttribute("width")) svg.style.minWidth = Math.ceil(parseFloat(svg.getAttribute("width"))) + "px";
      list.appendChild(el("section", { id: anchor(game), "data-game": game }, [el("h3", { text: game }), picture]));
    });
  }

  function show(k) {
    current = Math.max(0, Math.min(last, k));
    slider.value = String(current);
    var doc = data.points[current];
    document.getElementById("as-of").textContent =
      doc.after_tour ? say("Standings after tour {tour}", { tour: doc.after_tour }) : say("Before the first tour closed");
    showStandings(doc);
    document.querySelectorAll("#tour-list section[data-tour]").forEach(function (s) {
      s.classList.toggle("future", Number(s.getAttribute("data-tour")) > doc.after_tour);
    });
  }

  document.getElementById("meta").textContent =
    data.players_said + " · " + data.tours_said;
  slider.min = "0";
  slider.max = String(last);
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  showTours();
  showSheets();
  show(last);
}());

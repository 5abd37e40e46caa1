// The drawn sheet inside a page, legible in the hand, and the settlement as text: what
// the scorer's and the spectators' pages share (templates sheet_part.html and
// settlement_part.html). Shows what the service drew and computed; computes nothing.
//
// The sheet is the service's own drawing (sheet.svg?part=sheet: no title, no panel, no
// style; the page links sheet.css), put into the page so that its text is the page's
// text: read, found and measured as any other. On a phone it is drawn so that its
// smallest text is 12 CSS px and pans sideways inside its own box (the page itself never
// scrolls sideways); a tap shows it whole in the box's width, another tap legible again;
// the browser's pinch enlarges either.
var pulkaSheet = (function () {
  "use strict";
  var P = pulka, $ = P.byId;
  var LEGIBLE = 12;    // the sheet's smallest text drawn at least this many CSS px
  var SVG = "http://www.w3.org/2000/svg";
  var asked = null;    // the address last asked for: an older answer arriving later is dropped
  var whole = false;   // shown whole (the box's width) rather than legible
  var drawn = false;

  // The service's SVG as nodes of this page: parsed as XML (an SVG document runs no
  // script when parsed), anything but drawing left out all the same.
  function nodes(text) {
    var doc = new DOMParser().parseFromString(text, "image/svg+xml");
    var root = doc.documentElement;
    if (!root || root.namespaceURI !== SVG || root.localName !== "svg") return null;
    root.querySelectorAll("script, style, foreignObject, a").forEach(function (n) { n.remove(); });
    return document.importNode(root, true);
  }

  function fit() {
    var svg = $("sheet").querySelector("svg");
    if (!svg) return;
    var box = svg.viewBox.baseVal;
    // its smallest text in its own units: the drawing's (SMALL in projections/drawing/svg.py)
    var smallest = Number($("sheet-box").getAttribute("data-smallest"));
    var scale = whole ? $("sheet").clientWidth / box.width : LEGIBLE / smallest;
    svg.setAttribute("width", String(box.width * scale));
    svg.setAttribute("height", String(box.height * scale));
    $("sheet-box").setAttribute("data-fit", whole ? "whole" : "legible");
  }

  function put(svg) {
    var box = $("sheet");
    var first = !drawn;
    var left = box.scrollLeft;
    box.replaceChildren(svg);
    drawn = true;
    fit();
    // First shown: its middle in view (the centre of the sheet, the pulya); then where the reader left it.
    box.scrollLeft = first ? (box.scrollWidth - box.clientWidth) / 2 : left;
  }

  // The sheet of the game at ``version`` (``base``: the game's API address); ``at``: as
  // of that event (the arbiter's desk), else now.
  function draw(base, version, at) {
    var url = base + "/sheet.svg?part=sheet" + (at ? "&at=" + at : "") + "&v=" + version;
    if (url === asked) return;
    asked = url;
    $("sheet").setAttribute("data-src", url);  // the sheet asked for; data-version once it is drawn
    fetch(P.withLang(url), { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      P.later({ status: r.status, retry: r.headers.get("Retry-After") }, function () {
        if (url === asked) { asked = null; draw(base, version, at); }  // still the sheet wanted: asked again
      });
      return r.ok ? r.text() : null;
    }).then(function (text) {
      if (url !== asked || text === null) return;
      var svg = nodes(text);
      if (svg) put(svg);
      $("sheet").setAttribute("data-version", String(version));
    }, function () {
      if (url === asked) asked = null;  // offline: the sheet shown stays; asked again with the next state
    });
  }

  function settle(state) {
    var s = state.settlement;
    document.querySelectorAll("#settlement-head .money").forEach(function (th) { th.hidden = !s.money; });
    P.fill($("settlement-rows"), P.settlementRows(s));
    P.fill($("transfers"), P.transferItems(s));
  }

  // -- a pulka over: its result, not the entry form ---------------------------------------

  var table = P.data.table || null;  // {tournament, tour} of a tournament's table, else null
  var overAt = -1;                   // the version last asked whether it is over

  // The page of a pulka that is over (finished, abandoned; a tournament's table at its
  // deal cap): body[data-over] hides the entry form (pulka.css) and
  // the settlement comes up under the sheet.
  function ended(how, text) {
    document.body.setAttribute("data-over", how);
    var form = $("deal-form");
    if (form) form.parentNode.insertBefore($("settlement"), form);
    if (text && $("who")) $("who").textContent = text;
    if (text && $("status")) $("status").textContent = text;
  }

  // Whether the game is over: its own document says so when it finished or was
  // abandoned; a tournament's table asks its tournament, whose document says which
  // tables are over at its deal cap.
  function over(state) {
    if (state.over) { ended(state.status, null); return; }
    if (!table || state.version === overAt) return;
    overAt = state.version;
    P.api("GET", "/api/tournaments/" + encodeURIComponent(table.tournament)).then(function (r) {
      if (r.status !== 200 || overAt !== state.version) return;
      var mine = (r.doc.tables || []).filter(function (x) { return x.game === P.data.game; })[0];
      if (mine && mine.status === "capped") ended("capped", P.t("capped"));
    }, function () { /* offline: asked again with the next version */ });
  }

  // A game document shown: its sheet, its settlement, and whether it is over.
  function show(base, state) {
    draw(base, state.version);
    settle(state);
    over(state);
  }

  $("sheet").addEventListener("click", function () {
    whole = !whole;
    fit();
  });
  window.addEventListener("resize", function () { if (whole) fit(); });

  return { show: show, draw: draw, settle: settle };
}());

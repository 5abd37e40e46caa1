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
  var SMALLEST = 9;    // the sheet's smallest text in its own units (SMALL in projections/drawing/svg.py)
  var LEGIBLE = 12;    // ... drawn at least this many CSS px
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
    var scale = whole ? $("sheet").clientWidth / box.width : LEGIBLE / SMALLEST;
    svg.setAttribute("width", String(box.width * scale));
    svg.setAttribute("height", String(box.height * scale));
    $("sheet-box").setAttribute("data-fit", whole ? "whole" : "legible");
  }

  function put(svg, url) {
    var box = $("sheet");
    var first = !drawn;
    var left = box.scrollLeft;
    box.replaceChildren(svg);
    drawn = true;
    fit();
    // First shown: its middle in view (the centre of the sheet, the pulya); then where the reader left it.
    box.scrollLeft = first ? (box.scrollWidth - box.clientWidth) / 2 : left;
  }

  // The sheet of the game at ``version`` (``base``: the game's API address).
  function draw(base, version) {
    var url = base + "/sheet.svg?part=sheet&v=" + version;
    if (url === asked) return;
    asked = url;
    $("sheet").setAttribute("data-src", url);  // the sheet asked for; data-version once it is drawn
    fetch(P.withLang(url), { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (text) {
      if (url !== asked || text === null) return;
      var svg = nodes(text);
      if (svg) put(svg, url);
      $("sheet").setAttribute("data-version", String(version));
    }, function () { /* offline: the sheet shown stays until the next version is drawn */ });
  }

  function settle(state) {
    var s = state.settlement;
    document.querySelectorAll("#settlement-head .money").forEach(function (th) { th.hidden = !s.money; });
    P.fill($("settlement-rows"), P.settlementRows(s));
    P.fill($("transfers"), P.transferItems(s));
  }

  // A game document shown: its sheet and its settlement.
  function show(base, state) {
    draw(base, state.version);
    settle(state);
  }

  $("sheet").addEventListener("click", function () {
    whole = !whole;
    fit();
  });
  window.addEventListener("resize", function () { if (whole) fit(); });

  return { show: show, draw: draw, settle: settle };
}());

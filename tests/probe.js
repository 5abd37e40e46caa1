// What a person sees on a drawn sheet, read from the rendered DOM by the browser tests:
// every text of the sheet with its box as four corners on the screen, and each
// player's sector as a polygon on the screen. Defines window.pulkaProbe.
window.pulkaProbe = (function () {
  "use strict";
  function screen(el, pts) {
    var m = el.getScreenCTM();
    return pts.map(function (p) { return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f]; });
  }
  function box(el) {
    var b = el.getBBox();
    return screen(el, [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]);
  }
  function sheet(root) {
    var svg = (root || document).querySelector("svg.pulka-sheet");
    var texts = Array.prototype.map.call(svg.querySelectorAll("text"), function (t) {
      var entry = t.closest(".entry");
      var sector = t.closest(".sector");
      return {
        text: t.textContent,
        cls: t.getAttribute("class") || "",
        player: sector ? sector.getAttribute("data-player") : null,
        cell: entry ? entry.getAttribute("data-cell") : null,
        struck: entry ? entry.classList.contains("struck") : false,
        box: box(t)
      };
    });
    var sectors = {};
    svg.querySelectorAll(".sector").forEach(function (g) {
      var shape = g.querySelector(".sector-shape");
      var pts = shape.getAttribute("points").trim().split(/\s+/).map(function (p) {
        return p.split(",").map(Number);
      });
      sectors[g.getAttribute("data-player")] = screen(shape, pts);
    });
    return { texts: texts, sectors: sectors };
  }
  function table(id) {
    return Array.prototype.map.call(document.querySelectorAll("#" + id + " tr"), function (tr) {
      return Array.prototype.map.call(tr.children, function (td) { return td.textContent; });
    });
  }
  return { sheet: sheet, table: table };
}());

// The scorer's page as an offline app (issue 31): its service worker registered
// (/sw.js: the page, its files and the table last read kept for a cold start with no
// network), the connection as it truly is beside the Record button, how many entries
// wait there, the table marked when it is one kept on this phone, and the time each
// entry was played at the table.
//
// "Online" means the service answered: the last request to it, or a look at
// /api/health every few seconds, reached it. The browser's navigator.onLine only says
// that the phone has a network, not that the service is on it; a request that fails,
// the live stream dropping, or no answer for a while shows "offline" at once.
var pulkaOffline = (function () {
  "use strict";
  var P = pulka, t = P.t, $ = P.byId;
  var LOOK = 5000;     // ms between looks at /api/health while the service answers
  var LOOK_OFF = 2000; // … and while it does not, to see it back soon
  var SKEW = "pulka.clock_skew";  // the service's clock less this phone's, in ms, as last measured

  var reached = null;  // null: not known yet; true, false: the last request reached the service or not
  var backs = [];      // what to do when the service answers again
  var timer = null;
  var skew = readSkew();

  function readSkew() {
    try { return Number(localStorage.getItem(SKEW)) || 0; } catch (e) { return 0; }
  }

  // The service's clock, from an answer's Date header (whole seconds, cut: never ahead of
  // the service), so that a time played sent from a phone whose clock runs fast is not
  // after its arrival.
  function measure(response) {
    var date = response.headers.get("Date");
    var server = date ? Date.parse(date) : NaN;
    if (isNaN(server)) return;
    skew = Math.min(0, server - Date.now());  // only ever earlier: a slow clock is left as it is
    try { localStorage.setItem(SKEW, String(skew)); } catch (e) { /* private mode */ }
  }

  function show() {
    var net = $("net");
    if (!net) return;
    net.textContent = reached === null ? t("reaching") : reached ? t("online") : t("offline");
    net.className = "net " + (reached === null ? "unknown" : reached ? "on" : "off");
    net.setAttribute("data-reached", reached === null ? "" : String(reached));
  }

  // What the page learned of the service: it answered (true) or could not be reached (false).
  function reach(yes) {
    var was = reached;
    reached = !!yes;
    show();
    if (reached) markStale(null);
    if (reached && was !== true) backs.forEach(function (f) { f(); });
    look(reached ? LOOK : LOOK_OFF);
  }

  function look(delay) {
    if (timer !== null) window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      timer = null;
      fetch("/api/health", { cache: "no-store", credentials: "same-origin" }).then(function (r) {
        if (r.ok) measure(r);
        reach(r.ok);
      }, function () { reach(false); });
    }, delay);
  }

  // The table shown is one kept on this phone (kept: when it was read), or (null) fresh.
  function markStale(kept) {
    var box = $("stale");
    if (!box) return;
    if (kept === null) { box.hidden = true; document.body.removeAttribute("data-stale"); return; }
    var when = kept ? new Date(kept) : null;
    box.textContent = t("stale", { time: when && !isNaN(when) ? when.toLocaleString() : "?" });
    box.hidden = false;
    document.body.setAttribute("data-stale", "1");
  }

  function pending(count) {
    var box = $("pending");
    if (!box) return;
    box.textContent = count ? t("pending", { count: count }) : t("nothing_pending");
    box.setAttribute("data-count", String(count));
    box.classList.toggle("waiting", count > 0);
  }

  function two(n) { return (n < 10 ? "0" : "") + n; }

  // Now, as the table's time: this phone's clock (never ahead of the service's, as last
  // measured), to the second, with the phone's offset (ISO 8601: 2026-12-07T20:14:03+03:00).
  function playedAt() {
    var d = new Date(Math.floor((Date.now() + skew) / 1000) * 1000);
    var off = -d.getTimezoneOffset();
    var sign = off < 0 ? "-" : "+";
    off = Math.abs(off);
    return d.getFullYear() + "-" + two(d.getMonth() + 1) + "-" + two(d.getDate()) + "T" + two(d.getHours()) + ":" +
      two(d.getMinutes()) + ":" + two(d.getSeconds()) + sign + two(Math.floor(off / 60)) + ":" + two(off % 60);
  }

  // The page's first visit was not served through the worker (it was not there yet): once
  // it controls the page, what the page read is read again through it, to be kept.
  // One at a time: the service answers an address only a few requests at once.
  function warm() {
    var base = "/api/games/" + P.path(P.data.game || "");
    var reads = [function () { return P.api("GET", "/api/session"); },
                 function () { return fetch(location.pathname + location.search, { credentials: "same-origin" }); }];
    if (P.data.game) {
      reads.push(function () { return P.api("GET", base); });
      reads.push(function () { return fetch(P.withLang(base + "/sheet.svg?part=sheet"), { credentials: "same-origin" }); });
    }
    return reads.reduce(function (before, read) {
      return before.then(read).catch(function () { return null; });
    }, Promise.resolve());
  }

  function ready() { document.body.setAttribute("data-offline-ready", "1"); }

  // The worker registered once the page has its files (it asks for them again to keep
  // them, and the service answers an address only a few requests at once: web/limits.py).
  function register() {
    // the app's manifest, named once the page has its files too (the browser asks for it at once)
    var query = P.data.game ? "?game=" + encodeURIComponent(P.data.game) + (P.data.lang_suffix ? "&lang=" + P.data.lang : "") : "";
    document.head.appendChild(P.el("link", { rel: "manifest", href: "/manifest.webmanifest" + query }));
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
    var controlled = !!navigator.serviceWorker.controller;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () { /* the page works without */ });
    if (controlled) ready();
    else navigator.serviceWorker.addEventListener("controllerchange", function () { warm().then(ready); });
  }

  window.addEventListener("offline", function () { reach(false); });
  window.addEventListener("online", function () { look(0); });
  window.addEventListener("load", function () { register(); look(0); });
  show();

  return {
    reach: reach, stale: markStale, pending: pending, playedAt: playedAt,
    onBack: function (f) { backs.push(f); },
    reached: function () { return reached === true; }
  };
}());

// The scorer's page as an offline app: this service worker (served at /sw.js, so that
// its scope is the whole site and it controls /score/…) keeps the page, its scripts and
// styles, and what the page last read of its table (the game, who records, the drawn
// sheet), so that the page opens and records into its outbox from a cold start with no
// network. Everything is asked of the network first: the cache answers only when the
// network does not, and an answer from the cache says so (X-Pulka-Stale: when it was
// kept), so that the page marks the table as stale and never shows itself as online
// on a kept answer. Writes, the live stream and the health check are never touched:
// a write waits in the page's outbox, not here.
"use strict";

var CACHE = "pulka-offline-2";  // a new name when what is kept changes: the old cache is dropped
// Every file the scorer's page loads (score.html, base.html): a cold start with no network
// has nothing else to open them from.
var SHELL = ["/static/common.js", "/static/score.js", "/static/offline.js", "/static/pulka.css", "/static/icon.svg",
             "/static/sheet.js", "/static/score_actions.js", "/static/picture/sheet.css"];
var STALE = "X-Pulka-Stale";
// What a game's address may end with that is not the game itself (web/api.py's routes).
var NOT_THE_GAME = /\/(sheet|settlement|deals|log|explain|diff|tokens|events)$/;

// One file at a time: the service answers an address only a few requests at once
// (web/limits.py), and the page itself may still be asking for some.
self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return SHELL.reduce(function (before, file) {
      return before.then(function () { return cache.add(file); });
    }, Promise.resolve());
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n !== CACHE; }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));  // the page that registered it is served from now on
});

// How a request is kept, or null when it is left to the network alone: the key it is
// kept under (a drawn sheet's version and a read's language left out: the latest is the one
// wanted when the network is gone).
function keptAs(request) {
  if (request.method !== "GET") return null;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return null;
  var path = url.pathname;
  if (path.indexOf("/score/") === 0) return url.origin + path + url.search;  // the scorer's page, each table's
  if (path.indexOf("/static/") === 0) return url.origin + path;
  if (path === "/manifest.webmanifest") return url.origin + path + url.search;
  if (path === "/api/session") return url.origin + path;
  if (path.indexOf("/api/games/") === 0) {
    // the sheet as the pages draw it (?part=sheet), whatever its version: the last one kept
    if (/\/sheet\.svg$/.test(path)) return url.origin + path + (url.searchParams.get("part") ? "?part=sheet" : "");
    if (!NOT_THE_GAME.test(path) && !url.searchParams.has("since")) return url.origin + path;
  }
  return null;
}

// The kept answer, marked as kept and when.
function stale(response) {
  if (!response) return response;
  var headers = new Headers(response.headers);
  headers.set(STALE, response.headers.get("X-Pulka-Kept") || "");
  return response.blob().then(function (body) {
    return new Response(body, { status: response.status, statusText: response.statusText, headers: headers });
  });
}

// An answer worth keeping, stamped with when it was kept.
function keep(key, response) {
  if (response.status !== 200) return Promise.resolve();
  var headers = new Headers(response.headers);
  headers.set("X-Pulka-Kept", new Date().toISOString());
  return response.blob().then(function (body) {
    return caches.open(CACHE).then(function (cache) {
      return cache.put(key, new Response(body, { status: 200, statusText: response.statusText, headers: headers }));
    });
  });
}

self.addEventListener("fetch", function (event) {
  var key = keptAs(event.request);
  if (key === null) return;  // the network alone, as if there were no service worker
  event.respondWith(fetch(event.request).then(function (response) {
    event.waitUntil(keep(key, response.clone()).catch(function () { /* full: served all the same */ }));
    return response;
  }, function (failure) {
    return caches.match(key).then(function (found) {
      return found || caches.match(key, { ignoreSearch: true });  // the page in another language, say
    }).then(function (found) {
      if (found) return stale(found);
      throw failure;  // nothing kept: the browser's own "no network"
    });
  }));
});

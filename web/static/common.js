// What every page of pulka serve shares: its data and texts (the page's JSON block),
// building elements (text only: nothing from data is ever parsed as markup), the JSON
// API with who is asking (a table's token or the session's CSRF token), write ids made
// on the device, and following an event stream.
var pulka = (function () {
  "use strict";

  var data = JSON.parse(document.getElementById("page-data").textContent);
  var texts = data.texts || {};

  // A text of the page's language; {name} fields filled from vars.
  function t(key, vars) {
    var text = Object.prototype.hasOwnProperty.call(texts, key) ? texts[key] : key;
    return text.replace(/\{([a-z_]+)\}/g, function (whole, name) {
      return vars && vars[name] !== undefined && vars[name] !== null ? String(vars[name]) : whole;
    });
  }

  // An element: attrs.text is its text, attrs.on its event handlers; children are nodes or strings.
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name === "text") node.textContent = String(value);
      else if (name === "on") Object.keys(value).forEach(function (ev) { node.addEventListener(ev, value[ev]); });
      else if (name === "hidden") node.hidden = true;
      else node.setAttribute(name, value === true ? "" : String(value));
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function byId(id) { return document.getElementById(id); }

  function fill(node, children) {
    node.replaceChildren.apply(node, children.filter(function (c) { return c !== null && c !== undefined; }));
  }

  function show(node, yes) { node.hidden = !yes; }

  // A write's id, made here: a UUID (crypto.randomUUID needs a secure context; on a
  // club's plain-HTTP network the same from crypto.getRandomValues).
  function uuid() {
    if (window.crypto && typeof window.crypto.randomUUID === "function" && window.isSecureContext) {
      return window.crypto.randomUUID();
    }
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  // A game's or a tournament's name in a path: each part quoted, the slashes of a
  // tournament's table (spring/1/2) kept.
  function path(name) {
    return name.split("/").map(encodeURIComponent).join("/");
  }

  function withLang(url) {
    return url + (url.indexOf("?") < 0 ? "?" : "&") + "lang=" + encodeURIComponent(data.lang);
  }

  // A page's address, in the language chosen by ?lang= when one was (else the browser's).
  function link(url) {
    return data.lang_suffix ? withLang(url) : url;
  }

  // Who is asking: a table's token (from the address's #token=, kept on this device for
  // this game), else the session (its CSRF token for writes).
  var auth = { token: null, csrf: null };

  function tokenFromHash(key) {
    var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    var store = key ? "pulka.token." + key : null;
    if (m) {
      var token = decodeURIComponent(m[1]);
      if (store) try { localStorage.setItem(store, token); } catch (e) { /* private mode */ }
      return token;
    }
    if (store) try { return localStorage.getItem(store); } catch (e) { return null; }
    return null;
  }

  // fetch with who is asking; resolves to {status, doc, stale}; rejects on a network
  // failure. stale: null, or when the answer was kept, when the offline app's service
  // worker (web/static/sw.js) gave a kept answer because the service was not reached.
  function api(method, url, body) {
    var headers = { "Accept": "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (auth.token) headers["Authorization"] = "Bearer " + auth.token;
    else if (auth.csrf && method !== "GET") headers["X-CSRF-Token"] = auth.csrf;
    return fetch(withLang(url), {
      method: method, headers: headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (r) {
      return r.text().then(function (text) {
        var doc = null;
        try { doc = text ? JSON.parse(text) : null; } catch (e) { doc = { error: text.slice(0, 200) }; }
        return { status: r.status, doc: doc, stale: r.headers.get("X-Pulka-Stale"),
                 retry: r.headers.get("Retry-After") };
      });
    });
  }

  // An answer past the service's budget (429: this address's; 503: everyone's) asked again
  // (``again``) once its Retry-After has passed, a second at least: a page that follows
  // the club is not left behind on a busy evening. Whether it will be.
  function later(r, again) {
    if (r.status !== 429 && r.status !== 503) return false;
    setTimeout(again, 1000 * Math.max(1, parseInt(r.retry || "1", 10) || 1));
    return true;
  }

  // Who is signed in (and the session's CSRF token).
  function session() {
    return api("GET", "/api/session").then(function (r) {
      if (r.doc && r.doc.csrf) auth.csrf = r.doc.csrf;
      return r.doc || {};
    });
  }

  // A refusal's message beside its field: the element of the form whose data-field
  // names the field, else the form's own; returns the element shown.
  function refusal(form, doc) {
    var refused = (doc && doc.refused) || { message: (doc && (doc.error || (doc.conflict && doc.conflict.message))) ||
                                            t("network"), field: null };
    clearErrors(form);
    var target = null;
    if (refused.field) {
      form.querySelectorAll("[data-field]").forEach(function (node) {
        if (!target && node.getAttribute("data-field").split(" ").indexOf(refused.field) >= 0) target = node;
      });
    }
    if (!target && refused.rule) {  // no field named: the part of the form its rule is about
      form.querySelectorAll("[data-rules]").forEach(function (node) {
        if (!target && !node.hidden && node.getAttribute("data-rules").split(" ").some(function (prefix) {
          return refused.rule === prefix || refused.rule.indexOf(prefix + ".") === 0;
        })) target = node;
      });
    }
    var box = (target || form).querySelector(".error");
    if (!box) box = form.querySelector(".error");
    if (box) {
      box.textContent = refused.message + (refused.allowed && refused.message.indexOf(refused.allowed) < 0 ?
        " — " + refused.allowed : "");
      box.setAttribute("data-rule", refused.rule || "");
      box.setAttribute("data-for", refused.field || "");
      box.hidden = false;
    }
    return box;
  }

  function clearErrors(form) {
    form.querySelectorAll(".error").forEach(function (e) { e.textContent = ""; e.hidden = true; });
  }

  // An event stream's "state" messages, followed again after a drop (EventSource does
  // it by itself); onStatus(true|false) as the stream opens and drops.
  function follow(url, onMessage, onStatus) {
    var source = new EventSource(withLang(url));
    source.addEventListener("state", function (ev) { onMessage(JSON.parse(ev.data)); });
    source.addEventListener("open", function () { if (onStatus) onStatus(true); });
    source.addEventListener("error", function () { if (onStatus) onStatus(false); });
    return source;
  }

  // A game's document from a message that may hold only what changed since a version
  // ("since": the service's game_delta): the held document with its deals rows before
  // "deals_from" and the message's from it on; the message itself when it is whole;
  // null when the page holds another version, and then, if the message is newer, the
  // whole game is asked for (url) and given to then(). As apply_delta in
  // ledger/reads/game_documents.py.
  function applyDelta(held, doc, url, then) {
    if (doc.since === undefined) return doc;
    if (held && held.version === doc.since) {
      var out = {};
      Object.keys(doc).forEach(function (k) {
        if (k !== "since" && k !== "deals_from" && k !== "deals") out[k] = doc[k];
      });
      out.deals = (held.deals || []).filter(function (r) { return r.deal < doc.deals_from; }).concat(doc.deals);
      return out;
    }
    if (!held || doc.version > held.version) {
      api("GET", url).then(function (r) { if (r.status === 200) then(r.doc); }, function () {});
    }
    return null;
  }

  // A QR code shown as an image: an SVG document as a data: address (an image runs no script).
  function qrImage(svg, alt) {
    return el("img", { src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg), alt: alt, class: "qr" });
  }

  // Names of the game as the players say them.
  var SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
  function contractText(c) {
    if (c === null || c === undefined || c === "raspasy") return t("raspasy");
    if (/^misere/i.test(c)) return t("misere");
    var m = /^(\d+)(NT|S|C|D|H)$/i.exec(c);
    if (!m) return c;
    var suit = m[2].toUpperCase();
    return m[1] + (suit === "NT" ? " " + t("NT") : SUITS[suit]);
  }
  function callText(call) {
    var open = /:open$/.test(call);
    var word = call.replace(/:open$/, "").replace(/@.*$/, "");
    return t(word) + (open ? " (" + t("open") + ")" : "");
  }
  // "Boris whists on Anna", "Anna pulya": the ledger's cell names in the page's language.
  function cellText(name) {
    var m = / whists on (.+)$/.exec(name);
    if (m) return t("whists_on", { player: name.slice(0, m.index), on: m[1] });
    m = / (pulya|gora)$/.exec(name);
    if (m) return name.slice(0, m.index) + " " + t(m[1]);
    return name;
  }

  // Who recorded or holds a link, as the log writes it (arbiter:Dora, scorer:Masha), said
  // in the page's language: the name, then the role (Dora (арбитр)); a player as he is.
  function byText(by) {
    var m = /^(arbiter|scorer):(.+)$/.exec(by || "");
    return m ? t("holder", { name: m[2], role: t("role_" + m[1]) }) : (by || "");
  }

  function settlementRows(s) {
    var rows = [];
    (s.players || []).forEach(function (p) {
      var sheet = s.sheet[p];
      var cells = [el("th", { text: p, scope: "row" }), el("td", { class: "num", text: String(sheet.pulya) }),
                   el("td", { class: "num", text: String(sheet.gora) }),
                   el("td", { class: "num", text: (s.rounded[p] > 0 ? "+" : "") + s.rounded[p] })];
      if (s.money) cells.push(el("td", { class: "num", text: s.money[p] }));
      rows.push(el("tr", { "data-player": p }, cells));
    });
    return rows;
  }

  function transferItems(s) {
    var items = (s.transfers || []).map(function (x) {
      return el("li", { text: x.money !== undefined && x.money !== null ?
        t("pays_money", { from: x.from, to: x.to, whists: x.whists, money: x.money }) :
        t("pays", { from: x.from, to: x.to, whists: x.whists }) });
    });
    if (!items.length) items.push(el("li", { text: t("nobody_pays") }));
    return items;
  }

  function whoDeals(state) {
    if (state.status === "abandoned") return t("abandoned");
    if (state.over) return t("over");
    return t("deals_leads", { deal: state.deal + 1, dealer: state.dealer, leads: state.leads });
  }

  function dealItem(d) {
    var writes = Object.keys(d.writes).map(function (k) { return cellText(k) + " " + d.writes[k]; }).join(", ");
    return el("li", { "data-deal": String(d.deal) }, [
      el("strong", { text: d.deal + ". " + d.game }), " ",
      el("span", { class: "line", text: d.line }),
      writes ? el("span", { class: "writes", text: " → " + writes }) : null
    ]);
  }

  // A write of a signed-in desk, stored once: the form keeps its id until the service
  // answers (sent again after a network failure, it is the same write); its refusal
  // beside its field.
  function once(form, url, body, method) {
    if (!form.getAttribute("data-write-id")) form.setAttribute("data-write-id", uuid());
    body.id = form.getAttribute("data-write-id");
    clearErrors(form);
    return api(method || "POST", url, body).then(function (r) {
      if (r.status < 500) form.removeAttribute("data-write-id");
      if (r.status >= 400) refusal(form, r.doc);
      return r;
    }, function (e) {
      refusal(form, null);
      throw e;
    });
  }

  // Who is at a desk: the session (shown in the navigation, with a sign-out), or a
  // table's token from the address, used as it is so that the service itself says
  // what it may not do.
  function desk() {
    var token = tokenFromHash(null);
    if (token) auth.token = token;
    return session().then(function (doc) {
      var who = doc.signed_in || null;
      var shown = byId("who-signed");
      if (shown) shown.textContent = who ? t("signed_in_as", { by: byText(who.by) }) : "";
      var out = byId("sign-out");
      if (out && who && who.role !== "scorer") {
        out.hidden = false;
        out.addEventListener("click", function () {
          api("DELETE", "/api/session").then(function () { location.assign(link("/")); });
        });
      }
      return who;
    });
  }

  function denied(box, doc) {
    box.textContent = doc && doc.refused ? doc.refused.message : (doc && doc.error) || t("sign_in_first");
    box.hidden = false;
  }

  // "Anna=6 Boris=4" as {"Anna": 6, "Boris": 4}
  function counts(text) {
    var out = {};
    text.split(/[\s,]+/).filter(function (x) { return x; }).forEach(function (part) {
      var m = /^(.+)=(-?\d+)$/.exec(part);
      if (m) out[m[1]] = Number(m[2]);
      else out[part] = NaN;
    });
    return out;
  }

  // A tournament's standings (pulka tournament standings) and its tables, as rows.
  function points(x) { return typeof x === "number" ? String(Math.round(x * 1000) / 1000) : String(x); }

  function standingsRows(s) {
    return s.standings.map(function (r) {
      var tours = r.tours.map(function (x) {
        // a tour not yet closed: its table in play, or over (finished, abandoned, at the deal cap)
        return t("tour_n", { tour: x.tour }) + ": " + (x.whists > 0 ? "+" : "") + x.whists +
          (x.in_play ? " (" + t(x.status === "playing" ? "in_play" : "over") + ")" : "");
      }).join("; ");
      return el("tr", { "data-player": r.player }, [
        el("td", { class: "num", text: String(r.place) }), el("td", { text: r.player }),
        el("td", { class: "num points", text: points(r.points) }),
        el("td", { class: "num whists", text: (r.whists > 0 ? "+" : "") + r.whists }),
        el("td", { class: "tours", text: tours }),
        el("td", { class: "cards", text: r.cards ? "■".repeat(r.cards) : "" })
      ]);
    });
  }

  function tableRows(doc, prefix) {
    return doc.tables.map(function (x) {
      // capped: over at the tournament's deal cap [Code 4.2.15], not "playing"
      var status = x.version === 0 ? t("not_started") : t(x.status === "finished" ? "finished" :
        x.status === "abandoned" ? "abandoned" : x.status === "capped" ? "capped" : "playing");
      var whists = x.whists ? Object.keys(x.whists).map(function (p) {
        return p + " " + (x.whists[p] > 0 ? "+" : "") + x.whists[p];
      }).join(", ") : "";
      return el("tr", { "data-game": x.game, "data-version": String(x.version) }, [
        el("td", { text: String(x.tour) }), el("td", { text: String(x.table) }),
        el("td", {}, [el("a", { href: link(prefix + path(x.game)), text: x.players.join(", ") })]),
        el("td", { class: "table-state", text: status }),
        el("td", { class: "num deals", text: x.deals === undefined ? "" : String(x.deals) }),
        el("td", { class: "table-whists", text: whists })
      ]);
    });
  }

  // The language link keeps the fragment (a table's token) of the address.
  document.querySelectorAll("a.lang").forEach(function (a) {
    a.addEventListener("click", function () { a.setAttribute("href", a.getAttribute("href").split("#")[0] + location.hash); });
  });

  return {
    data: data, t: t, el: el, byId: byId, fill: fill, show: show, uuid: uuid, path: path, api: api, later: later,
    auth: auth, tokenFromHash: tokenFromHash, session: session, refusal: refusal, clearErrors: clearErrors,
    follow: follow, qrImage: qrImage, contractText: contractText, callText: callText, cellText: cellText,
    settlementRows: settlementRows, transferItems: transferItems, whoDeals: whoDeals, dealItem: dealItem,
    withLang: withLang, link: link, byText: byText, once: once, applyDelta: applyDelta, desk: desk, denied: denied, counts: counts,
    standingsRows: standingsRows, tableRows: tableRows
  };
}());

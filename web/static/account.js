// One's own account: the password changed (the current one given; every other session
// ends), and a second factor enrolled (a QR code an authenticator app reads, confirmed
// by its code; recovery codes shown once) or removed.
(function () {
  "use strict";
  var P = pulka, t = P.t, el = P.el, $ = P.byId;

  function showFactor(on) {
    $("sf-on").hidden = !on;
    $("sf-enrol").hidden = on;
    $("sf-remove").hidden = !on;
  }

  $("own-password").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var form = $("own-password");
    P.clearErrors(form);
    $("o-done").hidden = true;
    P.api("POST", "/api/account/password", { current: $("o-current").value, password: $("o-password").value })
      .then(function (r) {
        if (r.status !== 200) { P.refusal(form, r.doc); return; }
        P.auth.csrf = r.doc.csrf;  // a new session, this one
        form.reset();
        $("o-done").hidden = false;
      }, function () { P.refusal(form, null); });
  });

  $("sf-enrol").addEventListener("click", function () {
    var form = $("second-factor");
    P.clearErrors(form);
    P.api("POST", "/api/account/second-factor", {}).then(function (r) {
      if (r.status !== 201) { P.refusal(form, r.doc); return; }
      P.fill($("sf-qr"), [P.qrImage(r.doc.qr, t("qr_app"))]);
      $("sf-secret").textContent = r.doc.secret;
      $("sf-new").hidden = false;
      $("sf-code").focus();
    }, function () { P.refusal(form, null); });
  });

  $("sf-confirm").addEventListener("click", function () {
    var form = $("second-factor");
    P.clearErrors(form);
    P.api("POST", "/api/account/second-factor/confirm", { code: $("sf-code").value.trim() }).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      $("sf-new").hidden = true;
      P.fill($("sf-code-list"), r.doc.recovery.map(function (code) { return el("li", { text: code }); }));
      $("sf-codes").hidden = false;
      $("enrol-first").hidden = true;
      showFactor(true);
    }, function () { P.refusal(form, null); });
  });

  $("sf-remove").addEventListener("click", function () {
    var form = $("second-factor");
    P.clearErrors(form);
    P.api("DELETE", "/api/account/second-factor", {}).then(function (r) {
      if (r.status !== 200) { P.refusal(form, r.doc); return; }
      showFactor(false);
    }, function () { P.refusal(form, null); });
  });

  P.desk().then(function (who) {
    if (who && who.role !== "scorer") {
      $("desk").hidden = false;
      $("o-name").value = who.name;
      $("enrol-first").hidden = !who.enrol;
      showFactor(!!who.second_factor);
    } else {
      P.denied($("access"), who ? { refused: { message: t("sign_in_first") } } : null);
      $("sign-in-link").hidden = false;
    }
  });
}());

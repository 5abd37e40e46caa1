// Signing in: the session's CSRF token first, then the name and password (and the code of
// a second factor, when the account asks for one); on success to the page asked for (a
// path of this service only), or to the account's page when the club asks for a second
// factor this account has not enrolled yet.
(function () {
  "use strict";
  var P = pulka, $ = P.byId;
  var form = $("signin-form");

  // Where to go: a path of this service, never another site (the server gave a path;
  // the browser's own reading of it must agree).
  function next() {
    var wanted = P.data.next || "/arbiter";
    var url = new URL(wanted, location.origin);
    return url.origin === location.origin && wanted.charAt(0) === "/" ? url.pathname + url.search : "/arbiter";
  }

  P.session();
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    P.clearErrors(form);
    var body = { name: $("name").value.trim(), password: $("password").value };
    if (!$("code-field").hidden && $("code").value.trim()) body.code = $("code").value.trim();
    P.session().then(function () {
      return P.api("POST", "/api/session", body);
    }).then(function (r) {
      if (r.status === 200) {
        location.assign(P.link(r.doc.signed_in.enrol ? "/account" : next()));
        return;
      }
      if (r.doc && r.doc.refused && r.doc.refused.field === "code") {
        $("code-field").hidden = false;  // the password was the account's: its code now
        $("code").value = "";
        $("code").focus();
      } else {
        $("password").value = "";
      }
      P.refusal(form, r.doc);
    }, function () { P.refusal(form, null); });
  });
}());

// Signing in: the session's CSRF token first, then the name and password; on success
// to the page asked for (a path of this service only).
(function () {
  "use strict";
  var P = pulka, $ = P.byId;
  var form = $("signin-form");
  P.session();
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    P.clearErrors(form);
    P.session().then(function () {
      return P.api("POST", "/api/session", { name: $("name").value.trim(), password: $("password").value });
    }).then(function (r) {
      if (r.status === 200) {
        location.assign(P.link(P.data.next));
        return;
      }
      $("password").value = "";
      P.refusal(form, r.doc);
    }, function () { P.refusal(form, null); });
  });
}());

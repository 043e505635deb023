// The schedule form: the cron expression checked by the service as it is typed, with its next five fire times.
(function () {
  "use strict";
  var cron = document.getElementById("cron");
  var tz = document.getElementById("tz");
  var out = document.getElementById("cron-preview");
  if (!cron || !out) return;
  var timer = null;
  function check() {
    if (!cron.value.trim()) { out.textContent = ""; return; }
    var q = "/api/cron?expr=" + encodeURIComponent(cron.value) + (tz.value.trim() ? "&tz=" + encodeURIComponent(tz.value) : "");
    fetch(q, { credentials: "same-origin" }).then(function (r) { return r.json().then(function (j) { return [r.ok, j]; }); })
      .then(function (res) {
        out.classList.toggle("error", !res[0]);
        out.textContent = res[0] ? "Next: " + res[1].next.join(" · ") : res[1].error;
      });
  }
  function later() { clearTimeout(timer); timer = setTimeout(check, 250); }
  cron.addEventListener("input", later);
  tz.addEventListener("input", later);
  check();
})();

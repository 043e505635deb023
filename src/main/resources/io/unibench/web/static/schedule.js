// The schedule pages: the cron expression checked by the service as it is typed (its next five fire times, or why
// it is refused, beside the field), and the rule editor's threshold/regression choice (the other form's inputs off).
(function () {
  "use strict";
  var cron = document.getElementById("cron");
  var tz = document.getElementById("tz");
  var out = document.getElementById("cron-preview");
  if (cron && out) {
    var timer = null, asked = 0;
    var check = function () {
      var mine = ++asked; // only the answer to the latest question is shown
      if (!cron.value.trim()) { out.textContent = ""; out.className = "cron-preview"; return; }
      var q = "/api/cron?expr=" + encodeURIComponent(cron.value) + (tz.value.trim() ? "&tz=" + encodeURIComponent(tz.value) : "");
      fetch(q, { credentials: "same-origin" }).then(function (r) { return r.json().then(function (j) { return [r.ok, j]; }); })
        .then(function (res) {
          if (mine !== asked) return;
          out.className = "cron-preview " + (res[0] ? "ok" : "error");
          out.textContent = "";
          if (!res[0]) { out.textContent = res[1].error; return; }
          out.appendChild(document.createElement("span")).textContent = "Next five:";
          var list = out.appendChild(document.createElement("ol"));
          res[1].next.forEach(function (t) { list.appendChild(document.createElement("li")).textContent = t; });
        });
    };
    var later = function () { clearTimeout(timer); timer = setTimeout(check, 250); };
    cron.addEventListener("input", later);
    tz.addEventListener("input", later);
    check();
  }
  var rule = document.getElementById("rule-form");
  if (rule) {
    var choose = function () {
      var regression = rule.querySelector("input[name=form][value=regression]").checked;
      document.getElementById("rule-threshold").disabled = regression;
      document.getElementById("rule-regression-rounds").disabled = !regression;
      document.getElementById("rule-regression-percent").disabled = !regression;
    };
    rule.querySelectorAll("input[name=form]").forEach(function (r) { r.addEventListener("change", choose); });
    choose();
    var refused = rule.querySelector("#rule-error, .field-error"); // the page came back with a refusal: show it
    if (refused) refused.scrollIntoView({ block: "center" });
  }
})();
// The schedule page's Delete asks first (the form says what goes with the schedule).
(function () {
  "use strict";
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      if (!window.confirm(f.getAttribute("data-confirm"))) e.preventDefault();
    });
  });
})();

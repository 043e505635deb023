// /runs/new: the form writes a scenario document into the YAML editor; the editor's text is validated by the service
// as you type (POST /api/scenarios/validate) with each message beside its line, tested (POST /api/connection-test),
// created (POST /api/runs, then the run's live page) or saved as a file.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var yaml = $("yaml"), gutter = $("yaml-gutter"), notes = $("yaml-notes");
  var LINE = 18, PAD = 6; // px: the editor's line height and top padding (app.css .editor)

  function q(s) { return JSON.stringify(String(s)); } // a JSON string is a valid YAML scalar
  function radio(name) { return document.querySelector("input[name=" + name + "]:checked").value; }
  function ints(text) {
    return text.split(/[\s,]+/).filter(function (x) { return x !== ""; }).map(function (x) { return Number(x); });
  }

  function documentFromForm() {
    var out = [];
    out.push("name: " + q($("f-name").value || "web-run"));
    out.push("provider:");
    out.push("  name: target");
    out.push("  base_url: " + q($("f-base-url").value.trim()));
    out.push("  model: " + q($("f-model").value.trim()));
    if ($("f-key-env").value.trim()) out.push("  api_key_env: " + $("f-key-env").value.trim());
    out.push("generation:");
    out.push("  max_tokens: " + Number($("f-max-tokens").value));
    goodput(out);
    if ($("f-sla").checked) sla(out);
    else if (radio("f-load") === "rate") {
      out.push("request_rate:");
      out.push("  levels: [" + ints($("f-rates").value).join(", ") + "]");
      out.push("  burstiness: " + Number($("f-burstiness").value));
      if ($("f-max-concurrency").value !== "") out.push("  max_concurrency: " + Number($("f-max-concurrency").value));
      out.push("  requests_per_level: " + Number($("f-requests").value));
    } else {
      out.push("concurrency:");
      if (radio("f-load") === "levels") out.push("  levels: [" + ints($("f-levels").value).join(", ") + "]");
      else {
        out.push("  start: " + Number($("f-start").value));
        out.push("  peak: " + Number($("f-peak").value));
        out.push("  step: " + Number($("f-step").value));
      }
      if (radio("f-per") === "requests") out.push("  requests_per_level: " + Number($("f-requests").value));
      else out.push("  ramp_interval_sec: " + Number($("f-duration").value));
    }
    out.push("scenarios:");
    out.push("  - name: main");
    out.push("    type: chat");
    out.push("    stream: " + $("f-stream").checked);
    out.push("    cache_bust: " + $("f-cache-bust").checked);
    if (radio("f-source") === "prompt") out.push("    prompt: " + q($("f-prompt").value));
    else {
      out.push("    dataset: " + $("f-dataset").value);
      out.push("    min_prompt_length: " + Number($("f-min-len").value));
      out.push("    max_prompt_length: " + Number($("f-max-len").value));
    }
    return out.join("\n") + "\n";
  }

  // goodput: only the objectives given (milliseconds, as the schema's *_ms keys)
  function goodput(out) {
    var keys = [["ttft_ms", "f-goodput-ttft"], ["tpot_ms", "f-goodput-tpot"], ["e2el_ms", "f-goodput-e2el"]];
    var given = keys.filter(function (k) { return $(k[1]).value !== ""; });
    if (given.length === 0) return;
    out.push("goodput:");
    given.forEach(function (k) { out.push("  " + k[0] + ": " + Number($(k[1]).value)); });
  }

  // sla_auto_tune: the criteria as --sla-params' JSON (a JSON object is a YAML flow mapping); text that is not JSON
  // goes in quoted, so the service names the problem beside its line
  function sla(out) {
    var text = $("f-sla-params").value.trim(), params;
    try { params = JSON.stringify(JSON.parse(text)); } catch (e) { params = q(text); }
    out.push("sla_auto_tune:");
    out.push("  variable: " + $("f-sla-variable").value);
    out.push("  params: " + params);
    out.push("  num_runs: " + Number($("f-sla-runs").value));
    out.push("  lower_bound: " + Number($("f-sla-lower").value));
    out.push("  upper_bound: " + Number($("f-sla-upper").value));
  }

  function toggles() {
    var load = radio("f-load");
    // a rate level is counted in requests (request_rate has no hold time)
    var chosen = [radio("f-source"), load, load === "rate" ? "requests" : radio("f-per")];
    if ($("f-sla").checked) chosen.push("sla");
    document.querySelectorAll("[data-for]").forEach(function (el) {
      el.hidden = !el.getAttribute("data-for").split(" ").some(function (v) { return chosen.indexOf(v) >= 0; });
    });
    $("f-load-set").hidden = $("f-sla").checked; // the search chooses the load
  }

  function fromForm() {
    toggles();
    yaml.value = documentFromForm();
    changed();
  }

  // ---- the editor: line numbers, and the service's messages beside their lines -----------------------------
  var problems = [];

  function paint() {
    var n = yaml.value.split("\n").length, bad = {};
    problems.forEach(function (p) { if (p.line > 0) bad[p.line] = true; });
    var g = "";
    for (var i = 1; i <= n; i++) g += "<span" + (bad[i] ? " class=\"bad\"" : "") + ">" + i + "</span>";
    gutter.innerHTML = g;
    gutter.scrollTop = yaml.scrollTop;
    notes.innerHTML = "";
    var general = [], byLine = {}, lines = [];
    problems.forEach(function (p) {
      if (!(p.line > 0)) { general.push(p); return; }
      if (!byLine[p.line]) { byLine[p.line] = []; lines.push(p.line); }
      byLine[p.line].push((p.path ? p.path + ": " : "") + p.message);
    });
    // one note per line (two problems of one line were drawn on top of each other): "N problems: …", all on hover
    lines.forEach(function (line) {
      var all = byLine[line], d = document.createElement("div");
      d.className = "note-line";
      d.setAttribute("data-line", line);
      d.setAttribute("data-count", all.length);
      d.style.top = (PAD + (line - 1) * LINE - yaml.scrollTop) + "px";
      d.textContent = all.length === 1 ? all[0] : all.length + " problems: " + all.join(" · ");
      d.title = all.join("\n");
      notes.appendChild(d);
    });
    $("doc-problems").textContent = general.map(function (p) { return (p.path ? p.path + ": " : "") + p.message; })
      .join("\n");
  }

  function show(body) {
    problems = body && body.problems ? body.problems : [];
    var status = $("doc-status");
    if (problems.length === 0 && body && body.error) problems = [{ path: "", line: 0, message: body.error }];
    status.className = problems.length ? "sub" : "sub ok";
    status.textContent = problems.length ? problems.length + " problem" + (problems.length > 1 ? "s" : "")
      : body && body.valid ? "valid: " + body.load.join("; ") : "";
    paint();
  }

  function post(path) {
    return fetch(path, { method: "POST", headers: { "Content-Type": "application/yaml" }, body: yaml.value })
      .then(function (r) { return r.json().then(function (b) { return { status: r.status, body: b }; }); });
  }

  var timer = null, generation = 0;
  // a connection test's answer is about the document it tested: gone once the document changes
  function staleConnection() {
    var out = $("connection-result");
    out.className = "sub";
    out.textContent = "";
  }

  function changed() {
    staleConnection();
    paint();
    clearTimeout(timer);
    var mine = ++generation;
    timer = setTimeout(function () {
      post("/api/scenarios/validate").then(function (r) { if (mine === generation) show(r.body); });
    }, 300);
  }

  yaml.addEventListener("input", changed);
  yaml.addEventListener("scroll", paint);
  document.querySelectorAll("#run-form input, #run-form textarea, #run-form select").forEach(function (el) {
    el.addEventListener("input", fromForm);
    el.addEventListener("change", fromForm);
  });

  $("create-run").addEventListener("click", function () {
    var b = $("create-run");
    b.disabled = true;
    post("/api/runs").then(function (r) {
      if (r.status === 201) { window.location.href = "/runs/" + encodeURIComponent(r.body.id); return; }
      b.disabled = false;
      show(r.body);
    });
  });

  $("test-connection").addEventListener("click", function () {
    var out = $("connection-result"), b = $("test-connection");
    b.disabled = true;
    out.className = "sub";
    out.textContent = "testing…";
    var tested = yaml.value;
    post("/api/connection-test").then(function (r) {
      b.disabled = false;
      if (yaml.value !== tested) return; // edited meanwhile: the answer is about a document no longer there
      if (r.status !== 200) { out.textContent = ""; show(r.body); return; }
      out.className = r.body.ok ? "ok" : "bad";
      out.textContent = (r.body.ok ? "✓ " : "✗ ") + r.body.message;
    });
  });

  $("save-yaml").addEventListener("click", function () {
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([yaml.value], { type: "application/yaml" }));
    a.download = ($("f-name").value || "scenario").replace(/[^A-Za-z0-9._-]/g, "_") + ".yaml";
    document.body.appendChild(a);
    a.click();
    a.remove();
  });

  fromForm();
})();

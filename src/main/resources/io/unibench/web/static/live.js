// The live view of a queued or running run (/runs/{id}): the run's events over SSE (/api/runs/{id}/events) drive the
// progress, the figures and four uPlot charts; when the run ends the page reloads into its detail report.
// Every chart registers itself in window.unibenchCharts (id -> {series, points}) for the browser tests.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || typeof EventSource === "undefined") return;
  window.unibenchCharts = window.unibenchCharts || {};
  var run = live.getAttribute("data-run");
  var COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];
  var $ = function (id) { return document.getElementById(id); };

  // one time axis for the whole run (epoch seconds), so the points of a sweep follow each other
  var rate = { t: [], rps: [], tps: [] }, ttft = { t: [], p50: [], p95: [], p99: [] },
    lat = { t: [], p50: [], p95: [], p99: [] }, errs = { t: [], byClass: {} };
  var charts = {}, started = null, prev = null;

  function fmt(v, d) { return v === null || v === undefined ? "—" : Number(v).toFixed(d); }

  // scales: one y scale per series (its name, the axis label; the first on the left, the others on the right), for
  // series of different units (req/s and tok/s: on one axis the smaller reads 0); null: one shared y axis
  function chart(id, labels, cols, scales) {
    var el = $(id);
    var series = [{}].concat(labels.map(function (l, i) {
      var s = { label: l, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true, points: { show: false } };
      if (scales) s.scale = scales[i];
      return s;
    }));
    var axes = [{}].concat(scales ? scales.map(function (s, i) {
      return { scale: s, label: s, size: 56, side: i === 0 ? 3 : 1, stroke: COLORS[i % COLORS.length],
        grid: { show: i === 0 } };
    }) : [{ size: 56 }]);
    if (charts[id] && charts[id].series.length === series.length) {
      charts[id].setData(cols);
    } else {
      if (charts[id]) charts[id].destroy();
      el.innerHTML = "";
      charts[id] = new uPlot({ title: el.getAttribute("data-title"), width: Math.max(280, el.clientWidth - 16), height: 220,
        series: series, axes: axes, legend: { live: false } }, cols, el);
    }
    window.unibenchCharts[id] = { series: labels.length, points: cols[0].length,
      scales: scales ? scales.slice() : ["y"] };
  }

  function drawAll() {
    chart("live-rate", ["req/s", "output tok/s"], [rate.t, rate.rps, rate.tps], ["req/s", "tok/s"]);
    chart("live-ttft-chart", ["p50", "p95", "p99"], [ttft.t, ttft.p50, ttft.p95, ttft.p99]);
    chart("live-latency", ["p50", "p95", "p99"], [lat.t, lat.p50, lat.p95, lat.p99]);
    var classes = Object.keys(errs.byClass).sort();
    if (classes.length === 0) {
      chart("live-errors", ["failed (none yet)"], [errs.t, errs.t.map(function () { return 0; })]);
    } else {
      chart("live-errors", classes, [errs.t].concat(classes.map(function (c) { return errs.byClass[c]; })));
    }
  }

  // what the run does before its first point (and before a new target's): said, never "waiting" in silence
  var PHASES = { starting_simulator: "starting the embedded simulator", connection_test: "connection test",
    warmup: "client warm-up (compiling the request path before anything is measured)" };
  window.unibenchPhases = [];
  function onPhase(p) {
    window.unibenchPhases.push(p.phase);
    var text = (PHASES[p.phase] || p.phase) + (p.detail ? " (" + p.detail + ")" : "") + "…";
    var step = started ? "before point " + (started.point + 2) : "before the first point";
    $("live-state").textContent = "preparing: " + text;
    $("live-progress").textContent = step + ": " + text;
  }

  function onStarted(p) {
    started = p;
    prev = null;
    var plan = p.plan;
    $("live-level").textContent = (plan.concurrency < 0 ? "open loop" : "concurrency " + plan.concurrency)
      + (plan.rate ? " @ " + plan.rate + " req/s" : "");
    // a search's probes (SLA auto-tune) are not counted in advance: where the search is, not "point i of n"
    $("live-state").textContent = p.search ? "running: " + p.search
      : "running: point " + (p.point + 1) + " of " + p.points + " (" + p.label + ")";
    progress(0, 0);
  }

  function progress(completed, elapsed) {
    if (!started) return;
    var plan = started.plan, share;
    var which = started.points ? "point " + (started.point + 1) + " of " + started.points
      : "probe run " + (started.point + 1);
    if (plan.number) {
      share = Math.min(1, completed / plan.number);
      $("live-progress").textContent = which + ": " + completed + " of " + plan.number + " requests";
    } else {
      share = plan.duration_s ? Math.min(1, elapsed / plan.duration_s) : 0;
      $("live-progress").textContent = which + ": " + fmt(elapsed, 0) + " of " + fmt(plan.duration_s, 0) + " s";
    }
    // a search's bar is its current probe's: how many probes the search takes is not known in advance
    $("live-bar").style.width = (100 * (started.points ? (started.point + share) / started.points : share))
      .toFixed(1) + "%";
  }

  function onSnapshot(s) {
    var now = Date.now() / 1000;
    refreshFacts(true);
    $("live-completed").textContent = s.completed;
    $("live-succeeded").textContent = s.succeeded;
    $("live-failed").textContent = s.failed;
    $("live-inflight").textContent = s.in_flight === null ? "—" : s.in_flight;
    $("live-rps").textContent = fmt(s.requests_per_second, 2);
    $("live-tps").textContent = fmt(s.output_tokens_per_second, 1);
    $("live-ttft").textContent = fmt(s.ttft_ms.p95, 1);
    if (s.ttfct_ms) { // a reasoning model's answer: shown once a reply reasoned first
      $("live-ttfct-tile").hidden = false;
      $("live-ttfct").textContent = fmt(s.ttfct_ms.p95, 1);
    }
    $("live-cpu").textContent = fmt(s.client.cpu_percent_of_one_core, 0);
    $("live-lag").textContent = fmt(s.client.loop_lag_p99_ms, 2);
    var w = $("live-warning");
    w.hidden = !s.client.warning;
    w.textContent = s.client.warning ? "Client self-check: " + s.client.warning : "";
    progress(s.completed, s.elapsed_s);
    // per-second rates from consecutive snapshots of the point (the snapshot's own are over the point so far, which
    // is what the first snapshot of a point can give)
    if (prev && prev.point === s.point && s.elapsed_s > prev.elapsed_s) {
      var dt = s.elapsed_s - prev.elapsed_s;
      rate.t.push(now);
      rate.rps.push((s.succeeded - prev.succeeded) / dt);
      rate.tps.push(((s.output_tokens_per_second || 0) * s.elapsed_s
        - (prev.output_tokens_per_second || 0) * prev.elapsed_s) / dt);
    } else if (!prev || prev.point !== s.point) {
      rate.t.push(now);
      rate.rps.push(s.requests_per_second);
      rate.tps.push(s.output_tokens_per_second);
    }
    prev = s;
    ttft.t.push(now); ttft.p50.push(s.ttft_ms.p50); ttft.p95.push(s.ttft_ms.p95); ttft.p99.push(s.ttft_ms.p99);
    lat.t.push(now); lat.p50.push(s.latency_ms.p50); lat.p95.push(s.latency_ms.p95); lat.p99.push(s.latency_ms.p99);
    errs.t.push(now);
    Object.keys(s.failed_by_class).forEach(function (c) {
      if (!errs.byClass[c]) errs.byClass[c] = errs.t.slice(0, -1).map(function () { return 0; });
    });
    Object.keys(errs.byClass).forEach(function (c) { errs.byClass[c].push(s.failed_by_class[c] || 0); });
    drawAll();
  }

  // The facts rendered when the page opened (often while the run was still queued: 0 requests, no environment, the
  // queued badge) follow the store: read again when a point starts or ends, and on a snapshot at most once a second
  // with one read in flight ("Requests: N stored" grows while a point runs: its requests are committed every half
  // second).
  var factsBusy = false, factsAt = 0;
  function refreshFacts(throttled) {
    var t = Date.now();
    if (throttled && (factsBusy || t - factsAt < 1000)) return;
    factsBusy = true;
    factsAt = t;
    fetch("/api/runs/" + encodeURIComponent(run)).then(function (r) { return r.ok ? r.json() : null; }).then(function (d) {
      factsBusy = false;
      if (!d) return;
      $("run-requests").textContent = d.request_count + " stored, " + d.success_count + " succeeded";
      var badge = document.querySelector("h1 .badge");
      // only the states of a live run: the end is the report's, which the reload shows
      if (badge && (d.status === "queued" || d.status === "running")) {
        badge.textContent = d.status;
        badge.className = "badge " + d.status;
        // a queued run's start is when it left the queue: the store's, as the page renders it (2026-12-01 02:00:00 UTC)
        if (d.created && $("run-started")) $("run-started").textContent = d.created.substring(0, 19).replace("T", " ") + " UTC";
      }
      if (d.base_url && $("run-target")) $("run-target").textContent = d.base_url;
      var env = d.environment || {}, table = $("run-environment");
      if (!table || Object.keys(env).length === 0) return;
      table.innerHTML = "";
      Object.keys(env).forEach(function (k) {
        var tr = document.createElement("tr"), th = document.createElement("th"), td = document.createElement("td");
        var v = env[k];
        th.textContent = k;
        td.textContent = v !== null && typeof v === "object" ? JSON.stringify(v) : String(v);
        tr.appendChild(th); tr.appendChild(td); table.appendChild(tr);
      });
    }).catch(function () { factsBusy = false; /* the next snapshot's refresh tries again */ });
  }

  var source = new EventSource("/api/runs/" + encodeURIComponent(run) + "/events");
  function on(name, f) {
    source.addEventListener(name, function (e) { f(JSON.parse(e.data)); });
  }
  on("status", function (s) {
    if (s.status === "queued") $("live-state").textContent = "queued (position " + s.position + "): " + s.reason;
    else if (s.status === "running" && !started) $("live-progress").textContent = "starting…";
    live.setAttribute("data-status", s.status);
  });
  on("phase", onPhase);
  on("point_started", function (p) { onStarted(p); refreshFacts(); });
  on("snapshot", onSnapshot);
  on("point_finished", function (f) {
    $("live-progress").textContent = "point " + (f.point + 1) + " finished: " + f.summary["Total Requests"] + " requests";
    refreshFacts();
  });
  on("run_finished", function (r) {
    source.close();
    live.setAttribute("data-status", r.run_status || r.status);
    $("live-state").textContent = "run " + (r.run_status || r.status) + (r.reason ? ": " + r.reason : "")
      + " — loading the report…";
    window.location.reload();
  });
  source.onerror = function () {
    // the stream ended without run_finished (service restarted, network): show it; EventSource retries by itself
    $("live-state").textContent = "connection to the service lost; retrying…";
  };

  $("cancel-run").addEventListener("click", function () {
    var b = $("cancel-run");
    b.disabled = true;
    b.textContent = "Cancelling…";
    fetch("/api/runs/" + encodeURIComponent(run) + "/cancel", { method: "POST" }).then(function (r) {
      if (!r.ok) return r.json().then(function (e) { b.textContent = e.error; });
    });
  });
})();

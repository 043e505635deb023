package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.Secrets;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.SpecPoints;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.LocatedYaml;
import io.unibench.store.RunEnvironment;
import io.unibench.store.RunRecorder;
import io.unibench.store.RunStart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The session runner's run history, for {@code perf} and {@code run} alike: one stored run per target, started when
 * the target's first point starts (so a run stopped before it stores nothing), with every request of every point,
 * each point's summaries, and how it ended. What a stored run says of itself (name, tags, configuration,
 * environment) is the front end's: {@link #perfStart} for {@code perf}, {@link #scenarioStart} for a scenario file.
 * A service run ({@link #queued}) records its first provider into the run the service queued instead of starting one,
 * and each other provider into a run of its own linked to it.
 */
final class HistoryRecorder implements SessionRunner.Recorder {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Configuration keys that are generation (sampling) parameters, copied into the environment summary. */
    private static final List<String> SAMPLING = List.of("max_tokens", "min_tokens", "temperature", "top_p", "top_k",
            "seed", "stop", "stream", "extra_args");

    private final RunHistory history;
    private final IntFunction<RunStart> starts;
    private final String queuedRunId; // the service's run the first target adopts; null: each target starts its own
    private final Map<Integer, RunRecorder> recorders = new ConcurrentHashMap<>();
    private volatile String runId; // the last stored run's id, kept after its target finished
    private final Map<Integer, String> runIds = new ConcurrentHashMap<>(); // target → its stored run's id

    /** @param starts target index → what its stored run says of itself; called at the target's first point */
    HistoryRecorder(RunHistory history, IntFunction<RunStart> starts) {
        this(history, starts, null);
    }

    private HistoryRecorder(RunHistory history, IntFunction<RunStart> starts, String queuedRunId) {
        this.history = history;
        this.starts = starts;
        this.queuedRunId = queuedRunId;
    }

    /**
     * A service run: its first provider records into the run the service queued and started, which keeps its name,
     * tags and configuration (the submitted document) and gets the provider's URL and environment; every other
     * provider gets a stored run of its own, named and environed as {@link #scenarioStart} names a file's, with the
     * queued run's tags and document, linked to it ({@link RunStart#parentRunId}).
     */
    static HistoryRecorder queued(RunHistory history, String queuedRunId, List<String> tags, JsonNode document,
                                  BenchConfig bench, RunSpec spec) {
        return new HistoryRecorder(history, t -> scenarioStart(bench, spec, t, tags, document).under(queuedRunId),
                queuedRunId);
    }

    /**
     * A service run of a run spec ({@code POST /api/runs} with a spec): its one target records into the run the
     * service queued and started, which keeps its name, tags and configuration (the posted spec).
     */
    static HistoryRecorder queued(RunHistory history, String queuedRunId, RunSpec spec, String url) {
        return new HistoryRecorder(history, t -> perfStart(spec, url).under(queuedRunId), queuedRunId);
    }

    /**
     * A part after the first of a service run of a spec of several targets or workloads: a stored run of its own,
     * named {@code name} ({@code SPEC/TARGET/WORKLOAD}), linked to the queued run ({@link RunStart#parentRunId}) as a
     * scenario document's other providers are.
     */
    static HistoryRecorder queuedPart(RunHistory history, String queuedRunId, String name, RunSpec spec, String url) {
        return new HistoryRecorder(history, t -> {
            RunStart s = perfStart(spec, url);
            return new RunStart(name, s.tags(), s.model(), s.url(), s.config(), s.environment(), queuedRunId);
        });
    }

    @Override
    public RecordSink pointSink(RunSpec.Point point, RunInfo info, long originNanos) {
        if (!history.enabled()) return record -> { };
        return recorder(point.target()).pointSink(info, originNanos);
    }

    /**
     * Starts {@code target}'s stored run now, before its first point's preparation (synthesizing its first requests),
     * so the run history and the platform's run list show the run while it prepares; its first point's records go
     * into the same run. At once with the history off or when the run already started.
     */
    void register(int target) {
        if (history.enabled()) recorder(target);
    }

    @Override
    public void pointPreparing(RunSpec.Point point) {
        register(point.target());
    }

    private RunRecorder recorder(int target) {
        return recorders.computeIfAbsent(target, t -> queuedRunId != null && t == 0
                ? history.adopt(queuedRunId, starts.apply(t)) : history.start(starts.apply(t)));
    }

    @Override
    public void pointFinished(RunSpec.Point point, RunResult result, Map<String, Object> extraSummaryKeys) {
        RunRecorder r = recorders.get(point.target());
        if (r != null) r.pointFinished(result, extraSummaryKeys);
    }

    @Override
    public void pointObserved(RunSpec.Point point, String json) {
        RunRecorder r = recorders.get(point.target());
        if (r != null) r.pointServerMetrics(json);
    }

    @Override
    public void targetFinished(int target, boolean interrupted) {
        end(target, r -> r.finish(interrupted));
    }

    @Override
    public void targetFailed(int target) {
        end(target, RunRecorder::finishFailed);
    }

    private void end(int target, java.util.function.Consumer<RunRecorder> finish) {
        RunRecorder r = recorders.remove(target);
        if (r == null) return;
        if (r.runId() != null) {
            runId = r.runId();
            runIds.put(target, r.runId());
        }
        finish.accept(r);
    }

    /** The stored run's id (perf has one target); null before the first point, with --no-db, or when the store failed. */
    String runId() {
        return runId;
    }

    /** The stored run of a target ({@code run}: a provider) once it finished; null when it stored nothing. */
    String runId(int target) {
        return runIds.get(target);
    }

    /**
     * A report of the whole run that could not be written after the targets ended ({@code failure}): every run this
     * recorder stored ends {@code failed} with its message, but the service's queued run, whose end is the service's
     * (it gets the failure from the launcher). Once; before anything reads the stored runs (the HTML report).
     */
    void reportFailed(RuntimeException failure) {
        if (reportFailed) return;
        reportFailed = true;
        java.util.Set<String> ids = new java.util.TreeSet<>(runIds.values());
        if (queuedRunId != null) ids.remove(queuedRunId);
        history.markFailed(ids, failure.getMessage());
    }

    private boolean reportFailed;

    /** Ends what is still open (a run that failed before its target finished) and the unused fail-fast store. */
    void close(boolean interrupted) {
        for (Integer t : List.copyOf(recorders.keySet())) targetFinished(t, interrupted);
        history.closeUnused();
    }

    // ---- perf: the configuration is the first point's benchmark_args.json (secrets already masked) ----

    /**
     * {@code perf}'s stored run: the first point's {@code benchmark_args.json} as {@link ArgsFile} wrote it, with
     * the whole sweep's lists, so the store and the files can never disagree.
     */
    /**
     * A {@code perf}-shaped spec's stored run (one target, one workload): its configuration is the first point's
     * {@code benchmark_args.json} as its preparation writes it ({@link SpecPoints#firstArguments}: none for an SLA
     * search or a spec without arguments; known before the file is written, for a run registered while its dataset
     * loads) with the sweep's lists, its name the {@code --name} the arguments carry (else none; a spec without
     * arguments: the spec's name).
     */
    static RunStart perfStart(RunSpec spec, String url) {
        ObjectNode config = SpecPoints.firstArguments(spec);
        if (config == null) config = JSON.createObjectNode();
        List<io.unibench.engine.LoadPlan> plans = !spec.sla().isEmpty() ? spec.sla().stream().map(s -> s.plan(s.start())).toList()
                : spec.points().stream().map(RunSpec.Point::plan).toList();
        putList(config, "parallel", plans.stream().map(p -> p.openLoop() ? 1 : p.parallel()).toList());
        putList(config, "number", plans.stream().map(io.unibench.engine.LoadPlan::number).toList());
        putList(config, "rate", plans.stream().map(io.unibench.engine.LoadPlan::rate).toList());
        List<String> tags = spec.history().tags();
        tags.forEach(config.putArray("tags")::add);

        RunSpec.Target target = spec.targets().getFirst();
        RunSpec.Workload workload = spec.workloads().getFirst();
        Map<String, Object> env = RunHistory.environment(url, target.embeddedSimulator(), target.model());
        Map<String, Object> sampling = new LinkedHashMap<>();
        for (String k : SAMPLING) {
            JsonNode v = config.get(k);
            if (v != null && !v.isNull()) sampling.put(k, JSON.convertValue(v, Object.class));
        }
        env.put("sampling", sampling);
        env.put("dataset", workload.dataset());
        env.putAll(datasetChecksum(workload, spec.seed()));
        ObjectNode arguments = spec.outputs().arguments();
        String name = arguments == null ? spec.name() : arguments.path("name").isTextual() ? arguments.get("name").asText() : null;
        return new RunStart(name, tags, target.model(),
                target.embeddedSimulator() ? target.historyUrl() : Secrets.redact(url), config, env);
    }

    /** SHA-256 of the dataset file, of the fixed prompt, or of the synthesis parameters of random prompts. */
    private static Map<String, Object> datasetChecksum(RunSpec.Workload w, long seed) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (w.prompt() != null) {
            String p = w.prompt();
            boolean file = p.startsWith("@");
            m.put("dataset_checksum", file ? RunEnvironment.sha256(Path.of(p.substring(1))) : RunEnvironment.sha256(p));
            m.put("dataset_checksum_of", file ? "prompt file " + p.substring(1) : "prompt text");
        } else if (w.datasetPath() != null) {
            m.put("dataset_path", w.datasetPath());
            m.put("dataset_checksum", RunEnvironment.sha256(Path.of(w.datasetPath())));
            m.put("dataset_checksum_of", "file");
        } else {
            String params = w.dataset() + " min=" + w.minPromptLength() + " max=" + w.maxPromptLength() + " prefix="
                    + w.options().prefixLength() + " seed=" + seed + " offset=" + w.options().offset() + " tokenizer="
                    + w.options().tokenizerPath();
            m.put("dataset_checksum", RunEnvironment.sha256(params));
            m.put("dataset_checksum_of", "synthesis parameters: " + params);
        }
        return m;
    }

    private static void putList(ObjectNode config, String key, List<? extends Number> values) {
        var array = config.putArray(key);
        for (Number n : values) {
            if (n instanceof Integer i) array.add(i);
            else array.add(n.doubleValue());
        }
    }

    // ---- run: one stored run per provider, named FILE-NAME/PROVIDER; the configuration is the file itself ----

    /**
     * A scenario file's stored run of one provider: tagged with the user's tags and {@code scenario-file}; its
     * configuration is the file (header values that look secret masked; API keys are never in the file, only the
     * names of their variables).
     */
    static IntFunction<RunStart> scenarioStart(List<String> tags, String fileName, String text, BenchConfig bench,
                                               RunSpec spec) {
        ObjectNode config = maskedConfig(fileName, text);
        List<String> allTags = new ArrayList<>(tags);
        allTags.add("scenario-file");
        return t -> scenarioStart(bench, spec, t, allTags, config);
    }

    private static RunStart scenarioStart(BenchConfig bench, RunSpec spec, int t, List<String> tags, JsonNode config) {
        BenchConfig.Provider provider = bench.providers().get(t);
        String url = spec.targets().get(t).url();
        Map<String, Object> env = RunHistory.environment(url, provider.embeddedSimulator(), provider.model());
        env.put("provider", provider.name());
        return new RunStart(bench.name() + "/" + provider.name(), tags, provider.model(),
                spec.targets().get(t).historyUrl(),
                config, env);
    }

    /** The file as its run stores it: read as {@code run --config} read it (aliases resolved), credentials masked. */
    private static ObjectNode maskedConfig(String fileName, String text) {
        JsonNode root = LocatedYaml.parse(fileName, text).root().deepCopy();
        if (!(root instanceof ObjectNode tree)) return JSON.createObjectNode(); // already validated
        mask(tree.path("provider"));
        tree.path("providers").forEach(HistoryRecorder::mask);
        return tree;
    }

    /** A provider's URL user info and credential parameters, and header values that look secret. */
    private static void mask(JsonNode provider) {
        if (provider instanceof ObjectNode p && p.path("base_url").isTextual()) {
            p.put("base_url", Secrets.redact(p.get("base_url").asText()));
        }
        maskHeaders(provider);
    }

    private static void maskHeaders(JsonNode provider) {
        if (provider.path("headers") instanceof ObjectNode headers) {
            List<String> names = new ArrayList<>();
            headers.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                if (Secrets.isSecretHeader(name, headers.path(name).asText())) {
                    headers.put(name, Secrets.mask(headers.path(name).asText()));
                }
            }
        }
    }
}

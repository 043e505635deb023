package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.Secrets;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunResult;
import io.unibench.store.RunEnvironment;
import io.unibench.store.RunRecorder;
import io.unibench.store.RunStart;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code perf} tells the run history: the run (configuration and environment) when its first sweep point
 * starts, every request of every point, each point's summaries, and how the run ended. The configuration is the
 * first point's {@code benchmark_args.json} as {@link ArgsFile} wrote it (secrets already masked), with the whole
 * sweep's lists, so the store and the files can never disagree.
 */
final class StoreHook {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Configuration keys that are generation (sampling) parameters, copied into the environment summary. */
    private static final List<String> SAMPLING = List.of("max_tokens", "min_tokens", "temperature", "top_p", "top_k",
            "seed", "stop", "stream", "extra_args");

    private final RunHistory history;
    private final PerfSettings settings;
    private final PerfOptions options;
    private final String url;
    private RunRecorder recorder = RunRecorder.disabled(); // until the first point starts the run

    private StoreHook(RunHistory history, PerfSettings settings, PerfOptions options, String url) {
        this.history = history;
        this.settings = settings;
        this.options = options;
        this.url = url;
    }

    /** Opens the store named by {@code --db} / {@code UNIBENCH_DB} (or none with {@code --no-db}). */
    static StoreHook open(PerfOptions o, PerfSettings s, String url, Map<String, String> env, PrintWriter err) {
        return new StoreHook(RunHistory.open(o.history, env, err), s, o, url);
    }

    /** The sink storing a point's requests; the run itself is created at the first point. */
    RecordSink pointSink(RunInfo info, Path runDir, long startNanos) {
        if (!history.enabled()) return record -> { };
        if (!recorder.enabled()) recorder = history.start(runStart(runDir.resolve("benchmark_args.json")));
        return recorder.pointSink(info, startNanos);
    }

    void pointFinished(RunResult result, Map<String, Object> extraSummaryKeys) {
        recorder.pointFinished(result, extraSummaryKeys);
    }

    void pointServerMetrics(String json) {
        recorder.pointServerMetrics(json);
    }

    void finish(boolean interrupted) {
        recorder.finish(interrupted);
        history.closeUnused();
    }

    private RunStart runStart(Path argsFile) {
        ObjectNode config;
        try {
            config = (ObjectNode) JSON.readTree(Files.readString(argsFile));
        } catch (IOException | ClassCastException e) {
            config = JSON.createObjectNode();
        }
        putList(config, "parallel", settings.parallel());
        putList(config, "number", settings.number());
        putList(config, "rate", settings.rate());
        List<String> tags = options.history.tags;
        tags.forEach(config.putArray("tags")::add);
        String target = Secrets.redact(url);

        Map<String, Object> env = RunHistory.environment(url, settings.embeddedSimulator(), settings.model());
        Map<String, Object> sampling = new LinkedHashMap<>();
        for (String k : SAMPLING) {
            JsonNode v = config.get(k);
            if (v != null && !v.isNull()) sampling.put(k, JSON.convertValue(v, Object.class));
        }
        env.put("sampling", sampling);
        env.put("dataset", settings.dataset());
        env.putAll(datasetChecksum());
        return new RunStart(options.name, tags, settings.model(), target, config, env);
    }

    /** SHA-256 of the dataset file, of the fixed prompt, or of the synthesis parameters of random prompts. */
    private Map<String, Object> datasetChecksum() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (options.prompt != null) {
            String p = options.prompt;
            boolean file = p.startsWith("@");
            m.put("dataset_checksum", file ? RunEnvironment.sha256(Path.of(p.substring(1))) : RunEnvironment.sha256(p));
            m.put("dataset_checksum_of", file ? "prompt file " + p.substring(1) : "prompt text");
        } else if (options.datasetPath != null) {
            m.put("dataset_path", options.datasetPath);
            m.put("dataset_checksum", RunEnvironment.sha256(Path.of(options.datasetPath)));
            m.put("dataset_checksum_of", "file");
        } else {
            String params = settings.dataset() + " min=" + settings.minPromptLength() + " max="
                    + settings.maxPromptLength() + " prefix=" + options.prefixLength + " seed=" + settings.seed()
                    + " offset=" + options.datasetOffset + " tokenizer=" + options.tokenizerPath;
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
}

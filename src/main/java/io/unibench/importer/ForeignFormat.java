package io.unibench.importer;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The other tools' result formats {@code runs import} reads, by the name {@code --format} takes. */
public enum ForeignFormat {
    /** {@code evalscope perf}'s output folder: per point benchmark_args/summary/percentile JSON, benchmark_data.db. */
    EVALSCOPE_PERF("evalscope-perf", "evalscope perf"),
    /** {@code vllm bench serve --save-result} JSON (per-request arrays with {@code --save-detailed}). */
    VLLM_BENCH_SERVE("vllm-bench-serve", "vLLM bench serve"),
    /** AIPerf's {@code profile_export.jsonl} (one record per request) and {@code profile_export_aiperf.json}. */
    AIPERF("aiperf", "AIPerf"),
    /** GuideLLM's report JSON: one benchmark per load level, the tool's distributions. */
    GUIDELLM("guidellm", "GuideLLM"),
    /** llm-d's Benchmark Report v0.2 (YAML or JSON), as llm-d-benchmark converts tools' native output to. */
    BR_V0_2("br-v0.2", "llm-d Benchmark Report v0.2");

    private final String flag;
    private final String tool;

    ForeignFormat(String flag, String tool) {
        this.flag = flag;
        this.tool = tool;
    }

    /** The name {@code --format} takes. */
    public String flag() {
        return flag;
    }

    /** The tool's name as stored ({@code source_tool}). */
    public String tool() {
        return tool;
    }

    /** The format named {@code name}; bad input listing the names otherwise. */
    public static ForeignFormat of(String name) {
        for (ForeignFormat f : values()) if (f.flag.equals(name.toLowerCase(Locale.ROOT))) return f;
        throw new io.unibench.BadInputException("--format '" + name + "': not a format runs import reads (one of "
                + Arrays.stream(values()).map(ForeignFormat::flag).collect(Collectors.joining(", ")) + ")");
    }
}

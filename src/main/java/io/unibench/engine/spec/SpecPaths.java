package io.unibench.engine.spec;

/**
 * How a front end names the fields of a {@link RunSpec} in its errors. {@link SpecRules} checks the shared rules
 * by field ({@link Field}) and asks this for the location; the front end's names come from one table each:
 * {@link #FLAGS} for {@code perf}, a scenario file's key paths, the web API's JSON pointers.
 */
@FunctionalInterface
public interface SpecPaths {
    /** The fields the shared rules check. */
    enum Field {
        PARALLEL, NUMBER, RATE, DURATION, WARMUP, PAUSE, MAX_TOKENS, MIN_TOKENS, TEMPERATURE, TOP_P, TOP_K,
        CONNECT_TIMEOUT, READ_TIMEOUT, TOTAL_TIMEOUT,
        /** Arrival shapes: vLLM's burstiness and rate ramp, a trace's speed-up. */
        BURSTINESS, RAMP_START, RAMP_END, TRACE_SPEEDUP,
        /** The SLA auto-tune's figures (evalscope's {@code --sla-*}). */
        SLA_RUNS, SLA_LOWER, SLA_UPPER, SLA_FIXED_PARALLEL, SLA_MULTIPLIER,
        /** The run's limits: retries of refusals, the budget, the points' target precision. */
        RETRY_ON, MAX_RETRIES, MAX_TOTAL_TOKENS, MAX_COST, TARGET_PRECISION,
        /** A workload's prompts sent as token ids, and the tokenizer that makes them. */
        TOKENIZE_PROMPT, TOKENIZER_PATH
    }

    /** Where {@code field} is, for the {@code index}-th point (0 for fields that are not per point). */
    String path(Field field, int index);

    /** {@code perf}'s flag names. */
    SpecPaths FLAGS = (field, index) -> switch (field) {
        case PARALLEL -> "--parallel";
        case NUMBER -> "--number";
        case RATE -> "--rate";
        case DURATION -> "--duration";
        case WARMUP -> "--warmup-num";
        case PAUSE -> "--sleep-interval";
        case MAX_TOKENS -> "--max-tokens";
        case MIN_TOKENS -> "--min-tokens";
        case TEMPERATURE -> "--temperature";
        case TOP_P -> "--top-p";
        case TOP_K -> "--top-k";
        case CONNECT_TIMEOUT -> "--connect-timeout";
        case READ_TIMEOUT -> "--read-timeout";
        case TOTAL_TIMEOUT -> "--total-timeout";
        case BURSTINESS -> "--burstiness";
        case RAMP_START -> "--ramp-up-start-rps";
        case RAMP_END -> "--ramp-up-end-rps";
        case TRACE_SPEEDUP -> "--trace-speedup";
        case SLA_RUNS -> "--sla-num-runs";
        case SLA_LOWER -> "--sla-lower-bound";
        case SLA_UPPER -> "--sla-upper-bound";
        case SLA_FIXED_PARALLEL -> "--sla-fixed-parallel";
        case SLA_MULTIPLIER -> "--sla-number-multiplier";
        case RETRY_ON -> "--retry-on";
        case MAX_RETRIES -> "--max-retries";
        case MAX_TOTAL_TOKENS -> "--max-total-tokens";
        case MAX_COST -> "--max-cost";
        case TARGET_PRECISION -> "--target-precision";
        case TOKENIZE_PROMPT -> "--tokenize-prompt";
        case TOKENIZER_PATH -> "--tokenizer-path";
    };

    /**
     * JSON pointers into a {@link RunSpec} as {@code RunSpecJson} writes it (a spec file, the web API's body):
     * {@code index} is the point's, the target's (timeouts) or the workload's (sampling) index.
     */
    SpecPaths JSON_POINTERS = (field, index) -> switch (field) {
        case PARALLEL -> "/points/" + index + "/plan/parallel";
        case NUMBER -> "/points/" + index + "/plan/number";
        case RATE -> "/points/" + index + "/plan/rate";
        case DURATION -> "/points/" + index + "/plan/duration";
        case WARMUP -> "/points/" + index + "/plan/warmup";
        case PAUSE -> "/points/" + index + "/pause_after";
        case MAX_TOKENS -> "/workloads/" + index + "/generation/max_tokens_min";
        case MIN_TOKENS -> "/workloads/" + index + "/generation/min_tokens";
        case TEMPERATURE -> "/workloads/" + index + "/generation/temperature";
        case TOP_P -> "/workloads/" + index + "/generation/top_p";
        case TOP_K -> "/workloads/" + index + "/generation/top_k";
        case CONNECT_TIMEOUT -> "/targets/" + index + "/timeouts/connect";
        case READ_TIMEOUT -> "/targets/" + index + "/timeouts/read";
        case TOTAL_TIMEOUT -> "/targets/" + index + "/timeouts/total";
        case BURSTINESS -> "/points/" + index + "/plan/arrivals/burstiness";
        case RAMP_START -> "/points/" + index + "/plan/arrivals/ramp/start_rps";
        case RAMP_END -> "/points/" + index + "/plan/arrivals/ramp/end_rps";
        case TRACE_SPEEDUP -> "/points/" + index + "/plan/arrivals/speedup";
        case SLA_RUNS -> "/sla/" + index + "/runs";
        case SLA_LOWER -> "/sla/" + index + "/lower";
        case SLA_UPPER -> "/sla/" + index + "/upper";
        case SLA_FIXED_PARALLEL -> "/sla/" + index + "/fixed_parallel";
        case SLA_MULTIPLIER -> "/sla/" + index + "/multiplier";
        case RETRY_ON -> "/limits/retry/on";
        case MAX_RETRIES -> "/limits/retry/max_retries";
        case MAX_TOTAL_TOKENS -> "/limits/max_total_tokens";
        case MAX_COST -> "/limits/max_cost";
        case TARGET_PRECISION -> "/limits/target_precision";
        case TOKENIZE_PROMPT -> "/workloads/" + index + "/options/tokenize_prompt";
        case TOKENIZER_PATH -> "/workloads/" + index + "/options/tokenizer_path";
    };
}

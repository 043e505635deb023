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
        RETRY_ON, MAX_RETRIES, MAX_TOTAL_TOKENS, MAX_COST, TARGET_PRECISION
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
    };

    /** JSON pointers into a {@link RunSpec} written as JSON (the web API's body). */
    SpecPaths JSON_POINTERS = (field, index) -> switch (field) {
        case PARALLEL -> "/points/" + index + "/parallel";
        case NUMBER -> "/points/" + index + "/number";
        case RATE -> "/points/" + index + "/rate";
        case DURATION -> "/points/" + index + "/duration_sec";
        case WARMUP -> "/points/" + index + "/warmup";
        case PAUSE -> "/points/" + index + "/pause_after_sec";
        case MAX_TOKENS -> "/generation/max_tokens";
        case MIN_TOKENS -> "/generation/min_tokens";
        case TEMPERATURE -> "/generation/temperature";
        case TOP_P -> "/generation/top_p";
        case TOP_K -> "/generation/top_k";
        case CONNECT_TIMEOUT -> "/targets/" + index + "/timeouts/connect_sec";
        case READ_TIMEOUT -> "/targets/" + index + "/timeouts/read_sec";
        case TOTAL_TIMEOUT -> "/targets/" + index + "/timeouts/total_sec";
        case BURSTINESS -> "/points/" + index + "/arrivals/burstiness";
        case RAMP_START -> "/points/" + index + "/arrivals/ramp_up/start_rps";
        case RAMP_END -> "/points/" + index + "/arrivals/ramp_up/end_rps";
        case TRACE_SPEEDUP -> "/workloads/" + index + "/trace_speedup";
        case SLA_RUNS -> "/sla_auto_tune/num_runs";
        case SLA_LOWER -> "/sla_auto_tune/lower_bound";
        case SLA_UPPER -> "/sla_auto_tune/upper_bound";
        case SLA_FIXED_PARALLEL -> "/sla_auto_tune/fixed_parallel";
        case SLA_MULTIPLIER -> "/sla_auto_tune/number_multiplier";
        case RETRY_ON -> "/limits/retry/on";
        case MAX_RETRIES -> "/limits/retry/max_retries";
        case MAX_TOTAL_TOKENS -> "/limits/max_total_tokens";
        case MAX_COST -> "/limits/max_cost";
        case TARGET_PRECISION -> "/limits/target_precision";
    };
}

package io.unibench.engine.sla;

import io.unibench.metrics.PercentileRow;
import io.unibench.metrics.RunResult;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;

/**
 * The metrics {@code --sla-params} may constrain: evalscope's names. Time metrics are held in milliseconds here
 * whatever their source's unit (evalscope mixes seconds for latency and milliseconds for TTFT/TPOT; its criteria
 * thresholds inherit that trap).
 */
public enum SlaMetric {
    AVG_LATENCY("avg_latency", true, r -> ms(seconds(r.summary().latency().avgLatencySeconds()))),
    AVG_TTFT("avg_ttft", true, r -> r.summary().latency().avgTtftMs()),
    AVG_TPOT("avg_tpot", true, r -> r.summary().latency().avgTpotMs()),
    RPS("rps", false, r -> positive(r.summary().throughput().reqThroughput())),
    TPS("tps", false, r -> positive(r.summary().throughput().outputThroughput())),
    /** Ours: the run's {@code --goodput} (requests/s meeting its objectives); only with {@code --goodput}. */
    GOODPUT("goodput", false, r -> r.goodput() == null ? null : positive(r.goodput().requestsPerSecond())),
    P99_LATENCY("p99_latency", true, r -> ms(r.percentile("99%", PercentileRow.LATENCY))),
    P99_TTFT("p99_ttft", true, r -> r.percentile("99%", PercentileRow.TTFT)),
    P90_TTFT("p90_ttft", true, r -> r.percentile("90%", PercentileRow.TTFT)),
    P50_TTFT("p50_ttft", true, r -> r.percentile("50%", PercentileRow.TTFT)),
    P99_TPOT("p99_tpot", true, r -> r.percentile("99%", PercentileRow.TPOT)),
    P90_TPOT("p90_tpot", true, r -> r.percentile("90%", PercentileRow.TPOT)),
    P50_TPOT("p50_tpot", true, r -> r.percentile("50%", PercentileRow.TPOT));

    private final String key;
    private final boolean time;
    private final Function<RunResult, Double> value;

    SlaMetric(String key, boolean time, Function<RunResult, Double> value) {
        this.key = key;
        this.time = time;
        this.value = value;
    }

    /** evalscope's name, e.g. {@code p99_latency}. */
    public String key() {
        return key;
    }

    /** True for a time (held in ms; thresholds take s or ms), false for a rate (req/s, tok/s). */
    public boolean time() {
        return time;
    }

    /** The metric of a run (ms for times); null when the run has none (nothing succeeded, no stream). */
    public Double of(RunResult r) {
        Double v = value.apply(r);
        return v == null || !Double.isFinite(v) ? null : v;
    }

    /** The metric called {@code key}; null when there is none. */
    public static SlaMetric byKey(String key) {
        return Arrays.stream(values()).filter(m -> m.key.equals(key)).findFirst().orElse(null);
    }

    public static String keys() {
        return String.join(", ", Arrays.stream(values()).map(SlaMetric::key).toList());
    }

    /** A value as the table shows it: times in s (latency) or ms, rates with their unit. */
    public String format(double v) {
        if (!time) return String.format(Locale.ROOT, "%.2f %s", v, this == TPS ? "tok/s" : "req/s");
        return key.endsWith("latency") ? String.format(Locale.ROOT, "%.3f s", v / 1000)
                : String.format(Locale.ROOT, "%.2f ms", v);
    }

    private static Double seconds(double v) {
        return v < 0 ? null : v; // −1: nothing succeeded
    }

    private static Double positive(double v) {
        return v < 0 ? null : v;
    }

    private static Double ms(Double seconds) {
        return seconds == null ? null : seconds * 1000;
    }

}

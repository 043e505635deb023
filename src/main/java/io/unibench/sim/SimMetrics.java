package io.unibench.sim;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The simulator's live counters, gauges and histograms: {@link SimStats} for tests and {@code GET /metrics} in the
 * Prometheus text format with vLLM's metric names (so dashboards built for vLLM work against the simulator).
 * Updated from the event loops and the scheduler thread, hence adders and atomics.
 */
final class SimMetrics {
    /** vLLM's buckets for time_to_first_token_seconds. */
    static final double[] TTFT_BUCKETS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
            2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
    /** vLLM's buckets for inter_token_latency_seconds (and time_per_output_token_seconds). */
    static final double[] ITL_BUCKETS = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5,
            5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
    /** vLLM's buckets for the request-level latencies (e2e, queue). */
    static final double[] REQUEST_BUCKETS = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0,
            50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

    final LongAdder requestsReceived = new LongAdder();
    final LongAdder streamsActive = new LongAdder();
    final LongAdder streamsCancelled = new LongAdder();
    /** Misbehaviour leak-cancelled: cancelled requests the running gauge keeps counting. */
    final LongAdder leakedRunning = new LongAdder();
    final LongAdder promptTokens = new LongAdder();
    final LongAdder cachedTokens = new LongAdder();
    final LongAdder generationTokens = new LongAdder();
    final LongAdder prefixQueries = new LongAdder();
    final LongAdder prefixHits = new LongAdder();
    final LongAdder steps = new LongAdder();
    final LongAdder successStop = new LongAdder();
    final LongAdder successLength = new LongAdder();
    final Map<String, LongAdder> rejected = new ConcurrentHashMap<>();
    final Map<String, LongAdder> faults = new ConcurrentHashMap<>();
    final Histogram ttft = new Histogram(TTFT_BUCKETS);
    final Histogram itl = new Histogram(ITL_BUCKETS);
    final Histogram e2e = new Histogram(REQUEST_BUCKETS);
    final Histogram queueTime = new Histogram(REQUEST_BUCKETS);
    volatile int running;
    volatile int waiting;
    volatile double kvUsage;
    /** Duration of the last engine step that decoded, nanoseconds (for tests of the batching model). */
    volatile long lastDecodeStepNanos;

    void rejected(String reason) {
        rejected.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    void fault(FaultKind kind) {
        faults.computeIfAbsent(kind.id(), r -> new LongAdder()).increment();
    }

    long rejectedTotal() {
        long n = 0;
        for (LongAdder a : rejected.values()) n += a.sum();
        return n;
    }

    SimStats snapshot() {
        return new SimStats(requestsReceived.sum(), streamsActive.sum(), streamsCancelled.sum(), promptTokens.sum(),
                cachedTokens.sum(), generationTokens.sum(), running, waiting, rejectedTotal(), steps.sum(),
                lastDecodeStepNanos);
    }

    String prometheus(String model) {
        String l = "{model_name=\"" + model.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
        String lp = l.substring(0, l.length() - 1) + ",";
        StringBuilder sb = new StringBuilder(8192);
        gauge(sb, "vllm:num_requests_running", "Number of requests in the running batch.", l, running + leakedRunning.sum());
        gauge(sb, "vllm:num_requests_waiting", "Number of requests waiting to be scheduled.", l, waiting);
        gauge(sb, "vllm:kv_cache_usage_perc", "KV-cache usage, 1 = 100 percent.", l, kvUsage);
        counter(sb, "vllm:prefix_cache_queries_total", "Prompt tokens looked up in the prefix cache.", l, prefixQueries.sum());
        counter(sb, "vllm:prefix_cache_hits_total", "Prompt tokens found in the prefix cache.", l, prefixHits.sum());
        counter(sb, "vllm:prompt_tokens_total", "Prefill tokens processed (cached ones included).", l, promptTokens.sum());
        counter(sb, "vllm:generation_tokens_total", "Generation tokens processed.", l, generationTokens.sum());
        sb.append("# HELP vllm:request_success_total Requests that finished.\n# TYPE vllm:request_success_total counter\n");
        sb.append("vllm:request_success_total").append(lp).append("finish_reason=\"stop\"} ").append(successStop.sum()).append('\n');
        sb.append("vllm:request_success_total").append(lp).append("finish_reason=\"length\"} ").append(successLength.sum()).append('\n');
        ttft.write(sb, "vllm:time_to_first_token_seconds", "Time to first token, from arrival.", l);
        itl.write(sb, "vllm:inter_token_latency_seconds", "Time between two tokens of a sequence.", l);
        e2e.write(sb, "vllm:e2e_request_latency_seconds", "Arrival to last token.", l);
        queueTime.write(sb, "vllm:request_queue_time_seconds", "Time waiting for a running slot.", l);
        counter(sb, "unibench:requests_received_total", "Completion requests received, valid or not.", l, requestsReceived.sum());
        counter(sb, "unibench:requests_cancelled_total", "Generations stopped because the client went away.", l, streamsCancelled.sum());
        counter(sb, "unibench:engine_steps_total", "Engine steps run.", l, steps.sum());
        labelled(sb, "unibench:requests_rejected_total", "Requests refused by the scheduler, by reason.", lp, "reason", rejected);
        labelled(sb, "unibench:faults_injected_total", "Faults injected, by type.", lp, "type", faults);
        return sb.toString();
    }

    private static void gauge(StringBuilder sb, String name, String help, String labels, double v) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" gauge\n")
                .append(name).append(labels).append(' ').append(num(v)).append('\n');
    }

    private static void counter(StringBuilder sb, String name, String help, String labels, long v) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
                .append(name).append(labels).append(' ').append(v).append('\n');
    }

    private static void labelled(StringBuilder sb, String name, String help, String lp, String label,
                                 Map<String, LongAdder> values) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n");
        values.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> sb.append(name).append(lp)
                .append(label).append("=\"").append(e.getKey()).append("\"} ").append(e.getValue().sum()).append('\n'));
    }

    static String num(double v) {
        if (v == Math.rint(v) && !Double.isInfinite(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        return String.format(Locale.ROOT, "%s", v);
    }

    /** A Prometheus histogram in seconds: cumulative buckets written at render time. */
    static final class Histogram {
        private final double[] bounds;
        private final AtomicLongArray counts;
        private final DoubleAdder sum = new DoubleAdder();

        Histogram(double[] bounds) {
            this.bounds = bounds;
            this.counts = new AtomicLongArray(bounds.length + 1);
        }

        void observeNanos(long nanos) {
            double s = nanos / 1e9;
            int i = 0;
            while (i < bounds.length && s > bounds[i]) i++;
            counts.incrementAndGet(i);
            sum.add(s);
        }

        long count() {
            long n = 0;
            for (int i = 0; i < counts.length(); i++) n += counts.get(i);
            return n;
        }

        void write(StringBuilder sb, String name, String help, String labels) {
            sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" histogram\n");
            String lp = labels.substring(0, labels.length() - 1) + ",";
            long cum = 0;
            for (int i = 0; i < bounds.length; i++) {
                cum += counts.get(i);
                sb.append(name).append("_bucket").append(lp).append("le=\"").append(bounds[i]).append("\"} ").append(cum).append('\n');
            }
            cum += counts.get(bounds.length);
            sb.append(name).append("_bucket").append(lp).append("le=\"+Inf\"} ").append(cum).append('\n');
            sb.append(name).append("_sum").append(labels).append(' ').append(sum.sum()).append('\n');
            sb.append(name).append("_count").append(labels).append(' ').append(cum).append('\n');
        }
    }
}

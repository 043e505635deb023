package io.unibench.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Goodput of one run: the requests that met every objective of {@link GoodputSlo}, per second of the run's wall time
 * (the denominator of {@code Req Throughput (req/s)}, so goodput equals it when every success is good).
 *
 * @param slo               the objectives
 * @param goodRequests      successful requests meeting every objective
 * @param requestsPerSecond good requests per second, 4 decimals; −1 when nothing succeeded (as req/s)
 */
public record Goodput(GoodputSlo slo, long goodRequests, double requestsPerSecond) {
    // our keys in benchmark_summary.json (vLLM's result file calls the rate "request_goodput")
    public static final String GOODPUT = "Request Goodput (req/s)";
    public static final String GOOD_REQUESTS = "Good Requests";
    public static final String SLO = "Goodput SLO (ms)";

    /** From the run's summary and the count of good requests among its successes. */
    public static Goodput of(GoodputSlo slo, long goodRequests, Summary summary) {
        long successes = summary.requests().successRequests();
        double reqThroughput = summary.throughput().reqThroughput();
        double rate = successes > 0 && reqThroughput >= 0
                ? Rounding.round(reqThroughput * goodRequests / successes, 4) : -1;
        return new Goodput(slo, goodRequests, rate);
    }

    /** The keys added to {@code benchmark_summary.json} and the stored summary. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(GOODPUT, requestsPerSecond);
        m.put(GOOD_REQUESTS, goodRequests);
        m.put(SLO, slo.describe());
        return m;
    }
}

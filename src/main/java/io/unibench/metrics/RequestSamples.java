package io.unibench.metrics;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The per-request values of one point that a comparison decides on, kept raw: latency (s), TTFT (ms), TTFCT (ms)
 * and TPOT (ms) of the successes, counted as {@link RunMetrics} counts them (TTFT of the streamed successes, or of
 * all successes when nothing streamed, where it equals the latency; TTFCT of the streamed replies that reasoned
 * before their answer, none otherwise; TPOT of streamed replies of ≥ 2 tokens). Not thread-safe; fed from a store's
 * request rows.
 */
public final class RequestSamples implements RecordSink {
    /** The columns compared, in the order a comparison shows them. */
    public static final String[] COLUMNS = {PercentileRow.TTFT, PercentileRow.TTFCT, PercentileRow.LATENCY,
            PercentileRow.TPOT};

    private final Values latency = new Values();
    private final Values ttftStreamed = new Values();
    private final Values ttfct = new Values();
    private final Values tpot = new Values();
    private long successes;
    private long streamedSuccesses;
    private boolean reasoning; // some streamed success reasoned before its answer: TTFCT is compared

    @Override
    public void accept(RequestRecord r) {
        if (!r.success()) return;
        successes++;
        latency.add(r.latencySeconds());
        if (r.timing().stream()) {
            streamedSuccesses++;
            ttftStreamed.add(r.ttftSeconds() * 1000);
            ttfct.add(r.ttfctSeconds() * 1000); // NaN (left out) when no answer text came
            if (r.timing().reasonedFirst() || r.tokens().reasoned()) reasoning = true;
            tpot.add(r.tpotSeconds() * 1000);
        }
    }

    /** Successful requests. */
    public long successes() {
        return successes;
    }

    /** The column's values sorted ascending (NaN left out); empty when none. */
    public double[] sorted(String column) {
        return switch (column) {
            case PercentileRow.LATENCY -> latency.sorted(1);
            case PercentileRow.TTFT -> streamedSuccesses > 0 ? ttftStreamed.sorted(1) : latency.sorted(1000);
            case PercentileRow.TTFCT -> reasoning ? ttfct.sorted(1) : new double[0];
            case PercentileRow.TPOT -> tpot.sorted(1);
            default -> throw new IllegalArgumentException("not a compared column: " + column);
        };
    }

    /** Every column's sorted values. */
    public Map<String, double[]> all() {
        Map<String, double[]> m = new LinkedHashMap<>();
        for (String c : COLUMNS) m.put(c, sorted(c));
        return m;
    }

    private static final class Values {
        private double[] v = new double[64];
        private int n;

        void add(double x) {
            if (!Double.isFinite(x)) return;
            if (n == v.length) v = Arrays.copyOf(v, n * 2);
            v[n++] = x;
        }

        double[] sorted(double factor) {
            double[] out = Arrays.copyOf(v, n);
            if (factor != 1) for (int i = 0; i < n; i++) out[i] *= factor;
            Arrays.sort(out);
            return out;
        }
    }
}
